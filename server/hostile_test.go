package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestHostileBodies: bodies built to hurt answer a clear 4xx with the
// route's text, never a 5xx or a success, and the server keeps serving.
func TestHostileBodies(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	deep := strings.Repeat(`{"a":`, 100000) + `1` + strings.Repeat(`}`, 100000)
	for _, c := range []struct {
		name, path, body string
		status           int
	}{
		{"deeply nested value", "/insert_contact", `{` + auth + `,"fullName":` + deep + `}`, 400},
		{"deeply nested body", "/get_contacts", deep, 400},
		{"huge number", "/insert_income", `{` + auth + `,"description":"x","value":1` + strings.Repeat("0", 400) + `,"due_date":"2026-11-20"}`, 400},
		{"exponent", "/insert_income", `{` + auth + `,"description":"x","value":1e400,"due_date":"2026-11-20"}`, 400},
		{"NaN", "/insert_income", `{` + auth + `,"description":"x","value":"NaN","due_date":"2026-11-20"}`, 400},
		{"bare NaN", "/insert_income", `{` + auth + `,"description":"x","value":NaN,"due_date":"2026-11-20"}`, 400},
		{"invalid UTF-8", "/insert_project", "{" + auth + ",\"name\":\"\xff\xfe\"}", 400},
		{"duplicate keys", "/insert_project", `{` + auth + `,"name":"a","name":"b"}`, 400},
		{"nested duplicate keys", "/insert_sales_order", `{` + auth + `,"pv":{"value":1,"value":2}}`, 400},
		{"wrong type", "/insert_project", `{` + auth + `,"name":["a"]}`, 400},
		{"array body", "/get_contacts", `[` + `{` + auth + `}]`, 400},
		{"two objects", "/get_contacts", `{` + auth + `}{}`, 400},
		{"too large", "/insert_project", `{` + auth + `,"name":"` + strings.Repeat("a", 2<<20) + `"}`, 413},
		{"null tokens", "/get_contacts", `{"access_token":null,"unit_token":null}`, 400},
	} {
		rec := do(h, http.MethodPost, c.path, c.body)
		if rec.Code != c.status {
			body := rec.Body.String()
			if len(body) > 200 {
				body = body[:200]
			}
			t.Errorf("%s: %d %s, want %d", c.name, rec.Code, body, c.status)
		}
	}
	post(t, h, "/get_contacts", `{`+auth+`}`)
}
