package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"fincom/server/web"
	"fincom/store"
)

// TestEveryRouteRefusesForeignTokens walks the route table: on every
// private route, tokens that are missing, malformed, revoked, of another
// domain or naming another domain's unit answer the route's own status and
// text from its table, and never data.
func TestEveryRouteRefusesForeignTokens(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	type tokenCase struct {
		name string
		body string
		want func(web.Texts) *web.Error
	}
	cases := []tokenCase{
		{"missing", `{}`, func(x web.Texts) *web.Error { return x.Missing }},
		{"malformed access", `{"access_token":"not-a-token","unit_token":"{{unitA}}"}`, func(x web.Texts) *web.Error { return x.Invalid }},
		{"unknown domain", `{"access_token":"fca_nosuch_00112233","unit_token":"{{unitA}}"}`, func(x web.Texts) *web.Error { return x.Invalid }},
		{"revoked access", `{"access_token":"{{revoked}}","unit_token":"{{unitA}}"}`, func(x web.Texts) *web.Error { return x.Invalid }},
		{"access of another domain", `{"access_token":"{{otherAccess}}","unit_token":"{{unitA}}"}`, func(x web.Texts) *web.Error { return x.Unit }},
		{"unit of another domain", `{"access_token":"{{access}}","unit_token":"{{unitC}}"}`, func(x web.Texts) *web.Error { return x.Unit }},
		{"malformed unit", `{"access_token":"{{access}}","unit_token":"fcu_acme_zz"}`, func(x web.Texts) *web.Error { return x.Unit }},
	}
	checked := 0
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.Auth != web.AuthUnit && rt.Auth != web.AuthUnits && rt.Auth != web.AuthTecOrAccess {
			continue
		}
		for _, c := range cases {
			want := c.want(rt.Texts)
			if c.name == "missing" && rt.Auth == web.AuthTecOrAccess {
				want = rt.Texts.Missing
			}
			rec := do(h, http.MethodPost, rt.Path, c.body)
			checked++
			var got map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Errorf("%s %s: not JSON: %s", rt.Path, c.name, rec.Body.String())
				continue
			}
			text, _ := got["error"].(string)
			if text == "" {
				text, _ = got["message"].(string)
			}
			if rec.Code != web.StatusOf(want) || text != want.Text {
				t.Errorf("%s, %s: %d %q, want %d %q", rt.Path, c.name, rec.Code, text, web.StatusOf(want), want.Text)
			}
			if got["success"] != false || (got["data"] != nil) {
				t.Errorf("%s, %s: answered data: %s", rt.Path, c.name, rec.Body.String())
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
	t.Parallel()
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
		if rt.Auth == web.AuthPublic || rt.Auth == web.AuthDomain {
			continue
		}
		for kind, token := range records {
			if !strings.HasSuffix(rt.Path, "_"+kind) || strings.HasPrefix(rt.Path, "/insert_") || strings.HasPrefix(rt.Path, "/get_") && kind != "bank_account" {
				continue
			}
			body := `{` + unitB + `,"id_token":"` + token + `","name":"X","fullName":"X","description":"X","category":"X","nick_name":"X"}`
			rec := do(h, http.MethodPost, rt.Path, body)
			checked++
			if rec.Code == http.StatusOK || rec.Code >= 500 {
				t.Errorf("%s with unit B and a record of unit A: %d %s", rt.Path, rec.Code, rec.Body.String())
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

// TestListingsShowNoSiblingUnit: unit A's records of every kind (contact,
// entries, orders, charges and their public token, webhooks and their
// deliveries, contracts, CRM, screenings, movements, purchase orders, the
// audit log) never appear in any answer of any private route called with
// unit B's token, listings included. Catalogues of the domain (banks,
// payment methods, users, category groups) are the same for every unit by
// design and are not A's records.
func TestListingsShowNoSiblingUnit(t *testing.T) {
	t.Parallel()
	s, ds := newTestModeServer(t)
	h := s.Handler()
	leak := map[string]string{"unit A's token": fx.tokens["unitA"]}
	for _, name := range []string{"contact1", "contact2", "contactInactive", "category1", "project1", "product1", "service1", "account1"} {
		leak[name] = fx.tokens[name]
	}
	keep := func(what string, v any) {
		if s, ok := v.(string); ok && s != "" {
			leak[what] = s
		}
	}
	keep("expense", post(t, h, "/insert_expense", `{`+auth+`,"description":"Aluguel","value":2500,"due_date":"2026-11-05"}`)["token"])
	id, public := chargedOrder(t, h)
	keep("order", id)
	keep("public token", public)
	paid := post(t, h, "/_test/pay_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	keep("charge", paid["charge_token"])
	keep("income", paid["income_token"])
	keep("webhook", post(t, h, "/insert_webhook", `{`+auth+`,"url":"https://hooks.example.com/a","events":["*"]}`)["data"].(map[string]any)["token"])
	id2, _ := chargedOrder(t, h)
	keep("order 2", id2)
	keep("crm", post(t, h, "/insert_crm", `{`+auth+`,"description":"ligar"}`)["token"])
	keep("movement", post(t, h, "/insert_inventory_movement", `{`+auth+`,"id_token_product":"{{product1}}","type":"in","quantity":5,"unitary_value":1}`)["token"])
	keep("purchase", post(t, h, "/insert_purchase_order_by_access_key", `{`+auth+`,"access_key":"`+purchaseKey+`"}`)["token"])
	rec := doMultipart(h, "/insert_contract", contractMeta, map[string][]byte{"assinado.pdf": testFile(t, "boleto.pdf")})
	if rec.Code != http.StatusOK {
		t.Fatalf("contract: %d %s", rec.Code, rec.Body.String())
	}
	var contract map[string]any
	json.Unmarshal(rec.Body.Bytes(), &contract)
	keep("contract", contract["data"].(map[string]any)["id_token"])
	rec = doMultipart(h, "/insert_screening", `{`+auth+`}`, map[string][]byte{"boleto.pdf": testFile(t, "boleto.pdf")})
	var screening map[string]any
	json.Unmarshal(rec.Body.Bytes(), &screening)
	keep("screening", screening["token"])

	// The operator's token on unit B, and the token of a user given unit
	// B alone.
	checked := 0
	for _, access := range []string{fx.tokens["access"], userToken(t, ds, "bruno@acme.com.br", store.RoleOwner, fx.tokens["unitB"])} {
		unitB := `"access_token":"` + access + `","unit_token":"{{unitB}}"`
		body := `{` + unitB + `,"date_from":"2026-01-01","date_to":"2026-12-31","from_date":"2026-01-01","to_date":"2026-12-31",` +
			`"initial_date":"2026-01-01","final_date":"2026-12-31","year":2026,"type_data":"quantity","type":"in","group_bank":"CB","cnpj":"11444777000161"}`
		for i := range s.routes {
			rt := &s.routes[i]
			if rt.Auth == web.AuthPublic || rt.Auth == web.AuthDomain || rt.MethodOf() != http.MethodPost {
				continue
			}
			rec := do(h, http.MethodPost, rt.Path, body)
			checked++
			for what, tok := range leak {
				if strings.Contains(rec.Body.String(), tok) {
					t.Errorf("%s with unit B shows unit A's %s: %s", rt.Path, what, rec.Body.String())
				}
			}
		}
	}
	if checked < 180 {
		t.Fatalf("only %d routes called", checked)
	}
	// And unit A's own audit log does show its changes.
	if got := post(t, h, "/list_audit", `{`+auth+`}`)["data"].([]any); len(got) < 5 {
		t.Fatalf("unit A's audit log: %v", got)
	}
}

// userToken makes, in acme, a user with role on one unit (every unit:
// "") and answers an access token it made.
func userToken(t *testing.T, ds *store.Domains, email string, role store.Role, unitToken string) string {
	t.Helper()
	db, release := acquire(t, ds)
	defer release()
	u := createUser(t, db, "Pessoa "+email, email, role, unitToken)
	token, err := db.CreateUserToken(context.Background(), u.ID, "token de "+email)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// createUser makes a user of the domain with role on the unit of
// unitToken (every unit: "").
func createUser(t *testing.T, db *store.DB, name, email string, role store.Role, unitToken string) store.User {
	t.Helper()
	ctx := context.Background()
	var unitID int64
	if unitToken != "" {
		u, err := db.UnitByToken(ctx, unitToken)
		if err != nil {
			t.Fatal(err)
		}
		unitID = u.ID
	}
	u, err := db.CreateUserAs(ctx, name, email, role, unitID)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
