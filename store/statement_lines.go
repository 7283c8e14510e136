package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/problem"
)

// StatementLineIn is a statement line as an OFX file gives it.
type StatementLineIn struct {
	FITID  string
	Posted string // YYYY-MM-DD
	Amount Money  // credits positive, debits negative
	Memo   string
}

// StatementLine is a stored statement line.
type StatementLine struct {
	Token       string `json:"token" format:"uuid" doc:"The line's token."`
	BankAccount string `json:"id_token_bank_account" format:"uuid" doc:"The bank account's token."`
	FITID       string `json:"fitid" doc:"The bank's id of the transaction (OFX FITID)."`
	Date        string `json:"date" format:"date" doc:"The posting day, YYYY-MM-DD."`
	Amount      Money  `json:"amount" doc:"The amount: positive a credit, negative a debit."`
	Memo        Text   `json:"memo" doc:"The bank's description; null when none."`
	Status      string `json:"status" enum:"open,matched,dismissed" doc:"open (to reconcile), matched or dismissed."`
	// MatchedBy: exact (amount and date), window (amount, the nearest
	// date within the window), person (/reconcile_statement_line).
	MatchedBy   Text `json:"matched_by" enum:"exact,window,person" doc:"How it was matched: exact (amount and date), window (amount, the nearest date within the window) or person (/reconcile_statement_line); null while open."`
	EntryToken  Text `json:"entry_token" doc:"The entry it was reconciled with; null when none."`
	ChargeToken Text `json:"charge_token" doc:"The charge it paid; null when none."`
	OrderToken  Text `json:"order_token" doc:"That charge's sales order; null when none."`
}

// StatementReport is what importing a statement did.
type StatementReport struct {
	Imported int `json:"imported" doc:"How many lines were new."`
	// Repeated lines (a FITID imported before) change nothing.
	Repeated int             `json:"repeated" doc:"How many were imported before (the same FITID); they change nothing."`
	Matched  int             `json:"matched" doc:"How many new lines were matched."`
	Open     int             `json:"open" doc:"How many new lines wait to be reconciled."`
	Lines    []StatementLine `json:"lines" doc:"The new lines."`
	// Payments are the charges the statement settled, for the invoices
	// they make due.
	Payments []Payment `json:"-"`
}

// Errors of reconciliation.
var (
	ErrLineNotOpen    = problem.New(problem.Conflict, "This statement line is already matched or dismissed.")
	ErrAmountMismatch = problem.New(problem.Conflict, "The entry's amount or direction is not the statement line's.")
)

const statementSelect = `SELECT l.token, ba.token, l.fitid, l.posted, l.amount, l.memo, l.status, l.matched_by, e.token, c.token, o.token
	FROM statement_lines l JOIN bank_accounts ba ON ba.id = l.bank_account_id
	LEFT JOIN entries e ON e.id = l.entry_id LEFT JOIN charges c ON c.id = l.charge_id LEFT JOIN sales_orders o ON o.id = c.order_id`

func scanStatementLine(s scanner) (StatementLine, error) {
	var l StatementLine
	err := s.Scan(&l.Token, &l.BankAccount, &l.FITID, &l.Date, &l.Amount, &l.Memo, &l.Status, &l.MatchedBy, &l.EntryToken, &l.ChargeToken, &l.OrderToken)
	return l, err
}

// StatementCandidate is what a statement line may settle: an open charge
// (Charge) or an entry (Entry), with the day it is compared by (the
// charge's or unpaid entry's due date, a paid entry's payment day).
type StatementCandidate struct {
	Charge, Entry int64
	Day           string
	// part: the line pays part of the charge (Settle.Part).
	part bool
}

// ImportStatement imports a bank account's statement lines in one
// transaction, each FITID once, and matches each new line: a credit to an
// open charge paid into this account or an income of the same amount, a
// debit to an expense of the same amount (unpaid, by due date; or paid
// into this account and not reconciled, by payment day), the one
// Rules.MatchStatementLine picks; with none the line waits open for a
// person. An entry is never matched by two lines. A matched
// charge is settled as every confirmed payment is; the entry (the income
// it booked, or the matched one) is paid on the line's date into the
// account and reconciled (conciliation_date, id_ofx).
func (db *DB) ImportStatement(ctx context.Context, unitID int64, accountToken string, in []StatementLineIn, settle SettleFunc) (StatementReport, error) {
	rep := StatementReport{Lines: []StatementLine{}}
	rules, err := db.rules()
	if err != nil {
		return rep, err
	}
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var account int64
		if err := tx.QueryRowContext(ctx, `SELECT id FROM bank_accounts WHERE unit_id = ? AND token = ? AND active = 1`,
			unitID, accountToken).Scan(&account); err != nil {
			return ErrInvalidReference
		}
		for _, l := range in {
			if !InMoneyRange(l.Amount.Decimal) || l.Amount.IsZero() {
				return ErrMoneyRange
			}
			tok := db.id()
			res, err := tx.ExecContext(ctx, `INSERT INTO statement_lines (token, unit_id, bank_account_id, fitid, posted, amount, amount_cents, memo,
				status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?) ON CONFLICT (bank_account_id, fitid) DO NOTHING`,
				tok, unitID, account, l.FITID, l.Posted, Money{l.Amount.Round(2)}, l.Amount.Cents(), nullString(l.Memo), timestamp(now), timestamp(now))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				rep.Repeated++
				continue
			}
			rep.Imported++
			found, err := db.statementCandidates(ctx, tx, rules, unitID, account, l, now)
			if err != nil {
				return err
			}
			c, how := rules.MatchStatementLine(l.Posted, found)
			if how != "" {
				p, err := db.reconcile(ctx, tx, tok, account, l, c, how, now, settle)
				if err != nil {
					return err
				}
				if p != nil {
					rep.Payments = append(rep.Payments, *p)
				}
				rep.Matched++
			} else {
				rep.Open++
			}
			sl, err := scanStatementLine(tx.QueryRowContext(ctx, statementSelect+` WHERE l.token = ?`, tok))
			if err != nil {
				return err
			}
			rep.Lines = append(rep.Lines, sl)
		}
		return nil
	})
	return rep, wrap("import statement", err)
}

// statementCandidates are the open charges and entries a line may settle:
// an entry of its amount, a charge that asks it on the line's day
// (Rules.Owed: its principal, or with a late payment's fine and
// interest).
func (db *DB) statementCandidates(ctx context.Context, tx *sql.Tx, rules Rules, unitID, account int64, l StatementLineIn, now time.Time) ([]StatementCandidate, error) {
	// An entry already paid into this account and not reconciled (an
	// income a bank return booked) is matched by its payment day; an
	// unpaid one by its due date. A charge is one paid into this account:
	// its agreement's or its order's, or any when the order names none.
	kind, cents := "in", l.Amount.Cents()
	if !l.Amount.IsPositive() {
		kind, cents = "out", -cents
	}
	var out []StatementCandidate
	rows, err := tx.QueryContext(ctx, `SELECT e.id, COALESCE(e.pay_day, e.due_date) FROM entries e WHERE e.unit_id = ? AND e.type = ? AND e.active = 1
			AND e.value_cents = ? AND e.conciliation_date IS NULL AND e.id_ofx IS NULL
			AND ((e.pay_day IS NULL AND (e.bank_account_id IS NULL OR e.bank_account_id = ?)) OR (e.pay_day IS NOT NULL AND e.bank_account_id = ?))`,
		unitID, kind, cents, account, account)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c StatementCandidate
		if err := rows.Scan(&c.Entry, &c.Day); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil || !l.Amount.IsPositive() {
		return out, err
	}
	// A charge of the line's amount, and those whose amount the rules
	// may make it: late ones with late terms, PSP ones Pix kept part of.
	rows, err = tx.QueryContext(ctx, `SELECT c.id, c.due_date, c.amount, c.agreement_id IS NOT NULL, COALESCE(c.provider_ref, ''),
			EXISTS (SELECT 1 FROM charge_parts p WHERE p.charge_id = c.id), `+frozenSelect+`, `+termsSelect+`
		FROM charges c JOIN sales_orders o ON o.id = c.order_id LEFT JOIN bank_agreements a ON a.id = c.agreement_id
		WHERE o.unit_id = ? AND c.status IN ('PENDING', 'OVERDUE') AND COALESCE(a.bank_account_id, o.bank_account_id, ?) = ?
			AND (c.amount = ? OR c.provider_ref LIKE 'psp:%' OR (c.agreement_id IS NOT NULL AND c.due_date < ?)
				OR EXISTS (SELECT 1 FROM charge_parts p WHERE p.charge_id = c.id))`,
		unitID, account, account, l.Amount.StringFixed(2), l.Posted)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var charges []chargeCandidate
	for rows.Next() {
		var c chargeCandidate
		var frozen, terms string
		if err := rows.Scan(&c.ID, &c.Due.DueDate, &c.Due.Amount, &c.Due.Registered, &c.Due.Ref, &c.parts, &frozen, &terms); err != nil {
			return nil, err
		}
		if err := errors.Join(c.Due.readFrozen(frozen), c.Due.readTerms(terms)); err != nil {
			return nil, err
		}
		charges = append(charges, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	t := &Tx{ctx: ctx, tx: tx, db: db, now: now}
	for _, c := range charges {
		if c.parts || strings.HasPrefix(c.Due.Ref, "psp:") {
			if c.Due.Received, _, err = t.ReceivedTowards(c.ID); err != nil {
				return nil, err
			}
		}
		// A line of what the charge asks with the fine and interest of
		// its own day was paid that day: it pairs as of that day.
		switch owed := rules.Owed(c.Due, l.Posted); {
		case owed.Principal.Equal(l.Amount.Decimal):
			out = append(out, StatementCandidate{Charge: c.ID, Day: c.Due.DueDate})
		case owed.Total().Equal(l.Amount.Decimal):
			out = append(out, StatementCandidate{Charge: c.ID, Day: l.Posted})
		}
	}
	return out, nil
}

// chargeCandidate is an open charge a credit may pay, as Rules.Owed reads
// it.
type chargeCandidate struct {
	ID    int64
	Due   ChargeDue
	parts bool // statement lines paid parts of it
}

// SettleFunc settles an open charge in the write tx holds, as the
// business rules decide (billing's): the statement's functions call it for
// a line that paid a charge, and decide nothing of it.
type SettleFunc func(tx *Tx, chargeID int64, in Settle) (Payment, error)

// reconcile settles (through settle) and reconciles what a line matched:
// a charge is paid (with a confirmed payment's effects) and the income it
// books is reconciled; an entry is paid on the line's date into the
// account and reconciled.
func (db *DB) reconcile(ctx context.Context, tx *sql.Tx, lineToken string, account int64, l StatementLineIn, c StatementCandidate, how string, now time.Time,
	settle SettleFunc) (*Payment, error) {
	p, entry, effect, err := db.payWithLine(ctx, tx, lineToken, account, l, c, now, settle)
	if err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE statement_lines SET status = 'matched', matched_by = ?, entry_id = ?, charge_id = ?, entry_effect = ?,
		updated_at = ? WHERE token = ?`, how, nullID(entry), nullID(c.Charge), effect, timestamp(now), lineToken)
	return p, err
}

// payWithLine settles and reconciles what a line (of l's amount) pays,
// as reconcile says, and answers the payment (a charge's), the entry
// reconciled and what reconciling did to it (paid or reconciled).
func (db *DB) payWithLine(ctx context.Context, tx *sql.Tx, lineToken string, account int64, l StatementLineIn, c StatementCandidate, now time.Time,
	settle SettleFunc) (p *Payment, entry int64, effect sql.NullString, err error) {
	entry = c.Entry
	if c.Charge != 0 {
		amt := Money{l.Amount.Round(2)}
		t := &Tx{ctx: ctx, tx: tx, db: db, now: now}
		pay, err := settle(t, c.Charge, Settle{Amount: &amt, Via: PaidStatement, Day: l.Posted, BankAccountID: account, Part: c.part})
		if err != nil {
			return nil, 0, effect, err
		}
		p = &pay
		if c.part {
			if err := t.RecordChargePart(c.Charge, lineToken, amt, pay.IncomeToken.String); err != nil {
				return nil, 0, effect, err
			}
		}
		if pay.IncomeToken.Valid {
			if err := tx.QueryRowContext(ctx, `SELECT id FROM entries WHERE token = ?`, pay.IncomeToken.String).Scan(&entry); err != nil {
				return nil, 0, effect, err
			}
			// A late payment's fine and interest, booked beside the
			// principal, are reconciled with it.
			if _, err := tx.ExecContext(ctx, `UPDATE entries SET bank_account_id = ?, conciliation_date = ?, id_ofx = ?, updated_at = ?
				WHERE charge_id = ? AND active = 1 AND id != ? AND pay_day = ? AND conciliation_date IS NULL`,
				account, l.Posted, l.FITID, timestamp(now), c.Charge, entry, l.Posted); err != nil {
				return nil, 0, effect, err
			}
		}
	}
	if entry != 0 {
		// Kept for an undo: whether the line paid the entry or only
		// reconciled one already paid.
		if err := tx.QueryRowContext(ctx, `SELECT CASE WHEN pay_day IS NULL THEN 'paid' ELSE 'reconciled' END FROM entries WHERE id = ?`, entry).
			Scan(&effect); err != nil {
			return nil, 0, effect, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE entries SET pay_day = COALESCE(pay_day, ?), bank_account_id = ?, conciliation_date = ?,
			id_ofx = ?, updated_at = ? WHERE id = ?`, l.Posted, account, l.Posted, l.FITID, timestamp(now), entry); err != nil {
			return nil, 0, effect, err
		}
	}
	return p, entry, effect, nil
}

func nullID(id int64) sql.NullInt64 { return sql.NullInt64{Int64: id, Valid: id != 0} }

// StatementLines lists a page of the unit's statement lines (of one
// account when given, of one status when given), by date, and how many
// there are.
func (db *DB) StatementLines(ctx context.Context, unitID int64, accountToken, status string, pg Page) ([]StatementLine, int, error) {
	l := listing{what: "statement lines", query: statementSelect, where: []string{"l.unit_id = ?", "(? = '' OR ba.token = ?)", "(? = '' OR l.status = ?)"},
		args: []any{unitID, accountToken, accountToken, status, status}, order: "l.posted, l.id"}
	return pageOf(ctx, db, l, pg, func(rows *sql.Rows) (StatementLine, error) { return scanStatementLine(rows) })
}

// ResolvedLine is a matched or dismissed statement line with what it was
// paired with, as a person reviews it.
type ResolvedLine struct {
	StatementLine
	EntryDescription Text
	// Effect is what reconciling did to the entry (paid, reconciled,
	// booked), null when not kept.
	Effect    Text
	OrderCode Text
}

// ResolvedStatementLines are the unit's latest matched or dismissed lines,
// the most recently resolved first.
func (db *DB) ResolvedStatementLines(ctx context.Context, unitID int64, limit int) ([]ResolvedLine, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT l.token, ba.token, l.fitid, l.posted, l.amount, l.memo, l.status, l.matched_by, e.token, c.token, o.token,
		e.description, l.entry_effect, o.cod_orders
		FROM statement_lines l JOIN bank_accounts ba ON ba.id = l.bank_account_id
		LEFT JOIN entries e ON e.id = l.entry_id LEFT JOIN charges c ON c.id = l.charge_id LEFT JOIN sales_orders o ON o.id = c.order_id
		WHERE l.unit_id = ? AND l.status != 'open' ORDER BY l.updated_at DESC, l.id DESC LIMIT ?`, unitID, limit)
	if err != nil {
		return nil, wrap("resolved statement lines", err)
	}
	defer rows.Close()
	var out []ResolvedLine
	for rows.Next() {
		var r ResolvedLine
		l := &r.StatementLine
		if err := rows.Scan(&l.Token, &l.BankAccount, &l.FITID, &l.Date, &l.Amount, &l.Memo, &l.Status, &l.MatchedBy, &l.EntryToken, &l.ChargeToken,
			&l.OrderToken, &r.EntryDescription, &r.Effect, &r.OrderCode); err != nil {
			return nil, wrap("resolved statement lines", err)
		}
		out = append(out, r)
	}
	return out, wrap("resolved statement lines", rows.Err())
}

// PostedStatementLines lists the unit's statement lines, of every account,
// posted within from..to (YYYY-MM-DD), by date.
func (db *DB) PostedStatementLines(ctx context.Context, unitID int64, from, to string) ([]StatementLine, error) {
	rows, err := db.r.QueryContext(ctx, statementSelect+` WHERE l.unit_id = ? AND l.posted BETWEEN ? AND ? ORDER BY l.posted, l.id`, unitID, from, to)
	if err != nil {
		return nil, wrap("posted statement lines", err)
	}
	defer rows.Close()
	out := []StatementLine{}
	for rows.Next() {
		l, err := scanStatementLine(rows)
		if err != nil {
			return nil, wrap("posted statement lines", err)
		}
		out = append(out, l)
	}
	return out, wrap("posted statement lines", rows.Err())
}

// Reconciliation is a person's decision on an open statement line.
type Reconciliation struct {
	LineToken string
	Dismiss   bool
	// One of: an unpaid entry of the line's amount and direction, or an
	// order whose open charge (installment; 0 the first) the line pays.
	EntryToken  string
	OrderToken  string
	Installment int
	// Partial pays part of the entry: a line smaller than it, of its
	// direction, pays the line's amount, the rest left open as an entry
	// of its own (its due date, description "… (restante)").
	Partial bool
	// Difference pairs the line with an entry of another amount: the
	// entry is paid at its own, and the difference (the line's amount
	// less the entry's) booked as an entry of this category, paid on the
	// line's day from its account: interest or a fine received, a
	// discount obtained (a credit), or interest, a fee or a discount
	// given (a debit).
	Difference *Booking
	// Items, instead of one entry or order, are the entries and charges
	// the line pays at once (reconcileItems).
	Items []LineItem
	// Book, instead, books the line as a new entry, paid on its day from
	// its account: an income for a credit, an expense for a debit (a bank
	// fee, a tariff).
	Book *Booking
}

// Booking is the entry a statement line becomes: its category (of the
// line's direction) and description (the line's memo when empty).
type Booking struct {
	CategoryToken, Description string
}

// ReconcileStatementLine pairs an open line with an entry or a charge, or
// dismisses it (a bank fee, a transfer between the firm's accounts).
func (db *DB) ReconcileStatementLine(ctx context.Context, unitID int64, r Reconciliation, settle SettleFunc) (StatementLine, []Payment, error) {
	var out StatementLine
	var payments []Payment
	rules, err := db.rules()
	if err != nil {
		return out, nil, err
	}
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var l StatementLineIn
		var account int64
		var status string
		var memo sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT fitid, posted, amount, bank_account_id, status, memo FROM statement_lines WHERE unit_id = ? AND token = ?`,
			unitID, r.LineToken).Scan(&l.FITID, &l.Posted, &l.Amount, &account, &status, &memo)
		if err != nil {
			return notFound(err)
		}
		if status != "open" {
			return ErrLineNotOpen
		}
		switch {
		case r.Dismiss:
			if _, err := tx.ExecContext(ctx, `UPDATE statement_lines SET status = 'dismissed', matched_by = 'person', updated_at = ? WHERE token = ?`,
				timestamp(now), r.LineToken); err != nil {
				return err
			}
		case r.Book != nil:
			id, err := bookLine(ctx, tx, unitID, l, account, memo.String, *r.Book, db.id(), now)
			if err != nil {
				return err
			}
			if _, err := db.reconcile(ctx, tx, r.LineToken, account, l, StatementCandidate{Entry: id}, "person", now, settle); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE statement_lines SET entry_effect = 'booked' WHERE token = ?`, r.LineToken); err != nil {
				return err
			}
		case len(r.Items) > 0:
			ps, err := db.reconcileItems(ctx, tx, rules, unitID, r.LineToken, account, l, memo.String, r, now, settle)
			if err != nil {
				return err
			}
			payments = append(payments, ps...)
		case r.EntryToken != "":
			var id int64
			var kind string
			var cents int64
			err := tx.QueryRowContext(ctx, `SELECT id, type, value_cents FROM entries WHERE unit_id = ? AND token = ? AND active = 1
				AND pay_day IS NULL`, unitID, r.EntryToken).Scan(&id, &kind, &cents)
			if err != nil {
				return ErrInvalidReference
			}
			want := l.Amount.Cents()
			if kind == "out" {
				want = -want
			}
			var rest, diff int64
			switch {
			case cents == want:
			case r.Partial:
				if (cents > 0) != (want > 0) || abs(want) >= abs(cents) {
					return ErrAmountMismatch
				}
				if rest, err = splitEntry(ctx, tx, id, abs(want), abs(cents)-abs(want), db.id(), now); err != nil {
					return err
				}
			case r.Difference != nil:
				// The line's amount less the entry's, signed as the
				// line: what the difference adds to the account.
				entry := decimal.New(cents, -2)
				if kind == "out" {
					entry = entry.Neg()
				}
				d := l
				d.Amount = Money{l.Amount.Sub(entry)}
				if diff, err = bookLine(ctx, tx, unitID, d, account, memo.String, *r.Difference, db.id(), now); err != nil {
					return err
				}
			default:
				return ErrAmountMismatch
			}
			if _, err := db.reconcile(ctx, tx, r.LineToken, account, l, StatementCandidate{Entry: id}, "person", now, settle); err != nil {
				return err
			}
			if rest != 0 || diff != 0 {
				if _, err := tx.ExecContext(ctx, `UPDATE statement_lines SET rest_entry_id = ?, diff_entry_id = ? WHERE token = ?`, nullID(rest), nullID(diff),
					r.LineToken); err != nil {
					return err
				}
			}
		case r.OrderToken != "":
			if !l.Amount.IsPositive() {
				return ErrAmountMismatch
			}
			t := &Tx{ctx: ctx, tx: tx, db: db, now: now}
			charge, err := t.OpenChargeOfOrder(unitID, r.OrderToken, r.Installment)
			if err != nil {
				return err
			}
			c, err := t.ChargeToSettle(charge)
			if err != nil {
				return err
			}
			// The line pays what the charge asks on its day (its
			// principal, or with its fine and interest), or its principal
			// with the difference booked.
			pay, diff := l, int64(0)
			part := false
			switch owed := rules.Owed(c.Due, l.Posted); {
			case l.Amount.Equal(owed.Principal.Decimal), l.Amount.Equal(owed.Total().Decimal):
			case r.Partial:
				part = true
			case r.Difference != nil:
				pay.Amount = owed.Principal
				d := l
				d.Amount = Money{l.Amount.Sub(owed.Principal.Decimal)}
				if diff, err = bookLine(ctx, tx, unitID, d, account, memo.String, *r.Difference, db.id(), now); err != nil {
					return err
				}
			default:
				return ErrAmountMismatch
			}
			p, err := db.reconcile(ctx, tx, r.LineToken, account, pay, StatementCandidate{Charge: charge, part: part}, "person", now, settle)
			if err != nil {
				return err
			}
			payments = append(payments, *p)
			if diff != 0 {
				if _, err := tx.ExecContext(ctx, `UPDATE statement_lines SET diff_entry_id = ? WHERE token = ?`, diff, r.LineToken); err != nil {
					return err
				}
			}
		default:
			return errMissingChoice
		}
		out, err = scanStatementLine(tx.QueryRowContext(ctx, statementSelect+` WHERE l.token = ?`, r.LineToken))
		return err
	})
	return out, payments, wrap("reconcile statement line", err)
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// splitEntry leaves the entry id with paid cents and makes, beside it,
// an open entry of the rest (its other fields the same, "(restante)"
// after its description), whose id it answers.
func splitEntry(ctx context.Context, tx *sql.Tx, id, paid, rest int64, token string, now time.Time) (int64, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO entries (token, unit_id, type, description, value, value_cents, due_date, competence_date, category_id,
		contact_id, project_id, payment_method_id, user_id, barcode, access_key, key_method_credor, note, private, active, installment, installments,
		group_token, created_at, updated_at)
		SELECT ?, unit_id, type, substr(description || ' (restante)', 1, 255), ?, ?, due_date, competence_date, category_id, contact_id, project_id,
			payment_method_id, user_id, barcode, access_key, key_method_credor, note, private, 1, installment, installments, group_token, ?, ?
		FROM entries WHERE id = ?`, token, cents(rest).StringFixed(2), rest, timestamp(now), timestamp(now), id)
	if err != nil {
		return 0, err
	}
	restID, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE entries SET value = ?, value_cents = ?, updated_at = ? WHERE id = ?`, cents(paid).StringFixed(2), paid,
		timestamp(now), id)
	return restID, err
}

// bookLine inserts the entry a statement line becomes (Booking): of its
// amount and direction, due and paid on its day, from its account.
func bookLine(ctx context.Context, tx *sql.Tx, unitID int64, l StatementLineIn, account int64, memo string, b Booking, token string, now time.Time) (int64, error) {
	typ, value := "in", Money{l.Amount.Round(2)}
	if !l.Amount.IsPositive() {
		typ, value = "out", Money{l.Amount.Neg().Round(2)}
	}
	if !value.IsPositive() {
		return 0, ErrAmountMismatch
	}
	var category sql.NullInt64
	if err := resolveRefs(ctx, tx, unitID, ref{field: "id_token_category", token: b.CategoryToken, table: tableCategories, dst: &category,
		moduleType: typ}); err != nil {
		return 0, err
	}
	desc := strings.TrimSpace(b.Description)
	if desc == "" {
		desc = strings.TrimSpace(memo)
	}
	if desc == "" {
		desc = "Lançamento do extrato"
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO entries (token, unit_id, type, description, value, value_cents, due_date, pay_day, competence_date,
		category_id, bank_account_id, active, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
		token, unitID, typ, desc, value, value.Cents(), l.Posted, l.Posted, l.Posted, category, account, timestamp(now), timestamp(now))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// errMissingChoice: a reconciliation that neither pairs nor dismisses
// (the route's validation prevents it).
var errMissingChoice = errors.New("reconcile: give an entry, an order or dismiss")
