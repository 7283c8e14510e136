package store

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// System is the application-level file `_system.db` beside the domain
// files. It holds what belongs to no domain: the technical tokens
// (token_tec). Its name cannot be a domain's (domain names have no '_').
type System struct {
	w, r *sql.DB
	now  func() time.Time
}

const tecPrefix = "fct_"

// OpenSystem opens (creating when needed) the system file in dir.
func OpenSystem(dir string, durability Durability, now func() time.Time) (*System, error) {
	path := filepath.Join(dir, "_system.db")
	// Created readable by its owner only, as domain files are: it holds
	// the technical tokens' hashes.
	if f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		f.Close()
		os.Chmod(path, 0o600) // a file an older build made 0644
	}
	w, r, err := openDB(path, durability)
	if err != nil {
		return nil, wrap("open system", err)
	}
	if _, err := w.Exec(`CREATE TABLE IF NOT EXISTS tec_tokens (
		id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, created_at TEXT NOT NULL, revoked_at TEXT) STRICT`); err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("init system file: %w", err)
	}
	if now == nil {
		now = time.Now
	}
	return &System{w: w, r: r, now: now}, nil
}

// Close closes the system file.
func (s *System) Close() error {
	s.r.Close()
	return s.w.Close()
}

// CreateTecToken makes a technical token; only its hash is kept.
func (s *System) CreateTecToken(ctx context.Context) (string, error) {
	token := tecPrefix + NewSecret(32)
	_, err := s.w.ExecContext(ctx, `INSERT INTO tec_tokens (hash, created_at) VALUES (?, ?)`, hashToken(token), timestamp(s.now()))
	if err != nil {
		return "", fmt.Errorf("create tec token: %w", err)
	}
	return token, nil
}

// CheckTecToken returns ErrUnauthorized unless token is a live technical
// token.
func (s *System) CheckTecToken(ctx context.Context, token string) error {
	want := hashToken(token)
	var got []byte
	err := s.r.QueryRowContext(ctx, `SELECT hash FROM tec_tokens WHERE hash = ? AND revoked_at IS NULL`, want).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && subtle.ConstantTimeCompare(got, want) != 1) {
		return ErrUnauthorized
	}
	return wrap("check tec token", err)
}
