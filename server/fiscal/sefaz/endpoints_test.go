package sefaz

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestShippedTables: the embedded tables give every state an authorizer
// for both models, and each authorizer the services an NF-e's life needs,
// in both environments, as the authorities publish them.
func TestShippedTables(t *testing.T) {
	e, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	states := strings.Fields("AC AL AM AP BA CE DF ES GO MA MG MS MT PA PB PE PI PR RJ RN RO RR RS SC SE SP TO")
	for _, model := range []string{"55", "65"} {
		for _, uf := range states {
			a, err := e.Authorizer(model, uf)
			if err != nil {
				t.Fatalf("model %s %s: %v", model, uf, err)
			}
			for _, env := range []string{Homologacao, Producao} {
				for _, svc := range []string{"NFeAutorizacao4", "NFeRetAutorizacao4", "NFeConsultaProtocolo4", "NFeStatusServico4", "NFeRecepcaoEvento4", "NFeInutilizacao4"} {
					if u, err := e.Lookup(model, a, env, svc); err != nil || !strings.HasPrefix(u, "https://") {
						t.Errorf("model %s %s (%s) %s %s: %q %v", model, uf, a, env, svc, u, err)
					}
				}
			}
		}
	}
	for _, c := range []struct{ model, auth, env, svc, want string }{
		{"55", "SP", Homologacao, "NFeAutorizacao4", "https://homologacao.nfe.fazenda.sp.gov.br/ws/nfeautorizacao4.asmx"},
		{"55", "AN", Homologacao, "NFeDistribuicaoDFe", "https://hom1.nfe.fazenda.gov.br/NFeDistribuicaoDFe/NFeDistribuicaoDFe.asmx"},
		{"65", "SVRS", Homologacao, "NFeAutorizacao4", "https://nfce-homologacao.svrs.rs.gov.br/ws/NfeAutorizacao/NFeAutorizacao4.asmx"},
	} {
		if got, err := e.Lookup(c.model, c.auth, c.env, c.svc); got != c.want || err != nil {
			t.Errorf("%+v: %q %v", c, got, err)
		}
	}
	if a, _ := e.Authorizer("55", "AC"); a != "SVRS" {
		t.Errorf("AC's NF-e authorizer: %s", a)
	}
	if _, err := e.Authorizer("55", "XX"); !errors.Is(err, ErrUnknownState) {
		t.Errorf("unknown state: %v", err)
	}
	if _, err := e.Lookup("55", "SP", "teste", "NFeAutorizacao4"); !errors.Is(err, ErrBadEnvironment) {
		t.Errorf("unknown environment: %v", err)
	}
	if e.NFSe[Homologacao]["sefin"] != "https://sefin.producaorestrita.nfse.gov.br/SefinNacional" {
		t.Errorf("national NFS-e: %v", e.NFSe)
	}
}

// TestOverride: an operator's file replaces the addresses it gives and
// keeps the rest; an authorizer the tables do not name is a warning; a
// malformed file, an unknown environment or a non-URL refuses the whole
// file.
func TestOverride(t *testing.T) {
	e, _ := Load()
	warnings, err := e.Override([]byte(`{"55": {"SP": {"homologacao": {"NFeAutorizacao4": "https://127.0.0.1:8443/sp/aut"}},
		"SVX": {"producao": {"NFeStatusServico4": "https://127.0.0.1:8443/svx"}}},
		"nfse": {"homologacao": {"sefin": "https://127.0.0.1:8444/SefinNacional", "adn": "https://127.0.0.1:8444"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "SVX") {
		t.Errorf("warnings %v", warnings)
	}
	if u, _ := e.Lookup("55", "SP", Homologacao, "NFeAutorizacao4"); u != "https://127.0.0.1:8443/sp/aut" {
		t.Errorf("overridden: %s", u)
	}
	if u, _ := e.Lookup("55", "SP", Homologacao, "NFeStatusServico4"); u != "https://homologacao.nfe.fazenda.sp.gov.br/ws/nfestatusservico4.asmx" {
		t.Errorf("kept: %s", u)
	}
	if e.NFSe[Homologacao]["sefin"] != "https://127.0.0.1:8444/SefinNacional" || e.NFSe[Producao]["sefin"] != "https://sefin.nfse.gov.br/SefinNacional" {
		t.Errorf("nfse: %v", e.NFSe)
	}
	// Each Load is a copy of its own: another's override left the
	// shipped tables as they are.
	if f, _ := Load(); f.NFSe[Homologacao]["sefin"] == "https://127.0.0.1:8444/SefinNacional" {
		t.Error("an override changed the tables the next Load answers")
	} else if u, _ := f.Lookup("55", "SP", Homologacao, "NFeAutorizacao4"); u == "https://127.0.0.1:8443/sp/aut" {
		t.Error("an override changed the next Load's SP address")
	}
	for _, bad := range []string{`[]`, `{"55": {"SP": {"teste": {"NFeAutorizacao4": "https://x"}}}}`, `{"55": {"SP": {"producao": {"NFeAutorizacao4": "ftp://x"}}}}`,
		`{"57": {}}`, `{"nfse": {"producao": {"outro": "https://x"}}}`, `{"55": {"SP": {"producao": {"NFeAutorizacao4": "not a url"}}}}`} {
		if _, err := e.Override([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// TestOverrideRefusesClearText: SEFAZ traffic never goes in clear to
// another host. An address is https, or http to a loopback address (a
// local double) outside production; anything else refuses the file when
// it is read, naming the address.
func TestOverrideRefusesClearText(t *testing.T) {
	for _, c := range []struct {
		file string
		ok   bool
	}{
		{`{"55": {"SP": {"homologacao": {"NFeInutilizacao4": "http://127.0.0.1:8080/inut"}}}}`, true},
		{`{"55": {"SP": {"homologacao": {"NFeInutilizacao4": "http://[::1]:8080/inut"}}}}`, true},
		{`{"55": {"SP": {"homologacao": {"NFeInutilizacao4": "http://localhost:8080/inut"}}}}`, true},
		{`{"nfse": {"homologacao": {"sefin": "http://127.0.0.2:8080/SefinNacional"}}}`, true},
		{`{"55": {"SP": {"homologacao": {"NFeInutilizacao4": "http://sefaz.example.com/inut"}}}}`, false},
		{`{"55": {"SP": {"homologacao": {"NFeInutilizacao4": "http://10.0.0.1/inut"}}}}`, false},
		{`{"55": {"SP": {"homologacao": {"NFeInutilizacao4": "http://127.0.0.1.example.com/inut"}}}}`, false},
		{`{"55": {"SP": {"producao": {"NFeInutilizacao4": "http://127.0.0.1:8080/inut"}}}}`, false},
		{`{"nfse": {"producao": {"adn": "http://127.0.0.1:8080"}}}`, false},
		{`{"nfse": {"homologacao": {"adn": "http://adn.example.com"}}}`, false},
		{`{"55": {"SP": {"producao": {"NFeInutilizacao4": "https://sefaz.example.com/inut"}}}}`, true},
	} {
		e, _ := Load()
		_, err := e.Override([]byte(c.file))
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.file, err)
		}
		if err != nil && !strings.Contains(err.Error(), "http://") {
			t.Errorf("%s: the refusal names no address: %v", c.file, err)
		}
	}
}

// TestOverrideErrorsShowNoContent: a file that is not the addresses' JSON
// is refused saying where, never echoing what it holds.
func TestOverrideErrorsShowNoContent(t *testing.T) {
	for _, file := range []string{"root:$6$s3cr3tHash:19000:0:99999:7:::", `{"55": "s3cr3tHash"}`, `{"55": {"SP": {"homologacao": ["s3cr3tHash"]}}}`,
		`{"nfse": {"homologacao": 7}}`, `"s3cr3tHash"`} {
		e, _ := Load()
		_, err := e.Override([]byte(file))
		if err == nil || strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "root:") || strings.Contains(err.Error(), "'r'") {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// TestSVCOf: every state has its contingency authorizer in the shipped
// table (SP's SVC-AN, CE's SVC-RS), once; anything else is no state.
func TestSVCOf(t *testing.T) {
	seen := 0
	for code, uf := range ufByCode {
		tp, err := SVCOf(uf)
		if err != nil || (tp != 6 && tp != 7) {
			t.Errorf("%s (%s): %d %v", uf, code, tp, err)
		}
		seen++
	}
	if tp, _ := SVCOf("SP"); tp != 6 {
		t.Errorf("SP's SVC: %d", tp)
	}
	if tp, _ := SVCOf("CE"); tp != 7 {
		t.Errorf("CE's SVC: %d", tp)
	}
	if _, err := SVCOf("XX"); !errors.Is(err, ErrUnknownState) {
		t.Errorf("an unknown state: %v", err)
	}
	var raw struct{ SVCAN, SVCRS []string }
	b, _ := data.ReadFile("data/svc.json")
	json.Unmarshal(b, &raw)
	if n := len(raw.SVCAN) + len(raw.SVCRS); n != seen || n != 27 {
		t.Errorf("the table names %d states, the state codes %d", n, seen)
	}
}

func TestReturnText(t *testing.T) {
	for code, want := range map[int]string{100: "Autorizado o uso da NF-e", 301: "Uso Denegado: Irregularidade fiscal do emitente"} {
		if got, ok := ReturnText(code); !ok || got != want {
			t.Errorf("ReturnText(%d) = %q %v", code, got, ok)
		}
	}
	if _, ok := ReturnText(9999); ok {
		t.Error("an unknown code has a text")
	}
}
