// Package store keeps every domain's data in its own SQLite file and holds
// all of fincom's SQL.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// MinSQLiteVersion is the oldest SQLite fincom runs on: 3.51.3 fixed a bug
// that could corrupt a WAL database when a checkpoint raced a writer.
const MinSQLiteVersion = "3.51.3"

// Durability selects SQLite's synchronous mode.
type Durability string

// Durability levels. Full survives a power cut after every answered write;
// normal may lose the last writes on power loss (never on a process crash).
const (
	DurabilityFull   Durability = "full"
	DurabilityNormal Durability = "normal"
)

// DB is one open domain file: a writer connection and a small reader pool.
type DB struct {
	Name string
	path string
	w    *sql.DB
	r    *sql.DB
	now  func() time.Time
	id   func() string
	// secret draws n bytes as hex for secrets and tokens.
	secret func(n int) string
	ids    *idSource // set when seeded: records its counter in writes
	// rulebook holds the business decisions of writes (Options.Rules).
	rulebook Rules
	// walOwned says another owns the WAL's checkpoints (Options.WALOwner:
	// Litestream, which must copy every frame before it is checkpointed
	// away): the domain's checkpointer stays idle.
	walOwned bool

	// access keeps what Authenticate answered (auth_cache.go).
	access *authCache

	stmtMu sync.Mutex
	auth   *sql.Stmt            // Authenticate's statement, prepared on first use
	stmts  map[string]*sql.Stmt // the listings' reads, by SQL text (see cachedQuery)
	// preparing are the statements being prepared beside a transaction
	// (prepareLater); stmtsClosed says the domain closed its statements.
	preparing   map[string]bool
	stmtsClosed bool
	search      *sql.DB // the contact search's pool, opened on first use (see searchQuery)
	// searchStmts are the search's statements, prepared on search.
	searchStmts map[string]*sql.Stmt
	// prepared holds hotWrites, prepared when the writer starts; read by
	// the writer goroutine only.
	prepared map[string]*sql.Stmt

	// The writer goroutine and its queue (see write), started on the
	// first write.
	writerOnce sync.Once
	writes     chan *writeReq
	quit       chan struct{}
	writerDone chan struct{}
	checkpoint chan struct{} // a nudge to the checkpointer
	ckDone     chan struct{}
	commits    int // since the last nudge; the writer's own
	// searchUnmerged: a commit indexed contacts since the search index's
	// last merge step found nothing to do; the writer's own.
	searchUnmerged bool
	restartWAL     atomic.Bool // the checkpointer asks the writer to restart the WAL
	restartAt      int         // WAL pages past which it asks (restartFrames; tests lower it)
	forceRestart   atomic.Bool // past forceFactor × restartAt: the writer waits for readers
	ckBusy         sync.Mutex  // held by whichever of them checkpoints

	users    atomic.Int64 // in-flight users; an idle domain may be closed
	lastUsed atomic.Int64 // unix nanoseconds
}

// busyMillis is how long a connection waits for a lock held by another
// (a checkpoint, a backup, a CLI command) before SQLITE_BUSY.
const busyMillis = "10000"

// readers is the size of each domain's reader pool: enough for two cores,
// small enough that a thousand open domains stay cheap.
const readers = 4

func openDB(path string, durability Durability) (w, r *sql.DB, err error) {
	if durability == "" {
		durability = DurabilityFull
	}
	// busy_timeout comes first so that it already applies while the other
	// pragmas run (journal_mode needs a lock on a fresh file).
	dsn := func(extra string) string {
		return fileURI(path, "_pragma=busy_timeout("+busyMillis+")") +
			"&_pragma=journal_mode(WAL)&_pragma=foreign_keys(ON)&_pragma=secure_delete(ON)" +
			"&_pragma=synchronous(" + strings.ToUpper(string(durability)) + ")" + extra
	}
	// The writer never checkpoints: a checkpoint in the commit that
	// crosses 1,000 WAL pages held that commit (and every write queued
	// behind it) for tens of milliseconds. The domain's checkpointer does
	// it beside the writer (see checkpointer).
	w, err = sql.Open("sqlite", dsn("&_txlock=immediate&_pragma=wal_autocheckpoint(0)"))
	if err != nil {
		return nil, nil, fmt.Errorf("open writer: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	r, err = sql.Open("sqlite", dsn("&_pragma=query_only(ON)"))
	if err != nil {
		w.Close()
		return nil, nil, fmt.Errorf("open readers: %w", err)
	}
	// One more connection than readers: the access watch holds one
	// (authCache.fresh).
	r.SetMaxOpenConns(readers + 1)
	r.SetMaxIdleConns(readers + 1)
	return w, r, nil
}

// authQuery checks an access token and resolves a unit token in one
// statement: no row is an unknown token, a NULL unit an unknown unit. A
// token a user made carries the user's role on the unit (the unit's own
// grant before the every-unit one; NULL: none, or held back) and stops when the user
// is deactivated; the operator's tokens are owners.
const authQuery = `SELECT t.hash, t.id, t.hint, coalesce(t.user_id, 0), u.id, u.token, u.name, u.cnpj, u.city_ibge, u.im, u.created_at,
		CASE WHEN t.user_id IS NULL THEN 'owner' ELSE (SELECT nullif(r.role, 'none') FROM user_roles r
			WHERE r.user_id = t.user_id AND (r.unit_id = u.id OR r.unit_id IS NULL) ORDER BY r.unit_id IS NULL LIMIT 1) END
	FROM access_tokens t LEFT JOIN units u ON u.token = ?
	WHERE t.hash = ? AND t.revoked_at IS NULL
		AND (t.user_id IS NULL OR EXISTS (SELECT 1 FROM users us WHERE us.id = t.user_id AND us.active = 1))`

func (db *DB) authStmt() (*sql.Stmt, error) {
	db.stmtMu.Lock()
	st := db.auth
	db.stmtMu.Unlock()
	if st != nil {
		return st, nil
	}
	st, err := db.r.Prepare(authQuery)
	if err != nil {
		return nil, err
	}
	db.stmtMu.Lock()
	defer db.stmtMu.Unlock()
	switch {
	case db.stmtsClosed:
		st.Close()
		return nil, errClosed
	case db.auth != nil:
		st.Close()
	default:
		db.auth = st
	}
	return db.auth, nil
}

// maxStmts bounds the statement cache: SQL texts come from fincom's code
// (filters make a few dozen per listing at most), never from requests.
const maxStmts = 256

// cachedQuery runs a read with a statement prepared once per reader
// connection: a listing's SQL is parsed once, not per request
// (BenchmarkGetContacts, BenchmarkTransactions). In tx (a read
// transaction) when tx is not nil.
//
// No lock is held while a statement is prepared, and a caller in a
// transaction never waits for one: preparing takes a free reader, and a
// caller holding one to wait for another could, with as many callers as
// readers, wait forever (TestColdBurstOfListings). Such a caller runs its
// query unprepared while the statement is prepared beside it for the next.
func (db *DB) cachedQuery(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	db.stmtMu.Lock()
	st := db.stmts[query]
	db.stmtMu.Unlock()
	if st == nil && tx != nil {
		db.prepareLater(query)
		return tx.QueryContext(ctx, query, args...)
	}
	if st == nil {
		if st = db.prepareStmt(ctx, query); st == nil {
			return db.r.QueryContext(ctx, query, args...)
		}
	}
	if tx != nil {
		return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return st.QueryContext(ctx, args...)
}

// prepareStmt prepares query on the readers and keeps it; nil when it
// cannot be (the cache full, the domain closing, the SQL refused: the
// caller runs it unprepared, and a refused SQL says why there).
func (db *DB) prepareStmt(ctx context.Context, query string) *sql.Stmt {
	st, err := db.r.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	db.stmtMu.Lock()
	defer db.stmtMu.Unlock()
	if kept := db.stmts[query]; kept != nil {
		st.Close()
		return kept
	}
	if db.stmtsClosed || len(db.stmts) >= maxStmts {
		st.Close()
		return nil
	}
	if db.stmts == nil {
		db.stmts = map[string]*sql.Stmt{}
	}
	db.stmts[query] = st
	return st
}

// prepareLater prepares query on a goroutine of its own, once, which
// waits for a free reader.
func (db *DB) prepareLater(query string) {
	db.stmtMu.Lock()
	defer db.stmtMu.Unlock()
	if db.stmtsClosed || db.preparing[query] || len(db.stmts)+len(db.preparing) >= maxStmts {
		return
	}
	if db.preparing == nil {
		db.preparing = map[string]bool{}
	}
	db.preparing[query] = true
	go func() {
		// Closing the domain closes its readers, which ends the wait.
		db.prepareStmt(context.Background(), query)
		db.stmtMu.Lock()
		delete(db.preparing, query)
		db.stmtMu.Unlock()
	}()
}

// Close checkpoints and closes both pools.
func (db *DB) Close() error {
	db.stopWriter()
	for _, st := range db.prepared {
		st.Close()
	}
	db.stmtMu.Lock()
	db.stmtsClosed = true
	if db.auth != nil {
		db.auth.Close()
	}
	for _, st := range db.stmts {
		st.Close()
	}
	for _, st := range db.searchStmts {
		st.Close()
	}
	if db.search != nil {
		db.search.Close()
	}
	db.stmtMu.Unlock()
	db.access.closeWatch()
	err := db.r.Close()
	// The WAL's owner, if another, checkpoints what it has copied.
	if !db.walOwned {
		if _, cerr := db.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); cerr != nil && err == nil {
			err = cerr
		}
	}
	if cerr := db.w.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return wrap("close domain file", err)
}

// read runs fn in one read transaction, so a multi-query read sees one
// snapshot.
func (db *DB) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// isUnique reports whether err is SQLite refusing a UNIQUE constraint. It
// matches the extended error code, never the message text.
func isUnique(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

// uniqueViolation turns SQLite's refusal of a UNIQUE constraint into
// ErrDuplicate.
func uniqueViolation(err error) error {
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// notFound turns sql.ErrNoRows into ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// changed returns ErrNotFound when an UPDATE matched no row.
func changed(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// boolInt stores a Go bool as SQLite's 0/1.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nullString returns NULL for an empty text, which the spec asks for ("empty
// text fields are stored as null").
func nullString(s string) sql.NullString {
	return sql.NullString{String: s, Valid: s != ""}
}

// nullInt returns NULL for zero: a code not given.
func nullInt(n int) sql.NullInt64 {
	return sql.NullInt64{Int64: int64(n), Valid: n != 0}
}

// compareVersions compares dotted versions numerically.
func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			fmt.Sscan(pa[i], &x)
		}
		if i < len(pb) {
			fmt.Sscan(pb[i], &y)
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// SQLiteVersion returns the linked SQLite's version.
func SQLiteVersion() (string, error) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return "", wrap("sqlite version", err)
	}
	defer db.Close()
	var v string
	err = db.QueryRow("SELECT sqlite_version()").Scan(&v)
	return v, wrap("sqlite version", err)
}

// setActive enables or disables one record of a unit-scoped table. table is
// always one of the constants below, never input.
func (db *DB) setActive(ctx context.Context, table string, unitID int64, token string, active bool) error {
	return db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		return changed(tx.ExecContext(ctx,
			fmt.Sprintf(`UPDATE %s SET active = ?, updated_at = ? WHERE unit_id = ? AND token = ?`, table),
			boolInt(active), timestamp(now), unitID, token))
	})
}

// Now returns the domain's clock reading.
func (db *DB) Now() time.Time { return db.now() }
