package cmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"fincom/server/certs"
)

// TestUnitFiscalProfileAndCertificate: a unit's fiscal profile is set and
// checked flag by flag; its A1 certificate is installed from a .pfx with
// the password from a file or the environment (never the command line),
// refused when expired, of another CNPJ or opened with a wrong password,
// and its private key never reaches a domain file or a backup in clear.
func TestUnitFiscalProfileAndCertificate(t *testing.T) {
	// Runs alone (not parallel): it reads the certificate's password from FINCOM_CERT_PASSWORD, the process's environment.
	schema := schemaForTest(t)
	data := t.TempDir()
	key := filepath.Join(t.TempDir(), "secrets.key")
	if _, err := certs.WriteKeyFile(key); err != nil {
		t.Fatal(err)
	}
	cli(t, schema, data, "domain", "create", "acme")
	unit := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Matriz", "--cnpj", "11.222.333/0001-81", "--city-ibge", "3550308",
		"--street", "Rua Vergueiro", "--number", "1000", "--district", "Paraíso", "--zip", "04101-000", "--ie", "isento", "--crt", "1", "--json"))["unit_token"].(string)
	v := jsonOut(t, cli(t, schema, data, "unit", "set", "acme", unit, "--crt", "3", "--icms-rate", "18", "--pis-rate", "0,65", "--cofins-rate", "3",
		"--csc-id", "000001", "--csc", "0123456789ABCDEF0123", "--secrets-key-file", key, "--json"))
	p := v["profile"].(map[string]any)
	if p["street"] != "Rua Vergueiro" || p["zip"] != "04101000" || p["ie"] != "ISENTO" || p["crt"] != 3.0 || p["pis_rate"] != "0.65" || p["csc_id"] != "000001" ||
		p["fiscal_environment"] != "homologacao" || p["nfse_issuer"] != "national" {
		t.Fatalf("profile %v", p)
	}
	// Production is chosen explicitly, and only with the certificate
	// installed; the rest of the profile stays.
	if err := cliErr(t, schema, data, "unit", "set", "acme", unit, "--fiscal-environment", "producao"); err == nil ||
		!strings.Contains(err.Error(), "--fiscal-environment: the unit lacks what issuing in production needs: certificate") {
		t.Fatalf("production without a certificate: %v", err)
	}
	v = jsonOut(t, cli(t, schema, data, "unit", "set", "acme", unit, "--nfse-issuer", "municipal", "--json"))
	if p := v["profile"].(map[string]any); p["fiscal_environment"] != "homologacao" || p["crt"] != 3.0 || p["nfse_issuer"] != "municipal" {
		t.Fatalf("the NFS-e issuer: %v", p)
	}
	// The NF-e's contingency is switched on and off.
	v = jsonOut(t, cli(t, schema, data, "unit", "set", "acme", unit, "--fiscal-contingency", "svc", "--json"))
	if p := v["profile"].(map[string]any); p["fiscal_contingency"] != "svc" || p["fiscal_contingency_since"] == nil {
		t.Fatalf("contingency: %v", p)
	}
	if v := jsonOut(t, cli(t, schema, data, "unit", "set", "acme", unit, "--fiscal-contingency", "epec", "--json")); v["profile"].(map[string]any)["fiscal_contingency"] != "epec" {
		t.Errorf("epec: %v", v)
	}
	if err := cliErr(t, schema, data, "unit", "set", "acme", unit, "--fiscal-contingency", "fsda"); err == nil {
		t.Error("an unknown contingency accepted")
	}
	v = jsonOut(t, cli(t, schema, data, "unit", "set", "acme", unit, "--fiscal-contingency", "off", "--json"))
	if p := v["profile"].(map[string]any); p["fiscal_contingency"] != "off" || p["fiscal_contingency_since"] != nil {
		t.Fatalf("contingency off: %v", p)
	}
	// Back to homologação: the commands below speak to test authorities.
	cli(t, schema, data, "unit", "set", "acme", unit, "--fiscal-environment", "homologacao")
	for _, bad := range [][]string{{"--fiscal-environment", "production"}, {"--nfse-issuer", "nacional"}, {"--zip", "0410"}, {"--ie", "12A"}, {"--crt", "5"}, {"--cnae", "12"}, {"--icms-rate", "101"}, {"--street", "R"},
		{"--csc", "0123456789ABCDEF0123"}} {
		if err := cliErr(t, schema, data, append([]string{"unit", "set", "acme", unit}, bad...)...); err == nil {
			t.Errorf("unit set %v accepted", bad)
		}
	}

	// Certificates as firms receive them: PKCS#12 files with a password.
	now := time.Now()
	pfx := func(name, cnpj string, at time.Time) string {
		c, err := certs.TestCertificate(name, cnpj, at)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pkcs12.Modern.Encode(c.Key, c.Cert, nil, "s3nha")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "cert.pfx")
		os.WriteFile(path, b, 0o600)
		return path
	}
	pass := filepath.Join(t.TempDir(), "pass")
	os.WriteFile(pass, []byte("s3nha\n"), 0o600)
	good := pfx("Matriz", "11222333000181", now)
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want string
	}{
		{"no secrets key", []string{"--pfx", good, "--password-file", pass}, "", "secrets-key-file"},
		{"wrong password", []string{"--pfx", good, "--secrets-key-file", key}, "errada", "password is wrong"},
		{"another firm", []string{"--pfx", pfx("Outra", "11444777000161", now), "--password-file", pass, "--secrets-key-file", key}, "", "another CNPJ"},
		{"expired", []string{"--pfx", pfx("Matriz", "11222333000181", now.AddDate(-6, 0, 0)), "--password-file", pass, "--secrets-key-file", key}, "", "expired"},
	} {
		t.Setenv("FINCOM_CERT_PASSWORD", tc.env)
		err := cliErr(t, schema, data, append([]string{"unit", "cert", "acme", unit}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	t.Setenv("FINCOM_CERT_PASSWORD", "s3nha")
	out := jsonOut(t, cli(t, schema, data, "unit", "cert", "acme", unit, "--pfx", good, "--secrets-key-file", key, "--json"))
	if out["cnpj"] != "11222333000181" {
		t.Fatalf("unit cert: %v", out)
	}
	// The key is sealed: neither the domain file nor a backup holds it.
	c, _ := certs.ReadPFX(mustRead(t, good), "s3nha")
	der, _ := x509.MarshalPKCS8PrivateKey(c.Key)
	backup := filepath.Join(t.TempDir(), "acme.db")
	cli(t, schema, data, "backup", "acme", "--out", backup)
	for _, f := range []string{filepath.Join(data, "acme.db"), backup} {
		if b := mustRead(t, f); bytes.Contains(b, der[len(der)-200:]) {
			t.Fatalf("%s holds the private key in clear", f)
		}
	}

	// fiscal status asks the unit's authorizer (SP's, pointed at a local
	// double on loopback) with the unit's certificate over mutual TLS.
	var presented []string
	sp := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, c := range r.TLS.PeerCertificates {
			presented = append(presented, c.Subject.CommonName)
		}
		body, _ := io.ReadAll(r.Body)
		if key := "35170458716523000119550010000000121000123458"; bytes.Contains(body, []byte("<xServ>CONSULTAR</xServ><chNFe>"+key+"</chNFe>")) {
			io.WriteString(w, `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><nfeResultMsg xmlns="http://www.portalfiscal.inf.br/nfe/wsdl/NFeConsultaProtocolo4">`+
				`<retConsSitNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>2</tpAmb><verAplic>SP</verAplic><cStat>217</cStat>`+
				`<xMotivo>Rejeição: NF-e não consta na base de dados da SEFAZ</xMotivo><cUF>35</cUF><dhRecbto>2026-11-26T10:00:00-03:00</dhRecbto><chNFe>`+key+
				`</chNFe></retConsSitNFe></nfeResultMsg></soap:Body></soap:Envelope>`)
			return
		}
		if bytes.Contains(body, []byte("nfeDistDFeInteresse")) {
			code, lot := "137", ""
			if bytes.Contains(body, []byte("<ultNSU>000000000000000</ultNSU>")) {
				var z bytes.Buffer
				gz := gzip.NewWriter(&z)
				gz.Write(mustRead(t, "../testdata/docread/nfe.xml"))
				gz.Close()
				code, lot = "138", `<loteDistDFeInt><docZip NSU="000000000000001" schema="procNFe_v4.00.xsd">`+base64.StdEncoding.EncodeToString(z.Bytes())+`</docZip></loteDistDFeInt>`
			}
			io.WriteString(w, `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><nfeDistDFeInteresseResponse xmlns="http://www.portalfiscal.inf.br/nfe/wsdl/NFeDistribuicaoDFe">`+
				`<nfeDistDFeInteresseResult><retDistDFeInt xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.01"><tpAmb>2</tpAmb><verAplic>1.7.6</verAplic>`+
				`<cStat>`+code+`</cStat><xMotivo>Resposta</xMotivo><dhResp>2026-11-26T10:00:00-03:00</dhResp><ultNSU>000000000000001</ultNSU>`+
				`<maxNSU>000000000000001</maxNSU>`+lot+`</retDistDFeInt></nfeDistDFeInteresseResult></nfeDistDFeInteresseResponse></soap:Body></soap:Envelope>`)
			return
		}
		if bytes.Contains(body, []byte("<xServ>INUTILIZAR</xServ>")) && bytes.Contains(body, []byte("<nNFIni>3</nNFIni><nNFFin>4</nNFFin>")) {
			io.WriteString(w, `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><nfeResultMsg xmlns="http://www.portalfiscal.inf.br/nfe/wsdl/NFeInutilizacao4">`+
				`<retInutNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><infInut><tpAmb>2</tpAmb><verAplic>SP</verAplic><cStat>102</cStat>`+
				`<xMotivo>Inutilização de número homologado</xMotivo><cUF>35</cUF><ano>`+time.Now().Format("06")+`</ano><CNPJ>11222333000181</CNPJ><mod>55</mod><serie>1</serie><nNFIni>3</nNFIni><nNFFin>4</nNFFin>`+
				`<dhRecbto>2026-11-26T10:00:00-03:00</dhRecbto><nProt>135260000000003</nProt>`+
				`</infInut></retInutNFe></nfeResultMsg></soap:Body></soap:Envelope>`)
			return
		}
		if bytes.Contains(body, []byte("<tpAmb>1</tpAmb><cUF>35</cUF><xServ>STATUS</xServ>")) {
			io.WriteString(w, `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><nfeResultMsg xmlns="http://www.portalfiscal.inf.br/nfe/wsdl/NFeStatusServico4">`+
				`<retConsStatServ xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>1</tpAmb><verAplic>SP</verAplic><cStat>107</cStat>`+
				`<xMotivo>Serviço em Operação (produção)</xMotivo><cUF>35</cUF><dhRecbto>2026-11-26T10:00:00-03:00</dhRecbto></retConsStatServ></nfeResultMsg></soap:Body></soap:Envelope>`)
			return
		}
		if r.Header.Get("Content-Type") != "application/soap+xml; charset=utf-8" || !bytes.Contains(body, []byte("<tpAmb>2</tpAmb><cUF>35</cUF><xServ>STATUS</xServ>")) {
			http.Error(w, "bad request", 400)
			return
		}
		io.WriteString(w, `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><nfeResultMsg xmlns="http://www.portalfiscal.inf.br/nfe/wsdl/NFeStatusServico4">`+
			`<retConsStatServ xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>2</tpAmb><verAplic>SP</verAplic><cStat>107</cStat>`+
			`<xMotivo>Serviço em Operação</xMotivo><cUF>35</cUF><dhRecbto>2026-11-26T10:00:00-03:00</dhRecbto></retConsStatServ></nfeResultMsg></soap:Body></soap:Envelope>`)
	}))
	sp.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	sp.StartTLS()
	defer sp.Close()
	endpoints := filepath.Join(t.TempDir(), "endpoints.json")
	os.WriteFile(endpoints, []byte(`{"55": {"SP": {"homologacao": {"NFeStatusServico4": "`+sp.URL+`/ws", "NFeConsultaProtocolo4": "`+sp.URL+`/ws", "NFeInutilizacao4": "`+sp.URL+`/ws"}, `+
		`"producao": {"NFeStatusServico4": "`+sp.URL+`/ws"}}, "AN": {"homologacao": {"NFeDistribuicaoDFe": "`+sp.URL+`/ws"}}}, `+
		`"nfse": {"homologacao": {"sefin": "`+sp.URL+`/SefinNacional"}}}`), 0o600)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	// The same file trusts the authority's TLS and the sample supplier,
	// who signs the note the distribution carries.
	supplier, _ := os.ReadFile("../testdata/docread/supplier.pem")
	os.WriteFile(ca, append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: sp.Certificate().Raw}), supplier...), 0o600)
	st := jsonOut(t, cli(t, schema, data, "fiscal", "status", "acme", unit, "--fiscal-endpoints", endpoints, "--ca-file", ca, "--secrets-key-file", key, "--json"))
	if st["contingency"] != "off" {
		t.Errorf("fiscal status does not say the unit's mode: %v", st["contingency"])
	}
	if st["cStat"] != 107.0 || st["xMotivo"] != "Serviço em Operação" || st["authorizer"] != "SP" || len(presented) != 2 || presented[0] != "MATRIZ:11222333000181" {
		t.Errorf("fiscal status: %v, presented %v", st, presented)
	}
	// A national system that answers something else is said, not a failure
	// of the command.
	if n := st["nfse"].(map[string]any); n["answered"] != false || !strings.Contains(n["error"].(string), "not one") {
		t.Errorf("fiscal status of a national system that answers HTML: %v", n)
	}
	sit := jsonOut(t, cli(t, schema, data, "fiscal", "consult", "acme", unit, "3517 0458 7165 2300 0119 5500 1000 0000 1210 0012 3458",
		"--fiscal-endpoints", endpoints, "--ca-file", ca, "--secrets-key-file", key, "--json"))
	if sit["cStat"] != 217.0 || sit["chNFe"] != "35170458716523000119550010000000121000123458" {
		t.Errorf("fiscal consult: %v", sit)
	}
	voided := jsonOut(t, cli(t, schema, data, "fiscal", "void", "acme", unit, "--from", "3", "--to", "4", "--reason", "Numeração pulada por falha do sistema",
		"--fiscal-endpoints", endpoints, "--ca-file", ca, "--secrets-key-file", key, "--json"))
	if voided["cStat"] != 102.0 || voided["nProt"] != "135260000000003" {
		t.Errorf("fiscal void: %v", voided)
	}
	fetched := jsonOut(t, cli(t, schema, data, "nfe", "fetch", "acme", unit, "--fiscal-endpoints", endpoints, "--ca-file", ca, "--secrets-key-file", key, "--json"))
	if fetched["nsu"] != 1.0 || len(fetched["imported"].([]any)) != 1 || fetched["imported"].([]any)[0] != "35170458716523000119550010000000121000123458" {
		t.Errorf("nfe fetch: %v", fetched)
	}
	if again := jsonOut(t, cli(t, schema, data, "nfe", "fetch", "acme", unit, "--fiscal-endpoints", endpoints, "--ca-file", ca, "--secrets-key-file", key, "--json")); again["cStat"] != 137.0 || again["nsu"] != 1.0 {
		t.Errorf("nfe fetch again: %v", again)
	}
	if err := cliErr(t, schema, data, "fiscal", "void", "acme", unit, "--from", "5", "--reason", "curto", "--fiscal-endpoints", endpoints,
		"--ca-file", ca, "--secrets-key-file", key); err == nil || !strings.Contains(err.Error(), "15 to 255") {
		t.Errorf("a short reason: %v", err)
	}
	if err := cliErr(t, schema, data, "fiscal", "status", "acme", unit, "--fiscal-endpoints", endpoints, "--secrets-key-file", key); err == nil {
		t.Error("an authority no root vouches for was trusted")
	}

	// The commands ask the unit's environment unless --environment says
	// another.
	cli(t, schema, data, "unit", "set", "acme", unit, "--fiscal-environment", "producao")
	if st := jsonOut(t, cli(t, schema, data, "fiscal", "status", "acme", unit, "--fiscal-endpoints", endpoints, "--ca-file", ca, "--secrets-key-file", key,
		"--json")); st["xMotivo"] != "Serviço em Operação (produção)" {
		t.Errorf("status of a unit in production: %v", st)
	}
	if st := jsonOut(t, cli(t, schema, data, "fiscal", "status", "acme", unit, "--environment", "homologacao", "--fiscal-endpoints", endpoints, "--ca-file", ca,
		"--secrets-key-file", key, "--json")); st["cStat"] != 107.0 {
		t.Errorf("status in homologação asked for: %v", st)
	}
	cli(t, schema, data, "unit", "set", "acme", unit, "--fiscal-environment", "homologacao")

	// fincom's own SEFAZ on loopback, reached through the files it writes
	// with the flags a production server takes.
	dir := t.TempDir()
	var lout safeBuffer
	lroot := newRootCmd(&app{schema: schema, out: &lout, errOut: &lout})
	lroot.SetArgs([]string{"fiscal", "local-authority", "--addr", "127.0.0.1:0", "--out", dir})
	lctx, lcancel := context.WithCancel(context.Background())
	ldone := make(chan error, 1)
	go func() { ldone <- lroot.ExecuteContext(lctx) }()
	for i := 0; i < 1500 && !strings.Contains(lout.String(), "local authority on"); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	local := jsonOut(t, cli(t, schema, data, "fiscal", "status", "acme", unit, "--fiscal-endpoints", filepath.Join(dir, "endpoints.json"),
		"--ca-file", filepath.Join(dir, "ca.pem"), "--secrets-key-file", key, "--json"))
	if n := local["nfse"].(map[string]any); local["cStat"] != 107.0 || local["authorizer"] != "SP" || n["answered"] != true || n["version"] == "" {
		t.Errorf("local authority's status: %v (%s)", local, lout.String())
	}
	// A correction letter of a note the authority never authorized is its
	// refusal (217), and the command fails; another unit's key is refused
	// before anything is sent.
	if err := cliErr(t, schema, data, "fiscal", "correct", "acme", unit, "3526 1111 2223 3300 0181 5500 1000 0000 0710 1234 5678",
		"--text", "Endereço de entrega: Rua Vergueiro, 1000", "--fiscal-endpoints", filepath.Join(dir, "endpoints.json"),
		"--ca-file", filepath.Join(dir, "ca.pem"), "--secrets-key-file", key); err == nil || !strings.Contains(err.Error(), "217") {
		t.Errorf("correction of an unknown note: %v", err)
	}
	if err := cliErr(t, schema, data, "nfe", "correct", "acme", unit, "3526 1111 2223 3300 0181 5500 1000 0000 0710 1234 5678",
		"--text", "Endereço de entrega: Rua Vergueiro, 1000", "--fiscal-endpoints", filepath.Join(dir, "endpoints.json"),
		"--ca-file", filepath.Join(dir, "ca.pem"), "--secrets-key-file", key); err == nil || !strings.Contains(err.Error(), "217") {
		t.Errorf("nfe correct of an unknown note: %v", err)
	}
	if err := cliErr(t, schema, data, "fiscal", "correct", "acme", unit, "35170458716523000119550010000000121000123458",
		"--text", "Endereço de entrega: Rua Vergueiro, 1000", "--fiscal-endpoints", filepath.Join(dir, "endpoints.json"),
		"--ca-file", filepath.Join(dir, "ca.pem"), "--secrets-key-file", key); err == nil || !strings.Contains(err.Error(), "not a key of a note of unit") {
		t.Errorf("correction of another firm's note: %v", err)
	}
	lcancel()
	if err := <-ldone; err != nil {
		t.Errorf("local authority: %v", err)
	}
	if err := cliErr(t, schema, data, "fiscal", "local-authority", "--addr", "0.0.0.0:0", "--out", dir); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a local authority on every address: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestServeCAFile: serve refuses to start with a --ca-file that is not
// there or holds no certificate, saying which flag.
func TestServeCAFile(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	bad := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(bad, []byte("not a certificate"), 0o600)
	for _, file := range []string{bad, filepath.Join(t.TempDir(), "missing.pem")} {
		root := newRootCmd(&app{schema: schema, out: &safeBuffer{}, errOut: &safeBuffer{}})
		root.SetArgs([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--ca-file", file})
		root.SilenceErrors, root.SilenceUsage = true, true
		if err := root.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), "--ca-file") {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// TestFiscalEndpoints: fincom fiscal endpoints names a state's authorizer
// and its services' addresses, as shipped or as an override file gives
// them, and refuses an unknown state or environment.
func TestFiscalEndpoints(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	data := t.TempDir()
	v := jsonOut(t, cli(t, schema, data, "fiscal", "endpoints", "--model", "55", "--state", "ac", "--json"))
	if v["authorizer"] != "SVRS" || !strings.HasPrefix(v["services"].(map[string]any)["NFeAutorizacao4"].(string), "https://nfe-homologacao.svrs.rs.gov.br/") {
		t.Errorf("AC: %v", v)
	}
	file := filepath.Join(t.TempDir(), "endpoints.json")
	os.WriteFile(file, []byte(`{"55": {"SVRS": {"homologacao": {"NFeAutorizacao4": "https://127.0.0.1:8443/svrs"}}}}`), 0o600)
	v = jsonOut(t, cli(t, schema, data, "fiscal", "endpoints", "--state", "AC", "--fiscal-endpoints", file, "--json"))
	if v["services"].(map[string]any)["NFeAutorizacao4"] != "https://127.0.0.1:8443/svrs" {
		t.Errorf("overridden: %v", v)
	}
	for _, args := range [][]string{{"--state", "XX"}, {"--state", "SP", "--environment", "teste"}} {
		if err := cliErr(t, schema, data, append([]string{"fiscal", "endpoints"}, args...)...); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	// SEFAZ traffic never goes in clear to another host: the file is
	// refused when it is read, naming the address.
	clear := filepath.Join(t.TempDir(), "clear.json")
	os.WriteFile(clear, []byte(`{"55": {"SP": {"homologacao": {"NFeInutilizacao4": "http://sefaz.example.com/inut"}}}}`), 0o600)
	if err := cliErr(t, schema, data, "fiscal", "endpoints", "--state", "SP", "--fiscal-endpoints", clear); err == nil || !strings.Contains(err.Error(), "http://sefaz.example.com/inut") {
		t.Errorf("an http address of another host: %v", err)
	}
}
