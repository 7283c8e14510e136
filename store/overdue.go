package store

import (
	"context"
	"database/sql"
)

// Overdue is a receivable past its day: an open charge whose due date has
// passed (Installment its installment), or an active order without any
// live charge whose estimated payment date has (Installment 0).
type Overdue struct {
	OrderToken, Code, Customer, DueDate string
	Installment                         int
	Amount                              Money
	// PaymentKey is the charge's means of payment ("" without a charge).
	PaymentKey string
	// Email: the order has the address its charge goes to
	// (notify_email_charge), so a reminder can be sent.
	Email bool
}

// Overdue lists the unit's receivables past their day on today, the
// oldest first: its open charges due before today and its active orders
// without a live charge whose estimated payment date is before today.
// search keeps those whose customer's name holds it; at most n.
func (db *DB) Overdue(ctx context.Context, unitID int64, today Date, search string, n int) ([]Overdue, error) {
	var like any
	if search != "" {
		like = fold(search)
	}
	rows, err := db.r.QueryContext(ctx, `
		SELECT o.token, o.cod_orders, c.display_name, ch.due_date, ch.installment, ch.amount, ch.payment_key,
			COALESCE(o.notify_email_charge, '') <> ''
		FROM charges ch JOIN sales_orders o ON o.id = ch.order_id JOIN contacts c ON c.id = o.contact_id
		WHERE o.unit_id = ?1 AND o.active = 1 AND ch.status IN ('PENDING', 'OVERDUE') AND ch.due_date < ?2
			AND (?3 IS NULL OR instr(fincom_fold(c.display_name), ?3) > 0)
		UNION ALL
		SELECT o.token, o.cod_orders, c.display_name, o.estimated_payment_date, 0, o.value, '',
			COALESCE(o.notify_email_charge, '') <> ''
		FROM sales_orders o JOIN contacts c ON c.id = o.contact_id
		WHERE o.unit_id = ?1 AND o.active = 1 AND o.estimated_payment_date < ?2
			AND NOT EXISTS (SELECT 1 FROM charges ch WHERE ch.order_id = o.id AND ch.status <> 'CANCELLED')
			AND (?3 IS NULL OR instr(fincom_fold(c.display_name), ?3) > 0)
		ORDER BY 4, 2, 5 LIMIT ?4`, unitID, today.ISO(), like, n)
	if err != nil {
		return nil, wrap("overdue", err)
	}
	defer rows.Close()
	out := []Overdue{}
	for rows.Next() {
		var o Overdue
		var amount string
		var customer sql.NullString
		if err := rows.Scan(&o.OrderToken, &o.Code, &customer, &o.DueDate, &o.Installment, &amount, &o.PaymentKey, &o.Email); err != nil {
			return nil, wrap("overdue", err)
		}
		o.Customer = customer.String
		if o.Amount, err = ParseMoney(amount); err != nil {
			return nil, wrap("overdue", err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// Receivables are what a unit's orders are still to receive, not yet
// booked as entries: its open charges, and its active orders without a
// live charge (their value on their estimated payment date). A charge
// paid becomes an income entry when its order books it (in_automation),
// and is then no longer open; an order with a live charge counts through
// it: each amount is counted once.
type Receivables struct {
	ChargesOverdue, ChargesDue Money // charges due before today, and from today to until
	OrdersOverdue, OrdersDue   Money // orders without a charge, likewise
}

// OpenReceivables answers the unit's Receivables on today, those to come
// up to until; amounts summed as decimals, never as floats.
func (db *DB) OpenReceivables(ctx context.Context, unitID int64, today, until Date) (Receivables, error) {
	var r Receivables
	rows, err := db.r.QueryContext(ctx, `SELECT ch.due_date < ?1, ch.amount FROM charges ch JOIN sales_orders o ON o.id = ch.order_id
		WHERE o.unit_id = ?3 AND o.active = 1 AND ch.status IN ('PENDING', 'OVERDUE') AND ch.due_date <= ?2`, today.ISO(), until.ISO(), unitID)
	if err != nil {
		return r, wrap("open receivables", err)
	}
	defer rows.Close()
	for rows.Next() {
		var overdue bool
		var amount string
		if err := rows.Scan(&overdue, &amount); err != nil {
			return r, wrap("open receivables", err)
		}
		m, err := ParseMoney(amount)
		if err != nil {
			return r, wrap("open receivables", err)
		}
		if overdue {
			r.ChargesOverdue = NewMoney(r.ChargesOverdue.Add(m.Decimal))
		} else {
			r.ChargesDue = NewMoney(r.ChargesDue.Add(m.Decimal))
		}
	}
	if err := rows.Err(); err != nil {
		return r, wrap("open receivables", err)
	}
	var oo, od int64
	err = db.r.QueryRowContext(ctx, `SELECT
		coalesce(sum(CASE WHEN o.estimated_payment_date < ?1 THEN o.value_cents END), 0),
		coalesce(sum(CASE WHEN o.estimated_payment_date >= ?1 THEN o.value_cents END), 0)
		FROM sales_orders o WHERE o.unit_id = ?3 AND o.active = 1 AND o.estimated_payment_date <= ?2
		AND NOT EXISTS (SELECT 1 FROM charges ch WHERE ch.order_id = o.id AND ch.status <> 'CANCELLED')`,
		today.ISO(), until.ISO(), unitID).Scan(&oo, &od)
	r.OrdersOverdue, r.OrdersDue = cents(oo), cents(od)
	return r, wrap("open receivables", err)
}
