package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Screening is a received document awaiting triage: its file, what fincom
// read from it, and its status (pending, converted into an expense, or
// discarded).
type Screening struct {
	Token       string          `json:"token" format:"uuid" doc:"The screening's token."`
	Status      string          `json:"status" enum:"pending,converted,discarded" doc:"pending (to review), converted (into an entry) or discarded."`
	FileName    string          `json:"file_name" doc:"The document's file name."`
	ContentType string          `json:"content_type" doc:"Its media type."`
	Size        int64           `json:"size" doc:"Its size in bytes."`
	Extracted   json.RawMessage `json:"extracted" doc:"What was read from the document (amount, dates, barcode, …), as /get_ocr_data_by_file answers it."`
	Note        Text            `json:"note" doc:"Free notes; null when none."`
	CreatedDate Stamp           `json:"created_date" doc:"When it was received (RFC 3339)."`
}

// InsertScreening stores a received document with the data read from it
// (extracted, a JSON object).
func (db *DB) InsertScreening(ctx context.Context, unitID int64, f NewFile, extracted json.RawMessage, note string) (string, error) {
	token := db.newToken(ctx)
	sum := sha256.Sum256(f.Data)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO screenings (token, unit_id, status, file_name, content_type, size, sha256, data, extracted, note, created_at, updated_at)
			VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			token, unitID, sanitizeName(f.Name), f.ContentType, len(f.Data), hex.EncodeToString(sum[:]), f.Data,
			string(extracted), nullString(note), timestamp(now), timestamp(now))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("insert screening: %w", err)
	}
	return token, nil
}

const screeningSelect = `SELECT token, status, file_name, content_type, size, extracted, note, created_at FROM screenings`

func scanScreening(s scanner) (Screening, error) {
	var sc Screening
	var extracted string
	err := s.Scan(&sc.Token, &sc.Status, &sc.FileName, &sc.ContentType, &sc.Size, &extracted, &sc.Note, &sc.CreatedDate)
	sc.Extracted = json.RawMessage(extracted)
	return sc, err
}

// Screening returns one screening of the unit.
func (db *DB) Screening(ctx context.Context, unitID int64, token string) (Screening, error) {
	sc, err := scanScreening(db.r.QueryRowContext(ctx, screeningSelect+` WHERE unit_id = ? AND token = ?`, unitID, token))
	return sc, wrap("screening", notFound(err))
}

// Screenings lists a page of the unit's screenings with a status ("" for
// all), newest first, and how many there are.
func (db *DB) Screenings(ctx context.Context, unitID int64, status string, pg Page) ([]Screening, int, error) {
	l := listing{what: "screenings", query: screeningSelect, where: []string{"unit_id = ?", "(? = '' OR status = ?)"},
		args: []any{unitID, status, status}, order: "id DESC"}
	return pageOf(ctx, db, l, pg, func(rows *sql.Rows) (Screening, error) { return scanScreening(rows) })
}

// takeScreening marks a pending screening of the unit converted and puts
// its file first among the entry's files.
func takeScreening(ctx context.Context, tx *sql.Tx, unitID int64, token string, files []NewFile, now time.Time) (sql.NullInt64, []NewFile, error) {
	var id int64
	var f NewFile
	err := tx.QueryRowContext(ctx, `SELECT id, file_name, content_type, data FROM screenings WHERE unit_id = ? AND token = ? AND status = 'pending'`,
		unitID, token).Scan(&id, &f.Name, &f.ContentType, &f.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return sql.NullInt64{}, nil, ErrScreeningUnavailable
	}
	if err != nil {
		return sql.NullInt64{}, nil, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE screenings SET status = 'converted', updated_at = ? WHERE id = ?`, timestamp(now), id); err != nil {
		return sql.NullInt64{}, nil, err
	}
	return sql.NullInt64{Int64: id, Valid: true}, append([]NewFile{f}, files...), nil
}

// SetScreeningStatus discards a pending screening or brings a discarded one
// back to pending.
func (db *DB) SetScreeningStatus(ctx context.Context, unitID int64, token, from, to string) error {
	return wrap("set screening status", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		return changed(tx.ExecContext(ctx, `UPDATE screenings SET status = ?, updated_at = ? WHERE unit_id = ? AND token = ? AND status = ?`,
			to, timestamp(now), unitID, token, from))
	}))
}
