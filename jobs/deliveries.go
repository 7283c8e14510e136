package jobs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"fincom/server/fiscal/sefaz"
	"fincom/server/webhook"
	"fincom/store"
)

// webhookTimeout is how long an endpoint gets to answer one delivery.
const webhookTimeout = 10 * time.Second

// Bounds of the delivery loops: how many domains are worked on at once,
// and how many webhook posts one domain has in flight. A domain whose
// endpoints never answer holds its own postsPerDomain, never another
// domain's deliveries nor the e-mail (TestSlowEndpointHoldsNoOneElse).
const (
	domainsAtOnce  = 8
	postsPerDomain = 4
)

// deliveryLoop runs one kind of delivery (webhooks, e-mail) over domains:
// a domain is never worked on by two passes at once, so a slow one is
// skipped by the next pass instead of being posted twice, and a pass does
// not wait for it before starting the others.
type deliveryLoop struct {
	name string
	work func(ctx context.Context, db *store.DB) error
	sem  chan struct{}
	mu   sync.Mutex
	busy map[string]bool
	wg   sync.WaitGroup
}

func newDeliveryLoop(name string, work func(ctx context.Context, db *store.DB) error) *deliveryLoop {
	return &deliveryLoop{name: name, work: work, sem: make(chan struct{}, domainsAtOnce), busy: map[string]bool{}}
}

// pass starts work for each named domain not already being worked on and
// answers a channel closed when the work it started is done.
func (l *deliveryLoop) pass(ctx context.Context, r *Runner, names []string) <-chan struct{} {
	var started sync.WaitGroup
	for _, n := range names {
		l.mu.Lock()
		if l.busy[n] {
			l.mu.Unlock()
			continue
		}
		l.busy[n] = true
		l.mu.Unlock()
		started.Add(1)
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer started.Done()
			defer func() {
				l.mu.Lock()
				delete(l.busy, n)
				l.mu.Unlock()
			}()
			select {
			case l.sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-l.sem }()
			db, release, err := r.Domains.Visit(ctx, n)
			if err != nil {
				r.Log.Error(l.name, "domain", n, "err", err)
				return
			}
			defer release()
			if err := l.work(ctx, db); err != nil {
				r.Log.Error(l.name, "domain", n, "err", err)
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		started.Wait()
		close(done)
	}()
	return done
}

// loops makes the runner's delivery loops once.
func (r *Runner) loops() (webhooks, mail *deliveryLoop) {
	r.loopsOnce.Do(func() {
		client := webhook.NewClient(webhookTimeout, r.WebhookAllowPrivate, r.Roots)
		r.webhooks = newDeliveryLoop("webhooks", func(ctx context.Context, db *store.DB) error {
			return r.deliverWebhooks(ctx, db, client)
		})
		r.mail = newDeliveryLoop("outbox", r.deliverMail)
		r.transmissions = newDeliveryLoop("transmissions", r.RetryTransmissions)
		r.psp = newDeliveryLoop("psp", func(ctx context.Context, db *store.DB) error {
			return r.Billing.PollPSPs(ctx, db, r.PublicURL)
		})
	})
	return r.webhooks, r.mail
}

// FiscalRetry is how long a held note waits between its first 30 tries
// unless serve --fiscal-retry says otherwise.
const FiscalRetry = 10 * time.Second

// TransmissionWait is how long a held note waits after a try before the
// next: first (FiscalRetry by default) for its first 30 tries (its first
// five minutes by default), then the square of the tries past those in
// minutes, at most an hour (SEFAZ's 656 punishes insisting).
func TransmissionWait(attempts int, first time.Duration) time.Duration {
	if attempts <= 30 {
		return first
	}
	n := attempts - 30
	return min(time.Duration(n*n)*time.Minute, time.Hour)
}

// RetryTransmissions issues again each held note of a domain whose wait is
// over, asks again for each cancellation whose answer was lost
// (invoicing.FinishCancellation) and ends each note abandoned for an
// offline one (invoicing.EndAbandoned), then sends its recipients' manifestations waiting
// (invoicing.SendManifestations) and fetches the documents issued to its
// units (invoicing.FetchInboxes, at most hourly when nothing is new) (the
// transmissions loop runs it on the open domains every few seconds, on
// every domain every ten minutes): Issue asks SEFAZ for its key first and
// stores the authorization it finds, or sends the same note again. A
// failure is counted on the note, which waits longer; a held note survives
// a restart, being in the file. The waits run on real elapsed time
// (Elapsed), not the domain's clock, which test mode may freeze: a note
// first seen is tried TransmissionWait later, and a 656 (asked too often)
// keeps the unit's notes of that model from the authority for an hour.
func (r *Runner) RetryTransmissions(ctx context.Context, db *store.DB) error {
	held, err := db.HeldTransmissions(ctx)
	if err != nil {
		return err
	}
	now := r.elapsed()
	for _, h := range held {
		key := db.Name + "/" + h.OrderToken
		busyKey := fmt.Sprintf("%s/%d/%s", db.Name, h.UnitID, h.Kind)
		if until, ok := r.fiscalBusy.Load(busyKey); ok && now.Before(until.(time.Time)) {
			continue
		}
		if !r.due(key, h.Attempts, now) {
			continue
		}
		var err error
		if h.Offline {
			err = r.Billing.Invoices.TransmitOffline(ctx, db, h.UnitID, h.OrderToken)
		} else {
			_, err = r.Billing.Invoices.Issue(ctx, db, h.UnitID, h.OrderToken)
		}
		switch {
		case err == nil:
			r.fiscalTries.Delete(key)
		case errors.Is(err, sefaz.ErrBusy):
			r.fiscalBusy.Store(busyKey, now.Add(time.Hour))
		}
		if err != nil {
			r.Log.Warn("transmission", "domain", db.Name, "order", h.OrderToken, "attempts", h.Attempts+1, "err", err)
		}
	}
	if err := r.finishCancellations(ctx, db, now); err != nil {
		return err
	}
	if err := r.endAbandoned(ctx, db, now); err != nil {
		return err
	}
	if err := r.Billing.Invoices.SendManifestations(ctx, db); err != nil {
		return err
	}
	return r.Billing.Invoices.FetchInboxes(ctx, db)
}

// endAbandoned ends at SEFAZ each note abandoned for an offline one
// (invoicing.EndAbandoned), on the same waits as a held note's.
func (r *Runner) endAbandoned(ctx context.Context, db *store.DB, now time.Time) error {
	open, err := db.OpenAbandonedNotes(ctx)
	if err != nil {
		return err
	}
	for _, a := range open {
		key := fmt.Sprintf("abandoned %s/%d", db.Name, a.ID)
		if last, seen := r.fiscalTries.Load(key); seen && now.Sub(last.(time.Time)) < r.transmissionWait(a.Attempts) {
			continue
		}
		ended, err := r.Billing.Invoices.EndAbandoned(ctx, db, a)
		switch {
		case err != nil:
			r.fiscalTries.Store(key, now)
			r.Log.Warn("abandoned note", "domain", db.Name, "order", a.OrderToken, "key", a.Key, "tries", a.Attempts+1, "err", err)
		case ended:
			r.fiscalTries.Delete(key)
		}
	}
	return nil
}

// Wake tries the domain's held notes now, whatever their waits, and the
// rest of RetryTransmissions: test mode calls it when the domain's
// authorities change mode (one that was unreachable answers now).
func (r *Runner) Wake(ctx context.Context, db *store.DB) error {
	held, err := db.HeldTransmissions(ctx)
	if err != nil {
		return err
	}
	for _, h := range held {
		// A zero last try is one long past: due now, and seen.
		r.fiscalTries.Store(db.Name+"/"+h.OrderToken, time.Time{})
		r.fiscalBusy.Delete(fmt.Sprintf("%s/%d/%s", db.Name, h.UnitID, h.Kind))
	}
	return r.RetryTransmissions(ctx, db)
}

// transmissionWait is TransmissionWait with the runner's FiscalRetry.
func (r *Runner) transmissionWait(attempts int) time.Duration {
	first := r.FiscalRetry
	if first <= 0 {
		first = FiscalRetry
	}
	return TransmissionWait(attempts, first)
}

// due says whether what key names (a held note, a cancellation whose
// answer was lost), tried attempts times, is to be tried now, and records
// the try: one first seen (held now, or before this process started) is
// tried TransmissionWait from now, then each TransmissionWait after the
// last try.
func (r *Runner) due(key string, attempts int, now time.Time) bool {
	last, seen := r.fiscalTries.Load(key)
	if seen && now.Sub(last.(time.Time)) < r.transmissionWait(attempts) {
		return false
	}
	r.fiscalTries.Store(key, now)
	return seen
}

// finishCancellations asks again for each cancellation whose answer was
// lost, on the same waits as a held note's.
func (r *Runner) finishCancellations(ctx context.Context, db *store.DB, now time.Time) error {
	pending, err := db.PendingCancellations(ctx)
	if err != nil {
		return err
	}
	for _, c := range pending {
		key := "cancel " + db.Name + "/" + c.OrderToken
		if !r.due(key, c.Tries, now) {
			continue
		}
		if err := r.Billing.Invoices.FinishCancellation(ctx, db, c); err != nil {
			r.Log.Warn("cancellation", "domain", db.Name, "order", c.OrderToken, "tries", c.Tries+1, "err", err)
			continue
		}
		r.fiscalTries.Delete(key)
	}
	return nil
}

// elapsed is the runner's real clock.
func (r *Runner) elapsed() time.Time {
	if r.Elapsed != nil {
		return r.Elapsed()
	}
	return time.Now()
}

// DeliverWebhooks sends the due webhook deliveries of every domain (all)
// or of the open ones, and waits for them. A failure (network, timeout,
// non-2xx, a refused address) is recorded and tried again later with
// backoff; it never reaches the request that caused the event.
func (r *Runner) DeliverWebhooks(ctx context.Context, all bool) error {
	names, err := r.names(all)
	if err != nil {
		return err
	}
	w, _ := r.loops()
	<-w.pass(ctx, r, names)
	return nil
}

// Deliver sends the due messages of every domain's outbox (all) or of the
// open domains', and waits for them; a failure is recorded on the
// message, which is tried again later with backoff.
func (r *Runner) Deliver(ctx context.Context, all bool) error {
	if r.Sender == nil {
		return nil
	}
	names, err := r.names(all)
	if err != nil {
		return err
	}
	_, m := r.loops()
	<-m.pass(ctx, r, names)
	return nil
}

// deliverWebhooks posts a domain's due deliveries. Each webhook gets its
// events in order, one post at a time, and a failure ends its turn in
// this pass (the events after it wait for the next, keeping their order);
// the domain's webhooks are posted to side by side, postsPerDomain at
// most. Each event is posted once per attempt.
func (r *Runner) deliverWebhooks(ctx context.Context, db *store.DB, client *http.Client) error {
	due, err := db.DueDeliveries(ctx, 100)
	if err != nil {
		return err
	}
	var order []int64
	chains := map[int64][]store.DueDelivery{}
	for _, d := range due {
		if _, ok := chains[d.WebhookID]; !ok {
			order = append(order, d.WebhookID)
		}
		chains[d.WebhookID] = append(chains[d.WebhookID], d)
	}
	sem := make(chan struct{}, postsPerDomain)
	errs := make(chan error, len(order))
	var wg sync.WaitGroup
	for _, id := range order {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs <- r.postChain(ctx, db, client, chains[id])
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// postChain posts one webhook's due deliveries in order, until one fails.
func (r *Runner) postChain(ctx context.Context, db *store.DB, client *http.Client, chain []store.DueDelivery) error {
	for _, d := range chain {
		status, perr := webhook.Post(ctx, client, webhook.Delivery{URL: d.URL, Secret: d.Secret, EventID: d.EventID,
			EventType: d.EventType, Payload: d.Payload}, db.Now())
		failure := ""
		if perr != nil {
			failure = webhook.Reason(status, perr)
			r.Log.Warn("webhook not delivered", "domain", db.Name, "event", d.EventID, "attempt", d.Attempts+1, "err", perr)
		}
		if err := db.DeliveryDone(ctx, d.EventID, status, failure); err != nil {
			return err
		}
		if perr != nil {
			return nil
		}
	}
	return nil
}

// deliverMail sends a domain's due e-mails, one at a time.
func (r *Runner) deliverMail(ctx context.Context, db *store.DB) error {
	due, err := db.DueMail(ctx, 50)
	if err != nil {
		return err
	}
	for _, m := range due {
		body, serr := r.unseal(m)
		if serr == nil {
			serr = r.Sender.Send(ctx, m.To, m.Subject, body, m.Attachments)
		}
		if serr != nil {
			r.Log.Warn("mail not sent", "domain", db.Name, "mail", m.Token, "attempt", m.Attempts+1, "err", serr)
			err = db.MailFailed(ctx, m.Token, serr)
		} else {
			err = db.MailSent(ctx, m.Token)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// errSealedElsewhere is a queued message whose secret this server cannot
// open: sealed under another key (a server since restarted without a
// secrets key); its sign-in link is lost, and the user asks for another.
var errSealedElsewhere = errors.New("the message's sealed link cannot be opened with this server's key: ask for a new sign-in link")

// unseal answers the body to send: with its sealed secret, if any, opened
// in place of store.SealedMark. The opened secret lives only in memory.
func (r *Runner) unseal(m store.PendingMail) (string, error) {
	if len(m.Sealed) == 0 {
		return m.Body, nil
	}
	if r.LinkKeys == nil {
		return "", errSealedElsewhere
	}
	secret, err := r.LinkKeys.Open(m.Sealed)
	if err != nil {
		return "", errSealedElsewhere
	}
	return strings.ReplaceAll(m.Body, store.SealedMark, string(secret)), nil
}
