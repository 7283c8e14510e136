package store

import (
	"database/sql"
	"errors"
)

// BoletoToReschedule is an order's open boleto as giving it a new due
// date reads it: its agreement with the bank (Agreement.ID 0: none), its
// our-number, amount and due date, and where its registration stands.
type BoletoToReschedule struct {
	ID, OrderID                   int64
	Token, Provider, PaymentKey   string
	Registration, DueDate, Status string
	OurNumber                     int64
	Amount                        Money
	Agreement                     Agreement
}

// OpenBoletoOfOrder reads the unit's order's open charge of installment n
// (0: the first open one); ErrNothingToPay when it has none open.
func (t *Tx) OpenBoletoOfOrder(unitID int64, orderToken string, n int) (BoletoToReschedule, error) {
	id, err := t.OpenChargeOfOrder(unitID, orderToken, n)
	if err != nil {
		return BoletoToReschedule{}, err
	}
	b := BoletoToReschedule{ID: id}
	var agreement sql.NullInt64
	var our sql.NullInt64
	err = t.tx.QueryRowContext(t.ctx, `SELECT order_id, token, provider, payment_key, COALESCE(registration, ''), due_date, status,
			CAST(our_number AS INTEGER), amount, agreement_id FROM charges WHERE id = ?`, id).
		Scan(&b.OrderID, &b.Token, &b.Provider, &b.PaymentKey, &b.Registration, &b.DueDate, &b.Status, &our, &b.Amount, &agreement)
	if err != nil {
		return b, err
	}
	b.OurNumber = our.Int64
	if agreement.Valid {
		b.Agreement, err = scanAgreement(t.tx.QueryRowContext(t.ctx, agreementSelect+` WHERE a.id = ?`, agreement.Int64))
		if errors.Is(err, sql.ErrNoRows) {
			err = nil
		}
	}
	return b, err
}

// RescheduleBoleto records the charge's new due date and the line and bar
// code that carry it, its status (PENDING again), and, when remit, the
// change as waiting for the next remittance; the order's history says it
// (portal_events: due_date_changed, the dates before and after).
func (t *Tx) RescheduleBoleto(b BoletoToReschedule, due, line, barcode, status string, remit bool) error {
	change := sql.NullString{String: "pending", Valid: remit}
	if _, err := t.tx.ExecContext(t.ctx, `UPDATE charges SET due_date = ?, boleto_line = ?, boleto_barcode = ?, status = ?,
			due_change = COALESCE(?, due_change), updated_at = ? WHERE id = ?`,
		due, line, barcode, status, change, timestamp(t.now), b.ID); err != nil {
		return err
	}
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO portal_events (order_id, kind, detail, created_at) VALUES (?, 'due_date_changed', ?, ?)`,
		b.OrderID, b.DueDate+" → "+due, timestamp(t.now))
	return err
}
