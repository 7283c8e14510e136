package store

import (
	"context"
	"database/sql"
	"time"
)

// CancellationSentText is the order's nf_status_text while a cancellation
// sent to the authority waits for its answer.
const CancellationSentText = "Cancelamento enviado à SEFAZ: será confirmado quando ela responder"

// PendingCancellation is a cancellation sent whose answer was lost: the
// order, the reason sent and how many times it has been asked since.
type PendingCancellation struct {
	UnitID     int64
	OrderToken string
	Reason     string
	Tries      int
}

// HoldCancellation records that the order's authorized invoice has a
// cancellation sent with reason whose answer was lost: the transmissions
// loop asks again until the authority confirms or refuses it, and the
// order says so (CancellationSentText). ErrNoInvoice without an
// authorized invoice.
func (db *DB) HoldCancellation(ctx context.Context, unitID int64, orderToken, reason string) error {
	return wrap("hold cancellation", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		res, err := tx.ExecContext(ctx, `UPDATE invoices SET cancel_pending = ? WHERE status = 'AUTHORIZED' AND order_id =
			(SELECT id FROM sales_orders WHERE unit_id = ? AND token = ?)`, reason, unitID, orderToken)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return ErrNoInvoice
		}
		_, err = tx.ExecContext(ctx, `UPDATE sales_orders SET nf_status_text = ?, updated_at = ? WHERE unit_id = ? AND token = ?`,
			CancellationSentText, timestamp(now), unitID, orderToken)
		return err
	}))
}

// PendingCancellations lists the domain's cancellations sent whose
// answer was lost.
func (db *DB) PendingCancellations(ctx context.Context) ([]PendingCancellation, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT o.unit_id, o.token, i.cancel_pending, i.cancel_tries FROM invoices i
		JOIN sales_orders o ON o.id = i.order_id WHERE i.status = 'AUTHORIZED' AND i.cancel_pending IS NOT NULL ORDER BY i.id`)
	if err != nil {
		return nil, wrap("pending cancellations", err)
	}
	defer rows.Close()
	var out []PendingCancellation
	for rows.Next() {
		var c PendingCancellation
		if err := rows.Scan(&c.UnitID, &c.OrderToken, &c.Reason, &c.Tries); err != nil {
			return nil, wrap("pending cancellations", err)
		}
		out = append(out, c)
	}
	return out, wrap("pending cancellations", rows.Err())
}

// CountCancellationTry counts one more unanswered asking of the order's
// pending cancellation.
func (db *DB) CountCancellationTry(ctx context.Context, unitID int64, orderToken string) error {
	return wrap("count cancellation try", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `UPDATE invoices SET cancel_tries = cancel_tries + 1 WHERE status = 'AUTHORIZED'
			AND cancel_pending IS NOT NULL AND order_id = (SELECT id FROM sales_orders WHERE unit_id = ? AND token = ?)`, unitID, orderToken)
		return err
	}))
}

// DropCancellation ends the order's pending cancellation the authority
// refused: the invoice stays authorized and the order says why
// (statusText).
func (db *DB) DropCancellation(ctx context.Context, unitID int64, orderToken, statusText string) error {
	return wrap("drop cancellation", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		if _, err := tx.ExecContext(ctx, `UPDATE invoices SET cancel_pending = NULL, cancel_tries = 0 WHERE order_id =
			(SELECT id FROM sales_orders WHERE unit_id = ? AND token = ?)`, unitID, orderToken); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE sales_orders SET nf_status_text = ?, updated_at = ? WHERE unit_id = ? AND token = ?`,
			statusText, timestamp(now), unitID, orderToken)
		return err
	}))
}
