package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestEveryRouteRefusesForeignTokens walks the route table: on every
// private route, tokens that are missing, malformed, revoked, of another
// domain or naming another domain's unit answer the route's own status and
// text from its table, and never data.
func TestEveryRouteRefusesForeignTokens(t *testing.T) {
	s, _ := newTestServer(t)
	h := s.Handler()
	type tokenCase struct {
		name string
		body string
		want func(texts) *Error
	}
	cases := []tokenCase{
		{"missing", `{}`, func(x texts) *Error { return x.missing }},
		{"malformed access", `{"access_token":"not-a-token","unit_token":"{{unitA}}"}`, func(x texts) *Error { return x.invalid }},
		{"unknown domain", `{"access_token":"fca_nosuch_00112233","unit_token":"{{unitA}}"}`, func(x texts) *Error { return x.invalid }},
		{"revoked access", `{"access_token":"{{revoked}}","unit_token":"{{unitA}}"}`, func(x texts) *Error { return x.invalid }},
		{"access of another domain", `{"access_token":"{{otherAccess}}","unit_token":"{{unitA}}"}`, func(x texts) *Error { return x.unit }},
		{"unit of another domain", `{"access_token":"{{access}}","unit_token":"{{unitC}}"}`, func(x texts) *Error { return x.unit }},
		{"malformed unit", `{"access_token":"{{access}}","unit_token":"fcu_acme_zz"}`, func(x texts) *Error { return x.unit }},
	}
	checked := 0
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.auth != authUnit && rt.auth != authUnits && rt.auth != authTecOrAccess {
			continue
		}
		for _, c := range cases {
			want := c.want(rt.texts)
			if c.name == "missing" && rt.auth == authTecOrAccess {
				want = rt.texts.missing
			}
			rec := do(h, http.MethodPost, rt.path, c.body)
			checked++
			var got map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Errorf("%s %s: not JSON: %s", rt.path, c.name, rec.Body.String())
				continue
			}
			text, _ := got["error"].(string)
			if text == "" {
				text, _ = got["message"].(string)
			}
			if rec.Code != want.Status || text != want.Text {
				t.Errorf("%s, %s: %d %q, want %d %q", rt.path, c.name, rec.Code, text, want.Status, want.Text)
			}
			if got["success"] != false || (got["data"] != nil) {
				t.Errorf("%s, %s: answered data: %s", rt.path, c.name, rec.Body.String())
			}
		}
	}
	t.Logf("%d route and token cases", checked)
	if checked < 7*90 {
		t.Fatalf("only %d cases checked", checked)
	}
}

// TestRecordsOfAnotherUnitAreNotFound: a record's token used with another
// unit of the same domain (valid tokens) is never found, read or changed.
func TestRecordsOfAnotherUnitAreNotFound(t *testing.T) {
	s, _ := newTestServer(t)
	h := s.Handler()
	unitB := `"access_token":"{{access}}","unit_token":"{{unitB}}"`
	records := map[string]string{
		"contact": "{{contact1}}", "product_or_service": "{{product1}}", "project": "{{project1}}",
		"category": "{{category1}}", "bank_account": "{{account1}}",
	}
	checked := 0
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.auth == authPublic || rt.auth == authDomain {
			continue
		}
		for kind, token := range records {
			if !strings.HasSuffix(rt.path, "_"+kind) || strings.HasPrefix(rt.path, "/insert_") || strings.HasPrefix(rt.path, "/get_") && kind != "bank_account" {
				continue
			}
			body := `{` + unitB + `,"id_token":"` + token + `","name":"X","fullName":"X","description":"X","category":"X","nick_name":"X"}`
			rec := do(h, http.MethodPost, rt.path, body)
			checked++
			if rec.Code == http.StatusOK || rec.Code >= 500 {
				t.Errorf("%s with unit B and a record of unit A: %d %s", rt.path, rec.Code, rec.Body.String())
			}
		}
	}
	t.Logf("%d routes", checked)
	if checked < 15 {
		t.Fatalf("only %d routes checked", checked)
	}
	// The record is intact for its own unit.
	got := post(t, h, "/get_contacts", `{`+auth+`}`)["data"].([]any)
	for _, c := range got {
		if c.(map[string]any)["token"] == fx.tokens["contact1"] {
			return
		}
	}
	t.Fatal("contact1 gone from unit A")
}
