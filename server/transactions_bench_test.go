package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/store"
)

// monthEntries is how many entries November 2026 holds, whatever the
// history's size.
const monthEntries = 1_000

// seedEntries gives unit A n entries: monthEntries in November 2026 and the
// rest spread evenly over the 1,000 days before, through the store, in a
// fresh copy of the fixture.
func seedEntries(b *testing.B, n int) (*Server, string) {
	b.Helper()
	s, ds := newTestServer(b)
	ctx := context.Background()
	db, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		b.Fatal(err)
	}
	defer release()
	units, _ := db.Units(ctx)
	last := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		typ := "out"
		if i%3 == 0 {
			typ = "in"
		}
		due := last.AddDate(0, 0, -(i % 30)).Format(time.DateOnly)
		if i >= monthEntries {
			due = last.AddDate(0, 0, -30-((i-monthEntries)*1000/(n-monthEntries))).Format(time.DateOnly)
		}
		f := store.EntryFields{Type: typ, Description: fmt.Sprintf("Lançamento %d", i), DueDate: due, CompetenceDate: due, Active: true,
			Value: store.NewMoney(decimal.New(int64(1000+i%50000), -2)), ContactToken: fx.tokens["contact1"]}
		if i%2 == 0 {
			f.PayDay, f.BankAccountToken = due, fx.tokens["account1"]
		}
		if _, err := db.InsertEntry(ctx, units[0].ID, f, nil, ""); err != nil {
			b.Fatal(err)
		}
	}
	return s, filepath.Join(ds.Dir(), "acme.db")
}

// BenchmarkTransactions lists one month and one year through the real
// handler, over a history of 20,000 and of 100,000 entries: the month's
// cost must not grow with the history (index entries_unit_due).
func BenchmarkTransactions(b *testing.B) {
	for _, n := range []int{20_000, 100_000} {
		s, path := seedEntries(b, n)
		h := s.Handler()
		for _, p := range []struct{ name, body string }{
			{"month", `{` + expand(auth) + `,"from_date":"2026-11-01","to_date":"2026-11-30"}`},
			{"year", `{` + expand(auth) + `,"from_date":"2025-12-01","to_date":"2026-11-30"}`},
		} {
			b.Run(fmt.Sprintf("%s_of_%d", p.name, n), func(b *testing.B) {
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						benchPost(b, h, "/transactions", p.body)
					}
				})
			})
		}
		b.Run(fmt.Sprintf("baseline_month_of_%d", n), func(b *testing.B) {
			benchBareTransactions(b, path, "2026-11-01", "2026-11-30")
		})
	}
}

// benchBareTransactions runs the listing's SQL and JSON encoding without
// fincom's layers.
func benchBareTransactions(b *testing.B, path, from, to string) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=query_only(ON)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(4)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rows, err := db.Query(`
				SELECT e.token, e.description, e.due_date, e.pay_day, e.value, e.type, e.active, un.token, c.display_name
				FROM entries e JOIN units un ON un.id = e.unit_id LEFT JOIN contacts c ON c.id = e.contact_id
				WHERE e.unit_id = 1 AND e.due_date BETWEEN ? AND ? ORDER BY e.due_date, e.id`, from, to)
			if err != nil {
				b.Fatal(err)
			}
			var out []map[string]any
			for rows.Next() {
				var tok, desc, due, value, typ, unit string
				var pay, contact sql.NullString
				var active bool
				rows.Scan(&tok, &desc, &due, &pay, &value, &typ, &active, &unit, &contact)
				out = append(out, map[string]any{"id": tok, "description": desc, "due_date": due, "pay_day": pay.String,
					"value": value, "type": typ, "active": active, "id_token_unit": unit, "contact_name": contact.String})
			}
			rows.Close()
			json.NewEncoder(io.Discard).Encode(map[string]any{"success": true, "data": out})
		}
	})
}
