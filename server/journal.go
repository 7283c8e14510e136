package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// journalSize is how many requests test mode keeps per domain.
const journalSize = 200

// journalEntry is one request and its answer, tokens masked.
type journalEntry struct {
	At         string          `json:"at"`
	Method     string          `json:"method"`
	Route      string          `json:"route"`
	Status     int             `json:"status"`
	DurationMS float64         `json:"duration_ms"`
	Request    json.RawMessage `json:"request"`
	Response   json.RawMessage `json:"response"`
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
func maskedRequest(b body) json.RawMessage {
	m := map[string]json.RawMessage{}
	for k, v := range b.fields {
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

// teeWriter keeps a copy of a JSON answer for the journal.
type teeWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (t *teeWriter) WriteHeader(code int) {
	t.status = code
	t.ResponseWriter.WriteHeader(code)
}

func (t *teeWriter) Write(p []byte) (int, error) {
	if t.buf.Len() < 64<<10 {
		t.buf.Write(p)
	}
	return t.ResponseWriter.Write(p)
}

// record adds a finished request to the journal of its domain.
func (s *Server) record(req *request, tw *teeWriter, start time.Time) {
	if req.db == nil {
		return
	}
	resp := json.RawMessage(bytes.TrimSpace(tw.buf.Bytes()))
	if !json.Valid(resp) {
		resp = json.RawMessage(`null`) // pages and images are not kept
	}
	s.journal.add(req.db.Name, journalEntry{At: req.db.Now().Format(time.RFC3339Nano), Method: req.http.Method, Route: req.route.path,
		Status: tw.status, DurationMS: float64(time.Since(start).Microseconds()) / 1000, Request: maskedRequest(req.body), Response: resp})
}

// testJournal (test mode) answers the domain's last requests with their
// answers, oldest first, access tokens masked.
func (s *Server) testJournal(r *request) (any, error) {
	return s.journal.list(r.db.Name), nil
}
