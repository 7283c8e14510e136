// Package jobs runs fincom's scheduled work inside `fincom serve`: each job
// is a plain method taking a domain and a day, run by a cron scheduler and
// caught up at start for the days the server was down.
package jobs

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/invoicing"
	"fincom/server/ledger"
	"fincom/store"
)

// Runner runs the jobs of a day on domains.
type Runner struct {
	Domains *store.Domains
	Log     *slog.Logger
	// Billing renders the reminders and overdue alerts and issues the
	// charges of the orders contract billing makes; nil queues no e-mail
	// and leaves those orders uncharged.
	Billing *billing.Service
	// Invoices renders the DANFE of the accountant's packages (nil: the
	// DANFSe kept with a note, else fincom's rendering).
	Invoices *invoicing.Service
	// Sender delivers the outbox; nil keeps messages there, unsent.
	Sender Sender
	// LinkKeys opens the sign-in links queued e-mails keep sealed (the
	// server's LinkKeys).
	LinkKeys *certs.Keyring
	// Roots are what webhook deliveries trust (certs.TrustPool; nil: the
	// system's).
	Roots *x509.CertPool
	// Backup, when set, backs up every domain on a schedule.
	Backup *BackupPlan
	// WebhookAllowPrivate lets webhooks reach loopback, private and
	// link-local addresses (serve --webhook-allow-private, --test-mode).
	WebhookAllowPrivate bool
	// DeliveryEvery is how often the deliveries of open domains are
	// looked at (default 5 s); every domain's are every 10 minutes.
	DeliveryEvery time.Duration
	// PSPPoll is how often the open domains' charges at their units' PSPs
	// are asked about (serve --psp-poll; default 1 m); PublicURL is the
	// server's address, under which the units' PSP webhooks are
	// registered.
	PSPPoll   time.Duration
	PublicURL string
	// FiscalRetry is how long a held note waits between its first tries
	// (serve --fiscal-retry; 0: FiscalRetry).
	FiscalRetry time.Duration
	// Elapsed is the real clock the waits between a held note's tries run
	// on (time.Now when nil): the domains' clocks may stand still.
	Elapsed func() time.Time

	// fiscalTries holds, by domain and order, when a held note was last
	// tried; fiscalBusy, by domain, unit and model, until when an
	// authority that answered 656 is left alone.
	fiscalTries, fiscalBusy sync.Map

	loopsOnce                          sync.Once
	webhooks, mail, transmissions, psp *deliveryLoop
}

// BackupPlan is a scheduled backup of every domain.
type BackupPlan struct {
	Spec string // cron, in São Paulo time
	Dir  string
	Keep int
}

// Result is what one job created for one day.
type Result struct {
	Job     string   `json:"job"`
	Date    string   `json:"date"`
	Created []string `json:"created"`
	// Changed counts records changed or queued (overdue charges, notices).
	Changed int `json:"changed"`
}

// OverdueJob and NoticeJob name the daily jobs in the results.
const (
	OverdueJob = "charges_overdue"
	NoticeJob  = "charge_notices"
)

// RunDay runs every job due on day for one domain: daily, open charges
// past their due date become OVERDUE and the reminders due that day
// (notify_days_charge before the due date) are queued; on day 1 of each
// month, the recurrence. Jobs are idempotent: a day run twice creates
// nothing more.
func (r *Runner) RunDay(ctx context.Context, db *store.DB, day store.Date) ([]Result, error) {
	out := []Result{}
	var alert func(store.NoticeCandidate) (*store.Notice, error)
	if r.Billing != nil {
		alert = r.Billing.OverdueAlert
	}
	n, err := db.MarkOverdue(ctx, day, alert)
	if err != nil {
		return out, fmt.Errorf("%s %s: %w", OverdueJob, day.ISO(), err)
	}
	out = append(out, Result{Job: OverdueJob, Date: day.ISO(), Created: []string{}, Changed: n})
	if r.Billing != nil {
		q, err := r.Billing.SendReminders(ctx, db, day)
		if err != nil {
			return out, fmt.Errorf("%s %s: %w", NoticeJob, day.ISO(), err)
		}
		out = append(out, Result{Job: NoticeJob, Date: day.ISO(), Created: []string{}, Changed: q})
		if n+q > 0 {
			r.Log.Info("job run", "domain", db.Name, "date", day.ISO(), "overdue", n, "notices", q)
		}
	}
	var billed []store.BilledOrder
	var expired int
	if r.Billing != nil {
		billed, expired, err = r.Billing.BillContracts(ctx, db, day)
	} else {
		// Without the billing service no charge can be issued: the
		// orders are made, as /generate_charge can charge them later.
		billed, expired, err = db.CopyContractOrders(ctx, day)
	}
	if err != nil {
		return out, fmt.Errorf("%s %s: %w", store.ContractBillingJob, day.ISO(), err)
	}
	codes := []string{}
	for _, b := range billed {
		codes = append(codes, b.Code)
	}
	if len(billed)+expired > 0 {
		r.Log.Info("job run", "domain", db.Name, "job", store.ContractBillingJob, "date", day.ISO(), "orders", codes, "expired", expired)
	}
	out = append(out, Result{Job: store.ContractBillingJob, Date: day.ISO(), Created: codes, Changed: expired})
	// Housekeeping, not a job of its own: a failure costs search speed
	// only.
	if err := db.CompactSearch(ctx); err != nil {
		r.Log.Error("compact search index", "domain", db.Name, "err", err)
	}
	occurrences, err := ledger.RunRecurrences(ctx, db, day)
	if err != nil {
		return out, fmt.Errorf("%s %s: %w", EntryRecurrenceJob, day.ISO(), err)
	}
	if len(occurrences) > 0 {
		r.Log.Info("job run", "domain", db.Name, "job", EntryRecurrenceJob, "date", day.ISO(), "entries", occurrences)
	}
	out = append(out, Result{Job: EntryRecurrenceJob, Date: day.ISO(), Created: occurrences})
	if day.Day() == AccountantDay {
		res, err := r.mailAccountantPackages(ctx, db, day)
		if err != nil {
			return out, fmt.Errorf("%s %s: %w", AccountantJob, day.ISO(), err)
		}
		if len(res.Created) > 0 {
			r.Log.Info("job run", "domain", db.Name, "job", AccountantJob, "date", day.ISO(), "packages", res.Created)
		}
		out = append(out, res)
	}
	if day.Day() == 1 {
		created, err := db.CreateRecurringOrders(ctx, day)
		if err != nil {
			return out, fmt.Errorf("%s %s: %w", store.RecurrenceJob, day.ISO(), err)
		}
		if created == nil {
			created = []string{}
		}
		r.Log.Info("job run", "domain", db.Name, "job", store.RecurrenceJob, "date", day.ISO(), "created", len(created), "orders", created)
		out = append(out, Result{Job: store.RecurrenceJob, Date: day.ISO(), Created: created})
	}
	return out, nil
}

// CatchUp runs, for one domain, every day-1 job from the day after its last
// recorded run (or the domain's creation) up to today, in order.
func (r *Runner) CatchUp(ctx context.Context, name string) error {
	db, release, err := r.Domains.Visit(ctx, name)
	if err != nil {
		return err
	}
	defer release()
	last, err := db.LastJobRun(ctx, store.RecurrenceJob)
	if err != nil {
		return err
	}
	today := store.Today(db.Now()) // the domain's clock: test mode may have moved it
	for day := nextFirst(last); !day.After(today.Time); day = store.AddMonths(day, 1) {
		if day.Equal(today.Time) {
			break // today's run below does it
		}
		if _, err := db.CreateRecurringOrders(ctx, day); err != nil {
			return err
		}
	}
	_, err = r.RunDay(ctx, db, today)
	return err
}

// names lists every domain (all) or the open ones.
func (r *Runner) names(all bool) ([]string, error) {
	if all {
		return r.Domains.Names()
	}
	return r.Domains.OpenNames(), nil
}

// nextFirst is the first day 1 after d.
func nextFirst(d store.Date) store.Date {
	return store.Date{Time: time.Date(d.Year(), d.Month()+1, 1, 0, 0, 0, 0, time.UTC)}
}

// CatchUpAll catches up every domain; one domain's failure is logged and
// does not stop the others.
func (r *Runner) CatchUpAll(ctx context.Context) error {
	names, err := r.Domains.Names()
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		if err := r.CatchUp(ctx, n); err != nil {
			r.Log.Error("job catch-up failed", "domain", n, "err", err)
			errs = append(errs, fmt.Errorf("%s: %w", n, err))
		}
	}
	return errors.Join(errs...)
}

// Start runs the catch-up now and then every day a few minutes after
// midnight in São Paulo, until ctx ends. It returns a function that waits
// for running jobs to finish.
func (r *Runner) Start(ctx context.Context) (stop func(), err error) {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		loc = time.FixedZone("BRT", -3*3600)
	}
	c := cron.New(cron.WithLocation(loc))
	run := func() {
		if err := r.CatchUpAll(ctx); err != nil {
			r.Log.Error("scheduled jobs", "err", err)
		}
	}
	c.AddFunc("5 0 * * *", run)
	if b := r.Backup; b != nil {
		if _, err := c.AddFunc(b.Spec, func() {
			files, err := r.Domains.BackupAll(ctx, b.Dir, b.Keep)
			if err != nil {
				r.Log.Error("scheduled backup", "err", err)
				return
			}
			r.Log.Info("scheduled backup", "files", len(files), "dir", b.Dir)
		}); err != nil {
			return nil, fmt.Errorf("--backup-cron %q: %w", b.Spec, err)
		}
	}
	c.Start()
	done := make(chan struct{})
	go func() {
		defer close(done)
		run()
	}()
	stopDeliveries := r.startDeliveries(ctx)
	return func() {
		<-c.Stop().Done()
		<-done
		stopDeliveries()
	}, nil
}

// startDeliveries runs the webhook, e-mail and transmission loops until
// ctx ends, each on its own: deliveries are queued by requests, so the
// domains that have new ones are open and are looked at every
// DeliveryEvery; every domain
// (retries of a domain closed since, a restart) every ten minutes, since
// opening a thousand files every few seconds would be most of an idle
// server's work and memory. A pass starts work on the domains that have
// none running and does not wait for it. It answers a function that waits
// for the work under way once ctx has ended.
func (r *Runner) startDeliveries(ctx context.Context) (wait func()) {
	every := r.DeliveryEvery
	if every <= 0 {
		every = 5 * time.Second
	}
	if r.FiscalRetry > 0 && r.FiscalRetry < every {
		// A held note is tried when its wait is over, not a tick later.
		every = r.FiscalRetry
	}
	webhooks, mail := r.loops()
	transmissions, psp := r.transmissions, r.psp
	poll := r.PSPPoll
	if poll <= 0 {
		poll = time.Minute
	}
	go func() {
		// At start, every domain's PSP units are looked at once: their
		// webhooks registered where missing, their charges asked about.
		if names, err := r.names(true); err == nil && r.Billing != nil {
			psp.pass(ctx, r, names)
		}
		tick, sweep, pspTick := time.NewTicker(every), time.NewTicker(10*time.Minute), time.NewTicker(poll)
		defer tick.Stop()
		defer sweep.Stop()
		defer pspTick.Stop()
		for {
			all := false
			select {
			case <-ctx.Done():
				return
			case <-pspTick.C:
				// The units' charges at their PSPs: a payment whose webhook
				// never came still settles.
				if names, err := r.names(false); err == nil && r.Billing != nil {
					psp.pass(ctx, r, names)
				}
				continue
			case <-tick.C:
			case <-sweep.C:
				all = true
			}
			names, err := r.names(all)
			if err != nil {
				r.Log.Error("deliveries", "err", err)
				continue
			}
			if all && r.Billing != nil {
				psp.pass(ctx, r, names)
			}
			webhooks.pass(ctx, r, names)
			if r.Sender != nil {
				mail.pass(ctx, r, names)
			}
			if r.Billing != nil && r.Billing.Invoices != nil {
				transmissions.pass(ctx, r, names)
			}
		}
	}()
	return func() {
		webhooks.wg.Wait()
		mail.wg.Wait()
		transmissions.wg.Wait()
		psp.wg.Wait()
	}
}
