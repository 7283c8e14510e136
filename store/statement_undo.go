package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"fincom/server/problem"
)

// Errors of undoing a reconciliation.
var (
	ErrLineOpen     = problem.New(problem.Conflict, "This statement line is open: there is nothing to undo.")
	ErrLineEffect   = problem.New(problem.Conflict, "This statement line was reconciled before fincom kept what reconciling did to its entry: change the entry instead.")
	ErrLineRestPaid = problem.New(problem.Conflict, "This statement line paid part of an entry whose rest is paid too: undo that payment first.")
	ErrLinePartPaid = problem.New(problem.Conflict, "This statement line paid part of a charge since paid in full: undo that payment first.")
)

// UnsettleFunc undoes, in the write tx holds, the payment of a charge
// that a statement line made (entry: the income the line reconciled), as
// the business rules decide (billing's).
type UnsettleFunc func(tx *Tx, chargeID, entry int64) error

// UndoReconciliation reopens a matched or dismissed statement line of the
// unit, undoing what reconciling it did: an entry it paid is unpaid again,
// an entry it only reconciled is paid but no longer reconciled, an entry
// the line was booked as is disabled, a charge it paid is open again
// (through unsettle), the parts it split and the difference it booked
// are undone.
func (db *DB) UndoReconciliation(ctx context.Context, unitID int64, lineToken string, unsettle UnsettleFunc) (StatementLine, error) {
	var out StatementLine
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var status string
		var entry, charge, rest, diff sql.NullInt64
		var effect sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT status, entry_id, charge_id, entry_effect, rest_entry_id, diff_entry_id FROM statement_lines
			WHERE unit_id = ? AND token = ?`, unitID, lineToken).Scan(&status, &entry, &charge, &effect, &rest, &diff)
		if err != nil {
			return notFound(err)
		}
		if diff.Valid {
			// The difference booked with the pairing goes with it.
			if _, err := tx.ExecContext(ctx, `UPDATE entries SET active = 0, updated_at = ? WHERE id = ?`, timestamp(now), diff.Int64); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE statement_lines SET diff_entry_id = NULL WHERE token = ?`, lineToken); err != nil {
				return err
			}
		}
		if rest.Valid && entry.Valid {
			// The rest joins the entry again, which the undo below then
			// reopens.
			var restCents int64
			var restPaid sql.NullString
			if err := tx.QueryRowContext(ctx, `SELECT value_cents, pay_day FROM entries WHERE id = ?`, rest.Int64).Scan(&restCents, &restPaid); err != nil {
				return err
			}
			if restPaid.Valid {
				return ErrLineRestPaid
			}
			if _, err := tx.ExecContext(ctx, `UPDATE entries SET value_cents = value_cents + ?, updated_at = ? WHERE id = ?`, restCents, timestamp(now),
				entry.Int64); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE entries SET value = printf('%d.%02d', value_cents / 100, value_cents % 100) WHERE id = ?`,
				entry.Int64); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE statement_lines SET rest_entry_id = NULL WHERE token = ?`, lineToken); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM entries WHERE id = ?`, rest.Int64); err != nil {
				return err
			}
		}
		if status == "open" {
			return ErrLineOpen
		}
		part, err := undoChargePart(ctx, tx, lineToken, now)
		if err != nil {
			return err
		}
		items, err := undoLineItems(ctx, &Tx{ctx: ctx, tx: tx, db: db, now: now}, lineToken, unsettle)
		if err != nil {
			return err
		}
		switch {
		case part, items:
		case charge.Valid:
			if err := unsettle(&Tx{ctx: ctx, tx: tx, db: db, now: now}, charge.Int64, entry.Int64); err != nil {
				return err
			}
		case status == "matched" && entry.Valid:
			if err := undoEntryEffect(ctx, tx, effect.String, entry.Int64, now); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE statement_lines SET status = 'open', matched_by = NULL, entry_id = NULL, charge_id = NULL,
			entry_effect = NULL, updated_at = ? WHERE token = ?`, timestamp(now), lineToken); err != nil {
			return err
		}
		out, err = scanStatementLine(tx.QueryRowContext(ctx, statementSelect+` WHERE l.token = ?`, lineToken))
		return err
	})
	return out, wrap("undo reconciliation", err)
}

// undoChargePart undoes the part of a charge the line of lineToken paid,
// if it paid one (part true): the part is no longer received towards the
// charge, its income is disabled. A charge paid in full since is
// ErrLinePartPaid.
func undoChargePart(ctx context.Context, tx *sql.Tx, lineToken string, now time.Time) (part bool, err error) {
	var id int64
	var entry sql.NullInt64
	var status string
	err = tx.QueryRowContext(ctx, `SELECT p.id, p.entry_id, c.status FROM charge_parts p JOIN charges c ON c.id = p.charge_id
		JOIN statement_lines l ON l.id = p.line_id WHERE l.token = ?`, lineToken).Scan(&id, &entry, &status)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	case status != ChargePending && status != ChargeOverdue:
		return false, ErrLinePartPaid
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM charge_parts WHERE id = ?`, id); err != nil {
		return false, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE entries SET active = 0, updated_at = ? WHERE id = ?`, timestamp(now), entry)
	return true, err
}
