package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"fincom/store"
)

// cpf returns the valid CPF whose first nine digits are n.
func cpf(n int) string {
	d := []byte(fmt.Sprintf("%09d", n%1_000_000_000))
	for k := 9; k <= 10; k++ {
		sum := 0
		for i := 0; i < k; i++ {
			sum += int(d[i]-'0') * (k + 1 - i)
		}
		d = append(d, byte('0'+sum*10%11%10))
	}
	return string(d)
}

// benchServer serves a copy of the fixture whose unit A holds n more
// contacts; every 200th is tagged "grupo-7" so a search finds n/200.
func benchServer(b *testing.B, n int) (http.Handler, string) {
	b.Helper()
	s, ds := newTestServer(b)
	db, release, err := ds.Acquire(context.Background(), "acme")
	if err != nil {
		b.Fatal(err)
	}
	units, _ := db.Units(context.Background())
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("Cliente %05d", i)
		if i%200 == 0 {
			name += " grupo-7"
		}
		if _, err := db.InsertContact(context.Background(), units[0].ID, store.ContactFields{Type: "natural_person",
			Register: cpf(100_000 + i), FullName: name, Email: fmt.Sprintf("c%d@example.com", i), Phone: "11999990000"}); err != nil {
			b.Fatal(err)
		}
	}
	release()
	return s.Handler(), filepath.Join(ds.Dir(), "acme.db")
}

// BenchmarkGetContacts lists through the real handler over 10,000
// contacts: the whole list, and a search that finds 50.
func BenchmarkGetContacts(b *testing.B) {
	h, _ := benchServer(b, 10_000)
	for _, bc := range []struct{ name, body string }{
		{"all10000", `{` + expand(auth) + `}`},
		{"search50", `{` + expand(auth) + `,"search":"grupo-7"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					benchPost(b, h, "/get_contacts", bc.body)
				}
			})
		})
	}
}

// BenchmarkGetContactsBaseline runs the same SQL and JSON encoding with
// none of fincom's layers (no routing, auth, envelope or decoding), so the
// overhead is the ratio of the two.
func BenchmarkGetContactsBaseline(b *testing.B) {
	_, path := benchServer(b, 10_000)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=query_only(ON)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(4)
	for _, bc := range []struct{ name, where string }{
		{"all10000", ""},
		{"search50", ` AND (full_name LIKE '%grupo-7%' OR social_reason LIKE '%grupo-7%' OR fantasy_name LIKE '%grupo-7%')`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					rows, err := db.Query(`SELECT token, type, register, display_name, social_reason, phone, email, observation
						FROM contacts WHERE unit_id = 1 AND active = 1` + bc.where + ` ORDER BY display_name, id`)
					if err != nil {
						b.Fatal(err)
					}
					var out []store.Contact
					for rows.Next() {
						var c store.Contact
						rows.Scan(&c.Token, &c.Type, &c.Register, &c.ContactName, &c.CompanyName, &c.Phone, &c.Email, &c.Observation)
						out = append(out, c)
					}
					rows.Close()
					json.NewEncoder(io.Discard).Encode(map[string]any{"success": true, "data": out})
				}
			})
		})
	}
}

// BenchmarkInsertContact inserts through the real handler into a unit that
// already holds 10,000 contacts, with full durability (fsync per write).
func BenchmarkInsertContact(b *testing.B) {
	h, _ := benchServer(b, 10_000)
	var n atomic.Int64
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			benchPost(b, h, "/insert_contact", `{`+expand(auth)+fmt.Sprintf(`,"type":"natural_person","register":%q,"fullName":"Novo %d"}`, cpf(500_000_000+int(i)), i))
		}
	})
	b.ReportMetric(float64(n.Load())/time.Since(start).Seconds(), "writes/s")
}
