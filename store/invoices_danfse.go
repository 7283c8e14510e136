package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// InvoiceDANFSe answers the national system's DANFSe kept for the
// invoice of token, if any.
func (db *DB) InvoiceDANFSe(ctx context.Context, token string) ([]byte, bool, error) {
	var pdf []byte
	err := db.r.QueryRowContext(ctx, `SELECT danfse FROM invoices WHERE token = ? AND danfse IS NOT NULL`, token).Scan(&pdf)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return pdf, err == nil, wrap("invoice danfse", err)
}

// KeepDANFSe keeps the national system's DANFSe of the invoice of token.
func (db *DB) KeepDANFSe(ctx context.Context, token string, pdf []byte) error {
	return wrap("keep danfse", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `UPDATE invoices SET danfse = ? WHERE token = ?`, pdf, token)
		return err
	}))
}
