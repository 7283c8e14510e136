package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Mail is a message of the outbox.
type Mail struct {
	Token       string           `json:"token" format:"uuid" doc:"The message's token."`
	Kind        string           `json:"kind" doc:"What it is, as fincom names its messages (a charge notice, an invoice, a sign-in link, …)."`
	To          string           `json:"to" doc:"The address it goes to."`
	Subject     string           `json:"subject" doc:"Its subject."`
	Body        string           `json:"body" doc:"Its text (a secret in it sealed, never listed in clear)."`
	Attachments []AttachmentInfo `json:"attachments" doc:"Its attachments."`
	Status      string           `json:"status" enum:"pending,sent,failed" doc:"pending (to send or retry), sent or failed (given up)."`
	Attempts    int              `json:"attempts" doc:"How many times it was tried."`
	LastError   Text             `json:"last_error" doc:"Why the last attempt failed; null when none."`
	SentAt      Stamp            `json:"sent_at" doc:"When it was sent (RFC 3339); null before."`
	CreatedAt   Stamp            `json:"created_at" doc:"When it was queued (RFC 3339)."`
	// Sealed is the sealed secret Body's SealedMark stands for (none is
	// ever listed in clear).
	Sealed []byte `json:"-"`
}

// Attachment is a file an e-mail carries.
type Attachment struct {
	Name, ContentType string
	Data              []byte
}

// AttachmentInfo describes an attachment in the outbox's listing.
type AttachmentInfo struct {
	Name        string `json:"name" doc:"The attachment's file name."`
	ContentType string `json:"content_type" doc:"Its media type."`
	Size        int64  `json:"size" doc:"Its size in bytes."`
}

// queueNotice adds a message to the outbox (of an order, or of none when
// orderID is 0); a notice without an address is
// dropped (the order asked for none), and a dedupe key already queued
// counts once.
func queueNotice(ctx context.Context, tx *sql.Tx, unitID, orderID int64, n *Notice, now time.Time, newID func() string) error {
	if n == nil || n.To == "" {
		return nil
	}
	var id int64
	err := tx.QueryRowContext(ctx, `
		INSERT INTO outbox (token, unit_id, order_id, kind, dedupe_key, to_addr, subject, body, status, next_try_at, created_at, sealed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)
		ON CONFLICT (dedupe_key) DO NOTHING
		RETURNING id`,
		newID(), unitID, sql.NullInt64{Int64: orderID, Valid: orderID != 0}, n.Kind, nullString(n.DedupeKey), n.To, n.Subject, n.Body, timestamp(now), timestamp(now),
		n.Sealed).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // queued already
	}
	if err != nil {
		return err
	}
	for i, a := range n.Attachments {
		if _, err := tx.ExecContext(ctx, `INSERT INTO outbox_attachments (outbox_id, position, name, content_type, size, data) VALUES (?, ?, ?, ?, ?, ?)`,
			id, i, a.Name, a.ContentType, len(a.Data), a.Data); err != nil {
			return err
		}
	}
	return nil
}

// Outbox lists the unit's messages (EveryUnit: the domain's), newest
// first.
func (db *DB) Outbox(ctx context.Context, unitID int64, limit int) ([]Mail, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT token, kind, to_addr, subject, body, status, attempts, last_error, sent_at, created_at, sealed,
			(SELECT json_group_array(json_object('name', name, 'content_type', content_type, 'size', size))
			 FROM (SELECT * FROM outbox_attachments WHERE outbox_id = outbox.id ORDER BY position))
		FROM outbox WHERE ? = ? OR unit_id = ? ORDER BY id DESC LIMIT ?`, unitID, EveryUnit, unitID, limit)
	if err != nil {
		return nil, wrap("outbox", err)
	}
	defer rows.Close()
	out := []Mail{}
	for rows.Next() {
		var m Mail
		var files string
		if err := rows.Scan(&m.Token, &m.Kind, &m.To, &m.Subject, &m.Body, &m.Status, &m.Attempts, &m.LastError, &m.SentAt, &m.CreatedAt, &m.Sealed, &files); err != nil {
			return nil, wrap("outbox", err)
		}
		if err := json.Unmarshal([]byte(files), &m.Attachments); err != nil {
			return nil, fmt.Errorf("outbox attachments: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// NoticeCandidate is an open charge an alert is about (its order's
// notify_email_alert: overdue).
type NoticeCandidate struct {
	ChargeToken, PublicToken, Email               string
	Seller, Customer, OrderCode, Description, Due string
	Amount                                        Money
	Days                                          int
	orderID, unitID                               int64
}

// PendingMail is a message ready to be sent.
type PendingMail struct {
	Token, To, Subject, Body string
	Attachments              []Attachment
	Attempts                 int
	Sealed                   []byte // see Notice.Sealed
}

// DueMail lists up to limit pending messages whose next try is due, with
// their attachments.
func (db *DB) DueMail(ctx context.Context, limit int) ([]PendingMail, error) {
	var out []PendingMail
	err := db.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, token, to_addr, subject, body, attempts, sealed FROM outbox
			WHERE status = 'pending' AND next_try_at <= ? ORDER BY id LIMIT ?`, timestamp(db.now()), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			var m PendingMail
			if err := rows.Scan(&id, &m.Token, &m.To, &m.Subject, &m.Body, &m.Attempts, &m.Sealed); err != nil {
				return err
			}
			ids, out = append(ids, id), append(out, m)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for i, id := range ids {
			files, err := tx.QueryContext(ctx, `SELECT name, content_type, data FROM outbox_attachments WHERE outbox_id = ? ORDER BY position`, id)
			if err != nil {
				return err
			}
			for files.Next() {
				var a Attachment
				if err := files.Scan(&a.Name, &a.ContentType, &a.Data); err != nil {
					files.Close()
					return err
				}
				out[i].Attachments = append(out[i].Attachments, a)
			}
			files.Close()
			if err := files.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	return out, wrap("due mail", err)
}

// MaxMailAttempts is how often a message is tried before it is failed.
const MaxMailAttempts = 8

// MailSent marks a message sent, and drops its files' bytes (their names
// and sizes stay listed).
func (db *DB) MailSent(ctx context.Context, token string) error {
	return wrap("mail sent", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET status = 'sent', attempts = attempts + 1, sent_at = ?, last_error = NULL, sealed = NULL WHERE token = ?`,
			timestamp(now), token); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE outbox_attachments SET data = NULL WHERE outbox_id = (SELECT id FROM outbox WHERE token = ?)`, token)
		return err
	}))
}

// MailFailed records a failed try: the next one waits twice as long as the
// last (one minute, two, four, ... up to six hours); after MaxMailAttempts
// the message is failed for good.
func (db *DB) MailFailed(ctx context.Context, token string, cause error) error {
	return wrap("mail failed", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var attempts int
		if err := tx.QueryRowContext(ctx, `SELECT attempts FROM outbox WHERE token = ?`, token).Scan(&attempts); err != nil {
			return notFound(err)
		}
		attempts++
		wait := time.Minute << min(attempts-1, 9)
		status := "pending"
		if attempts >= MaxMailAttempts {
			status = "failed"
		}
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET attempts = ?, status = ?, next_try_at = ?, last_error = ?,
			sealed = CASE ? WHEN 'failed' THEN NULL ELSE sealed END WHERE token = ?`,
			attempts, status, timestamp(now.Add(min(wait, 6*time.Hour))), cause.Error(), status, token)
		return err
	}))
}
