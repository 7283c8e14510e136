package server

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"software.sslmate.com/src/go-pkcs12"

	"fincom/server/certs"
	"fincom/store"
)

// TestPortalSetUpInBrowser is an owner setting up a bare unit in headless
// Chromium: the company and fiscal profile (the CEP filling the state),
// a wrong certificate password refused beside its field, the A1
// certificate installed and its validity shown, the PIX key. Every page
// is judged at 390 and 1280 px with axe-core (officeBrowser.judge).
func TestPortalSetUpInBrowser(t *testing.T) {
	t.Parallel()
	_, pageURL := chromium(t)
	now := fixedNow
	// Test mode: going to production asks the local SEFAZ, on loopback.
	s, ds := newTestServerAt(t, &now, Config{Version: "test", PublicURL: "http://127.0.0.1", TestMode: true})
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	db, release := acquire(t, ds)
	if _, err := db.CreateUser(context.Background(), "Bia Lima", "bia@example.com"); err != nil {
		t.Fatal(err)
	}
	bare, err := db.CreateUnit(context.Background(), store.UnitInput{Name: "Loja Nova"})
	release()
	if err != nil {
		t.Fatal(err)
	}
	c, err := certs.TestCertificate("LOJA NOVA LTDA", "11222333000181", now)
	if err != nil {
		t.Fatal(err)
	}
	pfx, err := pkcs12.Modern.Encode(c.Key, c.Cert, nil, "s3nha")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "loja-nova.pfx")
	if err := os.WriteFile(file, pfx, 0o600); err != nil {
		t.Fatal(err)
	}

	o := newOfficeBrowser(t, s, ds, ts.URL, 390, 1280)
	o.signIn(pageURL, "bia@example.com")
	p := o.p
	unit := "?unit=" + bare.Token
	set := func(sel, value string) string {
		return `(() => { const e = document.querySelector(` + jsString(sel) + `); e.value = ` + jsString(value) + `; e.dispatchEvent(new Event("input", {bubbles: true})); e.dispatchEvent(new Event("change", {bubbles: true})); })()`
	}
	notice := func(want string) {
		t.Helper()
		p.waitFor(t, `document.readyState === "complete" && document.querySelector(".notice") !== null && document.querySelector(".notice").textContent.indexOf(`+jsString(want)+`) >= 0`)
	}

	o.open("/portal/"+unit, "Visão do mês")
	o.judge("home-to-set-up")
	o.open("/portal/settings"+unit, "Configurações")
	o.judge("settings")
	p.eval(t, set("#campo-cnpj", "11222333000181"))
	p.eval(t, set("#campo-zip", "01310100"))
	p.waitFor(t, `document.querySelector("#campo-state").value === "SP"`)
	for sel, v := range map[string]string{"#campo-street": "Avenida Paulista", "#campo-number": "1000", "#campo-district": "Bela Vista",
		"#campo-city": "São Paulo", "#campo-phone": "1132221100", "#campo-ie": "ISENTO", "#campo-cnae": "4761003"} {
		p.eval(t, set(sel, v))
	}
	p.eval(t, `document.querySelector("#campo-crt").value = "1"`)
	o.submit("", "form[action^='/portal/settings/profile'] button[type=submit]")
	notice("Empresa e fiscal salvos.")
	o.judge("settings-profile-saved")

	setFile := func() {
		var node struct {
			Result struct {
				ObjectID string `json:"objectId"`
			} `json:"result"`
		}
		json.Unmarshal(p.call(t, "Runtime.evaluate", map[string]any{"expression": `document.querySelector("#campo-pfx")`}), &node)
		p.call(t, "DOM.setFileInputFiles", map[string]any{"files": []string{file}, "objectId": node.Result.ObjectID})
	}
	setFile()
	p.eval(t, set("#campo-password", "errada"))
	o.submit("", "form[action^='/portal/settings/certificate'] button[type=submit]")
	p.waitFor(t, `document.readyState === "complete" && document.querySelector("#erro-pfx") !== null`)
	if got := p.eval(t, `document.querySelector("#erro-pfx").textContent`); got != "senha do certificado incorreta." {
		t.Errorf("a wrong password says %v", got)
	}
	o.judge("settings-certificate-refused")
	setFile()
	p.eval(t, set("#campo-password", "s3nha"))
	o.submit("", "form[action^='/portal/settings/certificate'] button[type=submit]")
	notice("Certificado digital instalado.")
	if got := p.eval(t, `document.body.textContent.indexOf("válido até ") >= 0 && document.body.textContent.indexOf("LOJA NOVA LTDA") >= 0`); got != true {
		t.Error("the installed certificate is not shown")
	}

	p.eval(t, set("#campo-pix-key", "financeiro@lojanova.com.br"))
	o.submit("", "form[action^='/portal/settings/pix'] button[type=submit]")
	notice("Chave PIX salva.")
	o.judge("settings-done")
	o.open("/portal/"+unit, "Visão do mês")
	if got := p.eval(t, `document.querySelectorAll("ul.steps s").length`); got != 3.0 {
		t.Errorf("%v first steps ticked, want 3 (profile, certificate, PIX)", got)
	}
	o.judge("home-steps")

	// Production, after SEFAZ's answer is seen and confirmed.
	o.open("/portal/settings"+unit+"#ambiente", "Configurações")
	o.submit("", "form[action^='/portal/settings/environment'] button[type=submit]")
	p.waitFor(t, `document.readyState === "complete" && document.body.textContent.indexOf("Confirmar: emitir em produção") >= 0`)
	if got := p.eval(t, `document.body.textContent.indexOf("107 · Serviço em Operação") >= 0`); got != true {
		t.Error("SEFAZ's answer is not shown")
	}
	o.judge("settings-production-asked")
	o.submit("", "form[action^='/portal/settings/environment'] input[name=confirm] ~ button[type=submit]")
	notice("A unidade passou a emitir em produção")

	// Choosing Banco do Brasil behind a slot offers its wallets and asks
	// its variation, before anything is saved.
	if got := p.eval(t, `(function () {
		var v = document.querySelector("#campo-provider_c-variation").closest("[data-variation]");
		if (!v.hidden) return "variation shown for Santander";
		var bank = document.querySelector("#campo-provider_c-bank");
		bank.value = "001";
		bank.dispatchEvent(new Event("change"));
		var wallets = Array.prototype.map.call(document.querySelectorAll("#campo-provider_c-wallet option"), function (o) { return o.value; }).join(",");
		return wallets + (v.hidden ? " hidden" : " shown");
	})()`); got != "11,12,17 shown" {
		t.Errorf("Banco do Brasil chosen: %v", got)
	}
	// A bank agreement, the accountant, a seller invited.
	p.eval(t, set("#campo-provider_a-agency", "0057"))
	p.eval(t, set("#campo-provider_a-account", "12345-7"))
	o.submit("", "form[action^='/portal/settings/agreement'] input[value=provider_a] ~ button[type=submit]")
	notice("Convênio de cobrança salvo.")
	p.eval(t, set("#campo-accountant-email", "contador@escritorio.com.br"))
	o.submit("", "form[action^='/portal/settings/accountant?'] button[type=submit]")
	notice("E-mail do contador salvo.")
	p.eval(t, set("#campo-name", "Dora Vendas"))
	p.eval(t, set("#campo-email", "dora@lojanova.com.br"))
	o.submit("", "form[action^='/portal/settings/people?'] button[type=submit]")
	notice("Convite enviado para dora@lojanova.com.br")
	o.judge("settings-all")
	o.open("/portal/"+unit, "Visão do mês")
	if got := p.eval(t, `document.querySelector("ul.steps") === null`); got != true {
		t.Error("the configured unit still lists first steps")
	}
}
