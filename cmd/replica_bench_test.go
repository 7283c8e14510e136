package cmd

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/billing"
	"fincom/store"
	"fincom/store/replica"
)

// BenchmarkReplica measures, on a domain of the load script's size
// (10,000 entries) replicating to a real S3 server: rpo-ms, how long
// after a write is answered its replica holds it; restore-ms, how long
// restoring the domain from the bucket alone takes. The README's
// replication figures come from it.
func BenchmarkReplica(b *testing.B) {
	endpoint, _, _, _ := s3Server(b, false)
	schema := schemaForTest(b)
	data := b.TempDir()
	cli(b, schema, data, "domain", "create", "acme", "--json")
	unit := jsonOut(b, cli(b, schema, data, "unit", "create", "acme", "--name", "Loja", "--json"))["unit_token"].(string)
	ds, err := store.OpenDomains(data, store.Options{Rules: billing.Rules{}, Schema: schema, WALOwner: true})
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	ctx := context.Background()
	db, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		b.Fatal(err)
	}
	defer release()
	u, _ := db.UnitByToken(ctx, unit)
	conn, err := replicaConnection(ctx, "s3://fincom/bench?endpoint="+endpoint+"&region=us-east-1&force-path-style=true", "", "")
	if err != nil {
		b.Fatal(err)
	}
	rep := &replica.Replicator{Dir: data, Conn: conn, Log: slog.New(slog.DiscardHandler)}
	if err := rep.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer rep.Close(ctx)
	for i := range 10_000 {
		if _, err := db.InsertEntry(ctx, u.ID, income(fmt.Sprintf("Venda %05d", i)), nil, ""); err != nil {
			b.Fatal(err)
		}
	}
	status := func() replica.Status {
		for _, s := range rep.Statuses(time.Now()) {
			if s.File == "acme.db" {
				return s
			}
		}
		return replica.Status{}
	}
	for s := status(); s.LocalTXID == "" || s.LocalTXID != s.ReplicaTXID; s = status() {
		time.Sleep(10 * time.Millisecond)
	}
	b.ResetTimer()
	var rpo, restore time.Duration
	for range b.N {
		// The replica's transaction before the write: it holds the write
		// once it has moved past it (the ids are fixed-width hex).
		before := status().ReplicaTXID
		if _, err := db.InsertEntry(ctx, u.ID, income("Venda da medida"), nil, ""); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for status().ReplicaTXID <= before {
			time.Sleep(5 * time.Millisecond)
		}
		rpo += time.Since(start)
		out := filepath.Join(b.TempDir(), "acme.db")
		start = time.Now()
		if _, err := replica.Restore(ctx, conn, "acme.db", out, time.Time{}, replica.RestoreOptions{}); err != nil {
			b.Fatal(err)
		}
		restore += time.Since(start)
		os.Remove(out)
	}
	b.ReportMetric(float64(rpo.Milliseconds())/float64(b.N), "rpo-ms")
	b.ReportMetric(float64(restore.Milliseconds())/float64(b.N), "restore-ms")
}

func income(desc string) store.EntryFields {
	return store.EntryFields{Type: "in", Description: desc, Value: store.NewMoney(decimal.NewFromInt(35)), DueDate: "2026-11-20"}
}
