package store

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestColdBurstOfListings: right after a domain opens, when no listing's
// statement is prepared yet, a burst of listings larger than the reader
// pool all answer. A listing reads in a transaction (one reader held) and
// its statements are prepared on first use; preparing waited for a free
// reader while every reader was held by a listing waiting to prepare, and
// the burst hung until its callers gave up.
func TestColdBurstOfListings(t *testing.T) {
	t.Parallel()
	for round := range 3 {
		db, u := newUnit(t)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var wg sync.WaitGroup
		errs := make(chan error, 4*readers)
		for i := range 4 * readers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Distinct filters: distinct statements, each prepared once.
				f := SalesOrderFilter{From: "2026-01-01", To: "2026-12-31"}
				if i%2 == 1 {
					f.CodeOrders = "PV-1"
				}
				_, err := db.SalesOrders(ctx, u, f).All()
				errs <- err
			}()
		}
		wg.Wait()
		cancel()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
