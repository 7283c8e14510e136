package cmd

import (
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fincom/jobs"
	"fincom/server/fiscal/sefaz/local"
	"fincom/server/needs"
)

// nfceGroup is the nf group of an NFC-e to a consumer at the counter.
const nfceGroup = `{"nf_kind":"nfce","tipo_documento":1,"finalidade_emissao":"1","presenca_comprador":"1","consumidor_final":"1","freight_mode":"9","local_destino":1}`

// TestSellingWhileSEFAZIsDown: a production server whose SEFAZ stops
// answering (the lot cut off once it left) issues the NFC-e offline at
// once (tpEmis 9, the next number), and its fiscal loop gets it authorized
// once SEFAZ answers again, the abandoned attempt's number voided: the
// sale has that one note at SEFAZ. A unit switched to svc (fincom unit
// set --fiscal-contingency) sends its NF-e to the contingency authorizer
// of the table (SP's SVC-AN), and to SP again when switched off.
func TestSellingWhileSEFAZIsDown(t *testing.T) {
	t.Parallel()
	// A long suite: SEFAZ's outage lasts until the fiscal loop's first
	// retry, real seconds; -short skips it. In full (FINCOM_LONG) the
	// server keeps its production wait (10 s); otherwise it retries
	// every second (serve --fiscal-retry), the same promises asserted.
	retry := "1s"
	if needs.Soak(t) {
		retry = jobs.FiscalRetry.String()
	}
	d := newSellingDomain(t)
	sp, svc := &local.Authority{}, &local.Authority{}
	serve := func(a *local.Authority) *httptest.Server {
		srv := httptest.NewUnstartedServer(a)
		srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
		srv.StartTLS()
		t.Cleanup(srv.Close)
		return srv
	}
	spSrv, svcSrv := serve(sp), serve(svc)
	dir := t.TempDir()
	if err := writeLocalFiles(dir, spSrv.URL, spSrv.Certificate()); err != nil {
		t.Fatal(err)
	}
	// SVC-AN is another authority, of its own address and certificate.
	var endpoints map[string]map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "endpoints.json"))
	if err == nil {
		err = json.Unmarshal(b, &endpoints)
	}
	if err != nil {
		t.Fatalf("endpoints.json: %v", err)
	}
	services := map[string]string{}
	for _, s := range local.Services {
		services[s] = svcSrv.URL + "/" + s
	}
	endpoints["55"]["SVCAN"] = map[string]any{"homologacao": services, "producao": services}
	b, _ = json.Marshal(endpoints)
	os.WriteFile(filepath.Join(dir, "endpoints.json"), b, 0o600)
	ca, _ := os.ReadFile(filepath.Join(dir, "ca.pem"))
	os.WriteFile(filepath.Join(dir, "ca.pem"), append(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: svcSrv.Certificate().Raw})...), 0o600)

	base, _, stop := serveInProcess(t, d.schema, "--data", d.data, "--secrets-key-file", d.key, "--fiscal-retry", retry,
		"--fiscal-endpoints", filepath.Join(dir, "endpoints.json"), "--ca-file", filepath.Join(dir, "ca.pem"))
	defer stop()
	generate := func(id string) map[string]any {
		t.Helper()
		code, m := postJSON(t, base+"/generate_nf", `{`+d.tokens()+`,"id_token":"`+id+`"}`)
		inv, _ := m["data"].(map[string]any)
		if code != 200 || inv == nil {
			t.Fatalf("generate_nf: %d %v", code, m)
		}
		return inv
	}
	product := `"products":[{"token":"` + d.product + `","quantity":100}],"description":"Parafusos no balcão"`

	// SEFAZ stops answering: the lot is cut off once it left, and then
	// it is unavailable.
	sale := d.order(t, base, product, nfceGroup)
	sp.LoseNext(1)
	sp.SetOffline(true)
	inv := generate(sale)
	key, _ := inv["access_key"].(string)
	if inv["status"] != "CONTINGENCY" || len(key) != 44 || key[34] != '9' || inv["number"] != 2.0 {
		t.Fatalf("the NFC-e while SEFAZ does not answer: %v", inv)
	}
	pending := jsonOut(t, cli(t, d.schema, d.data, "fiscal", "pending", "acme", "--json"))
	if p, a := pending["pending"].([]any), pending["abandoned"].([]any); len(p) != 1 || len(a) != 1 ||
		a[0].(map[string]any)["number"] != 1.0 || p[0].(map[string]any)["issued_offline"] != true {
		t.Fatalf("fiscal pending while SEFAZ is down: %v", pending)
	}
	// Back: the fiscal loop sends it (its first try waits --fiscal-retry).
	sp.SetOffline(false)
	deadline := time.Now().Add(40 * time.Second)
	for {
		_, m := postJSON(t, base+"/get_sales_order_by_id", `{`+d.tokens()+`,"id_token":"`+sale+`"}`)
		inv, _ = m["data"].(map[string]any)["invoice"].(map[string]any)
		if inv["status"] == "AUTHORIZED" && inv["access_key"] == key && inv["protocol"] != "" && sp.Authorized() == 1 && voided(sp) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the offline NFC-e after SEFAZ came back: %v; SEFAZ holds %d notes: %v", inv, sp.Authorized(), sp.Received())
		}
		time.Sleep(200 * time.Millisecond)
	}

	// SVC: the unit's NF-e go to SVC-AN, then to SP again.
	cli(t, d.schema, d.data, "unit", "set", "acme", d.unit, "--fiscal-contingency", "svc")
	// fincom fiscal status asks the SVC too, and says what its answer means.
	fiscalFlags := []string{"--fiscal-endpoints", filepath.Join(dir, "endpoints.json"), "--ca-file", filepath.Join(dir, "ca.pem"), "--secrets-key-file", d.key, "--json"}
	svc.SVCNotice(113)
	st := jsonOut(t, cli(t, d.schema, d.data, append([]string{"fiscal", "status", "acme", d.unit}, fiscalFlags...)...))
	if s, _ := st["svc"].(map[string]any); st["contingency"] != "svc" || s == nil || s["authorizer"] != "SVCAN" || s["cStat"] != 113.0 ||
		!strings.Contains(s["meaning"].(string), "about to be turned off") {
		t.Fatalf("fiscal status in SVC: %v", st)
	}
	svc.SVCNotice(0)
	inv = generate(d.order(t, base, `"products":[{"token":"`+d.product+`","quantity":100}],"description":"Parafusos"`, nfeGroup))
	if k, _ := inv["access_key"].(string); inv["status"] != "AUTHORIZED" || len(k) != 44 || k[34] != '6' || svc.Authorized() != 1 || sp.Authorized() != 1 {
		t.Fatalf("the NF-e in SVC contingency: %v (SVC-AN holds %d, SP %d)", inv, svc.Authorized(), sp.Authorized())
	}
	cli(t, d.schema, d.data, "unit", "set", "acme", d.unit, "--fiscal-contingency", "off")
	inv = generate(d.order(t, base, `"products":[{"token":"`+d.product+`","quantity":100}],"description":"Parafusos"`, nfeGroup))
	if k, _ := inv["access_key"].(string); inv["status"] != "AUTHORIZED" || k[34] != '1' || svc.Authorized() != 1 || sp.Authorized() != 2 {
		t.Fatalf("the NF-e after the contingency: %v (SVC-AN holds %d, SP %d)", inv, svc.Authorized(), sp.Authorized())
	}
}

// voided says the authority was asked to void a number.
func voided(a *local.Authority) bool {
	for _, s := range a.Received() {
		if s == "NFeInutilizacao4" {
			return true
		}
	}
	return false
}
