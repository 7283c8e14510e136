package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWALRestartNeverWaits: past its length limit the WAL is started over
// by the writer between batches, but never by waiting: a reader holding an
// old snapshot makes the writer put the restart off (writes go on at full
// speed), and once the reader is gone the next batch restarts it.
func TestWALRestartNeverWaits(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// TestGroupCommit: writes committed together (see DB.write) keep their
// own outcomes: a duplicate in the middle of a batch fails alone, every
// other insert is committed, and nothing of the failed one remains.
func TestGroupCommit(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	ctx := context.Background()
	db, u := newUnit(t)
	boom := func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO projects (token, unit_id, name, created_at, updated_at) VALUES ('p-boom', ?, 'x', 'x', 'x')`, u.ID); err != nil {
			return err
		}
		panic("a write's bug")
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
	t.Parallel()
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
