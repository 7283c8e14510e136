package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	nfselocal "fincom/server/fiscal/nfsen/local"
	"fincom/server/fiscal/sefaz/local"
	"fincom/store"
)

// TestSVCContingency: with the unit switched to contingency, its NF-e
// carries tpEmis 6 (SP's SVC-AN) in its key and ide, with when the
// contingency began and why, and goes to SVC-AN, which authorizes it and
// registers its cancellation; its NFC-e still go to SP; switched back, the
// NF-e go to SP again.
func TestSVCContingency(t *testing.T) {
	t.Parallel()
	a, svc, n := &local.Authority{}, &local.Authority{}, &nfselocal.System{}
	c, err := localAuthorities(a, n)
	if err != nil {
		t.Fatal(err)
	}
	srv := loopbackTLS(svc)
	var services []string
	for _, s := range local.Services {
		services = append(services, `"`+s+`": "`+srv.URL+`/`+s+`"`)
	}
	if _, err := c.Endpoints.Override([]byte(`{"55": {"SVCAN": {"homologacao": {` + strings.Join(services, ",") + `}}}}`)); err != nil {
		t.Fatal(err)
	}
	c.Roots.AddCert(srv.Certificate())
	rig := newTransmissionRigWith(t, a, n, c)
	h := rig.h
	setContingency := func(mode, since string) {
		db, release, err := rig.ds.Acquire(context.Background(), "acme")
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if _, err := db.SetUnitProfile(context.Background(), expand("{{unitA}}"), func(p *store.UnitProfile) error {
			p.FiscalContingency, p.FiscalContingencySince = mode, since
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	setContingency("svc", "2026-11-22T08:30:00-03:00")
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	key, _ := out["access_key"].(string)
	if out["status"] != "AUTHORIZED" || len(key) != 44 || key[34] != '6' || svc.Authorized() != 1 || a.Authorized() != 0 {
		t.Fatalf("in contingency: %v (SVC %d, SP %d)", out, svc.Authorized(), a.Authorized())
	}
	xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, id), "").Body.String()
	if !strings.Contains(xml, "<tpEmis>6</tpEmis>") || !strings.Contains(xml, "<dhCont>2026-11-22T08:30:00-03:00</dhCont>") ||
		!strings.Contains(xml, "<xJust>Autorizador da UF indisponível") {
		t.Fatalf("the note does not say its contingency: %.900s", xml)
	}
	if rec := do(h, http.MethodPost, "/cancel_nf", `{`+auth+`,"id_token":"`+id+`","reason":"Pedido cancelado pelo cliente"}`); rec.Code != http.StatusOK {
		t.Fatalf("cancel in contingency: %d %s", rec.Code, rec.Body)
	}
	if calls := svc.Received(); calls[len(calls)-1] != "NFeRecepcaoEvento4" {
		t.Fatalf("SVC was called %v", calls)
	}
	if page := signedIn(t, rig.s, rig.ds).do("GET", "/portal/units", nil).Body.String(); !strings.Contains(page, "NF-e em contingência SVC desde 22/11/2026") {
		t.Fatalf("the units page does not say the contingency:\n%s", page)
	}
	// An SVC its state's SEFAZ has not enabled refuses the lot (114): the
	// order says so, and the number goes back.
	svc.SVCNotice(114)
	disabled := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	out = generateNF(t, h, disabled, "REJECTED")
	if out["status_code"] != 114.0 || !strings.Contains(out["status_text"].(string), "SVC desabilitada pela SEFAZ de Origem") || svc.Authorized() != 1 {
		t.Fatalf("a lot to a disabled SVC: %v", out)
	}
	svc.SVCNotice(0)
	if out := generateNF(t, h, disabled, "AUTHORIZED"); out["number"] != 2.0 {
		t.Fatalf("the note once the SVC is enabled: %v", out)
	}
	nfce := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	if out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+nfce+`"}`)["data"].(map[string]any); out["access_key"].(string)[34] != '1' || a.Authorized() != 1 {
		t.Fatalf("an NFC-e in an NF-e contingency: %v", out)
	}
	setContingency("off", "")
	id = post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	if out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); out["access_key"].(string)[34] != '1' || a.Authorized() != 2 {
		t.Fatalf("after the contingency: %v", out)
	}
}

// TestEPECContingency: with the unit in EPEC contingency an NF-e is
// issued at once with tpEmis 4 once the national environment registered
// its EPEC (kept with the invoice), nothing sent to the state's
// authorizer yet; the DANFE says it waits; it is not cancelled before the
// retry job sends it to its authorizer and its nfeProc becomes the
// invoice.
func TestEPECContingency(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	db, release, err := rig.ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.SetUnitProfile(context.Background(), expand("{{unitA}}"), func(p *store.UnitProfile) error {
		p.FiscalContingency, p.FiscalContingencySince = "epec", "2026-11-22T08:30:00-03:00"
		return nil
	})
	release()
	if err != nil {
		t.Fatal(err)
	}
	if page := signedIn(t, rig.s, rig.ds).do("GET", "/portal/units", nil).Body.String(); !strings.Contains(page, "NF-e em contingência EPEC desde 22/11/2026") {
		t.Fatalf("the units page does not show the EPEC mode:\n%s", page)
	}
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	key, _ := out["access_key"].(string)
	if out["status"] != "CONTINGENCY" || len(key) != 44 || key[34] != '4' || out["protocol"] != "" || a.Authorized() != 0 ||
		strings.Join(issuing(a), ",") != "NFeRecepcaoEvento4" {
		t.Fatalf("by EPEC: %v (SEFAZ %v)", out, issuing(a))
	}
	events := invoiceEvents(t, rig, h, id)
	if len(events) != 1 || events[0].Type != "110140" || events[0].Protocol == "" || !strings.Contains(events[0].XML, "<descEvento>EPEC</descEvento>") {
		t.Fatalf("EPEC kept: %+v", events)
	}
	pub := publicOf(t, h, id)
	if page := do(h, http.MethodGet, "/sales_orders/public_danfe/"+pub, "").Body.String(); !strings.Contains(page, "DANFE EMITIDO EM CONTINGÊNCIA (EPEC) — Pendente de autorização") {
		t.Fatalf("the DANFE does not say it waits:\n%s", page)
	}
	cancel := `{` + auth + `,"id_token":"` + id + `","reason":"Pedido cancelado pelo cliente"}`
	if rec := do(h, http.MethodPost, "/cancel_nf", cancel); rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("cancel before authorization: %d %s", rec.Code, rec.Body)
	}
	if err := retryAfterWait(rig); err != nil {
		t.Fatal(err)
	}
	inv := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["invoice"].(map[string]any)
	if inv["protocol"] == "" || a.Authorized() != 1 {
		t.Fatalf("after the retry: %v", inv)
	}
	if rec := do(h, http.MethodPost, "/cancel_nf", cancel); rec.Code != http.StatusOK {
		t.Fatalf("cancel after authorization: %d %s", rec.Code, rec.Body)
	}
}
