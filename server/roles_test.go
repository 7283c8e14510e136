package server

import (
	"encoding/json"
	"net/http"
	"testing"

	"fincom/server/access"
	"fincom/server/web"
	"fincom/store"
)

// roleTokens makes, in acme, a user of each role on unit A alone and an
// access token each made, by role.
func roleTokens(t *testing.T, ds *store.Domains) map[store.Role]string {
	t.Helper()
	out := map[store.Role]string{}
	for _, role := range store.Roles {
		out[role] = userToken(t, ds, string(role)+"@acme.com.br", role, fx.tokens["unitA"])
	}
	return out
}

// TestRolesOnEveryRoute walks the route table with a token of each role
// on unit A: every role reads, a write its role may not make answers 403
// with the route's own text and the role in details (before anything is
// read or changed), and a unit the user was not given is not found. The
// server is in test mode: its simulated payer's routes take the rules of
// the actions they simulate.
func TestRolesOnEveryRoute(t *testing.T) {
	t.Parallel()
	s, ds := newTestModeServer(t)
	h := s.Handler()
	tokens := roleTokens(t, ds)
	checked, refused := 0, 0
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.Auth != web.AuthUnit && rt.Auth != web.AuthUnits && rt.Auth != web.AuthTecOrAccess {
			continue
		}
		for _, role := range store.Roles {
			body := `{"access_token":"` + tokens[role] + `","unit_token":"{{unitA}}"}`
			rec := do(h, rt.MethodOf(), rt.Path, body)
			checked++
			var got struct {
				Error   string            `json:"error"`
				Message string            `json:"message"`
				Details map[string]string `json:"details"`
			}
			json.Unmarshal(rec.Body.Bytes(), &got)
			byRole := rec.Code == http.StatusForbidden && got.Details["role"] == string(role)
			if rt.Envelope == web.EnvMessage {
				// {success, message, data: null} has no details: only
				// the role makes a token-only body 403 here.
				byRole = rec.Code == http.StatusForbidden && got.Message == rt.Texts.Invalid.Text
			}
			want := rt.Write && !access.May(role, rt.AreaOf())
			if byRole != want {
				t.Errorf("%s as %s: %d %s; want refused by role: %v", rt.Path, role, rec.Code, rec.Body.String(), want)
				continue
			}
			if !want {
				continue
			}
			refused++
			text := got.Error
			if text == "" {
				text = got.Message
			}
			if text != rt.Texts.Invalid.Text || rt.Envelope != web.EnvMessage && (got.Details["area"] != string(rt.AreaOf()) ||
				got.Details["unit_token"] != fx.tokens["unitA"]) {
				t.Errorf("%s as %s: %s", rt.Path, role, rec.Body.String())
			}
		}
		// Unit B was given to nobody of them.
		rec := do(h, rt.MethodOf(), rt.Path, `{"access_token":"`+tokens[store.RoleOwner]+`","unit_token":"{{unitB}}"}`)
		if !bytesHasText(rec.Body.Bytes(), rt.Texts.Unit.Text) || rec.Code != web.StatusOf(rt.Texts.Unit) {
			t.Errorf("%s on a unit not given: %d %s", rt.Path, rec.Code, rec.Body.String())
		}
	}
	// What each kind of write changes, as the roles' descriptions say.
	areas := map[string]access.Area{"/generate_nf": access.Invoices, "/cancel_nf": access.Invoices, "/generate_charge": access.Charges,
		"/settle_charge": access.Charges, "/insert_expense": access.Finance, "/reconcile_statement_line": access.Finance,
		"/insert_sales_order": access.Sales, "/insert_contact": access.Registers, "/insert_product_or_service": access.Registers,
		"/insert_webhook": access.Admin, "/manifest_nfe": access.Finance, "/insert_contract": access.Sales,
		"/_test/pay_charge": access.Charges, "/_test/pay_pix": access.Charges, "/_test/refuse_charge": access.Charges,
		"/_test/overdue_charge": access.Charges, "/_test/bank_return": access.Charges, "/_test/pix_automatico": access.Sales}
	for i := range s.routes {
		if want, ok := areas[s.routes[i].Path]; ok {
			if got := s.routes[i].AreaOf(); got != want {
				t.Errorf("%s changes %s, want %s", s.routes[i].Path, got, want)
			}
			delete(areas, s.routes[i].Path)
		}
	}
	if len(areas) != 0 {
		t.Errorf("routes not in the table: %v", areas)
	}
	t.Logf("%d route and role cases, %d refused by role", checked, refused)
	if checked < 4*90 || refused < 60 {
		t.Fatalf("only %d cases checked, %d refused", checked, refused)
	}
}

func bytesHasText(body []byte, text string) bool {
	var got map[string]any
	if json.Unmarshal(body, &got) != nil {
		return false
	}
	return got["error"] == text || got["message"] == text
}
