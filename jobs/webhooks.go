package jobs

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Sign is the webhook signature header's value: t=<unix seconds>,
// v1=<hex HMAC-SHA256 of "<t>.<body>" with the webhook's secret>. A
// receiver recomputes it and refuses old timestamps (replays).
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// webhookTimeout is how long an endpoint gets to answer.
const webhookTimeout = 10 * time.Second

// DeliverWebhooks sends the due webhook deliveries of every domain (all)
// or of the open ones. A failure (network, timeout, non-2xx) is recorded
// and tried again later with backoff; it never reaches the request that
// caused the event.
func (r *Runner) DeliverWebhooks(ctx context.Context, all bool) error {
	names, err := r.names(all)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: webhookTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, n := range names {
		db, release, err := r.Domains.Visit(ctx, n)
		if err != nil {
			r.Log.Error("webhooks", "domain", n, "err", err)
			continue
		}
		due, err := db.DueDeliveries(ctx, 100)
		for _, d := range due {
			status, serr := post(ctx, client, d.URL, d.Secret, d.EventID, d.EventType, d.Payload, db.Now())
			if err = db.DeliveryDone(ctx, d.EventID, status, serr); err != nil {
				break
			}
			if serr != nil {
				r.Log.Warn("webhook not delivered", "domain", n, "event", d.EventID, "attempt", d.Attempts+1, "err", serr)
			}
		}
		release()
		if err != nil {
			r.Log.Error("webhooks", "domain", n, "err", err)
		}
	}
	return nil
}

func post(ctx context.Context, c *http.Client, url, secret, id, typ string, body []byte, now time.Time) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "fincom-webhooks")
	req.Header.Set("X-Fincom-Event", typ)
	req.Header.Set("X-Fincom-Delivery", id)
	req.Header.Set("X-Fincom-Signature", Sign(secret, now, body))
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("endpoint answered %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}
