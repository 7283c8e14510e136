package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
	_ "time/tzdata"
	// São Paulo's zone, even where the OS has none
)

// saoPaulo is the zone of "today" for entry statuses and of displayed
// times (spec: dates as a Brazilian user sees them).
var saoPaulo = func() *time.Location {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		return time.FixedZone("BRT", -3*3600)
	}
	return loc
}()

// Today returns the date in São Paulo at t.
func Today(t time.Time) Date {
	y, m, d := t.In(saoPaulo).Date()
	return Date{time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
}

// DayStart is the instant a day (YYYY-MM-DD) begins in São Paulo.
func DayStart(day string) (time.Time, error) {
	return time.ParseInLocation(time.DateOnly, day, saoPaulo)
}

// Entry statuses (see EntryStatus). They are derived, never stored.
const (
	StatusOpen      = "open"
	StatusPaid      = "paid"
	StatusOverdue   = "overdue"
	StatusCancelled = "cancelled"
)

// entryStatus derives an entry's status: cancelled when inactive, paid when
// it has a payment date, overdue when its due date is before today, else
// open.
func entryStatus(active bool, payDay sql.NullString, dueDate, today string) string {
	switch {
	case !active:
		return StatusCancelled
	case payDay.Valid:
		return StatusPaid
	case dueDate < today:
		return StatusOverdue
	}
	return StatusOpen
}

// actionStatus is what the entry asks of the user: to pay or receive it,
// or nothing more (paid, received, cancelled).
func actionStatus(typ, status string) string {
	switch {
	case status == StatusCancelled:
		return "cancelled"
	case status == StatusPaid && typ == "in":
		return "received"
	case status == StatusPaid:
		return "paid"
	case typ == "in":
		return "to_receive"
	}
	return "to_pay"
}

// EntryFields are an expense's or income's writable fields. Related records
// are named by token; the store resolves them within the unit.
type EntryFields struct {
	Type               string // in or out; set by the route
	Description        string
	Value              Money
	DueDate            string // YYYY-MM-DD
	PayDay             string // YYYY-MM-DD or empty (open)
	CompetenceDate     string
	CategoryToken      string
	ContactToken       string
	BankAccountToken   string
	ProjectToken       string
	PaymentMethodToken string
	UserToken          string
	Barcode            string
	AccessKey          string
	KeyMethodCredor    string
	Note               string
	Private            bool
	Active             bool
}

type entryRefs struct {
	category, contact, account, project, method, user sql.NullInt64
}

// resolveEntryRefs turns the tokens of f into ids within the unit. A
// category must be of the entry's type; every related record must be
// active.
func resolveEntryRefs(ctx context.Context, tx *sql.Tx, unitID int64, f EntryFields) (entryRefs, error) {
	var r entryRefs
	err := resolveRefs(ctx, tx, unitID,
		ref{field: "id_token_category", token: f.CategoryToken, table: tableCategories, dst: &r.category, moduleType: f.Type},
		ref{field: "id_token_contact", token: f.ContactToken, table: tableContacts, dst: &r.contact},
		ref{field: "id_token_bank_account", token: f.BankAccountToken, table: tableBankAccounts, dst: &r.account},
		ref{field: "id_token_project", token: f.ProjectToken, table: tableProjects, dst: &r.project},
		ref{field: "payment_type", token: f.PaymentMethodToken, table: tablePaymentMethods, dst: &r.method},
		ref{field: "user_token", token: f.UserToken, table: tableUsers, dst: &r.user})
	return r, err
}

// cents is the entry's value in cents; an entry's value is positive and
// within the money range (the server checks both; this keeps a caller
// that does not from storing a sum that would overflow).
func (f EntryFields) cents() (int64, error) {
	if !f.Value.IsPositive() || !InMoneyRange(f.Value.Decimal) {
		return 0, ErrInvalidValue
	}
	return f.Value.Cents(), nil
}

func (f EntryFields) values(refs entryRefs) []any {
	return []any{f.Type, f.Description, f.Value, f.DueDate, nullString(f.PayDay), nullString(f.CompetenceDate),
		refs.category, refs.contact, refs.account, refs.project, refs.method, refs.user,
		nullString(f.Barcode), nullString(f.AccessKey), nullString(f.KeyMethodCredor), nullString(f.Note),
		boolInt(f.Private), boolInt(f.Active)}
}

const entryColumns = `type, description, value, due_date, pay_day, competence_date,
	category_id, contact_id, bank_account_id, project_id, payment_method_id, user_id,
	barcode, access_key, key_method_credor, note, private, active`

const entrySets = `type = ?, description = ?, value = ?, due_date = ?, pay_day = ?, competence_date = ?,
	category_id = ?, contact_id = ?, bank_account_id = ?, project_id = ?, payment_method_id = ?, user_id = ?,
	barcode = ?, access_key = ?, key_method_credor = ?, note = ?, private = ?, active = ?`

// InsertEntry creates an entry with its attachments in one transaction. A
// screening token links the screened document: its file becomes the
// entry's first attachment and the screening is marked converted.
func (db *DB) InsertEntry(ctx context.Context, unitID int64, f EntryFields, files []NewFile, screeningToken string) (string, error) {
	token := db.newToken(ctx)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		return db.insertEntry(ctx, tx, unitID, token, f, files, screeningToken, now)
	})
	if err != nil {
		return "", fmt.Errorf("insert entry: %w", err)
	}
	return token, nil
}

// insertEntry writes an entry and its files in tx.
func (db *DB) insertEntry(ctx context.Context, tx *sql.Tx, unitID int64, token string, f EntryFields, files []NewFile, screeningToken string, now time.Time) error {
	{
		refs, err := resolveEntryRefs(ctx, tx, unitID, f)
		if err != nil {
			return err
		}
		cents, err := f.cents()
		if err != nil {
			return err
		}
		var screening sql.NullInt64
		if screeningToken != "" {
			if screening, files, err = takeScreening(ctx, tx, unitID, screeningToken, files, now); err != nil {
				return err
			}
		}
		args := append([]any{token, unitID, cents, screening}, f.values(refs)...)
		res, err := tx.ExecContext(ctx, `INSERT INTO entries (token, unit_id, value_cents, screening_id, `+entryColumns+`, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append(args, timestamp(now), timestamp(now))...)
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		_, err = insertFiles(ctx, tx, id, files, now, db.id)
		return err
	}
}

// UpdateEntry reads, changes (apply) and writes an entry of the unit and
// type, adding files, in one transaction.
func (db *DB) UpdateEntry(ctx context.Context, unitID int64, typ, token string, apply func(*EntryFields) error, files []NewFile) error {
	return wrap("update entry", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		id, f, err := scanEntryFields(tx.QueryRowContext(ctx, entryFieldsSelect+` AND e.type = ?`, unitID, token, typ))
		if err != nil {
			return notFound(err)
		}
		if err := apply(&f); err != nil {
			return err
		}
		refs, err := resolveEntryRefs(ctx, tx, unitID, f)
		if err != nil {
			return err
		}
		cents, err := f.cents()
		if err != nil {
			return err
		}
		args := append(f.values(refs), cents, timestamp(now), id)
		if _, err := tx.ExecContext(ctx, `UPDATE entries SET `+entrySets+`, value_cents = ?, updated_at = ? WHERE id = ?`, args...); err != nil {
			return err
		}
		_, err = insertFiles(ctx, tx, id, files, now, db.id)
		return err
	}))
}

// entryFieldsSelect reads an entry of a unit by token as EntryFields, its
// related records by token.
const entryFieldsSelect = `
	SELECT e.id, e.type, e.description, e.value, e.due_date, e.pay_day, e.competence_date,
		cat.token, c.token, ba.token, p.token, pm.token, u.token,
		e.barcode, e.access_key, e.key_method_credor, e.note, e.private, e.active
	FROM entries e
	LEFT JOIN categories cat ON cat.id = e.category_id LEFT JOIN contacts c ON c.id = e.contact_id
	LEFT JOIN bank_accounts ba ON ba.id = e.bank_account_id LEFT JOIN projects p ON p.id = e.project_id
	LEFT JOIN payment_methods pm ON pm.id = e.payment_method_id LEFT JOIN users u ON u.id = e.user_id
	WHERE e.unit_id = ? AND e.token = ?`

// scanEntryFields reads a row of entryFieldsSelect.
func scanEntryFields(s scanner) (int64, EntryFields, error) {
	var id int64
	var f EntryFields
	var t [12]sql.NullString
	err := s.Scan(&id, &f.Type, &f.Description, &f.Value, &f.DueDate, &t[0], &t[1], &t[2], &t[3], &t[4], &t[5], &t[6], &t[7],
		&t[8], &t[9], &t[10], &t[11], &f.Private, &f.Active)
	f.PayDay, f.CompetenceDate, f.CategoryToken, f.ContactToken, f.BankAccountToken = t[0].String, t[1].String, t[2].String, t[3].String, t[4].String
	f.ProjectToken, f.PaymentMethodToken, f.UserToken = t[5].String, t[6].String, t[7].String
	f.Barcode, f.AccessKey, f.KeyMethodCredor, f.Note = t[8].String, t[9].String, t[10].String, t[11].String
	return id, f, err
}

// EntryByToken returns the fields of an entry of the unit, of either type.
func (db *DB) EntryByToken(ctx context.Context, unitID int64, token string) (EntryFields, error) {
	_, f, err := scanEntryFields(db.r.QueryRowContext(ctx, entryFieldsSelect, unitID, token))
	return f, wrap("entry by token", notFound(err))
}

// EntryStatus is an entry's derived status, as /get_status answers it.
type EntryStatus struct {
	ID           string `json:"id" doc:"The entry's token."`
	Type         string `json:"type" enum:"in,out" doc:"in (income) or out (expense)."`
	DueDate      string `json:"due_date" format:"date" doc:"The day it is due, YYYY-MM-DD."`
	PayDay       Text   `json:"pay_day" format:"date" doc:"The day it was paid, YYYY-MM-DD; null unpaid."`
	Status       string `json:"status" enum:"open,paid,overdue,cancelled" doc:"open, paid, overdue (open past its due date) or cancelled."`
	ActionStatus string `json:"action_status" enum:"to_pay,to_receive,paid,received,cancelled" doc:"What it asks: to_pay, to_receive, or nothing more (paid, received, cancelled)."`
}

// EntryStatuses derives the status of the unit's entries named by tokens;
// tokens of other units are ErrNotFound.
func (db *DB) EntryStatuses(ctx context.Context, unitID int64, tokens []string) ([]EntryStatus, error) {
	today := Today(db.now()).ISO()
	out := make([]EntryStatus, 0, len(tokens))
	err := db.read(ctx, func(tx *sql.Tx) error {
		for _, tok := range tokens {
			var s EntryStatus
			var active bool
			err := tx.QueryRowContext(ctx, `SELECT token, type, due_date, pay_day, active FROM entries WHERE unit_id = ? AND token = ?`,
				unitID, tok).Scan(&s.ID, &s.Type, &s.DueDate, &s.PayDay, &active)
			if err != nil {
				return notFound(err)
			}
			s.Status = entryStatus(active, s.PayDay.NullString, s.DueDate, today)
			s.ActionStatus = actionStatus(s.Type, s.Status)
			out = append(out, s)
		}
		return nil
	})
	return out, wrap("entry statuses", err)
}

// CategoryUsage is the most used category for a contact, as
// /get_category_median answers it.
type CategoryUsage struct {
	Token      string `json:"token" format:"uuid" doc:"The category's token."`
	ModuleType string `json:"module_type" enum:"in,out" doc:"in or out."`
	Category   string `json:"category" doc:"The category's name."`
	Note       Text   `json:"note" doc:"Its notes; null when none."`
	DreName    Text   `json:"dre_name" doc:"The name of its group (its DRE line); null when none."`
	UsageCount string `json:"usage_count" doc:"How many of the contact's active entries use it, as a string."`
}

// MinCategoryUsage is the history /get_category_median needs: a category
// used fewer times for the contact is no suggestion.
const MinCategoryUsage = 2

// CategoryMedian finds the category most used on the active entries of the
// unit's contact with this register (optionally of one type); ties go to
// the most recently used. It answers ErrNotFound when the history is
// insufficient.
func (db *DB) CategoryMedian(ctx context.Context, unitID int64, register, typ string) (CategoryUsage, error) {
	var u CategoryUsage
	var n int
	err := db.r.QueryRowContext(ctx, `
		SELECT cat.token, cat.module_type, cat.name, cat.note, g.name, COUNT(*) AS n
		FROM entries e
		JOIN contacts c ON c.id = e.contact_id
		JOIN categories cat ON cat.id = e.category_id
		LEFT JOIN category_groups g ON g.code = cat.group_code
		WHERE e.unit_id = ? AND c.unit_id = ? AND c.register = ? AND e.active = 1 AND (? = '' OR e.type = ?)
		GROUP BY cat.id
		ORDER BY n DESC, MAX(e.id) DESC
		LIMIT 1`, unitID, unitID, register, typ, typ).Scan(&u.Token, &u.ModuleType, &u.Category, &u.Note, &u.DreName, &n)
	if err != nil {
		return u, wrap("category median", notFound(err))
	}
	if n < MinCategoryUsage {
		return u, ErrNotFound
	}
	u.UsageCount = fmt.Sprint(n)
	return u, nil
}
