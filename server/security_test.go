package server

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"fincom/store"
)

// The attacks of the README's Security section, each as an outsider (or a
// unit's token holder) would make it: each test is the attack, and what
// fincom must answer to it.

// chargedOrder inserts the service order (in_automation, a provider_a
// boleto of 1,500.00), issues its charge and answers the order's token and
// its public token.
func chargedOrder(t *testing.T, h http.Handler, replace ...string) (id, public string) {
	t.Helper()
	id = orderWith(t, h, replace...)
	url := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["payment_url"].(string)
	return id, url[strings.LastIndex(url, "/")+1:]
}

// TestPublicPayInProduction: a payer cannot declare an order paid. Outside
// test mode the portal's "pay" settles nothing: the charge stays open, no
// income is booked, no charge.paid event or e-mail is queued.
func TestPublicPayInProduction(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	post(t, h, "/insert_webhook", `{`+auth+`,"url":"https://hooks.example.com/x","events":["*"]}`)
	id, public := chargedOrder(t, h)
	for _, body := range []string{`{"token":"` + public + `","amount":"0.01"}`, `{"token":"` + public + `"}`} {
		rec := do(h, http.MethodPost, "/sales_orders/public_pay", body)
		if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), `"error":"Online payment is not available for this charge: pay the boleto or the PIX code."`) {
			t.Fatalf("public_pay %s: %d %s", body, rec.Code, rec.Body.String())
		}
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if o["charge_status"] != "PENDING" || o["revenue"] != false {
		t.Fatalf("order after a payer's claim: %v revenue %v", o["charge_status"], o["revenue"])
	}
	if tx := post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-11-30","type":"in"}`)["data"].([]any); len(tx) != 0 {
		t.Fatalf("income booked: %v", tx)
	}
	for _, d := range post(t, h, "/list_webhook_deliveries", `{`+auth+`}`)["data"].([]any) {
		if d.(map[string]any)["event_type"] == "charge.paid" {
			t.Fatal("charge.paid queued")
		}
	}
	db, release, _ := s.domains.Acquire(context.Background(), "acme")
	defer release()
	mails, _ := db.Outbox(context.Background(), store.EveryUnit, 50)
	for _, m := range mails {
		if m.Kind == "payment_confirmed" {
			t.Fatal("payment e-mail queued")
		}
	}
	// An unknown token is still not found.
	if rec := do(h, http.MethodPost, "/sales_orders/public_pay", `{"token":"fcp_acme_0000"}`); rec.Code != http.StatusNotFound {
		t.Fatalf("unknown token: %d", rec.Code)
	}
}

// TestPaymentSettlement: every confirmed amount is positive, within the
// money range, and recorded against its charge as exact, partial, over or
// late (test mode's simulated payer).
func TestPaymentSettlement(t *testing.T) {
	t.Parallel()
	now := fixedNow
	s, _ := newTestServerAt(t, &now, Config{Version: "test", PublicURL: "https://fincom.test", TestMode: true})
	h := s.Handler()
	pay := func(id, extra string) map[string]any {
		t.Helper()
		return post(t, h, "/_test/pay_charge", `{`+auth+`,"id_token":"`+id+`"`+extra+`}`)["data"].(map[string]any)
	}
	for _, c := range []struct{ extra, want, amount string }{
		{``, "exact", "1500.00"},
		{`,"amount":"0.01"`, "partial", "0.01"},
		{`,"amount":"1600"`, "over", "1600.00"},
	} {
		id, _ := chargedOrder(t, h)
		if p := pay(id, c.extra); p["settlement"] != c.want || p["paid_amount"] != c.amount {
			t.Errorf("pay%s: %v", c.extra, p)
		}
		charges := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)
		if got := charges[0].(map[string]any)["settlement"]; got != c.want {
			t.Errorf("charge settlement %v, want %s", got, c.want)
		}
	}
	// Ten days late: 2% fine and 1% a month pro rata, on 1,500.00.
	id, _ := chargedOrder(t, h)
	now = time.Date(2026, 12, 10, 12, 0, 0, 0, time.UTC) // due 2026-11-30
	if p := pay(id, `,"late":true`); p["settlement"] != "late" || p["paid_amount"] != "1535.00" {
		t.Errorf("late: %v", p)
	}
	// Out of range or not positive: refused before anything is recorded.
	id2, public2 := chargedOrder(t, h)
	for _, c := range []struct{ path, body, text string }{
		{"/sales_orders/public_pay", `{"token":"` + public2 + `","amount":"99999999999999999999.999"}`, "Invalid amount. Amounts must be between -9999999999.99 and 9999999999.99."},
		{"/sales_orders/public_pay", `{"token":"` + public2 + `","amount":"0"}`, "Invalid value. It must be greater than zero."},
		{"/_test/pay_charge", `{` + auth + `,"id_token":"` + id2 + `","amount":"10000000000.00"}`, "Invalid amount. Amounts must be between -9999999999.99 and 9999999999.99."},
		{"/_test/pay_charge", `{` + auth + `,"id_token":"` + id2 + `","amount":"-5"}`, "Invalid value. It must be greater than zero."},
	} {
		rec := do(h, http.MethodPost, c.path, c.body)
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `"error":"`+c.text+`"`) {
			t.Errorf("%s %s: %d %s", c.path, c.body, rec.Code, rec.Body.String())
		}
	}
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id2+`"}`)["data"].(map[string]any); o["charge_status"] != "PENDING" {
		t.Fatalf("refused amounts changed the order: %v", o["charge_status"])
	}
}

// TestMoneyRange: every money field and quantity is bounded by one range,
// checked by the decoder, with a 400 naming the field as it was sent.
func TestMoneyRange(t *testing.T) {
	t.Parallel()
	const huge = `"184467440737095516.17"`
	order := func(old, new string) string { return strings.Replace(serviceOrder, old, new, 1) }
	run(t, []scenario{
		{name: "entry value", path: "/insert_income", body: `{` + auth + `,"description":"x","value":` + huge + `,"due_date":"2026-11-30"}`,
			status: 400, text: "Invalid value. Amounts must be between -9999999999.99 and 9999999999.99."},
		{name: "entry value as a number", path: "/insert_expense", body: `{` + auth + `,"description":"x","value":1e2,"due_date":"2026-11-30"}`,
			status: 400, text: "Invalid parameter format"},
		{name: "entry at the bound", path: "/insert_income", body: `{` + auth + `,"description":"x","value":"9999999999.99","due_date":"2026-11-30"}`, status: 200},
		{name: "entry past the bound", path: "/insert_income", body: `{` + auth + `,"description":"x","value":10000000000,"due_date":"2026-11-30"}`,
			status: 400, text: "Invalid value. Amounts must be between -9999999999.99 and 9999999999.99."},
		{name: "order value", path: "/insert_sales_order", body: order(`"value":1500`, `"value":`+huge),
			status: 400, text: "Invalid pv.value. Amounts must be between -9999999999.99 and 9999999999.99."},
		{name: "order tax nested", path: "/insert_sales_order", body: order(`"ret_ir_amount":22.5`, `"ret_ir_amount":1e3`),
			status: 422, text: "Invalid parameter format"},
		{name: "order retention", path: "/insert_sales_order", body: order(`"ret_ir_amount":22.5`, `"ret_ir_amount":`+huge),
			status: 400, text: "Invalid nf.retencoes.ret_ir_amount. Amounts must be between -9999999999.99 and 9999999999.99."},
		{name: "order quantity", path: "/insert_sales_order", body: order(`"quantity":2`, `"quantity":"1000000000"`),
			status: 400, text: "Invalid pv.quantity. Quantities must be between -999999999.999 and 999999999.999."},
		{name: "opening balance", path: "/insert_bank_account", body: `{` + auth + `,"id_token_bank":"{{bankBB}}","id_token_bank_type":"{{typeChecking}}","opening_balance":-20000000000}`,
			status: 400, text: "Invalid opening_balance. Amounts must be between -9999999999.99 and 9999999999.99."},
		{name: "product price", path: "/insert_product_or_service", body: `{` + auth + `,"description":"x","type":"service","monetary_value":` + huge + `}`,
			status: 400, text: "Invalid monetary_value. Amounts must be between -9999999999.99 and 9999999999.99."},
		{name: "project budget", path: "/insert_project", body: `{` + auth + `,"name":"x","budget":` + huge + `}`,
			status: 400, text: "Invalid budget. Amounts must be between -9999999999.99 and 9999999999.99."},
		{name: "movement quantity", path: "/insert_inventory_movement", body: `{` + auth + `,"id_token_product":"{{product1}}","type":"in","quantity":"5000000000","unitary_value":1}`,
			status: 400, text: "Invalid quantity. Quantities must be between -999999999.999 and 999999999.999."},
	})
}

// TestWebhookTargets: outside test mode a webhook may not point at the
// server's own machine or network; test mode (and
// --webhook-allow-private) lets developers point webhooks at their own
// machine. Refusal only: nothing is sent.
func TestWebhookTargets(t *testing.T) {
	t.Parallel()
	refused := []string{"http://127.0.0.1:8080/x", "http://169.254.169.254/latest/meta-data", "http://10.0.0.5/", "http://192.168.1.1/",
		"http://172.16.0.1/", "http://[::1]:9000/", "http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://localhost:3000/",
		"http://api.localhost/", "http://2130706433/", "http://0x7f.1/", "http://100.64.0.1/", "http://224.0.0.1/", "http://[64:ff9b::7f00:1]/",
		"http://[::1%25lo]:9000/x", "http://[fe80::1%25eth0]/", "http://[fd00:ec2::254%25eth0]/", "http://[2001:db8::1%25eth0]/"}
	var scenarios []scenario
	for _, u := range refused {
		scenarios = append(scenarios, scenario{name: "refused " + u, path: "/insert_webhook", body: `{` + auth + `,"url":"` + u + `","events":["*"]}`,
			status: 400, text: "Invalid url. Webhooks are posted to public addresses only, not to loopback, private, link-local or reserved ones."})
	}
	scenarios = append(scenarios,
		scenario{name: "public name", path: "/insert_webhook", body: `{` + auth + `,"url":"https://hooks.example.com/fincom","events":["*"]}`, status: 200},
		scenario{name: "public address", path: "/insert_webhook", body: `{` + auth + `,"url":"http://203.0.113.10:8443/x","events":["*"]}`, status: 200},
		scenario{name: "user info", path: "/insert_webhook", body: `{` + auth + `,"url":"https://user:pw@hooks.example.com/","events":["*"]}`,
			status: 400, text: "Invalid url. Use an http or https address."},
		scenario{name: "test mode allows loopback", testMode: true, path: "/insert_webhook", body: `{` + auth + `,"url":"http://127.0.0.1:8080/x","events":["*"]}`, status: 200},
	)
	run(t, scenarios)
	now := fixedNow
	s, _ := newTestServerAt(t, &now, Config{Version: "test", WebhookAllowPrivate: true})
	post(t, s.Handler(), "/insert_webhook", `{`+auth+`,"url":"http://127.0.0.1:8080/x","events":["*"]}`)
}

// TestPortalHeaders: the portal's pages may not be framed and run no
// script but the portal's own, named by its hash in their
// Content-Security-Policy; the invoice XML is never cached.
func TestPortalHeaders(t *testing.T) {
	t.Parallel()
	s, _ := newTestModeServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", withAddress)
	id, public := chargedOrder(t, h, `"nf_kind":"nfse"`, `"nf_kind":"nfse","generateNFWebhook":true`)
	post(t, h, "/_test/pay_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	for _, path := range []string{"/sales_orders/public_payment/" + public, "/sales_orders/public_boleto/" + public, "/sales_orders/public_danfe/" + public,
		"/sales_orders/public_payment/fcp_acme_0000"} {
		rec := do(h, http.MethodGet, path, "")
		csp := rec.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") || rec.Header().Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: CSP %q, X-Frame-Options %q", path, csp, rec.Header().Get("X-Frame-Options"))
		}
		doc, err := html.Parse(strings.NewReader(rec.Body.String()))
		if err != nil {
			t.Fatal(err)
		}
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode {
				for _, a := range n.Attr {
					if strings.HasPrefix(strings.ToLower(a.Key), "on") {
						t.Errorf("%s: <%s %s> runs script outside the CSP", path, n.Data, a.Key)
					}
				}
				if n.Data == "script" {
					text := ""
					if n.FirstChild != nil {
						text = n.FirstChild.Data
					}
					sum := sha256.Sum256([]byte(text))
					if !strings.Contains(csp, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") {
						t.Errorf("%s: a script the CSP does not name", path)
					}
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
	}
	rec := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+public, "")
	if rec.Code != 200 || rec.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("public_nf_xml: %d, Cache-Control %q", rec.Code, rec.Header().Get("Cache-Control"))
	}
}

// TestInputHygiene: notice addresses are checked as a contact's e-mail;
// names and single-line texts hold no control character (notes and
// observations may hold line breaks); a token of the wrong JSON type is a
// format error, not a missing one.
func TestInputHygiene(t *testing.T) {
	t.Parallel()
	order := func(old, new string) string { return strings.Replace(serviceOrder, old, new, 1) }
	contact := func(extra string) string {
		return `{` + auth + `,"type":"natural_person","register":"11144477735","fullName":"Maria"` + extra + `}`
	}
	run(t, []scenario{
		{name: "notify e-mail", path: "/insert_sales_order", body: order(`"notify_email_charge":"fin@alfa.com.br"`, `"notify_email_charge":"fin at alfa"`),
			status: 400, text: "Invalid pv.notify_email_charge. Use an e-mail address."},
		{name: "notify e-mail with a header", path: "/insert_sales_order", body: order(`"notify_email_nf":"nf@alfa.com.br"`, `"notify_email_nf":"nf@alfa.com.br\r\nBcc: x@evil.example"`),
			status: 400, text: "Invalid pv.notify_email_nf. Texts may not hold control characters (such as NUL); only notes and observations take line breaks and tabs."},
		{name: "notify alert, flat form", path: "/insert_sales_order", body: order(`"notify_email_nf":"nf@alfa.com.br"`, `"notify_email_nf":"nf@alfa.com.br","notify_email_alert":"a@b"`),
			status: 400, text: "Invalid pv.notify_email_alert. Use an e-mail address."},
		{name: "NUL in a name", path: "/insert_contact", body: contact(`,"fantasyName":"Ma\u0000ria"`),
			status: 400, text: "Invalid fantasyName. Texts may not hold control characters (such as NUL); only notes and observations take line breaks and tabs."},
		{name: "escape in a description", path: "/insert_sales_order", body: order(`"description":"Instalação de rede"`, `"description":"Instalação\u001b[2J"`),
			status: 400, text: "Invalid pv.description. Texts may not hold control characters (such as NUL); only notes and observations take line breaks and tabs."},
		{name: "line break in a name", path: "/insert_project", body: `{` + auth + `,"name":"Obra\nNova"}`,
			status: 400, text: "Invalid name. Texts may not hold control characters (such as NUL); only notes and observations take line breaks and tabs."},
		{name: "line breaks in an observation", path: "/insert_project", body: `{` + auth + `,"name":"Obra Nova","observation":"linha 1\nlinha 2\tfim"}`, status: 200},
		{name: "NUL in an observation", path: "/insert_contact", body: contact(`,"observation":"a\u0000b"`),
			status: 400, text: "Invalid observation. Texts may not hold control characters (such as NUL); only notes and observations take line breaks and tabs."},
		{name: "numeric access token", path: "/get_contacts", body: `{"access_token":123,"unit_token":"{{unitA}}"}`, status: 400, text: "Invalid parameter format"},
		{name: "object unit token", path: "/insert_sales_order", body: `{"access_token":"{{access}}","unit_token":{"x":1}}`, status: 422, text: "Invalid parameter format"},
		{name: "unit_tokens not a list", path: "/transactions", body: `{"access_token":"{{access}}","unit_tokens":"{{unitA}}"}`, status: 400, text: "Invalid parameter format"},
		{name: "null token is missing", path: "/get_contacts", body: `{"access_token":null,"unit_token":"{{unitA}}"}`, status: 400, text: "Missing parameters"},
	})
}
