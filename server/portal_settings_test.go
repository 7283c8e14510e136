package server

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"software.sslmate.com/src/go-pkcs12"

	"fincom/server/certs"
	"fincom/server/settings"
	"fincom/store"
)

// uploadPFX sends the certificate section's form: the file (as pfx) and
// its password.
func (b *browser) uploadPFX(path, csrf string, pfx []byte, password string) *httptest.ResponseRecorder {
	b.t.Helper()
	return b.uploadForm(path, map[string]string{"csrf": csrf, "password": password}, "pfx", pfx)
}

// uploadForm sends a multipart form: its fields and, when given, a file
// under field.
func (b *browser) uploadForm(path string, fields map[string]string, field string, file []byte) *httptest.ResponseRecorder {
	b.t.Helper()
	if file == nil {
		return b.multipart(path, fields, field)
	}
	return b.multipart(path, fields, field, namedFile{"certificado.pfx", file})
}

// TestPortalSetsUpAUnit: in the portal alone, an owner of a bare unit
// fills its company and fiscal profile, installs its A1 certificate and
// sees its validity, and sets its PIX key, after which a new order with
// PIX is accepted; a wrong CEP, a certificate of another firm, an expired
// one and a wrong password are each refused in Portuguese beside their
// field, nothing saved; a seller's GET and POSTs are refused with nothing
// changed; no secret (the certificate's key and password, the CSC) is in
// a page, the log or the domain's file.
func TestPortalSetsUpAUnit(t *testing.T) {
	t.Parallel()
	now := fixedNow
	var logs bytes.Buffer
	s, ds := newTestServerAt(t, &now, Config{Version: "test", PublicURL: "https://fincom.test", Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	ctx := context.Background()
	db, release := acquire(t, ds)
	bare, err := db.CreateUnit(ctx, store.UnitInput{Name: "Loja Nova"})
	if err != nil {
		t.Fatal(err)
	}
	customer, err := db.InsertContact(ctx, bare.ID, store.ContactFields{Type: "natural_person", Register: "52998224725", FullName: "Maria da Silva"})
	if err != nil {
		t.Fatal(err)
	}
	item, err := db.InsertProduct(ctx, bare.ID, store.ProductFields{Description: "Consultoria", Type: "service", UsageType: "09",
		MonetaryValue: store.NewMoney(decimal.RequireFromString("200")), Unit: "H"})
	if err != nil {
		t.Fatal(err)
	}
	release()
	owner := signedIn(t, s, ds)
	seller := signedInAs(t, s, ds, "Sílvia Vendas", "silvia@acme.com.br", store.RoleSales, bare.Token)
	path := "/portal/settings?unit=" + bare.Token
	page := owner.do("GET", path, nil).Body.String()
	for _, want := range []string{"Configurações · Loja Nova", "Empresa e fiscal", "Certificado digital A1", "Chave PIX", "Nenhum certificado instalado"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the settings page lacks %q:\n%s", want, page)
		}
	}
	// The bare unit's first page lists every first step, each a link to
	// its section.
	home := owner.do("GET", "/portal/?unit="+bare.Token, nil).Body.String()
	for _, section := range []string{"empresa", "certificado", "ambiente", "pix", "banco"} {
		if !strings.Contains(home, `href="/portal/settings?unit=`+bare.Token+`#`+section+`"`) {
			t.Errorf("the bare unit's first steps do not lead to %s:\n%s", section, home)
		}
	}
	session := csrf(t, page)
	state := func() (store.Unit, store.UnitProfile) {
		t.Helper()
		db, release := acquire(t, ds)
		defer release()
		u, err := db.UnitByToken(ctx, bare.Token)
		if err != nil {
			t.Fatal(err)
		}
		p, err := db.UnitProfile(ctx, bare.ID)
		if err != nil {
			t.Fatal(err)
		}
		return u, p
	}

	// Empresa e fiscal: a CEP of another state is refused beside it.
	profile := url.Values{"csrf": {session}, "cnpj": {"11.222.333/0001-81"}, "zip": {"20040-002"}, "street": {"Av. Paulista"}, "number": {"1500"},
		"district": {"Bela Vista"}, "city": {"São Paulo"}, "state": {"SP"}, "phone": {"(11) 3333-4444"}, "ie": {"isento"}, "crt": {"1"},
		"cnae": {"6201-5/01"}, "csc-id": {"000001"}, "csc": {"CSC0123456789ABCDEFSECRET"}, "im": {"12345"}}
	rec := owner.do("POST", "/portal/settings/profile?unit="+bare.Token, profile)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-zip">o CEP é de outro estado que o da cidade.`) ||
		!strings.Contains(rec.Body.String(), `value="Av. Paulista"`) {
		t.Fatalf("a CEP of Rio for São Paulo = %d\n%s", rec.Code, rec.Body)
	}
	if u, p := state(); u.CNPJ != "" || p.Street != "" {
		t.Fatalf("a refused profile was saved: %+v %+v", u, p)
	}
	profile.Set("zip", "01310-100")
	if rec := owner.do("POST", "/portal/settings/profile?unit="+bare.Token, profile); rec.Code != http.StatusSeeOther {
		t.Fatalf("the profile = %d\n%s", rec.Code, rec.Body)
	}
	u, p := state()
	if u.CNPJ != "11222333000181" || u.CityIBGE != "3550308" || u.IM != "12345" || p.Zip != "01310100" || p.IE != "ISENTO" || p.CRT != 1 ||
		p.CNAE != "6201501" || p.Phone != "1133334444" || p.CSCID != "000001" || len(p.CSCSealed) == 0 {
		t.Fatalf("the profile saved: %+v %+v", u, p)
	}
	page = owner.do("GET", path+"&feito=perfil", nil).Body.String()
	if !strings.Contains(page, "Empresa e fiscal salvos.") || !strings.Contains(page, "CNPJ: <strong>11.222.333/0001-81</strong>") ||
		!strings.Contains(page, "CSC: <strong>salvo</strong>") || !strings.Contains(page, `value="São Paulo"`) {
		t.Fatalf("the saved profile's page:\n%s", page)
	}

	// Certificado digital A1.
	pfx := func(name, cnpj string, from time.Time, password string) []byte {
		t.Helper()
		c, err := certs.TestCertificate(name, cnpj, from)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pkcs12.Modern.Encode(c.Key, c.Cert, nil, password)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	good := pfx("LOJA NOVA LTDA", "11222333000181", now, "s3nha-do-pfx")
	certPath := "/portal/settings/certificate?unit=" + bare.Token
	for _, c := range []struct {
		name, password, want string
		file                 []byte
	}{
		{"wrong password", "errada", "senha do certificado incorreta.", good},
		{"another firm", "s3nha-do-pfx", "o certificado é da empresa de CNPJ 11.444.777/0001-61, e a unidade é do CNPJ 11.222.333/0001-81", pfx("OUTRA LTDA", "11444777000161", now, "s3nha-do-pfx")},
		{"expired", "s3nha-do-pfx", "o certificado está vencido.", pfx("LOJA NOVA LTDA", "11222333000181", now.AddDate(-6, 0, 0), "s3nha-do-pfx")},
		{"not a certificate", "s3nha-do-pfx", "o arquivo não é um certificado A1", []byte("%PDF-1.4 boleto")},
	} {
		rec := owner.uploadPFX(certPath, session, c.file, c.password)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-pfx">`+c.want) {
			t.Errorf("%s = %d\n%s", c.name, rec.Code, rec.Body)
		}
	}
	db, release = acquire(t, ds)
	if _, err := db.Certificate(ctx, bare.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused certificate was installed: %v", err)
	}
	release()
	if rec := owner.uploadPFX(certPath, session, good, "s3nha-do-pfx"); rec.Code != http.StatusSeeOther {
		t.Fatalf("the certificate = %d\n%s", rec.Code, rec.Body)
	}
	page = owner.do("GET", path+"&feito=certificado", nil).Body.String()
	if !strings.Contains(page, "Certificado digital instalado.") || !strings.Contains(page, "Instalado: <strong>LOJA NOVA LTDA") ||
		!strings.Contains(page, "CNPJ 11.222.333/0001-81 · válido até ") {
		t.Fatalf("the installed certificate's page:\n%s", page)
	}
	if units := owner.do("GET", "/portal/units", nil).Body.String(); !strings.Contains(units, "Certificado digital A1: LOJA NOVA LTDA") {
		t.Error("the units page does not show the certificate")
	}

	// Chave PIX: a new order with PIX is refused until the unit has one.
	newOrder := func() *httptest.ResponseRecorder {
		page := owner.do("GET", "/portal/new-order?unit="+bare.Token, nil).Body.String()
		return owner.do("POST", "/portal/new-order?unit="+bare.Token, url.Values{"csrf": {csrf(t, page)}, "contact": {customer}, "item": {item},
			"quantity": {"2"}, "date": {"2026-12-10"}, "method": {payPix}, "installments": {"1"}, "charge": {"1"}})
	}
	if rec := newOrder(); rec.Code != 400 || !strings.Contains(rec.Body.String(), "um proprietário a informa em Configurações da unidade, Chave PIX") {
		t.Fatalf("a PIX order without the unit's key = %d\n%s", rec.Code, rec.Body)
	}
	pixPath := "/portal/settings/pix?unit=" + bare.Token
	if rec := owner.do("POST", pixPath, url.Values{"csrf": {session}, "pix-key": {"529.982.247-26"}}); rec.Code != 400 ||
		!strings.Contains(rec.Body.String(), `id="erro-pix-key">não é uma chave PIX`) || !strings.Contains(rec.Body.String(), `value="529.982.247-26"`) {
		t.Fatalf("a CPF with wrong digits as the key = %d\n%s", rec.Code, rec.Body)
	}
	if rec := owner.do("POST", pixPath, url.Values{"csrf": {session}, "pix-key": {"11.222.333/0001-81"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("the PIX key = %d\n%s", rec.Code, rec.Body)
	}
	if _, p := state(); p.PixKey != "11222333000181" {
		t.Fatalf("the PIX key saved: %q", p.PixKey)
	}
	if page := owner.do("GET", path, nil).Body.String(); !strings.Contains(page, "Chave da unidade: <strong>11.222.333/0001-81</strong>") {
		t.Fatalf("the key is not shown formatted:\n%s", page)
	}
	if rec := newOrder(); rec.Code != http.StatusSeeOther {
		t.Fatalf("a PIX order with the unit's key = %d\n%s", rec.Code, rec.Body)
	}

	// A seller neither reads nor sends any section; nothing changes.
	unitBefore, profileBefore := state()
	if rec := seller.do("GET", path, nil); rec.Code != http.StatusForbidden || strings.Contains(rec.Body.String(), "CSC") {
		t.Errorf("the seller's settings page = %d", rec.Code)
	}
	sellerCSRF := csrf(t, seller.do("GET", "/portal/profile", nil).Body.String())
	profile.Set("csrf", sellerCSRF)
	profile.Set("street", "Rua do Vendedor")
	for _, rec := range []*httptest.ResponseRecorder{
		seller.do("POST", "/portal/settings/profile?unit="+bare.Token, profile),
		seller.do("POST", pixPath, url.Values{"csrf": {sellerCSRF}, "pix-key": {"vendedor@acme.com.br"}}),
		seller.uploadPFX(certPath, sellerCSRF, pfx("LOJA NOVA LTDA", "11222333000181", now.AddDate(0, 0, -1), "x"), "x"),
	} {
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "não permite esta alteração") {
			t.Errorf("a seller's POST = %d", rec.Code)
		}
	}
	if u, p := state(); u != unitBefore || p.Street != profileBefore.Street || p.PixKey != profileBefore.PixKey {
		t.Error("a seller's POST changed the unit")
	}
	if units := seller.do("GET", "/portal/units", nil).Body.String(); strings.Contains(units, "/portal/settings?") {
		t.Error("the seller is offered the settings")
	}

	// Each change is audited under the owner.
	db, release = acquire(t, ds)
	entries, _, err := db.AuditLog(ctx, bare.ID, "settings", store.Page{Number: 1, Size: 50})
	release()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 || entries[0].Actor != "user:Bia <bia@example.com>" {
		t.Fatalf("audit of the settings: %+v", entries)
	}
	// What changed, before and after; a secret only that it changed.
	for i, want := range []string{"pix-key: — → 11222333000181", "certificate: LOJA NOVA LTDA:11222333000181 · valid until ",
		"cnpj: — → 11222333000181; city-ibge: — → 3550308; im: — → 12345; street: — → Av. Paulista;"} {
		if !strings.Contains(entries[i].Record.String, want) {
			t.Errorf("audit entry %d is %q, want %q in it", i, entries[i].Record.String, want)
		}
	}
	if !strings.Contains(entries[2].Record.String, "csc: changed") || strings.Contains(entries[2].Record.String, "SECRET") {
		t.Errorf("the CSC's audit: %q", entries[2].Record.String)
	}

	// No secret in clear: not in a page, the log, the domain's file.
	c, _ := certs.ReadPFX(good, "s3nha-do-pfx")
	key, _ := x509.MarshalPKCS8PrivateKey(c.Key)
	key = key[len(key)-200:]
	var files []byte
	for _, name := range []string{"acme.db", "acme.db-wal"} {
		b, _ := os.ReadFile(filepath.Join(ds.Dir(), name))
		files = append(files, b...)
	}
	page = owner.do("GET", path, nil).Body.String()
	for _, secret := range []string{"s3nha-do-pfx", "CSC0123456789ABCDEFSECRET"} {
		if strings.Contains(page, secret) || strings.Contains(logs.String(), secret) || bytes.Contains(files, []byte(secret)) {
			t.Errorf("%q is in clear", secret)
		}
	}
	if bytes.Contains(files, key) {
		t.Error("the certificate's private key is in clear in the domain's file")
	}
}

// TestPortalSettingsAccountant: an owner names the unit's accountant
// (a malformed address refused beside its field) and sends this month's
// package at once: the outbox holds it, the ZIP attached, once for a
// second click; without an address the send is refused.
func TestPortalSettingsAccountant(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	session := csrf(t, b.do("GET", "/portal/settings"+unit, nil).Body.String())
	send := func() *httptest.ResponseRecorder {
		return b.do("POST", "/portal/settings/accountant/send"+unit, url.Values{"csrf": {session}})
	}
	if rec := send(); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-accountant-email">informe e salve o e-mail do contador`) {
		t.Fatalf("a send without an address = %d\n%s", rec.Code, rec.Body)
	}
	if rec := b.do("POST", "/portal/settings/accountant"+unit, url.Values{"csrf": {session}, "accountant-email": {"contador@"}}); rec.Code != 400 ||
		!strings.Contains(rec.Body.String(), `id="erro-accountant-email">e-mail inválido.`) {
		t.Fatalf("a malformed address = %d\n%s", rec.Code, rec.Body)
	}
	if rec := b.do("POST", "/portal/settings/accountant"+unit, url.Values{"csrf": {session}, "accountant-email": {"contador@escritorio.com.br"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("the address = %d\n%s", rec.Code, rec.Body)
	}
	if units := b.do("GET", "/portal/units", nil).Body.String(); !strings.Contains(units, "enviado todo dia 5 para contador@escritorio.com.br") {
		t.Error("the units page does not name the accountant")
	}
	for range 2 {
		if rec := send(); rec.Code != http.StatusSeeOther {
			t.Fatalf("send = %d\n%s", rec.Code, rec.Body)
		}
	}
	db, release := acquire(t, ds)
	mails, err := db.Outbox(context.Background(), store.EveryUnit, 20)
	release()
	if err != nil {
		t.Fatal(err)
	}
	var packages []store.Mail
	for _, m := range mails {
		if m.Kind == "accountant_package" {
			packages = append(packages, m)
		}
	}
	if len(packages) != 1 || packages[0].To != "contador@escritorio.com.br" || packages[0].Subject != "Pacote do contador · Acme Matriz · 2026-11" ||
		len(packages[0].Attachments) != 1 || packages[0].Attachments[0].Name != "contador-2026-11.zip" {
		t.Fatalf("the packages queued: %+v", packages)
	}
}

// TestPortalGoesToProduction: an owner switches a configured unit to
// produção after seeing its SEFAZ's status, and back; a unit without its
// certificate is refused, naming it, and stays in homologação; the
// contingency mode is chosen in words.
func TestPortalGoesToProduction(t *testing.T) {
	t.Parallel()
	s, ds := newTestModeServer(t)
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	page := b.do("GET", "/portal/settings"+unit, nil).Body.String()
	if !strings.Contains(page, "A unidade emite em <strong>homologação</strong>") {
		t.Fatalf("the environment section:\n%s", page)
	}
	session := csrf(t, page)
	env := func(values url.Values) *httptest.ResponseRecorder {
		values.Set("csrf", session)
		return b.do("POST", "/portal/settings/environment"+unit, values)
	}
	environment := func() string {
		db, release := acquire(t, ds)
		defer release()
		p, err := db.UnitProfile(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		return p.FiscalEnvironment
	}
	// A unit without its certificate: refused, naming it, before SEFAZ
	// is asked.
	db, release := acquire(t, ds)
	bare, err := db.CreateUnit(context.Background(), store.UnitInput{Name: "Filial Nova", CNPJ: "11222333000262", CityIBGE: "3550308",
		Profile: store.UnitProfile{Street: "Rua A", Number: "1", District: "Centro", Zip: "01310100", IE: "ISENTO", CRT: 1}})
	release()
	if err != nil {
		t.Fatal(err)
	}
	for _, confirm := range []string{"", "1"} {
		rec := b.do("POST", "/portal/settings/environment?unit="+bare.Token, url.Values{"csrf": {session}, "environment": {"producao"}, "confirm": {confirm}})
		if rec.Code != 400 ||
			!strings.Contains(rec.Body.String(), `id="erro-fiscal-environment">a unidade ainda não pode emitir em produção: falta o certificado digital A1.`) {
			t.Fatalf("production without a certificate (confirm %q) = %d\n%s", confirm, rec.Code, rec.Body)
		}
	}
	db, release = acquire(t, ds)
	p, err := db.UnitProfile(context.Background(), bare.ID)
	release()
	if err != nil || p.FiscalEnvironment != store.Homologacao {
		t.Fatalf("the refused unit is in %q (%v)", p.FiscalEnvironment, err)
	}
	// Asked first: SEFAZ's answer, and a confirmation.
	rec := env(url.Values{"environment": {"producao"}})
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "SEFAZ de produção (SP): 107 · Serviço em Operação") ||
		!strings.Contains(rec.Body.String(), "Confirmar: emitir em produção") || environment() != store.Homologacao {
		t.Fatalf("the status asked = %d\n%s", rec.Code, rec.Body)
	}
	if rec := env(url.Values{"environment": {"producao"}, "confirm": {"1"}}); rec.Code != http.StatusSeeOther || environment() != store.Producao {
		t.Fatalf("the confirmation = %d %s", rec.Code, environment())
	}
	// Configured (its profile, certificate, bank agreements, now
	// production, and its PIX key), the unit has no first steps left.
	if rec := b.do("POST", "/portal/settings/pix"+unit, url.Values{"csrf": {session}, "pix-key": {"pix@acme.com.br"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("the PIX key = %d", rec.Code)
	}
	if home := b.do("GET", "/portal/"+unit, nil).Body.String(); strings.Contains(home, "Primeiros passos") || !strings.Contains(home, "Configurações da unidade") {
		t.Errorf("the configured unit's first page:\n%s", home)
	}
	if page := b.do("GET", "/portal/settings"+unit+"&feito=producao", nil).Body.String(); !strings.Contains(page, "A unidade passou a emitir em produção") ||
		!strings.Contains(page, "Voltar para homologação") {
		t.Fatalf("the page in production:\n%s", page)
	}
	if rec := env(url.Values{"environment": {"homologacao"}}); rec.Code != http.StatusSeeOther || environment() != store.Homologacao {
		t.Fatalf("back to homologação = %d %s", rec.Code, environment())
	}
	// The contingency mode.
	if rec := b.do("POST", "/portal/settings/contingency"+unit, url.Values{"csrf": {session}, "contingency": {"svc"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("SVC = %d\n%s", rec.Code, rec.Body)
	}
	if page := b.do("GET", "/portal/settings"+unit, nil).Body.String(); !strings.Contains(page, `value="svc" checked`) || !strings.Contains(page, "Em contingência desde 22/11/2026") {
		t.Fatalf("the page in SVC:\n%s", page)
	}
	if rec := b.do("POST", "/portal/settings/contingency"+unit, url.Values{"csrf": {session}, "contingency": {"desligar"}}); rec.Code != 400 ||
		!strings.Contains(rec.Body.String(), `id="erro-fiscal-contingency">escolha desligada, SVC ou EPEC.`) {
		t.Fatalf("an unknown mode = %d\n%s", rec.Code, rec.Body)
	}
}

// TestPortalConnectsPSP: an owner connects the unit to its PSP from the
// portal, the connection tried at once as fincom unit psp tries it: an
// http address and a wrong secret are refused beside their fields (the
// PSP's answer shown), nothing saved; the secret is never shown again;
// saving again with it blank keeps it; the connection is removed.
func TestPortalConnectsPSP(t *testing.T) {
	t.Parallel()
	r := newPSPRig(t)
	b := signedIn(t, r.s, r.ds)
	unit := "?unit=" + fx.tokens["unitA"]
	session := csrf(t, b.do("GET", "/portal/settings"+unit, nil).Body.String())
	c, err := certs.TestCertificate("Acme Matriz", "11222333000181", fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	pfx, err := pkcs12.Modern.Encode(c.Key, c.Cert, nil, "s3nha-psp")
	if err != nil {
		t.Fatal(err)
	}
	fields := func(change map[string]string) map[string]string {
		f := map[string]string{"csrf": session, "base-url": r.url + "/api/v2", "token-url": r.url + "/oauth/token", "client-id": "acme",
			"client-secret": "segredo", "psp-password": "s3nha-psp", "psp-pix-key": "11.222.333/0001-81"}
		for k, v := range change {
			f[k] = v
		}
		return f
	}
	connected := func() bool {
		db, release := acquire(t, r.ds)
		defer release()
		_, err := db.UnitPSP(context.Background(), 1)
		return err == nil
	}
	path := "/portal/settings/psp" + unit
	if rec := b.uploadForm(path, fields(map[string]string{"base-url": strings.Replace(r.url, "https", "http", 1) + "/api/v2"}), "psp-pfx", pfx); rec.Code != 400 ||
		!strings.Contains(rec.Body.String(), `id="erro-base-url">use o endereço https do PSP.`) {
		t.Fatalf("an http address = %d\n%s", rec.Code, rec.Body)
	}
	rec := b.uploadForm(path, fields(map[string]string{"client-secret": "outro"}), "psp-pfx", pfx)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-base-url">o PSP não aceitou a conexão; nada foi salvo. Resposta: `) ||
		strings.Contains(rec.Body.String(), `value="outro"`) || connected() {
		t.Fatalf("a wrong secret = %d\n%s", rec.Code, rec.Body)
	}
	if rec := b.uploadForm(path, fields(nil), "psp-pfx", pfx); rec.Code != http.StatusSeeOther || !connected() {
		t.Fatalf("the connection = %d\n%s", rec.Code, rec.Body)
	}
	page := b.do("GET", "/portal/settings"+unit+"&feito=psp", nil).Body.String()
	if !strings.Contains(page, "PSP conectado: o PSP respondeu e a conexão foi salva.") || !strings.Contains(page, "Conectado a <strong>"+r.url+"/api/v2</strong> · cliente acme · chave 11.222.333/0001-81") ||
		!strings.Contains(page, "Segredo do cliente: <strong>salvo</strong>") || strings.Contains(page, `value="segredo"`) || strings.Contains(page, "s3nha-psp") {
		t.Fatalf("the connected PSP's section:\n%s", page)
	}
	// Saved again with the secret and the certificate left blank: kept,
	// and tried again.
	if rec := b.uploadForm(path, fields(map[string]string{"client-secret": "", "psp-password": ""}), "", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("saved with the secret kept = %d\n%s", rec.Code, rec.Body)
	}
	if home := b.do("GET", "/portal/"+unit, nil).Body.String(); strings.Contains(home, "#pix") {
		t.Error("the first steps still ask for a way to take PIX")
	}
	if rec := b.do("POST", path, url.Values{"csrf": {session}, "remove": {"1"}}); rec.Code != http.StatusSeeOther || connected() {
		t.Fatalf("the removal = %d", rec.Code)
	}
}

// TestPortalBankAgreements: an owner sees each provider slot's agreement,
// changes one (an account whose check digit is wrong refused beside its
// field, as fincom unit agreement refuses it), downloads the next CNAB
// remittance (its boleto in it), finds it among those made and
// downloads it again; with nothing new there is nothing to remit; a
// slot without an agreement has no remittance.
func TestPortalBankAgreements(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	page := b.do("GET", "/portal/settings"+unit, nil).Body.String()
	session := csrf(t, page)
	if !strings.Contains(page, `id="campo-provider_a-account" name="provider_a-account" type="text" value="12345-7"`) ||
		!strings.Contains(page, `value="0506511-9"`) || !strings.Contains(page, "Baixar a próxima remessa do Banco Santander") {
		t.Fatalf("the bank section:\n%s", page)
	}
	form := url.Values{"csrf": {session}, "provider": {"provider_a"}, "provider_a-agency": {"0057"}, "provider_a-account": {"12345-8"},
		"provider_a-wallet": {"109"}, "provider_a-agreement": {""}, "provider_a-next-our-number": {"1"}}
	if rec := b.do("POST", "/portal/settings/agreement"+unit, form); rec.Code != 400 ||
		!strings.Contains(rec.Body.String(), `id="erro-provider_a-account">conta inválida para o banco`) || !strings.Contains(rec.Body.String(), `value="12345-8"`) {
		t.Fatalf("a wrong check digit = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("provider_a-account", "12345-7")
	form.Set("provider_a-wallet", "112")
	if rec := b.do("POST", "/portal/settings/agreement"+unit, form); rec.Code != http.StatusSeeOther {
		t.Fatalf("the agreement = %d\n%s", rec.Code, rec.Body)
	}
	db, release := acquire(t, ds)
	a, err := db.Agreement(context.Background(), 1, "provider_a")
	release()
	if err != nil || a.Wallet != "112" {
		t.Fatalf("the agreement saved: %+v %v", a, err)
	}
	db, release = acquire(t, ds)
	log, _, _ := db.AuditLog(context.Background(), 1, "agreement", store.Page{Number: 1, Size: 5})
	release()
	if len(log) != 1 || log[0].Record.String != "agreement provider_a: agency 0057 account 12345-7 wallet 109 → agency 0057 account 12345-7 wallet 112" {
		t.Errorf("the agreement's audit: %+v", log)
	}

	order := post(t, h, "/insert_sales_order", serviceOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+order+`"}`)
	remit := url.Values{"csrf": {session}, "provider": {"provider_a"}}
	rec := b.do("POST", "/portal/settings/remittance"+unit, remit)
	file := rec.Body.String()
	if rec.Code != 200 || rec.Header().Get("Content-Disposition") != `attachment; filename="remessa-provider_a-1.rem"` || !strings.HasPrefix(file, "341") ||
		strings.Count(file, "\r\n") < 4 {
		t.Fatalf("the remittance = %d %v\n%s", rec.Code, rec.Header(), file)
	}
	page = b.do("GET", "/portal/settings"+unit, nil).Body.String()
	link := "/portal/settings/remittance?unit=" + fx.tokens["unitA"] + "&amp;provider=provider_a&amp;seq=1"
	if !strings.Contains(page, `<a href="`+link+`" download>Baixar de novo</a>`) {
		t.Fatalf("the remittances made:\n%s", page)
	}
	if again := b.do("GET", strings.ReplaceAll(link, "&amp;", "&"), nil); again.Code != 200 || again.Body.String() != file {
		t.Fatalf("the remittance again = %d", again.Code)
	}
	if rec := b.do("POST", "/portal/settings/remittance"+unit, remit); rec.Code != http.StatusConflict ||
		!strings.Contains(rec.Body.String(), `id="erro-provider_a-remittance">nada a remeter`) {
		t.Fatalf("nothing new = %d\n%s", rec.Code, rec.Body)
	}
	if rec := b.do("GET", "/portal/settings/remittance"+unit+"&provider=provider_a", nil); rec.Code != http.StatusForbidden {
		t.Fatalf("a GET that would make a remittance = %d", rec.Code)
	}
	unitB := "?unit=" + fx.tokens["unitB"]
	if rec := b.do("POST", "/portal/settings/remittance"+unitB, remit); rec.Code != 400 || !strings.Contains(rec.Body.String(), "não tem convênio com este banco") {
		t.Fatalf("a slot without an agreement = %d\n%s", rec.Code, rec.Body)
	}
}

// TestPortalPeople: an owner of the unit invites a seller by e-mail (the
// invitation a sign-in link through the outbox), who signs in with it and
// is a seller there; the seller's role is changed and taken away; the
// last owner of every unit is kept; a malformed address is refused
// beside its field; each change is audited under the owner.
func TestPortalPeople(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	owner := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	page := owner.do("GET", "/portal/settings"+unit, nil).Body.String()
	session := csrf(t, page)
	if !strings.Contains(page, "<td>Bia</td><td>bia@example.com</td><td>Proprietário <span class=\"muted\">(em todas as unidades)</span>") {
		t.Fatalf("the people section:\n%s", page)
	}
	invite := url.Values{"csrf": {session}, "name": {"Dora Vendas"}, "email": {"dora@"}, "role": {"sales"}}
	if rec := owner.do("POST", "/portal/settings/people"+unit, invite); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-email">e-mail inválido.`) {
		t.Fatalf("a malformed address = %d\n%s", rec.Code, rec.Body)
	}
	invite.Set("email", "dora@acme.com.br")
	if rec := owner.do("POST", "/portal/settings/people"+unit, invite); rec.Code != 200 ||
		!strings.Contains(rec.Body.String(), "Convite enviado para dora@acme.com.br: Vendas na unidade Acme Matriz.") ||
		!strings.Contains(rec.Body.String(), "<td>Dora Vendas</td><td>dora@acme.com.br</td><td>Vendas") {
		t.Fatalf("the invitation = %d\n%s", rec.Code, rec.Body)
	}
	db, release := acquire(t, ds)
	mails, err := db.Outbox(context.Background(), store.EveryUnit, 5)
	release()
	if err != nil || len(mails) == 0 || mails[0].Kind != "portal_invite" || mails[0].To != "dora@acme.com.br" ||
		mails[0].Subject != "Convite para o fincom · Acme Matriz" || !strings.Contains(mails[0].Body, store.SealedMark) {
		t.Fatalf("the invitation e-mail: %+v %v", mails, err)
	}
	m := regexp.MustCompile(`/portal/link\?t=(\S+)`).FindStringSubmatch(s.portal.Unsealed(mails[0]).Body)
	if m == nil {
		t.Fatalf("no link in %q", s.portal.Unsealed(mails[0]).Body)
	}
	link, _ := url.QueryUnescape(m[1])
	dora := &browser{t: t, h: s.Handler(), cookies: map[string]*http.Cookie{}}
	form := dora.do("GET", "/portal/link?t="+url.QueryEscape(link), nil).Body.String()
	if rec := dora.do("POST", "/portal/link", url.Values{"csrf": {csrf(t, form)}, "t": {link}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("Dora's sign-in = %d\n%s", rec.Code, rec.Body)
	}
	if home := dora.do("GET", "/portal/"+unit, nil).Body.String(); !strings.Contains(home, "Papel: Vendas") {
		t.Fatalf("Dora's first page:\n%s", home)
	}
	if rec := dora.do("GET", "/portal/settings"+unit, nil); rec.Code != http.StatusForbidden {
		t.Fatalf("the seller's settings = %d", rec.Code)
	}

	role := func(email, role string) *httptest.ResponseRecorder {
		return owner.do("POST", "/portal/settings/people/role"+unit, url.Values{"csrf": {session}, "email": {email}, "role": {role}})
	}
	if rec := role("dora@acme.com.br", "finance"); rec.Code != http.StatusSeeOther {
		t.Fatalf("Dora to finance = %d\n%s", rec.Code, rec.Body)
	}
	if home := dora.do("GET", "/portal/"+unit, nil).Body.String(); !strings.Contains(home, "Papel: Financeiro") {
		t.Fatal("Dora is not finance")
	}
	if rec := role("dora@acme.com.br", "none"); rec.Code != http.StatusSeeOther {
		t.Fatalf("Dora's role taken away = %d", rec.Code)
	}
	if rec := dora.do("GET", "/portal/"+unit, nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("Dora without a role = %d", rec.Code)
	}
	// The fixture's Ana owns every unit too: Ana may stop here, then
	// Bia, the last owner of every unit, may not.
	if rec := role("ana@acme.com.br", "none"); rec.Code != http.StatusSeeOther {
		t.Fatalf("Ana off unit A = %d\n%s", rec.Code, rec.Body)
	}
	db, release = acquire(t, ds)
	_, err = settings.SetRole(context.Background(), db, "ana@acme.com.br", store.RoleSales, 0)
	release()
	if err != nil {
		t.Fatal(err)
	}
	if rec := role("bia@example.com", "none"); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-person-role">o domínio ficaria sem um proprietário`) {
		t.Fatalf("the last owner off = %d\n%s", rec.Code, rec.Body)
	}
	db, release = acquire(t, ds)
	log, _, _ := db.AuditLog(context.Background(), 1, "people", store.Page{Number: 1, Size: 50})
	release()
	if len(log) != 4 || log[0].Actor != "user:Bia <bia@example.com>" || !strings.Contains(log[0].Record.String, "user ana@acme.com.br") {
		t.Errorf("the people's audit: %+v", log)
	}
}

// TestPortalBancoDoBrasilAgreement: an owner puts Banco do Brasil behind
// a slot in Cobrança bancária: its wallet variation asked beside its field
// until given, then saved with the convênio, the slot named by its bank.
func TestPortalBancoDoBrasilAgreement(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	session := csrf(t, b.do("GET", "/portal/settings"+unit, nil).Body.String())
	form := url.Values{"csrf": {session}, "provider": {"provider_c"}, "provider_c-bank": {"001"}, "provider_c-agency": {"1234-3"},
		"provider_c-account": {"123456-0"}, "provider_c-wallet": {"17"}, "provider_c-agreement": {"1234567"}, "provider_c-next-our-number": {"1"}}
	rec := b.do("POST", "/portal/settings/agreement"+unit, form)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-provider_c-variation">informe a variação da carteira do Banco do Brasil`) ||
		!strings.Contains(rec.Body.String(), `name="provider_c-variation"`) {
		t.Fatalf("without its variation = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("provider_c-variation", "19")
	if rec := b.do("POST", "/portal/settings/agreement"+unit, form); rec.Code != http.StatusSeeOther {
		t.Fatalf("the agreement = %d\n%s", rec.Code, rec.Body)
	}
	page := b.do("GET", "/portal/settings"+unit, nil).Body.String()
	if !strings.Contains(page, `<h3 id="banco-provider_c">Banco do Brasil</h3>`) || !strings.Contains(page, `name="provider_c-variation" type="text" value="019"`) {
		t.Fatalf("the slot's bank:\n%s", page)
	}
	// A new order's boleto is offered by the bank behind each slot.
	order := b.do("GET", "/portal/new-order"+unit, nil).Body.String()
	if !strings.Contains(order, `<option value="provider_a">Itaú Unibanco</option>`) || !strings.Contains(order, `<option value="provider_c">Banco do Brasil</option>`) {
		t.Fatalf("the new order's banks:\n%s", order)
	}
	db, release := acquire(t, ds)
	defer release()
	if a, err := db.Agreement(context.Background(), 1, "provider_c"); err != nil || a.Bank != "001" || a.Code != "1234567" || a.Variation != "019" {
		t.Fatalf("saved: %+v %v", a, err)
	}
}
