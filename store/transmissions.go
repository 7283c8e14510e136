package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Transmission is a note that was sent and whose answer was lost: its
// number and issue time are kept for its order, so that issuing again
// rebuilds the same note (the same key), asks the authority for it first
// and never sends a second note for the sale.
type Transmission struct {
	// Token is the token the note's invoice keeps, whatever the verdict
	// (given when the note is recorded, if empty).
	Token           string
	OrderID, UnitID int64
	Kind            string
	Series, Number  int
	Key             string
	Issued          time.Time
	// Signed is the note as signed and sent.
	Signed    []byte
	Attempts  int
	LastError string
}

// PendingTransmission answers the order's note in transmission, if any.
func (db *DB) PendingTransmission(ctx context.Context, orderID int64) (Transmission, bool, error) {
	var t Transmission
	var issued, signed string
	var last, token sql.NullString
	err := db.r.QueryRowContext(ctx, `SELECT order_id, unit_id, kind, series, number, access_key, issued_at, signed, attempts, last_error, token
		FROM invoice_transmissions WHERE order_id = ?`, orderID).
		Scan(&t.OrderID, &t.UnitID, &t.Kind, &t.Series, &t.Number, &t.Key, &issued, &signed, &t.Attempts, &last, &token)
	if errors.Is(err, sql.ErrNoRows) {
		return t, false, nil
	}
	if err != nil {
		return t, false, wrap("pending transmission", err)
	}
	t.Issued, _ = time.Parse(time.RFC3339Nano, issued)
	t.Signed, t.LastError, t.Token = []byte(signed), last.String, token.String
	return t, true, nil
}

// StartTransmission records a note about to be sent, before it leaves:
// should the process die while the authority answers, the next issue
// finds it held and asks for it instead of sending a second note.
func (db *DB) StartTransmission(ctx context.Context, t Transmission) error {
	if t.Token == "" {
		t.Token = db.id()
	}
	return wrap("start transmission", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO invoice_transmissions (order_id, unit_id, kind, series, number, access_key, issued_at,
			signed, attempts, updated_at, token) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
			t.OrderID, t.UnitID, t.Kind, t.Series, t.Number, t.Key, t.Issued.UTC().Format(time.RFC3339Nano), string(t.Signed), timestamp(now), t.Token)
		return err
	}))
}

// HoldTransmission records (or counts again) a note sent whose answer was
// lost, with the error met.
func (db *DB) HoldTransmission(ctx context.Context, t Transmission, lastError string) error {
	if t.Token == "" {
		t.Token = db.id()
	}
	return wrap("hold transmission", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO invoice_transmissions (order_id, unit_id, kind, series, number, access_key, issued_at,
			signed, attempts, last_error, updated_at, token) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
			ON CONFLICT (order_id) DO UPDATE SET attempts = attempts + 1, last_error = excluded.last_error, updated_at = excluded.updated_at`,
			t.OrderID, t.UnitID, t.Kind, t.Series, t.Number, t.Key, t.Issued.UTC().Format(time.RFC3339Nano), string(t.Signed),
			nullString(lastError), timestamp(now), t.Token)
		return err
	}))
}

// DropTransmission ends the order's transmission without an invoice: the
// authority refused the note (its number then follows the refusal's
// rule: ReleaseInvoiceNumber unless denied).
func (db *DB) DropTransmission(ctx context.Context, orderID int64) error {
	return wrap("drop transmission", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM invoice_transmissions WHERE order_id = ?`, orderID)
		return err
	}))
}

// HeldTransmission is a note in transmission as the retry job sees it.
type HeldTransmission struct {
	// Offline says the note was issued offline (an NFC-e in contingency):
	// the order's invoice is it, waiting for SEFAZ's authorization.
	Offline    bool
	UnitID     int64
	OrderToken string
	OrderCode  string
	Kind       string
	Number     int
	Attempts   int
	LastError  string
	Updated    time.Time
}

// HeldTransmissions lists the domain's notes in transmission, oldest
// first.
func (db *DB) HeldTransmissions(ctx context.Context) ([]HeldTransmission, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT t.unit_id, o.token, o.cod_orders, t.kind, t.number, t.attempts, COALESCE(t.last_error, ''), t.updated_at,
		EXISTS (SELECT 1 FROM invoices i WHERE i.order_id = t.order_id AND i.status = 'AUTHORIZED')
		FROM invoice_transmissions t JOIN sales_orders o ON o.id = t.order_id ORDER BY t.updated_at`)
	if err != nil {
		return nil, wrap("held transmissions", err)
	}
	defer rows.Close()
	var out []HeldTransmission
	for rows.Next() {
		var h HeldTransmission
		var updated string
		if err := rows.Scan(&h.UnitID, &h.OrderToken, &h.OrderCode, &h.Kind, &h.Number, &h.Attempts, &h.LastError, &updated, &h.Offline); err != nil {
			return nil, wrap("held transmissions", err)
		}
		h.Updated, _ = time.Parse(time.RFC3339, updated)
		out = append(out, h)
	}
	return out, wrap("held transmissions", rows.Err())
}

// AuthorizeOffline records SEFAZ's authorization of the order's note
// issued offline: the invoice becomes the nfeProc with its protocol, and
// leaves transmission. ErrNotFound when the order has no such note.
func (db *DB) AuthorizeOffline(ctx context.Context, orderID int64, protocol string, xml []byte, statusText string) error {
	return wrap("authorize offline note", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		res, err := tx.ExecContext(ctx, `UPDATE invoices SET protocol = ?, xml = ? WHERE order_id = ? AND status = 'AUTHORIZED' AND protocol = ''`,
			protocol, string(xml), orderID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM invoice_transmissions WHERE order_id = ?`, orderID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sales_orders SET nf_status_text = ?, updated_at = ? WHERE id = ?`, statusText, timestamp(now), orderID)
		return err
	}))
}

// Refusal is the authority's verdict against a note: its code and the
// text the order shows. A denied note (uso denegado) spends its number
// and keeps the document with the authority's protocol; a rejected one
// gives its number back to the series unless Spent (another note holds
// it at the authority: 539).
type Refusal struct {
	Code     int
	Text     string
	Denied   bool
	Spent    bool
	Protocol string
	XML      []byte
}

// RefuseNote records the authority's refusal of the order's note t, in
// one transaction: the invoice, REJECTED or DENIED, with the code and
// text, the order's nf_status_text, the number given back when it may be,
// and the note out of transmission.
func (db *DB) RefuseNote(ctx context.Context, t Transmission, r Refusal) (Invoice, error) {
	var out Invoice
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		// The invoice keeps the token it had while pending.
		tok := t.Token
		if err := tx.QueryRowContext(ctx, `DELETE FROM invoice_transmissions WHERE order_id = ? RETURNING COALESCE(token, '')`, t.OrderID).
			Scan(&tok); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if tok == "" {
			tok = db.id()
		}
		status, xml := InvoiceRejected, string(t.Signed)
		if r.Denied {
			status, xml = InvoiceDenied, string(r.XML)
		} else if !r.Spent {
			if _, err := tx.ExecContext(ctx, `INSERT INTO invoice_free_numbers (unit_id, counter, number) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
				t.UnitID, invoiceCounter(t.Kind, t.Series), t.Number); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO invoices (token, order_id, unit_id, kind, status, series, number, access_key, protocol, xml,
			issued_at, status_code, status_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			tok, t.OrderID, t.UnitID, t.Kind, status, t.Series, t.Number, nullString(t.Key), r.Protocol, xml, timestamp(t.Issued),
			nullInt(r.Code), nullString(r.Text)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sales_orders SET nf_status_text = ?, updated_at = ? WHERE id = ?`,
			r.Text, timestamp(now), t.OrderID); err != nil {
			return err
		}
		var err error
		if out, err = scanInvoice(tx.QueryRowContext(ctx, invoiceSelect+` WHERE token = ?`, tok)); err != nil {
			return err
		}
		event := "invoice.rejected"
		if r.Denied {
			event = "invoice.denied"
		}
		return db.emitInvoice(ctx, tx, t.UnitID, t.OrderID, event, out, now)
	})
	return out, wrap("refuse note", err)
}

// SentNote answers the note of key fincom sent for the order and
// recorded as rejected (its number, issue time and signed document), if
// any: SEFAZ may name it as the holder of a number (539).
func (db *DB) SentNote(ctx context.Context, orderID int64, key string) (Transmission, bool, error) {
	t := Transmission{OrderID: orderID, Key: key}
	var issued, signed string
	err := db.r.QueryRowContext(ctx, `SELECT unit_id, kind, series, number, issued_at, xml FROM invoices
		WHERE order_id = ? AND access_key = ? AND status = 'REJECTED' ORDER BY id DESC LIMIT 1`, orderID, key).
		Scan(&t.UnitID, &t.Kind, &t.Series, &t.Number, &issued, &signed)
	if errors.Is(err, sql.ErrNoRows) {
		return t, false, nil
	}
	if err != nil {
		return t, false, wrap("sent note", err)
	}
	t.Issued, _ = time.Parse(time.RFC3339, issued)
	t.Signed = []byte(signed)
	return t, true, nil
}

// waitingTransmissions says, for the doctor, how many of a domain file's
// notes have waited for an authority longer than an hour (since they
// were first sent or issued offline), and since when the oldest has.
func waitingTransmissions(ctx context.Context, conn *sql.DB, now time.Time) []string {
	rows, err := conn.QueryContext(ctx, `SELECT t.kind, t.number, o.cod_orders, t.issued_at, t.attempts, COALESCE(t.last_error, '')
		FROM invoice_transmissions t JOIN sales_orders o ON o.id = t.order_id ORDER BY t.issued_at`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var kind, code, issued, last string
		var number, attempts int
		if rows.Scan(&kind, &number, &code, &issued, &attempts, &last) != nil {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, issued)
		if err != nil || now.Sub(t) <= time.Hour {
			continue
		}
		msg := fmt.Sprintf("order %s's %s number %d has waited for the authority since %s (%d attempts)", code, kind, number, t.In(saoPaulo).Format("2006-01-02 15:04"), attempts)
		if last != "" {
			msg += ", last: " + last
		}
		out = append(out, msg+": fincom fiscal pending lists it")
	}
	return out
}
