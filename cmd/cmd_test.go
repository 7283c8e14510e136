package cmd

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
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

	"fincom/server/accounting"
	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/store"
)

func schemaForTest(t testing.TB) string {
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
func cli(t testing.TB, schema, data string, args ...string) string {
	t.Helper()
	return cliAt(t, testDay, schema, data, args...)
}

// testDay is the day of the CLI's calendar checks in the tests (the IBS
// and CBS rates' end is a month off).
var testDay = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// cliAt is cli with the app's clock at now.
func cliAt(t testing.TB, now time.Time, schema, data string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{schema: schema, out: &out, errOut: &errOut, now: func() time.Time { return now }}
	root := newRootCmd(a)
	root.SetArgs(append(args, "--data", data))
	if err := root.Execute(); err != nil {
		t.Fatalf("fincom %s: %v (%s)", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

func cliErr(t *testing.T, schema, data string, args ...string) error {
	t.Helper()
	a := &app{schema: schema, out: &bytes.Buffer{}, errOut: &bytes.Buffer{}, now: func() time.Time { return testDay }}
	root := newRootCmd(a)
	root.SetArgs(append(args, "--data", data))
	return root.Execute()
}

func jsonOut(t testing.TB, s string) map[string]any {
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
	t.Parallel()
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
	if v := jsonOut(t, cli(t, schema, data, "unit", "set", "acme", unit, "--accountant-email", "contador@escritorio.com.br", "--json")); v["profile"].(map[string]any)["accountant_email"] != "contador@escritorio.com.br" {
		t.Fatalf("unit set --accountant-email: %v", v)
	}
	if err := cliErr(t, schema, data, "unit", "set", "acme", unit, "--accountant-email", "contador"); err == nil {
		t.Fatal("an accountant's address that is none accepted")
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
	// Re-signed by a forger's certificate, naming no CNPJ or the issuer's,
	// it is refused even where the issuer's signer is trusted.
	sig := string(signed)[strings.Index(string(signed), "<Signature") : strings.Index(string(signed), "</Signature>")+len("</Signature>")]
	for _, cn := range []string{"FALSARIO", "DISTRIBUIDORA PAULISTA DE PAPELARIA LTDA:58716523000119"} {
		forged, err := fiscal.Sign([]byte(strings.Replace(string(signed), sig, "", 1)), "NFe35170458716523000119550010000000121000123458", forgerCertificate(t, cn))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "forged.xml")
		os.WriteFile(path, forged, 0o600)
		if err := cliErr(t, schema, data, "nfe", "import", "acme", unit, path, "--ca-file", "../testdata/docread/supplier.pem"); err == nil || !strings.Contains(err.Error(), "signature does not verify") {
			t.Fatalf("a note re-signed by %s: %v", cn, err)
		}
	}
	// Its signer's own certificate chains to no ICP-Brasil root: the note
	// is taken only where the operator trusts it with --ca-file.
	if err := cliErr(t, schema, data, "nfe", "import", "acme", unit, "../testdata/docread/nfe.xml"); err == nil || !strings.Contains(err.Error(), "is not trusted") {
		t.Fatalf("a note whose signer is not trusted: %v", err)
	}
	if v := jsonOut(t, cli(t, schema, data, "nfe", "import", "acme", unit, "../testdata/docread/nfe.xml", "--ca-file", "../testdata/docread/supplier.pem", "--json")); len(v["imported"].([]any)) != 1 {
		t.Fatalf("nfe import: %v", v)
	}
	if v := jsonOut(t, cli(t, schema, data, "nfe", "import", "acme", unit, "../testdata/docread/nfe.xml", "--ca-file", "../testdata/docread/supplier.pem", "--json")); len(v["imported"].([]any)) != 0 {
		t.Fatalf("nfe imported twice: %v", v)
	}
	if err := cliErr(t, schema, data, "nfe", "import", "acme", unit, "../testdata/docread/nfse_abrasf.xml"); err == nil {
		t.Fatal("an NFS-e imported as NF-e")
	}
	// The accountant's package of the note's month holds it.
	pkg := filepath.Join(t.TempDir(), "contador.zip")
	exp := jsonOut(t, cli(t, schema, data, "export", "accountant", "acme", unit, "--month", "2017-04", "--out", pkg, "--json"))
	if r := exp["received"].(map[string]any); r["count"] != 1.0 || r["total"] != "335.50" {
		t.Fatalf("export accountant: %v", exp)
	}
	if zr, err := zip.OpenReader(pkg); err != nil || len(zr.File) != len(exp["files"].([]any)) {
		t.Fatalf("the package: %v", err)
	} else {
		zr.Close()
	}
	if err := cliErr(t, schema, data, "export", "accountant", "acme", unit, "--month", "2017-4", "--out", pkg); err == nil {
		t.Fatal("a month without its zero accepted")
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
	if v := jsonOut(t, cli(t, schema, data, "jobs", "run", "acme", "--at", "2026-12-01", "--json")); v["date"] != "2026-12-01" || len(v["jobs"].([]any)) != 5 {
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
	for i := 0; i < 1500 && base == ""; i++ {
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
	// A fiscal retry that hammers SEFAZ, or leaves a sale unsent, is refused.
	for _, d := range []string{"500ms", "11m"} {
		if err := cliErr(t, schema, data, "serve", "--addr", "127.0.0.1:0", "--fiscal-retry", d); err == nil || !strings.Contains(err.Error(), "--fiscal-retry takes 1s to 10m") {
			t.Fatalf("--fiscal-retry %s: %v", d, err)
		}
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
	t.Parallel()
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
	// A month of work around today: overdue receivables, open and paid
	// charges, issued invoices, lines to reconcile.
	a := &app{schema: schema, dataDir: data, out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}
	ds, err := a.domains()
	if err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(context.Background(), demoDomain)
	if err != nil {
		t.Fatal(err)
	}
	units, _ := db.Units(context.Background())
	overdue, err1 := db.Overdue(context.Background(), units[0].ID, store.Today(db.Now()), "", 50)
	lines, _, err2 := db.StatementLines(context.Background(), units[0].ID, "", "open", store.Page{})
	due, err3 := db.OpenReceivables(context.Background(), units[0].ID, store.Today(db.Now()), store.Today(db.Now().AddDate(0, 1, 0)))
	orders, err4 := db.LatestOrders(context.Background(), units[0].ID, 20)
	// The orders are Horizonte's: their charges and invoices go to its
	// address, none to another customer's.
	mails, err5 := db.Outbox(context.Background(), units[0].ID, 100)
	sent := 0
	for _, m := range mails {
		if strings.HasPrefix(m.Kind, "charge") || strings.HasPrefix(m.Kind, "invoice") {
			sent++
			if m.To != "financeiro@horizonte.com.br" {
				t.Errorf("the demo mails Horizonte's %s to %s", m.Kind, m.To)
			}
		}
	}
	if sent == 0 {
		t.Errorf("the demo mailed no charge or invoice: %+v", mails)
	}
	invoices := 0
	for _, o := range orders {
		if o.Invoice == "AUTHORIZED" {
			invoices++
		}
	}
	// Its books read as a small firm's: every sale made today is revenue
	// of services rendered (1250 + 2400 + 980 + 650 + 450 + 1250 + 3200,
	// paid or not, once), rent, power, internet and the accountant are
	// administrative expenses, the bank's tariff a financial one, and the
	// investment's yield the only financial income.
	today := store.Today(db.Now())
	dre, err6 := accounting.Compute(context.Background(), db, []int64{units[0].ID}, store.Date{Time: today.AddDate(0, 0, -40)},
		store.Date{Time: today.AddDate(0, 0, 40)}, store.BasisAccrual)
	books := map[string]string{}
	for _, l := range dre.Lines {
		books[l.Key] = l.Amount.StringFixed(2)
	}
	for key, want := range map[string]string{"g101": "0.00", "g102": "10180.00", "g205": "-4652.27", "g207": "-39.90", "g103": "37.15"} {
		if books[key] != want {
			t.Errorf("the demo's DRE %s = %s, want %s", key, books[key], want)
		}
	}
	// Every pairing the portal's Conciliação preselects for the demo's
	// statement is one that Conciliar accepts.
	preselected(t, a, ds, db, units[0].Token)
	release()
	ds.Close()
	if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
		t.Fatal(err)
	}
	if len(overdue) != 3 || len(lines) != 3 || !due.ChargesDue.IsPositive() || invoices != 2 {
		t.Fatalf("the demo's month: %d overdue, %d lines to reconcile, %s charges due, %d invoices", len(overdue), len(lines), due.ChargesDue, invoices)
	}
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
	t.Parallel()
	schema := schemaForTest(t)
	data := t.TempDir()
	var out safeBuffer
	root := newRootCmd(&app{schema: schema, out: &out, errOut: &safeBuffer{}})
	root.SetArgs([]string{"serve", "--test-mode", "--addr", "127.0.0.1:0", "--data", data})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	for i := 0; i < 1500 && !strings.Contains(out.String(), "listening on"); i++ {
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
	t.Parallel()
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
	t.Parallel()
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
	// Runs alone (not parallel): it sets FINCOM_NOW, which the environment holds for the whole process.
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
	t.Parallel()
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

// TestShutdownDelivers: a webhook event queued by the last request before
// a shutdown is posted before the process ends, not at its next start.
func TestShutdownDelivers(t *testing.T) {
	t.Parallel()
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
	for i := 0; i < 1500 && base == ""; i++ {
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

// serveInProcess runs `fincom serve --addr 127.0.0.1:0` with args on the
// schema in-process, and answers its base URL, what it printed, and stop,
// which ends it and answers how it ended (called at the test's end if
// not before).
func serveInProcess(t testing.TB, schema string, args ...string) (base string, out *safeBuffer, stop func() error) {
	t.Helper()
	out = &safeBuffer{}
	errOut := &safeBuffer{}
	root := newRootCmd(&app{schema: schema, out: out, errOut: errOut})
	root.SetArgs(append([]string{"serve", "--addr", "127.0.0.1:0"}, args...))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
	t.Cleanup(func() { stop() })
	re := regexp.MustCompile(`listening on (http://\S+)`)
	// Up to 15 s: --restore-missing restores before it listens.
	for i := 0; i < 1500 && base == ""; i++ {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	if base == "" {
		t.Fatalf("server did not start: %v %s %s", stop(), out.String(), errOut.String())
	}
	return base, out, stop
}

// postJSON posts body to url and answers the status and the decoded
// answer.
func postJSON(t testing.TB, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// forgerCertificate is a forger's self-signed certificate named cn (an
// ICP-Brasil-like "NAME:CNPJ" names a CNPJ), no test certificate of
// fincom's.
func forgerCertificate(t *testing.T, cn string) certs.Certificate {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: cn, Organization: []string{"ICP-Brasil"}},
		NotBefore: time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2046, 1, 1, 0, 0, 0, 0, time.UTC), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return certs.Certificate{Cert: c, Key: key}
}
