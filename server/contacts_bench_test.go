package server

import (
	"context"
	"database/sql"
	"fmt"
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

// benchServer serves a copy of the fixture whose unit A holds 10,000 more
// contacts: 200 through the store, one of them tagged "grupo-7", and 49
// copies, so a search for the tag finds 50; then the daily jobs' search
// index compaction.
func benchServer(b *testing.B) (http.Handler, string) {
	b.Helper()
	s, ds := newTestServer(b)
	db, release := acquire(b, ds)
	units, _ := db.Units(context.Background())
	for i := 0; i < 200; i++ {
		name := fmt.Sprintf("Cliente %05d", i)
		if i == 7 {
			name += " grupo-7"
		}
		if _, err := db.InsertContact(context.Background(), units[0].ID, store.ContactFields{Type: "natural_person",
			Register: cpf(100_000 + i), FullName: name, Email: fmt.Sprintf("c%d@example.com", i), Phone: "11999990000"}); err != nil {
			b.Fatal(err)
		}
	}
	release()
	path := filepath.Join(ds.Dir(), "acme.db")
	copyHistory(b, ds, path, "contacts", 49, map[string]string{"token": `token || '-c$k'`, "register": `register || '-$k'`})
	// The search index as the daily jobs leave it.
	db, release = acquire(b, ds)
	if err := db.CompactSearch(context.Background()); err != nil {
		b.Fatal(err)
	}
	release()
	return s.Handler(), path
}

var contactSearches = []struct{ name, body string }{
	{"all_10000", ``},
	{"search_50_of_10000", `,"search":"grupo-7"`},
}

// BenchmarkGetContacts lists through the real handler over 10,000
// contacts: the whole list, and a search that finds 50.
func BenchmarkGetContacts(b *testing.B) {
	h, _ := benchServer(b)
	for _, bc := range contactSearches {
		b.Run(bc.name, func(b *testing.B) {
			body := `{` + expand(auth) + bc.body + `}`
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					benchPost(b, h, "/get_contacts", body)
				}
			})
		})
	}
}

// BenchmarkGetContactsBaseline runs store.Contacts' SQL and the same answer
// with database/sql and encoding/json alone.
func BenchmarkGetContactsBaseline(b *testing.B) {
	h, path := benchServer(b)
	db := bareDB(b, path, false)
	for _, bc := range contactSearches {
		b.Run(bc.name, func(b *testing.B) {
			search := bc.body != ""
			sameAnswer(b, h, "/get_contacts", `{`+expand(auth)+bc.body+`}`, bareContacts(b, db, search))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					bareContacts(b, db, search)
				}
			})
		})
	}
}

type bareContact struct {
	Token       string  `json:"token"`
	Type        string  `json:"type"`
	Register    string  `json:"register"`
	ContactName *string `json:"contact_name"`
	CompanyName *string `json:"company_name"`
	Phone       *string `json:"phone"`
	Email       *string `json:"email"`
	Observation *string `json:"observation"`
	Kind        string  `json:"kind"`
}

func bareContacts(b *testing.B, db *sql.DB, search bool) []byte {
	q, args := `SELECT token, type, register, display_name, social_reason, phone, email, observation, coalesce(kind, 'both')
		FROM contacts WHERE unit_id = ? AND active = 1 ORDER BY sort_key, id`, []any{1}
	if search {
		q, args = `SELECT token, type, register, display_name, social_reason, phone, email, observation, coalesce(kind, 'both')
		FROM contacts_fts CROSS JOIN contacts ON contacts.id = contacts_fts.rowid WHERE unit_id = ? AND active = 1 AND contacts_fts MATCH ? AND (instr(lower(coalesce(full_name, '') || char(10) || coalesce(social_reason, '') || char(10) || coalesce(fantasy_name, '')), ?) > 0 OR instr(fincom_fold(coalesce(full_name, '') || char(10) || coalesce(social_reason, '') || char(10) || coalesce(fantasy_name, '')), ?) > 0) ORDER BY sort_key, id`,
			[]any{1, `"grupo-7"`, "grupo-7", "grupo-7"}
	}
	rows, err := db.Query(q, args...)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	out := []bareContact{}
	for rows.Next() {
		var c bareContact
		if err := rows.Scan(&c.Token, &c.Type, &c.Register, &c.ContactName, &c.CompanyName, &c.Phone, &c.Email, &c.Observation, &c.Kind); err != nil {
			b.Fatal(err)
		}
		out = append(out, c)
	}
	return bareWrite(b, bareData{true, out})
}

// BenchmarkInsertContact inserts through the real handler into a unit that
// already holds 10,000 contacts, with full durability (an fsync per
// write).
func BenchmarkInsertContact(b *testing.B) {
	h, _ := benchServer(b)
	var n atomic.Int64
	start := time.Now()
	b.ResetTimer()
	b.SetParallelism(16) // 32 writers on 2 cores, as the load script's 32 connections
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			benchPost(b, h, "/insert_contact", `{`+expand(auth)+fmt.Sprintf(`,"type":"natural_person","register":%q,"fullName":"Novo %d"}`, cpf(500_000_000+int(i)), i))
		}
	})
	b.ReportMetric(float64(n.Load())/time.Since(start).Seconds(), "writes/s")
}

// BenchmarkInsertContactBaseline runs store.InsertContact's statement in
// one immediate transaction on the same file with the same durability,
// and encodes the same answer.
func BenchmarkInsertContactBaseline(b *testing.B) {
	_, path := benchServer(b)
	db := bareDB(b, path, true)
	var n atomic.Int64
	start := time.Now()
	b.ResetTimer()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			tx, err := db.Begin()
			if err != nil {
				b.Fatal(err)
			}
			now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
			token := fmt.Sprintf("bench-%d", i)
			name := fmt.Sprintf("Novo %d", i)
			if _, err := tx.Exec(`INSERT INTO contacts (token, unit_id, display_name, type, register, full_name, social_reason, fantasy_name, birth_date, phone, email,
	address, number, complement, neighborhood, city, state, zip_code, observation, data_bank, city_ibge, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, token, 1, name, "natural_person",
				cpf(500_000_000+int(i)), name, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, now, now); err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			bareWrite(b, struct {
				Success bool   `json:"success"`
				Message string `json:"message"`
				Token   string `json:"token"`
			}{true, "Contact created successfully.", token})
		}
	})
	b.ReportMetric(float64(n.Load())/time.Since(start).Seconds(), "writes/s")
}
