package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Recurrence is how a bill or income repeats: every EveryMonths months,
// Times in all (0: no count) or until the due date Until ("" none), each
// occurrence made LeadDays before it is due. Its rules are the ledger's.
type Recurrence struct {
	EveryMonths, Times, LeadDays int
	Until                        string
}

// RecurrenceState is a recurrence as the daily job reads it: its first
// due date and how many occurrences it made.
type RecurrenceState struct {
	ID, UnitID int64
	Token      string
	Recurrence
	AnchorDue string
	Made      int
	Stopped   bool
}

// InsertRecurringEntryOnce makes an entry, the first occurrence of a
// recurrence r, in one transaction, with a form's one-time key (as
// InsertEntryOnce); it answers the entry's token.
func (db *DB) InsertRecurringEntryOnce(ctx context.Context, unitID int64, formKey string, f EntryFields, r Recurrence, files []NewFile) (string, bool, error) {
	fresh := db.newToken(ctx)
	token, made, err := db.once(ctx, unitID, formKey, func(ctx context.Context, tx *sql.Tx, now time.Time) (string, error) {
		if err := db.insertEntry(ctx, tx, unitID, fresh, f, files, "", now); err != nil {
			return "", err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO entry_recurrences (token, unit_id, model_id, anchor_due, every_months, times, until_date, lead_days,
			made, created_at) SELECT ?, ?, id, due_date, ?, ?, ?, ?, 1, ? FROM entries WHERE unit_id = ? AND token = ?`,
			db.id(), unitID, r.EveryMonths, nullInt(r.Times), nullString(r.Until), r.LeadDays, timestamp(now), unitID, fresh)
		if err != nil {
			return "", err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return "", err
		}
		_, err = tx.ExecContext(ctx, `UPDATE entries SET recurrence_id = ? WHERE unit_id = ? AND token = ?`, id, unitID, fresh)
		return fresh, err
	})
	if err != nil {
		return "", false, fmt.Errorf("insert recurring entry: %w", err)
	}
	return token, made, nil
}

const entryRecurrenceSelect = `SELECT id, unit_id, token, every_months, coalesce(times, 0), lead_days, coalesce(until_date, ''), anchor_due, made,
	stopped_at IS NOT NULL FROM entry_recurrences`

func scanEntryRecurrence(s scanner) (RecurrenceState, error) {
	var r RecurrenceState
	err := s.Scan(&r.ID, &r.UnitID, &r.Token, &r.EveryMonths, &r.Times, &r.LeadDays, &r.Until, &r.AnchorDue, &r.Made, &r.Stopped)
	return r, err
}

// ActiveRecurrences lists the domain's recurrences not stopped.
func (db *DB) ActiveRecurrences(ctx context.Context) ([]RecurrenceState, error) {
	rows, err := db.r.QueryContext(ctx, entryRecurrenceSelect+` WHERE stopped_at IS NULL ORDER BY id`)
	if err != nil {
		return nil, wrap("recurrences", err)
	}
	defer rows.Close()
	var out []RecurrenceState
	for rows.Next() {
		r, err := scanEntryRecurrence(rows)
		if err != nil {
			return nil, wrap("recurrences", err)
		}
		out = append(out, r)
	}
	return out, wrap("recurrences", rows.Err())
}

// RecurrenceOfEntry answers the recurrence an entry of the unit belongs
// to (ErrNotFound when none).
func (db *DB) RecurrenceOfEntry(ctx context.Context, unitID int64, entryToken string) (RecurrenceState, error) {
	r, err := scanEntryRecurrence(db.r.QueryRowContext(ctx, entryRecurrenceSelect+` WHERE id = (SELECT recurrence_id FROM entries WHERE unit_id = ? AND token = ?)`,
		unitID, entryToken))
	return r, wrap("recurrence of entry", notFound(err))
}

// AddOccurrence makes the next occurrence of a recurrence, due on due: a
// copy of its first (open, without attachments), in one transaction,
// only while the recurrence has made exactly made and is not stopped, so
// that the same occurrence is never made twice (a day run again, two
// runs at once). It answers the new entry's token, or "" when another
// run made it first.
func (db *DB) AddOccurrence(ctx context.Context, r RecurrenceState, due string) (string, error) {
	var token string
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		res, err := tx.ExecContext(ctx, `UPDATE entry_recurrences SET made = made + 1 WHERE id = ? AND made = ? AND stopped_at IS NULL`, r.ID, r.Made)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		var modelToken string
		if err := tx.QueryRowContext(ctx, `SELECT e.token FROM entries e JOIN entry_recurrences r ON r.model_id = e.id WHERE r.id = ?`, r.ID).
			Scan(&modelToken); err != nil {
			return err
		}
		_, f, err := scanEntryFields(tx.QueryRowContext(ctx, entryFieldsSelect, r.UnitID, modelToken))
		if err != nil {
			return err
		}
		f.DueDate, f.CompetenceDate, f.PayDay, f.BankAccountToken, f.Active = due, due, "", "", true
		token = db.id()
		if err := db.insertEntry(ctx, tx, r.UnitID, token, f, nil, "", now); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE entries SET recurrence_id = ? WHERE unit_id = ? AND token = ?`, r.ID, r.UnitID, token)
		return err
	})
	return token, wrap("add occurrence", err)
}

// StopRecurrence stops the recurrence of an entry of the unit: the
// occurrences made stay (ErrNotFound when the entry has none).
func (db *DB) StopRecurrence(ctx context.Context, unitID int64, entryToken string) error {
	return wrap("stop recurrence", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		res, err := tx.ExecContext(ctx, `UPDATE entry_recurrences SET stopped_at = ? WHERE stopped_at IS NULL
			AND id = (SELECT recurrence_id FROM entries WHERE unit_id = ? AND token = ?)`, timestamp(now), unitID, entryToken)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	}))
}

// CancelEntryGroup cancels the open entries of the group an entry of the
// unit belongs to (the paid ones stay), answering the group's token and
// how many it cancelled; ErrNotFound when the entry is in no group.
func (db *DB) CancelEntryGroup(ctx context.Context, unitID int64, entryToken string) (string, int, error) {
	var group string
	var n int64
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		err := tx.QueryRowContext(ctx, `SELECT group_token FROM entries WHERE unit_id = ? AND token = ? AND group_token IS NOT NULL`, unitID, entryToken).
			Scan(&group)
		if err != nil {
			return notFound(err)
		}
		res, err := tx.ExecContext(ctx, `UPDATE entries SET active = 0, updated_at = ? WHERE unit_id = ? AND group_token = ? AND pay_day IS NULL
			AND active = 1`, timestamp(now), unitID, group)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return group, int(n), wrap("cancel entry group", err)
}

// EntryGroup lists the active entries of the group an entry of the unit
// belongs to, by instalment (none when it is in no group).
func (db *DB) EntryGroup(ctx context.Context, unitID int64, entryToken string) ([]EntrySummary, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT e.token, e.description, e.due_date, coalesce(e.pay_day, ''), e.value_cents, e.installment, e.installments
		FROM entries e JOIN entries me ON me.group_token = e.group_token AND me.unit_id = e.unit_id
		WHERE me.unit_id = ? AND me.token = ? AND e.active = 1 ORDER BY e.installment`, unitID, entryToken)
	if err != nil {
		return nil, wrap("entry group", err)
	}
	defer rows.Close()
	var out []EntrySummary
	for rows.Next() {
		var e EntrySummary
		var v int64
		if err := rows.Scan(&e.Token, &e.Description, &e.DueDate, &e.PayDay, &v, &e.Instalment, &e.Instalments); err != nil {
			return nil, wrap("entry group", err)
		}
		e.Value = cents(v)
		out = append(out, e)
	}
	return out, wrap("entry group", rows.Err())
}
