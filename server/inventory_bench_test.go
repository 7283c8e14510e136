package server

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/store"
)

// BenchmarkInventoryReports sums a year of 200,000 movements (200
// products, two years of history) by product, month and type through the
// real handler. The movements are seeded with plain SQL in one
// transaction: a benchmark's setup, not the product's write path.
func BenchmarkInventoryReports(b *testing.B) {
	s, ds := newTestServer(b)
	ctx := context.Background()
	db, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		b.Fatal(err)
	}
	var products []string
	for i := 0; i < 200; i++ {
		tok, err := db.InsertProduct(ctx, 1, store.ProductFields{Description: fmt.Sprintf("Produto %03d", i), Type: "product", UsageType: "00",
			MonetaryValue: store.NewMoney(decimal.NewFromInt(10))})
		if err != nil {
			b.Fatal(err)
		}
		products = append(products, tok)
	}
	release()
	ds.Close()
	path := filepath.Join(ds.Dir(), "acme.db")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	tx, _ := raw.Begin()
	stmt, err := tx.Prepare(`INSERT INTO inventory_movements (token, unit_id, product_id, type, quantity, quantity_milli, unitary_value, total_value,
		date_in_out, created_at, updated_at) VALUES (?, 1, (SELECT id FROM products WHERE token = ?), ?, ?, ?, ?, ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 200_000; i++ {
		typ := "in"
		if i%3 == 0 {
			typ = "out"
		}
		q := decimal.New(int64(1+i%50), 0)
		v := decimal.New(int64(100+i%900), -2)
		if _, err := stmt.Exec(fmt.Sprintf("m-%d", i), products[i%200], typ, q.String(), q.IntPart()*1000, v.StringFixed(2), q.Mul(v).String(),
			start.AddDate(0, 0, i%730).Format(time.DateOnly)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	raw.Close()
	h := s.Handler()
	for _, typ := range []string{"quantity", "monetary_value"} {
		body := `{` + expand(auth) + `,"year":2026,"type_data":"` + typ + `"}`
		b.Run(typ, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					benchPost(b, h, "/get_inventory_reports", body)
				}
			})
		})
		bare := bareDB(b, path, false)
		sameAnswer(b, h, "/get_inventory_reports", body, bareInventoryReport(b, bare, typ == "monetary_value"))
		b.Run(typ+"_baseline", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					bareInventoryReport(b, bare, typ == "monetary_value")
				}
			})
		})
	}
}

type bareReportRow struct {
	Product  string `json:"product"`
	Month    string `json:"month"`
	MonthNum int    `json:"month_num"`
	Total    string `json:"total"`
	Type     string `json:"type"`
}

// bareInventoryReport runs store.InventoryReport's SQL and the same answer
// with database/sql, shopspring/decimal and encoding/json alone.
func bareInventoryReport(b *testing.B, db *sql.DB, byValue bool) []byte {
	sel, group := `SUM(m.quantity_milli)`, `GROUP BY p.id, month, m.type`
	if byValue {
		sel, group = `m.total_value`, ``
	}
	rows, err := db.Query(`
		SELECT p.description, p.id, CAST(substr(m.date_in_out, 6, 2) AS INTEGER) AS month, m.type, `+sel+`
		FROM inventory_movements m JOIN products p ON p.id = m.product_id
		WHERE m.unit_id = ? AND m.active = 1 AND m.date_in_out BETWEEN ? AND ? `+group+`
		ORDER BY p.sort_key, p.id, month, m.type`, 1, "2026-01-01", "2026-12-31")
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	months := [...]string{"", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	out := []bareReportRow{}
	var totals []decimal.Decimal
	type key struct {
		product int64
		month   int
		typ     string
	}
	var last key
	for rows.Next() {
		var r bareReportRow
		var k key
		var v string
		if err := rows.Scan(&r.Product, &k.product, &k.month, &k.typ, &v); err != nil {
			b.Fatal(err)
		}
		d, _ := decimal.NewFromString(v)
		if !byValue {
			d = d.Shift(-3)
		} else if len(out) > 0 && k == last {
			totals[len(totals)-1] = totals[len(totals)-1].Add(d)
			continue
		}
		last = k
		r.MonthNum, r.Month, r.Type = k.month, months[k.month], k.typ
		out = append(out, r)
		totals = append(totals, d)
	}
	for i := range out {
		out[i].Total = totals[i].String()
	}
	return bareWrite(b, struct {
		Success bool            `json:"success"`
		Message string          `json:"message"`
		Data    []bareReportRow `json:"data"`
	}{true, "Inventory report generated successfully.", out})
}
