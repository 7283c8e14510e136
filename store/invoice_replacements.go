package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Replacement is a national NFS-e's replacement sent and not answered:
// its DPS number, time and signed document, and the key it replaces.
type Replacement struct {
	OrderID, UnitID int64
	Series, Number  int
	Issued          time.Time
	Signed          []byte
	Replaces        string
}

// PendingReplacement answers the order's replacement sent whose answer
// did not come, if any.
func (db *DB) PendingReplacement(ctx context.Context, orderID int64) (Replacement, bool, error) {
	r := Replacement{OrderID: orderID}
	var issued, signed string
	err := db.r.QueryRowContext(ctx, `SELECT unit_id, series, number, issued_at, signed, replaces FROM invoice_replacements WHERE order_id = ?`,
		orderID).Scan(&r.UnitID, &r.Series, &r.Number, &issued, &signed, &r.Replaces)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, wrap("pending replacement", err)
	}
	r.Issued, _ = time.Parse(time.RFC3339Nano, issued)
	r.Signed = []byte(signed)
	return r, true, nil
}

// StartReplacement records a replacement before it is sent.
func (db *DB) StartReplacement(ctx context.Context, r Replacement) error {
	return wrap("start replacement", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO invoice_replacements (order_id, unit_id, series, number, issued_at, signed, replaces, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, r.OrderID, r.UnitID, r.Series, r.Number, r.Issued.UTC().Format(time.RFC3339Nano), string(r.Signed),
			r.Replaces, timestamp(now))
		return err
	}))
}

// DropReplacement forgets the order's replacement the authority refused
// (its DPS number spent: a DPS number is used once).
func (db *DB) DropReplacement(ctx context.Context, orderID int64) error {
	return wrap("drop replacement", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM invoice_replacements WHERE order_id = ?`, orderID)
		return err
	}))
}

// ReplaceInvoice records, in one transaction, the order's new note that
// replaced its authorized invoice (of key replaced): that invoice
// cancelled by substitution (cancel_reason reason, the event ev kept with
// it), the new one authorized with statusText, the order's nf fields, the
// webhooks invoice.cancelled and invoice.issued, and the replacement out
// of the pending ones.
func (db *DB) ReplaceInvoice(ctx context.Context, orderID, unitID int64, replaced string, in NewInvoice, reason, statusText string,
	ev InvoiceEvent) (Invoice, error) {
	var out Invoice
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var oldID int64
		if err := tx.QueryRowContext(ctx, `SELECT id FROM invoices WHERE order_id = ? AND status = 'AUTHORIZED' AND access_key = ?`,
			orderID, replaced).Scan(&oldID); err != nil {
			return notFound(err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE invoices SET status = 'CANCELLED', cancelled_at = ?, cancel_reason = ?, status_text = ?
			WHERE id = ?`, timestamp(now), reason, reason, oldID); err != nil {
			return err
		}
		if err := insertInvoiceEvent(ctx, tx, oldID, ev, now); err != nil {
			return err
		}
		old, err := scanInvoice(tx.QueryRowContext(ctx, invoiceSelect+` WHERE id = ?`, oldID))
		if err != nil {
			return err
		}
		if err := db.emitInvoice(ctx, tx, unitID, orderID, "invoice.cancelled", old, now); err != nil {
			return err
		}
		tok := db.id()
		if err := insertAuthorized(ctx, tx, tok, orderID, unitID, in, statusText, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM invoice_replacements WHERE order_id = ?`, orderID); err != nil {
			return err
		}
		if out, err = scanInvoice(tx.QueryRowContext(ctx, invoiceSelect+` WHERE token = ?`, tok)); err != nil {
			return err
		}
		return db.emitInvoice(ctx, tx, unitID, orderID, "invoice.issued", out, now)
	})
	return out, wrap("replace invoice", err)
}
