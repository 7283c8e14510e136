package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/problem"
)

// LineItem is one of what a statement line pays at once: an unpaid entry
// of the line's direction, or an order's open charge (Installment; 0 the
// first open one).
type LineItem struct {
	EntryToken, OrderToken string
	Installment            int
}

// MaxLineItems bounds what one line pays at once.
const MaxLineItems = 50

// Errors of paying several items with one line.
var (
	ErrLineItemTwice = problem.New(problem.Invalid, "An entry or charge is named twice among the items the statement line pays.")
	ErrLineItemsSum  = problem.New(problem.Conflict, "The items' amounts do not add up to the statement line's.")
	ErrLineItemsMany = problem.New(problem.Invalid, "A statement line pays at most 50 items at once.")
)

// lineItem is a LineItem read: what it is and what it asks on the line's
// day, signed as the line (principal: a charge's without its fine and
// interest).
type lineItem struct {
	c                 StatementCandidate
	amount, principal decimal.Decimal
}

// reconcileItems pays several entries or charges with one line, in the
// line's write: they add up to the line (each charge at what it asks on
// the line's day, with its fine and interest, or all at their principal),
// or with r.Difference to their principal with the difference booked.
// Each is paid as a line of its own amount would pay it, recorded in
// statement_line_items for an undo; the line names the first.
func (db *DB) reconcileItems(ctx context.Context, tx *sql.Tx, rules Rules, unitID int64, lineToken string, account int64, l StatementLineIn, memo string,
	r Reconciliation, now time.Time, settle SettleFunc) ([]Payment, error) {
	if len(r.Items) > MaxLineItems {
		return nil, ErrLineItemsMany
	}
	t := &Tx{ctx: ctx, tx: tx, db: db, now: now}
	var items []lineItem
	seen := map[StatementCandidate]bool{}
	total, principal := decimal.Zero, decimal.Zero
	for _, it := range r.Items {
		var li lineItem
		switch {
		case it.EntryToken != "":
			var kind string
			var cents int64
			if err := tx.QueryRowContext(ctx, `SELECT id, type, value_cents FROM entries WHERE unit_id = ? AND token = ? AND active = 1 AND pay_day IS NULL`,
				unitID, it.EntryToken).Scan(&li.c.Entry, &kind, &cents); err != nil {
				return nil, ErrInvalidReference
			}
			if (kind == "in") != l.Amount.IsPositive() {
				return nil, ErrAmountMismatch
			}
			li.amount = decimal.New(cents, -2)
			if kind == "out" {
				li.amount = li.amount.Neg()
			}
			li.principal = li.amount
		case it.OrderToken != "":
			if !l.Amount.IsPositive() {
				return nil, ErrAmountMismatch
			}
			id, err := t.OpenChargeOfOrder(unitID, it.OrderToken, it.Installment)
			if err != nil {
				return nil, err
			}
			c, err := t.ChargeToSettle(id)
			if err != nil {
				return nil, err
			}
			owed := rules.Owed(c.Due, l.Posted)
			li.c.Charge, li.amount, li.principal = id, owed.Total().Decimal, owed.Principal.Decimal
		default:
			return nil, errMissingChoice
		}
		if seen[li.c] {
			return nil, ErrLineItemTwice
		}
		seen[li.c] = true
		total, principal = total.Add(li.amount), principal.Add(li.principal)
		items = append(items, li)
	}
	atPrincipal := false
	var diff int64
	switch {
	case total.Equal(l.Amount.Decimal):
	case principal.Equal(l.Amount.Decimal):
		atPrincipal = true
	case r.Difference != nil:
		atPrincipal = true
		d := l
		d.Amount = Money{l.Amount.Sub(principal)}
		var err error
		if diff, err = bookLine(ctx, tx, unitID, d, account, memo, *r.Difference, db.id(), now); err != nil {
			return nil, err
		}
	default:
		return nil, ErrLineItemsSum
	}
	var payments []Payment
	var firstEntry, firstCharge int64
	var firstEffect sql.NullString
	for i, it := range items {
		part := l
		part.Amount = Money{it.amount}
		if atPrincipal {
			part.Amount = Money{it.principal}
		}
		p, entry, effect, err := db.payWithLine(ctx, tx, lineToken, account, part, it.c, now, settle)
		if err != nil {
			return nil, err
		}
		if p != nil {
			payments = append(payments, *p)
		}
		if i == 0 {
			firstEntry, firstCharge, firstEffect = entry, it.c.Charge, effect
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO statement_line_items (line_id, entry_id, charge_id, effect)
			SELECT id, ?, ?, ? FROM statement_lines WHERE token = ?`, nullID(entry), nullID(it.c.Charge), effect, lineToken); err != nil {
			return nil, err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE statement_lines SET status = 'matched', matched_by = 'person', entry_id = ?, charge_id = ?, entry_effect = ?,
		diff_entry_id = ?, updated_at = ? WHERE token = ?`, nullID(firstEntry), nullID(firstCharge), firstEffect, nullID(diff), timestamp(now), lineToken)
	return payments, err
}

// undoLineItems undoes, last first, what a line that paid several items
// did to each (a charge's payment through unsettle, an entry's payment or
// reconciliation), and forgets them; items false when the line paid one.
func undoLineItems(ctx context.Context, t *Tx, lineToken string, unsettle UnsettleFunc) (items bool, err error) {
	rows, err := t.tx.QueryContext(ctx, `SELECT i.entry_id, i.charge_id, i.effect FROM statement_line_items i JOIN statement_lines l ON l.id = i.line_id
		WHERE l.token = ? ORDER BY i.id DESC`, lineToken)
	if err != nil {
		return false, err
	}
	type done struct {
		entry, charge sql.NullInt64
		effect        sql.NullString
	}
	var all []done
	for rows.Next() {
		var d done
		if err := rows.Scan(&d.entry, &d.charge, &d.effect); err != nil {
			rows.Close()
			return false, err
		}
		all = append(all, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(all) == 0 {
		return false, err
	}
	for _, d := range all {
		if d.charge.Valid {
			err = unsettle(t, d.charge.Int64, d.entry.Int64)
		} else if d.entry.Valid {
			err = undoEntryEffect(ctx, t.tx, d.effect.String, d.entry.Int64, t.now)
		}
		if err != nil {
			return false, err
		}
	}
	_, err = t.tx.ExecContext(ctx, `DELETE FROM statement_line_items WHERE line_id = (SELECT id FROM statement_lines WHERE token = ?)`, lineToken)
	return true, err
}

// undoEntryEffect undoes what reconciling did to an entry (effect: paid,
// reconciled or booked); ErrLineEffect when it was not kept.
func undoEntryEffect(ctx context.Context, tx *sql.Tx, effect string, entry int64, now time.Time) error {
	undo := map[string]string{
		"paid":       `UPDATE entries SET pay_day = NULL, conciliation_date = NULL, id_ofx = NULL, updated_at = ? WHERE id = ?`,
		"reconciled": `UPDATE entries SET conciliation_date = NULL, id_ofx = NULL, updated_at = ? WHERE id = ?`,
		"booked":     `UPDATE entries SET active = 0, updated_at = ? WHERE id = ?`,
	}[effect]
	if undo == "" {
		return ErrLineEffect
	}
	_, err := tx.ExecContext(ctx, undo, timestamp(now), entry)
	return err
}
