package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// MonthInvoice is an invoice the unit issued in a period, as the
// accountant receives it: the invoice and the order it is of.
type MonthInvoice struct {
	Invoice
	OrderToken, OrderCode, Customer string
	// CustomerRegister is the customer's CPF or CNPJ; Bill what the order
	// bills and Taxes its tax fields (a service note states its ISS).
	CustomerRegister string
	Bill             OrderBill
	Taxes            Taxes
}

// IssuedInvoices are the unit's invoices issued (authorized, then maybe
// cancelled, or denied) on a day within from..to (São Paulo's days), by
// kind and number.
func (db *DB) IssuedInvoices(ctx context.Context, unitID int64, from, to Date) ([]MonthInvoice, error) {
	// issued_at is kept in UTC (timestamp): the days' bounds are São
	// Paulo's midnights in UTC.
	start := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, saoPaulo)
	end := time.Date(to.Year(), to.Month(), to.Day()+1, 0, 0, 0, 0, saoPaulo)
	rows, err := db.r.QueryContext(ctx, `SELECT i.token, i.kind, i.status, i.series, i.number, i.access_key, i.verification, i.protocol, i.issued_at,
		i.cancelled_at, i.cancel_reason, i.xml, i.status_code, i.status_text, o.token, o.cod_orders, COALESCE(c.display_name, ''),
		COALESCE(c.register, ''), o.value, COALESCE(o.freight_total, '0'), o.freight_mode, o.taxes
		FROM invoices i JOIN sales_orders o ON o.id = i.order_id LEFT JOIN contacts c ON c.id = o.contact_id
		WHERE i.unit_id = ? AND i.status IN ('AUTHORIZED', 'CANCELLED', 'DENIED') AND i.issued_at >= ? AND i.issued_at < ?
		ORDER BY i.kind, i.series, i.number`, unitID, timestamp(start), timestamp(end))
	if err != nil {
		return nil, wrap("issued invoices", err)
	}
	defer rows.Close()
	var out []MonthInvoice
	for rows.Next() {
		var m MonthInvoice
		var taxes string
		inv, err := scanInvoice(scanFunc(func(dest ...any) error {
			return rows.Scan(append(dest, &m.OrderToken, &m.OrderCode, &m.Customer, &m.CustomerRegister, &m.Bill.Value, &m.Bill.Freight,
				&m.Bill.FreightMode, &taxes)...)
		}))
		if err == nil {
			err = json.Unmarshal([]byte(taxes), &m.Taxes)
		}
		if err != nil {
			return nil, wrap("issued invoices", err)
		}
		m.Invoice = inv
		out = append(out, m)
	}
	return out, wrap("issued invoices", rows.Err())
}

// scanFunc is a scanner of a function's.
type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// ReceivedNote is an NF-e of the unit's inbox, whole (not a summary).
type ReceivedNote struct {
	AccessKey, SupplierName, IssueDate string
	Total                              Money
	XML                                string
}

// ReceivedNotes are the full NF-e of the unit's inbox issued on a day
// within from..to, by issue date.
func (db *DB) ReceivedNotes(ctx context.Context, unitID int64, from, to string) ([]ReceivedNote, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT access_key, supplier_name, COALESCE(issue_date, ''), total_value, xml FROM nfe_inbox
		WHERE unit_id = ? AND summary = 0 AND substr(issue_date, 1, 10) BETWEEN ? AND ? ORDER BY issue_date, id`, unitID, from, to)
	if err != nil {
		return nil, wrap("received notes", err)
	}
	defer rows.Close()
	var out []ReceivedNote
	for rows.Next() {
		var n ReceivedNote
		if err := rows.Scan(&n.AccessKey, &n.SupplierName, &n.IssueDate, &n.Total, &n.XML); err != nil {
			return nil, wrap("received notes", err)
		}
		out = append(out, n)
	}
	return out, wrap("received notes", rows.Err())
}

// PeriodCharge is a charge of the unit due within a period, as the
// office exports it.
type PeriodCharge struct {
	OrderCode, Customer       string
	Installment               int
	DueDate, Status, Method   string
	Amount                    Money
	PaidAt                    Stamp
	PaidVia, Ours, PaidAmount Text
}

// PeriodCharges are the unit's charges (cancelled ones included) due
// within from..to, by due date.
func (db *DB) PeriodCharges(ctx context.Context, unitID int64, from, to string) ([]PeriodCharge, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT o.cod_orders, COALESCE(c.display_name, ''), ch.installment, ch.due_date, ch.status, ch.payment_key,
		ch.amount, ch.paid_at, ch.paid_via, ch.our_number, ch.paid_amount
		FROM charges ch JOIN sales_orders o ON o.id = ch.order_id LEFT JOIN contacts c ON c.id = o.contact_id
		WHERE o.unit_id = ? AND ch.due_date BETWEEN ? AND ? AND ch.status <> 'ISSUING' ORDER BY ch.due_date, o.cod_orders, ch.installment`, unitID, from, to)
	if err != nil {
		return nil, wrap("period charges", err)
	}
	defer rows.Close()
	var out []PeriodCharge
	for rows.Next() {
		var c PeriodCharge
		if err := rows.Scan(&c.OrderCode, &c.Customer, &c.Installment, &c.DueDate, &c.Status, &c.Method, &c.Amount, &c.PaidAt, &c.PaidVia, &c.Ours,
			&c.PaidAmount); err != nil {
			return nil, wrap("period charges", err)
		}
		out = append(out, c)
	}
	return out, wrap("period charges", rows.Err())
}

// QueueUnitNotice adds a message of the unit's, of no order, to the
// outbox (a dedupe key already queued counts once).
func (db *DB) QueueUnitNotice(ctx context.Context, unitID int64, n Notice) error {
	return wrap("queue unit notice", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		return queueNotice(ctx, tx, unitID, 0, &n, now, db.id)
	}))
}
