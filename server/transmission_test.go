package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"fincom/jobs"
	"fincom/server/billing"
	nfselocal "fincom/server/fiscal/nfsen/local"
	"fincom/server/fiscal/sefaz"
	"fincom/server/fiscal/sefaz/local"
	"fincom/server/invoicing"
	"fincom/store"
)

// nfeOrder is productOrder as an NF-e to a recipient in the unit's state.
var nfeOrder = strings.Replace(productOrder, `"local_destino":2`, `"local_destino":1`, 1)

// transmissionRig is a production server whose notes go to a SEFAZ and
// a national NFS-e system on loopback the test controls, with its
// services and clock.
type transmissionRig struct {
	s    *Server
	h    http.Handler
	a    *local.Authority
	n    *nfselocal.System
	ds   *store.Domains
	bill *billing.Service
	inv  *invoicing.Service
	now  *time.Time
	// real is the real clock the SEFAZ client times a 656's hour by,
	// which the test moves on.
	real *realClock
	// applied is the server's log, for the payments applied.
	applied *appliedLog
}

// realClock is time.Now moved on by the test.
type realClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *realClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the clock on by d.
func (c *realClock) Advance(d time.Duration) { c.mu.Lock(); c.offset += d; c.mu.Unlock() }

func newTransmissionRig(t *testing.T) transmissionRig {
	t.Helper()
	a, n := &local.Authority{}, &nfselocal.System{}
	c, err := localAuthorities(a, n)
	if err != nil {
		t.Fatal(err)
	}
	return newTransmissionRigWith(t, a, n, c)
}

// newTransmissionRigWith is newTransmissionRig with a client of the
// test's making, whose addresses point at a and n.
func newTransmissionRigWith(t *testing.T, a *local.Authority, n *nfselocal.System, c *sefaz.Client) transmissionRig {
	t.Helper()
	real := &realClock{}
	c.Now = real.Now
	applied := &appliedLog{}
	bill, inv, err := testServices(ServiceOptions{PublicURL: "https://fincom.test", Keyring: testKeys, Fiscal: c, Log: applied.logger()})
	if err != nil {
		t.Fatal(err)
	}
	now := fixedNow
	s, ds := newTestServerAt(t, &now, Config{PublicURL: "https://fincom.test", Billing: bill, Invoices: inv, Logger: applied.logger()})
	h := s.Handler()
	post(t, h, "/update_contact", withAddress)
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	return transmissionRig{s: s, h: h, a: a, n: n, ds: ds, bill: bill, inv: inv, now: &now, real: real, applied: applied}
}

// generateNF calls /generate_nf for the order and answers the invoice,
// failing the test unless it is 200 with the status want.
func generateNF(t *testing.T, h http.Handler, id, want string) map[string]any {
	t.Helper()
	rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	var out struct {
		Data map[string]any `json:"data"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &out) != nil || out.Data["status"] != want {
		t.Fatalf("generate_nf: %d %s; want 200 %s", rec.Code, rec.Body, want)
	}
	return out.Data
}

// transmissionServer is newTransmissionRig's server and SEFAZ.
func transmissionServer(t *testing.T) (http.Handler, *local.Authority) {
	r := newTransmissionRig(t)
	return r.h, r.a
}

// TestTransmissionEnvironment: a unit set to production issues its NF-e
// with tpAmb 1 to the production address of its authorizer; a
// homologation authority refuses it (252), and nothing is authorized.
func TestTransmissionEnvironment(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a, ds := rig.h, rig.a, rig.ds
	db, release, err := ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.SetUnitProfile(context.Background(), expand("{{unitA}}"), func(p *store.UnitProfile) error {
		p.FiscalEnvironment = store.Producao
		return nil
	})
	release()
	if err != nil {
		t.Fatal(err)
	}
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	if out := generateNF(t, h, id, "REJECTED"); out["status_code"] != 252.0 || a.Authorized() != 0 {
		t.Fatalf("production note to a homologation authority: %v", out)
	}
	// An NFC-e goes to production too, with its state's production QR
	// code (TestProductionNotes): the same refusal.
	id = post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	if out := generateNF(t, h, id, "REJECTED"); out["status_code"] != 252.0 || a.Authorized() != 0 {
		t.Fatalf("production NFC-e: %v", out)
	}
}

// TestTransmissionLostAnswer: SEFAZ authorizes a note and its answer is
// lost; /generate_nf answers the invoice PENDING, keeps the note's number
// and key and serves the signed note as sent; the next /generate_nf asks
// SEFAZ for the key before sending (it has it) and stores that
// authorization: one note for the sale, the protocol in the served
// nfeProc, and the next order takes the next number.
func TestTransmissionLostAnswer(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	a.DropReplies(1)
	pending := generateNF(t, h, id, "PENDING")
	if pending["status_text"] != "Aguardando a SEFAZ" || pending["number"] != 1.0 || pending["protocol"] != "" || pending["danfe_url"] != nil {
		t.Fatalf("lost answer: %v", pending)
	}
	if a.Authorized() != 1 {
		t.Fatalf("SEFAZ has %d notes", a.Authorized())
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if o["nf"] != false || o["nf_status"] != "PENDING" || o["nf_status_text"] != "Aguardando a SEFAZ" || o["nf_xml_url"] != pending["xml_url"] {
		t.Fatalf("the pending order: nf %v, nf_status %v, nf_status_text %v, nf_xml_url %v", o["nf"], o["nf_status"], o["nf_status_text"], o["nf_xml_url"])
	}
	pub := publicOf(t, h, id)
	if sent := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+pub, "").Body.String(); !strings.Contains(sent, "<NFe xmlns") ||
		strings.Contains(sent, "<nfeProc") || !strings.Contains(sent, "<Signature") {
		t.Fatalf("the pending note's XML is not the signed note: %.300s", sent)
	}
	if rec := do(h, http.MethodGet, "/sales_orders/public_danfe/"+pub, ""); rec.Code != http.StatusConflict {
		t.Fatalf("a pending note's DANFE: %d", rec.Code)
	}
	// The staff portal's units page says the note waits, and where the
	// unit issues.
	b := signedIn(t, rig.s, rig.ds)
	if page := b.do("GET", "/portal/units", nil).Body.String(); !strings.Contains(page, "aguardando a resposta da SEFAZ") ||
		!strings.Contains(page, "NF-e nº 1, 1 tentativa(s)") || !strings.Contains(page, "Ambiente fiscal: Homologação") {
		t.Fatalf("the units page does not show the waiting note:\n%s", page)
	}
	// fincom doctor warns of a note waiting for the authority past an hour.
	waiting := func() string {
		findings, err := rig.ds.Doctor(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			if f.Domain == "acme" && f.Level == "warning" && strings.Contains(f.Message, "has waited for the authority since") {
				return f.Message
			}
		}
		return ""
	}
	if w := waiting(); w != "" {
		t.Fatalf("a note waiting a moment is a warning: %s", w)
	}
	saved := *rig.now
	*rig.now = saved.Add(61 * time.Minute)
	if w := waiting(); !strings.Contains(w, "nfe number 1 has waited for the authority since") || !strings.Contains(w, "(1 attempts)") {
		t.Fatalf("doctor after an hour: %q", w)
	}
	*rig.now = saved
	out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if out["status"] != "AUTHORIZED" || out["number"] != 1.0 || a.Authorized() != 1 || out["token"] != pending["token"] {
		t.Fatalf("retry: %v (SEFAZ has %d notes)", out, a.Authorized())
	}
	if page := b.do("GET", "/portal/units", nil).Body.String(); !strings.Contains(page, "Última autorização: NF-e nº 1, protocolo "+out["protocol"].(string)) ||
		strings.Contains(page, "aguardando a resposta da SEFAZ") {
		t.Fatalf("the units page after the retry:\n%s", page)
	}
	calls := a.Received()
	if strings.Join(calls, ",") != "NFeAutorizacao4,NFeConsultaProtocolo4" {
		t.Fatalf("SEFAZ was called %v", calls)
	}
	if page := b.do("GET", "/portal/units", nil).Body.String(); strings.Contains(page, "aguardando a resposta da SEFAZ") {
		t.Fatal("the units page still shows the note as waiting")
	}
	xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, id), "").Body.String()
	if !strings.Contains(xml, "<verAplic>fincom-local-1</verAplic>") || !strings.Contains(xml, "<nProt>"+out["protocol"].(string)+"</nProt>") {
		t.Fatalf("the served XML lacks SEFAZ's protocol: %.400s", xml)
	}
	next := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)+`"}`)["data"].(map[string]any)
	if next["number"] != 2.0 || a.Authorized() != 2 {
		t.Fatalf("next order: %v", next)
	}
}

// TestTransmissionRefusals: SEFAZ's rejection is the invoice REJECTED
// with its code and reason, on the order too, and gives the number back;
// an unreachable SEFAZ leaves the note PENDING; a denial (301) spends the
// number, keeps SEFAZ's protocol and is never sent again.
func TestTransmissionRefusals(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	post(t, h, "/insert_webhook", `{`+auth+`,"url":"https://hooks.example/fincom","secret":"s3cret","events":["invoice.*"]}`)
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	a.RejectNext(778, "Rejeição: Informado NCM inexistente")
	out := generateNF(t, h, id, "REJECTED")
	const rejected = "Rejeitada pela autoridade (778): Rejeição: Informado NCM inexistente"
	if out["status_code"] != 778.0 || out["status_text"] != rejected || out["number"] != 1.0 || out["danfe_url"] != nil {
		t.Fatalf("rejection: %v", out)
	}
	// The order says why, in the API and the staff portal.
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if o["nf_status_text"] != rejected || o["nf_status"] != "REJECTED" || o["nf"] != false {
		t.Fatalf("the order: nf_status_text %v, nf_status %v", o["nf_status_text"], o["nf_status"])
	}
	b := signedIn(t, rig.s, rig.ds)
	if page := b.do("GET", "/portal/orders/"+id+"?unit="+expand("{{unitA}}"), nil).Body.String(); !strings.Contains(page, "Rejeitada pela autoridade (778)") {
		t.Fatalf("the portal's order page does not say the rejection:\n%s", page)
	}
	if page := b.do("GET", "/portal/units", nil).Body.String(); !strings.Contains(page, "Última recusa da autoridade: NF-e nº 1, Rejeitada pela autoridade (778)") {
		t.Fatalf("the units page does not say the authority's last answer:\n%s", page)
	}
	a.SetOffline(true)
	if out := generateNF(t, h, id, "PENDING"); out["number"] != 1.0 {
		t.Fatalf("offline: the rejected number is not the next note's: %v", out)
	}
	a.SetOffline(false)
	a.RejectNext(301, "Uso Denegado: Irregularidade fiscal do emitente")
	denied := generateNF(t, h, id, "DENIED")
	if denied["status_code"] != 301.0 || denied["number"] != 1.0 || denied["protocol"] == "" {
		t.Fatalf("denial: %v", denied)
	}
	xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, id), "").Body.String()
	if !strings.Contains(xml, "<nfeProc") || !strings.Contains(xml, "<cStat>301</cStat>") || !strings.Contains(xml, "<nProt>"+denied["protocol"].(string)+"</nProt>") {
		t.Fatalf("the denied note's XML: %.400s", xml)
	}
	if page := b.do("GET", "/portal/orders/"+id+"?unit="+expand("{{unitA}}"), nil).Body.String(); !strings.Contains(page, "NF-e denegada") ||
		strings.Contains(page, "public_danfe") || !strings.Contains(page, "Uso denegado pela autoridade (301)") {
		t.Fatalf("the portal's order page of a denied note:\n%s", page)
	}
	calls := len(a.Received())
	if again := generateNF(t, h, id, "DENIED"); again["token"] != denied["token"] || len(a.Received()) != calls {
		t.Fatalf("a denied note was sent again: %v", again)
	}
	other := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	if out := generateNF(t, h, other, "AUTHORIZED"); out["number"] != 2.0 {
		t.Fatalf("after the denial of number 1: %v", out)
	}
	// An integrator learns each verdict by its webhook.
	var events []string
	for _, d := range post(t, h, "/list_webhook_deliveries", `{`+auth+`}`)["data"].([]any) {
		events = append(events, d.(map[string]any)["event_type"].(string))
	}
	if strings.Join(events, ",") != "invoice.issued,invoice.denied,invoice.rejected" {
		t.Fatalf("webhook events %v", events)
	}
}

// TestTransmissionCancel: /cancel_nf has SEFAZ register the cancellation
// event before recording it; SEFAZ unreachable is 502 and the note stays
// authorized; a cancellation SEFAZ refuses is 422 with a fixed text and
// SEFAZ's code and text in details, which the portal's page says.
func TestTransmissionCancel(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	cancel := `{` + auth + `,"id_token":"` + id + `","reason":"Pedido cancelado pelo cliente"}`
	a.SetOffline(true)
	if rec := do(h, http.MethodPost, "/cancel_nf", cancel); rec.Code != http.StatusBadGateway {
		t.Fatalf("offline: %d %s", rec.Code, rec.Body)
	}
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); o["invoice"].(map[string]any)["status"] != "AUTHORIZED" {
		t.Fatalf("cancelled while SEFAZ was unreachable: %v", o["invoice"])
	}
	a.SetOffline(false)
	if rec := do(h, http.MethodPost, "/cancel_nf", cancel); rec.Code != http.StatusOK {
		t.Fatalf("cancel: %d %s", rec.Code, rec.Body)
	}
	if calls := a.Received(); calls[len(calls)-1] != "NFeRecepcaoEvento4" {
		t.Fatalf("SEFAZ was called %v", calls)
	}
	// A cancellation whose answer is lost is asked for: SEFAZ's consult
	// says the note is cancelled, and so it is recorded; sent again, a
	// registered cancellation is SEFAZ's 573, taken the same way.
	lost := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	generateNF(t, h, lost, "AUTHORIZED")
	a.DropReplies(1)
	if rec := do(h, http.MethodPost, "/cancel_nf", `{`+auth+`,"id_token":"`+lost+`","reason":"Pedido cancelado pelo cliente"}`); rec.Code != http.StatusOK {
		t.Fatalf("a cancellation whose answer was lost: %d %s", rec.Code, rec.Body)
	}
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+lost+`"}`)["data"].(map[string]any); o["cancel_nf"] != true ||
		o["invoice"].(map[string]any)["status"] != "CANCELLED" {
		t.Fatalf("the order after the lost answer: %v %v", o["cancel_nf"], o["invoice"])
	}
	if calls := a.Received(); strings.Join(calls[len(calls)-2:], ",") != "NFeRecepcaoEvento4,NFeConsultaProtocolo4" {
		t.Fatalf("SEFAZ was called %v", calls)
	}

	// SEFAZ keeps the window, not fincom: a day and more after its
	// authorization the cancellation still goes to SEFAZ, whose refusal
	// (501) is the answer.
	late := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	generateNF(t, h, late, "AUTHORIZED")
	saved := *rig.now
	*rig.now = saved.Add(25 * time.Hour)
	sent := len(a.Received())
	if rec := do(h, http.MethodPost, "/cancel_nf", `{`+auth+`,"id_token":"`+late+`","reason":"Pedido cancelado pelo cliente"}`); rec.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(rec.Body.String(), `"code":501`) || len(a.Received()) != sent+1 {
		t.Fatalf("a cancellation past the window: %d %s", rec.Code, rec.Body)
	}
	*rig.now = saved
	// Another order's note, whose protocol SEFAZ does not know: refused.
	id2 := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id2+`"}`)
	a.ForgetProtocols()
	rec := do(h, http.MethodPost, "/cancel_nf", `{`+auth+`,"id_token":"`+id2+`","reason":"Pedido cancelado pelo cliente"}`)
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `"error":"The tax authority refused the cancellation: see details."`) ||
		!strings.Contains(rec.Body.String(), `"code":222`) {
		t.Fatalf("refused cancellation: %d %s", rec.Code, rec.Body)
	}
	b := signedIn(t, rig.s, rig.ds)
	orderPage := "/portal/orders/" + id2 + "?unit=" + expand("{{unitA}}")
	tok := csrf(t, b.do("GET", orderPage, nil).Body.String())
	page := b.do("POST", "/portal/orders/"+id2+"/cancel_invoice?unit="+expand("{{unitA}}"),
		url.Values{"reason": {"Pedido cancelado pelo cliente"}, "csrf": {tok}}).Body.String()
	if !strings.Contains(page, "A autoridade fiscal recusou o cancelamento. (222: ") {
		t.Fatalf("the portal does not say SEFAZ's refusal:\n%s", page)
	}
}

// TestTransmissionRetryJob: a note whose answer was lost waits its turn,
// then the retry job asks SEFAZ for it and stores the authorization it
// finds; a restart in between changes nothing (the note is in the file).
func TestTransmissionRetryJob(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	a.DropReplies(1)
	generateNF(t, h, id, "PENDING")
	// The waits run on real elapsed time: the domain's clock stands still
	// here, as test mode may hold it.
	clock := time.Now()
	r := &jobs.Runner{Domains: rig.ds, Log: slog.New(slog.DiscardHandler), Billing: rig.bill, Elapsed: func() time.Time { return clock }}
	retry := func() error {
		db, release, err := rig.ds.Acquire(context.Background(), "acme")
		if err != nil {
			return err
		}
		defer release()
		return r.RetryTransmissions(context.Background(), db)
	}
	invoice := func() string {
		inv, _ := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["invoice"].(map[string]any)
		s, _ := inv["status"].(string)
		return s
	}
	if err := retry(); err != nil || invoice() != "PENDING" {
		t.Fatalf("retried before its wait: %v %v", err, invoice())
	}
	clock = clock.Add(9 * time.Second)
	if err := retry(); err != nil || invoice() != "PENDING" {
		t.Fatalf("retried 9 s after: %v %v", err, invoice())
	}
	clock = clock.Add(2 * time.Second)
	if err := retry(); err != nil {
		t.Fatal(err)
	}
	if got := invoice(); got != "AUTHORIZED" || a.Authorized() != 1 {
		t.Fatalf("after the retry: %v (SEFAZ has %d notes)", got, a.Authorized())
	}
	if calls := issuing(a); strings.Join(calls, ",") != "NFeAutorizacao4,NFeConsultaProtocolo4" {
		t.Fatalf("SEFAZ was called %v", calls)
	}
}

// fiscalPass runs one pass of the transmissions job (held notes,
// cancellations, manifestations, the inbox) on the rig's domain.
func fiscalPass(t *testing.T, rig transmissionRig) error {
	t.Helper()
	r := &jobs.Runner{Domains: rig.ds, Log: slog.New(slog.DiscardHandler), Billing: rig.bill}
	db, release, err := rig.ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	return r.RetryTransmissions(context.Background(), db)
}

// retryAfterWait runs the transmissions job on the rig's domain twice, its
// real clock moved past a held note's first wait between the passes: the
// first pass sees the note, the second tries it.
func retryAfterWait(rig transmissionRig) error {
	clock := time.Now()
	r := &jobs.Runner{Domains: rig.ds, Log: slog.New(slog.DiscardHandler), Billing: rig.bill, Elapsed: func() time.Time { return clock }}
	for range 2 {
		db, release, err := rig.ds.Acquire(context.Background(), "acme")
		if err != nil {
			return err
		}
		err = r.RetryTransmissions(context.Background(), db)
		release()
		if err != nil {
			return err
		}
		clock = clock.Add(jobs.TransmissionWait(1, jobs.FiscalRetry) + time.Second)
	}
	return nil
}

// issuing are the calls SEFAZ received but the fiscal loop's fetches of
// the units' documents (NFeDistribuicaoDFe).
func issuing(a *local.Authority) []string {
	var out []string
	for _, c := range a.Received() {
		if c != "NFeDistribuicaoDFe" {
			out = append(out, c)
		}
	}
	return out
}

// TestManifestationSent: /manifest_nfe records the recipient's event at
// once (its answer stays the spec's); the fiscal loop then sends it to the
// national environment signed with the unit's certificate, and list_nfes
// says where it stands: pending, then registered with AN's protocol; a
// second event is sent in turn.
func TestManifestationSent(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h := rig.h
	if err := knowSample(rig.a); err != nil {
		t.Fatal(err)
	}
	if rec := doMultipart(h, "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": testFile(t, "nfe.xml")}); rec.Code != 200 {
		t.Fatalf("import: %d %s", rec.Code, rec.Body)
	}
	status := func() map[string]any {
		return post(t, h, "/list_nfes", `{`+auth+`}`)["data"].([]any)[0].(map[string]any)
	}
	// The unit has its certificate: the note was confirmed at its
	// authority before it entered.
	if s := status(); s["confirmed_at"] == nil || fmt.Sprint(issuing(rig.a)) != "[NFeConsultaProtocolo4]" {
		t.Fatalf("not confirmed: %v, SEFAZ asked %v", s["confirmed_at"], issuing(rig.a))
	}
	if s := status(); s["manifestation_status"] != nil {
		t.Fatalf("before any manifestation: %v", s["manifestation_status"])
	}
	r := &jobs.Runner{Domains: rig.ds, Log: slog.New(slog.DiscardHandler), Billing: rig.bill}
	send := func() {
		t.Helper()
		db, release, err := rig.ds.Acquire(context.Background(), "acme")
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if err := r.RetryTransmissions(context.Background(), db); err != nil {
			t.Fatal(err)
		}
	}
	for i, event := range []string{"ciencia", "confirmacao"} {
		post(t, h, "/manifest_nfe", `{`+auth+`,"access_key":"`+purchaseKey+`","event":"`+event+`"}`)
		if s := status(); s["manifestation_status"] != "pending" {
			t.Fatalf("%s recorded: %v", event, s["manifestation_status"])
		}
		send()
		s := status()
		if s["manifestation_status"] != "registered" || !strings.HasPrefix(s["manifestation_reply"].(string), "191") {
			t.Fatalf("%s sent: %v %v", event, s["manifestation_status"], s["manifestation_reply"])
		}
		if calls := issuing(rig.a); len(calls) != i+2 || calls[i+1] != "NFeRecepcaoEvento4" {
			t.Fatalf("AN was called %v", calls)
		}
	}
	send() // nothing waits: nothing is sent again
	if calls := issuing(rig.a); len(calls) != 3 {
		t.Fatalf("AN was called %v", calls)
	}
	// The unit's documents were asked for once: nothing new (137), so the
	// next ask waits an hour.
	fetches := func() int { return len(rig.a.Received()) - len(issuing(rig.a)) }
	if fetches() != 1 {
		t.Fatalf("the units' documents were asked for %d times", fetches())
	}
	*rig.now = rig.now.Add(61 * time.Minute)
	send()
	if fetches() != 2 {
		t.Fatalf("after an hour, asked %d times", fetches())
	}
}

// TestTransmissionSendsTheSameNote: a note whose answer was lost is sent
// again (or matched with SEFAZ's protocol) exactly as it was signed, even
// when the order's customer changed since: the served nfeProc holds the
// note SEFAZ authorized, whose digest its protocol carries.
func TestTransmissionSendsTheSameNote(t *testing.T) {
	t.Parallel()
	h, a := transmissionServer(t)
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	a.DropReplies(1)
	generateNF(t, h, id, "PENDING")
	post(t, h, "/update_contact", strings.NewReplacer("{{contact1}}", "{{contact2}}", "Av. Paulista", "Rua Nova").Replace(withAddress))
	post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, id), "").Body.String()
	if !strings.Contains(xml, "<xLgr>Av. Paulista</xLgr>") || strings.Contains(xml, "Rua Nova") {
		t.Fatalf("the served note is not the one sent: %.600s", xml)
	}
	digest := regexp.MustCompile(`<DigestValue>([^<]+)</DigestValue>`).FindStringSubmatch(xml)
	if digest == nil || !strings.Contains(xml, "<digVal>"+digest[1]+"</digVal>") {
		t.Fatalf("the protocol's digest is not the note's: %.600s", xml)
	}
}

// TestTransmissionRecordedBeforeSending: a note is held (number, key,
// signed document) before it leaves, so that a server killed while SEFAZ
// answers finds it on restart and asks for it instead of sending a second
// note; once authorized it is no longer held.
func TestTransmissionRecordedBeforeSending(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	id := post(t, rig.h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	held := func() []store.HeldTransmission {
		db, release, err := rig.ds.Acquire(context.Background(), "acme")
		if err != nil {
			t.Error(err)
			return nil
		}
		defer release()
		h, err := db.HeldTransmissions(context.Background())
		if err != nil {
			t.Error(err)
		}
		return h
	}
	var inFlight []store.HeldTransmission
	rig.a.Arrived = func(service string) {
		if service == "NFeAutorizacao4" {
			inFlight = held()
		}
	}
	out := post(t, rig.h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if len(inFlight) != 1 || inFlight[0].OrderToken != id || inFlight[0].Number != 1 || inFlight[0].Attempts != 0 {
		t.Fatalf("held while SEFAZ answered: %+v", inFlight)
	}
	if out["status"] != "AUTHORIZED" || len(held()) != 0 {
		t.Fatalf("after the authorization: %v, held %+v", out, held())
	}
	// A refusal holds nothing; an unreachable SEFAZ holds the note for
	// the retry job.
	id = post(t, rig.h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	rig.a.RejectNext(778, "Rejeição: Informado NCM inexistente")
	generateNF(t, rig.h, id, "REJECTED")
	if h := held(); len(h) != 0 {
		t.Fatalf("held after a refusal: %+v", h)
	}
	rig.a.SetOffline(true)
	generateNF(t, rig.h, id, "PENDING")
	if h := held(); len(h) != 1 || h[0].Number != 2 || h[0].OrderToken != id {
		t.Fatalf("held after an unreachable SEFAZ: %+v", h)
	}
}

// TestCienciaForSummaries: a note the national environment distributes
// only as a summary (resNFe) gets the unit's ciência at once, signed with
// its certificate, so that a later fetch brings it whole.
func TestCienciaForSummaries(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	rig.a.Summaries = []string{purchaseKey}
	r := &jobs.Runner{Domains: rig.ds, Log: slog.New(slog.DiscardHandler), Billing: rig.bill}
	db, release, err := rig.ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := r.RetryTransmissions(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	calls := strings.Join(rig.a.Received(), ",")
	if !strings.HasPrefix(calls, "NFeDistribuicaoDFe,NFeRecepcaoEvento4") {
		t.Fatalf("AN was called %s", calls)
	}
	// The summary is in the inbox, as such, until the note comes whole.
	list := post(t, rig.h, "/list_nfes", `{`+auth+`}`)["data"].([]any)
	if len(list) != 1 {
		t.Fatalf("the inbox: %v", list)
	}
	if n := list[0].(map[string]any); n["access_key"] != purchaseKey || n["summary"] != true || n["situation"] != "authorized" || n["total_value"] != "10.00" {
		t.Fatalf("the summary in the inbox: %v", n)
	}
	// Its issuer cancels it: the next distribution says so.
	rig.a.Cancellations = []string{purchaseKey}
	*rig.now = rig.now.Add(2 * time.Hour)
	if err := r.RetryTransmissions(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	if n := post(t, rig.h, "/list_nfes", `{`+auth+`}`)["data"].([]any)[0].(map[string]any); n["situation"] != "cancelled" {
		t.Fatalf("the inbox after the cancellation: %v", n)
	}
}

// TestPortalInbox: the staff portal's inbox page says a summary as such,
// the note's situation and where its manifestation stands.
func TestPortalInbox(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	rig.a.Summaries = []string{purchaseKey}
	if err := fiscalPass(t, rig); err != nil {
		t.Fatal(err)
	}
	page := signedIn(t, rig.s, rig.ds).do("GET", "/portal/inbox?unit="+expand("{{unitA}}"), nil).Body.String()
	for _, want := range []string{purchaseKey, "Resumo: a nota completa vem após a ciência", "Autorizada", "Ciência · registrada"} {
		if !strings.Contains(page, want) {
			t.Errorf("the inbox page lacks %q:\n%s", want, page)
		}
	}
}
