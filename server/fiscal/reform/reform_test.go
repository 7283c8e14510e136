package reform

import (
	"strings"
	"testing"
)

// TestShippedTable: 2026's test rates, CRT 3 from 2026 and the Simples
// Nacional and MEI from 2027, every class's CST in the table.
func TestShippedTable(t *testing.T) {
	tb, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	r, ok := tb.RatesOn("2026-11-27")
	if !ok || r.CBS.String() != "0.9" || r.IBSUF.String() != "0.1" || !r.IBSMun.IsZero() {
		t.Fatalf("2026's rates = %+v, %v", r, ok)
	}
	if _, ok := tb.RatesOn("2025-12-31"); ok {
		t.Error("rates before the reform")
	}
	for _, c := range []struct {
		crt  int
		day  string
		want bool
	}{{3, "2026-01-01", true}, {3, "2025-12-31", false}, {1, "2026-12-31", false}, {1, "2027-01-01", true}, {2, "2027-01-01", true}, {4, "2027-06-01", true}} {
		if got := tb.States(c.crt, c.day); got != c.want {
			t.Errorf("States(%d, %s) = %v", c.crt, c.day, got)
		}
	}
	for code := range tb.classes {
		if _, cst, ok := tb.Class(code); !ok || cst.Name == "" {
			t.Errorf("class %s: CST %+v", code, cst)
		}
	}
	if c, cst, _ := tb.Class(DefaultClass); c.CST() != "000" || !cst.Taxed {
		t.Errorf("default class %+v %+v", c, cst)
	}
	if c, cst, _ := tb.Class(ExportClass); c.CST() != "410" || cst.Taxed {
		t.Errorf("export class %+v %+v", c, cst)
	}
}

// TestWarning: a month before the rates end, and after, the operator is
// told; not before.
func TestWarning(t *testing.T) {
	tb, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for day, warns := range map[string]bool{"2026-11-27": false, "2026-12-01": true, "2026-12-31": true, "2027-02-01": true} {
		if w := tb.Warning(day); (w != "") != warns || warns && !strings.Contains(w, "2026-12-31") {
			t.Errorf("%s: %q", day, w)
		}
	}
	if err := tb.Override([]byte(`{"rates": [{"from": "2027-01-01", "until": "2027-12-31", "cbs": "8.7", "ibs_uf": "0.05", "ibs_mun": "0.05"}]}`)); err != nil {
		t.Fatal(err)
	}
	if w := tb.Warning("2026-12-15"); w != "" {
		t.Errorf("with 2027's rates: %q", w)
	}
}

// TestCheck: the 422's field and reason for each wrong code.
func TestCheck(t *testing.T) {
	tb, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind, cst, class string
		op               string
		field, says      string
	}{
		{"product", "", "", "", "", ""},
		{"product", "000", "", "", "", ""},
		{"product", "200", "200034", "", "", ""},
		{"service", "200", "200028", "", "", ""},
		{"product", "00", "", "", "ibs_cbs_cst", "3 digits"},
		{"product", "999", "", "", "ibs_cbs_cst", "not a CST"},
		{"product", "200", "", "", "ibs_cbs_class", "needs its ibs_cbs_class"},
		{"product", "", "12345", "", "ibs_cbs_class", "6 digits"},
		{"product", "", "999999", "", "ibs_cbs_class", "not in the cClassTrib table"},
		{"product", "000", "200034", "", "ibs_cbs_class", "belongs to CST 200"},
		{"product", "", "200028", "", "ibs_cbs_class", "does not apply to a product"},
		{"service", "", "200034", "", "ibs_cbs_class", "does not apply to a service"},
		{"service", "", "", "123456", "", ""},
		{"service", "", "", "12345", "ibs_cbs_operation", "6 digits"},
		{"product", "", "", "123456", "ibs_cbs_operation", "a service's"},
	} {
		field, msg := tb.Check(c.kind, c.cst, c.class, c.op)
		if field != c.field || !strings.Contains(msg, c.says) {
			t.Errorf("Check(%s, %q, %q) = %s %q, want %s …%s…", c.kind, c.cst, c.class, field, msg, c.field, c.says)
		}
	}
}

// TestOverride: a file adds 2027's rates and a class, moves a regime, and
// a wrong file leaves the table as it was.
func TestOverride(t *testing.T) {
	tb, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	err = tb.Override([]byte(`{"rates": [{"from": "2027-01-01", "until": "2028-12-31", "cbs": "8.7", "ibs_uf": "0.05", "ibs_mun": "0.05"}],
		"csts": {"510": {"name": "Diferimento", "taxed": true}},
		"classes": [{"code": "510001", "name": "Diferimento de teste", "deferral": "100", "documents": ["nfe"]}],
		"regimes": [{"crt": [1], "from": "2028-01-01"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := tb.RatesOn("2027-03-01"); !ok || r.CBS.String() != "8.7" || r.IBSMun.String() != "0.05" {
		t.Errorf("2027 = %+v %v", r, ok)
	}
	if r, ok := tb.RatesOn("2026-03-01"); !ok || r.CBS.String() != "0.9" {
		t.Errorf("2026 kept = %+v %v", r, ok)
	}
	if c, _, ok := tb.Class("510001"); !ok || c.Deferral.String() != "100" {
		t.Errorf("class = %+v %v", c, ok)
	}
	if tb.States(1, "2027-06-01") || !tb.States(1, "2028-01-01") || !tb.States(2, "2027-01-01") {
		t.Error("the regime's date did not move")
	}
	for _, bad := range []string{
		`{`,
		`{"rates": [{"from": "2027-13-01", "until": "2027-12-31", "cbs": "1", "ibs_uf": "0", "ibs_mun": "0"}]}`,
		`{"rates": [{"from": "2027-01-01", "until": "2027-12-31", "cbs": "101", "ibs_uf": "0", "ibs_mun": "0"}]}`,
		`{"rates": [{"from": "2027-01-01", "until": "2027-12-31", "cbs": "0.00001", "ibs_uf": "0", "ibs_mun": "0"}]}`,
		`{"classes": [{"code": "777001", "name": "x", "documents": ["nfe"]}]}`,
		`{"classes": [{"code": "20003", "name": "x"}]}`,
		`{"classes": [{"code": "200099", "name": "x", "red_ibs": "-1"}]}`,
		`{"classes": [{"code": "200099", "name": "x", "documents": ["cte"]}]}`,
		`{"classes": [{"code": "200099", "name": "x", "cred_pres": {"code": "1", "ibs": "1", "cbs": "1"}}]}`,
		`{"regimes": [{"crt": [], "from": "2027-01-01"}]}`,
	} {
		before := *tb
		if err := tb.Override([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
		if len(tb.rates) != len(before.rates) || len(tb.classes) != len(before.classes) {
			t.Errorf("%s changed the table", bad)
		}
	}
}
