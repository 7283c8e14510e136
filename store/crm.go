package store

import (
	"context"
	"database/sql"
	"time"
)

// CRMFields are a CRM record's writable fields.
type CRMFields struct {
	ContactToken        string
	RecordDate          string // YYYY-MM-DD
	CommunicationType   string
	LifecyclePhase      string
	LeadStatus          string
	Description         string
	ContactSuccess      bool
	NextContactDatetime string // RFC 3339
	NextContactReason   string
}

// CRMRecord is a record as /list_crm returns it.
type CRMRecord struct {
	Token               string `json:"token" format:"uuid" doc:"The record's token."`
	IDContact           Text   `json:"id_contact" doc:"The contact's token; null when none."`
	ContactName         Text   `json:"contact_name" doc:"The contact's name; null when none."`
	RecordDate          string `json:"record_date" format:"date" doc:"The day of the contact, YYYY-MM-DD."`
	CommunicationType   Text   `json:"communication_type" doc:"How the contact was made (phone, e-mail, visit, …), as sent; null when none."`
	LifecyclePhase      Text   `json:"lifecycle_phase" doc:"The customer's phase, as sent; null when none."`
	LeadStatus          Text   `json:"lead_status" doc:"The lead's status, as sent; null when none."`
	Description         Text   `json:"description" doc:"What was said; null when none."`
	ContactSuccess      bool   `json:"contact_success" doc:"true: the contact was reached."`
	NextContactDatetime Text   `json:"next_contact_datetime" doc:"When to contact again, ISO 8601; null when none."`
	NextContactReason   Text   `json:"next_contact_reason" doc:"Why to contact again; null when none."`
	Active              bool   `json:"active" doc:"false once disabled (/disable_crm)."`
}

func crmContact(ctx context.Context, tx *sql.Tx, unitID int64, token string) (sql.NullInt64, error) {
	var id sql.NullInt64
	err := resolveRefs(ctx, tx, unitID, ref{field: "id_contact", token: token, table: tableContacts, dst: &id})
	return id, err
}

func (f CRMFields) values() []any {
	return []any{f.RecordDate, nullString(f.CommunicationType), nullString(f.LifecyclePhase), nullString(f.LeadStatus), nullString(f.Description),
		boolInt(f.ContactSuccess), nullString(f.NextContactDatetime), nullString(f.NextContactReason)}
}

// InsertCRM creates an active record; its contact, when given, must be an
// active contact of the unit (ErrInvalidReference). Empty texts are stored
// as null.
func (db *DB) InsertCRM(ctx context.Context, unitID int64, f CRMFields) (string, error) {
	token := db.newToken(ctx)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		contact, err := crmContact(ctx, tx, unitID, f.ContactToken)
		if err != nil {
			return err
		}
		args := append([]any{token, unitID, contact}, f.values()...)
		_, err = tx.ExecContext(ctx, `INSERT INTO crm_records (token, unit_id, contact_id, record_date, communication_type, lifecycle_phase, lead_status,
			description, contact_success, next_contact_datetime, next_contact_reason, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append(args, timestamp(now), timestamp(now))...)
		return err
	})
	return token, wrap("insert crm", err)
}

// UpdateCRM reads, changes (apply) and writes a record of the unit.
func (db *DB) UpdateCRM(ctx context.Context, unitID int64, token string, apply func(*CRMFields) error) error {
	return wrap("update c r m", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var f CRMFields
		var t [7]sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT c.token, r.record_date, r.communication_type, r.lifecycle_phase, r.lead_status, r.description,
			r.contact_success, r.next_contact_datetime, r.next_contact_reason
			FROM crm_records r LEFT JOIN contacts c ON c.id = r.contact_id WHERE r.unit_id = ? AND r.token = ?`, unitID, token).
			Scan(&t[0], &f.RecordDate, &t[1], &t[2], &t[3], &t[4], &f.ContactSuccess, &t[5], &t[6])
		if err != nil {
			return notFound(err)
		}
		f.ContactToken, f.CommunicationType, f.LifecyclePhase, f.LeadStatus = t[0].String, t[1].String, t[2].String, t[3].String
		f.Description, f.NextContactDatetime, f.NextContactReason = t[4].String, t[5].String, t[6].String
		if err := apply(&f); err != nil {
			return err
		}
		contact, err := crmContact(ctx, tx, unitID, f.ContactToken)
		if err != nil {
			return err
		}
		args := append([]any{contact}, f.values()...)
		_, err = tx.ExecContext(ctx, `UPDATE crm_records SET contact_id = ?, record_date = ?, communication_type = ?, lifecycle_phase = ?, lead_status = ?,
			description = ?, contact_success = ?, next_contact_datetime = ?, next_contact_reason = ?, updated_at = ? WHERE unit_id = ? AND token = ?`,
			append(args, timestamp(now), unitID, token)...)
		return err
	}))
}

// SetCRMActive enables or disables a record of the unit.
func (db *DB) SetCRMActive(ctx context.Context, unitID int64, token string, active bool) error {
	return db.setActive(ctx, "crm_records", unitID, token, active)
}

// CRMFilter narrows /list_crm.
type CRMFilter struct {
	ContactToken, From, To string
	Active                 *bool
}

// CRMRecords lists a page of the unit's records, newest record date
// first, and how many there are; active ones unless the filter says
// otherwise.
func (db *DB) CRMRecords(ctx context.Context, unitID int64, f CRMFilter, pg Page) ([]CRMRecord, int, error) {
	where, args := []string{"r.unit_id = ?", "r.active = ?"}, []any{unitID, 1}
	if f.Active != nil {
		args[1] = boolInt(*f.Active)
	}
	for _, c := range []struct{ cond, val string }{{"c.token = ?", f.ContactToken}, {"r.record_date >= ?", f.From}, {"r.record_date <= ?", f.To}} {
		if c.val != "" {
			where, args = append(where, c.cond), append(args, c.val)
		}
	}
	l := listing{what: "crm records", query: `SELECT r.token, c.token, c.display_name, r.record_date, r.communication_type, r.lifecycle_phase,
		r.lead_status, r.description, r.contact_success, r.next_contact_datetime, r.next_contact_reason, r.active
		FROM crm_records r LEFT JOIN contacts c ON c.id = r.contact_id`, where: where, args: args, order: "r.record_date DESC, r.id DESC"}
	return pageOf(ctx, db, l, pg, func(rows *sql.Rows) (CRMRecord, error) {
		var r CRMRecord
		err := rows.Scan(&r.Token, &r.IDContact, &r.ContactName, &r.RecordDate, &r.CommunicationType, &r.LifecyclePhase, &r.LeadStatus,
			&r.Description, &r.ContactSuccess, &r.NextContactDatetime, &r.NextContactReason, &r.Active)
		return r, err
	})
}
