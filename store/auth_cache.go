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
//     server runs) is not seen by this writer: what is kept lives at most
//     authKeep of real time, so such a change holds within that.
//
// Refusals are never kept: an unknown token is looked up each time.
type authCache struct {
	gen     atomic.Uint64 // moved when kept access may be stale
	mu      sync.Mutex
	entries map[authKey]authEntry
	// seen is the auth_changes count the writer last read (-1: none);
	// the writer goroutine's own.
	seen int64
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

func newAuthCache() *authCache { return &authCache{seen: -1} }

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

func (c *authCache) changed(n int64) {
	if n != c.seen {
		c.seen = n
		c.gen.Add(1)
	}
}
