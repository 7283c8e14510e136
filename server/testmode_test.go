package server

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"fincom/jobs"
	"fincom/server/billing"
	"fincom/store"
)

func testModeServer(t *testing.T) http.Handler {
	t.Helper()
	now := fixedNow
	base, ds := newTestServerAt(t, &now, Config{})
	bill, inv, err := testServices(ServiceOptions{PublicURL: "https://fincom.test", Log: base.log, Keyring: testKeys, TestCertificates: true,
		Clock: ds.DomainNow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bill.Close() })
	runner := &jobs.Runner{Domains: ds, Log: base.log, Billing: bill}
	s, err := New(ds, base.system, Config{PublicURL: "https://fincom.test", TestMode: true, Billing: bill, Invoices: inv,
		RunDay: func(ctx context.Context, db *store.DB, day store.Date) (any, error) {
			return runner.RunDay(ctx, db, day)
		}, Wake: runner.Wake})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler()
}

// TestTestClock: advancing a domain's clock runs the jobs of the days it
// crosses; other domains keep their clock.
func TestTestClock(t *testing.T) {
	t.Parallel()
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
	if !regexp.MustCompile(`^t-[0-9]+-[0-9a-f]{12}$`).MatchString(d["domain"].(string)) {
		t.Fatalf("domain %v", d)
	}
	body := `{"access_token":"` + d["access_token"].(string) + `","unit_token":"` + d["unit_token"].(string) + `"}`
	if rec := do(h, http.MethodPost, "/get_contacts", body); rec.Code != 200 {
		t.Fatalf("throw-away domain: %d", rec.Code)
	}
}

// TestClockBounded: a forward move past five years, by advance or by now,
// is refused at once and the clock stays where it was; numbers past any
// bound are a bad request, never an overflow.
func TestClockBounded(t *testing.T) {
	t.Parallel()
	h := testModeServer(t)
	before := post(t, h, "/_test/clock", `{"access_token":"{{access}}","advance":"PT0S"}`)["data"].(map[string]any)["now"]
	const jump = "The clock moves forward at most 5 years at a time: the jobs of every day it crosses run before it answers."
	start := time.Now()
	for _, c := range []struct {
		body   string
		status int
		text   string
	}{
		{`"advance":"P9999Y"`, 422, jump},
		{`"advance":"P5Y1D"`, 422, jump},
		{`"advance":"100000h"`, 422, jump},
		{`"now":"9999-01-01T00:00:00Z"`, 422, jump},
		{`"advance":"P99999999999999999999D"`, 400, "Send now (RFC 3339), advance (an ISO 8601 duration such as P1M) or reset."},
	} {
		rec := do(h, http.MethodPost, "/_test/clock", `{"access_token":"{{access}}",`+c.body+`}`)
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), `"`+c.text+`"`) {
			t.Errorf("%s: %d %s", c.body, rec.Code, rec.Body)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refusals took %v", d)
	}
	if now := post(t, h, "/_test/clock", `{"access_token":"{{access}}","advance":"PT0S"}`)["data"].(map[string]any)["now"]; now != before {
		t.Errorf("the clock moved: %v, was %v", now, before)
	}
}

// TestNoTestRoutes: without test mode the routes do not exist.
func TestNoTestRoutes(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	if rec := do(s.Handler(), http.MethodPost, "/_test/clock", `{"access_token":"{{access}}","reset":true}`); rec.Code != 404 {
		t.Fatalf("%d", rec.Code)
	}
}

// TestSimulatedPayments: late payment with fine and interest, and a forced
// overdue.
func TestSimulatedPayments(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
// authorizes (with the rejected document's number; a denied one's is
// spent); a refused payment leaves the charge open.
func TestSimulatedAuthorityAndRefusal(t *testing.T) {
	t.Parallel()
	h := testModeServer(t)
	post(t, h, "/update_contact", withAddress)
	id := orderWith(t, h)
	post(t, h, "/_test/authority", `{"access_token":"{{access}}","mode":"reject","code":778,"reason":"Rejeição: Informado NCM inexistente"}`)
	rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	if rec.Code != 422 || !strings.Contains(rec.Body.String(), `"code":778`) {
		t.Fatalf("rejection: %d %s", rec.Code, rec.Body.String())
	}
	post(t, h, "/_test/authority", `{"access_token":"{{access}}","mode":"authorize"}`)
	// The rejected document's number was given back: the series has no
	// hole.
	if rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"number":1,`) {
		t.Fatalf("authorize: %d %s", rec.Code, rec.Body.String())
	}
	// The invoice's e-mail, as test mode shows it, carries the XML and the
	// DANFE.
	mails := post(t, h, "/_test/outbox", `{"access_token":"{{access}}"}`)["data"].([]any)
	if m := mails[0].(map[string]any); m["kind"] != "invoice_issued" || len(m["attachments"].([]any)) != 2 ||
		m["attachments"].([]any)[0].(map[string]any)["content_type"] != "application/xml" {
		t.Fatalf("outbox %v", mails)
	}
	// A denial (301, the default) spends its number, as SEFAZ records it.
	denied := orderWith(t, h)
	post(t, h, "/_test/authority", `{"access_token":"{{access}}","mode":"reject"}`)
	if rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+denied+`"}`); rec.Code != 422 || !strings.Contains(rec.Body.String(), `"code":301`) {
		t.Fatalf("denial: %d %s", rec.Code, rec.Body.String())
	}
	post(t, h, "/_test/authority", `{"access_token":"{{access}}","mode":"authorize"}`)
	if rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+denied+`"}`); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"number":3,`) {
		t.Fatalf("after a denial: %d %s", rec.Code, rec.Body.String())
	}
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	docs := post(t, h, "/_test/documents", `{"access_token":"{{access}}"}`)["data"].([]any)
	if len(docs) != 3 {
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
	t.Parallel()
	now := fixedNow
	base, ds := newTestServerAt(t, &now, Config{})
	s, err := New(ds, base.system, Config{TestMode: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Create(context.Background(), "t-1000-abcdef"); err != nil {
		t.Fatal(err)
	}
	if err := ds.MarkThrowAway("t-1000-abcdef"); err != nil {
		t.Fatal(err)
	}
	// Born two days ago; a domain named alike but not marked is a user's.
	old := time.Now().Add(-48 * time.Hour).UTC().Format(time.RFC3339)
	if err := os.WriteFile(filepath.Join(ds.Dir(), "_throwaway", "t-1000-abcdef"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ds.Create(context.Background(), "t-1000-fedcba"); err != nil {
		t.Fatal(err)
	}
	post(t, s.Handler(), "/_test/domains", `{}`)
	if ds.Exists("t-1000-abcdef") {
		t.Fatal("an expired throw-away domain survived")
	}
	if !ds.Exists("t-1000-fedcba") {
		t.Fatal("an unmarked domain was removed")
	}
}

// seededScript runs one integrator's session on a fresh data directory
// served with --seed: a throw-away domain, registers, an order with a PIX
// charge, a webhook. It answers every response body.
func seededScript(t *testing.T, seed uint64) []string {
	t.Helper()
	dir := t.TempDir()
	now := func() time.Time { return fixedNow }
	ds, err := store.OpenDomains(dir, store.Options{Rules: billing.Rules{}, Schema: fx.schema, Now: now, Seeded: true, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	sys, err := store.OpenSystem(dir, store.DurabilityFull, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ds.Close()
		sys.Close()
	})
	s, err := New(ds, sys, Config{Version: "test", PublicURL: "https://fincom.test", TestMode: true, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	var bodies []string
	call := func(path, body string) map[string]any {
		rec := do(h, http.MethodPost, path, body)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
		bodies = append(bodies, rec.Body.String())
		var m map[string]any
		json.Unmarshal(rec.Body.Bytes(), &m)
		return m
	}
	d := call("/_test/domains", `{"label":"checkout"}`)["data"].(map[string]any)
	tok := `"access_token":"` + d["access_token"].(string) + `","unit_token":"` + d["unit_token"].(string) + `"`
	contact := call("/insert_contact", `{`+tok+`,"type":"legal","register":"11444777000161","socialReason":"Cliente SA","email":"fin@cliente.com.br"}`)["token"].(string)
	product := call("/insert_product_or_service", `{`+tok+`,"description":"Consultoria","type":"service","monetary_value":"250.00"}`)["token"].(string)
	cats := call("/get_categories", `{`+tok+`,"type":"in"}`)["data"].([]any)
	category := cats[0].(map[string]any)["token"].(string)
	call("/insert_webhook", `{`+tok+`,"url":"http://127.0.0.1:9/hook","events":["*"]}`)
	order := call("/insert_sales_order", `{`+tok+`,
		"pv": {"id_token_contact":"`+contact+`","id_token_stock_item":"`+product+`","description":"Consultoria","value":250,"quantity":1},
		"faturamento": {"id_token_category":"`+category+`","estimated_payment_date":"2026-11-30"},
		"charge": {"payment_type":"`+payPix+`","provider_bank":"provider_a","installment_credit":1,"charge_pix_key":"fin@loja.com.br"}}`)["data"].(map[string]any)["id"].(string)
	call("/generate_charge", `{`+tok+`,"id_token":"`+order+`"}`)
	call("/get_sales_order_by_id", `{`+tok+`,"id_token":"`+order+`"}`)
	call("/_test/webhooks", `{"access_token":"`+d["access_token"].(string)+`"}`)
	return bodies
}

// TestSeededRunsAreReproducible: with --seed, the same session on a fresh
// data directory answers the same bytes (domain name, access and unit
// tokens, record tokens, public tokens, BR Codes, webhook secrets and event
// ids); another seed answers other tokens.
func TestSeededRunsAreReproducible(t *testing.T) {
	t.Parallel()
	a, b, c := seededScript(t, 42), seededScript(t, 42), seededScript(t, 43)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("answer %d differs between two runs with seed 42:\n%s\n%s", i, a[i], b[i])
			}
		}
	}
	if a[0] == c[0] || a[1] == c[1] {
		t.Fatalf("seeds 42 and 43 gave the same tokens: %s", a[0])
	}
	if !strings.Contains(a[0], `"domain":"t-checkout-`) {
		t.Fatalf("label not in the name: %s", a[0])
	}
}

// TestDomainFromSnapshotAndResetEmpty: a throw-away domain made from
// another's snapshot holds its records under its own tokens; a reset to
// empty keeps units, tokens and default categories and drops the rest.
func TestDomainFromSnapshotAndResetEmpty(t *testing.T) {
	t.Parallel()
	now := fixedNow
	s, _ := newTestServerAt(t, &now, Config{Version: "test", TestMode: true})
	h := s.Handler()
	tokensOf := func(d map[string]any) string {
		return `"access_token":"` + d["access_token"].(string) + `","unit_token":"` + d["unit_token"].(string) + `"`
	}
	first := post(t, h, "/_test/domains", `{"label":"source"}`)["data"].(map[string]any)
	contact := post(t, h, "/insert_contact", `{`+tokensOf(first)+`,"type":"legal","register":"11444777000161","socialReason":"Cliente SA"}`)["token"].(string)
	post(t, h, "/_test/snapshot", `{"access_token":"`+first["access_token"].(string)+`","name":"with-contact"}`)

	if rec := do(h, http.MethodPost, "/_test/domains", `{"access_token":"`+first["access_token"].(string)+`","snapshot":"nope"}`); rec.Code != 400 || !strings.Contains(rec.Body.String(), "Unknown or invalid snapshot: use 1 to 40 lower-case letters, digits and hyphens.") {
		t.Fatalf("unknown snapshot: %d %s", rec.Code, rec.Body.String())
	}
	if rec := do(h, http.MethodPost, "/_test/domains", `{"access_token":"fca_nope_00","snapshot":"with-contact"}`); rec.Code != 403 {
		t.Fatalf("bad source token: %d %s", rec.Code, rec.Body.String())
	}
	if rec := do(h, http.MethodPost, "/_test/domains", `{"label":"Bad Label"}`); rec.Code != 400 || !strings.Contains(rec.Body.String(), "Invalid label: use 1 to 30 lower-case letters, digits and hyphens.") {
		t.Fatalf("bad label: %d %s", rec.Code, rec.Body.String())
	}
	copyDomain := post(t, h, "/_test/domains", `{"access_token":"`+first["access_token"].(string)+`","snapshot":"with-contact"}`)["data"].(map[string]any)
	if copyDomain["domain"] == first["domain"] || copyDomain["unit_token"] == first["unit_token"] {
		t.Fatalf("the copy shares the source's name or unit token: %v", copyDomain)
	}
	got := post(t, h, "/get_contacts", `{`+tokensOf(copyDomain)+`}`)["data"].([]any)
	if len(got) != 1 || got[0].(map[string]any)["token"] != contact {
		t.Fatalf("contacts of the copy: %v", got)
	}
	// The source's access token opens nothing in the copy.
	mixed := `{"access_token":"` + first["access_token"].(string) + `","unit_token":"` + copyDomain["unit_token"].(string) + `"}`
	if rec := do(h, http.MethodPost, "/get_contacts", mixed); rec.Code == 200 {
		t.Fatal("the source's access token reads the copy")
	}
	// A change in the copy leaves the source as it was.
	post(t, h, "/insert_contact", `{`+tokensOf(copyDomain)+`,"type":"natural_person","register":"52998224725","fullName":"Só na Cópia"}`)
	if n := len(post(t, h, "/get_contacts", `{`+tokensOf(first)+`}`)["data"].([]any)); n != 1 {
		t.Fatalf("source has %d contacts", n)
	}

	if rec := do(h, http.MethodPost, "/_test/reset", `{"access_token":"`+copyDomain["access_token"].(string)+`"}`); rec.Code != 400 {
		t.Fatalf("reset without name or empty: %d", rec.Code)
	}
	post(t, h, "/_test/reset", `{"access_token":"`+copyDomain["access_token"].(string)+`","empty":true}`)
	if n := len(post(t, h, "/get_contacts", `{`+tokensOf(copyDomain)+`}`)["data"].([]any)); n != 0 {
		t.Fatalf("%d contacts after the reset to empty", n)
	}
	if n := len(post(t, h, "/get_categories", `{`+tokensOf(copyDomain)+`,"type":"in"}`)["data"].([]any)); n == 0 {
		t.Fatal("default categories gone after the reset to empty")
	}
	// The codes start again.
	post(t, h, "/insert_contact", `{`+tokensOf(copyDomain)+`,"type":"legal","register":"11444777000161","socialReason":"De Novo SA"}`)
}

// TestBankReturnInTestMode: the simulated bank hands out the return file
// that pays an order's boleto; imported like a real bank's, it pays the
// charge once, and nothing changes before it is imported.
func TestBankReturnInTestMode(t *testing.T) {
	t.Parallel()
	h := testModeServer(t)
	id := orderWith(t, h) // boleto through provider_a, 1500.00
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	rec := do(h, http.MethodPost, "/_test/bank_return", `{`+auth+`,"id_token":"`+id+`"}`)
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") || len(strings.Split(strings.TrimSpace(rec.Body.String()), "\r\n")) != 6 {
		t.Fatalf("return file: %d %s\n%s", rec.Code, rec.Header(), rec.Body)
	}
	file := rec.Body.Bytes()
	status := func() string {
		return post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charge_status"].(string)
	}
	if st := status(); st != "PENDING" {
		t.Fatalf("before the import: %s", st)
	}
	imp := doMultipart(h, "/import_return", `{`+auth+`}`, map[string][]byte{"RET.ret": file})
	if imp.Code != 200 || !strings.Contains(imp.Body.String(), `"outcome":"paid"`) || status() != "PAID" {
		t.Fatalf("import: %d %s", imp.Code, imp.Body)
	}
	if again := doMultipart(h, "/import_return", `{`+auth+`}`, map[string][]byte{"RET.ret": file}); !strings.Contains(again.Body.String(), `"duplicate":true`) {
		t.Errorf("second import: %s", again.Body)
	}
	if rec := do(h, http.MethodPost, "/_test/bank_return", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != 409 {
		t.Errorf("a paid boleto's return: %d %s", rec.Code, rec.Body)
	}
}
