package server

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"testing"

	"fincom/render/pix"
	"fincom/server/billing"
	"fincom/server/brdoc"
	"fincom/server/provider"
	"fincom/store"
)

// orderWith inserts the service order with replacements applied and
// answers its token.
func orderWith(t *testing.T, h http.Handler, replace ...string) string {
	t.Helper()
	body := serviceOrder
	for i := 0; i+1 < len(replace); i += 2 {
		body = strings.Replace(body, replace[i], replace[i+1], 1)
	}
	return post(t, h, "/insert_sales_order", body)["data"].(map[string]any)["id"].(string)
}

// TestChargeFlow: charge -> portal -> pay -> income, through HTTP.
func TestChargeFlow(t *testing.T) {
	t.Parallel()
	var applied appliedLog
	now := fixedNow
	s, _ := newTestServerAt(t, &now, Config{Version: "test", PublicURL: "https://fincom.test", TestMode: true, Logger: applied.logger()})
	h := s.Handler()
	id := orderWith(t, h, `"installment_credit":1`, `"installments":2`)
	out := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	charges := out["charges"].([]any)
	if out["charge_status"] != "PENDING" || len(charges) != 2 {
		t.Fatalf("generate: %v", out)
	}
	c1 := charges[0].(map[string]any)
	c2 := charges[1].(map[string]any)
	if c1["amount"] != "750.00" || c2["amount"] != "750.00" || c1["due_date"] != "2026-11-30" || c2["due_date"] != "2026-12-30" {
		t.Fatalf("installments: %v %v", c1, c2)
	}
	line := c1["boleto_line"].(string)
	b, err := brdoc.ParseBoleto(line, fixedNow)
	if err != nil || b.BankCode != "341" || b.Value.StringFixed(2) != "750.00" || b.DueDate.Format("2006-01-02") != "2026-11-30" {
		t.Fatalf("boleto %s: %+v %v", line, b, err)
	}
	// Generating again answers the same charges: nothing is issued twice.
	again := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if again["charges"].([]any)[0].(map[string]any)["boleto_line"] != line || len(again["charges"].([]any)) != 2 {
		t.Fatalf("second generate: %v", again)
	}
	url := out["payment_url"].(string)
	public := url[strings.Index(url, "/sales_orders/public_payment/")+len("/sales_orders/public_payment/"):]
	if !strings.HasPrefix(url, "https://fincom.test/api/v1/sales_orders/public_payment/fcp_acme_") {
		t.Fatalf("payment url %s", url)
	}

	// Until the bank registers them, the portal shows no boleto to pay.
	if bol := do(h, http.MethodGet, "/sales_orders/public_boleto/"+public, ""); bol.Code != 409 {
		t.Errorf("an unregistered boleto shown: %d", bol.Code)
	}
	if page := do(h, http.MethodGet, "/sales_orders/public_payment/"+public, ""); strings.Contains(page.Body.String(), spaced(line)) ||
		!strings.Contains(page.Body.String(), "sendo registrado no banco") {
		t.Errorf("the page shows an unregistered boleto")
	}
	registerBoletos(t, h, "provider_a")
	page := do(h, http.MethodGet, "/sales_orders/public_payment/"+public, "")
	if page.Code != 200 || !strings.Contains(page.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %s", page.Code, page.Header())
	}
	for _, want := range []string{"Acme Matriz", "CNPJ 11.222.333/0001-81", "PV-000001", "R$ 1.500,00", "Parcela 1 de 2", "30/11/2026", spaced(line)} {
		if !strings.Contains(page.Body.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	bol := do(h, http.MethodGet, "/sales_orders/public_boleto/"+public+"?installment=2", "")
	if bol.Code != 200 || !strings.Contains(bol.Body.String(), "data:image/png;base64,") || !strings.Contains(bol.Body.String(), "341-7") {
		t.Fatalf("boleto page: %d", bol.Code)
	}
	pdf := do(h, http.MethodGet, "/sales_orders/public_boleto_pdf/"+public+"?installment=2", "")
	if pdf.Code != 200 || pdf.Header().Get("Content-Type") != "application/pdf" || !strings.HasPrefix(pdf.Body.String(), "%PDF-1.4") ||
		!strings.HasSuffix(strings.Trim(pdf.Header().Get("Content-Disposition"), `"`), `-2.pdf`) {
		t.Fatalf("boleto pdf: %d %v", pdf.Code, pdf.Header())
	}
	// A query that is not a whole number from 1 is refused, not read as
	// the first installment.
	for _, q := range []string{"x", "0", "-1", "1.5", ""} {
		for _, p := range []string{"/sales_orders/public_boleto/", "/sales_orders/public_boleto_pdf/", "/sales_orders/public_pix_qr/"} {
			rec := do(h, http.MethodGet, p+public+"?installment="+q, "")
			if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "Invalid installment. Use a whole number from 1.") {
				t.Errorf("%s?installment=%s: %d", p, q, rec.Code)
			}
		}
	}
	if rec := do(h, http.MethodGet, "/sales_orders/public_boleto_pdf/fcp_acme_0000", ""); rec.Code != 404 {
		t.Fatalf("boleto pdf of an unknown token: %d", rec.Code)
	}
	if rec := do(h, http.MethodPost, "/sales_orders/public_event", `{"token":"`+public+`","event":"copied_boleto"}`); rec.Code != 200 {
		t.Fatalf("event: %d %s", rec.Code, rec.Body.String())
	}
	if rec := do(h, http.MethodPost, "/sales_orders/public_event", `{"token":"`+public+`","event":"hacked"}`); rec.Code != 400 {
		t.Fatalf("bad event: %d", rec.Code)
	}

	// Pay the first installment: income entry (in_automation), reconciled
	// only with conciliation (off here).
	paid := post(t, h, "/sales_orders/public_pay", `{"token":"`+public+`"}`)["data"].(map[string]any)
	if paid["installment"] != 1.0 || paid["charge_status"] != "PENDING" || paid["income_token"] == nil || paid["reconciled"] != false {
		t.Fatalf("pay 1: %v", paid)
	}
	applied.want(t, store.PaidSimulated)
	if rec := do(h, http.MethodPost, "/cancel_charge", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != 200 {
		t.Fatalf("cancel the unpaid second: %d %s", rec.Code, rec.Body.String())
	}
	tx := post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-11-30","type":"in"}`)["data"].([]any)
	if len(tx) != 1 || tx[0].(map[string]any)["value"] != "750.00" || tx[0].(map[string]any)["status"] != "paid" {
		t.Fatalf("income: %v", tx)
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if o["revenue"] != true || o["charge"] != true || len(o["charges"].([]any)) != 2 {
		t.Fatalf("order after payment: revenue %v charge %v %v", o["revenue"], o["charge"], o["charges"])
	}
	// Paid and cancelled: nothing to cancel any more.
	if rec := do(h, http.MethodPost, "/cancel_charge", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != 409 {
		t.Fatalf("cancel again: %d %s", rec.Code, rec.Body.String())
	}
	// The outbox holds the charge notices and the payment confirmation.
	_, ds := s, s.domains
	db, release, _ := ds.Acquire(context.Background(), "acme")
	defer release()
	mails, _ := db.Outbox(context.Background(), store.EveryUnit, 10)
	kinds := map[string]int{}
	for _, m := range mails {
		kinds[m.Kind]++
		if m.To != "fin@alfa.com.br" || (m.Kind == "charge_created" && !strings.Contains(m.Body, public)) {
			t.Errorf("mail %+v", m)
		}
	}
	if kinds["charge_created"] != 2 || kinds["payment_confirmed"] != 1 {
		t.Fatalf("outbox kinds %v", kinds)
	}
	events, _ := db.PortalEvents(context.Background(), 1, id)
	// The page was viewed before and after the bank registered the
	// boletos; the boleto was opened twice: as a page, then as a PDF.
	if len(events) != 5 || events[0].Kind != "viewed" || events[1].Kind != "viewed" || events[2].Kind != "opened_boleto" ||
		events[3].Kind != "opened_boleto" || events[4].Kind != "copied_boleto" {
		t.Fatalf("events %+v", events)
	}
}

func spaced(line string) string {
	return line[0:5] + "." + line[5:10]
}

// TestPixCharge: a PIX order's charge carries a valid BR Code, drawn as a
// PNG QR code on the portal.
func TestPixCharge(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	out := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	c := out["charges"].([]any)[0].(map[string]any)
	payload := c["pix_payload"].(string)
	// The order's value, 35.00, and its freight, 12.30, which the invoice
	// bills too.
	if !pix.Valid(payload) || !strings.Contains(payload, "pix@acme.com.br") || !strings.Contains(payload, "540547.30") {
		t.Fatalf("BR Code %s", payload)
	}
	url := out["payment_url"].(string)
	public := url[strings.LastIndex(url, "/")+1:]
	img := do(h, http.MethodGet, "/sales_orders/public_pix_qr/"+public, "")
	if img.Code != 200 || img.Header().Get("Content-Type") != "image/png" {
		t.Fatalf("qr: %d %s", img.Code, img.Header())
	}
	if _, err := png.Decode(bytes.NewReader(img.Body.Bytes())); err != nil {
		t.Fatal(err)
	}
	page := do(h, http.MethodGet, "/sales_orders/public_payment/"+public, "").Body.String()
	if !strings.Contains(page, payload) || !strings.Contains(page, "public_pix_qr/"+public) {
		t.Fatal("page lacks the PIX code or its QR")
	}
}

func TestChargeErrors(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	id := orderWith(t, h)
	post(t, h, "/disable_sales_order", `{`+auth+`,"id_token":"`+id+`"}`)
	for _, c := range []struct {
		path, body string
		status     int
		text       string
	}{
		{"/generate_charge", `{` + auth + `,"id_token":"` + id + `"}`, 409, "The sales order is disabled; enable it before charging."},
		{"/generate_charge", `{` + auth + `,"id_token":"nope"}`, 404, "Sales order not found or not updated."},
		{"/generate_charge", `{` + auth + `}`, 400, "Missing parameters"},
		{"/cancel_charge", `{` + auth + `,"id_token":"` + id + `"}`, 409, "There is no open charge to cancel."},
		{"/resend_charge", `{` + auth + `,"id_token":"` + id + `"}`, 409, "There is no open charge to send."},
		{"/generate_charge", `{"access_token":"{{access}}","unit_token":"{{unitB}}","id_token":"` + id + `"}`, 404, "Sales order not found or not updated."},
		{"/sales_orders/public_pay", `{"token":"fcp_acme_0000"}`, 404, "Pedido não encontrado ou cobrança cancelada."},
		{"/sales_orders/public_pay", `{"token":"fcp_nobody_0000"}`, 404, "Pedido não encontrado ou cobrança cancelada."},
		{"/sales_orders/public_pay", `{}`, 400, "Missing parameters"},
	} {
		rec := do(h, http.MethodPost, c.path, c.body)
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), `"`+c.text+`"`) {
			t.Errorf("%s %s: %d %s", c.path, c.body, rec.Code, rec.Body.String())
		}
	}
	for _, p := range []string{"/sales_orders/public_payment/fcp_acme_0000", "/sales_orders/public_payment/nope", "/sales_orders/public_boleto/fcp_other_1"} {
		rec := do(h, http.MethodGet, p, "")
		if rec.Code != 404 || !strings.Contains(rec.Header().Get("Content-Type"), "text/html") || !strings.Contains(rec.Body.String(), "Página não encontrada") {
			t.Errorf("%s: %d %s", p, rec.Code, rec.Body.String())
		}
	}
	// A cancelled order's page is gone.
	post(t, h, "/enable_sales_order", `{`+auth+`,"id_token":"`+id+`"}`)
	url := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["payment_url"].(string)
	public := url[strings.LastIndex(url, "/")+1:]
	post(t, h, "/cancel_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	if rec := do(h, http.MethodGet, "/sales_orders/public_payment/"+public, ""); rec.Code != 404 {
		t.Fatalf("cancelled page: %d", rec.Code)
	}
	// Charged again after the cancellation: a new charge, a new key.
	if again := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); again["charge_status"] != "PENDING" {
		t.Fatalf("recharge: %v", again)
	}
}

// flaky fails its first calls, as a provider that times out.
type flaky struct {
	inner provider.Provider
	mu    sync.Mutex
	fails int
	keys  map[string]int
}

func (f *flaky) Name() string { return f.inner.Name() }
func (f *flaky) Issue(ctx context.Context, r provider.Request) (provider.Issued, error) {
	f.mu.Lock()
	f.keys[r.IdempotencyKey]++
	fail := f.fails > 0
	f.fails--
	f.mu.Unlock()
	out, err := f.inner.Issue(ctx, r)
	if fail {
		return provider.Issued{}, errors.New("timeout")
	}
	return out, err
}

// serverWithProviders is the fixture's server whose charges go through
// providers.
func serverWithProviders(t *testing.T, providers map[string]provider.Provider) (http.Handler, *store.Domains) {
	t.Helper()
	base, ds := newTestServer(t)
	bill, inv, err := testServices(ServiceOptions{Keyring: testKeys})
	if err != nil {
		t.Fatal(err)
	}
	bill.Providers = providers
	s, err := New(ds, base.system, Config{Billing: bill, Invoices: inv})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler(), ds
}

// TestRetriedProviderIssuesOnce: a provider call that times out leaves the
// charge ISSUING; the retry asks with the same idempotency key and one
// charge exists.
func TestRetriedProviderIssuesOnce(t *testing.T) {
	t.Parallel()
	f := &flaky{inner: provider.Builtin()["provider_a"], fails: 1, keys: map[string]int{}}
	providers := provider.Builtin()
	providers["provider_a"] = f
	h, ds := serverWithProviders(t, providers)
	id := orderWith(t, h)
	if rec := do(h, http.MethodPost, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != 502 {
		t.Fatalf("first call: %d %s", rec.Code, rec.Body.String())
	}
	out := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if n := len(out["charges"].([]any)); n != 1 || out["charge_status"] != "PENDING" {
		t.Fatalf("after retry: %v", out)
	}
	if len(f.keys) != 1 {
		t.Fatalf("provider saw %d keys, want 1 (the same installment): %v", len(f.keys), f.keys)
	}
	db, release, _ := ds.Acquire(context.Background(), "acme")
	defer release()
	all, _ := db.SalesOrderCharges(context.Background(), 1, id)
	if len(all) != 1 {
		t.Fatalf("charges stored: %d", len(all))
	}
	_ = store.ChargePending
}

// TestPublicRateLimit: a client walking the public routes is cut off.
func TestPublicRateLimit(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	limited := 0
	for i := 0; i < 200; i++ {
		if rec := do(h, http.MethodGet, "/sales_orders/public_payment/fcp_acme_x", ""); rec.Code == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited == 0 {
		t.Fatal("never limited")
	}
}

// TestPaymentEffects: conciliation reconciles the income entry, and
// generateNFWebhook makes the invoice due when the payment is confirmed.
func TestPaymentEffects(t *testing.T) {
	t.Parallel()
	s, _ := newTestModeServer(t)
	h := s.Handler()
	id := orderWith(t, h, `"in_automation":true`, `"in_automation":true,"conciliation":true`, `"nf_kind":"nfse"`, `"nf_kind":"nfse","generateNFWebhook":true`)
	url := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["payment_url"].(string)
	public := url[strings.LastIndex(url, "/")+1:]
	paid := post(t, h, "/sales_orders/public_pay", `{"token":"`+public+`","amount":"1490.10"}`)["data"].(map[string]any)
	if paid["reconciled"] != true || paid["invoice_due"] != true || paid["paid_amount"] != "1490.10" || paid["charge_status"] != "PAID" {
		t.Fatalf("payment %v", paid)
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if o["nf_status_text"] != store.NFPendingText || o["charge_status"] != "PAID" || o["date_payment"] == nil {
		t.Fatalf("order %v %v %v", o["nf_status_text"], o["charge_status"], o["date_payment"])
	}
	tx := post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-11-30"}`)["data"].([]any)[0].(map[string]any)
	if tx["conciliation_date"] != "2026-11-22" || tx["value"] != "1490.10" || tx["nick_name_bank"] != "BB Principal" {
		t.Fatalf("income %v", tx)
	}
	if rec := do(h, http.MethodPost, "/sales_orders/public_pay", `{"token":"`+public+`"}`); rec.Code != 409 {
		t.Fatalf("paid twice: %d", rec.Code)
	}
}

// garbling answers the inner provider's charge with its PIX code broken.
type garbling struct{ inner provider.Provider }

func (g garbling) Name() string { return g.inner.Name() }
func (g garbling) Issue(ctx context.Context, r provider.Request) (provider.Issued, error) {
	out, err := g.inner.Issue(ctx, r)
	out.PixPayload = strings.Replace(out.PixPayload, "br.gov.bcb.pix", "br.gov.bcb.pxx", 1)
	return out, err
}

// TestProviderAnswersChecked: a provider whose PIX charge carries no valid
// BR Code issued nothing: the request answers the provider's failure and
// no charge is shown to a payer.
func TestProviderAnswersChecked(t *testing.T) {
	t.Parallel()
	providers := provider.Builtin()
	providers[""] = garbling{inner: providers[""]}
	h, _ := serverWithProviders(t, providers)
	id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	if rec := do(h, http.MethodPost, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != 502 {
		t.Fatalf("a broken BR Code: %d %s", rec.Code, rec.Body)
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	for _, c := range o["charges"].([]any) {
		if p, _ := c.(map[string]any)["pix_payload"].(string); p != "" {
			t.Errorf("a charge shows %s", p)
		}
	}
}

// TestBoletoSaysWhyItHasNoLine: a boleto of no collection provider has no
// line, and its charge and page say why (the firm prints it itself); the
// flags named like the spec's generate_with_provider_a reach their
// provider, whose boleto has its line and our-number.
func TestBoletoSaysWhyItHasNoLine(t *testing.T) {
	t.Parallel()
	s, ds := newTestModeServer(t)
	h := s.Handler()
	charge := func(id string) map[string]any {
		t.Helper()
		return post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	}
	manual := orderWith(t, h, `"provider_bank":"provider_a",`, ``)
	if c := charge(manual); c["boleto_line"] != nil || c["registration_reason"] != billing.ManualBoleto {
		t.Errorf("a boleto of no provider: line %v, reason %v", c["boleto_line"], c["registration_reason"])
	}
	b := signedIn(t, s, ds)
	if page := b.do("GET", "/portal/orders/"+manual+"?unit="+fx.tokens["unitA"], nil).Body.String(); !strings.Contains(page, "Boleto sem banco de cobrança") {
		t.Errorf("the order's page does not say why its boleto has no line:\n%s", page)
	}
	for _, flag := range []string{"generate_with_provider_b", "generate_provider_b"} {
		id := orderWith(t, h, `"provider_bank":"provider_a"`, `"`+flag+`":true`)
		if c := charge(id); c["provider"] != "provider_b" || c["boleto_line"] == nil || c["our_number"] == nil || c["registration_reason"] != nil {
			t.Errorf("%s: %v", flag, c)
		}
	}
}
