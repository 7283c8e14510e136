package testmode

import (
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"fincom/server/web"
)

// fault is a test-mode rule: requests of a domain to a route fail with a
// status and text, or are delayed, with a probability.
type fault struct {
	Route       string  `json:"route" doc:"The route the rule applies to (/get_contacts)."`
	Probability float64 `json:"probability" doc:"The share of its requests affected, 0 to 1."`
	Status      int     `json:"status" doc:"The status answered."`
	Text        string  `json:"text" doc:"The error text answered."`
	LatencyMS   int     `json:"latency_ms" doc:"Milliseconds added before answering."`
}

// faults holds the rules per domain, in memory: test mode only.
type faults struct {
	mu    sync.Mutex
	rules map[string][]fault
	rand  *rand.Rand
}

func newFaults(seed uint64) *faults {
	return &faults{rules: map[string][]fault{}, rand: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (f *faults) set(domain string, rules []fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules[domain] = rules
}

func (f *faults) get(domain string) []fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fault(nil), f.rules[domain]...)
}

// Apply runs the domain's rules for a route: a delay, and/or an error.
func (f *faults) Apply(domain, route string) error {
	f.mu.Lock()
	var hit *fault
	for i, r := range f.rules[domain] {
		if r.Route == route && f.rand.Float64() < r.Probability {
			hit = &f.rules[domain][i]
			break
		}
	}
	var rule fault
	if hit != nil {
		rule = *hit
	}
	f.mu.Unlock()
	if hit == nil {
		return nil
	}
	if rule.LatencyMS > 0 {
		time.Sleep(time.Duration(rule.LatencyMS) * time.Millisecond)
	}
	if rule.Status != 0 {
		return web.NewError(rule.Status, rule.Text)
	}
	return nil
}

var errFaultRule = web.NewError(http.StatusBadRequest, "Invalid fault rule: route, probability 0 to 1, and a status 400 to 599 or a latency_ms up to 60000.")

type faultsRequest struct {
	Rules []fault `json:"rules" doc:"The domain's fault rules, replacing the ones before (empty: none)."`
}

func (q *faultsRequest) Validate() error {
	for _, r := range q.Rules {
		if r.Route == "" || r.Probability < 0 || r.Probability > 1 || (r.Status != 0 && (r.Status < 400 || r.Status > 599)) ||
			(r.Status == 0 && r.LatencyMS <= 0) || r.LatencyMS < 0 || r.LatencyMS > 60_000 {
			return errFaultRule
		}
	}
	return nil
}

// testFaults (test mode) replaces the domain's fault rules (an empty list
// removes them) and answers them: {rules: [{route, probability, status,
// text, latency_ms}]}, route as "/insert_contact".
func (s *Mode) testFaults(r *web.Request, q *faultsRequest) (any, error) {
	if q.Rules == nil {
		q.Rules = []fault{}
	}
	s.faults.set(r.DB.Name, q.Rules)
	return faultsRequest{Rules: s.faults.get(r.DB.Name)}, nil
}
