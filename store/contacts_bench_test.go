package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkSearchAsItGrows inserts 10,000 contacts one commit each, as the
// API does, 50 of them named "… Grupo Alfa …", and then searches for them:
// "unmerged" is the index as the inserts leave it, "merged" after the daily
// compaction, and the fts- pair the index's own part of each. "merged"
// also reports the inserts' p99 and longest latency (the index's merge
// work is paid inside them), the index's segments when "unmerged" starts,
// on average and at most during the inserts (sampled every 100), and the
// ratio of the two
// searches' times, which the merge policy (DB.indexSearch) holds near 1.
func BenchmarkSearchAsItGrows(b *testing.B) {
	ctx := context.Background()
	ds, err := OpenDomains(b.TempDir(), Options{Schema: testSchema(b), Durability: DurabilityNormal})
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	if err := ds.Create(ctx, "acme"); err != nil {
		b.Fatal(err)
	}
	db, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		b.Fatal(err)
	}
	defer release()
	u, err := db.CreateUnit(ctx, UnitInput{Name: "Matriz"})
	if err != nil {
		b.Fatal(err)
	}
	const n = 10_000
	took := make([]time.Duration, 0, n)
	want := 0
	sumSegs, maxSegs := 0, 0
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("Cliente %05d Comércio Ltda", i)
		if i%200 == 7 {
			name = fmt.Sprintf("Cliente %05d Grupo Alfa Ltda", i)
			want++
		}
		t0 := time.Now()
		if _, err := db.InsertContact(ctx, u.ID, ContactFields{Type: "legal", Register: fmt.Sprintf("B%013d", i), FullName: name}); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(t0))
		if i%100 == 99 {
			segs := searchSegments(b, db)
			sumSegs += segs
			maxSegs = max(maxSegs, segs)
		}
	}
	slices.Sort(took)
	search := func(b *testing.B) time.Duration {
		b.ReportAllocs()
		t0 := time.Now()
		for i := 0; i < b.N; i++ {
			got, err := db.Contacts(ctx, u.ID, ContactFilter{Search: "grupo alfa"})
			if err != nil || len(got) != want {
				b.Fatalf("found %d: %v", len(got), err)
			}
		}
		return time.Since(t0) / time.Duration(b.N)
	}
	// Both searches start from a checkpointed file and warm caches: the
	// checkpointer copying the inserts' WAL must not slow one of them.
	settle := func() {
		db.ckBusy.Lock()
		_, err := db.w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
		db.ckBusy.Unlock()
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 200; i++ {
			db.Contacts(ctx, u.ID, ContactFilter{Search: "grupo alfa"})
		}
	}
	// "Right after the inserts" is once the writer's idle merging (see
	// DB.mergeSearch) stops finding work; merge-ms is how long after the
	// last insert that was.
	t0 := time.Now()
	waitMerged(b, db)
	mergeTook := time.Since(t0)
	var unmerged, merged time.Duration
	settle()
	lastSegs := searchSegments(b, db)
	b.Run("unmerged", func(b *testing.B) { unmerged = search(b) })
	// The index's own part of the search, on the search's pool.
	fts := func(b *testing.B) {
		q := coveringTrigrams("grupo alfa")
		for i := 0; i < b.N; i++ {
			rows, err := db.searchQuery(ctx, `SELECT count(*) FROM contacts_fts WHERE contacts_fts MATCH ?`, q)
			if err != nil {
				b.Fatal(err)
			}
			rows.Close()
		}
	}
	b.Run("fts-unmerged", fts)
	if err := db.CompactSearch(ctx); err != nil {
		b.Fatal(err)
	}
	settle()
	b.Run("fts-merged", fts)
	b.Run("merged", func(b *testing.B) {
		merged = search(b)
		// Reported here: a benchmark with sub-benchmarks prints no line
		// of its own.
		var sum time.Duration
		for _, d := range took {
			sum += d
		}
		b.ReportMetric(float64((sum/n).Microseconds())/1000, "insert-mean-ms")
		b.ReportMetric(float64(took[n*99/100].Microseconds())/1000, "insert-p99-ms")
		b.ReportMetric(float64(took[n-1].Microseconds())/1000, "insert-max-ms")
		b.ReportMetric(float64(unmerged)/float64(merged), "unmerged/merged")
		b.ReportMetric(float64(lastSegs), "segments")
		b.ReportMetric(float64(mergeTook.Microseconds())/1000, "merge-ms")
		b.ReportMetric(float64(sumSegs)/float64(n/100), "mean-segments")
		b.ReportMetric(float64(maxSegs), "max-segments")
	})
}

// TestStablePlans holds searchQuery's setting on the search pool, and the
// listings' readers and the writer without it: without it a search after a
// day of inserts takes 2.7 times its merged time (BenchmarkSearchAsItGrows),
// with it the listings lose 40% (BenchmarkListSalesOrders).
func TestStablePlans(t *testing.T) {
	t.Parallel()
	db, u := newUnit(t)
	if _, err := db.Contacts(context.Background(), u.ID, ContactFilter{Search: "opens the pool"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		pool *sql.DB
		want int32
	}{{"search", db.search, 1}, {"readers", db.r, 0}, {"writer", db.w, 0}} {
		conn, err := c.pool.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		err = conn.Raw(func(dc any) error {
			on, err := setQPSG(dc.(driver.Conn), -1)
			if err == nil && on != c.want {
				err = fmt.Errorf("QPSG = %d, want %d", on, c.want)
			}
			return err
		})
		conn.Close()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// waitMerged returns once the writer has written nothing for 20 ms: its
// idle merging of the search index found nothing more to do.
func waitMerged(tb testing.TB, db *DB) {
	tb.Helper()
	var last int64 = -1
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int64
		if err := db.w.QueryRow(`SELECT total_changes()`).Scan(&n); err != nil {
			tb.Fatal(err)
		}
		if n == last {
			return
		}
		last = n
		if time.Now().After(deadline) {
			tb.Fatal("the writer is still merging after 20 s")
		}
	}
}

// searchSegments counts the segments of the contact search index: each
// search term is looked up in each.
func searchSegments(b testing.TB, db *DB) int {
	var n int
	if err := db.r.QueryRow(`SELECT count(DISTINCT segid) FROM contacts_fts_idx`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}
