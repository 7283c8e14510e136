package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// idSource draws a seeded domain's tokens and secrets (serve --seed N).
// Each draw is SHA-256(seed, stream, counter): the same requests in the
// same order make the same record tokens, access and unit tokens, public
// tokens, webhook secrets and event ids run to run, so that integrators'
// golden files hold. The stream is the domain's name; the counter is kept
// in the domain file (meta token_seq), advanced in each write's own
// transaction, so a restart, a snapshot or a reset goes on from the state
// it brings back and never draws a token the file already holds.
//
// Unseeded domains draw from crypto/rand, as real tokens must.
type idSource struct {
	seed   uint64
	stream string
	n      atomic.Uint64 // draws made
	saved  atomic.Uint64 // draws recorded in the file
}

// draw answers 32 bytes for the next counter value.
func (s *idSource) draw() [32]byte { return seededHash(s.seed, s.stream, s.n.Add(1)) }

// seededHash is SHA-256(seed, stream, n): the one derivation of every
// seeded token and name.
func seededHash(seed uint64, stream string, n uint64) [32]byte {
	var b [8 + 8]byte
	binary.BigEndian.PutUint64(b[:8], seed)
	binary.BigEndian.PutUint64(b[8:], n)
	return sha256.Sum256(append(append(b[:8:8], stream+"\x00"...), b[8:]...))
}

// newIDSource opens the seeded draws of the domain file w holds, going on
// from the counter it recorded.
func newIDSource(ctx context.Context, w *sql.DB, seed uint64, stream string) (*idSource, error) {
	s := &idSource{seed: seed, stream: stream}
	return s, s.load(ctx, w)
}

// uuid answers a version 4 UUID (the format of record tokens).
func (s *idSource) uuid() string {
	b := s.draw()
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// secret answers n bytes as hex, like NewSecret.
func (s *idSource) secret(n int) string {
	out := make([]byte, 0, n)
	for len(out) < n {
		b := s.draw()
		out = append(out, b[:min(32, n-len(out))]...)
	}
	return hex.EncodeToString(out)
}

// load reads the counter a file has recorded.
func (s *idSource) load(ctx context.Context, w *sql.DB) error {
	var v sql.NullInt64
	err := w.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'token_seq'`).Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read token_seq: %w", err)
	}
	s.n.Store(uint64(v.Int64))
	s.saved.Store(uint64(v.Int64))
	return nil
}

// record writes the counter in the write's transaction when draws were
// made since the last record; committed tells it was kept.
func (s *idSource) record(ctx context.Context, tx *sql.Tx) (committed func(), err error) {
	n := s.n.Load()
	if n == s.saved.Load() {
		return func() {}, nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('token_seq', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, fmt.Sprint(n)); err != nil {
		return nil, fmt.Errorf("record token_seq: %w", err)
	}
	return func() { s.saved.Store(n) }, nil
}

// NewUUID returns a record token: a version 7 UUID (RFC 9562), the Unix
// time in milliseconds followed by 74 random bits. Tokens are unique keys
// of their tables: random (version 4) ones landed each insert on a random
// page of every token index, so a batch of 25 inserts dirtied 25 more pages
// and the WAL grew half as fast again (the tail of insert_contact under
// sustained writes); time-ordered ones append. Unguessable still (the
// payment portal's public tokens are secrets, not UUIDs).
func NewUUID() string { return newUUIDAt(time.Now()) }

func newUUIDAt(t time.Time) string {
	var b [16]byte
	rand.Read(b[6:])
	ms := uint64(t.UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	b[6] = (b[6] & 0x0f) | 0x70
	b[8] = (b[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// NewSecret returns n random bytes as lower-case hex.
func NewSecret(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// hashToken is how access tokens are kept: a SHA-256 of a 256-bit random
// value cannot be reversed, and needs no slow hash.
func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
