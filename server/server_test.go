package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/render"
	"fincom/server/bank"
	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/invoicing"
	"fincom/server/needs"
	"fincom/server/testmode"
	"fincom/server/web"
	"fincom/store"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixedNow is the clock of every test: golden files hold.
var fixedNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// testRender is the tests' one parse of the embedded templates, which
// their servers share as a server shares it with its services.
var testRender = sync.OnceValues(render.New)

// fixture is a prepared data directory, copied afresh for every scenario,
// and the tokens it holds by name ({{name}} in scenario bodies).
type fixture struct {
	dir    string
	schema string
	tokens map[string]string
}

var fx fixture

// testKeys is the secrets key of the tests' data: the fixture's
// certificate and CSC are sealed with it.
var testKeys = func() *certs.Keyring {
	sum := sha256.Sum256([]byte("fincom test secrets"))
	k, err := certs.NewKeyring(sum[:])
	if err != nil {
		panic(err)
	}
	return k
}()

func TestMain(m *testing.M) {
	flag.Parse()
	// The tests make hundreds of short-lived servers: collecting garbage
	// a quarter as often spends a fifth less CPU for twice the memory
	// (about 800 MB at the peak). The tests that measure the heap set
	// their own.
	debug.SetGCPercent(400)
	dir, err := os.MkdirTemp("", "fincom-fixture-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = buildFixture(dir)
	code := 1
	if err == nil {
		code = m.Run()
		closeSEFAZs()
		// Every answer the tests got must match the OpenAPI document.
		if checked, report := contractReport(); report != "" {
			fmt.Fprintf(os.Stderr, "answers that do not match testdata/openapi.json:\n%s\n", report)
			code = 1
		} else if code == 0 && checked == 0 && !testing.Short() && flag.Lookup("test.run").Value.String() == "" {
			fmt.Fprintln(os.Stderr, "openapi contract: no answer was checked")
			code = 1
		}
		// Every fiscal document the tests had authorized must satisfy the
		// official schemas and its signatures must verify.
		whole := !testing.Short() && flag.Lookup("test.run").Value.String() == ""
		if report := judgeDocuments(whole && code == 0); report != "" {
			fmt.Fprintf(os.Stderr, "fiscal documents the official schemas or xmlsec1 refuse:\n%s\n", report)
			code = 1
		}
	} else {
		fmt.Fprintln(os.Stderr, "fixture:", err)
	}
	os.RemoveAll(dir)
	needs.Tell()
	os.Exit(code)
}

// seqID makes deterministic UUIDs; series keeps the fixture's apart from a
// scenario's.
func seqID(series int) func() string {
	// Atomic: concurrent requests draw tokens at once (the insert
	// benchmark's 32 writers drew the same token now and then).
	var n atomic.Int64
	return func() string {
		return fmt.Sprintf("00000000-0000-4000-8%03d-%012d", series, n.Add(1))
	}
}

func readSchema() (string, error) {
	b, err := os.ReadFile("../schema.sql")
	return string(b), err
}

// buildFixture makes two domains: acme (units A and B, registers in A and one
// contact in B) and other (unit C), plus a technical token.
func buildFixture(dir string) error {
	ctx := context.Background()
	schema, err := readSchema()
	if err != nil {
		return err
	}
	fx = fixture{dir: dir, schema: schema, tokens: map[string]string{}}
	ds, err := store.OpenDomains(dir, store.Options{Rules: billing.Rules{}, Schema: schema, Now: func() time.Time { return fixedNow }, NewID: seqID(0)})
	if err != nil {
		return err
	}
	defer ds.Close()
	sys, err := store.OpenSystem(dir, store.DurabilityFull, func() time.Time { return fixedNow })
	if err != nil {
		return err
	}
	defer sys.Close()
	if fx.tokens["tec"], err = sys.CreateTecToken(ctx); err != nil {
		return err
	}
	must := func(name string, v string, err error) error {
		if err == nil {
			fx.tokens[name] = v
		}
		return err
	}
	for _, d := range []string{"acme", "other"} {
		if err := ds.Create(ctx, d); err != nil {
			return err
		}
	}
	acme, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		return err
	}
	defer release()
	other, release2, err := ds.Acquire(ctx, "other")
	if err != nil {
		return err
	}
	defer release2()
	unit := func(db *store.DB, name string, in store.UnitInput) (store.Unit, error) {
		u, err := db.CreateUnit(ctx, in)
		return u, must(name, u.Token, err)
	}
	a, err := unit(acme, "unitA", store.UnitInput{Name: "Acme Matriz", CNPJ: "11222333000181", CityIBGE: "3550308", IM: "1234",
		Profile: testmode.UnitProfile(testKeys)})
	if err != nil {
		return err
	}
	// Unit A signs its invoices with a test certificate, installed as an
	// operator installs a firm's A1.
	cert, err := certs.TestCertificate("Acme Matriz", "11222333000181", fixedNow)
	if err != nil {
		return err
	}
	if err := invoicing.InstallCertificate(ctx, acme, a.ID, testKeys, cert); err != nil {
		return err
	}
	b, err := unit(acme, "unitB", store.UnitInput{Name: "Acme Filial"})
	if err != nil {
		return err
	}
	if _, err := unit(other, "unitC", store.UnitInput{Name: "Other Co"}); err != nil {
		return err
	}
	steps := []func() error{
		func() error { t, err := acme.CreateAccessToken(ctx); return must("access", t, err) },
		func() error { t, err := other.CreateAccessToken(ctx); return must("otherAccess", t, err) },
		func() error {
			u, err := acme.CreateUser(ctx, "Ana Lima", "ana@acme.com.br")
			return must("user1", u.Token, err)
		},
		func() error {
			t, err := acme.CreateAccessToken(ctx)
			if err == nil {
				err = acme.RevokeAccessToken(ctx, t)
			}
			return must("revoked", t, err)
		},
		func() error {
			t, err := acme.InsertContact(ctx, a.ID, store.ContactFields{Type: "legal", Register: "11444777000161",
				SocialReason: "Alfa Comércio Ltda", FantasyName: "Alfa", Email: "contato@alfa.com.br", Phone: "1133334444",
				Address: "Rua Augusta", Number: "500", Neighborhood: "Consolação", City: "São Paulo", State: "SP", ZipCode: "01304000"})
			return must("contact1", t, err)
		},
		func() error {
			t, err := acme.InsertContact(ctx, a.ID, store.ContactFields{Type: "natural_person", Register: "52998224725",
				FullName: "Maria da Silva", Observation: "cliente antiga"})
			return must("contact2", t, err)
		},
		func() error {
			t, err := acme.InsertContact(ctx, a.ID, store.ContactFields{Type: "natural_person", Register: "11144477735", FullName: "Zé Inativo"})
			if err == nil {
				err = acme.SetContactActive(ctx, a.ID, t, false)
			}
			return must("contactInactive", t, err)
		},
		func() error {
			t, err := acme.InsertContact(ctx, b.ID, store.ContactFields{Type: "natural_person", Register: "12345678909", FullName: "Bia da Filial"})
			return must("contactB", t, err)
		},
		func() error {
			t, err := acme.InsertCategory(ctx, a.ID, store.CategoryFields{ModuleType: "in", Name: "Assinaturas", Note: "Receita recorrente", GroupCode: 102})
			return must("category1", t, err)
		},
		func() error {
			t, err := acme.InsertProject(ctx, a.ID, store.ProjectFields{Name: "Obra Centro", Budget: store.Number{Decimal: decimal.RequireFromString("12500.50")}})
			return must("project1", t, err)
		},
		func() error {
			t, err := acme.InsertProduct(ctx, a.ID, store.ProductFields{Description: "Parafuso 10mm", Type: "product", UsageType: "00",
				MonetaryValue: store.NewMoney(decimal.RequireFromString("0.35")), NCM: "73181500", CFOP: "5102", Unit: "UN"})
			return must("product1", t, err)
		},
		func() error {
			t, err := acme.InsertProduct(ctx, a.ID, store.ProductFields{Description: "Instalação", Type: "service", UsageType: "09",
				MonetaryValue: store.NewMoney(decimal.RequireFromString("150")), Unit: "H"})
			return must("service1", t, err)
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	banks, err := acme.Banks(ctx, "CB")
	if err != nil {
		return err
	}
	for _, bk := range banks {
		if bk.CodeBank == "001" {
			fx.tokens["bankBB"] = bk.Token
		}
	}
	types, err := acme.BankTypes(ctx)
	if err != nil {
		return err
	}
	fx.tokens["typeChecking"] = types[0].Token
	t, err := acme.InsertBankAccount(ctx, a.ID, store.BankAccountFields{BankToken: fx.tokens["bankBB"], BankTypeToken: types[0].Token,
		Agency: "1234", DvAgencia: "5", CurrentAccount: "99887", DvConta: "1", NickName: "BB Principal",
		OpeningBalance: store.Number{Decimal: decimal.RequireFromString("1000.10")}, OpeningBalanceDate: "2026-01-01"})
	if err := must("account1", t, err); err != nil {
		return err
	}
	// Unit A collects through all three banks, by agreements an operator
	// set (production ones: the tests' servers are not in test mode), paid
	// into account1.
	for p, ag := range bank.Samples() {
		if _, err := acme.SetAgreement(ctx, a.ID, store.Agreement{Provider: p, Bank: ag.Bank, Agency: ag.Agency, AgencyDV: ag.AgencyDV,
			Account: ag.Account, AccountDV: ag.AccountDV, Wallet: ag.Wallet, Code: ag.Code, BankAccountToken: t}); err != nil {
			return err
		}
	}
	return nil
}

// newTestServer copies the fixture into a temp dir and serves it.
func newTestServer(t testing.TB) (*Server, *store.Domains) {
	t.Helper()
	now := fixedNow
	return newTestServerAt(t, &now, Config{Version: "test", PublicURL: "https://fincom.test"})
}

// newTestModeServer is newTestServer in test mode: the simulated payer,
// authority and clock answer.
func newTestModeServer(t testing.TB) (*Server, *store.Domains) {
	t.Helper()
	now := fixedNow
	return newTestServerAt(t, &now, Config{Version: "test", PublicURL: "https://fincom.test", TestMode: true})
}

// newTestServerAt is newTestServer on a clock the test moves, with a
// configuration.
func newTestServerAt(t testing.TB, now *time.Time, cfg Config) (*Server, *store.Domains) {
	t.Helper()
	return newTestServerIn(t, t.TempDir(), now, cfg)
}

// newTestServerIn is newTestServerAt with the data in dir.
func newTestServerIn(t testing.TB, dir string, now *time.Time, cfg Config) (*Server, *store.Domains) {
	t.Helper()
	if cfg.Keyring == nil {
		cfg.Keyring = testKeys
	}
	if cfg.Render == nil {
		r, err := testRender()
		if err != nil {
			t.Fatal(err)
		}
		cfg.Render = r
	}
	entries, err := os.ReadDir(fx.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".db") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(fx.dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := store.OpenDomains(dir, store.Options{Rules: billing.Rules{}, Schema: fx.schema, Now: func() time.Time { return *now }, NewID: seqID(1)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Billing == nil {
		b, inv, err := testServices(ServiceOptions{PublicURL: cfg.PublicURL, Log: cfg.Logger, Keyring: cfg.Keyring, TestCertificates: cfg.TestMode,
			Clock: ds.DomainNow})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		cfg.Billing, cfg.Invoices = b, inv
	}
	sys, err := store.OpenSystem(dir, store.DurabilityFull, func() time.Time { return fixedNow })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ds.Close()
		sys.Close()
	})
	srv, err := New(ds, sys, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, ds
}

// call is one request of a scenario.
type call struct {
	path string
	body string
}

// scenario is one request through the real handler on a fresh copy of the
// fixture, and what it must answer.
type scenario struct {
	name   string
	method string // POST unless set
	path   string
	body   string
	before []call // run first on the same server; each must answer 200
	status int
	text   string // exact `error` (or `message` on failure) text
	golden string // testdata/<golden>.json, compared exactly
	check  func(t *testing.T, resp map[string]any)
	// files, when set, makes the request multipart: body is the metadata
	// part and each file a `files` part.
	files map[string][]byte
	// testMode serves the scenario with --test-mode's simulated parties.
	testMode bool
}

// expand replaces {{name}} with the fixture's tokens.
func expand(s string) string {
	for k, v := range fx.tokens {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return s
}

// conceal replaces the fixture's tokens by {{name}} in a response, so that
// golden files do not depend on random secrets.
func conceal(s string) string {
	keys := make([]string, 0, len(fx.tokens))
	for k := range fx.tokens {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(fx.tokens[keys[i]]) > len(fx.tokens[keys[j]]) })
	for _, k := range keys {
		s = strings.ReplaceAll(s, fx.tokens[k], "{{"+k+"}}")
	}
	return s
}

func do(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, web.Prefix+path, strings.NewReader(expand(body)))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	checkContract(method, path, []byte(expand(body)), rec)
	return rec
}

func run(t *testing.T, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			// Each scenario has a server and a data directory of its own.
			t.Parallel()
			s, _ := newTestServer(t)
			if sc.testMode {
				s, _ = newTestModeServer(t)
			}
			h := s.Handler()
			for _, c := range sc.before {
				if rec := do(h, http.MethodPost, c.path, c.body); rec.Code != http.StatusOK {
					t.Fatalf("before %s: %d %s", c.path, rec.Code, rec.Body.String())
				}
			}
			method := sc.method
			if method == "" {
				method = http.MethodPost
			}
			var rec *httptest.ResponseRecorder
			if sc.files == nil {
				rec = do(h, method, sc.path, sc.body)
			} else {
				rec = doMultipart(h, sc.path, sc.body, sc.files)
			}
			body := rec.Body.Bytes()
			if rec.Code != sc.status {
				t.Fatalf("status = %d, want %d; body %s", rec.Code, sc.status, body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			var resp map[string]any
			if err := json.Unmarshal(body, &resp); err != nil {
				t.Fatalf("answer is not a JSON object: %v: %s", err, body)
			}
			if sc.status != http.StatusOK {
				if resp["success"] != false {
					t.Errorf("success = %v on failure", resp["success"])
				}
				got, _ := resp["error"].(string)
				if got == "" {
					got, _ = resp["message"].(string)
				}
				if got != sc.text {
					t.Errorf("error text = %q, want %q", got, sc.text)
				}
			} else if resp["success"] != true {
				t.Errorf("success = %v on 200", resp["success"])
			}
			if sc.golden != "" {
				compareGolden(t, sc.golden, body)
			}
			if sc.check != nil {
				sc.check(t, resp)
			}
		})
	}
}

func compareGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		t.Fatal(err)
	}
	got := conceal(buf.String())
	path := filepath.Join("..", "testdata", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test ./server -update)", path, err)
	}
	if got != string(want) {
		t.Errorf("answer differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// post is a helper for tests that chain requests: it answers the decoded
// body and fails the test on a non-200.
func post(t *testing.T, h http.Handler, path, body string) map[string]any {
	t.Helper()
	rec := do(h, http.MethodPost, path, body)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
	}
	var out map[string]any
	if err := json.NewDecoder(io.Reader(rec.Body)).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// tokens builds the common body start.
const auth = `"access_token":"{{access}}","unit_token":"{{unitA}}"`

// doMultipart posts a multipart body: the JSON part `metadata` and files
// (name -> bytes) as parts named `files`.
func doMultipart(h http.Handler, path, metadata string, files map[string][]byte) *httptest.ResponseRecorder {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("metadata", expand(metadata))
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fw, _ := mw.CreateFormFile("files", n)
		fw.Write(files[n])
	}
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, web.Prefix+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	checkContract(http.MethodPost, path, []byte(expand(metadata)), rec)
	return rec
}

func testFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "docread", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
