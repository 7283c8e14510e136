package server

import (
	"net/http"
	"strings"
	"testing"
)

// The tokens the document's examples show, and the fixture's they stand
// for when the examples are sent.
const (
	exampleAccess = "fca_acme_3b8e1f0c2d4a6e8b"
	exampleUnit   = "fcu_acme_7d2c9a41e0b35f68"
)

// TestExamplesAnswer sends every request example the document gives to a
// server with the fixture's data: each is answered 2xx, and the answer is
// held to the document (checkContract, through do).
func TestExamplesAnswer(t *testing.T) {
	s, _ := newTestServer(t)
	h := s.Handler()
	checked := 0
	for _, rt := range s.routes {
		if rt.Doc.Example == "" || strings.HasPrefix(rt.Path, "/_test/") {
			continue
		}
		body := strings.NewReplacer(exampleAccess, "{{access}}", exampleUnit, "{{unitA}}").Replace(rt.Doc.Example)
		if rec := do(h, rt.MethodOf(), rt.Path, body); rec.Code/100 != 2 {
			t.Errorf("%s: its example answers %d %s", rt.Path, rec.Code, rec.Body)
		}
		checked++
	}
	if checked < 12 {
		t.Fatalf("only %d examples", checked)
	}
}

// TestExampleTokensArePlaceholders: the examples' tokens are of no domain
// a server holds (they name acme, the fixture's, with too few digits).
func TestExampleTokensArePlaceholders(t *testing.T) {
	s, _ := newTestServer(t)
	rec := do(s.Handler(), http.MethodPost, "/get_contacts", `{"access_token":"`+exampleAccess+`","unit_token":"`+exampleUnit+`"}`)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("an example's token answered %d", rec.Code)
	}
}
