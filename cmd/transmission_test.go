package cmd

import (
	"context"
	"crypto/tls"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/jobs"
	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/server/fiscal/sefaz/local"
	"fincom/server/needs"
	"fincom/store"
)

// sellingDomain is a domain "acme" whose unit sells with a certificate
// (its secrets key at key) and a CSC, in homologação, with a contact, a
// category, a product and a service to sell: what a firm has set up when
// it first issues.
type sellingDomain struct {
	schema, data, key, access, unit     string
	contact, category, product, service string
}

func newSellingDomain(t *testing.T) sellingDomain {
	t.Helper()
	schema := schemaForTest(t)
	data := t.TempDir()
	key := filepath.Join(t.TempDir(), "secrets.key")
	if _, err := certs.WriteKeyFile(key); err != nil {
		t.Fatal(err)
	}
	access := jsonOut(t, cli(t, schema, data, "domain", "create", "acme", "--json"))["access_token"].(string)
	unit := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Matriz", "--cnpj", "11.222.333/0001-81", "--city-ibge", "3550308",
		"--im", "1234", "--street", "Rua Vergueiro", "--number", "1000", "--district", "Paraíso", "--zip", "04101-000", "--ie", "110042490114",
		"--crt", "1", "--json"))["unit_token"].(string)
	installTestCertificate(t, schema, data, unit, key)
	cli(t, schema, data, "unit", "set", "acme", unit, "--csc-id", "000001", "--csc", "0123456789ABCDEF0123", "--secrets-key-file", key)

	// The registers the orders name, as the firm keeps them.
	ds, err := store.OpenDomains(data, store.Options{Rules: billing.Rules{}, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	u, err := db.UnitByToken(ctx, unit)
	if err != nil {
		t.Fatal(err)
	}
	contact, err := db.InsertContact(ctx, u.ID, store.ContactFields{Type: "legal", Register: "11444777000161", SocialReason: "Alfa Comércio Ltda",
		Email: "nf@alfa.com.br", Address: "Av. Paulista", Number: "1500", Neighborhood: "Bela Vista", City: "São Paulo", State: "SP", CityIBGE: "3550308", ZipCode: "01310100"})
	if err != nil {
		t.Fatal(err)
	}
	category, err := db.InsertCategory(ctx, u.ID, store.CategoryFields{ModuleType: "in", Name: "Vendas", GroupCode: 102})
	if err != nil {
		t.Fatal(err)
	}
	product, err := db.InsertProduct(ctx, u.ID, store.ProductFields{Description: "Parafuso 10mm", Type: "product", UsageType: "00",
		MonetaryValue: store.NewMoney(decimal.RequireFromString("0.35")), NCM: "73181500", CFOP: "5102", Unit: "UN"})
	if err != nil {
		t.Fatal(err)
	}
	service, err := db.InsertProduct(ctx, u.ID, store.ProductFields{Description: "Instalação", Type: "service", UsageType: "09",
		MonetaryValue: store.NewMoney(decimal.RequireFromString("35")), Unit: "H"})
	if err != nil {
		t.Fatal(err)
	}
	release()
	ds.Close()

	return sellingDomain{schema: schema, data: data, key: key, access: access, unit: unit, contact: contact, category: category,
		product: product, service: service}
}

// order inserts an order of the selling domain at base: its pv's lines
// and nf group, R$ 35.00, and answers its id.
func (d sellingDomain) order(t *testing.T, base, pv, nf string) string {
	t.Helper()
	code, m := postJSON(t, base+"/insert_sales_order", `{`+d.tokens()+`,"pv":{"id_token_contact":"`+d.contact+`",`+pv+`,"value":35},`+
		`"faturamento":{"id_token_category":"`+d.category+`","estimated_payment_date":"2026-12-10"},`+
		`"charge":{"payment_type":"fb3245d4-428b-51de-95df-55e8263d2292","charge_pix_key":"pix@acme.com.br"},"nf":`+nf+`}`)
	if code != 200 {
		t.Fatalf("insert_sales_order: %d %v", code, m)
	}
	return m["data"].(map[string]any)["id"].(string)
}

func (d sellingDomain) tokens() string {
	return fmt.Sprintf(`"access_token":%q,"unit_token":%q`, d.access, d.unit)
}

// nfeGroup is the nf group of an NF-e to a recipient in the unit's state.
const nfeGroup = `{"nf_kind":"nfe","tipo_documento":1,"finalidade_emissao":"1","presenca_comprador":"2","consumidor_final":"1","freight_mode":"9","local_destino":1}`

// TestServeTransmitsToAnAuthorityItHasNeverSeen: a production server whose
// unit is in homologação, pointed by --fiscal-endpoints and --ca-file at
// authorities it has never seen (fincom fiscal local-authority: a SEFAZ
// and a national NFS-e system checking the official schemas and
// signatures), gets an NF-e authorized (the protocol in the served XML)
// and cancelled by event, a national NFS-e issued and cancelled, and a
// recipient's ciência registered at the national environment.
func TestServeTransmitsToAnAuthorityItHasNeverSeen(t *testing.T) {
	t.Parallel()
	needs.Slow(t, "waits for the transmissions loop's turns")
	d := newSellingDomain(t)
	schema, data, key, access, unit := d.schema, d.data, d.key, d.access, d.unit
	contact, category, product, service := d.contact, d.category, d.product, d.service
	cli(t, schema, data, "nfe", "import", "acme", unit, "../testdata/docread/nfe.xml", "--ca-file", "../testdata/docread/supplier.pem")

	// fincom's own authorities, seen by the server only through the files
	// they write.
	dir := t.TempDir()
	var lout safeBuffer
	lroot := newRootCmd(&app{schema: schema, out: &lout, errOut: &lout})
	// Its NFC-e window is a state's of a second, for the refusal below.
	lroot.SetArgs([]string{"fiscal", "local-authority", "--addr", "127.0.0.1:0", "--out", dir, "--nfce-cancel-window", "1s"})
	lctx, lcancel := context.WithCancel(context.Background())
	ldone := make(chan error, 1)
	go func() { ldone <- lroot.ExecuteContext(lctx) }()
	defer func() { lcancel(); <-ldone }()
	for i := 0; i < 1500 && !strings.Contains(lout.String(), "local authority on"); i++ {
		time.Sleep(10 * time.Millisecond)
	}

	base, _, stopServe := serveInProcess(t, schema, "--data", data, "--secrets-key-file", key,
		"--fiscal-endpoints", filepath.Join(dir, "endpoints.json"), "--ca-file", filepath.Join(dir, "ca.pem"))
	call := func(path, body string) (int, map[string]any) {
		t.Helper()
		return postJSON(t, base+path, body)
	}
	tokens := fmt.Sprintf(`"access_token":%q,"unit_token":%q`, access, unit)
	order := func(pv, nf string) string {
		t.Helper()
		code, m := call("/insert_sales_order", `{`+tokens+`,"pv":{"id_token_contact":"`+contact+`",`+pv+`,"value":35},"faturamento":{"id_token_category":"`+category+
			`","estimated_payment_date":"2026-12-10"},"charge":{"payment_type":"fb3245d4-428b-51de-95df-55e8263d2292","charge_pix_key":"pix@acme.com.br"},`+
			`"nf":`+nf+`}`)
		if code != 200 {
			t.Fatalf("insert_sales_order: %d %v", code, m)
		}
		return m["data"].(map[string]any)["id"].(string)
	}

	nfe := order(`"products":[{"token":"`+product+`","quantity":100}],"description":"Parafusos"`, `{"nf_kind":"nfe","tipo_documento":1,"finalidade_emissao":"1","presenca_comprador":"2","consumidor_final":"1","freight_mode":"9","local_destino":1}`)
	code, m := call("/generate_nf", `{`+tokens+`,"id_token":"`+nfe+`"}`)
	if code != 200 || m["data"].(map[string]any)["status"] != "AUTHORIZED" {
		t.Fatalf("NF-e: %d %v", code, m)
	}
	xmlURL, err := url.Parse(m["data"].(map[string]any)["xml_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	host, _ := url.Parse(base)
	xmlURL.Host = host.Host
	resp, err := http.Get(xmlURL.String())
	if err != nil {
		t.Fatal(err)
	}
	xml, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(xml), "<nfeProc") || !strings.Contains(string(xml), "<cStat>100</cStat>") || !strings.Contains(string(xml), "<nProt>") {
		t.Fatalf("the served XML holds no protocol: %.400s", xml)
	}
	if err := fiscal.ValidateSchema("nfeProc", xml); err != nil {
		t.Fatalf("the served nfeProc is not valid by procNFe_v4.00.xsd: %v", err)
	}
	served := func(u string) []byte { return servedFrom(t, base, u) }

	// An NFC-e, to a consumer at the counter.
	nfce := order(`"products":[{"token":"`+product+`","quantity":100}],"description":"Parafusos no balcão"`, `{"nf_kind":"nfce","tipo_documento":1,"finalidade_emissao":"1","presenca_comprador":"1","consumidor_final":"1","freight_mode":"9","local_destino":1}`)
	code, m = call("/generate_nf", `{`+tokens+`,"id_token":"`+nfce+`"}`)
	if code != 200 || m["data"].(map[string]any)["status"] != "AUTHORIZED" {
		t.Fatalf("NFC-e: %d %v", code, m)
	}
	proc := served(m["data"].(map[string]any)["xml_url"].(string))
	if err := fiscal.ValidateSchema("nfeProc", proc); err != nil || !strings.Contains(string(proc), "<mod>65</mod>") || !strings.Contains(string(proc), "<cStat>100</cStat>") {
		t.Fatalf("the NFC-e's nfeProc: %v %.400s", err, proc)
	}
	// A correction letter of the authorized note, registered (135) by the
	// authority the server speaks to.
	_, o := call("/get_sales_order_by_id", `{`+tokens+`,"id_token":"`+nfe+`"}`)
	nfeKey := o["data"].(map[string]any)["invoice"].(map[string]any)["access_key"].(string)
	fiscalFlags := []string{"--fiscal-endpoints", filepath.Join(dir, "endpoints.json"), "--ca-file", filepath.Join(dir, "ca.pem"), "--secrets-key-file", key}
	letter := jsonOut(t, cli(t, schema, data, append([]string{"nfe", "correct", "acme", unit, nfeKey, "--text", "Endereço de entrega: Rua Vergueiro, 1000", "--json"}, fiscalFlags...)...))
	if letter["cStat"] != 135.0 {
		t.Fatalf("correction letter: %v", letter)
	}
	if code, m := call("/cancel_nf", `{`+tokens+`,"id_token":"`+nfe+`","reason":"Pedido cancelado pelo cliente"}`); code != 200 {
		t.Fatalf("cancel NF-e: %d %v", code, m)
	}
	// The authority holds it cancelled (101), and the server serves the
	// cancellation it registered (135) beside the note.
	if st := jsonOut(t, cli(t, schema, data, append([]string{"fiscal", "consult", "acme", unit, nfeKey, "--json"}, fiscalFlags...)...)); st["cStat"] != 101.0 {
		t.Fatalf("the cancelled NF-e at the authority: %v", st)
	}
	ev := served(strings.Replace(xmlURL.String(), "public_nf_xml", "public_nf_cancellation_xml", 1))
	if err := fiscal.ValidateSchema("procEventoCancNFe", ev); err != nil || !strings.Contains(string(ev), "<cStat>135</cStat>") {
		t.Fatalf("the cancellation served: %v %.400s", err, ev)
	}
	// Past the state's window the authority refuses the NFC-e's
	// cancellation (501): the note stays authorized and the answer says
	// the authority's code and text.
	time.Sleep(2100 * time.Millisecond)
	if code, m := call("/cancel_nf", `{`+tokens+`,"id_token":"`+nfce+`","reason":"Pedido cancelado pelo cliente"}`); code != 422 ||
		m["error"] != "The tax authority refused the cancellation: see details." || m["details"].(map[string]any)["code"] != 501.0 {
		t.Fatalf("a cancellation the authority refuses: %d %v", code, m)
	}
	if _, o := call("/get_sales_order_by_id", `{`+tokens+`,"id_token":"`+nfce+`"}`); o["data"].(map[string]any)["invoice"].(map[string]any)["status"] != "AUTHORIZED" {
		t.Fatalf("the NFC-e after the refusal: %v", o["data"].(map[string]any)["invoice"])
	}
	// An NFC-e takes no correction letter: refused before anything is sent.
	_, o = call("/get_sales_order_by_id", `{`+tokens+`,"id_token":"`+nfce+`"}`)
	nfceKey := o["data"].(map[string]any)["invoice"].(map[string]any)["access_key"].(string)
	if err := cliErr(t, schema, data, append([]string{"nfe", "correct", "acme", unit, nfceKey, "--text", "Endereço de entrega: Rua Vergueiro, 1000"}, fiscalFlags...)...); err == nil ||
		!strings.Contains(err.Error(), "only an NF-e") {
		t.Fatalf("a letter of an NFC-e: %v", err)
	}
	// A letter of the cancelled note is the authority's refusal (218).
	if err := cliErr(t, schema, data, append([]string{"nfe", "correct", "acme", unit, nfeKey, "--text", "Endereço de entrega: Rua Vergueiro, 1000"}, fiscalFlags...)...); err == nil ||
		!strings.Contains(err.Error(), "218") {
		t.Fatalf("a letter of a cancelled note: %v", err)
	}

	// A note the authority rejects: a unit set to production sends it
	// with tpAmb 1, which a homologation authority refuses (252). The
	// answer is the invoice REJECTED, and the order says why.
	cli(t, schema, data, "unit", "set", "acme", unit, "--fiscal-environment", "producao")
	refused := order(`"products":[{"token":"`+product+`","quantity":100}],"description":"Parafusos"`, `{"nf_kind":"nfe","tipo_documento":1,"finalidade_emissao":"1","presenca_comprador":"2","consumidor_final":"1","freight_mode":"9","local_destino":1}`)
	code, m = call("/generate_nf", `{`+tokens+`,"id_token":"`+refused+`"}`)
	if inv, _ := m["data"].(map[string]any); code != 200 || inv["status"] != "REJECTED" || inv["status_code"] != 252.0 {
		t.Fatalf("the rejected note: %d %v", code, m)
	}
	_, m = call("/get_sales_order_by_id", `{`+tokens+`,"id_token":"`+refused+`"}`)
	if o := m["data"].(map[string]any); o["nf_status"] != "REJECTED" || o["nf"] != false ||
		o["nf_status_text"] != "Rejeitada pela autoridade (252): Rejeição: Ambiente informado diverge do Ambiente de recebimento" {
		t.Fatalf("the order of the rejected note: %v %v", o["nf_status"], o["nf_status_text"])
	}
	cli(t, schema, data, "unit", "set", "acme", unit, "--fiscal-environment", "homologacao")

	nfse := order(`"id_token_stock_item":"`+service+`","quantity":1,"description":"Instalação de rede"`, `{"nf_kind":"nfsen","service_id_token":"SRV-0107","service_cod":"01.07","service_location":"3550308","tax_service_gross_amount":35,`+
		`"tax_iss_rate_percent":5,"tax_iss_amount":1.75,"net_receivable_amount":35}`)
	code, m = call("/generate_nf", `{`+tokens+`,"id_token":"`+nfse+`"}`)
	if key, _ := m["data"].(map[string]any)["access_key"].(string); code != 200 || !fiscal.ValidNationalKey(key) {
		t.Fatalf("national NFS-e: %d %v", code, m)
	}
	if code, m := call("/cancel_nf", `{`+tokens+`,"id_token":"`+nfse+`","reason":"Serviço cobrado em duplicidade"}`); code != 200 {
		t.Fatalf("cancel national NFS-e: %d %v", code, m)
	}

	if code, m := call("/manifest_nfe", `{`+tokens+`,"access_key":"35170458716523000119550010000000121000123458","event":"ciencia"}`); code != 200 {
		t.Fatalf("manifest_nfe: %d %v", code, m)
	}
	status := ""
	for i := 0; i < 300 && status != "registered"; i++ {
		_, m := call("/list_nfes", `{`+tokens+`}`)
		if list, ok := m["data"].([]any); ok && len(list) == 1 {
			status, _ = list[0].(map[string]any)["manifestation_status"].(string)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if status != "registered" {
		t.Fatalf("the ciência was not registered at the national environment: %q", status)
	}

	// fiscal pending lists the notes waiting for an authority, and
	// doctor warns of one waiting past an hour. A note held as the
	// issuing path holds it after a lost answer, two hours ago.
	if err := stopServe(); err != nil {
		t.Fatal(err)
	}
	if out := cli(t, schema, data, "fiscal", "pending", "acme"); out != "no note waits for an authority\n" {
		t.Fatalf("nothing pending: %q", out)
	}
	conn, err := sql.Open("sqlite", "file:"+filepath.Join(data, "acme.db"))
	if err != nil {
		t.Fatal(err)
	}
	issued := time.Now().Add(-2 * time.Hour).UTC()
	if _, err := conn.Exec(`INSERT INTO invoice_transmissions (order_id, unit_id, kind, series, number, access_key, issued_at, signed, attempts, last_error, updated_at)
		SELECT o.id, o.unit_id, 'nfe', 1, 7, '35261111222333000181550010000000071000000071', ?, '<NFe/>', 2, 'the authority did not answer', ?
		FROM sales_orders o WHERE o.token = ?`, issued.Format(time.RFC3339Nano), issued.Format(time.RFC3339), nfe); err != nil {
		t.Fatal(err)
	}
	// And an attempt given up for an offline note two hours ago, not yet
	// ended at the authority.
	if _, err := conn.Exec(`INSERT INTO abandoned_notes (unit_id, order_id, kind, series, number, access_key, issued_at, signed, attempts, created_at, updated_at)
		SELECT o.unit_id, o.id, 'nfce', 1, 8, '35261111222333000181650010000000081000000081', ?, '<NFe/>', 3, ?, ?
		FROM sales_orders o WHERE o.token = ?`, issued.Format(time.RFC3339Nano), issued.Format(time.RFC3339Nano), issued.Format(time.RFC3339Nano), nfe); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	pending := jsonOut(t, cli(t, schema, data, "fiscal", "pending", "acme", unit, "--json"))["pending"].([]any)
	if len(pending) != 1 {
		t.Fatalf("pending: %v", pending)
	}
	p := pending[0].(map[string]any)
	next, _ := time.Parse(time.RFC3339, p["next_try"].(string))
	if p["number"] != 7.0 || p["attempts"] != 2.0 || p["last_error"] != "the authority did not answer" || p["issued_offline"] != false ||
		!next.Equal(issued.Truncate(time.Second).Add(jobs.TransmissionWait(2, jobs.FiscalRetry))) {
		t.Errorf("pending: %v", p)
	}
	if err := cliErr(t, schema, data, "fiscal", "pending", "acme", "fcu_acme_nobody"); err == nil {
		t.Error("pending of an unknown unit")
	}
	doctor := cli(t, schema, data, "doctor")
	if !strings.Contains(doctor, "nfe number 7 has waited for the authority since") ||
		!strings.Contains(doctor, "nfce number 8, given up for an offline note on") {
		t.Errorf("doctor: %s", doctor)
	}
}

// TestKilledWhileALotIsInFlight: a production server killed with SIGKILL
// while SEFAZ answers its lot (which SEFAZ has authorized), and started
// again, ends with exactly one note at SEFAZ for the sale and its
// protocol served: the note was recorded before it left, and the restarted
// server asks SEFAZ for it by its key instead of sending a second one.
func TestKilledWhileALotIsInFlight(t *testing.T) {
	t.Parallel()
	d := newSellingDomain(t)
	a := &local.Authority{}
	var arrived, release chan struct{}
	a.Answering, arrived, release = holdFirst("NFeAutorizacao4")
	srv := httptest.NewUnstartedServer(a)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.StartTLS()
	defer srv.Close()
	dir := t.TempDir()
	if err := writeLocalFiles(dir, srv.URL, srv.Certificate()); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--secrets-key-file", d.key, "--fiscal-endpoints", filepath.Join(dir, "endpoints.json"), "--ca-file", filepath.Join(dir, "ca.pem")}
	child, base := startChildWith(t, d.data, flags)
	id := d.order(t, base, `"products":[{"token":"`+d.product+`","quantity":100}],"description":"Parafusos"`, nfeGroup)
	go http.Post(base+"/generate_nf", "application/json", strings.NewReader(`{`+d.tokens()+`,"id_token":"`+id+`"}`))
	select {
	case <-arrived:
	case <-time.After(20 * time.Second):
		child.Process.Kill()
		t.Fatal("the note never reached SEFAZ")
	}
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	close(release)
	if a.Authorized() != 1 {
		t.Fatalf("SEFAZ did not authorize the lot in flight (%v)", a.Received())
	}

	child, base = startChildWith(t, d.data, flags)
	defer func() { child.Process.Kill(); child.Wait() }()
	code, m := postJSON(t, base+"/generate_nf", `{`+d.tokens()+`,"id_token":"`+id+`"}`)
	inv, _ := m["data"].(map[string]any)
	if code != 200 || inv["status"] != "AUTHORIZED" || inv["number"] != 1.0 || inv["protocol"] == "" {
		t.Fatalf("after the restart: %d %v", code, m)
	}
	sent := 0
	for _, c := range a.Received() {
		if c == "NFeAutorizacao4" {
			sent++
		}
	}
	if sent != 1 || a.Authorized() != 1 {
		t.Fatalf("SEFAZ got %d lots and holds %d notes: %v", sent, a.Authorized(), a.Received())
	}
	x, err := url.Parse(inv["xml_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := url.Parse(base)
	x.Host = b.Host
	resp, err := http.Get(x.String())
	if err != nil {
		t.Fatal(err)
	}
	proc, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(proc), "<nProt>"+inv["protocol"].(string)+"</nProt>") {
		t.Fatalf("the served XML lacks SEFAZ's protocol: %.300s", proc)
	}
}
