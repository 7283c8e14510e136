package store

import (
	"context"
	"database/sql"
	"errors"
)

// What became of a Pix the PSP confirmed for a charge (psp_payments): one
// of the amount the charge asked that day is applied at once; one of
// another amount is held until a person decides, then accepted as the
// charge's payment, kept towards it (the charge stays open for the rest)
// or refunded to its payer.
const (
	PixApplied  = "applied"
	PixHeld     = "held"
	PixAccepted = "accepted"
	PixKept     = "kept"
	PixRefunded = "refunded"
)

// ErrPixHeld is a Pix recorded held (HoldPix), not applied: its amount is
// not what its charge asks.
var ErrPixHeld = errors.New("the Pix's amount is not what its charge asks: held for a person to decide")

// HeldPix is a Pix held for a decision, or kept towards its open charge,
// as the charge shows it.
type HeldPix struct {
	EndToEndID string `json:"end_to_end_id" doc:"The Pix's end-to-end id."`
	Amount     Money  `json:"amount" doc:"What the payer paid."`
	Asked      Money  `json:"asked" doc:"What the charge asked that day (a PIX with due date: its value with fine and interest)."`
	Difference Money  `json:"difference" doc:"amount less asked: negative when the payer paid less."`
	PaidDate   string `json:"paid_date" format:"date" doc:"The day it was paid, YYYY-MM-DD."`
	Status     string `json:"status" enum:"held,kept" doc:"held: it settles nothing until a person accepts it as the payment, keeps it towards the charge or refunds it; kept: received towards the charge, which stays open for the rest."`

	chargeID int64
}

// HoldPix records the Pix of end-to-end id e2e, received on day
// (YYYY-MM-DD) for the charge of id, held: its amount is not the asked.
func (t *Tx) HoldPix(e2e string, chargeID int64, amount, asked Money, day string) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO psp_payments (end_to_end_id, charge_id, amount, paid_at, created_at, status, asked)
		VALUES (?, ?, ?, ?, ?, 'held', ?)`, e2e, chargeID, amount.StringFixed(2), day, timestamp(t.now), asked.StringFixed(2))
	return err
}

// PixOfOrder answers the Pix of end-to-end id e2e received for a charge
// of the unit's order, and the id of its charge: ErrNotFound when the
// order has none such.
func (t *Tx) PixOfOrder(unitID int64, orderToken, e2e string) (HeldPix, int64, error) {
	var h HeldPix
	var asked sql.NullString
	err := t.tx.QueryRowContext(t.ctx, `SELECT p.end_to_end_id, p.charge_id, p.amount, p.asked, p.paid_at, p.status
		FROM psp_payments p JOIN charges c ON c.id = p.charge_id JOIN sales_orders o ON o.id = c.order_id
		WHERE o.unit_id = ? AND o.token = ? AND p.end_to_end_id = ?`, unitID, orderToken, e2e).
		Scan(&h.EndToEndID, &h.chargeID, &h.Amount, &asked, &h.PaidDate, &h.Status)
	if errors.Is(err, sql.ErrNoRows) {
		return h, 0, ErrNotFound
	}
	if err != nil {
		return h, 0, err
	}
	if asked.Valid {
		if h.Asked, err = ParseMoney(asked.String); err != nil {
			return h, 0, err
		}
	}
	h.Difference = Money{h.Amount.Sub(h.Asked.Decimal)}
	return h, h.chargeID, nil
}

// DecidePix records what a person decided of a held Pix (PixAccepted,
// PixKept, PixRefunded): the request's audit entry names the Pix and the
// decision.
func (t *Tx) DecidePix(e2e, decision string) error {
	_, err := t.tx.ExecContext(t.ctx, `UPDATE psp_payments SET status = ?, decided_at = ? WHERE end_to_end_id = ? AND status = 'held'`,
		decision, timestamp(t.now), e2e)
	setAuditRecord(t.ctx, "pix "+e2e+": "+decision)
	return err
}

// ReceivedTowards is what was received towards the open charge of id:
// the Pix kept towards it, and the parts statement lines paid of it
// (booked: those of the parts booked as incomes already).
func (t *Tx) ReceivedTowards(chargeID int64) (received, booked Money, err error) {
	rows, err := t.tx.QueryContext(t.ctx, `SELECT amount, 0 FROM psp_payments WHERE charge_id = ? AND status = 'kept'
		UNION ALL SELECT amount, entry_id IS NOT NULL FROM charge_parts WHERE charge_id = ?`, chargeID, chargeID)
	if err != nil {
		return Money{}, Money{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var m Money
		var isBooked bool
		if err := rows.Scan(&m, &isBooked); err != nil {
			return Money{}, Money{}, err
		}
		received = Money{received.Add(m.Decimal)}
		if isBooked {
			booked = Money{booked.Add(m.Decimal)}
		}
	}
	return received, booked, rows.Err()
}

// RequestHeldRefund records the refund of a held Pix's whole amount, to
// ask its PSP for.
func (t *Tx) RequestHeldRefund(unitID int64, h HeldPix, reason string) (PSPRefund, error) {
	f := PSPRefund{ID: refundID(h.EndToEndID, 0), EndToEndID: h.EndToEndID, Amount: h.Amount, Status: RefundRequested,
		Reason: NewText(reason), Requested: timestamp(t.now), UnitID: unitID}
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO psp_refunds (id, end_to_end_id, charge_id, amount, reason, status, requested_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, f.ID, f.EndToEndID, h.chargeID, f.Amount, f.Reason, f.Status, f.Requested, f.Requested)
	return f, err
}

// heldPixOf lists the order's Pix held or kept, by the token of their
// charge.
func heldPixOf(ctx context.Context, tx *sql.Tx, orderID int64) (map[string][]HeldPix, error) {
	rows, err := tx.QueryContext(ctx, `SELECT c.token, p.end_to_end_id, p.amount, COALESCE(p.asked, p.amount), p.paid_at, p.status
		FROM psp_payments p JOIN charges c ON c.id = p.charge_id WHERE c.order_id = ? AND p.status IN ('held', 'kept')
		ORDER BY p.paid_at, p.created_at, p.end_to_end_id`, orderID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]HeldPix{}
	for rows.Next() {
		var token string
		var h HeldPix
		if err := rows.Scan(&token, &h.EndToEndID, &h.Amount, &h.Asked, &h.PaidDate, &h.Status); err != nil {
			return nil, err
		}
		h.Difference = Money{h.Amount.Sub(h.Asked.Decimal)}
		out[token] = append(out[token], h)
	}
	return out, rows.Err()
}
