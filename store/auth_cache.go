package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"
)

// The access Authenticate answers is kept in memory for a token and unit
// pair: every private request checks its tokens, and on a busy domain
// that query was the largest part of a write's time (README,
// Performance). What is kept stays true:
//
//   - A change to what it was read from (access tokens, users, their roles,
//     units) counts itself in auth_changes (triggers, schema.sql). The
//     writer reads that count in every commit; when it moved, everything
//     kept is dropped before the commit's caller is answered, so a token
//     revoked, a user deactivated or a role taken away through this server
//     stops the next request.
//   - A change made by another process on the same file (the CLI while the
//     server runs) is not seen by this writer. Before a kept access is
//     answered, a connection of its own asks SQLite whether any other
//     connection committed since it last asked (PRAGMA data_version, a
//     read of memory SQLite shares between processes); when one did, it
//     reads the auth_changes count, and drops what is kept when that
//     moved. So `fincom token revoke` holds from the first request after
//     it exits, and a busy server pays one pragma a request.
//   - Whatever else, an access is kept at most authKeep of real time.
//
// Refusals are never kept: an unknown token is looked up each time.
type authCache struct {
	gen     atomic.Uint64 // moved when kept access may be stale
	mu      sync.Mutex
	entries map[authKey]authEntry
	// seen is the auth_changes count the writer last read (-1: none);
	// the writer goroutine's own.
	seen int64

	// The watch on other connections' commits (fresh): its connection,
	// the data_version it last read and the auth_changes count it last
	// read then, under watchMu.
	watchMu    sync.Mutex
	watch      *sql.Conn
	version    int64
	watchSeen  int64
	watchBuilt bool
}

type authKey struct{ hash, unit string }

type authEntry struct {
	access Access
	gen    uint64
	kept   time.Time
}

const (
	// authKeep bounds how long an access is kept, in real time (not the
	// domain's clock, which a test or FINCOM_NOW may stop).
	authKeep = time.Second
	// authKept bounds the pairs kept; past it the cache starts over.
	authKept = 4096
)

func newAuthCache() *authCache { return &authCache{seen: -1, watchSeen: -1} }

// get answers the access kept for key, if it is still good; gen is the
// generation read before the caller's own query would run.
func (c *authCache) get(key authKey, gen uint64) (Access, bool) {
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if !ok || e.gen != gen || time.Since(e.kept) > authKeep {
		return Access{}, false
	}
	return e.access, true
}

// put keeps what a query read under generation gen (read before it ran:
// an access read before a change commits carries the generation that
// change moves past).
func (c *authCache) put(key authKey, gen uint64, a Access) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= authKept {
		c.entries = make(map[authKey]authEntry)
	}
	c.entries[key] = authEntry{access: a, gen: gen, kept: time.Now()}
}

const sqlAuthChanges = `SELECT n FROM auth_changes`

// authChanges reads the count of auth changes in the writer's transaction,
// before it commits; access.changed, after the commit, drops what is kept
// when the count moved.
func (db *DB) authChanges(ctx context.Context, tx *sql.Tx) (int64, error) {
	var n int64
	err := db.queryRow(ctx, tx, sqlAuthChanges).Scan(&n)
	return n, err
}

// fresh moves the cache's generation when another connection committed a
// change to what kept access is read from since it last looked (the
// comment above authCache); r is the reader pool its connection is drawn
// from, once, and kept.
func (c *authCache) fresh(ctx context.Context, r *sql.DB) error {
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	if c.watch == nil {
		conn, err := r.Conn(ctx)
		if err != nil {
			return err
		}
		c.watch = conn
	}
	var v int64
	if err := c.watch.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return c.dropWatch(err)
	}
	if c.watchBuilt && v == c.version {
		return nil
	}
	var n int64
	if err := c.watch.QueryRowContext(ctx, sqlAuthChanges).Scan(&n); err != nil {
		return c.dropWatch(err)
	}
	if n != c.watchSeen {
		c.gen.Add(1)
	}
	c.version, c.watchSeen, c.watchBuilt = v, n, true
	return nil
}

// dropWatch gives the watch's connection back after a failure (the next
// request draws another) and answers err.
func (c *authCache) dropWatch(err error) error {
	c.watch.Close()
	c.watch, c.watchBuilt = nil, false
	c.gen.Add(1)
	return err
}

// closeWatch gives the watch's connection back (the domain closes).
func (c *authCache) closeWatch() {
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	if c.watch != nil {
		c.watch.Close()
		c.watch, c.watchBuilt = nil, false
	}
}

func (c *authCache) changed(n int64) {
	if n != c.seen {
		c.seen = n
		c.gen.Add(1)
	}
}
