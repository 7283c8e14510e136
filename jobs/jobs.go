// Package jobs runs fincom's scheduled work inside `fincom serve`: each job
// is a plain method taking a domain and a day, run by a cron scheduler and
// caught up at start for the days the server was down.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/robfig/cron/v3"

	"fincom/store"
)

// Runner runs the jobs of a day on domains.
type Runner struct {
	Domains *store.Domains
	Log     *slog.Logger
}

// Result is what one job created for one day.
type Result struct {
	Job     string   `json:"job"`
	Date    string   `json:"date"`
	Created []string `json:"created"`
}

// RunDay runs every job due on day for one domain. The recurrence is due
// on day 1 of each month. Jobs are idempotent: a day run twice creates
// nothing more.
func (r *Runner) RunDay(ctx context.Context, db *store.DB, day store.Date) ([]Result, error) {
	out := []Result{}
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
	db, release, err := r.Domains.Acquire(ctx, name)
	if err != nil {
		return err
	}
	defer release()
	last, err := db.LastJobRun(ctx, store.RecurrenceJob)
	if err != nil {
		return err
	}
	today := store.Today(r.Domains.Now())
	for day := nextFirst(last); !day.After(today.Time); day = store.AddMonths(day, 1) {
		if _, err := r.RunDay(ctx, db, day); err != nil {
			return err
		}
	}
	return nil
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
func (r *Runner) Start(ctx context.Context) (stop func()) {
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
	c.Start()
	done := make(chan struct{})
	go func() {
		defer close(done)
		run()
	}()
	return func() {
		<-c.Stop().Done()
		<-done
	}
}
