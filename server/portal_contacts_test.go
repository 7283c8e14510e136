package server

import (
	"net/url"
	"strings"
	"testing"
)

// TestPortalCreatesContact: a person registers a customer from the portal
// by the rules /insert_contact holds it to: the CNPJ's check digits, the
// name, the state registration by its state's rule; a refusal is said in
// Portuguese beside its field, the form filled again; the customer is
// then listed with its CNPJ and phone as people read them, and the API
// sees it (its city's IBGE code found from its name and state).
func TestPortalCreatesContact(t *testing.T) {
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	page := b.do("GET", "/portal/contacts", nil).Body.String()
	token := csrf(t, page)
	path := "/portal/contacts?unit=" + fx.tokens["unitA"]
	form := url.Values{"csrf": {token}, "type": {"legal"}, "register": {"45.789.123/0001-90"}, "name": {"Comercial Horizonte Ltda"},
		"email": {"fin@horizonte.com.br"}, "phone": {"(11) 3222-1100"}, "zip": {"01310-100"}, "address": {"Avenida Paulista"}, "number": {"1000"},
		"district": {"Bela Vista"}, "city": {"São Paulo"}, "state": {"sp"}}
	rec := b.do("POST", path, form)
	body := rec.Body.String()
	if rec.Code != 400 || !strings.Contains(body, `<p class="error" id="erro-register">CNPJ inválido: confira os dígitos verificadores.</p>`) ||
		!strings.Contains(body, `value="Comercial Horizonte Ltda"`) || !strings.Contains(body, `aria-invalid="true" aria-describedby="erro-register"`) {
		t.Fatalf("a wrong CNPJ = %d\n%s", rec.Code, body)
	}
	form.Set("register", "45.789.123/0001-91")
	form.Set("state_registration", "123")
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-state_registration">inscrição estadual inválida`) {
		t.Fatalf("a wrong IE = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("state_registration", "")
	rec = b.do("POST", path, form)
	if rec.Code != 303 {
		t.Fatalf("create = %d\n%s", rec.Code, rec.Body)
	}
	page = b.do("GET", rec.Header().Get("Location"), nil).Body.String()
	for _, want := range []string{"Contato cadastrado.", "Comercial Horizonte Ltda", "45.789.123/0001-91", "(11) 3222-1100"} {
		if !strings.Contains(page, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), "já existe um contato com esse CPF ou CNPJ") {
		t.Errorf("the same CNPJ again = %d", rec.Code)
	}
	got := post(t, h, "/get_contacts", `{`+auth+`,"search":"Horizonte"}`)["data"].([]any)
	if len(got) != 1 || got[0].(map[string]any)["register"] != "45789123000191" {
		t.Fatalf("the API sees %v", got)
	}
	if rec := b.do("POST", path, url.Values{"type": {"legal"}}); rec.Code != 403 {
		t.Errorf("without CSRF = %d", rec.Code)
	}
	if page := b.do("GET", "/portal/contacts?busca=horizonte", nil).Body.String(); !strings.Contains(page, "Comercial Horizonte") {
		t.Error("the search does not find it")
	}
}
