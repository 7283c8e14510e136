package server

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"fincom/store"
)

var (
	errClockRequest = newError(http.StatusBadRequest, textClockRequest)
	errClockBack    = newError(http.StatusBadRequest, textClockBack)
)

// DayRunner runs the scheduled jobs of a day for one domain (the
// scheduler's; cmd wires it) and answers what they did.
type DayRunner func(ctx context.Context, db *store.DB, day store.Date) (any, error)

// isoDuration reads an ISO 8601 duration such as P1M, P10D, PT2H or
// P1Y2M3DT4H5M6S; Go durations (36h) work too.
var isoDuration = regexp.MustCompile(`^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$`)

func advance(from time.Time, s string) (time.Time, bool) {
	if d, err := time.ParseDuration(s); err == nil {
		return from.Add(d), d >= 0
	}
	m := isoDuration.FindStringSubmatch(strings.ToUpper(s))
	if m == nil || s == "P" || s == "PT" {
		return from, false
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	t := from.AddDate(n(1), n(2), 7*n(3)+n(4))
	return t.Add(time.Duration(n(5))*time.Hour + time.Duration(n(6))*time.Minute + time.Duration(n(7))*time.Second), true
}

type clockRequest struct {
	Now     string `json:"now"`
	Advance string `json:"advance"`
	Reset   bool   `json:"reset"`
}

func (q *clockRequest) validate() error {
	if (q.Now != "") == (q.Advance != "") && !q.Reset {
		return errClockRequest
	}
	return nil
}

type clockAnswer struct {
	Now  string `json:"now"`
	Jobs []any  `json:"jobs"`
}

// testClock (test mode) sets the domain's clock: `now` freezes it at a
// moment, `advance` (P1M, P10D, PT2H, 36h) moves it forward and runs the
// jobs of every day it crosses (recurrences, notices, overdue charges,
// contract billing), `reset` gives back the real clock. The answer lists
// what each day's jobs did.
func (s *Server) testClock(r *request) (any, error) {
	var q clockRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	name := r.db.Name
	before := s.domains.DomainNow(name)
	var after time.Time
	switch {
	case q.Reset:
		s.domains.ResetClock(name)
		return clockAnswer{Now: s.domains.DomainNow(name).Format(time.RFC3339), Jobs: []any{}}, nil
	case q.Now != "":
		t, err := time.Parse(time.RFC3339, q.Now)
		if err != nil {
			return nil, errClockRequest
		}
		after = t
	default:
		t, ok := advance(before, q.Advance)
		if !ok {
			return nil, errClockRequest
		}
		after = t
	}
	if after.Before(before) && q.Advance != "" {
		return nil, errClockBack
	}
	s.domains.SetClock(name, after)
	jobs := []any{}
	if s.cfg.RunDay != nil && after.After(before) {
		// Every day crossed, up to and including the new day.
		from, to := store.Today(before), store.Today(after)
		for d := from.AddDate(0, 0, 1); !d.After(to.Time); d = d.AddDate(0, 0, 1) {
			res, err := s.cfg.RunDay(r.ctx, r.db, store.Date{Time: d})
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, res)
		}
	}
	return clockAnswer{Now: after.Format(time.RFC3339), Jobs: jobs}, nil
}

// testOutbox (test mode) answers the domain's e-mails without sending or
// consuming them.
func (s *Server) testOutbox(r *request) (any, error) {
	return r.db.Outbox(r.ctx, 500)
}

// testJobRuns (test mode) answers the domain's recorded job runs.
func (s *Server) testJobRuns(r *request) (any, error) {
	return r.db.JobRuns(r.ctx, 500)
}

type testDomain struct {
	Domain      string `json:"domain"`
	AccessToken string `json:"access_token"`
	UnitToken   string `json:"unit_token"`
}

// testDomains (test mode, no tokens) creates a throw-away domain with one
// unit (a valid CNPJ, São Paulo) and answers its tokens, so that each test
// of a suite has its own isolated data.
func (s *Server) testDomains(r *request) (any, error) {
	name := "t-" + store.NewSecret(8)
	if err := s.domains.Create(r.ctx, name); err != nil {
		return nil, err
	}
	db, release, err := s.domains.Acquire(r.ctx, name)
	if err != nil {
		return nil, err
	}
	defer release()
	access, err := db.CreateAccessToken(r.ctx)
	if err != nil {
		return nil, err
	}
	u, err := db.CreateUnit(r.ctx, store.UnitInput{Name: "Unidade de teste", CNPJ: "11222333000181", CityIBGE: "3550308", IM: "123456"})
	if err != nil {
		return nil, err
	}
	return testDomain{Domain: name, AccessToken: access, UnitToken: u.Token}, nil
}
