package cmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/store"
)

// TestFetchJudgesTheWholeAnswer: nfe fetch reads each document by its
// content, not its label; a document it cannot take is recorded with its
// NSU and why, the position moving on, and is taken when asked again
// (--nsu) once its signer is trusted; an answer whose NSUs do not hold is
// refused before anything of it is written.
func TestFetchJudgesTheWholeAnswer(t *testing.T) {
	t.Parallel()
	schema, data, unit, key := certifiedUnit(t)

	note := mustRead(t, "../testdata/docread/nfe.xml")
	zip := func(doc []byte) string {
		var z bytes.Buffer
		gz := gzip.NewWriter(&z)
		gz.Write(doc)
		gz.Close()
		return base64.StdEncoding.EncodeToString(z.Bytes())
	}
	summary := []byte(`<resNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.01"><chNFe>35170458716523000119550010000000121000123458</chNFe>` +
		`<CNPJ>58716523000119</CNPJ><xNome>Fornecedor Exemplo Ltda</xNome><IE>123456789</IE><dhEmi>2017-04-20T10:00:00-03:00</dhEmi><tpNF>1</tpNF>` +
		`<vNF>250.00</vNF><digVal>vFL68WETQ+mvj1aJAMDx+oVi928=</digVal><dhRecbto>2017-04-20T10:00:05-03:00</dhRecbto><nProt>135170000000001</nProt>` +
		`<cSitNFe>1</cSitNFe></resNFe>`)
	unknown := []byte(`<retConsSitNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"/>`)
	lot := func(code, ult, max string, docs ...string) string {
		l := ""
		if len(docs) > 0 {
			l = "<loteDistDFeInt>" + strings.Join(docs, "") + "</loteDistDFeInt>"
		}
		return `<retDistDFeInt xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.01"><tpAmb>2</tpAmb><verAplic>1.7.6</verAplic><cStat>` + code +
			`</cStat><xMotivo>Resposta</xMotivo><dhResp>2026-11-26T10:00:00-03:00</dhResp><ultNSU>` + ult + `</ultNSU><maxNSU>` + max + `</maxNSU>` + l + `</retDistDFeInt>`
	}
	doc := func(nsu, schema string, body []byte) string {
		return fmt.Sprintf(`<docZip NSU="%s" schema="%s">%s</docZip>`, nsu, schema, zip(body))
	}
	answers := map[string]string{
		// The note whole, labelled a summary; a document of no kind the
		// inbox reads, labelled a note; a summary.
		"<ultNSU>000000000000000</ultNSU>": lot("138", "000000000000003", "000000000000005",
			doc("000000000000001", "resNFe_v1.01.xsd", note), doc("000000000000002", "procNFe_v4.00.xsd", unknown), doc("000000000000003", "resNFe_v1.01.xsd", summary)),
		// NSUs that go backwards: nothing of this lot is written.
		"<ultNSU>000000000000003</ultNSU>":              lot("138", "000000000000002", "000000000000005", doc("000000000000004", "procNFe_v4.00.xsd", unknown)),
		"<consNSU><NSU>000000000000001</NSU></consNSU>": lot("138", "000000000000005", "000000000000005", doc("000000000000001", "procNFe_v4.00.xsd", note)),
	}
	var mu sync.Mutex
	var asked []string
	an := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		answer := ""
		for q, a := range answers {
			if bytes.Contains(body, []byte(q)) {
				mu.Lock()
				asked = append(asked, q)
				mu.Unlock()
				answer = a
			}
		}
		if answer == "" {
			http.Error(w, "unexpected", 400)
			return
		}
		io.WriteString(w, `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><nfeDistDFeInteresseResponse xmlns="http://www.portalfiscal.inf.br/nfe/wsdl/NFeDistribuicaoDFe">`+
			`<nfeDistDFeInteresseResult>`+answer+`</nfeDistDFeInteresseResult></nfeDistDFeInteresseResponse></soap:Body></soap:Envelope>`)
	}))
	an.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	an.StartTLS()
	defer an.Close()
	endpoints := filepath.Join(t.TempDir(), "endpoints.json")
	os.WriteFile(endpoints, []byte(`{"55": {"AN": {"homologacao": {"NFeDistribuicaoDFe": "`+an.URL+`/ws"}}}}`), 0o600)
	tlsOnly := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(tlsOnly, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: an.Certificate().Raw}), 0o600)
	withSupplier := filepath.Join(t.TempDir(), "ca-supplier.pem")
	os.WriteFile(withSupplier, append(mustRead(t, tlsOnly), mustRead(t, "../testdata/docread/supplier.pem")...), 0o600)
	fetch := func(extra ...string) []string {
		return append([]string{"nfe", "fetch", "acme", unit, "--fiscal-endpoints", endpoints, "--secrets-key-file", key}, extra...)
	}

	err := cliErr(t, schema, data, fetch("--ca-file", tlsOnly)...)
	if err == nil || !strings.Contains(err.Error(), "ultNSU 2 after NSU 3") {
		t.Fatalf("a lot whose NSUs go backwards: %v", err)
	}
	// The summary is in the inbox, as such.
	if inbox := inboxOf(t, schema, data, unit); len(inbox) != 1 || !inbox[0].Summary || inbox[0].Situation.String != "authorized" ||
		inbox[0].TotalValue.StringFixed(2) != "250.00" || inbox[0].SupplierName != "Fornecedor Exemplo Ltda" {
		t.Fatalf("the inbox after a summary: %+v", inbox)
	}
	refused := jsonOut(t, cli(t, schema, data, "nfe", "refused", "acme", unit, "--json"))["refused"].([]any)
	if len(refused) != 2 || refused[0].(map[string]any)["nsu"] != 1.0 || !strings.Contains(refused[0].(map[string]any)["reason"].(string), "not trusted") ||
		refused[1].(map[string]any)["nsu"] != 2.0 || !strings.Contains(refused[1].(map[string]any)["reason"].(string), "retConsSitNFe") {
		t.Fatalf("refused: %v", refused)
	}
	// Asked again once the operator trusts its signer, the note is taken
	// and its refusal lifted; the position stays where it was.
	again := jsonOut(t, cli(t, schema, data, fetch("--ca-file", withSupplier, "--nsu", "1", "--json")...))
	if imported := again["imported"].([]any); len(imported) != 1 || imported[0] != "35170458716523000119550010000000121000123458" || again["nsu"] != 3.0 {
		t.Fatalf("fetched again: %v", again)
	}
	refused = jsonOut(t, cli(t, schema, data, "nfe", "refused", "acme", unit, "--json"))["refused"].([]any)
	if len(refused) != 1 || refused[0].(map[string]any)["nsu"] != 2.0 {
		t.Fatalf("refused after fetching again: %v", refused)
	}
	// The note whole replaced its summary in the inbox.
	if inbox := inboxOf(t, schema, data, unit); len(inbox) != 1 || inbox[0].Summary || inbox[0].TotalValue.StringFixed(2) != "335.50" {
		t.Fatalf("the inbox after the note came whole: %+v", inbox)
	}
	// An authority that never answers is given up at the deadline.
	hang := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // read whole, the server notices the client leave
		<-r.Context().Done()
	}))
	hang.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	hang.StartTLS()
	defer hang.Close()
	os.WriteFile(endpoints, []byte(`{"55": {"AN": {"homologacao": {"NFeDistribuicaoDFe": "`+hang.URL+`/ws"}}}}`), 0o600)
	os.WriteFile(tlsOnly, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hang.Certificate().Raw}), 0o600)
	start := time.Now()
	if err := cliErr(t, schema, data, fetch("--ca-file", tlsOnly, "--deadline", "300ms")...); err == nil || !strings.Contains(err.Error(), "deadline") || time.Since(start) > 10*time.Second {
		t.Errorf("a silent authority: %v after %s", err, time.Since(start))
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"<ultNSU>000000000000000</ultNSU>", "<ultNSU>000000000000003</ultNSU>", "<consNSU><NSU>000000000000001</NSU></consNSU>"}; fmt.Sprint(asked) != fmt.Sprint(want) {
		t.Errorf("asked %v", asked)
	}
}

// TestFetchTakesDocumentsOneAtATime: a lot of 50 documents that each
// inflate to 4 MiB is read one document at a time, never all at once
// (the heap stays far below the 200 MiB they hold together).
func TestFetchTakesDocumentsOneAtATime(t *testing.T) {
	// Runs alone (not parallel): it measures the process's heap.
	schema, data, unit, key := certifiedUnit(t)

	// A document of no kind the inbox reads, 4 MiB inflated.
	var z bytes.Buffer
	gz := gzip.NewWriter(&z)
	io.WriteString(gz, `<resEventoX xmlns="http://www.portalfiscal.inf.br/nfe">`)
	gz.Write(bytes.Repeat([]byte(" "), 4<<20-100))
	io.WriteString(gz, `</resEventoX>`)
	gz.Close()
	big := base64.StdEncoding.EncodeToString(z.Bytes())
	var docs strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&docs, `<docZip NSU="%015d" schema="procNFe_v4.00.xsd">%s</docZip>`, i, big)
	}
	answer := `<retDistDFeInt xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.01"><tpAmb>2</tpAmb><verAplic>1.7.6</verAplic><cStat>138</cStat>` +
		`<xMotivo>Resposta</xMotivo><dhResp>2026-11-26T10:00:00-03:00</dhResp><ultNSU>000000000000050</ultNSU><maxNSU>000000000000050</maxNSU>` +
		`<loteDistDFeInt>` + docs.String() + `</loteDistDFeInt></retDistDFeInt>`
	an := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		io.WriteString(w, `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><nfeDistDFeInteresseResponse xmlns="http://www.portalfiscal.inf.br/nfe/wsdl/NFeDistribuicaoDFe">`+
			`<nfeDistDFeInteresseResult>`+answer+`</nfeDistDFeInteresseResult></nfeDistDFeInteresseResponse></soap:Body></soap:Envelope>`)
	}))
	an.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	an.StartTLS()
	defer an.Close()
	endpoints := filepath.Join(t.TempDir(), "endpoints.json")
	os.WriteFile(endpoints, []byte(`{"55": {"AN": {"homologacao": {"NFeDistribuicaoDFe": "`+an.URL+`/ws"}}}}`), 0o600)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: an.Certificate().Raw}), 0o600)

	// The heap's growth is measured, over what the test binary held
	// before (other tests' data, the fixture's), with the collector kept
	// close: on a loaded machine garbage not yet collected blurred it
	// past the limit.
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	}()
	out := jsonOut(t, cli(t, schema, data, "nfe", "fetch", "acme", unit, "--fiscal-endpoints", endpoints, "--ca-file", ca, "--secrets-key-file", key, "--json"))
	close(stop)
	wg.Wait()
	if out["nsu"] != 50.0 || len(out["refused"].([]any)) != 50 {
		t.Fatalf("fetch: nsu %v, %d refused", out["nsu"], len(out["refused"].([]any)))
	}
	if grew := peak.Load() - min(peak.Load(), before.HeapInuse); grew > 120<<20 {
		t.Errorf("the heap grew %d MiB reading 50 documents of 4 MiB", grew>>20)
	}
}

// TestImportConfirmedByTheAuthority: with the secrets key, nfe import
// asks the note's authority about it with the unit's certificate before
// it enters: a note it holds cancelled is refused, one it holds
// authorized under the same digest enters confirmed.
func TestImportConfirmedByTheAuthority(t *testing.T) {
	t.Parallel()
	schema, data, unit, key := certifiedUnit(t)

	note := string(mustRead(t, "../testdata/docread/nfe.xml"))
	prot := note[strings.Index(note, "<protNFe") : strings.Index(note, "</protNFe>")+len("</protNFe>")]
	prot = strings.Replace(prot, "<protNFe ", `<protNFe xmlns="http://www.portalfiscal.inf.br/nfe" `, 1)
	const noteKey = "35170458716523000119550010000000121000123458"
	code, reason := "101", "Cancelamento de NF-e homologado"
	var asked []string
	sp := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !bytes.Contains(body, []byte("<tpAmb>1</tpAmb><xServ>CONSULTAR</xServ><chNFe>"+noteKey+"</chNFe>")) {
			http.Error(w, "unexpected", 400)
			return
		}
		asked = append(asked, r.TLS.PeerCertificates[0].Subject.CommonName)
		io.WriteString(w, `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><nfeResultMsg xmlns="http://www.portalfiscal.inf.br/nfe/wsdl/NFeConsultaProtocolo4">`+
			`<retConsSitNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>1</tpAmb><verAplic>SP</verAplic><cStat>`+code+`</cStat>`+
			`<xMotivo>`+reason+`</xMotivo><cUF>35</cUF><dhRecbto>2026-11-26T10:00:00-03:00</dhRecbto><chNFe>`+noteKey+
			`</chNFe>`+prot+`</retConsSitNFe></nfeResultMsg></soap:Body></soap:Envelope>`)
	}))
	sp.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	sp.StartTLS()
	defer sp.Close()
	endpoints := filepath.Join(t.TempDir(), "endpoints.json")
	os.WriteFile(endpoints, []byte(`{"55": {"SP": {"producao": {"NFeConsultaProtocolo4": "`+sp.URL+`/ws"}}}}`), 0o600)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: sp.Certificate().Raw}), mustRead(t, "../testdata/docread/supplier.pem")...), 0o600)
	imp := []string{"nfe", "import", "acme", unit, "../testdata/docread/nfe.xml", "--secrets-key-file", key, "--fiscal-endpoints", endpoints, "--ca-file", ca}

	if err := cliErr(t, schema, data, imp...); err == nil || !strings.Contains(err.Error(), "does not confirm") || !strings.Contains(err.Error(), "cStat 101") {
		t.Fatalf("a note its authority holds cancelled: %v", err)
	}
	code, reason = "100", "Autorizado o uso da NF-e"
	if out := cli(t, schema, data, imp...); !strings.Contains(out, "imported "+noteKey+", confirmed by its authority") {
		t.Fatalf("confirmed: %s", out)
	}
	if len(asked) != 2 || asked[0] != "MATRIZ:11222333000181" {
		t.Errorf("asked with %v", asked)
	}
}

// certifiedUnit is a data directory with domain acme and its unit Matriz
// (CNPJ 11.222.333/0001-81, São Paulo) with an A1 certificate installed,
// sealed with the secrets key at key.
func certifiedUnit(t *testing.T) (schema, data, unit, key string) {
	t.Helper()
	schema, data = schemaForTest(t), t.TempDir()
	key = filepath.Join(t.TempDir(), "secrets.key")
	if _, err := certs.WriteKeyFile(key); err != nil {
		t.Fatal(err)
	}
	cli(t, schema, data, "domain", "create", "acme")
	unit = jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Matriz", "--cnpj", "11.222.333/0001-81", "--city-ibge", "3550308", "--json"))["unit_token"].(string)
	installTestCertificate(t, schema, data, unit, key)
	return schema, data, unit, key
}

// installTestCertificate installs a test A1 certificate of CNPJ
// 11.222.333/0001-81 on the unit of domain acme, as fincom unit cert
// takes a firm's PKCS#12 file, sealed with the secrets key at key.
func installTestCertificate(t *testing.T, schema, data, unit, key string) {
	t.Helper()
	c, err := certs.TestCertificate("Matriz", "11222333000181", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pfxBytes, err := pkcs12.Modern.Encode(c.Key, c.Cert, nil, "s3nha")
	if err != nil {
		t.Fatal(err)
	}
	pfx := filepath.Join(t.TempDir(), "a1.pfx")
	os.WriteFile(pfx, pfxBytes, 0o600)
	// The password by file, not the environment: the tests run in
	// parallel, and the environment is the process's.
	password := filepath.Join(t.TempDir(), "password")
	os.WriteFile(password, []byte("s3nha\n"), 0o600)
	cli(t, schema, data, "unit", "cert", "acme", unit, "--pfx", pfx, "--password-file", password, "--secrets-key-file", key)
}

// inboxOf is a unit's inbox as the store lists it.
func inboxOf(t *testing.T, schema, data, unit string) []store.InboxNFe {
	t.Helper()
	ds, err := store.OpenDomains(data, store.Options{Rules: billing.Rules{}, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	db, release, err := ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	u, err := db.UnitByToken(context.Background(), unit)
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := db.InboxNFes(context.Background(), u.ID, store.Page{})
	if err != nil {
		t.Fatal(err)
	}
	return list
}
