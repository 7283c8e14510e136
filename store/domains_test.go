package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	// Runs alone (not parallel): it times another domain's open to 20 ms: other tests would blur it.
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

// TestMaxOpen: past Options.MaxOpen, the least recently used idle domain
// closes when another opens; a domain in use stays open.
func TestMaxOpen(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

func TestDomains(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("ErrBadName", func(t *testing.T) {
		ds := newDomains(t)
		for _, n := range []string{"", "Acme", "../x", "a.b", "-a", "a_b", strings.Repeat("a", 64), "a/b"} {
			if err := ds.Create(ctx, n); !errors.Is(err, ErrBadName) {
				t.Errorf("Create(%q) = %v", n, err)
			}
		}
		if err := ds.Create(ctx, strings.Repeat("a", 63)); err != nil {
			t.Errorf("63 chars: %v", err)
		}
	})
	t.Run("ErrDomainExists", func(t *testing.T) {
		ds := newDomains(t)
		if err := ds.Create(ctx, "acme"); err != nil {
			t.Fatal(err)
		}
		if err := ds.Create(ctx, "acme"); !errors.Is(err, ErrDomainExists) {
			t.Fatalf("second create: %v", err)
		}
	})
	t.Run("ErrNoDomain", func(t *testing.T) {
		ds := newDomains(t)
		if _, _, err := ds.Acquire(ctx, "ghost"); !errors.Is(err, ErrNoDomain) {
			t.Fatalf("acquire: %v", err)
		}
	})
	t.Run("ErrSchemaTooNew", func(t *testing.T) {
		ds := newDomains(t)
		if err := ds.Create(ctx, "acme"); err != nil {
			t.Fatal(err)
		}
		db, release, _ := ds.Acquire(ctx, "acme")
		db.w.Exec("PRAGMA user_version = 999")
		release()
		ds.Close()
		_, _, err := ds.Acquire(ctx, "acme")
		if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "upgrade fincom") {
			t.Fatalf("acquire newer file: %v", err)
		}
		if err := ds.CheckVersions(); !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "acme (schema 999)") {
			t.Fatalf("CheckVersions: %v", err)
		}
	})
	t.Run("CloseIdle", func(t *testing.T) {
		ds := newDomains(t)
		ds.Create(ctx, "a")
		ds.Create(ctx, "b")
		_, release, _ := ds.Acquire(ctx, "a")
		if n := ds.CloseIdle(0); n != 1 {
			t.Fatalf("closed %d, want 1 (a is in use)", n)
		}
		release()
		if n := ds.CloseIdle(0); n != 1 || ds.OpenCount() != 0 {
			t.Fatalf("closed %d, open %d", n, ds.OpenCount())
		}
		if _, release, err := ds.Acquire(ctx, "b"); err != nil {
			t.Fatalf("reopen: %v", err)
		} else {
			release()
		}
	})
	t.Run("RenamedFileRefused", func(t *testing.T) {
		ds := newDomains(t)
		ds.Create(ctx, "acme")
		ds.Close()
		os.Rename(filepath.Join(ds.Dir(), "acme.db"), filepath.Join(ds.Dir(), "other.db"))
		if _, _, err := ds.Acquire(ctx, "other"); err == nil || !strings.Contains(err.Error(), "keeps its name") {
			t.Fatalf("acquire renamed: %v", err)
		}
	})
}

func TestRemove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds := newDomains(t)
	ds.Create(ctx, "gone")
	_, release, _ := ds.Acquire(ctx, "gone")
	if err := ds.Remove("gone"); !errors.Is(err, ErrInUse) {
		t.Fatalf("in use: %v", err)
	}
	release()
	if err := ds.Remove("gone"); err != nil {
		t.Fatal(err)
	}
	if ds.Exists("gone") {
		t.Fatal("still there")
	}
}

func newDomains(t *testing.T) *Domains {
	t.Helper()
	ds, err := OpenDomains(t.TempDir(), Options{Schema: testSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	return ds
}

// TestDomainsOpenAtOnce: domains opened at the same moment (a server's
// first requests, the scheduler's catch-up) each get their clock; the
// clocks' map was written outside the lock that guards it, and a server
// opening two files at once could die of a concurrent map write.
func TestDomainsOpenAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := Options{Schema: testSchema(t)}
	ds, err := OpenDomains(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	const n = 12
	for i := range n {
		if err := ds.Create(context.Background(), fmt.Sprintf("d%02d", i)); err != nil {
			t.Fatal(err)
		}
	}
	ds.Close()
	// A new process: no file open, no clock made.
	ds, err = OpenDomains(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			db, release, err := ds.Acquire(context.Background(), fmt.Sprintf("d%02d", i))
			if err != nil {
				t.Error(err)
				return
			}
			db.Now()
			release()
		}()
	}
	close(start)
	wg.Wait()
}
