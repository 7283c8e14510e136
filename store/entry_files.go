package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// NewFile is an attachment to store: its content type was sniffed from its
// bytes by the caller.
type NewFile struct {
	Name        string
	ContentType string
	Data        []byte
}

// FileInfo describes a stored attachment (never its bytes).
type FileInfo struct {
	Token       string `json:"token" format:"uuid" doc:"The file's token."`
	Name        string `json:"name" doc:"The file's name, as sent."`
	ContentType string `json:"content_type" doc:"Its media type."`
	Size        int64  `json:"size" doc:"Its size in bytes."`
	SHA256      string `json:"sha256" doc:"Its SHA-256, hex."`
	CreatedDate Stamp  `json:"created_date" doc:"When it was stored (RFC 3339)."`
}

// File is an attachment with its bytes.
type File struct {
	FileInfo
	Data []byte
}

// readFile reads one attachment of a parent record (an entry, a contract)
// the caller has found: ErrFileNotFound when the parent has no such
// file.
func readFile(ctx context.Context, tx *sql.Tx, table, parentColumn string, parentID int64, token string) (File, error) {
	var f File
	// Table and column names are this package's constants, never a
	// request's.
	err := tx.QueryRowContext(ctx, `SELECT token, name, content_type, size, sha256, created_at, data FROM `+table+`
		WHERE `+parentColumn+` = ? AND token = ?`, parentID, token).Scan(&f.Token, &f.Name, &f.ContentType, &f.Size, &f.SHA256, &f.CreatedDate, &f.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return f, ErrFileNotFound
	}
	return f, err
}

// EntryFile reads one attachment of an entry of the unit: ErrNotFound
// without the entry, ErrFileNotFound when the file is not the entry's.
func (db *DB) EntryFile(ctx context.Context, unitID int64, typ, token, fileToken string) (File, error) {
	var f File
	err := db.read(ctx, func(tx *sql.Tx) error {
		id, err := entryID(ctx, tx, unitID, typ, token)
		if err != nil {
			return err
		}
		f, err = readFile(ctx, tx, "entry_files", "entry_id", id, fileToken)
		return err
	})
	return f, wrap("entry file", err)
}

func insertFiles(ctx context.Context, tx *sql.Tx, entryID int64, files []NewFile, now time.Time, newID func() string) ([]string, error) {
	tokens := make([]string, 0, len(files))
	for _, f := range files {
		sum := sha256.Sum256(f.Data)
		tok := newID()
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO entry_files (token, entry_id, name, content_type, size, sha256, data, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			tok, entryID, sanitizeName(f.Name), f.ContentType, len(f.Data), hex.EncodeToString(sum[:]), f.Data, timestamp(now)); err != nil {
			return nil, fmt.Errorf("insert file: %w", err)
		}
		tokens = append(tokens, tok)
	}
	return tokens, nil
}

func entryID(ctx context.Context, tx *sql.Tx, unitID int64, typ, token string) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM entries WHERE unit_id = ? AND type = ? AND token = ?`, unitID, typ, token).Scan(&id)
	return id, notFound(err)
}

// EntryFiles lists an entry's attachments, oldest first.
func (db *DB) EntryFiles(ctx context.Context, unitID int64, typ, token string) ([]FileInfo, error) {
	out := []FileInfo{}
	err := db.read(ctx, func(tx *sql.Tx) error {
		id, err := entryID(ctx, tx, unitID, typ, token)
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT token, name, content_type, size, sha256, created_at FROM entry_files WHERE entry_id = ? ORDER BY id`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var f FileInfo
			if err := rows.Scan(&f.Token, &f.Name, &f.ContentType, &f.Size, &f.SHA256, &f.CreatedDate); err != nil {
				return err
			}
			out = append(out, f)
		}
		return rows.Err()
	})
	return out, wrap("entry files", err)
}

// AddEntryFiles attaches files to an entry of the unit and answers their
// tokens.
func (db *DB) AddEntryFiles(ctx context.Context, unitID int64, typ, token string, files []NewFile) ([]string, error) {
	var tokens []string
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		id, err := entryID(ctx, tx, unitID, typ, token)
		if err != nil {
			return err
		}
		tokens, err = insertFiles(ctx, tx, id, files, now, db.id)
		return err
	})
	return tokens, wrap("add entry files", err)
}

// DeleteEntryFiles removes attachments of an entry of the unit. Every named
// file must be the entry's (else ErrFileNotFound and nothing is deleted). The
// bytes go with the row: domain files run with secure_delete, which
// overwrites freed content.
func (db *DB) DeleteEntryFiles(ctx context.Context, unitID int64, typ, token string, fileTokens []string) error {
	return wrap("delete entry files", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		id, err := entryID(ctx, tx, unitID, typ, token)
		if err != nil {
			return err
		}
		for _, ft := range fileTokens {
			if err := changed(tx.ExecContext(ctx, `DELETE FROM entry_files WHERE entry_id = ? AND token = ?`, id, ft)); err != nil {
				if errors.Is(err, ErrNotFound) {
					return ErrFileNotFound
				}
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE entries SET updated_at = ? WHERE id = ?`, timestamp(now), id)
		return err
	}))
}

// sanitizeName keeps a file's base name, without directories or control
// characters, so that a stored name is safe to show and to download as.
func sanitizeName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(strings.Trim(name, "."))
	if r := []rune(name); len(r) > 200 {
		name = string(r[:200])
	}
	if name == "" {
		name = "file"
	}
	return name
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
