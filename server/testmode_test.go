package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"fincom/jobs"
	"fincom/render"
	"fincom/store"
)

func testModeServer(t *testing.T) http.Handler {
	t.Helper()
	now := fixedNow
	base, ds := newTestServerAt(t, &now, Config{})
	rd, _ := render.New()
	runner := &jobs.Runner{Domains: ds, Log: base.log, Render: rd, PublicURL: "https://fincom.test"}
	s, err := New(ds, base.system, Config{PublicURL: "https://fincom.test", TestMode: true,
		RunDay: func(ctx context.Context, db *store.DB, day store.Date) (any, error) {
			return runner.RunDay(ctx, db, day)
		}})
	if err != nil {
		t.Fatal(err)
	}
	runner.ChargeOrder = s.IssueCharges
	return s.Handler()
}

// TestTestClock: advancing a domain's clock runs the jobs of the days it
// crosses; other domains keep their clock.
func TestTestClock(t *testing.T) {
	h := testModeServer(t)
	post(t, h, "/insert_sales_order", serviceOrder) // recurring, created 2026-11-22
	out := post(t, h, "/_test/clock", `{"access_token":"{{access}}","advance":"P10D"}`)["data"].(map[string]any)
	if out["now"] != "2026-12-02T12:00:00Z" || len(out["jobs"].([]any)) != 10 {
		t.Fatalf("advance: %v", out)
	}
	orders := post(t, h, "/list_sales_orders", `{`+auth+`,"date_from":"2026-01-01","date_to":"2027-12-31"}`)["data"].([]any)
	if len(orders) != 2 || orders[1].(map[string]any)["estimated_payment_date"] != "2026-12-30T00:00:00.000Z" {
		t.Fatalf("orders after day 1: %v", len(orders))
	}
	// The domain's new "today" drives the defaults.
	if tx := post(t, h, "/transactions", `{`+auth+`}`); tx["success"] != true {
		t.Fatal(tx)
	}
	runs := post(t, h, "/_test/job_runs", `{"access_token":"{{access}}"}`)["data"].([]any)
	if len(runs) == 0 {
		t.Fatal("no job runs")
	}
	if rec := do(h, http.MethodPost, "/_test/clock", `{"access_token":"{{access}}","advance":"-P1D"}`); rec.Code != 400 {
		t.Fatalf("backwards: %d", rec.Code)
	}
	if rec := do(h, http.MethodPost, "/_test/clock", `{"access_token":"{{revoked}}","reset":true}`); rec.Code != 403 {
		t.Fatalf("revoked: %d", rec.Code)
	}
	post(t, h, "/_test/clock", `{"access_token":"{{access}}","now":"2030-01-01T00:00:00Z"}`)
	post(t, h, "/_test/clock", `{"access_token":"{{access}}","reset":true}`)
	// A throw-away domain works at once.
	d := post(t, h, "/_test/domains", `{}`)["data"].(map[string]any)
	if !testDomainName.MatchString(d["domain"].(string)) {
		t.Fatalf("domain %v", d)
	}
	body := `{"access_token":"` + d["access_token"].(string) + `","unit_token":"` + d["unit_token"].(string) + `"}`
	if rec := do(h, http.MethodPost, "/get_contacts", body); rec.Code != 200 {
		t.Fatalf("throw-away domain: %d", rec.Code)
	}
}

// TestNoTestRoutes: without test mode the routes do not exist.
func TestNoTestRoutes(t *testing.T) {
	s, _ := newTestServer(t)
	if rec := do(s.Handler(), http.MethodPost, "/_test/clock", `{"access_token":"{{access}}","reset":true}`); rec.Code != 404 {
		t.Fatalf("%d", rec.Code)
	}
}

// TestSimulatedPayments: late payment with fine and interest, and a forced
// overdue.
func TestSimulatedPayments(t *testing.T) {
	h := testModeServer(t)
	id := orderWith(t, h) // boleto, 1500.00 due 2026-11-30
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	post(t, h, "/_test/overdue_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); o["charge_status"] != "OVERDUE" {
		t.Fatalf("status %v", o["charge_status"])
	}
	post(t, h, "/_test/clock", `{"access_token":"{{access}}","now":"2026-12-30T12:00:00Z"}`)
	p := post(t, h, "/_test/pay_charge", `{`+auth+`,"id_token":"`+id+`","late":true}`)["data"].(map[string]any)
	// 30 days late: 2% fine (30.00) and 1% interest (15.00).
	if p["paid_amount"] != "1545.00" || p["charge_status"] != "PAID" {
		t.Fatalf("late payment %v", p)
	}
	if rec := do(h, http.MethodPost, "/_test/pay_charge", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != 409 {
		t.Fatalf("paid twice: %d", rec.Code)
	}
}

// TestFaults: a rule fails a route with the spec's text; removing it
// restores the route; the rules are the domain's.
func TestFaults(t *testing.T) {
	h := testModeServer(t)
	post(t, h, "/_test/faults", `{"access_token":"{{access}}","rules":[{"route":"/get_contacts","probability":1,"status":500,"text":"Something went wrong. Please try again later."}]}`)
	if rec := do(h, http.MethodPost, "/get_contacts", `{`+auth+`}`); rec.Code != 500 || !strings.Contains(rec.Body.String(), "Something went wrong") {
		t.Fatalf("fault: %d %s", rec.Code, rec.Body.String())
	}
	if rec := do(h, http.MethodPost, "/get_contacts", `{"access_token":"{{otherAccess}}","unit_token":"{{unitC}}"}`); rec.Code != 200 {
		t.Fatalf("other domain: %d", rec.Code)
	}
	post(t, h, "/_test/faults", `{"access_token":"{{access}}","rules":[]}`)
	if rec := do(h, http.MethodPost, "/get_contacts", `{`+auth+`}`); rec.Code != 200 {
		t.Fatalf("after removal: %d", rec.Code)
	}
	if rec := do(h, http.MethodPost, "/_test/faults", `{"access_token":"{{access}}","rules":[{"route":"/x","probability":2,"status":500}]}`); rec.Code != 400 {
		t.Fatalf("bad rule: %d", rec.Code)
	}
}

// TestJournal: the domain's requests and answers are kept, tokens masked.
func TestJournal(t *testing.T) {
	h := testModeServer(t)
	post(t, h, "/insert_project", `{`+auth+`,"name":"Journal"}`)
	do(h, http.MethodPost, "/insert_project", `{`+auth+`}`)
	entries := post(t, h, "/_test/journal", `{"access_token":"{{access}}"}`)["data"].([]any)
	if len(entries) != 2 {
		t.Fatalf("entries %v", entries)
	}
	first := entries[0].(map[string]any)
	req := first["request"].(map[string]any)
	if first["route"] != "/insert_project" || first["status"] != 200.0 || req["access_token"] != "***" || req["name"] != "Journal" ||
		first["response"].(map[string]any)["success"] != true {
		t.Fatalf("entry %v", first)
	}
	if second := entries[1].(map[string]any); second["status"] != 400.0 {
		t.Fatalf("second %v", second)
	}
}

// TestSnapshots: save, change, reset; a throw-away domain resets to empty.
func TestSnapshots(t *testing.T) {
	h := testModeServer(t)
	post(t, h, "/_test/snapshot", `{"access_token":"{{access}}","name":"before"}`)
	post(t, h, "/insert_project", `{`+auth+`,"name":"Depois"}`)
	if n := len(post(t, h, "/get_projects", `{`+auth+`}`)["data"].([]any)); n != 2 {
		t.Fatalf("projects %d", n)
	}
	post(t, h, "/_test/reset", `{"access_token":"{{access}}","name":"before"}`)
	if n := len(post(t, h, "/get_projects", `{`+auth+`}`)["data"].([]any)); n != 1 {
		t.Fatalf("after reset: %d projects", n)
	}
	if rec := do(h, http.MethodPost, "/_test/reset", `{"access_token":"{{access}}","name":"../x"}`); rec.Code != 400 {
		t.Fatalf("bad name: %d", rec.Code)
	}
	d := post(t, h, "/_test/domains", `{}`)["data"].(map[string]any)
	tok := `"access_token":"` + d["access_token"].(string) + `","unit_token":"` + d["unit_token"].(string) + `"`
	post(t, h, "/insert_project", `{`+tok+`,"name":"X"}`)
	post(t, h, "/_test/reset", `{"access_token":"`+d["access_token"].(string)+`","name":"initial"}`)
	if n := len(post(t, h, "/get_projects", `{`+tok+`}`)["data"].([]any)); n != 0 {
		t.Fatalf("throw-away domain after reset: %d projects", n)
	}
}

// TestSimulatedAuthorityAndRefusal: the authority rejects with a code, then
// authorizes; a refused payment leaves the charge open.
func TestSimulatedAuthorityAndRefusal(t *testing.T) {
	h := testModeServer(t)
	post(t, h, "/update_contact", withAddress)
	id := orderWith(t, h)
	post(t, h, "/_test/authority", `{"access_token":"{{access}}","mode":"reject","code":539,"reason":"Duplicidade de NF-e com diferença na chave de acesso"}`)
	rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	if rec.Code != 422 || !strings.Contains(rec.Body.String(), `"code":539`) {
		t.Fatalf("rejection: %d %s", rec.Code, rec.Body.String())
	}
	post(t, h, "/_test/authority", `{"access_token":"{{access}}","mode":"authorize"}`)
	if rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != 200 {
		t.Fatalf("authorize: %d %s", rec.Code, rec.Body.String())
	}
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	docs := post(t, h, "/_test/documents", `{"access_token":"{{access}}"}`)["data"].([]any)
	if len(docs) != 2 {
		t.Fatalf("documents %v", docs)
	}
	kinds := docs[0].(map[string]any)["kind"].(string) + "," + docs[1].(map[string]any)["kind"].(string)
	if !strings.Contains(kinds, "boleto") || !strings.Contains(kinds, "nfse") {
		t.Fatalf("kinds %s", kinds)
	}
	post(t, h, "/_test/refuse_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); o["charge_status"] != "PENDING" {
		t.Fatalf("after refusal: %v", o["charge_status"])
	}
}

// TestThrowAwayExpiry: a throw-away domain older than a day goes when a
// new one is made.
func TestThrowAwayExpiry(t *testing.T) {
	now := fixedNow
	base, ds := newTestServerAt(t, &now, Config{})
	s, err := New(ds, base.system, Config{TestMode: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Create(context.Background(), "t-1000-abcdef"); err != nil {
		t.Fatal(err)
	}
	post(t, s.Handler(), "/_test/domains", `{}`)
	if ds.Exists("t-1000-abcdef") {
		t.Fatal("an expired throw-away domain survived")
	}
}
