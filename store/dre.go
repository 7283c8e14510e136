package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// GroupTotal is what active entries of one direction and DRE group (its
// category's; none for an entry without a category, or of a category
// without a group) add up to in a period.
type GroupTotal struct {
	Group sql.NullInt64
	Type  string // in or out
	Cents int64
}

// Bases of a result. Accrual counts an active sales order as revenue of
// its competence day (its authorized invoice's emission, else the day it
// was made; an order whose invoice was cancelled, none authorized since,
// not at all) and every other entry by its competence date (its due date
// when it has none), paid or not, leaving out the incomes its charges'
// payments booked (the order counts); cash counts paid entries by payment
// date.
const (
	BasisAccrual = "accrual"
	BasisCash    = "cash"
)

// inUnits is the placeholders and arguments of unit_id IN (…).
func inUnits(unitIDs []int64) (string, []any) {
	args := make([]any, 0, len(unitIDs))
	for _, id := range unitIDs {
		args = append(args, id)
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", len(unitIDs)), ", ") + ")", args
}

// orderCompetence is an order's competence day in São Paulo (o: the
// order, i: its authorized invoice, if any).
const orderCompetence = `date(COALESCE(i.issued_at, o.created_at), '-3 hours')`

// ordersOfCompetence are the active orders of the units whose competence
// day falls within from..to (o, i and c, their category, joined).
const ordersOfCompetence = ` FROM sales_orders o LEFT JOIN categories c ON c.id = o.category_id
	LEFT JOIN invoices i ON i.order_id = o.id AND i.status = 'AUTHORIZED'
	WHERE o.unit_id IN %s AND o.active = 1
		AND NOT (i.id IS NULL AND EXISTS (SELECT 1 FROM invoices x WHERE x.order_id = o.id AND x.status = 'CANCELLED'))
		AND ` + orderCompetence + ` BETWEEN ? AND ?`

// GroupTotals sums the units' result within from..to (YYYY-MM-DD,
// inclusive) on basis, by DRE group and direction, in integer cents.
func (db *DB) GroupTotals(ctx context.Context, unitIDs []int64, from, to, basis string) ([]GroupTotal, error) {
	if len(unitIDs) == 0 {
		return nil, nil
	}
	in, args := inUnits(unitIDs)
	day, own := `COALESCE(e.competence_date, e.due_date)`, ` AND e.sales_order_id IS NULL`
	if basis == BasisCash {
		day, own = `e.pay_day`, ``
	}
	rows, err := db.r.QueryContext(ctx, `SELECT c.group_code, e.type, SUM(e.value_cents) FROM entries e LEFT JOIN categories c ON c.id = e.category_id
		WHERE e.unit_id IN `+in+` AND e.active = 1`+own+` AND `+day+` BETWEEN ? AND ?
		GROUP BY c.group_code, e.type ORDER BY c.group_code, e.type`, append(args, from, to)...)
	if err != nil {
		return nil, wrap("group totals", err)
	}
	defer rows.Close()
	var out []GroupTotal
	for rows.Next() {
		var g GroupTotal
		if err := rows.Scan(&g.Group, &g.Type, &g.Cents); err != nil {
			return nil, wrap("group totals", err)
		}
		out = append(out, g)
	}
	return out, wrap("group totals", rows.Err())
}

// SoldOrder is an order counted as revenue on the accrual basis: its
// category's DRE group, what it bills (OrderBill: its value and freight),
// and its authorized invoice's kind and document ("" none, and none read
// outside CRT 3), its tax fields and its unit's CRT, whose notes' taxes
// may deduct.
type SoldOrder struct {
	Group     sql.NullInt64
	Bill      OrderBill
	Kind, XML string
	Taxes     Taxes
	CRT       int
}

// SoldOrders lists the units' orders counted as revenue within from..to
// on the accrual basis (ordersOfCompetence).
func (db *DB) SoldOrders(ctx context.Context, unitIDs []int64, from, to string) ([]SoldOrder, error) {
	if len(unitIDs) == 0 {
		return nil, nil
	}
	in, args := inUnits(unitIDs)
	// A note's document is read only where its taxes deduct (CRT 3).
	rows, err := db.r.QueryContext(ctx, `SELECT c.group_code, o.value, COALESCE(o.freight_total, '0'), o.freight_mode, COALESCE(i.kind, ''),
		CASE WHEN u.crt = 3 THEN COALESCE(i.xml, '') ELSE '' END, o.taxes, COALESCE(u.crt, 0)`+
		strings.Replace(fmt.Sprintf(ordersOfCompetence, in), "WHERE", "JOIN units u ON u.id = o.unit_id WHERE", 1)+` ORDER BY o.id`,
		append(args, from, to)...)
	if err != nil {
		return nil, wrap("sold orders", err)
	}
	defer rows.Close()
	var out []SoldOrder
	for rows.Next() {
		var o SoldOrder
		var taxes string
		if err := rows.Scan(&o.Group, &o.Bill.Value, &o.Bill.Freight, &o.Bill.FreightMode, &o.Kind, &o.XML, &taxes, &o.CRT); err != nil {
			return nil, wrap("sold orders", err)
		}
		if err := json.Unmarshal([]byte(taxes), &o.Taxes); err != nil {
			return nil, wrap("sold orders", err)
		}
		out = append(out, o)
	}
	return out, wrap("sold orders", rows.Err())
}
