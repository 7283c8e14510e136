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

// NoticeCandidate is an open charge whose reminder is due today:
// notify_days_charge days before its due date.
type NoticeCandidate struct {
	ChargeToken, PublicToken, Email               string
	Seller, Customer, OrderCode, Description, Due string
	Amount                                        Money
	Days                                          int
	orderID, unitID                               int64
}

// QueueChargeNotices queues, for every open charge due notify_days_charge
// days after today, the reminder that render writes; each reminder is
// queued once (dedupe key). It answers how many it queued.
func (db *DB) QueueChargeNotices(ctx context.Context, today Date, render func(NoticeCandidate) (*Notice, error)) (int, error) {
	n := 0
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		rows, err := tx.QueryContext(ctx, `
			SELECT c.token, o.public_token, o.notify_email_charge, un.name, COALESCE(ct.display_name, ''), o.cod_orders,
				o.description, c.due_date, c.amount, o.notify_days_charge, o.id, o.unit_id
			FROM charges c JOIN sales_orders o ON o.id = c.order_id JOIN units un ON un.id = o.unit_id
			LEFT JOIN contacts ct ON ct.id = o.contact_id
			WHERE c.status = 'PENDING' AND o.active = 1 AND o.notify_days_charge > 0 AND o.notify_email_charge IS NOT NULL
				AND o.public_token IS NOT NULL AND date(c.due_date, '-' || o.notify_days_charge || ' days') = ?`, today.ISO())
		if err != nil {
			return err
		}
		var cands []NoticeCandidate
		for rows.Next() {
			var c NoticeCandidate
			if err := rows.Scan(&c.ChargeToken, &c.PublicToken, &c.Email, &c.Seller, &c.Customer, &c.OrderCode, &c.Description,
				&c.Due, &c.Amount, &c.Days, &c.orderID, &c.unitID); err != nil {
				rows.Close()
				return err
			}
			cands = append(cands, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, c := range cands {
			notice, err := render(c)
			if err != nil {
				return err
			}
			if notice == nil {
				continue
			}
			notice.DedupeKey = "charge_notice:" + c.ChargeToken
			if err := queueNotice(ctx, tx, c.unitID, c.orderID, notice, now, db.id); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// PendingMail is a message ready to be sent.
type PendingMail struct {
	Token, To, Subject, Body string
	Attempts                 int
}

// DueMail lists up to limit pending messages whose next try is due.
func (db *DB) DueMail(ctx context.Context, limit int) ([]PendingMail, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT token, to_addr, subject, body, attempts FROM outbox
		WHERE status = 'pending' AND next_try_at <= ? ORDER BY id LIMIT ?`, timestamp(db.now()), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PendingMail
	for rows.Next() {
		var m PendingMail
		if err := rows.Scan(&m.Token, &m.To, &m.Subject, &m.Body, &m.Attempts); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// MaxMailAttempts is how often a message is tried before it is failed.
const MaxMailAttempts = 8

// MailSent marks a message sent.
func (db *DB) MailSent(ctx context.Context, token string) error {
	return db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET status = 'sent', attempts = attempts + 1, sent_at = ?, last_error = NULL WHERE token = ?`,
			timestamp(now), token)
		return err
	})
}

// MailFailed records a failed try: the next one waits twice as long as the
// last (one minute, two, four, ... up to six hours); after MaxMailAttempts
// the message is failed for good.
func (db *DB) MailFailed(ctx context.Context, token string, cause error) error {
	return db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
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
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET attempts = ?, status = ?, next_try_at = ?, last_error = ? WHERE token = ?`,
			attempts, status, timestamp(now.Add(min(wait, 6*time.Hour))), cause.Error(), token)
		return err
	})
}
