package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/bank"
	"fincom/server/brdoc"
)

// TestUnitAgreementAndCNAB: the operator sets a unit's agreements, each
// field checked as its bank defines it; the CNAB commands answer what the
// routes do.
func TestUnitAgreementAndCNAB(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	data := t.TempDir()
	cli(t, schema, data, "domain", "create", "acme")
	unit := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Matriz", "--cnpj", "11.222.333/0001-81", "--json"))["unit_token"].(string)
	v := jsonOut(t, cli(t, schema, data, "unit", "agreement", "acme", unit, "--provider", "provider_a", "--agency", "0057", "--account", "12345-7",
		"--wallet", "109", "--json"))
	if v["provider"] != "provider_a" || v["bank"] != "341" || v["unit_token"] != unit || v["domain"] != "acme" {
		t.Fatalf("agreement %v", v)
	}
	cli(t, schema, data, "unit", "agreement", "acme", unit, "--provider", "provider_b", "--agency", "1234-3", "--account", "506511-9",
		"--wallet", "09", "--agreement", "4321", "--next-our-number", "500")
	for _, bad := range [][]string{
		{"--provider", "provider_a", "--agency", "0057", "--account", "12345-6", "--wallet", "109"},                       // Itaú DAC
		{"--provider", "provider_a", "--agency", "0057", "--account", "12345-7", "--wallet", "999"},                       // wallet
		{"--provider", "provider_b", "--agency", "1234-3", "--account", "506511-8", "--wallet", "09", "--agreement", "1"}, // Bradesco digit
		{"--provider", "provider_b", "--agency", "1234-0", "--account", "506511-9", "--wallet", "09", "--agreement", "1"}, // agency digit
		{"--provider", "provider_b", "--agency", "1234-3", "--account", "506511-9", "--wallet", "09"},                     // no agreement code
		{"--provider", "provider_c", "--agency", "3270", "--account", "13000123-4", "--wallet", "101", "--agreement", "12345678"},
		{"--provider", "provider_z", "--agency", "1", "--account", "1-1", "--wallet", "1"},
		{"--provider", "provider_a", "--agency", "0057", "--account", "12345-7", "--wallet", "109", "--next-our-number", "123456789"},
		// Banco do Brasil without its variation; with a 5-digit convênio;
		// Caixa with a 7-digit beneficiary code.
		{"--provider", "provider_c", "--bank", "001", "--agency", "1234-3", "--account", "123456-0", "--wallet", "17", "--agreement", "1234567"},
		{"--provider", "provider_c", "--bank", "001", "--agency", "1234-3", "--account", "123456-0", "--wallet", "17", "--agreement", "12345", "--variation", "19"},
		{"--provider", "provider_c", "--bank", "104", "--agency", "1234", "--account", "300001234-5", "--wallet", "RG", "--agreement", "1234567"},
		{"--provider", "provider_c", "--bank", "999", "--agency", "1234", "--account", "300001234-5", "--wallet", "RG"},
	} {
		if err := cliErr(t, schema, data, append([]string{"unit", "agreement", "acme", unit}, bad...)...); err == nil {
			t.Errorf("agreement %v accepted", bad)
		}
	}
	// A unit without a CNPJ in digits cannot be the beneficiary of a
	// bank's files.
	for _, cnpj := range []string{"", "12.ABC.345/01DE-35"} {
		args := []string{"unit", "create", "acme", "--name", "Filial " + cnpj, "--json"}
		if cnpj != "" {
			args = append(args, "--cnpj", cnpj)
		}
		other := jsonOut(t, cli(t, schema, data, args...))["unit_token"].(string)
		if err := cliErr(t, schema, data, "unit", "agreement", "acme", other, "--provider", "provider_a", "--agency", "0057",
			"--account", "12345-7", "--wallet", "109"); err == nil || !strings.Contains(err.Error(), "CNPJ in digits") {
			t.Errorf("agreement of a unit with CNPJ %q: %v", cnpj, err)
		}
	}
	// The unit's own PIX key enters normalized, or is refused.
	v = jsonOut(t, cli(t, schema, data, "unit", "set", "acme", unit, "--pix-key", "(11) 98888-7777", "--json"))
	if v["profile"].(map[string]any)["pix_key"] != "+5511988887777" {
		t.Errorf("unit pix key %v", v)
	}
	if err := cliErr(t, schema, data, "unit", "set", "acme", unit, "--pix-key", "529.982.247-26"); err == nil || !strings.Contains(err.Error(), "not a PIX key") {
		t.Errorf("a bad unit pix key: %v", err)
	}
	out := filepath.Join(t.TempDir(), "rem.txt")
	if err := cliErr(t, schema, data, "cnab", "remittance", "acme", unit, "--provider", "provider_a", "--out", out); err == nil ||
		!strings.Contains(err.Error(), "nothing to remit") {
		t.Errorf("empty remittance: %v", err)
	}
	if err := cliErr(t, schema, data, "cnab", "remittance", "acme", unit, "--provider", "provider_c", "--out", out); err == nil ||
		!strings.Contains(err.Error(), "fincom unit agreement acme") {
		t.Errorf("remittance without agreement: %v", err)
	}
	// Banco do Brasil behind provider_c, with its variation; its
	// sequence bound is the convênio's (10 digits for 7).
	v = jsonOut(t, cli(t, schema, data, "unit", "agreement", "acme", unit, "--provider", "provider_c", "--bank", "001", "--agency", "1234-3",
		"--account", "123456-0", "--wallet", "17", "--variation", "19", "--agreement", "1234567", "--next-our-number", "9999999999", "--json"))
	if v["provider"] != "provider_c" || v["bank"] != "001" {
		t.Fatalf("the BB agreement %v", v)
	}
	// Its return goes to the slot whose agreement is with Banco do Brasil.
	bbBank, _ := bank.ByCode("001")
	bbAg := bank.Agreement{Agency: "1234", AgencyDV: "3", Account: "00123456", AccountDV: "0", Wallet: "17", Variation: "019", Code: "1234567",
		CNPJ: "11222333000181", Name: "Matriz"}
	bbOur, _ := bbBank.OurNumber(bbAg, 9999999999)
	bbRet, err := bbBank.ReturnFile(bbAg, 1, testDay, []bank.ReturnItem{{Movement: "02", Our: bbOur, Due: testDay, Amount: decimal.NewFromInt(5)}})
	if err != nil {
		t.Fatal(err)
	}
	bbFile := filepath.Join(t.TempDir(), "bb.ret")
	os.WriteFile(bbFile, bbRet, 0o600)
	if got := cli(t, schema, data, "cnab", "return", "acme", unit, bbFile); !strings.Contains(got, "return of Banco do Brasil applied: 1 lines") ||
		!strings.Contains(got, "our-number 9999999999") {
		t.Fatalf("the BB return: %s", got)
	}

	// A return naming no charge is reported line by line; a malformed one
	// is refused at its line and column.
	b, _ := bank.ByProvider("provider_a")
	a := bank.Agreement{Agency: "0057", Account: "12345", AccountDV: "7", Wallet: "109", CNPJ: "11222333000181", Name: "Matriz"}
	o, _ := b.OurNumber(a, 9)
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	f, err := b.ReturnFile(a, 1, day, []bank.ReturnItem{{Movement: "06", Our: o, Due: day, Amount: decimal.NewFromInt(5), Paid: decimal.NewFromInt(5), Occurred: day}})
	if err != nil {
		t.Fatal(err)
	}
	ret := filepath.Join(t.TempDir(), "ret.txt")
	os.WriteFile(ret, f, 0o600)
	rep := jsonOut(t, cli(t, schema, data, "cnab", "return", "acme", unit, ret, "--json"))
	lines := rep["lines"].([]any)
	if len(lines) != 1 || lines[0].(map[string]any)["outcome"] != "unknown_charge" {
		t.Errorf("report %v", rep)
	}
	if rep := jsonOut(t, cli(t, schema, data, "cnab", "return", "acme", unit, ret, "--json")); rep["duplicate"] != true {
		t.Errorf("second import %v", rep)
	}
	// Another company's file at the same bank: refused whole, exit non-zero.
	other := a
	other.CNPJ, other.Account, other.AccountDV = "11444777000161", "54321", "3"
	if f, err = b.ReturnFile(other, 2, day, []bank.ReturnItem{{Movement: "06", Our: o, Due: day, Amount: decimal.NewFromInt(5), Paid: decimal.NewFromInt(5), Occurred: day}}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(ret, f, 0o600)
	if err := cliErr(t, schema, data, "cnab", "return", "acme", unit, ret); err == nil ||
		!strings.Contains(err.Error(), "another beneficiary: its header's inscription, account, account_dac differ") || !strings.Contains(err.Error(), "nothing was applied") {
		t.Errorf("foreign return: %v", err)
	}
	os.WriteFile(ret, []byte(strings.Replace(string(f), "\r\n3410001", "\r\n3410001X", 1)), 0o600)
	if err := cliErr(t, schema, data, "cnab", "return", "acme", unit, ret); err == nil || !strings.Contains(err.Error(), "line 2, column") {
		t.Errorf("malformed return: %v", err)
	}

	// An OFX statement of the account the agreement opened: imported once.
	var acct string
	ds, err := (&app{dataDir: data, schema: schema}).domains()
	if err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := db.UnitByToken(context.Background(), unit)
	ag, err := db.Agreement(context.Background(), u.ID, "provider_a")
	acct = ag.BankAccountToken
	release()
	ds.Close()
	if err != nil || acct == "" {
		t.Fatalf("agreement's account: %v", err)
	}
	ofx := filepath.Join("..", "server", "statement", "testdata", "itau_102_sgml.ofx")
	v = jsonOut(t, cli(t, schema, data, "ofx", "import", "acme", unit, "--bank-account", acct, ofx, "--json"))
	if v["imported"] != 3.0 || v["open"] != 3.0 {
		t.Errorf("ofx import %v", v)
	}
	v = jsonOut(t, cli(t, schema, data, "ofx", "import", "acme", unit, "--bank-account", acct, ofx, "--json"))
	if v["imported"] != 0.0 || v["repeated"] != 3.0 {
		t.Errorf("ofx import again %v", v)
	}
	if err := cliErr(t, schema, data, "ofx", "import", "acme", unit, "--bank-account", acct, ret); err == nil || !strings.Contains(err.Error(), "nothing was imported") {
		t.Errorf("a CNAB file as OFX: %v", err)
	}
}

// TestDemoOnBancoDoBrasil: `fincom demo --bank provider_a=001` puts Banco
// do Brasil behind provider_a with its sample agreement (simulated): the
// demo's boletos are BB's; a bank fincom does not collect through is
// refused before anything is made.
func TestDemoOnBancoDoBrasil(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	data := t.TempDir()
	var out bytes.Buffer
	a := &app{schema: schema, dataDir: data, out: &out, errOut: &bytes.Buffer{}}
	if err := a.prepareDemo(context.Background(), "127.0.0.1:8080", "provider_a=999"); err == nil || !strings.Contains(err.Error(), "SLOT=CODE") {
		t.Fatalf("an unknown bank: %v", err)
	}
	if err := a.prepareDemo(context.Background(), "127.0.0.1:8080", "provider_a=001"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "provider_a: Banco do Brasil (001), its sample agreement (simulated)") {
		t.Fatalf("demo output: %s", out.String())
	}
	ds, err := a.domains()
	if err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(context.Background(), demoDomain)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	units, _ := db.Units(context.Background())
	ag, err := db.Agreement(context.Background(), units[0].ID, "provider_a")
	if err != nil || ag.Bank != "001" || !ag.Simulated || ag.Variation != "019" {
		t.Fatalf("the agreement: %+v %v", ag, err)
	}
	orders, _ := db.LatestOrders(context.Background(), units[0].ID, 20)
	boletos := 0
	for _, o := range orders {
		charges, _ := db.SalesOrderCharges(context.Background(), units[0].ID, o.Token)
		for _, c := range charges {
			if c.PaymentKey == "BOLETO" && c.BoletoBarcode.Valid {
				boletos++
				if !strings.HasPrefix(c.BoletoBarcode.String, "001") || !brdoc.ValidBoleto(c.BoletoBarcode.String) {
					t.Errorf("a demo boleto not of Banco do Brasil: %s", c.BoletoBarcode.String)
				}
			}
		}
	}
	if boletos == 0 {
		t.Fatal("the demo made no boleto")
	}
}
