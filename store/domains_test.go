package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSwapPausesOnlyItsDomain: while a domain's file is being replaced and
// a request still holds it, that domain's new requests wait and another
// domain answers at once; the waiting requests then see the new file.
func TestSwapPausesOnlyItsDomain(t *testing.T) {
	ctx := context.Background()
	ds := newDomains(t)
	for _, n := range []string{"alpha", "beta"} {
		if err := ds.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := ds.Snapshot(ctx, "alpha", "empty"); err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateUnit(ctx, UnitInput{Name: "Loja", CNPJ: "11222333000181", CityIBGE: "3550308"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ds.ResetTo(ctx, "alpha", "empty", 0) }()
	// The reset waits for the held request.
	time.Sleep(30 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("reset did not wait for the in-flight request: %v", err)
	default:
	}
	start := time.Now()
	if _, rel, err := ds.Acquire(ctx, "beta"); err != nil {
		t.Fatal(err)
	} else {
		rel()
	}
	if d := time.Since(start); d > 20*time.Millisecond {
		t.Fatalf("another domain waited %s", d)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, _, err := ds.Acquire(short, "alpha"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("alpha during its swap: %v", err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	db, release, err = ds.Acquire(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if units, err := db.Units(ctx); err != nil || len(units) != 0 {
		t.Fatalf("after the reset: %v units, %v", len(units), err)
	}
}

// TestRequestRestore: the CLI's copy handed over through DATA/_restore is
// applied by the server side, and a copy of another domain is refused with
// its reason.
func TestRequestRestore(t *testing.T) {
	ctx := context.Background()
	ds := newDomains(t)
	for _, n := range []string{"alpha", "beta"} {
		if err := ds.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	bk := filepath.Join(t.TempDir(), "alpha.bak")
	if err := ds.Backup(ctx, "alpha", bk, false); err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateUnit(ctx, UnitInput{Name: "Loja", CNPJ: "11222333000181", CityIBGE: "3550308"}); err != nil {
		t.Fatal(err)
	}
	release()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
				ds.ApplyRestores(ctx)
			}
		}
	}()
	if err := RequestRestore(ctx, ds.Dir(), "alpha", bk, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	db, release, err = ds.Acquire(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if units, _ := db.Units(ctx); len(units) != 0 {
		t.Fatalf("restore not applied: %d units", len(units))
	}
	release()
	if err := RequestRestore(ctx, ds.Dir(), "beta", bk, 5*time.Second); err == nil {
		t.Fatal("a backup of alpha restored as beta")
	}
	if entries, _ := os.ReadDir(filepath.Join(ds.Dir(), "_restore")); len(entries) != 0 {
		t.Fatalf("left in _restore: %v", entries)
	}
}

// TestSeededTokensSurviveRestarts: a seeded domain's counter is kept in its
// file, so tokens drawn after reopening never repeat earlier ones, and a
// second data directory with the same seed draws the same sequence.
func TestSeededTokensSurviveRestarts(t *testing.T) {
	ctx := context.Background()
	run := func(dir string) []string {
		var tokens []string
		for round := 0; round < 2; round++ {
			ds, err := OpenDomains(dir, Options{Schema: testSchema(t), Seeded: true, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			if round == 0 {
				if err := ds.Create(ctx, "acme"); err != nil {
					t.Fatal(err)
				}
			}
			db, release, err := ds.Acquire(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			u, err := db.CreateUnit(ctx, UnitInput{Name: "Loja", CNPJ: "11222333000181", CityIBGE: "3550308"})
			if err != nil {
				t.Fatal(err)
			}
			tokens = append(tokens, u.Token)
			release()
			ds.Close()
		}
		return tokens
	}
	a, b := run(t.TempDir()), run(t.TempDir())
	if a[0] == a[1] {
		t.Fatalf("a token repeated after a restart: %v", a)
	}
	if a[0] != b[0] || a[1] != b[1] {
		t.Fatalf("two directories with one seed differ: %v %v", a, b)
	}
}

// TestMaxOpen: past Options.MaxOpen, the least recently used idle domain
// closes when another opens; a domain in use stays open.
func TestMaxOpen(t *testing.T) {
	ctx := context.Background()
	ds, err := OpenDomains(t.TempDir(), Options{Schema: testSchema(t), MaxOpen: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	names := []string{"a1", "a2", "a3", "a4", "a5"}
	for _, n := range names {
		if err := ds.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	ds.CloseIdle(0)
	_, hold, err := ds.Acquire(ctx, "a1")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names[1:] {
		_, release, err := ds.Acquire(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		release()
		if c := ds.OpenCount(); c > 3 {
			t.Fatalf("after %s: %d open", n, c)
		}
	}
	ds.mu.Lock()
	_, held := ds.open["a1"]
	_, last := ds.open["a5"]
	_, lru := ds.open["a2"]
	ds.mu.Unlock()
	if !held || !last || lru {
		t.Fatalf("held a1 open %v, last a5 open %v, least recent a2 open %v", held, last, lru)
	}
	hold()
}

// TestAcquireOpensOnce: many requests to a closed domain at once open its
// file once (outside the domains lock) and share it.
func TestAcquireOpensOnce(t *testing.T) {
	ctx := context.Background()
	ds := newDomains(t)
	for _, n := range []string{"a1", "a2"} {
		if err := ds.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	ds.CloseIdle(0)
	got := make(chan *DB, 40)
	for i := 0; i < 40; i++ {
		go func() {
			db, release, err := ds.Acquire(ctx, []string{"a1", "a2"}[i%2])
			if err != nil {
				t.Error(err)
				got <- nil
				return
			}
			defer release()
			got <- db
		}()
	}
	seen := map[*DB]bool{}
	for i := 0; i < 40; i++ {
		seen[<-got] = true
	}
	if len(seen) != 2 || ds.OpenCount() != 2 {
		t.Fatalf("%d handles for 2 domains, %d open", len(seen), ds.OpenCount())
	}
}

// TestCreateWhileAcquired: a domain is made outside the domains' lock; a
// request for it meanwhile waits, then finds it whole or not at all (never
// a file half-migrated), and one create of a name wins.
func TestCreateWhileAcquired(t *testing.T) {
	ctx := context.Background()
	ds := newDomains(t)
	const n = 10
	var wg sync.WaitGroup
	var created atomic.Int32
	for i := 0; i < 2*n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				switch err := ds.Create(ctx, "nova"); {
				case err == nil:
					created.Add(1)
				case !errors.Is(err, ErrDomainExists):
					t.Error(err)
				}
				return
			}
			db, release, err := ds.Acquire(ctx, "nova")
			if errors.Is(err, ErrNoDomain) {
				return // asked before the file was there
			}
			if err != nil {
				t.Error(err)
				return
			}
			defer release()
			var units int
			if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM units`).Scan(&units); err != nil {
				t.Errorf("a half-made domain: %v", err)
			}
		}()
	}
	wg.Wait()
	if created.Load() != 1 {
		t.Fatalf("%d creates of one name succeeded", created.Load())
	}
	// A create that fails once its file is made (a snapshot that is not a
	// database) removes the file and frees the name.
	bad := ds.snapshotPath("nova", "estragado")
	if err := os.MkdirAll(filepath.Dir(bad), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Repeat("not a database ", 400)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ds.CreateFromSnapshot(ctx, "copia", "nova", "estragado"); err == nil {
		t.Fatal("a copy of garbage was made a domain")
	}
	if ds.Exists("copia") {
		t.Fatal("a failed copy left its file")
	}
	if err := ds.Create(ctx, "copia"); err != nil {
		t.Fatalf("the name stayed taken: %v", err)
	}
}

// TestVisitClosesWhatItOpened: background passes leave closed domains
// closed, open ones open, and never close a domain a request holds.
func TestVisitClosesWhatItOpened(t *testing.T) {
	ctx := context.Background()
	ds := newDomains(t)
	for _, n := range []string{"a1", "a2", "a3"} {
		if err := ds.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	ds.CloseIdle(0)
	isOpen := func(n string) bool {
		ds.mu.Lock()
		defer ds.mu.Unlock()
		return ds.open[n] != nil
	}

	// Closed before: closed after.
	_, release, err := ds.Visit(ctx, "a1")
	if err != nil {
		t.Fatal(err)
	}
	if !isOpen("a1") {
		t.Fatal("a1 not open during the visit")
	}
	release()
	release() // twice is harmless
	if isOpen("a1") {
		t.Fatal("a1 left open by a visit")
	}

	// Open before (a request used it): open after.
	_, rel, _ := ds.Acquire(ctx, "a2")
	rel()
	_, release, _ = ds.Visit(ctx, "a2")
	release()
	if !isOpen("a2") {
		t.Fatal("a visit closed a2, which a request had opened")
	}

	// A request arriving during the visit keeps the domain open and usable.
	_, release, _ = ds.Visit(ctx, "a3")
	db, rel, _ := ds.Acquire(ctx, "a3")
	release()
	if !isOpen("a3") {
		t.Fatal("a visit closed a3 under a request")
	}
	if _, err := db.Units(ctx); err != nil {
		t.Fatalf("the request's domain: %v", err)
	}
	rel()
}

// Record tokens are version 7 UUIDs: canonical form, version and variant
// bits, the time in their first 48 bits, so that tokens made later sort
// after (token indexes append), and distinct within one millisecond.
func TestNewUUIDIsTimeOrdered(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	prev := ""
	for i := range 2000 {
		tok := newUUIDAt(at.Add(time.Duration(i/10) * time.Millisecond))
		if len(tok) != 36 || tok[8] != '-' || tok[13] != '-' || tok[18] != '-' || tok[23] != '-' {
			t.Fatalf("not a canonical UUID: %q", tok)
		}
		if tok[14] != '7' || !strings.ContainsRune("89ab", rune(tok[19])) {
			t.Fatalf("version or variant: %q", tok)
		}
		ms, err := strconv.ParseUint(strings.ReplaceAll(tok[:13], "-", ""), 16, 64)
		if err != nil || int64(ms) != at.UnixMilli()+int64(i/10) {
			t.Fatalf("%q: time prefix %d, want %d", tok, ms, at.UnixMilli()+int64(i/10))
		}
		if tok[:13] < prev {
			t.Fatalf("%q sorts before an earlier token's prefix %q", tok, prev)
		}
		if seen[tok] {
			t.Fatalf("drawn twice: %q", tok)
		}
		seen[tok], prev = true, tok[:13]
	}
}
