package store

import (
	"context"
	"errors"
	"strings"
)

// OpenTotals sums a unit's open entries (not paid, active): those due
// before a day (overdue) and those due from it to the end of a period.
type OpenTotals struct {
	ReceivableOverdue, ReceivableDue Money
	PayableOverdue, PayableDue       Money
}

// OpenEntryTotals answers the portal's "a receber / a pagar": open entries
// due before today, and due from today to until. Integer cents, so exact.
func (db *DB) OpenEntryTotals(ctx context.Context, unitID int64, today, until Date) (OpenTotals, error) {
	var ro, rd, po, pd int64
	err := db.r.QueryRowContext(ctx, `SELECT
		coalesce(sum(CASE WHEN type = 'in' AND due_date < ?1 THEN value_cents END), 0),
		coalesce(sum(CASE WHEN type = 'in' AND due_date >= ?1 THEN value_cents END), 0),
		coalesce(sum(CASE WHEN type = 'out' AND due_date < ?1 THEN value_cents END), 0),
		coalesce(sum(CASE WHEN type = 'out' AND due_date >= ?1 THEN value_cents END), 0)
		FROM entries WHERE unit_id = ?3 AND active = 1 AND pay_day IS NULL AND due_date <= ?2`,
		today.ISO(), until.ISO(), unitID).Scan(&ro, &rd, &po, &pd)
	return OpenTotals{cents(ro), cents(rd), cents(po), cents(pd)}, wrap("open entry totals", err)
}

// OrderSummary is one of a unit's latest orders as the portal lists it.
type OrderSummary struct {
	Token, Code, Customer, Date string
	Total                       Money
	// Charges counts the order's charges by status (PENDING, PAID, ...).
	Charges map[string]int
	// Invoice is the status of its latest invoice (AUTHORIZED, CANCELLED), or "".
	Invoice string
}

// LatestOrders answers the unit's n newest active orders.
func (db *DB) LatestOrders(ctx context.Context, unitID int64, n int) ([]OrderSummary, error) {
	return db.OrderSummaries(ctx, unitID, OrderFilter{}, n)
}

// OrderFilter narrows the portal's order list; empty fields do not.
type OrderFilter struct {
	From, To string // the estimated payment date's bounds, YYYY-MM-DD
	Code     string // the order's code, any case
	Customer string // a text of the customer's name (ASCII case folded)
}

// OrderSummaries answers the unit's active orders the filter keeps, newest
// first, at most n.
func (db *DB) OrderSummaries(ctx context.Context, unitID int64, f OrderFilter, n int) ([]OrderSummary, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT o.token, o.cod_orders, c.display_name, o.estimated_payment_date, o.value_cents,
		coalesce((SELECT group_concat(status) FROM charges WHERE order_id = o.id), ''),
		coalesce(`+orderNFStatus+`, '')
		FROM sales_orders o JOIN contacts c ON c.id = o.contact_id
		WHERE o.unit_id = ? AND o.active = 1 AND (?2 = '' OR o.estimated_payment_date >= ?2) AND (?3 = '' OR o.estimated_payment_date <= ?3)
		AND (?5 = '' OR o.cod_orders = ?5 COLLATE NOCASE) AND (?6 = '' OR instr(fincom_fold(c.display_name), ?6) > 0)
		ORDER BY o.id DESC LIMIT ?4`, unitID, f.From, f.To, n, f.Code, fold(f.Customer))
	if err != nil {
		return nil, wrap("order summaries", err)
	}
	defer rows.Close()
	var out []OrderSummary
	for rows.Next() {
		var o OrderSummary
		var total int64
		var charges string
		if err := rows.Scan(&o.Token, &o.Code, &o.Customer, &o.Date, &total, &charges, &o.Invoice); err != nil {
			return nil, wrap("order summaries", err)
		}
		o.Total = cents(total)
		o.Charges = map[string]int{}
		for _, st := range strings.Split(charges, ",") {
			if st != "" {
				o.Charges[st]++
			}
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// EntrySummary is an entry as the portal's transactions page lists it.
type EntrySummary struct {
	Token, Type, Description, DueDate, PayDay, Contact, Account string
	Value                                                       Money
	// What an accountant books it by: its category and the category's
	// DRE group ("" none), its competence day (its due date when it has
	// none), its document (the authorized invoice of the order whose
	// payment booked it, else a boleto's line), the contact's CPF or
	// CNPJ, and the account's bank, agency and number.
	Category, Group, Competence, Document, ContactRegister string
	Bank, Agency, AccountNumber                            string
	// An instalment's number and how many its group has (0: none), and
	// the group's token.
	Instalment, Instalments int
	GroupToken              string
}

// EntrySummaries answers the unit's active entries due within from..to of
// a type (in, out; "" for both), by due date, at most n.
func (db *DB) EntrySummaries(ctx context.Context, unitID int64, from, to, typ string, n int) ([]EntrySummary, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT e.token, e.type, e.description, e.due_date, coalesce(e.pay_day, ''),
		coalesce(c.display_name, ''), coalesce(a.nick_name, ''), e.value_cents,
		coalesce(cat.name, ''), coalesce(g.name, ''), coalesce(e.competence_date, e.due_date),
		coalesce((SELECT CASE i.kind WHEN 'nfe' THEN 'NF-e' WHEN 'nfce' THEN 'NFC-e' ELSE 'NFS-e' END || ' nº ' || i.number || ', série ' || i.series
			FROM invoices i WHERE i.order_id = e.sales_order_id AND i.status = 'AUTHORIZED'),
			e.barcode, ''),
		coalesce(c.register, ''), coalesce(b.name, ''), coalesce(a.agency || coalesce('-' || a.dv_agencia, ''), ''),
		coalesce(a.current_account || coalesce('-' || a.dv_conta, ''), ''),
		coalesce(e.installment, 0), coalesce(e.installments, 0), coalesce(e.group_token, '')
		FROM entries e LEFT JOIN contacts c ON c.id = e.contact_id LEFT JOIN bank_accounts a ON a.id = e.bank_account_id
		LEFT JOIN banks b ON b.id = a.bank_id LEFT JOIN categories cat ON cat.id = e.category_id LEFT JOIN category_groups g ON g.code = cat.group_code
		WHERE e.unit_id = ?1 AND e.active = 1 AND e.due_date BETWEEN ?2 AND ?3 AND (?5 = '' OR e.type = ?5)
		ORDER BY e.due_date, e.id LIMIT ?4`, unitID, from, to, n, typ)
	if err != nil {
		return nil, wrap("entry summaries", err)
	}
	defer rows.Close()
	var out []EntrySummary
	for rows.Next() {
		var e EntrySummary
		var v int64
		if err := rows.Scan(&e.Token, &e.Type, &e.Description, &e.DueDate, &e.PayDay, &e.Contact, &e.Account, &v,
			&e.Category, &e.Group, &e.Competence, &e.Document, &e.ContactRegister, &e.Bank, &e.Agency, &e.AccountNumber,
			&e.Instalment, &e.Instalments, &e.GroupToken); err != nil {
			return nil, wrap("entry summaries", err)
		}
		e.Value = cents(v)
		out = append(out, e)
	}
	return out, rows.Err()
}

// OpenCharge is an open charge a statement line may be paired with, with
// the facts what it asks on a day is decided by (Due).
type OpenCharge struct {
	OrderToken, Code, Customer, DueDate string
	Installment                         int
	Amount                              Money
	Due                                 ChargeDue
}

// OpenCharges answers the unit's pending and overdue charges, by due date.
func (db *DB) OpenCharges(ctx context.Context, unitID int64, n int) ([]OpenCharge, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT o.token, o.cod_orders, c.display_name, ch.due_date, ch.installment, ch.amount,
			ch.agreement_id IS NOT NULL, COALESCE(ch.provider_ref, ''), `+strings.ReplaceAll(frozenSelect, "c.id", "ch.id")+`, `+termsSelect+`,
			`+strings.ReplaceAll(receivedSelect, "c.id", "ch.id")+`
		FROM charges ch JOIN sales_orders o ON o.id = ch.order_id JOIN contacts c ON c.id = o.contact_id
		LEFT JOIN bank_agreements a ON a.id = ch.agreement_id
		WHERE o.unit_id = ? AND ch.status IN ('PENDING', 'OVERDUE') ORDER BY ch.due_date, ch.id LIMIT ?`, unitID, n)
	if err != nil {
		return nil, wrap("open charges", err)
	}
	defer rows.Close()
	var out []OpenCharge
	for rows.Next() {
		var c OpenCharge
		var amount, received, frozen, terms string
		if err := rows.Scan(&c.OrderToken, &c.Code, &c.Customer, &c.DueDate, &c.Installment, &amount, &c.Due.Registered, &c.Due.Ref, &frozen,
			&terms, &received); err != nil {
			return nil, wrap("open charges", err)
		}
		if err := errors.Join(c.Due.readFrozen(frozen), c.Due.readTerms(terms)); err != nil {
			return nil, wrap("open charges", err)
		}
		if c.Amount, err = ParseMoney(amount); err != nil {
			return nil, wrap("open charges", err)
		}
		if err := c.Due.readReceived(received); err != nil {
			return nil, wrap("open charges", err)
		}
		c.Due.Amount, c.Due.DueDate = c.Amount, c.DueDate
		out = append(out, c)
	}
	return out, rows.Err()
}
