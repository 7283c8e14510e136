package testmode

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"

	"fincom/server/web"
)

// journalSize is how many requests test mode keeps per domain.
const journalSize = 200

// journalEntry is one request and its answer, tokens masked.
type journalEntry struct {
	At         string          `json:"at" doc:"When the request came (RFC 3339)."`
	Method     string          `json:"method" doc:"Its HTTP method."`
	Route      string          `json:"route" doc:"Its route."`
	Status     int             `json:"status" doc:"The status answered."`
	DurationMS float64         `json:"duration_ms" doc:"How long it took, in milliseconds."`
	Request    json.RawMessage `json:"request" doc:"The request's body, its tokens masked."`
	Response   json.RawMessage `json:"response" doc:"The answer's body."`
}

// journal keeps the last requests of each domain, in memory: test mode
// only.
type journal struct {
	mu      sync.Mutex
	entries map[string][]journalEntry
}

func (j *journal) add(domain string, e journalEntry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	l := append(j.entries[domain], e)
	if len(l) > journalSize {
		l = l[len(l)-journalSize:]
	}
	j.entries[domain] = l
}

func (j *journal) list(domain string) []journalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]journalEntry, len(j.entries[domain]))
	copy(out, j.entries[domain])
	return out
}

// maskedRequest re-encodes a request body without its secrets.
func maskedRequest(b web.Body) json.RawMessage {
	m := map[string]json.RawMessage{}
	for k, v := range b.Fields {
		switch k {
		case "access_token", "token_tec":
			m[k] = json.RawMessage(`"***"`)
		default:
			m[k] = v
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return out
}

// Record adds a finished request to the journal of its domain.
func (s *Mode) Record(req *web.Request, status int, answer []byte, start time.Time) {
	if req.DB == nil {
		return
	}
	resp := json.RawMessage(bytes.TrimSpace(answer))
	if !json.Valid(resp) {
		resp = json.RawMessage(`null`) // pages and images are not kept
	}
	s.journal.add(req.DB.Name, journalEntry{At: req.DB.Now().Format(time.RFC3339Nano), Method: req.HTTP.Method, Route: req.Route.Path,
		Status: status, DurationMS: float64(time.Since(start).Microseconds()) / 1000, Request: maskedRequest(req.Body), Response: resp})
}

// Fault applies the domain's fault rules to a request of route.
func (s *Mode) Fault(domain, route string) error { return s.faults.Apply(domain, route) }

// testJournal (test mode) answers the domain's last requests with their
// answers, oldest first, access tokens masked.
func (s *Mode) testJournal(r *web.Request) (any, error) {
	return s.journal.list(r.DB.Name), nil
}
