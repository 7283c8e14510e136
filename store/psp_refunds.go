package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// PSPRefund is a refund of a Pix received at a unit's PSP.
type PSPRefund struct {
	ID         string `json:"id" doc:"The refund's id, sent to the PSP."`
	EndToEndID string `json:"end_to_end_id" doc:"The end-to-end id of the PIX payment given back."`
	Amount     Money  `json:"amount" doc:"The amount given back."`
	// Status is REQUESTED until the PSP acknowledged it, then the PSP's:
	// EM_PROCESSAMENTO, DEVOLVIDO (given back) or NAO_REALIZADO; HELD when
	// the PSP answered another amount than the one asked.
	Status string `json:"status" enum:"REQUESTED,EM_PROCESSAMENTO,DEVOLVIDO,NAO_REALIZADO,HELD" doc:"REQUESTED until the PSP acknowledged it, then the PSP's: EM_PROCESSAMENTO, DEVOLVIDO (given back) or NAO_REALIZADO; HELD when the PSP answered another amount than the one asked (detail says which): nothing is booked, and a person settles it with the PSP."`
	// Detail is the PSP's reason of a refusal.
	Detail    Text   `json:"detail" doc:"The PSP's reason for a refusal; null when none."`
	Reason    Text   `json:"reason" doc:"Why it was asked; null when none."`
	Requested string `json:"requested_at" doc:"When it was asked (RFC 3339)."`
	UnitID    int64  `json:"-"`
}

// RefundRequested is a refund not yet acknowledged by the PSP.
const RefundRequested = "REQUESTED"

// RefundHeld is a refund the PSP answered for another amount than the one
// asked: recorded as neither given back nor refused, nothing booked, not
// asked again, for a person to settle with the PSP.
const RefundHeld = "HELD"

// refundOpen are the states a refund is followed in.
const refundOpen = `('REQUESTED', 'EM_PROCESSAMENTO')`

// RequestRefunds records the refunds of an order's Pix received at the
// unit's PSP, before the PSP is asked, as Rules.Refunds splits amount
// (nil: everything left) over its payments. Each refund's id is its payment's and its rank, so asking
// again is the same request.
func (db *DB) RequestRefunds(ctx context.Context, unitID int64, orderToken string, amount *Money, reason string) ([]PSPRefund, error) {
	var out []PSPRefund
	rules, err := db.rules()
	if err != nil {
		return nil, err
	}
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		id, err := recordID(ctx, tx, tableSalesOrders, unitID, orderToken, false)
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT p.end_to_end_id, p.charge_id, p.amount,
				(SELECT COUNT(*) FROM psp_refunds f WHERE f.end_to_end_id = p.end_to_end_id),
				COALESCE((SELECT group_concat(f.amount, ' ') FROM psp_refunds f WHERE f.end_to_end_id = p.end_to_end_id AND f.status <> 'NAO_REALIZADO'), '')
			FROM psp_payments p JOIN charges c ON c.id = p.charge_id WHERE c.order_id = ?
				AND (p.status IN ('applied', 'accepted') OR (p.status = 'kept' AND c.status = 'PAID'))
			ORDER BY p.paid_at, p.created_at`, id)
		if err != nil {
			return err
		}
		var payments []Refundable
		for rows.Next() {
			var l Refundable
			var given string
			if err := rows.Scan(&l.EndToEndID, &l.charge, &l.Paid, &l.rank, &given); err != nil {
				rows.Close()
				return err
			}
			for _, g := range strings.Fields(given) {
				d, err := decimal.NewFromString(g)
				if err != nil {
					rows.Close()
					return err
				}
				l.Given = append(l.Given, Money{d})
			}
			payments = append(payments, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		parts, err := rules.Refunds(payments, amount)
		if err != nil {
			return err
		}
		for i, part := range parts {
			if !part.IsPositive() {
				continue
			}
			l := payments[i]
			f := PSPRefund{ID: refundID(l.EndToEndID, l.rank), EndToEndID: l.EndToEndID, Amount: part, Status: RefundRequested,
				Reason: NewText(reason), Requested: timestamp(now), UnitID: unitID}
			if _, err := tx.ExecContext(ctx, `INSERT INTO psp_refunds (id, end_to_end_id, charge_id, amount, reason, status, requested_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, f.ID, f.EndToEndID, l.charge, f.Amount, f.Reason, f.Status, f.Requested, f.Requested); err != nil {
				return err
			}
			out = append(out, f)
		}
		return nil
	})
	return out, wrap("request refunds", err)
}

// Refundable is a Pix payment of an order, what it brought (Paid) and
// the refunds of it not refused (Given), oldest first.
type Refundable struct {
	EndToEndID string
	Paid       Money
	Given      []Money
	charge     int64
	rank       int // refunds asked of it so far, refused ones too
}

// refundID is the id of a payment's n-th refund at the PSP: 35 letters
// and digits at most, the same for the same payment and rank.
func refundID(endToEndID string, n int) string {
	h := sha256.Sum256(fmt.Appendf(nil, "fincom:refund:%s:%d", endToEndID, n))
	return "FD" + strings.ToUpper(hex.EncodeToString(h[:15]))
}

// RecordRefund records the state the PSP answered for a refund (status,
// its reason of a refusal, the day it settled, YYYY-MM-DD). The first
// time a refund is DEVOLVIDO its expense is booked (the order's
// description, category, contact and account, paid that day) and its
// charge's refunded amount grows; charge.refunded (or
// charge.refund_refused) is emitted once. A held Pix given back books
// nothing: it was never the charge's payment.
func (db *DB) RecordRefund(ctx context.Context, id, status, detail, day string) (PSPRefund, error) {
	var f PSPRefund
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var chargeID, orderID int64
		var was, chargeToken, desc string
		var account, category, contact sql.NullInt64
		var refunded Text
		var payment string
		err := tx.QueryRowContext(ctx, `SELECT f.end_to_end_id, f.amount, f.status, f.reason, f.requested_at, f.charge_id, c.token, c.refunded_amount,
				o.id, o.unit_id, o.description, o.bank_account_id, o.category_id, o.contact_id, p.status
			FROM psp_refunds f JOIN charges c ON c.id = f.charge_id JOIN sales_orders o ON o.id = c.order_id
				JOIN psp_payments p ON p.end_to_end_id = f.end_to_end_id WHERE f.id = ?`, id).
			Scan(&f.EndToEndID, &f.Amount, &was, &f.Reason, &f.Requested, &chargeID, &chargeToken, &refunded,
				&orderID, &f.UnitID, &desc, &account, &category, &contact, &payment)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		f.ID, f.Status, f.Detail = id, was, NewText(detail)
		if was != RefundRequested && was != "EM_PROCESSAMENTO" || status == was {
			return nil
		}
		f.Status = status
		var settled any
		if status == "DEVOLVIDO" || status == "NAO_REALIZADO" {
			settled = timestamp(now)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE psp_refunds SET status = ?, detail = ?, settled_at = ?, updated_at = ? WHERE id = ?`,
			status, f.Detail, settled, timestamp(now), id); err != nil {
			return err
		}
		switch status {
		case "NAO_REALIZADO":
			return db.emitCharge(ctx, tx, f.UnitID, "charge.refund_refused", chargeToken, now)
		case "DEVOLVIDO":
			if payment == PixRefunded {
				// A held Pix given back was never the charge's payment:
				// no income was booked for it, so no expense is, and
				// the charge's refunded amount stays.
				return nil
			}
		default:
			return nil
		}
		tok := db.id()
		res, err := tx.ExecContext(ctx, `
			INSERT INTO entries (token, unit_id, type, description, value, value_cents, due_date, pay_day, competence_date,
				category_id, contact_id, bank_account_id, active, created_at, updated_at)
			VALUES (?, ?, 'out', ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
			tok, f.UnitID, firstRunes("Devolução PIX: "+desc, 255), f.Amount, f.Amount.Cents(), day, day, day, category, contact, account,
			timestamp(now), timestamp(now))
		if err != nil {
			return err
		}
		entryID, err := res.LastInsertId()
		if err != nil {
			return err
		}
		total := f.Amount.Decimal
		if refunded.Valid {
			prev, err := decimal.NewFromString(refunded.String)
			if err != nil {
				return err
			}
			total = total.Add(prev)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE psp_refunds SET entry_id = ? WHERE id = ?`, entryID, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE charges SET refunded_amount = ?, updated_at = ? WHERE id = ?`,
			NewMoney(total), timestamp(now), chargeID); err != nil {
			return err
		}
		return db.emitCharge(ctx, tx, f.UnitID, "charge.refunded", chargeToken, now)
	})
	return f, wrap("record refund", err)
}

// OpenPSPRefunds lists the unit's refunds the PSP has not settled or
// refused yet.
func (db *DB) OpenPSPRefunds(ctx context.Context, unitID int64) ([]PSPRefund, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT f.id, f.end_to_end_id, f.amount, f.status, f.reason, f.requested_at
		FROM psp_refunds f JOIN charges c ON c.id = f.charge_id JOIN sales_orders o ON o.id = c.order_id
		WHERE f.status IN `+refundOpen+` AND o.unit_id = ? ORDER BY f.requested_at, f.id`, unitID)
	if err != nil {
		return nil, wrap("open refunds", err)
	}
	defer rows.Close()
	var out []PSPRefund
	for rows.Next() {
		f := PSPRefund{UnitID: unitID}
		if err := rows.Scan(&f.ID, &f.EndToEndID, &f.Amount, &f.Status, &f.Reason, &f.Requested); err != nil {
			return nil, wrap("open refunds", err)
		}
		out = append(out, f)
	}
	return out, wrap("open refunds", rows.Err())
}

// firstRunes is s cut to n characters.
func firstRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
