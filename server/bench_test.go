package server

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"fincom/server/web"
	"fincom/store"
)

// The hot routes' benchmarks (issue 10) come in pairs: BenchmarkX drives
// the real handler (routing, auth, decoding, store, envelope) and
// BenchmarkXBaseline runs the same SQL and the same JSON encoding with
// database/sql and encoding/json alone, so fincom's overhead is the ratio
// of the two from one run:
//
//	go test ./server -run '^$' -bench . -benchtime 3s
//
// Baselines copy the store's SQL text; a change there must be copied here.

// benchPost posts body to path through h and fails on anything but 200.
// The answer goes to a sink that keeps only its status and first bytes, as
// a socket would take it: a recorder growing a buffer for a megabyte
// answer written in pieces would charge fincom for the test's memory.
func benchPost(b *testing.B, h http.Handler, path, body string) {
	w := &sink{header: http.Header{}}
	req := httptest.NewRequest(http.MethodPost, web.Prefix+path, strings.NewReader(body))
	h.ServeHTTP(w, req)
	if w.status != http.StatusOK {
		b.Fatalf("%s: %d %s", path, w.status, w.head)
	}
}

// sink is a ResponseWriter that discards the body.
type sink struct {
	header http.Header
	status int
	head   []byte // the first 512 bytes, for failure messages
	n      int
}

func (s *sink) Header() http.Header { return s.header }

func (s *sink) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

func (s *sink) Write(b []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	if len(s.head) < 512 {
		s.head = append(s.head, b[:min(len(b), 512-len(s.head))]...)
	}
	s.n += len(b)
	return len(b), nil
}

// bareDB opens a domain file with the pragmas store uses (WAL, full
// durability), without fincom: a single writer, or query-only readers.
func bareDB(b *testing.B, path string, writer bool) *sql.DB {
	b.Helper()
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(ON)" +
		"&_pragma=secure_delete(ON)&_pragma=synchronous(FULL)"
	if writer {
		dsn += "&_txlock=immediate"
	} else {
		dsn += "&_pragma=query_only(ON)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		b.Fatal(err)
	}
	if writer {
		db.SetMaxOpenConns(1)
	} else {
		db.SetMaxOpenConns(4)
		db.SetMaxIdleConns(4)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// bareWrite encodes v as the server's envelope writer did before jsonenc
// (encoding/json without HTML escaping into a buffer, then one write) and
// returns the bytes: the baselines' share of encoding.
func bareWrite(b *testing.B, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b.Fatal(err)
	}
	w := &sink{header: http.Header{}}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(buf.Bytes())
	return buf.Bytes()
}

// bareData is the success envelope of a listing.
type bareData struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

// sameAnswer fails the baseline unless it answers what the handler
// answers, byte for byte: a baseline that did less work would flatter
// fincom.
func sameAnswer(b *testing.B, h http.Handler, path, body string, bare []byte) {
	b.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, web.Prefix+path, strings.NewReader(body)))
	if !bytes.Equal(rec.Body.Bytes(), bare) {
		got, want := rec.Body.String(), string(bare)
		for i := 0; i < min(len(got), len(want)); i++ {
			if got[i] != want[i] {
				got, want = got[max(0, i-200):min(len(got), i+200)], want[max(0, i-200):min(len(want), i+200)]
				break
			}
		}
		b.Fatalf("baseline differs from %s:\nhandler: %s\nbaseline: %s", path, got, want)
	}
}

// copyHistory gives a table's history: every row the seeding wrote is
// copied copies times with plain SQL, copy k with the set columns
// replaced by SQL expressions in which $k is k (dates k months earlier,
// tokens made unique). It is a benchmark's setup, not the product's write
// path: seeding 100,000 rows through the store takes minutes.
func copyHistory(b *testing.B, ds *store.Domains, path, table string, copies int, set map[string]string) {
	b.Helper()
	ds.CloseIdle(0)
	db := bareDB(b, path, true)
	rows, err := db.Query(`SELECT name FROM pragma_table_info(?) WHERE name <> 'id' ORDER BY cid`, table)
	if err != nil {
		b.Fatal(err)
	}
	var cols []string
	for rows.Next() {
		var c string
		rows.Scan(&c)
		cols = append(cols, c)
	}
	rows.Close()
	var last int64
	if err := db.QueryRow(`SELECT max(id) FROM "` + table + `"`).Scan(&last); err != nil {
		b.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for k := 1; k <= copies; k++ {
		sel := make([]string, len(cols))
		for i, c := range cols {
			sel[i] = c
			if e, ok := set[c]; ok {
				sel[i] = strings.ReplaceAll(e, "$k", strconv.Itoa(k))
			}
		}
		q := fmt.Sprintf(`INSERT INTO "%s" (%s) SELECT %s FROM "%s" WHERE id <= %d`, table, strings.Join(cols, ", "), strings.Join(sel, ", "), table, last)
		if _, err := tx.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	db.Close()
}

// acquire opens the fixture's domain for seeding through the store.
func acquire(b testing.TB, ds *store.Domains) (*store.DB, func()) {
	b.Helper()
	db, release, err := ds.Acquire(context.Background(), "acme")
	if err != nil {
		b.Fatal(err)
	}
	return db, release
}
