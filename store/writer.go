package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"time"
)

// write runs fn in one immediate transaction with one clock reading, so that
// every row the transaction touches carries the same time, and returns once
// that transaction is durable (fsync'd under full durability).
//
// Writes waiting together are committed together (group commit): the
// domain's writer takes every write queued while the previous commit was
// being fsync'd and runs each in its own savepoint of one transaction, so
// that one fsync acknowledges many. A write that fails rolls back to its
// savepoint and leaves the others; nothing is acknowledged before the
// commit. One fsync per write would be the ceiling of every insert route
// (BenchmarkInsertContact beside its baseline; TestGroupCommit).
func (db *DB) write(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx, now time.Time) error) error {
	db.writerOnce.Do(db.startWriter)
	if db.writes == nil {
		return errClosed // closed before its first write
	}
	req := &writeReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case db.writes <- req:
	case <-db.quit:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once taken, the write runs to its end: the caller must hear whether
	// it was committed.
	return <-req.done
}

// maxBatch bounds how many writes share one commit.
const maxBatch = 64

var errClosed = errors.New("domain closed")

// writeReq is one write waiting for the domain's writer.
type writeReq struct {
	ctx  context.Context
	fn   func(ctx context.Context, tx *sql.Tx, now time.Time) error
	done chan error
}

// hotWrites are the statements nearly every write runs (group commit's
// savepoints, the audit entry) and those of the busiest insert route: the
// writer prepares them once, when it starts: modernc runs SQLite's parser
// as Go, and parsing per write would weigh on every insert
// (BenchmarkInsertContact; TestHotWritesPrepare).
var hotWrites = []string{sqlSavepoint, sqlRelease, sqlRollbackTo, sqlAuditEntry, sqlInsertContact,
	sqlSearchPending, sqlSearchRemove, sqlSearchAdd, sqlSearchDone, sqlAuthChanges}

const (
	sqlSavepoint  = `SAVEPOINT write`
	sqlRelease    = `RELEASE write`
	sqlRollbackTo = `ROLLBACK TO write`
)

// exec runs a statement of a write in tx, in its prepared form when it is
// one of hotWrites.
func (db *DB) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := db.prepared[query]; st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// queryRow reads one row in tx, in its prepared form when the query is
// one of hotWrites.
func (db *DB) queryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if st := db.prepared[query]; st != nil {
		return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, query, args...)
}

// The contact search index's queue (migration 0011).
const (
	sqlSearchPending = `SELECT EXISTS (SELECT 1 FROM contacts_fts_pending)`
	sqlSearchRemove  = `DELETE FROM contacts_fts WHERE rowid IN (SELECT contact_id FROM contacts_fts_pending WHERE indexed = 1)`
	sqlSearchAdd     = `INSERT INTO contacts_fts (rowid, names)
		SELECT c.id, fincom_fold(coalesce(c.full_name, '') || char(10) || coalesce(c.social_reason, '') || char(10) || coalesce(c.fantasy_name, ''))
		FROM contacts_fts_pending p JOIN contacts c ON c.id = p.contact_id`
	sqlSearchDone = `DELETE FROM contacts_fts_pending`
	// At most 16 pages of merging, where a level holds two segments
	// (usermerge = 2): see mergeSearch.
	sqlSearchMerge = `INSERT INTO contacts_fts (contacts_fts, rank) VALUES ('merge', 16)`
)

// indexSearch indexes the contacts the transaction changed, once, after
// its writes and before its commit: outside every savepoint, so that FTS5
// writes one segment per commit, not one per write of a batch.
func (db *DB) indexSearch(ctx context.Context, tx *sql.Tx) error {
	var pending bool
	if err := db.queryRow(ctx, tx, sqlSearchPending).Scan(&pending); err != nil || !pending {
		return err
	}
	for _, s := range []string{sqlSearchRemove, sqlSearchAdd, sqlSearchDone} {
		if _, err := db.exec(ctx, tx, s); err != nil {
			return fmt.Errorf("search index: %w", err)
		}
	}
	db.searchUnmerged = true
	return nil
}

// mergeIdle is how long the writer waits without a write before it merges
// the search index: longer than the gap between the inserts of one client
// importing contacts one after another, which would otherwise wait for a
// merge step each (BenchmarkSearchAsItGrows, insert-p99-ms).
const mergeIdle = 5 * time.Millisecond

// mergeSearch runs one bounded merge step of the contact search index in
// its own transaction and reports whether it found work. Every commit that
// indexes contacts adds a segment, and every search looks each of its
// terms up in every segment: 10,000 inserts left 8 to 23 segments and
// searches up to twice as slow until the daily compaction. The writer
// runs these steps when it has been idle (mergeIdle), so inserts do not pay for
// them (they cost a tenth of the insert route's time when run in each
// commit), and a step is short, so a write arriving meanwhile waits
// little (BenchmarkSearchAsItGrows reports the segments and the inserts'
// longest latency). A step commits without an fsync (synchronous=NORMAL):
// a power cut may undo it, which loses nothing, and the next durable
// commit syncs it with its own.
func (db *DB) mergeSearch() bool {
	ctx := context.Background()
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return false
	}
	defer conn.Close()
	var sync int
	if err := conn.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync); err != nil {
		return false
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return false
	}
	defer conn.ExecContext(ctx, `PRAGMA synchronous = `+strconv.Itoa(sync))
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return false
	}
	defer tx.Rollback()
	var before, after int64
	if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
		return false
	}
	if _, err := tx.ExecContext(ctx, sqlSearchMerge); err != nil {
		return false
	}
	// The command itself counts as one change; the pages it merged as
	// the others.
	if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil || after-before <= 1 {
		return false
	}
	if tx.Commit() != nil {
		return false
	}
	db.committed()
	return true
}

func (db *DB) startWriter() {
	// Prepared here, before the writer holds its one connection in a
	// transaction (preparing inside one would wait for that connection).
	// A statement that does not prepare is run unprepared.
	db.prepared = map[string]*sql.Stmt{}
	for _, q := range hotWrites {
		if st, err := db.w.Prepare(q); err == nil {
			db.prepared[q] = st
		}
	}
	db.writes = make(chan *writeReq)
	db.quit = make(chan struct{})
	db.writerDone = make(chan struct{})
	db.checkpoint = make(chan struct{}, 1)
	db.ckDone = make(chan struct{})
	go db.writer()
	go db.checkpointer()
}

// checkpointEvery is how many commits pass between checkpoints: about the
// 1,000 WAL pages of SQLite's own automatic checkpoint for small writes.
const checkpointEvery = 200

// committed counts a commit and nudges the checkpointer now and then.
func (db *DB) committed() {
	if db.walOwned {
		return
	}
	if db.commits++; db.commits >= checkpointEvery {
		db.commits = 0
		select {
		case db.checkpoint <- struct{}{}:
		default: // one is pending already
		}
	}
}

// checkpointer copies the WAL back into the database file on its own
// connection, beside the writer: a PASSIVE checkpoint waits for nobody, and
// the writer goes on appending to the WAL meanwhile. It keeps the WAL from
// growing without end; what it cannot copy yet (pages readers still use)
// the next one does.
func (db *DB) checkpointer() {
	defer close(db.ckDone)
	var ck *sql.DB
	defer func() {
		if ck != nil {
			ck.Close()
		}
	}()
	for {
		select {
		case <-db.checkpoint:
		case <-db.quit:
			return
		}
		if ck == nil {
			var err error
			if ck, err = sql.Open("sqlite", fileURI(db.path, "_pragma=busy_timeout("+busyMillis+")")); err != nil {
				continue
			}
			ck.SetMaxOpenConns(1)
		}
		var busy, log, done int
		db.ckBusy.Lock()
		err := ck.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &done)
		db.ckBusy.Unlock()
		if err == nil && log > db.restartAt {
			db.restartWAL.Store(true)
			db.forceRestart.Store(log > forceFactor*db.restartAt)
		}
	}
}

// restartFrames is the WAL length (in pages) past which the writer
// restarts the WAL. Under a steady stream of writes a passive checkpoint
// never reaches the WAL's end (frames arrive while it copies), and SQLite
// starts the WAL over only after a checkpoint that did: the writer's
// RESTART checkpoint, with nearly everything copied already, is short.
const restartFrames = 10000

// stopWriter ends the writer goroutine, if it started.
func (db *DB) stopWriter() {
	db.writerOnce.Do(func() {}) // no writer starts after this
	if db.quit != nil {
		close(db.quit)
		<-db.writerDone
		<-db.ckDone
	}
}

// writer commits the queued writes, a batch at a time.
func (db *DB) writer() {
	defer close(db.writerDone)
	idle := time.NewTimer(mergeIdle)
	defer idle.Stop()
	for {
		var batch []*writeReq
		select {
		case r := <-db.writes:
			batch = append(batch, r)
		case <-db.quit:
			return
		default:
			if !db.searchUnmerged {
				select {
				case r := <-db.writes:
					batch = append(batch, r)
				case <-db.quit:
					return
				}
				break
			}
			// Idle for mergeIdle: merge the search index a step at a
			// time while no write waits.
			idle.Reset(mergeIdle)
			select {
			case r := <-db.writes:
				batch = append(batch, r)
			case <-db.quit:
				return
			case <-idle.C:
				for db.searchUnmerged = db.mergeSearch(); db.searchUnmerged && len(db.writes) == 0; {
					db.searchUnmerged = db.mergeSearch()
				}
				continue
			}
		}
	fill:
		for len(batch) < maxBatch {
			select {
			case r := <-db.writes:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		if len(batch) == 1 {
			batch[0].done <- db.writeOne(batch[0].ctx, batch[0].fn)
		} else {
			db.writeBatch(batch)
		}
		db.committed()
		if db.forceRestart.Load() {
			db.ckBusy.Lock()
			if db.restartLog(true) {
				db.restartWAL.Store(false)
				db.forceRestart.Store(false)
			}
			db.ckBusy.Unlock()
		} else if db.restartWAL.Load() && db.ckBusy.TryLock() {
			if db.restartLog(false) {
				db.restartWAL.Store(false)
			}
			db.ckBusy.Unlock()
		}
	}
}

// forceFactor: past forceFactor × restartAt pages, the writer waits for
// the readers to let the WAL restart (see restartLog).
const forceFactor = 4

// restartLog starts the WAL over and reports whether it did. Unless wait,
// it does so only if it can at once: not behind the checkpointer (the
// caller holds ckBusy), nor behind readers still using the WAL (busy
// timeout 0 for this one statement; it then does what a passive checkpoint
// does and the writer tries again after a later batch). Waiting held
// every queued write: a RESTART meeting the checkpointer slept in SQLite's
// busy handler (the tail of the inserts under --durability normal), and
// one meeting a long read waited for it. But under reads that never pause
// the WAL would then grow without end: past forceFactor times the limit
// the writer waits after all (wait), up to the busy timeout.
func (db *DB) restartLog(wait bool) bool {
	ctx := context.Background()
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return false
	}
	defer conn.Close()
	if !wait {
		if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
			return false
		}
		defer conn.ExecContext(ctx, `PRAGMA busy_timeout = `+busyMillis)
	}
	var busy, log, done int
	err = conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(RESTART)`).Scan(&busy, &log, &done)
	return err == nil && busy == 0
}

// writeOne is a write alone in its transaction.
func (db *DB) writeOne(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx, now time.Time) error) error {
	// A caller gone before its turn is not run (see runWrite for one gone
	// during it).
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx = context.WithoutCancel(ctx)
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	commit, err := db.runWrite(ctx, tx, fn)
	if err != nil {
		return err
	}
	if err := db.indexSearch(ctx, tx); err != nil {
		return err
	}
	changes, err := db.authChanges(ctx, tx)
	if err != nil {
		return fmt.Errorf("auth changes: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	db.access.changed(changes)
	commit()
	return nil
}

// runWrite runs fn and what every write adds (the audit entry, the seeded
// token counter) in tx; commit is to be called once tx is committed.
func (db *DB) runWrite(ctx context.Context, tx *sql.Tx, fn func(ctx context.Context, tx *sql.Tx, now time.Time) error) (commit func(), err error) {
	// fn runs on the domain's writer goroutine, where a panic would take
	// the whole server down: it becomes this write's error instead.
	defer func() {
		if p := recover(); p != nil {
			commit, err = nil, fmt.Errorf("write panicked: %v\n%s", p, debug.Stack())
		}
	}()
	// The write's statements run under a context its caller's departure
	// cannot cancel: modernc interrupts a statement whose context ends, and
	// SQLite answers an interrupted write by rolling back the whole
	// transaction, the other writes of the batch with it. A write whose
	// turn has come runs to its end (its caller may be gone; as for any
	// answer lost on the way, the record is there).
	ctx = context.WithoutCancel(ctx)
	now := db.now()
	if err := fn(ctx, tx, now); err != nil {
		return nil, err
	}
	if err := db.auditInTx(ctx, tx, now); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	recorded := func() {}
	if db.ids != nil {
		if recorded, err = db.ids.record(ctx, tx); err != nil {
			return nil, err
		}
	}
	return func() {
		recorded()
		auditCommitted(ctx)
	}, nil
}

// writeBatch commits several writes in one transaction, each in a
// savepoint. If the transaction itself fails (the commit, or a savepoint
// statement after SQLite rolled everything back on a full disk or an
// interrupt), every write of the batch gets the error: none was
// acknowledged, none is kept.
func (db *DB) writeBatch(batch []*writeReq) {
	bg := context.Background()
	errs := make([]error, len(batch))
	commits := make([]func(), len(batch))
	fail := func(err error) {
		for _, r := range batch {
			r.done <- err
		}
	}
	tx, err := db.w.BeginTx(bg, nil)
	if err != nil {
		fail(fmt.Errorf("begin: %w", err))
		return
	}
	defer tx.Rollback()
	for i, r := range batch {
		// A caller gone before its turn is not run.
		if err := r.ctx.Err(); err != nil {
			errs[i] = err
			continue
		}
		if _, err := db.exec(bg, tx, sqlSavepoint); err != nil {
			fail(fmt.Errorf("savepoint: %w", err))
			return
		}
		if commits[i], errs[i] = db.runWrite(r.ctx, tx, r.fn); errs[i] != nil {
			if _, err := db.exec(bg, tx, sqlRollbackTo); err != nil {
				fail(fmt.Errorf("%w (rollback to savepoint: %v)", errs[i], err))
				return
			}
		}
		if _, err := db.exec(bg, tx, sqlRelease); err != nil {
			fail(fmt.Errorf("release savepoint: %w", err))
			return
		}
	}
	if err := db.indexSearch(bg, tx); err != nil {
		fail(err)
		return
	}
	changes, err := db.authChanges(bg, tx)
	if err != nil {
		fail(fmt.Errorf("auth changes: %w", err))
		return
	}
	if err := tx.Commit(); err != nil {
		fail(fmt.Errorf("commit: %w", err))
		return
	}
	db.access.changed(changes)
	for i, r := range batch {
		if errs[i] == nil {
			commits[i]()
		}
		r.done <- errs[i]
	}
}
