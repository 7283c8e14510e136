package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// newUnit is a fresh domain "acme" with one unit, held for the test.
func newUnit(t *testing.T) (*DB, Unit) {
	t.Helper()
	ctx := context.Background()
	ds := newDomains(t)
	if err := ds.Create(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	u, err := db.CreateUnit(ctx, UnitInput{Name: "Matriz"})
	if err != nil {
		t.Fatal(err)
	}
	return db, u
}

// TestContactSearch proves that the trigram index only narrows the search:
// what a search finds is what LIKE '%text%' found before the index, for
// short texts (no index), quotes, wildcards and accents, and after renames,
// disabling and deletion.
func TestContactSearch(t *testing.T) {
	ctx := context.Background()
	db, u := newUnit(t)
	tokens := map[string]string{}
	for i, c := range []ContactFields{
		{Type: "natural_person", Register: "52998224725", FullName: "Ana Maria d'Ávila"},
		{Type: "legal", Register: "11444777000161", SocialReason: "Padaria 100% Pão Ltda", FantasyName: "Pão_Quente"},
		{Type: "natural_person", Register: "11144477735", FullName: `João "Jota" Silva`},
		{Type: "legal", Register: "11222333000181", SocialReason: "ÉDEN Comércio", FantasyName: "eden"},
	} {
		tok, err := db.InsertContact(ctx, u.ID, c)
		if err != nil {
			t.Fatal(i, err)
		}
		tokens[c.Register] = tok
	}
	find := func(search string) []string {
		t.Helper()
		cs, err := db.Contacts(ctx, u.ID, ContactFilter{Search: search})
		if err != nil {
			t.Fatalf("%q: %v", search, err)
		}
		var regs []string
		for _, c := range cs {
			regs = append(regs, c.Register)
		}
		slices.Sort(regs)
		return regs
	}
	for _, c := range []struct {
		search string
		want   []string
	}{
		{"an", []string{"52998224725"}},      // two letters: no index
		{"MARIA", []string{"52998224725"}},   // ASCII case folds
		{"D'ÁV", []string{"52998224725"}},    // quote, accent, ASCII case
		{"d'áv", nil},                        // LIKE folds ASCII only
		{"100%", []string{"11444777000161"}}, // % is a letter
		{"0% P", []string{"11444777000161"}},
		{"o_q", []string{"11444777000161"}}, // _ is a letter
		{"o%q", nil},
		{`"Jota"`, []string{"11144477735"}}, // double quotes
		{`"jota" silva`, []string{"11144477735"}},
		{"eden", []string{"11222333000181"}}, // the fantasy name
		{"éden", nil},                        // É is not é for LIKE
		{"ria\nPad", nil},                    // names do not run together
		{"Silva\x00", nil},                   // a NUL finds nothing
		{"zzz", nil},
	} {
		if got := find(c.search); !slices.Equal(got, c.want) {
			t.Errorf("search %q = %v, want %v", c.search, got, c.want)
		}
	}
	if err := db.UpdateContact(ctx, u.ID, tokens["11144477735"], func(f *ContactFields) error {
		f.FullName = "João Souza"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := find("Silva"); got != nil {
		t.Errorf("old name still found: %v", got)
	}
	if got := find("Souza"); !slices.Equal(got, []string{"11144477735"}) {
		t.Errorf("new name = %v", got)
	}
	if err := db.SetContactActive(ctx, u.ID, tokens["52998224725"], false); err != nil {
		t.Fatal(err)
	}
	if got := find("Maria"); got != nil {
		t.Errorf("disabled contact found: %v", got)
	}
	if err := db.CompactSearch(ctx); err != nil {
		t.Fatal(err)
	}
	if got := find("Souza"); !slices.Equal(got, []string{"11144477735"}) {
		t.Errorf("after compacting = %v", got)
	}
	// Nothing changed since: the next compaction writes nothing.
	var before, after int64
	db.w.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before)
	if err := db.CompactSearch(ctx); err != nil {
		t.Fatal(err)
	}
	db.w.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after)
	if after != before {
		t.Errorf("an idle compaction wrote %d rows", after-before)
	}
	if err := db.ResetEmpty(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM contacts_fts WHERE contacts_fts MATCH '"Souza"'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("index after reset: %d %v", n, err)
	}
}

// TestGroupCommit: writes committed together (see DB.write) keep their
// own outcomes: a duplicate in the middle of a batch fails alone, every
// other insert is committed, and nothing of the failed one remains.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	db, u := newUnit(t)
	if _, err := db.InsertContact(ctx, u.ID, ContactFields{Type: "natural_person", Register: "52998224725", FullName: "Primeira"}); err != nil {
		t.Fatal(err)
	}
	const n = 200
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			<-start
			reg := fmt.Sprintf("R%05d", i)
			if i%5 == 0 {
				reg = "52998224725" // taken: fails, in whatever batch it lands
			}
			_, err := db.InsertContact(ctx, u.ID, ContactFields{Type: "natural_person", Register: reg, FullName: fmt.Sprintf("Lote %d", i)})
			errs <- err
		}()
	}
	close(start)
	dup := 0
	for i := 0; i < n; i++ {
		switch err := <-errs; {
		case errors.Is(err, ErrDuplicate):
			dup++
		case err != nil:
			t.Fatal(err)
		}
	}
	var rows int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM contacts`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if dup != n/5 || rows != 1+n-n/5 {
		t.Fatalf("%d duplicates refused, %d rows; want %d and %d", dup, rows, n/5, 1+n-n/5)
	}
	// The search index holds the committed contacts and only them (it is
	// written once per batch, after the savepoints), and its queue is
	// empty again.
	var indexed, queued int
	if err := db.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM contacts_fts WHERE contacts_fts MATCH '"Lote"'),
		(SELECT count(*) FROM contacts_fts_pending)`).Scan(&indexed, &queued); err != nil {
		t.Fatal(err)
	}
	if indexed != n-n/5 || queued != 0 {
		t.Fatalf("index holds %d of %d inserted, %d still queued", indexed, n-n/5, queued)
	}
}

// TestWritePanic: a write that panics answers an error and rolls back,
// alone or in a batch; the writer and the other writes go on.
func TestWritePanic(t *testing.T) {
	ctx := context.Background()
	db, u := newUnit(t)
	boom := func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO projects (token, unit_id, name, created_at, updated_at) VALUES ('p-boom', ?, 'x', 'x', 'x')`, u.ID); err != nil {
			return err
		}
		var m map[string]int
		m["x"] = 1 // panics
		return nil
	}
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		go func() {
			if i%4 == 0 {
				errs <- db.write(ctx, boom)
				return
			}
			_, err := db.InsertContact(ctx, u.ID, ContactFields{Type: "natural_person", Register: fmt.Sprintf("P%03d", i), FullName: "Pânico"})
			errs <- err
		}()
	}
	failed := 0
	for i := 0; i < 20; i++ {
		if err := <-errs; err != nil {
			if !strings.Contains(err.Error(), "write panicked") {
				t.Fatal(err)
			}
			failed++
		}
	}
	var projects, contacts int
	db.r.QueryRowContext(ctx, `SELECT count(*) FROM projects WHERE token = 'p-boom'`).Scan(&projects)
	db.r.QueryRowContext(ctx, `SELECT count(*) FROM contacts`).Scan(&contacts)
	if failed != 5 || projects != 0 || contacts != 15 {
		t.Fatalf("%d failed, %d half-written projects, %d contacts", failed, projects, contacts)
	}
}

// TestCallerGoneDuringItsWrite: a caller that leaves while its statement
// runs inside a batch fails neither the batch's other writes nor its own.
// modernc interrupts a statement whose context ends, and SQLite rolls back
// the whole transaction of an interrupted write: every write of the batch
// used to answer an error for one client's departure.
func TestCallerGoneDuringItsWrite(t *testing.T) {
	ctx := context.Background()
	db, u := newUnit(t)
	insert := func(ctx context.Context, tx *sql.Tx, token, from string) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO projects (token, unit_id, name, created_at, updated_at)
			SELECT ?, ?, 'x', 'x', 'x' `+from, token, u.ID)
		return err
	}
	// Hold the writer so that the writes below queue up and share a batch.
	held, release := make(chan struct{}), make(chan struct{})
	go db.write(ctx, func(context.Context, *sql.Tx, time.Time) error { close(held); <-release; return nil })
	<-held

	var mu sync.Mutex
	txs := map[*sql.Tx]int{}
	var goneTx *sql.Tx
	seen := func(tx *sql.Tx) { mu.Lock(); txs[tx]++; mu.Unlock() }
	var started sync.WaitGroup
	started.Add(11)
	errs := make(chan error, 11)
	gone, leave := context.WithCancel(ctx)
	go func() {
		started.Done()
		errs <- db.write(gone, func(ctx context.Context, tx *sql.Tx, _ time.Time) error {
			seen(tx)
			goneTx = tx
			time.AfterFunc(10*time.Millisecond, leave)
			// Some hundreds of milliseconds of SQLite's work: the caller
			// leaves in the middle of it.
			return insert(ctx, tx, "p-gone", `FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 500000) SELECT max(x) FROM c)`)
		})
	}()
	for i := 0; i < 10; i++ {
		go func() {
			started.Done()
			errs <- db.write(ctx, func(ctx context.Context, tx *sql.Tx, _ time.Time) error {
				seen(tx)
				return insert(ctx, tx, fmt.Sprintf("p-%d", i), "")
			})
		}()
	}
	started.Wait()
	time.Sleep(50 * time.Millisecond) // all eleven wait on the writer
	close(release)
	for i := 0; i < 11; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if gone.Err() == nil {
		t.Fatal("the caller did not leave during its write")
	}
	if txs[goneTx] < 2 {
		t.Fatalf("the leaving write had its transaction to itself: %v", txs)
	}
	var n int
	db.r.QueryRowContext(ctx, `SELECT count(*) FROM projects WHERE token LIKE 'p-%'`).Scan(&n)
	if n != 11 {
		t.Fatalf("%d of 11 projects written", n)
	}
}
