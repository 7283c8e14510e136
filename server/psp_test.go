package server

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"fincom/render/pix"
	"fincom/server/billing"
	"fincom/server/certs"
	nfselocal "fincom/server/fiscal/nfsen/local"
	"fincom/server/fiscal/sefaz"
	"fincom/server/fiscal/sefaz/local"
	psplocal "fincom/server/psp/local"
	"fincom/store"
)

// TestChargeAtPSP: a PIX charge of a unit connected to its PSP is created
// there (PUT /cobv/{txid}, the body held to the published schema, the
// unit's key, the payer), and its BR Code is the PSP's; /cancel_charge
// removes it at the PSP before cancelling it; a unit without a PSP keeps
// the static BR Code of the order's key.
func TestChargeAtPSP(t *testing.T) {
	t.Parallel()
	r := newPSPRig(t)
	h, p := r.h, r.p

	// Without a PSP: the static code of the order's key.
	id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	if code := chargePix(t, h, id); !strings.Contains(code, "pix@acme.com.br") {
		t.Fatalf("a unit without a PSP: %s", code)
	}

	hook := r.connect(t)
	id = post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	code := chargePix(t, h, id)
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	txid := o["charges"].([]any)[0].(map[string]any)["pix_txid"].(string)
	status, amount, ok := p.Charge(txid)
	if !ok || status != "ATIVA" || amount != "47.30" || !strings.Contains(code, "/qr/v2/cobv/") || strings.Contains(code, "pix@acme.com.br") {
		t.Fatalf("the charge at the PSP: %s %s %v; the order's code %s", status, amount, ok, code)
	}
	if b := string(p.ChargeBody(txid)); !strings.Contains(b, `"multa":{"modalidade":2,"valorPerc":"2.00"}`) ||
		!strings.Contains(b, `"juros":{"modalidade":3,"valorPerc":"1.00"}`) {
		t.Fatalf("the late-payment terms at the PSP: %s", b)
	}
	// Paid: the webhook only says "look"; the PSP confirms the Pix.
	paid := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+paid+`"}`)
	paidTxid := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+paid+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)["pix_txid"].(string)
	forged := `{"pix":[{"endToEndId":"E12345678202611221200ABCDEFGHIJK","txid":"` + paidTxid + `","valor":"47.30","horario":"2026-11-22T12:00:00Z"}]}`
	if rec := do(h, http.MethodPost, hook, forged); rec.Code != http.StatusOK || chargeStatus(t, h, paid) != "PENDING" {
		t.Fatalf("a forged webhook: %d %s; the charge is %s", rec.Code, rec.Body, chargeStatus(t, h, paid))
	}
	_, _, body, ok := p.Pay(paidTxid, "47.30", fixedNow)
	if !ok {
		t.Fatal("the PSP refused the payment")
	}
	for range 2 {
		if rec := do(h, http.MethodPost, hook, string(body)); rec.Code != http.StatusOK {
			t.Fatalf("webhook: %d %s", rec.Code, rec.Body)
		}
	}
	o = post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+paid+`"}`)["data"].(map[string]any)
	if c := o["charges"].([]any)[0].(map[string]any); c["status"] != "PAID" || c["paid_amount"] != "47.30" || c["settlement"] != "exact" {
		t.Fatalf("after the webhook, twice: %v", c)
	}
	if rec := do(h, http.MethodPost, "/psp/fcw_acme_0000/pix", string(body)); rec.Code != http.StatusNotFound {
		t.Fatalf("an unknown webhook: %d", rec.Code)
	}
	// A payment whose webhook never came: the poll finds it, and
	// registers the unit's webhook.
	missed := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+missed+`"}`)
	missedTxid := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+missed+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)["pix_txid"].(string)
	p.Pay(missedTxid, "47.30", fixedNow)
	if err := r.poll(t); err != nil {
		t.Fatal(err)
	}
	if st := chargeStatus(t, h, missed); st != "PAID" {
		t.Fatalf("after the poll the charge is %s", st)
	}
	// The webhook's and the poll's confirmations, once each.
	r.applied.want(t, store.PaidPSP, store.PaidPSP)
	if got := p.Webhook("11222333000181"); got != "https://fincom.test/api/v1"+strings.TrimSuffix(hook, "/pix") {
		t.Fatalf("the webhook registered at the PSP: %q", got)
	}

	p.SetOffline(true)
	if rec := do(h, http.MethodPost, "/cancel_charge", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != http.StatusBadGateway || chargeStatus(t, h, id) != "PENDING" {
		t.Fatalf("cancel with the PSP down: %d %s", rec.Code, rec.Body)
	}
	p.SetOffline(false)
	if rec := do(h, http.MethodPost, "/cancel_charge", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != http.StatusOK {
		t.Fatalf("cancel: %d %s", rec.Code, rec.Body)
	}
	// Due today: an immediate charge at the PSP (PUT /cob/{txid}), paid and
	// confirmed like the others.
	now := post(t, h, "/insert_sales_order", strings.Replace(productOrder, `"estimated_payment_date":"2026-12-10"`, `"estimated_payment_date":"2026-11-22"`, 1))["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+now+`"}`)
	nowCharge := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+now+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	if ref, _ := nowCharge["provider_ref"].(string); !strings.HasPrefix(ref, "psp:cob:") || !strings.Contains(nowCharge["pix_payload"].(string), "/qr/v2/cob/") {
		t.Fatalf("a charge due today: %v", nowCharge)
	}
	_, _, body, ok = p.Pay(nowCharge["pix_txid"].(string), "47.30", fixedNow)
	if rec := do(h, http.MethodPost, hook, string(body)); !ok || rec.Code != http.StatusOK || chargeStatus(t, h, now) != "PAID" {
		t.Fatalf("an immediate charge paid: %v %d", ok, rec.Code)
	}

	// The NF-e of an order charged at the PSP says a dynamic PIX (tPag 17).
	nfe := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+nfe+`"}`)
	post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+nfe+`"}`)
	if xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, nfe), "").Body.String(); !strings.Contains(xml, "<tPag>17</tPag>") {
		t.Fatalf("the NF-e's payment: %.2000s", xml[strings.Index(xml, "<pag>"):])
	}
	if status, _, _ := p.Charge(txid); status != "REMOVIDA_PELO_USUARIO_RECEBEDOR" {
		t.Fatalf("the PSP still holds the charge %s", status)
	}
}

// chargePix is the PIX code of the order's first charge.
func chargePix(t *testing.T, h http.Handler, id string) string {
	t.Helper()
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	cs, _ := o["charges"].([]any)
	if len(cs) == 0 {
		t.Fatalf("no charge: %v", o)
	}
	code, _ := cs[0].(map[string]any)["pix_payload"].(string)
	return code
}

// chargeStatus is the status of the order's first charge.
func chargeStatus(t *testing.T, h http.Handler, id string) string {
	t.Helper()
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	st, _ := o["charges"].([]any)[0].(map[string]any)["status"].(string)
	return st
}

// pspRig is a transmission rig beside a local PSP on a loopback address.
type pspRig struct {
	transmissionRig
	p   *psplocal.PSP
	url string
}

func newPSPRig(t *testing.T) pspRig {
	t.Helper()
	return newPSPRigBehind(t, checkedByAPIPix(t))
}

// newPSPRigBehind is newPSPRig with the PSP's API behind front (a PSP
// that answers otherwise).
func newPSPRigBehind(t *testing.T, front func(http.Handler) http.Handler) pspRig {
	t.Helper()
	a, n := &local.Authority{}, &nfselocal.System{}
	c, err := localAuthorities(a, n)
	if err != nil {
		t.Fatal(err)
	}
	p := &psplocal.PSP{ClientID: "acme", Secret: "segredo"}
	mux := http.NewServeMux()
	mux.Handle("/oauth/token", p)
	mux.Handle("/api/v2/", http.StripPrefix("/api/v2", front(p)))
	srv := loopbackTLS(mux)
	t.Cleanup(srv.Close)
	c.Roots.AddCert(srv.Certificate())
	return pspRig{transmissionRig: newTransmissionRigWith(t, a, n, c), p: p, url: srv.URL}
}

// connect connects unit A to the local PSP (what fincom unit psp stores)
// and answers the path of its webhook.
func (r pspRig) connect(t *testing.T) string {
	t.Helper()
	return "/psp/" + connectPSP(t, r.ds, "unitA", "Acme Matriz", "11222333000181", r.url) + "/pix"
}

// connectPSP connects the fixture's unit (by its token's name) to the PSP
// at url as fincom unit psp does, with a test certificate of the unit's
// name and CNPJ (its PIX key), and answers its webhook's secret.
func connectPSP(t *testing.T, ds *store.Domains, unit, name, cnpj, url string) string {
	t.Helper()
	ctx := context.Background()
	cert, err := certs.TestCertificate(name, cnpj, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	sealedKey, err := testKeys.SealKey(cert)
	if err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	u, err := db.UnitByToken(ctx, fx.tokens[unit])
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetUnitPSP(ctx, u.ID, store.UnitPSP{BaseURL: url + "/api/v2", TokenURL: url + "/oauth/token", ClientID: "acme",
		SecretSealed: testKeys.Seal([]byte("segredo")), Cert: cert.Cert.Raw, KeySealed: sealedKey, PixKey: cnpj}); err != nil {
		t.Fatal(err)
	}
	conn, err := db.UnitPSP(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	return conn.WebhookSecret
}

// poll runs the PSP poll of the acme domain.
func (r pspRig) poll(t *testing.T) error {
	t.Helper()
	db, release, err := r.ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	return r.bill.PollPSPs(context.Background(), db, "https://fincom.test")
}

// TestRefundAtPSP: /refund_charge gives back a Pix received at the PSP
// (PUT /pix/{e2eid}/devolucao/{id}), recorded before the PSP is asked and
// asked again by the poll when the PSP did not answer; the poll follows it
// to DEVOLVIDO, which books its expense and the charge's refunded amount
// once, or to NAO_REALIZADO, which books nothing and leaves the amount to
// refund again.
func TestRefundAtPSP(t *testing.T) {
	t.Parallel()
	r := newPSPRig(t)
	h, p := r.h, r.p
	hook := r.connect(t)
	pay := func() string {
		t.Helper()
		id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
		post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
		txid := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)["pix_txid"].(string)
		_, _, body, ok := p.Pay(txid, "47.30", fixedNow)
		if rec := do(h, http.MethodPost, hook, string(body)); !ok || rec.Code != http.StatusOK || chargeStatus(t, h, id) != "PAID" {
			t.Fatalf("paid: %v %d", ok, rec.Code)
		}
		return id
	}
	refund := func(id, amount string) *httptest.ResponseRecorder {
		return do(h, http.MethodPost, "/refund_charge", `{`+auth+`,"id_token":"`+id+`"`+amount+`,"reason":"Devolução do pedido"}`)
	}
	refunded := func(id string) any {
		o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
		return o["charges"].([]any)[0].(map[string]any)["refunded_amount"]
	}
	expenses := func() []string {
		var out []string
		for _, e := range post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31","type":"out"}`)["data"].([]any) {
			if m := e.(map[string]any); strings.HasPrefix(m["description"].(string), "Devolução PIX") {
				out = append(out, m["value"].(string))
			}
		}
		return out
	}

	id := pay()
	for _, c := range []struct {
		amount string
		status int
	}{{`,"amount":"47.31"`, http.StatusUnprocessableEntity}, {`,"amount":"0"`, http.StatusBadRequest}, {`,"amount":"-1.00"`, http.StatusBadRequest}} {
		if rec := refund(id, c.amount); rec.Code != c.status {
			t.Fatalf("refund %s: %d %s", c.amount, rec.Code, rec.Body)
		}
	}
	rec := refund(id, `,"amount":"10.00"`)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"status":"EM_PROCESSAMENTO"`) || refunded(id) != nil || len(expenses()) != 0 {
		t.Fatalf("refund 10.00: %d %s", rec.Code, rec.Body)
	}
	for range 2 {
		if err := r.poll(t); err != nil {
			t.Fatal(err)
		}
	}
	if got, ex := refunded(id), expenses(); got != "10.00" || len(ex) != 1 || ex[0] != "10.00" {
		t.Fatalf("settled: refunded %v, expenses %v", got, ex)
	}

	// The PSP down: the refund is recorded, and asked again by the poll.
	p.SetOffline(true)
	if rec := refund(id, ""); rec.Code != http.StatusBadGateway {
		t.Fatalf("refund with the PSP down: %d %s", rec.Code, rec.Body)
	}
	p.SetOffline(false)
	if rec := refund(id, ""); rec.Code != http.StatusConflict {
		t.Fatalf("refund while one is pending for the rest: %d %s", rec.Code, rec.Body)
	}
	for range 2 {
		if err := r.poll(t); err != nil {
			t.Fatal(err)
		}
	}
	if got, ex := refunded(id), expenses(); got != "47.30" || len(ex) != 2 || ex[1] != "37.30" {
		t.Fatalf("the rest settled: refunded %v, expenses %v", got, ex)
	}
	if rec := refund(id, ""); rec.Code != http.StatusConflict {
		t.Fatalf("nothing left: %d %s", rec.Code, rec.Body)
	}

	// Refused by the PSP: nothing booked, the amount may be refunded again.
	other := pay()
	p.RefuseRefunds("Saldo insuficiente.")
	if rec := refund(other, ""); rec.Code != http.StatusOK {
		t.Fatalf("refund: %d %s", rec.Code, rec.Body)
	}
	if err := r.poll(t); err != nil {
		t.Fatal(err)
	}
	if got, ex := refunded(other), expenses(); got != nil || len(ex) != 2 {
		t.Fatalf("refused: refunded %v, expenses %v", got, ex)
	}
	p.RefuseRefunds("")

	// From the portal: offered while something is left to give back.
	b := signedIn(t, r.s, r.ds)
	path := "/portal/orders/" + other + "?unit=" + expand("{{unitA}}")
	page := b.do("GET", path, nil).Body.String()
	if !strings.Contains(page, "Devolver PIX") {
		t.Fatalf("a paid PIX order's page offers no refund:\n%s", page)
	}
	action := "/portal/orders/" + other + "/refund?unit=" + expand("{{unitA}}")
	if rec := b.do("POST", action, url.Values{"csrf": {csrf(t, page)}, "amount": {"47,31"}}); rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("a refund of more than was paid, from the portal: %d", rec.Code)
	}
	if rec := b.do("POST", action, url.Values{"csrf": {csrf(t, page)}, "amount": {"47,30"}, "reason": {"Pedido desfeito"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("a refund from the portal: %d\n%s", rec.Code, rec.Body)
	}
	if err := r.poll(t); err != nil {
		t.Fatal(err)
	}
	if page := b.do("GET", path, nil).Body.String(); strings.Contains(page, "Devolver PIX") || !strings.Contains(page, "devolvido R$\u00a047,30") && !strings.Contains(page, "devolvido R$ 47,30") {
		t.Fatalf("after the refund, the page:\n%s", page)
	}
	if got := refunded(other); got != "47.30" {
		t.Fatalf("refunded from the portal: %v", got)
	}
}

// TestHostilePSPWebhooks: whatever reaches a unit's webhook addresses, a
// body that is not the API Pix's is a 400, a body past the bound a 413, an
// id the PSP does not confirm changes nothing; the charge stays open.
func TestHostilePSPWebhooks(t *testing.T) {
	t.Parallel()
	r := newPSPRig(t)
	h, p := r.h, r.p
	hook := strings.TrimSuffix(r.connect(t), "/pix")
	id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	txid := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)["pix_txid"].(string)
	many := strings.Repeat(`{"endToEndId":"E12345678202611221200ABCDEFGHIJK"},`, 101)
	for _, c := range []struct {
		name, path, body string
		status           int
	}{
		{"not json", "/pix", `{"pix":[`, http.StatusBadRequest},
		{"no list", "/pix", `{"pix":{}}`, http.StatusBadRequest},
		{"empty", "/pix", `{"pix":[]}`, http.StatusBadRequest},
		{"more than 100", "/pix", `{"pix":[` + strings.TrimSuffix(many, ",") + `]}`, http.StatusBadRequest},
		{"a number for an id", "/pix", `{"pix":[{"endToEndId":12}]}`, http.StatusBadRequest},
		{"an id too long", "/rec", `{"recs":[{"idRec":"` + strings.Repeat("R", 65) + `"}]}`, http.StatusBadRequest},
		{"huge", "/cobr", `{"cobsr":[{"txid":"` + strings.Repeat("A", 2<<20) + `"}]}`, http.StatusRequestEntityTooLarge},
		{"an id the PSP never saw", "/pix", `{"pix":[{"endToEndId":"E12345678202611221200ABCDEFGHIJK","txid":"` + txid + `","valor":"47.30"}]}`, http.StatusOK},
		{"a path traversal for an id", "/pix", `{"pix":[{"endToEndId":"../cobv/` + txid + `"}]}`, http.StatusOK},
		{"a charge still active", "/cobr", `{"cobsr":[{"txid":"` + txid + `"}]}`, http.StatusOK},
		{"an unknown recurrence", "/rec", `{"recs":[{"idRec":"RN0000000020261122abcdefghijk"}]}`, http.StatusOK},
	} {
		rec := do(h, http.MethodPost, hook+c.path, c.body)
		if rec.Code != c.status || chargeStatus(t, h, id) != "PENDING" || strings.Contains(rec.Body.String(), `"applied":1`) {
			t.Errorf("%s: %d %.200s; the charge is %s", c.name, rec.Code, rec.Body, chargeStatus(t, h, id))
		}
	}
	if st, _, _ := p.Charge(txid); st != "ATIVA" {
		t.Fatalf("the PSP's charge: %s", st)
	}
}

// TestChargeAtPSPWithoutBRCode: a PSP that answers a charge without
// pixCopiaECola (optional in the API Pix's CobGerada and CobVGerada) is
// answered: fincom builds the dynamic BR Code of the charge's location,
// with the unit as the receiver; a charge with neither is the PSP's bad
// answer, not a charge.
func TestChargeAtPSPWithoutBRCode(t *testing.T) {
	t.Parallel()
	r := newPSPRig(t)
	h, p := r.h, r.p
	r.connect(t)
	p.SetWithoutBRCode(true)
	id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	if rec := do(h, http.MethodPost, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != http.StatusOK {
		t.Fatalf("a charge answered without pixCopiaECola: %d %s", rec.Code, rec.Body)
	}
	code := chargePix(t, h, id)
	if !pix.Valid(code) || !strings.Contains(code, "/qr/v2/cobv/") || !strings.Contains(code, "br.gov.bcb.pix") || !strings.Contains(code, "5911Acme Matriz") {
		t.Fatalf("the BR Code built from the location: %s", code)
	}
}

// TestTestModeTrustsCAFile: in test mode a unit connected to a PSP of its
// own reaches it trusting the server's roots (serve --ca-file, given to
// the fiscal client), as in production.
func TestTestModeTrustsCAFile(t *testing.T) {
	t.Parallel()
	p := &psplocal.PSP{ClientID: "acme", Secret: "segredo"}
	mux := http.NewServeMux()
	mux.Handle("/oauth/token", p)
	mux.Handle("/api/v2/", http.StripPrefix("/api/v2", p))
	srv := loopbackTLS(mux)
	t.Cleanup(srv.Close)
	roots, err := certs.TrustPool("")
	if err != nil {
		t.Fatal(err)
	}
	roots.AddCert(srv.Certificate()) // what --ca-file adds
	bill, inv, err := testServices(ServiceOptions{PublicURL: "https://fincom.test", TestCertificates: true, Fiscal: &sefaz.Client{Roots: roots}})
	if err != nil {
		t.Fatal(err)
	}
	now := fixedNow
	s, ds := newTestServerAt(t, &now, Config{PublicURL: "https://fincom.test", TestMode: true, Billing: bill, Invoices: inv})
	h := s.Handler()
	connectPSP(t, ds, "unitA", "Acme Matriz", "11222333000181", srv.URL)
	id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	if rec := do(h, http.MethodPost, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != http.StatusOK {
		t.Fatalf("a charge at the unit's own PSP in test mode: %d %s", rec.Code, rec.Body)
	}
	txid := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)["pix_txid"].(string)
	if status, _, ok := p.Charge(txid); !ok || status != "ATIVA" {
		t.Fatalf("the unit's PSP holds %s %v", status, ok)
	}
}

// TestPSPAnswersTold: a PSP that does not answer, one that answers with
// an error, and one that answers a cancellation with the charge still
// ATIVA are each told as they are: only silence is "did not answer"; an
// answer fincom cannot take says so, with the PSP's status and reason in
// details; nothing is cancelled.
func TestPSPAnswersTold(t *testing.T) {
	t.Parallel()
	ignoring := false
	r := newPSPRigBehind(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if ignoring && req.Method == http.MethodPatch {
				req.Method = http.MethodGet // the charge as it stands: ATIVA
			}
			h.ServeHTTP(w, req)
		})
	})
	h, p := r.h, r.p
	r.connect(t)
	id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	cancel := func() (int, map[string]any) {
		rec := do(h, http.MethodPost, "/cancel_charge", `{`+auth+`,"id_token":"`+id+`"}`)
		var out map[string]any
		json.Unmarshal(rec.Body.Bytes(), &out)
		return rec.Code, out
	}
	ignoring = true
	code, out := cancel()
	details, _ := out["details"].(map[string]any)
	if code != http.StatusBadGateway || out["error"] != billing.ErrPSPAnswer.Text || details["status"] != 0.0 ||
		!strings.Contains(fmt.Sprint(details["detail"]), "ATIVA") || chargeStatus(t, h, id) != "PENDING" {
		t.Fatalf("a cancellation answered ATIVA: %d %v; the charge %s", code, out, chargeStatus(t, h, id))
	}
	ignoring = false
	p.SetOffline(true)
	code, out = cancel()
	details, _ = out["details"].(map[string]any)
	if code != http.StatusBadGateway || out["error"] != billing.ErrPSPAnswer.Text || details["status"] != 503.0 {
		t.Fatalf("a PSP answering 503: %d %v", code, out)
	}
	p.SetOffline(false)
	// Silence: the PSP's address refuses connections.
	connectPSP(t, r.ds, "unitA", "Acme Matriz", "11222333000181", "https://127.0.0.1:1")
	code, out = cancel()
	if code != http.StatusBadGateway || out["error"] != billing.ErrPSPDown.Text || out["details"] != nil {
		t.Fatalf("a PSP that does not answer: %d %v", code, out)
	}
	other := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	rec := do(h, http.MethodPost, "/generate_charge", `{`+auth+`,"id_token":"`+other+`"}`)
	if rec.Code != http.StatusBadGateway || !strings.Contains(rec.Body.String(), billing.ErrProviderDown.Text) {
		t.Fatalf("a charge with the PSP silent: %d %s", rec.Code, rec.Body)
	}
	r.connect(t)
	p.SetOffline(true)
	rec = do(h, http.MethodPost, "/generate_charge", `{`+auth+`,"id_token":"`+other+`"}`)
	if rec.Code != http.StatusBadGateway || !strings.Contains(rec.Body.String(), billing.ErrProviderAnswer.Text) || !strings.Contains(rec.Body.String(), `"status":503`) {
		t.Fatalf("a charge with the PSP answering 503: %d %s", rec.Code, rec.Body)
	}
	p.SetOffline(false)
	if rec := do(h, http.MethodPost, "/generate_charge", `{`+auth+`,"id_token":"`+other+`"}`); rec.Code != http.StatusOK {
		t.Fatalf("the charge once the PSP answers: %d %s", rec.Code, rec.Body)
	}
}

// TestRefundOfAnotherAmountHeld: a PSP that answers a refund for another
// amount than the one asked (7.89 for 5.00) has not made the refund
// asked: it is held for a person (HELD, both amounts told), no expense is
// booked, nothing is given back on the charge, and the poll leaves it.
func TestRefundOfAnotherAmountHeld(t *testing.T) {
	t.Parallel()
	r := newPSPRigBehind(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if !strings.Contains(req.URL.Path, "/devolucao/") {
				h.ServeHTTP(w, req)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			w.WriteHeader(rec.Code)
			w.Write(bytes.Replace(rec.Body.Bytes(), []byte(`"valor":"5.00"`), []byte(`"valor":"7.89"`), 1))
		})
	})
	h, p := r.h, r.p
	hook := r.connect(t)
	id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	txid := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)["pix_txid"].(string)
	_, _, body, _ := p.Pay(txid, "47.30", fixedNow)
	do(h, http.MethodPost, hook, string(body))
	rec := do(h, http.MethodPost, "/refund_charge", `{`+auth+`,"id_token":"`+id+`","amount":"5.00"}`)
	var out struct {
		Error   string            `json:"error"`
		Details map[string]string `json:"details"`
	}
	json.Unmarshal(rec.Body.Bytes(), &out)
	if rec.Code != http.StatusBadGateway || out.Error != billing.ErrRefundHeld.Text || out.Details["asked"] != "5.00" || out.Details["answered"] != "7.89" {
		t.Fatalf("a refund answered for another amount: %d %s", rec.Code, rec.Body)
	}
	if err := r.poll(t); err != nil {
		t.Fatal(err)
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if got := o["charges"].([]any)[0].(map[string]any)["refunded_amount"]; got != nil {
		t.Fatalf("the charge shows %v given back", got)
	}
	for _, e := range post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31","type":"out"}`)["data"].([]any) {
		if strings.HasPrefix(e.(map[string]any)["description"].(string), "Devolução PIX") {
			t.Fatalf("an expense was booked: %v", e)
		}
	}
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(r.ds.Dir(), "acme.db")+"?_pragma=busy_timeout(10000)&_pragma=query_only(ON)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var status, detail string
	if err := raw.QueryRow(`SELECT status, detail FROM psp_refunds`).Scan(&status, &detail); err != nil || status != store.RefundHeld || !strings.Contains(detail, "7.89") {
		t.Fatalf("the refund is %s (%s) %v", status, detail, err)
	}
}
