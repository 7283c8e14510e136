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

// BenchmarkInventoryReports reports a year of 200,000 movements (200
// products, two years of history) by product, month and type through the
// real handler: it reads the monthly totals kept with the movements, so
// its cost does not grow with the history. The movements and their totals
// are seeded with plain SQL in one transaction: a benchmark's setup, not
// the product's write path (TestInventoryTotalsFollowMovements holds the
// totals equal to the movements).
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
	type key struct {
		product     string
		year, month int
		typ         string
	}
	type sum struct {
		n, q int64
		v    decimal.Decimal
	}
	sums := map[key]*sum{}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 200_000; i++ {
		typ := "in"
		if i%3 == 0 {
			typ = "out"
		}
		q := decimal.New(int64(1+i%50), 0)
		v := decimal.New(int64(100+i%900), -2)
		day := start.AddDate(0, 0, i%730)
		if _, err := stmt.Exec(fmt.Sprintf("m-%d", i), products[i%200], typ, q.String(), q.IntPart()*1000, v.StringFixed(2), q.Mul(v).String(),
			day.Format(time.DateOnly)); err != nil {
			b.Fatal(err)
		}
		k := key{products[i%200], day.Year(), int(day.Month()), typ}
		if sums[k] == nil {
			sums[k] = &sum{}
		}
		sums[k].n, sums[k].q, sums[k].v = sums[k].n+1, sums[k].q+q.IntPart()*1000, sums[k].v.Add(q.Mul(v))
	}
	for k, t := range sums {
		if _, err := tx.Exec(`INSERT INTO inventory_month_totals (product_id, year, month, type, movements, quantity_milli, total_value)
			VALUES ((SELECT id FROM products WHERE token = ?), ?, ?, ?, ?, ?, ?)`, k.product, k.year, k.month, k.typ, t.n, t.q, t.v.String()); err != nil {
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
	rows, err := db.Query(`
		SELECT p.description, t.month, t.type, t.quantity_milli, t.total_value
		FROM inventory_month_totals t JOIN products p ON p.id = t.product_id
		WHERE p.unit_id = ? AND t.year = ?
		ORDER BY p.sort_key, p.id, t.month, t.type`, 1, 2026)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	months := [...]string{"", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	out := []bareReportRow{}
	for rows.Next() {
		var r bareReportRow
		var q int64
		var v string
		if err := rows.Scan(&r.Product, &r.MonthNum, &r.Type, &q, &v); err != nil {
			b.Fatal(err)
		}
		d, _ := decimal.NewFromString(v)
		if !byValue {
			d = decimal.New(q, -3)
		}
		r.Month, r.Total = months[r.MonthNum], d.String()
		out = append(out, r)
	}
	return bareWrite(b, struct {
		Success bool            `json:"success"`
		Message string          `json:"message"`
		Data    []bareReportRow `json:"data"`
	}{true, "Inventory report generated successfully.", out})
}
