package store

import (
	"context"
	"database/sql"
	"time"
)

// Mail is a message of the outbox.
type Mail struct {
	Token     string `json:"token"`
	Kind      string `json:"kind"`
	To        string `json:"to"`
	Subject   string `json:"subject"`
	Body      string `json:"body"`
	Status    string `json:"status"`
	Attempts  int    `json:"attempts"`
	LastError Text   `json:"last_error"`
	SentAt    Text   `json:"sent_at"`
	CreatedAt string `json:"created_at"`
}

// queueNotice adds a message to the outbox; a notice without an address is
// dropped (the order asked for none), and a dedupe key already queued
// counts once.
func queueNotice(ctx context.Context, tx *sql.Tx, unitID, orderID int64, n *Notice, now time.Time, newID func() string) error {
	if n == nil || n.To == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO outbox (token, unit_id, order_id, kind, dedupe_key, to_addr, subject, body, status, next_try_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
		ON CONFLICT (dedupe_key) DO NOTHING`,
		newID(), unitID, orderID, n.Kind, nullString(n.DedupeKey), n.To, n.Subject, n.Body, timestamp(now), timestamp(now))
	return err
}

// Outbox lists the domain's messages, newest first.
func (db *DB) Outbox(ctx context.Context, limit int) ([]Mail, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT token, kind, to_addr, subject, body, status, attempts, last_error, sent_at, created_at
		FROM outbox ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Mail{}
	for rows.Next() {
		var m Mail
		if err := rows.Scan(&m.Token, &m.Kind, &m.To, &m.Subject, &m.Body, &m.Status, &m.Attempts, &m.LastError, &m.SentAt, &m.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
