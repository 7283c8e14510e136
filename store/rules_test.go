package store

import (
	"context"
	"errors"
	"testing"
)

// TestWritesNeedRules: a store opened without business rules refuses the
// writes that take a decision (a contract's periods, a charge plan) with
// errNoRules, and writes nothing; it never guesses a rule of its own.
func TestWritesNeedRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds := newDomains(t)
	if err := ds.Create(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, _, err := db.CopyContractOrders(ctx, Today(db.Now())); !errors.Is(err, errNoRules) {
		t.Fatalf("CopyContractOrders without rules: %v", err)
	}
	if _, err := db.ExportRemittance(ctx, 1, "provider_a", nil); !errors.Is(err, errNoRules) {
		t.Fatalf("ExportRemittance without rules: %v", err)
	}
	runs, err := db.JobRuns(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 0 {
		t.Fatalf("job runs recorded: %v", runs)
	}
}
