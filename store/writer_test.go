package store

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"
)

// TestWALRestartNeverWaits: past its length limit the WAL is started over
// by the writer between batches, but never by waiting: a reader holding an
// old snapshot makes the writer put the restart off (writes go on at full
// speed), and once the reader is gone the next batch restarts it.
func TestWALRestartNeverWaits(t *testing.T) {
	db, insert, flagged, walPages := walFixture(t, 200)
	// A reader takes its snapshot and keeps it.
	rtx := holdSnapshot(t, db)
	for i := range 40 {
		insert(i)
	}
	if !flagged() {
		t.Fatalf("a WAL of %d pages (limit %d) was not flagged for a restart", walPages(), db.restartAt)
	}
	for i := range 5 {
		if d := insert(100 + i); d > time.Second {
			t.Fatalf("a write waited %v behind the WAL restart", d)
		}
	}
	if !db.restartWAL.Load() || db.forceRestart.Load() {
		t.Fatal("the WAL restarted under a reader's snapshot, or was forced to")
	}
	before := walPages()

	rtx.Rollback()
	insert(200) // the restart, right after this batch
	for deadline := time.Now().Add(5 * time.Second); db.restartWAL.Load(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the WAL was not restarted once the reader left")
		}
	}
	insert(201)
	if after := walPages(); after >= before || after > db.restartAt {
		t.Fatalf("WAL of %d pages after the restart, %d before", after, before)
	}
}

// walFixture is a fresh domain whose writer asks for a WAL restart past
// restartAt pages, with helpers: insert a contact (how long it took);
// nudge the checkpointer and wait for its verdict; the WAL's length.
func walFixture(t *testing.T, restartAt int) (*DB, func(int) time.Duration, func() bool, func() int) {
	ctx := context.Background()
	db, u := newUnit(t)
	db.restartAt = restartAt
	insert := func(i int) time.Duration {
		t.Helper()
		start := time.Now()
		if _, err := db.InsertContact(ctx, u.ID, ContactFields{Type: "legal", Register: fmt.Sprintf("%014d", 1000+i), SocialReason: fmt.Sprintf("Empresa %d", i)}); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	// flagged nudges the checkpointer and waits (a while) for its verdict.
	flagged := func() bool {
		db.checkpoint <- struct{}{}
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if db.restartWAL.Load() {
				return true
			}
		}
		return false
	}
	// walPages is the WAL's length, read as the checkpointer reads it (and
	// never at the same time as it or the writer's restart).
	walPages := func() int {
		t.Helper()
		db.ckBusy.Lock()
		defer db.ckBusy.Unlock()
		c, err := sql.Open("sqlite", "file:"+db.path+"?_pragma=busy_timeout("+busyMillis+")")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var busy, log, done int
		if err := c.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &done); err != nil {
			t.Fatal(err)
		}
		return log
	}
	return db, insert, flagged, walPages
}

// TestWALRestartForced: a WAL past forceFactor times its limit is
// restarted even if that means waiting for the readers: under reads that
// never pause it would otherwise grow without end.
func TestWALRestartForced(t *testing.T) {
	db, insert, flagged, walPages := walFixture(t, 20)
	rtx := holdSnapshot(t, db)
	for i := range 40 {
		insert(i)
	}
	if !flagged() || !db.forceRestart.Load() {
		t.Fatalf("a WAL of %d pages (limit %d) was not forced to restart", walPages(), db.restartAt)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		rtx.Rollback()
	}()
	// The restart after this batch waits for the reader, and succeeds
	// with no further write.
	insert(100)
	for deadline := time.Now().Add(5 * time.Second); db.restartWAL.Load() || db.forceRestart.Load(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the forced restart did not happen once the reader left")
		}
	}
	insert(101) // the first write after a restart starts the WAL over
	if p := walPages(); p > db.restartAt {
		t.Fatalf("WAL of %d pages after the forced restart", p)
	}
}

// holdSnapshot starts a read that keeps its snapshot until rolled back.
func holdSnapshot(t *testing.T, db *DB) *sql.Tx {
	t.Helper()
	rtx, err := db.r.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := rtx.QueryRow(`SELECT count(*) FROM contacts`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return rtx
}

// Every hot write statement prepares against the schema: one that did not
// would still run, unprepared, and the writer would silently parse it for
// every write again.
func TestHotWritesPrepare(t *testing.T) {
	ctx := context.Background()
	db, u := newUnit(t)
	if _, err := db.InsertContact(ctx, u.ID, ContactFields{Type: "natural_person", Register: "52998224725", FullName: "Primeira"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range hotWrites {
		if db.prepared[q] == nil {
			t.Errorf("not prepared: %s", q)
		}
	}
}
