package server

import (
	"archive/zip"
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"fincom/store"
)

// contactForm is a valid new contact of the portal's form.
func contactForm(csrf string) url.Values {
	return url.Values{"csrf": {csrf}, "type": {"legal"}, "register": {"45.789.123/0001-91"}, "name": {"Comercial Horizonte Ltda"},
		"email": {"fin@horizonte.com.br"}, "zip": {"01310-100"}, "address": {"Avenida Paulista"}, "number": {"1000"},
		"district": {"Bela Vista"}, "city": {"São Paulo"}, "state": {"sp"}}
}

// portalToken makes an access token on the profile page and returns it.
func portalToken(t *testing.T, b *browser, label string) string {
	t.Helper()
	page := b.do("GET", "/portal/profile", nil).Body.String()
	rec := b.do("POST", "/portal/profile/tokens", url.Values{"csrf": {csrf(t, page)}, "label": {label}})
	m := regexp.MustCompile(`id="novo-token">(fca_acme_[0-9a-f]+)<`).FindStringSubmatch(rec.Body.String())
	if rec.Code != 200 || m == nil {
		t.Fatalf("new token = %d\n%s", rec.Code, rec.Body.String())
	}
	return m[1]
}

// TestPortalAccountantReadsOnly: an accountant given unit A sees only it,
// changes nothing (its forms are not shown, and sent anyway are refused
// before anything is saved), downloads the month's package and exports,
// and the token it makes reads the API and is refused its writes.
func TestPortalAccountantReadsOnly(t *testing.T) {
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedInAs(t, s, ds, "Caio Contador", "caio@contabil.com.br", store.RoleAccountant, fx.tokens["unitA"])
	unitA, unitB := "?unit="+fx.tokens["unitA"], "?unit="+fx.tokens["unitB"]

	units := b.do("GET", "/portal/units", nil).Body.String()
	if !strings.Contains(units, "Acme Matriz") || strings.Contains(units, "Acme Filial") || strings.Contains(units, fx.tokens["unitB"]) {
		t.Fatalf("the units page shows a unit not given:\n%s", units)
	}
	if home := b.do("GET", "/portal/"+unitB, nil).Body.String(); strings.Contains(home, "Acme Filial") {
		t.Fatal("a unit not given is shown by its token")
	}
	contacts := b.do("GET", "/portal/contacts"+unitA, nil).Body.String()
	if strings.Contains(contacts, `action="/portal/contacts?`) || strings.Contains(contacts, "Novo cliente") ||
		strings.Contains(contacts, `href="/portal/users"`) || !strings.Contains(contacts, "Contador (só leitura)") {
		t.Fatalf("the accountant is offered a change, or not told its role:\n%s", contacts)
	}
	session := csrf(t, contacts)
	for _, form := range []struct {
		path string
		form url.Values
	}{
		{"/portal/contacts" + unitA, contactForm(session)},
		{"/portal/transactions" + unitA, url.Values{"csrf": {session}, "type": {"out"}, "description": {"Aluguel"}, "value": {"100,00"}}},
		{"/portal/new-order" + unitA, url.Values{"csrf": {session}}},
		{"/portal/import/return" + unitA, url.Values{"csrf": {session}}},
		{"/portal/users", url.Values{"csrf": {session}, "name": {"Eu"}, "email": {"eu@contabil.com.br"}, "role": {"owner"}}},
		{"/portal/users/role", url.Values{"csrf": {session}, "email": {"caio@contabil.com.br"}, "role": {"owner"}}},
	} {
		rec := b.do("POST", form.path, form.form)
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "não permite esta alteração") {
			t.Errorf("POST %s as accountant = %d\n%s", form.path, rec.Code, rec.Body.String())
		}
	}
	if rec := b.do("GET", "/portal/users", nil); rec.Code != http.StatusForbidden {
		t.Errorf("the users page for an accountant = %d", rec.Code)
	}
	if rec := do(h, "POST", "/get_contacts", `{"access_token":"{{access}}","unit_token":"{{unitA}}","search":"Horizonte"}`); strings.Contains(rec.Body.String(), "Horizonte") {
		t.Fatalf("a refused form saved a contact: %s", rec.Body)
	}
	// What an accountant is for: the package and the exports.
	rec := b.do("GET", "/portal/accountant"+unitA+"&mes=2026-11", nil)
	if zr, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len())); rec.Code != 200 || err != nil || len(zr.File) == 0 {
		t.Fatalf("the package = %d %v", rec.Code, err)
	}
	if rec := b.do("GET", "/portal/transactions"+unitA+"&mes=2026-11&formato=xlsx", nil); rec.Code != 200 || rec.Header().Get("Content-Type") == "" ||
		!bytes.HasPrefix(rec.Body.Bytes(), []byte("PK")) {
		t.Fatalf("the entries' spreadsheet = %d", rec.Code)
	}
	// Its token reads and is refused writes.
	token := portalToken(t, b, "Planilhas do escritório")
	read := do(h, "POST", "/get_contacts", `{"access_token":"`+token+`","unit_token":"{{unitA}}"}`)
	write := do(h, "POST", "/insert_contact", `{"access_token":"`+token+`","unit_token":"{{unitA}}","type":"legal","register":"45789123000191","social_reason":"Horizonte"}`)
	other := do(h, "POST", "/get_contacts", `{"access_token":"`+token+`","unit_token":"{{unitB}}"}`)
	if read.Code != 200 || write.Code != 403 || other.Code != 404 {
		t.Fatalf("the accountant's token: read %d, write %d %s, unit not given %d", read.Code, write.Code, write.Body, other.Code)
	}
	// The profile lists its own tokens only, not the operator's.
	if page := b.do("GET", "/portal/profile", nil).Body.String(); !strings.Contains(page, "Planilhas do escritório") ||
		strings.Contains(page, fx.tokens["access"][:15]) || !strings.Contains(page, "Seus tokens de acesso") {
		t.Fatalf("the accountant's profile:\n%s", page)
	}
}

// TestPortalOwnerManagesUsers: finance changes its area and not users or
// tokens; an owner of every unit adds users, changes their roles (each
// change in the audit log under the owner) and cannot leave the domain
// without an owner.
func TestPortalOwnerManagesUsers(t *testing.T) {
	s, ds := newTestServer(t)
	fin := signedInAs(t, s, ds, "Fábio Financeiro", "fabio@acme.com.br", store.RoleFinance, "")
	page := fin.do("GET", "/portal/contacts?unit="+fx.tokens["unitA"], nil).Body.String()
	if rec := fin.do("POST", "/portal/contacts?unit="+fx.tokens["unitA"], contactForm(csrf(t, page))); rec.Code != http.StatusSeeOther {
		t.Fatalf("finance saving a contact = %d\n%s", rec.Code, rec.Body)
	}
	if rec := fin.do("GET", "/portal/users", nil); rec.Code != http.StatusForbidden {
		t.Fatalf("the users page for finance = %d", rec.Code)
	}
	if rec := fin.do("POST", "/portal/users/role", url.Values{"csrf": {csrf(t, page)}, "email": {"fabio@acme.com.br"}, "role": {"owner"}}); rec.Code != http.StatusForbidden {
		t.Fatalf("finance making itself owner = %d", rec.Code)
	}
	// Finance sees and revokes only its own tokens.
	if rec := fin.do("POST", "/portal/profile/tokens/revoke", url.Values{"csrf": {csrf(t, page)}, "id": {"1"}}); !strings.Contains(rec.Body.String(), "já estava revogado ou não existe") {
		t.Fatalf("finance revoked the operator's token:\n%s", rec.Body)
	}
	if rec := do(s.Handler(), "POST", "/get_contacts", `{"access_token":"{{access}}","unit_token":"{{unitA}}"}`); rec.Code != 200 {
		t.Fatalf("the operator's token after finance's try = %d", rec.Code)
	}

	owner := signedIn(t, s, ds)
	page = owner.do("GET", "/portal/users", nil).Body.String()
	if !strings.Contains(page, "Fábio Financeiro") || !strings.Contains(page, "Financeiro · todas as unidades") {
		t.Fatalf("the users page:\n%s", page)
	}
	session := csrf(t, page)
	rec := owner.do("POST", "/portal/users", url.Values{"csrf": {session}, "name": {"Dora Vendas"}, "email": {"dora@acme.com.br"},
		"role": {"sales"}, "unit_token": {fx.tokens["unitB"]}})
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "Vendas · unidade Acme Filial") {
		t.Fatalf("a new user = %d\n%s", rec.Code, rec.Body)
	}
	for _, bad := range []url.Values{
		{"csrf": {session}, "name": {"X"}, "email": {"dora@acme.com.br"}, "role": {"sales"}},
		{"csrf": {session}, "name": {"X"}, "email": {"x@acme"}, "role": {"sales"}},
		{"csrf": {session}, "name": {"X"}, "email": {"x@acme.com.br"}, "role": {"boss"}},
		{"csrf": {session}, "name": {"X"}, "email": {"x@acme.com.br"}, "role": {"sales"}, "unit_token": {fx.tokens["unitC"]}},
	} {
		if rec := owner.do("POST", "/portal/users", bad); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "O usuário não foi criado") {
			t.Errorf("user %v = %d", bad, rec.Code)
		}
	}
	rec = owner.do("POST", "/portal/users/role", url.Values{"csrf": {session}, "email": {"fabio@acme.com.br"}, "role": {"accountant"},
		"unit_token": {fx.tokens["unitA"]}})
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "Contador (só leitura) · unidade Acme Matriz") {
		t.Fatalf("a role changed = %d\n%s", rec.Code, rec.Body)
	}
	// Finance is now an accountant on unit A, at its next page.
	if rec := fin.do("POST", "/portal/contacts?unit="+fx.tokens["unitA"], contactForm(csrf(t, page))); rec.Code != http.StatusForbidden {
		t.Fatalf("a former finance user saving a contact = %d", rec.Code)
	}
	// The fixture's Ana Lima and Bia own every unit: Ana may stop, then
	// Bia, the last, may not.
	if rec := owner.do("POST", "/portal/users/role", url.Values{"csrf": {session}, "email": {"ana@acme.com.br"}, "role": {"sales"}}); rec.Code != 200 {
		t.Fatalf("Ana to sales = %d\n%s", rec.Code, rec.Body)
	}
	rec = owner.do("POST", "/portal/users/role", url.Values{"csrf": {session}, "email": {"bia@example.com"}, "role": {"none"}, "unit_token": {fx.tokens["unitA"]}})
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "sem um proprietário") {
		t.Fatalf("the last owner left = %d\n%s", rec.Code, rec.Body)
	}
	db, release := acquire(t, ds)
	log, _, _ := db.AuditLog(context.Background(), 0, "", store.Page{Number: 1, Size: 50})
	release()
	n := 0
	for _, e := range log {
		if e.Route == "portal:/users/role" && e.Actor == "user:Bia <bia@example.com>" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d role changes audited under the owner, want 2: %+v", n, log)
	}
}
