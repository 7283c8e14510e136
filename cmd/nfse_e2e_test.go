package cmd

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"fincom/server/fiscal"
	nfselocal "fincom/server/fiscal/nfsen/local"
	"fincom/server/fiscal/sefaz/local"
)

// nfsenGroup is the nf group of a national NFS-e of R$ 35.00.
const nfsenGroup = `{"nf_kind":"nfsen","service_id_token":"SRV-0107","service_cod":"01.07","service_location":"3550308","tax_service_gross_amount":35,` +
	`"tax_iss_rate_percent":5,"tax_iss_amount":1.75,"net_receivable_amount":35}`

// TestNationalNFSeEndToEnd: a production server pointed by
// --fiscal-endpoints and --ca-file at a national system it has never seen
// (REST over mutual TLS, gzip+base64, the DPS held to its schema and
// signature) issues an nfsen order's NFS-e and serves the system's signed
// note with its 50-digit key and the system's DANFSe; shows a refusal's
// codes and texts; resolves a lost reply without a second NFS-e; and
// cancels by event e101101.
func TestNationalNFSeEndToEnd(t *testing.T) {
	t.Parallel()
	d := newSellingDomain(t)
	national := &nfselocal.System{}
	dir := serveNational(t, national)
	base, _, stop := serveInProcess(t, d.schema, "--data", d.data, "--secrets-key-file", d.key,
		"--fiscal-endpoints", filepath.Join(dir, "endpoints.json"), "--ca-file", filepath.Join(dir, "ca.pem"))
	defer stop()
	served := func(u string) string { return string(servedFrom(t, base, u)) }
	generate := func(id, want string) map[string]any {
		t.Helper()
		code, m := postJSON(t, base+"/generate_nf", `{`+d.tokens()+`,"id_token":"`+id+`"}`)
		inv, _ := m["data"].(map[string]any)
		if code != 200 || inv == nil || inv["status"] != want {
			t.Fatalf("generate_nf: %d %v, want %s", code, m, want)
		}
		return inv
	}
	service := `"id_token_stock_item":"` + d.service + `","quantity":1,"description":"Instalação de rede"`

	// Issued: the system's note, signed by it, under its key.
	id := d.order(t, base, service, nfsenGroup)
	inv := generate(id, "AUTHORIZED")
	key, _ := inv["access_key"].(string)
	noteURL := inv["xml_url"].(string)
	note := served(noteURL)
	if !fiscal.ValidNationalKey(key) || !strings.Contains(note, `<infNFSe Id="NFS`+key+`"`) || fiscal.ValidateSchema("NFSe", []byte(note)) != nil {
		t.Fatalf("the served note of key %s: %.400s", key, note)
	}
	if pdf := served(strings.Replace(noteURL, "public_nf_xml", "public_danfe_pdf", 1)); !strings.Contains(pdf, "(DANFSe - NFS-e "+key+")") {
		t.Fatalf("the DANFSe served: %.300s", pdf)
	}

	// Refused: the system's code and text on the invoice and the order.
	refused := d.order(t, base, service, nfsenGroup)
	national.RejectNext(310, "O código de tributação nacional informado não existe.")
	inv = generate(refused, "REJECTED")
	if inv["status_code"] != 310.0 || !strings.Contains(inv["status_text"].(string), "E0310: O código de tributação nacional informado não existe.") {
		t.Fatalf("the refused NFS-e: %v", inv)
	}
	_, m := postJSON(t, base+"/get_sales_order_by_id", `{`+d.tokens()+`,"id_token":"`+refused+`"}`)
	if o := m["data"].(map[string]any); o["nf_status"] != "REJECTED" || !strings.Contains(o["nf_status_text"].(string), "E0310") {
		t.Fatalf("the order of the refused NFS-e: %v %v", o["nf_status"], o["nf_status_text"])
	}

	// A lost reply: pending, then the note the system issued, once.
	lost := d.order(t, base, service, nfsenGroup)
	national.DropReplies(1)
	generate(lost, "PENDING")
	before := national.Issued()
	if inv := generate(lost, "AUTHORIZED"); national.Issued() != before || !fiscal.ValidNationalKey(inv["access_key"].(string)) {
		t.Fatalf("after the lost reply: %v (the system has %d notes, %d before)", inv, national.Issued(), before)
	}

	// Cancelled by event e101101.
	if code, m := postJSON(t, base+"/cancel_nf", `{`+d.tokens()+`,"id_token":"`+id+`","reason":"Serviço cobrado em duplicidade","reason_code":"1"}`); code != 200 ||
		national.Cancelled() != 1 {
		t.Fatalf("cancel: %d %v (the system registered %d)", code, m, national.Cancelled())
	}
	if ev := served(strings.Replace(noteURL, "public_nf_xml", "public_nf_cancellation_xml", 1)); !strings.Contains(ev, key) ||
		!strings.Contains(ev, "<cMotivo>1</cMotivo>") {
		t.Fatalf("the cancellation served: %.400s", ev)
	}
	_, m = postJSON(t, base+"/get_sales_order_by_id", `{`+d.tokens()+`,"id_token":"`+id+`"}`)
	if o := m["data"].(map[string]any); o["cancel_nf"] != true {
		t.Fatalf("the cancelled order: %v", o)
	}
}

// servedFrom fetches a document the server at base links to (an xml_url,
// a DANFE), whatever host its public URL names.
func servedFrom(t *testing.T, base, u string) []byte {
	t.Helper()
	x, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := url.Parse(base)
	x.Host = host.Host
	resp, err := http.Get(x.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}

// TestKilledWhileADPSIsInFlight: a production server killed with SIGKILL
// once the national system issued its DPS's note, and started again,
// ends with that one note for the sale, found by its DPS.
func TestKilledWhileADPSIsInFlight(t *testing.T) {
	t.Parallel()
	d := newSellingDomain(t)
	national := &nfselocal.System{}
	var issued, release chan struct{}
	national.Answering, issued, release = holdFirst("POST /nfse")
	dir := serveNational(t, national)
	flags := []string{"--secrets-key-file", d.key, "--fiscal-endpoints", filepath.Join(dir, "endpoints.json"), "--ca-file", filepath.Join(dir, "ca.pem")}
	child, base := startChildWith(t, d.data, flags)
	id := d.order(t, base, `"id_token_stock_item":"`+d.service+`","quantity":1,"description":"Instalação de rede"`, nfsenGroup)
	go http.Post(base+"/generate_nf", "application/json", strings.NewReader(`{`+d.tokens()+`,"id_token":"`+id+`"}`))
	select {
	case <-issued:
	case <-time.After(20 * time.Second):
		child.Process.Kill()
		t.Fatal("the DPS never reached the national system")
	}
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	close(release)

	child, base = startChildWith(t, d.data, flags)
	defer func() { child.Process.Kill(); child.Wait() }()
	code, m := postJSON(t, base+"/generate_nf", `{`+d.tokens()+`,"id_token":"`+id+`"}`)
	inv, _ := m["data"].(map[string]any)
	if code != 200 || inv["status"] != "AUTHORIZED" || national.Issued() != 1 || inv["number"] != 1.0 {
		t.Fatalf("after the restart: %d %v (the system has %d notes: %v)", code, m, national.Issued(), national.Received())
	}
}

// serveNational serves a national NFS-e system (its Sefin and its ADN)
// and a SEFAZ on loopback, and answers the folder of the endpoints and CA
// files that point a server at them.
func serveNational(t *testing.T, national *nfselocal.System) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/SefinNacional/", national)
	mux.Handle("/adn/", national)
	mux.Handle("/", &local.Authority{})
	srv := httptest.NewUnstartedServer(mux)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	if err := writeLocalFiles(dir, srv.URL, srv.Certificate()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// holdFirst is an authority's Answering hook that holds its first answer
// to call (processed, not yet sent) until release is closed, closing
// answered once it is there: the moment a sender is killed to test what
// it does with a verdict it never heard.
func holdFirst(call string) (hook func(string), answered, release chan struct{}) {
	answered, release = make(chan struct{}), make(chan struct{})
	var once sync.Once
	return func(c string) {
		if c != call {
			return
		}
		first := false
		once.Do(func() { first = true; close(answered) })
		if first {
			<-release
		}
	}, answered, release
}
