package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// How an abandoned note ended at the authority (abandoned_notes.status).
const (
	AbandonedSubstituted = "substituted" // authorized after all, cancelled by substitution
	AbandonedVoided      = "voided"      // never arrived: its number voided
)

// AbandonedNote is a note sent whose answer never came, replaced for its
// sale by another: its number, key and signed document, and the sale's
// invoice that replaced it (ReplacedBy: its key, Protocol "" while it
// waits for SEFAZ's authorization).
type AbandonedNote struct {
	ID             int64
	UnitID         int64
	OrderToken     string
	OrderCode      string
	Kind           string
	Series, Number int
	Key            string
	Issued         time.Time
	Signed         []byte
	Status         string
	Attempts       int
	LastError      string
	ReplacedBy     string
	ReplacedProt   string
}

// AbandonTransmission gives up the order's note in transmission (sent,
// its answer lost) in one transaction: it becomes an abandoned note,
// never sent again and asked for once the authority answers, its number
// spent, and the series' next fresh number (never one given back: a
// number sent once is not used again in contingency) is answered for the
// note that replaces it.
func (db *DB) AbandonTransmission(ctx context.Context, orderID int64, lastError string) (int, error) {
	var next int64
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var unitID int64
		var kind string
		var series int
		err := tx.QueryRowContext(ctx, `INSERT INTO abandoned_notes (unit_id, order_id, kind, series, number, access_key, issued_at, signed,
				last_error, created_at, updated_at)
			SELECT unit_id, order_id, kind, series, number, access_key, issued_at, signed, ?, ?, ? FROM invoice_transmissions WHERE order_id = ?
			RETURNING unit_id, kind, series`, nullString(lastError), timestamp(now), timestamp(now), orderID).Scan(&unitID, &kind, &series)
		if err != nil {
			return notFound(err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM invoice_transmissions WHERE order_id = ?`, orderID); err != nil {
			return err
		}
		next, err = nextCounter(ctx, tx, unitID, invoiceCounter(kind, series))
		return err
	})
	return int(next), wrap("abandon transmission", err)
}

// OpenAbandonedNotes lists the domain's abandoned notes not yet ended at
// the authority, oldest first, each with the sale's invoice that replaced
// it.
func (db *DB) OpenAbandonedNotes(ctx context.Context) ([]AbandonedNote, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT a.id, a.unit_id, o.token, o.cod_orders, a.kind, a.series, a.number, a.access_key, a.issued_at, a.signed,
			a.status, a.attempts, COALESCE(a.last_error, ''), COALESCE(i.access_key, ''), COALESCE(i.protocol, '')
		FROM abandoned_notes a JOIN sales_orders o ON o.id = a.order_id
		LEFT JOIN invoices i ON i.order_id = a.order_id AND i.status = 'AUTHORIZED' AND i.kind = a.kind
		WHERE a.status = 'open' ORDER BY a.id`)
	if err != nil {
		return nil, wrap("open abandoned notes", err)
	}
	defer rows.Close()
	var out []AbandonedNote
	for rows.Next() {
		var a AbandonedNote
		var issued, signed string
		if err := rows.Scan(&a.ID, &a.UnitID, &a.OrderToken, &a.OrderCode, &a.Kind, &a.Series, &a.Number, &a.Key, &issued, &signed,
			&a.Status, &a.Attempts, &a.LastError, &a.ReplacedBy, &a.ReplacedProt); err != nil {
			return nil, wrap("open abandoned notes", err)
		}
		a.Issued, _ = time.Parse(time.RFC3339Nano, issued)
		a.Signed = []byte(signed)
		out = append(out, a)
	}
	return out, wrap("open abandoned notes", rows.Err())
}

// EndAbandonedNote records how the authority ended an abandoned note
// (Abandoned*), with its protocol and document.
func (db *DB) EndAbandonedNote(ctx context.Context, id int64, status, protocol string, xml []byte) error {
	return wrap("end abandoned note", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `UPDATE abandoned_notes SET status = ?, protocol = ?, xml = ?, last_error = NULL, updated_at = ?
			WHERE id = ? AND status = 'open'`, status, protocol, string(xml), timestamp(now), id)
		return err
	}))
}

// CountAbandonedTry counts one more try to end an abandoned note at the
// authority, with the error met.
func (db *DB) CountAbandonedTry(ctx context.Context, id int64, lastError string) error {
	return wrap("count abandoned try", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `UPDATE abandoned_notes SET attempts = attempts + 1, last_error = ?, updated_at = ? WHERE id = ?`,
			nullString(lastError), timestamp(now), id)
		return err
	}))
}

// RefuseOffline records the authority's refusal of the order's note issued
// in contingency (an NFC-e offline, an NF-e by EPEC), which the customer
// already holds, in one transaction: the invoice REJECTED or DENIED with
// the code and text (a denial's protocol and document kept), the order's
// nf_status_text, the invoice.rejected or invoice.denied webhook, and the
// note out of transmission. Its number is spent either way: a rejected
// one becomes an abandoned note, whose number is voided at the authority.
func (db *DB) RefuseOffline(ctx context.Context, orderID int64, r Refusal) (Invoice, error) {
	var out Invoice
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var id, unitID int64
		if err := tx.QueryRowContext(ctx, `SELECT id, unit_id FROM invoices WHERE order_id = ? AND status = 'AUTHORIZED' AND protocol = ''`, orderID).
			Scan(&id, &unitID); err != nil {
			return notFound(err)
		}
		status, event := InvoiceRejected, "invoice.rejected"
		if r.Denied {
			status, event = InvoiceDenied, "invoice.denied"
			if _, err := tx.ExecContext(ctx, `UPDATE invoices SET xml = ?, protocol = ? WHERE id = ?`, string(r.XML), r.Protocol, id); err != nil {
				return err
			}
		} else if _, err := tx.ExecContext(ctx, `INSERT INTO abandoned_notes (unit_id, order_id, kind, series, number, access_key, issued_at, signed,
				last_error, created_at, updated_at)
			SELECT unit_id, order_id, kind, series, number, access_key, issued_at, signed, ?, ?, ? FROM invoice_transmissions WHERE order_id = ?`,
			nullString(r.Text), timestamp(now), timestamp(now), orderID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE invoices SET status = ?, status_code = ?, status_text = ? WHERE id = ?`,
			status, nullInt(r.Code), nullString(r.Text), id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM invoice_transmissions WHERE order_id = ?`, orderID); err != nil {
			return err
		}
		// No valid note for the sale: as before any was issued.
		if _, err := tx.ExecContext(ctx, `UPDATE sales_orders SET nf = 0, date_nf = NULL, nf_status_text = ?, updated_at = ? WHERE id = ?`,
			r.Text, timestamp(now), orderID); err != nil {
			return err
		}
		var err error
		if out, err = scanInvoice(tx.QueryRowContext(ctx, invoiceSelect+` WHERE id = ?`, id)); err != nil {
			return err
		}
		return db.emitInvoice(ctx, tx, unitID, orderID, event, out, now)
	})
	return out, wrap("refuse offline note", err)
}

// unfinishedAtAuthority says, for the doctor, which of a domain file's
// notes abandoned for an offline one have waited more than an hour to be
// ended at the authority, and which invoices have a cancellation sent
// whose answer has not come.
func unfinishedAtAuthority(ctx context.Context, conn *sql.DB, now time.Time) []string {
	var out []string
	rows, err := conn.QueryContext(ctx, `SELECT o.cod_orders, a.kind, a.number, a.created_at, a.attempts FROM abandoned_notes a
		JOIN sales_orders o ON o.id = a.order_id WHERE a.status = 'open' ORDER BY a.id`)
	if err == nil {
		defer rows.Close()
		for rows.Next() {
			var code, kind, created string
			var number, attempts int
			if rows.Scan(&code, &kind, &number, &created, &attempts) != nil {
				continue
			}
			t, err := time.Parse(time.RFC3339Nano, created)
			if err != nil || now.Sub(t) <= time.Hour {
				continue
			}
			out = append(out, fmt.Sprintf("order %s's %s number %d, given up for an offline note on %s, is not yet cancelled by substitution or voided at the authority (%d attempts): fincom fiscal pending lists it",
				code, kind, number, t.In(saoPaulo).Format("2006-01-02 15:04"), attempts))
		}
	}
	rows2, err := conn.QueryContext(ctx, `SELECT o.cod_orders, i.kind, i.number, i.cancel_tries FROM invoices i JOIN sales_orders o ON o.id = i.order_id
		WHERE i.status = 'AUTHORIZED' AND i.cancel_pending IS NOT NULL ORDER BY i.id`)
	if err == nil {
		defer rows2.Close()
		for rows2.Next() {
			var code, kind string
			var number, tries int
			if rows2.Scan(&code, &kind, &number, &tries) == nil {
				out = append(out, fmt.Sprintf("order %s's %s number %d has a cancellation sent whose answer has not come (%d tries since)", code, kind, number, tries))
			}
		}
	}
	return out
}
