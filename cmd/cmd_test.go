package cmd

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fincom/server/certs"

	"software.sslmate.com/src/go-pkcs12"
)

func schemaForTest(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// safeBuffer is written by the server goroutine and read by the test.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// cli runs the cobra root in-process and answers stdout, failing on error.
func cli(t *testing.T, schema, data string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{schema: schema, out: &out, errOut: &errOut}
	root := newRootCmd(a)
	root.SetArgs(append(args, "--data", data))
	if err := root.Execute(); err != nil {
		t.Fatalf("fincom %s: %v (%s)", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

func cliErr(t *testing.T, schema, data string, args ...string) error {
	t.Helper()
	a := &app{schema: schema, out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}
	root := newRootCmd(a)
	root.SetArgs(append(args, "--data", data))
	return root.Execute()
}

func jsonOut(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not one JSON object: %q", s)
	}
	return m
}

// TestCLIEndToEnd scripts the CLI as an operator would, then serves the
// data dir on a free port and calls the API over real HTTP.
func TestCLIEndToEnd(t *testing.T) {
	schema := schemaForTest(t)
	data := t.TempDir()

	d := jsonOut(t, cli(t, schema, data, "domain", "create", "acme", "--json"))
	access := d["access_token"].(string)
	if d["domain"] != "acme" || !strings.HasPrefix(access, "fca_acme_") {
		t.Fatalf("domain create: %v", d)
	}
	if err := cliErr(t, schema, data, "domain", "create", "Bad/Name"); err == nil {
		t.Fatal("bad domain name accepted")
	}
	u := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Matriz", "--cnpj", "11.222.333/0001-81", "--city-ibge", "3550308", "--json"))
	unit := u["unit_token"].(string)
	if u["name"] != "Matriz" || u["domain"] != "acme" {
		t.Fatalf("unit create: %v", u)
	}
	if err := cliErr(t, schema, data, "unit", "create", "acme", "--name", "X", "--city-ibge", "1234567"); err == nil {
		t.Fatal("unknown IBGE code accepted")
	}
	if err := cliErr(t, schema, data, "unit", "create", "acme", "--name", "X", "--cnpj", "11222333000182"); err == nil {
		t.Fatal("bad CNPJ accepted")
	}
	if v := jsonOut(t, cli(t, schema, data, "unit", "set", "acme", unit, "--allow-negative-stock=true", "--json")); v["allow_negative_stock"] != true {
		t.Fatalf("unit set: %v", v)
	}
	if err := cliErr(t, schema, data, "unit", "set", "acme", "fcu_acme_nope", "--allow-negative-stock"); err == nil {
		t.Fatal("unknown unit set")
	}
	units := jsonOut(t, cli(t, schema, data, "unit", "list", "acme", "--json"))
	if list := units["units"].([]any); len(list) != 1 {
		t.Fatalf("unit list: %v", units)
	}
	user := jsonOut(t, cli(t, schema, data, "user", "create", "acme", "--name", "Ana", "--email", "ana@acme.com", "--json"))
	if len(user["user_token"].(string)) != 36 {
		t.Fatalf("user create: %v", user)
	}
	// A portal sign-in link for operators without e-mail.
	if v := jsonOut(t, cli(t, schema, data, "user", "login-link", "acme", "ana@acme.com", "--public-url", "https://fincom.example", "--json")); !strings.HasPrefix(v["link"].(string), "https://fincom.example/portal/link?t=fcl_acme_") {
		t.Fatalf("user login-link: %v", v)
	}
	if err := cliErr(t, schema, data, "user", "login-link", "acme", "nobody@acme.com"); err == nil {
		t.Fatal("a link for an unknown user")
	}
	tec := jsonOut(t, cli(t, schema, data, "token", "tec", "--json"))["token_tec"].(string)
	// The sample NF-e was issued to 11.222.333/0001-81, this unit's CNPJ.
	// Changed after signing, it is refused and nothing is imported.
	signed, _ := os.ReadFile("../testdata/docread/nfe.xml")
	altered := filepath.Join(t.TempDir(), "altered.xml")
	os.WriteFile(altered, []byte(strings.Replace(string(signed), "<vNF>335.50</vNF>", "<vNF>1335.50</vNF>", 1)), 0o600)
	if err := cliErr(t, schema, data, "nfe", "import", "acme", unit, altered); err == nil || !strings.Contains(err.Error(), "signature does not verify") {
		t.Fatalf("an altered NF-e: %v", err)
	}
	if v := jsonOut(t, cli(t, schema, data, "nfe", "import", "acme", unit, "../testdata/docread/nfe.xml", "--json")); len(v["imported"].([]any)) != 1 {
		t.Fatalf("nfe import: %v", v)
	}
	if v := jsonOut(t, cli(t, schema, data, "nfe", "import", "acme", unit, "../testdata/docread/nfe.xml", "--json")); len(v["imported"].([]any)) != 0 {
		t.Fatalf("nfe imported twice: %v", v)
	}
	if err := cliErr(t, schema, data, "nfe", "import", "acme", unit, "../testdata/docread/nfse_abrasf.xml"); err == nil {
		t.Fatal("an NFS-e imported as NF-e")
	}
	second := jsonOut(t, cli(t, schema, data, "token", "create", "acme", "--json"))["access_token"].(string)
	cli(t, schema, data, "token", "revoke", "acme", second)
	if err := cliErr(t, schema, data, "token", "revoke", "acme", second); err == nil {
		t.Fatal("revoked twice")
	}
	if names := jsonOut(t, cli(t, schema, data, "domain", "list", "--json"))["domains"].([]any); len(names) != 1 || names[0] != "acme" {
		t.Fatalf("domain list: %v", names)
	}
	if v := jsonOut(t, cli(t, schema, data, "migrate", "--json")); v["schema_version"] == nil {
		t.Fatalf("migrate: %v", v)
	}
	if v := jsonOut(t, cli(t, schema, data, "jobs", "run", "acme", "--at", "2026-12-01", "--json")); v["date"] != "2026-12-01" || len(v["jobs"].([]any)) != 4 {
		t.Fatalf("jobs run: %v", v)
	}
	if v := jsonOut(t, cli(t, schema, data, "jobs", "list", "acme", "--json")); len(v["runs"].([]any)) != 2 {
		t.Fatalf("jobs list: %v", v)
	}
	if err := cliErr(t, schema, data, "jobs", "run", "acme", "--at", "1/12/2026"); err == nil {
		t.Fatal("bad --at accepted")
	}
	if v := jsonOut(t, cli(t, schema, data, "doctor", "--json")); v["status"] != "ok" {
		t.Fatalf("doctor: %v", v)
	}
	if v := jsonOut(t, cli(t, schema, data, "backup", "--all", "--dir", t.TempDir(), "--keep", "3", "--json")); len(v["files"].([]any)) != 1 {
		t.Fatalf("backup --all: %v", v)
	}
	if v := jsonOut(t, cli(t, schema, data, "version", "--json")); v["version"] != Version {
		t.Fatalf("version: %v", v)
	}

	// Serve in-process on a free port.
	var out safeBuffer
	a := &app{schema: schema, out: &out, errOut: &safeBuffer{}}
	root := newRootCmd(a)
	root.SetArgs([]string{"serve", "--addr", "127.0.0.1:0", "--data", data})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	var base string
	re := regexp.MustCompile(`listening on (http://\S+)`)
	for i := 0; i < 200 && base == ""; i++ {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	if base == "" {
		t.Fatalf("server did not start: %s", out.String())
	}
	if strings.Contains(out.String(), "TEST MODE") {
		t.Fatalf("a production server says test mode: %s", out.String())
	}
	call := func(path, body string) (int, map[string]any) {
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	tokens := fmt.Sprintf(`"access_token":%q,"unit_token":%q`, access, unit)
	if code, m := call("/insert_contact", `{`+tokens+`,"type":"legal","register":"11444777000161","socialReason":"Cliente SA"}`); code != 200 {
		t.Fatalf("insert_contact: %d %v", code, m)
	}
	if code, m := call("/get_contacts", `{`+tokens+`}`); code != 200 || len(m["data"].([]any)) != 1 {
		t.Fatalf("get_contacts: %d %v", code, m)
	}
	if code, m := call("/get_contacts", fmt.Sprintf(`{"access_token":%q,"unit_token":%q}`, second, unit)); code != 403 || m["error"] != "Invalid data" {
		t.Fatalf("revoked token: %d %v", code, m)
	}
	// Spec, Authentication 3: token_tec stands in for access_token on the
	// category median route only; on the others it is no token at all.
	if code, _ := call("/get_contacts", fmt.Sprintf(`{"token_tec":%q,"unit_token":%q}`, tec, unit)); code != 400 {
		t.Fatalf("token_tec on a unit route: %d", code)
	}
	resp, err := http.Get(base + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()

	// A second server on the same data dir is refused.
	if err := cliErr(t, schema, data, "serve", "--addr", "127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second server: %v", err)
	}
	// Backup while serving, one more contact, then restore while serving:
	// the running server swaps the file in and the contact is gone.
	bk := filepath.Join(t.TempDir(), "acme.bak")
	cli(t, schema, data, "backup", "acme", "--out", bk)
	if code, m := call("/insert_contact", `{`+tokens+`,"type":"natural_person","register":"52998224725","fullName":"Depois do Backup"}`); code != 200 {
		t.Fatalf("insert_contact: %d %v", code, m)
	}
	if out := jsonOut(t, cli(t, schema, data, "restore", "acme", "--from", bk, "--json")); out["online"] != true {
		t.Fatalf("online restore: %v", out)
	}
	if code, m := call("/get_contacts", `{`+tokens+`}`); code != 200 || len(m["data"].([]any)) != 1 {
		t.Fatalf("get_contacts after the online restore: %d %v", code, m)
	}
	// A backup of another domain is refused, and the domain keeps serving.
	other := filepath.Join(t.TempDir(), "other.bak")
	if err := os.WriteFile(other, []byte("not a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := cliErr(t, schema, data, "restore", "acme", "--from", other); err == nil {
		t.Fatal("restore of a broken file")
	}
	if code, _ := call("/get_contacts", `{`+tokens+`}`); code != 200 {
		t.Fatalf("get_contacts after a refused restore: %d", code)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	cli(t, schema, data, "restore", "acme", "--from", bk)
	if _, err := os.Stat(filepath.Join(data, "acme.db")); err != nil {
		t.Fatal(err)
	}
}

// TestDemo prepares the demo domain three times: the first run seeds it,
// the second reuses it and prints the same access token, the third mints
// a new one because the kept one was revoked.
func TestDemo(t *testing.T) {
	schema := schemaForTest(t)
	data := t.TempDir()
	token := func() string {
		t.Helper()
		var out bytes.Buffer
		a := &app{schema: schema, dataDir: data, out: &out, errOut: &bytes.Buffer{}}
		if err := a.prepareDemo(context.Background(), "127.0.0.1:8080"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "access_token: fca_demo_") || strings.Count(out.String(), "unit_token (") != 2 ||
			!strings.Contains(out.String(), "portal: http://127.0.0.1:8080/portal/") || !strings.Contains(out.String(), "http://127.0.0.1:8080/portal/link?t=fcl_demo_") {
			t.Fatalf("demo output: %s", out.String())
		}
		_, rest, _ := strings.Cut(out.String(), "access_token: ")
		tok, _, _ := strings.Cut(rest, "\n")
		return tok
	}
	first := token()
	if again := token(); again != first {
		t.Fatalf("the demo printed a new token on its second start: %s, then %s", first, again)
	}
	cli(t, schema, data, "token", "revoke", "demo", first)
	if third := token(); third == first {
		t.Fatalf("a revoked token was printed again")
	}
}

// TestServeSaysTestMode: a server in test mode says so as it starts.
func TestServeSaysTestMode(t *testing.T) {
	schema := schemaForTest(t)
	data := t.TempDir()
	var out safeBuffer
	root := newRootCmd(&app{schema: schema, out: &out, errOut: &safeBuffer{}})
	root.SetArgs([]string{"serve", "--test-mode", "--addr", "127.0.0.1:0", "--data", data})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	for i := 0; i < 200 && !strings.Contains(out.String(), "listening on"); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if !strings.Contains(out.String(), "listening on") || !strings.Contains(out.String(), "in TEST MODE") {
		t.Fatalf("serve --test-mode said: %s", out.String())
	}
}

// TestDemoLocked: a demo on a directory another fincom holds stops before
// it prints any token.
func TestDemoLocked(t *testing.T) {
	schema := schemaForTest(t)
	data := t.TempDir()
	unlock, err := lockDataDir(data)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	var out, errOut bytes.Buffer
	a := &app{schema: schema, out: &out, errOut: &errOut}
	root := newRootCmd(a)
	root.SetArgs([]string{"demo", "--data", data, "--addr", "127.0.0.1:0"})
	err = root.Execute()
	if err == nil || !strings.Contains(err.Error(), "in use by another fincom process") || strings.Contains(out.String(), "access_token") {
		t.Fatalf("demo on a locked directory: %v\n%s", err, out.String())
	}
}

// TestMissingDataDir: a read-only command on a mistyped --data says so and
// makes nothing; --version answers.
func TestMissingDataDir(t *testing.T) {
	schema := schemaForTest(t)
	missing := filepath.Join(t.TempDir(), "dat")
	for _, args := range [][]string{{"domain", "list"}, {"unit", "list", "acme"}, {"token", "list", "acme"}, {"jobs", "list", "acme"}, {"doctor"}, {"migrate"}} {
		err := cliErr(t, schema, missing, args...)
		if err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("%v: %v", args, err)
		}
		if _, err := os.Stat(missing); !os.IsNotExist(err) {
			t.Fatalf("%v made the directory", args)
		}
	}
	var out bytes.Buffer
	root := newRootCmd(&app{schema: schema, out: &out, errOut: &bytes.Buffer{}})
	root.SetArgs([]string{"--version"})
	if err := root.Execute(); err != nil || out.String() != "fincom "+Version+"\n" {
		t.Fatalf("--version: %v %q", err, out.String())
	}
}

// TestClock: FINCOM_NOW fixes the process clock.
func TestClock(t *testing.T) {
	t.Setenv("FINCOM_NOW", "2027-01-01T10:00:00-03:00")
	now, err := clock()
	if err != nil || !now().Equal(time.Date(2027, 1, 1, 13, 0, 0, 0, time.UTC)) {
		t.Fatalf("clock = %v, %v", now(), err)
	}
	t.Setenv("FINCOM_NOW", "tomorrow")
	if _, err := clock(); err == nil {
		t.Fatal("bad FINCOM_NOW accepted")
	}
}

// TestCLIBoundsInputFiles: a file the CLI reads is read up to its limit,
// never whole: a device that never ends is refused at once.
func TestCLIBoundsInputFiles(t *testing.T) {
	schema := schemaForTest(t)
	data := t.TempDir()
	cli(t, schema, data, "domain", "create", "acme", "--json")
	unit := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Matriz", "--cnpj", "11222333000181", "--json"))["unit_token"].(string)
	start := time.Now()
	err := cliErr(t, schema, data, "nfe", "import", "acme", unit, "/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("nfe import /dev/zero: %v", err)
	}
	if err := cliErr(t, schema, data, "restore", "acme", "--from", "/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("restore --from /dev/zero: %v", err)
	}
	t.Logf("refused in %v", time.Since(start).Round(time.Millisecond))
}

// TestUnitFiscalProfileAndCertificate: a unit's fiscal profile is set and
// checked flag by flag; its A1 certificate is installed from a .pfx with
// the password from a file or the environment (never the command line),
// refused when expired, of another CNPJ or opened with a wrong password,
// and its private key never reaches a domain file or a backup in clear.
func TestUnitFiscalProfileAndCertificate(t *testing.T) {
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
	if p["street"] != "Rua Vergueiro" || p["zip"] != "04101000" || p["ie"] != "ISENTO" || p["crt"] != 3.0 || p["pis_rate"] != "0.65" || p["csc_id"] != "000001" {
		t.Fatalf("profile %v", p)
	}
	for _, bad := range [][]string{{"--zip", "0410"}, {"--ie", "12A"}, {"--crt", "5"}, {"--cnae", "12"}, {"--icms-rate", "101"}, {"--street", "R"},
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
		{"wrong password", []string{"--pfx", good, "--secrets-key-file", key}, "errada", "read the certificate file"},
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
				`<xMotivo>Inutilização de número homologado</xMotivo><cUF>35</cUF><dhRecbto>2026-11-26T10:00:00-03:00</dhRecbto><nProt>135260000000003</nProt>`+
				`</infInut></retInutNFe></nfeResultMsg></soap:Body></soap:Envelope>`)
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
	os.WriteFile(endpoints, []byte(`{"55": {"SP": {"homologacao": {"NFeStatusServico4": "`+sp.URL+`/ws", "NFeConsultaProtocolo4": "`+sp.URL+`/ws", "NFeInutilizacao4": "`+sp.URL+`/ws"}}, "AN": {"homologacao": {"NFeDistribuicaoDFe": "`+sp.URL+`/ws"}}}}`), 0o600)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: sp.Certificate().Raw}), 0o600)
	st := jsonOut(t, cli(t, schema, data, "fiscal", "status", "acme", unit, "--fiscal-endpoints", endpoints, "--ca-file", ca, "--secrets-key-file", key, "--json"))
	if st["cStat"] != 107.0 || st["xMotivo"] != "Serviço em Operação" || st["authorizer"] != "SP" || len(presented) != 1 || presented[0] != "MATRIZ:11222333000181" {
		t.Errorf("fiscal status: %v, presented %v", st, presented)
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
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShutdownDelivers: a webhook event queued by the last request before
// a shutdown is posted before the process ends, not at its next start.
func TestShutdownDelivers(t *testing.T) {
	schema := schemaForTest(t)
	data := t.TempDir()
	var got atomic.Int32
	ep := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Fincom-Event") == "sales_order.created" {
			got.Add(1)
		}
	}))
	defer ep.Close()
	var out safeBuffer
	root := newRootCmd(&app{schema: schema, out: &out, errOut: &safeBuffer{}})
	root.SetArgs([]string{"serve", "--test-mode", "--addr", "127.0.0.1:0", "--data", data})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	addr := regexp.MustCompile(`listening on (http://[0-9.:]+)`)
	var base string
	for i := 0; i < 500 && base == ""; i++ {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			base = m[1] + "/api/v1"
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if base == "" {
		cancel()
		t.Fatalf("serve said: %s", out.String())
	}
	call := func(path, body string) map[string]any {
		t.Helper()
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, v)
		}
		return v
	}
	d := call("/_test/domains", `{}`)["data"].(map[string]any)
	auth := `"access_token":"` + d["access_token"].(string) + `","unit_token":"` + d["unit_token"].(string) + `"`
	call("/insert_webhook", `{`+auth+`,"url":"`+ep.URL+`/hook","events":["*"]}`)
	contact := call("/insert_contact", `{`+auth+`,"type":"natural_person","register":"52998224725","fullName":"Maria"}`)["token"].(string)
	category := call("/get_categories", `{`+auth+`,"type":"in"}`)["data"].([]any)[0].(map[string]any)["token"].(string)
	payment := call("/list_payments_method", `{`+auth+`}`)["data"].([]any)[0].(map[string]any)["token"].(string)
	call("/insert_sales_order", `{`+auth+`,"pv":{"id_token_contact":"`+contact+`","description":"Serviço","value":10},
		"faturamento":{"id_token_category":"`+category+`","estimated_payment_date":"2026-12-10"},"charge":{"payment_type":"`+payment+`"}}`)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got.Load() != 1 {
		t.Fatalf("the endpoint got %d sales_order.created posts", got.Load())
	}
}

// TestServeCAFile: serve refuses to start with a --ca-file that is not
// there or holds no certificate, saying which flag.
func TestServeCAFile(t *testing.T) {
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
}
