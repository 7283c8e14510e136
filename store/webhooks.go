package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"
)

// WebhookEvents are the events a webhook may subscribe to ("*" for all).
// The enum tags of Event.Type and Delivery.EventType list the same
// (TestWebhookEventsDocumented).
var WebhookEvents = map[string]bool{
	"sales_order.created": true, "charge.created": true, "charge.paid": true, "charge.reopened": true, "charge.reminder_sent": true, "charge.overdue": true, "charge.cancelled": true, "charge.refused": true, "charge.refunded": true, "charge.refund_refused": true,
	"invoice.issued": true, "invoice.rejected": true, "invoice.denied": true, "invoice.cancelled": true, "contract.created": true, "contract.updated": true, "inventory.low_stock": true,
}

// Webhook is a registered endpoint (its secret is shown once, at
// creation).
type Webhook struct {
	Token     string   `json:"token" format:"uuid" doc:"The webhook's token."`
	URL       string   `json:"url" doc:"Where its events are posted."`
	Events    []string `json:"events" doc:"The events it receives."`
	Active    bool     `json:"active" doc:"false once disabled (/disable_webhook)."`
	CreatedAt Stamp    `json:"created_date" doc:"When it was registered (RFC 3339)."`
}

// InsertWebhook registers an endpoint for events of the unit; an empty
// secret is made here (answered once). It answers the token and secret.
func (db *DB) InsertWebhook(ctx context.Context, unitID int64, url, secret string, events []string) (token, usedSecret string, err error) {
	token = db.newToken(ctx)
	if secret == "" {
		secret = "whsec_" + db.secret(24)
	}
	ev, _ := json.Marshal(events)
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO webhooks (token, unit_id, url, secret, events, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			token, unitID, url, secret, string(ev), timestamp(now), timestamp(now))
		return err
	})
	return token, secret, wrap("insert webhook", err)
}

// Webhooks lists the unit's webhooks.
func (db *DB) Webhooks(ctx context.Context, unitID int64) ([]Webhook, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT token, url, events, active, created_at FROM webhooks WHERE unit_id = ? ORDER BY id`, unitID)
	if err != nil {
		return nil, wrap("webhooks", err)
	}
	defer rows.Close()
	out := []Webhook{}
	for rows.Next() {
		var w Webhook
		var ev string
		if err := rows.Scan(&w.Token, &w.URL, &ev, &w.Active, &w.CreatedAt); err != nil {
			return nil, wrap("webhooks", err)
		}
		json.Unmarshal([]byte(ev), &w.Events)
		out = append(out, w)
	}
	return out, rows.Err()
}

// SetWebhookActive enables or disables a webhook of the unit.
func (db *DB) SetWebhookActive(ctx context.Context, unitID int64, token string, active bool) error {
	return db.setActive(ctx, "webhooks", unitID, token, active)
}

// Event is a webhook delivery's body.
type Event struct {
	ID        string `json:"id"`
	Type      string `json:"type" enum:"sales_order.created,charge.created,charge.paid,charge.reopened,charge.reminder_sent,charge.overdue,charge.cancelled,charge.refused,charge.refunded,charge.refund_refused,invoice.issued,invoice.rejected,invoice.denied,invoice.cancelled,contract.created,contract.updated,inventory.low_stock"`
	CreatedAt string `json:"created_at"`
	UnitToken string `json:"unit_token"`
	Data      any    `json:"data"`
}

// emit queues an event for every active webhook of the unit that wants it,
// in the transaction of the change it reports: the event is delivered iff
// the change is committed, and no request waits for an endpoint.
func (db *DB) emit(ctx context.Context, tx *sql.Tx, unitID int64, typ string, data any, now time.Time) error {
	rows, err := tx.QueryContext(ctx, `SELECT w.id, w.events, u.token FROM webhooks w JOIN units u ON u.id = w.unit_id WHERE w.unit_id = ? AND w.active = 1`, unitID)
	if err != nil {
		return err
	}
	type hook struct {
		id   int64
		unit string
	}
	var hooks []hook
	for rows.Next() {
		var h hook
		var ev string
		if err := rows.Scan(&h.id, &ev, &h.unit); err != nil {
			rows.Close()
			return err
		}
		var events []string
		json.Unmarshal([]byte(ev), &events)
		for _, e := range events {
			if e == typ || e == "*" || (strings.HasSuffix(e, ".*") && strings.HasPrefix(typ, strings.TrimSuffix(e, "*"))) {
				hooks = append(hooks, h)
				break
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, h := range hooks {
		ev := Event{ID: "evt_" + db.id(), Type: typ, CreatedAt: stampOf(now).String, UnitToken: h.unit, Data: data}
		payload, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (event_id, webhook_id, event_type, payload, status, next_try_at, created_at)
			VALUES (?, ?, ?, ?, 'pending', ?, ?)`, ev.ID, h.id, typ, string(payload), timestamp(now), timestamp(now)); err != nil {
			return err
		}
	}
	return nil
}

// Delivery is a webhook delivery as its log shows it.
type Delivery struct {
	EventID     string          `json:"event_id" doc:"The event's id (in its payload too)."`
	Webhook     string          `json:"id_token_webhook" doc:"The webhook it goes to."`
	EventType   string          `json:"event_type" enum:"sales_order.created,charge.created,charge.paid,charge.reopened,charge.reminder_sent,charge.overdue,charge.cancelled,charge.refused,charge.refunded,charge.refund_refused,invoice.issued,invoice.rejected,invoice.denied,invoice.cancelled,contract.created,contract.updated,inventory.low_stock" doc:"The event."`
	Status      string          `json:"status" enum:"pending,sent,failed" doc:"pending (to send or retry), sent or failed (given up)."`
	Attempts    int             `json:"attempts" doc:"How many times it was posted."`
	LastStatus  *int            `json:"last_status" doc:"The endpoint's last HTTP status; null before any answer."`
	LastError   Text            `json:"last_error" doc:"Why the last attempt failed; null when none."`
	DeliveredAt Stamp           `json:"delivered_at" doc:"When it was delivered (RFC 3339); null before."`
	CreatedAt   Stamp           `json:"created_date" doc:"When the event happened (RFC 3339)."`
	Payload     json.RawMessage `json:"payload" doc:"The body posted."`
}

// Deliveries lists a page of the deliveries of the unit's webhooks
// (EveryUnit: every unit's), newest first, and how many there are.
func (db *DB) Deliveries(ctx context.Context, unitID int64, pg Page) ([]Delivery, int, error) {
	l := listing{what: "deliveries", query: `SELECT d.event_id, w.token, d.event_type, d.status, d.attempts, d.last_status, d.last_error, d.delivered_at,
		d.created_at, d.payload FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id`, order: "d.id DESC"}
	if unitID != EveryUnit {
		l.where, l.args = []string{"w.unit_id = ?"}, []any{unitID}
	}
	return pageOf(ctx, db, l, pg, func(rows *sql.Rows) (Delivery, error) {
		var d Delivery
		var last sql.NullInt64
		var payload string
		if err := rows.Scan(&d.EventID, &d.Webhook, &d.EventType, &d.Status, &d.Attempts, &last, &d.LastError, &d.DeliveredAt, &d.CreatedAt, &payload); err != nil {
			return d, err
		}
		if last.Valid {
			n := int(last.Int64)
			d.LastStatus = &n
		}
		d.Payload = json.RawMessage(payload)
		return d, nil
	})
}

// DueDelivery is a delivery ready to be sent.
type DueDelivery struct {
	WebhookID                       int64
	EventID, URL, Secret, EventType string
	Payload                         []byte
	Attempts                        int
}

// DueDeliveries lists up to limit deliveries whose next try is due, in
// the order their events happened.
func (db *DB) DueDeliveries(ctx context.Context, limit int) ([]DueDelivery, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT w.id, d.event_id, w.url, w.secret, d.event_type, d.payload, d.attempts FROM webhook_deliveries d
		JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND d.next_try_at <= ? ORDER BY d.id LIMIT ?`, timestamp(db.now()), limit)
	if err != nil {
		return nil, wrap("due deliveries", err)
	}
	defer rows.Close()
	var out []DueDelivery
	for rows.Next() {
		var d DueDelivery
		var p string
		if err := rows.Scan(&d.WebhookID, &d.EventID, &d.URL, &d.Secret, &d.EventType, &p, &d.Attempts); err != nil {
			return nil, wrap("due deliveries", err)
		}
		d.Payload = []byte(p)
		out = append(out, d)
	}
	return out, rows.Err()
}

// MaxDeliveryAttempts is how often a delivery is tried.
const MaxDeliveryAttempts = 10

// DeliveryDone records a try: delivered (failure ""), or failed, with the
// reason the log shows, and the next try after 30 s, 1, 2, 4 … minutes
// (at most 6 h), failed for good after MaxDeliveryAttempts.
func (db *DB) DeliveryDone(ctx context.Context, eventID string, status int, failure string) error {
	return wrap("delivery done", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var attempts int
		if err := tx.QueryRowContext(ctx, `SELECT attempts FROM webhook_deliveries WHERE event_id = ?`, eventID).Scan(&attempts); err != nil {
			return notFound(err)
		}
		attempts++
		st := sql.NullInt64{Int64: int64(status), Valid: status != 0}
		if failure == "" {
			_, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'sent', attempts = ?, last_status = ?, last_error = NULL, delivered_at = ?
				WHERE event_id = ?`, attempts, st, timestamp(now), eventID)
			return err
		}
		next := min((30*time.Second)<<min(attempts-1, 12), 6*time.Hour)
		state := "pending"
		if attempts >= MaxDeliveryAttempts {
			state = "failed"
		}
		_, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = ?, attempts = ?, last_status = ?, last_error = ?, next_try_at = ? WHERE event_id = ?`,
			state, attempts, st, failure, timestamp(now.Add(next)), eventID)
		return err
	}))
}
