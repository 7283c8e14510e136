package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"fincom/store"
)

// TestPortalCreatesContact: a person registers a customer from the portal
// by the rules /insert_contact holds it to: the CNPJ's check digits, the
// name, the state registration by its state's rule; a refusal is said in
// Portuguese beside its field, the form filled again; the customer is
// then listed with its CNPJ and phone as people read them, and the API
// sees it (its city's IBGE code found from its name and state).
func TestPortalCreatesContact(t *testing.T) {
	t.Parallel()
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

// TestPortalEditsContact: a contact's page shows its form filled as people
// read it (CNPJ, CEP and phone masked); a refusal is said beside its
// field with what was typed kept; a saved change is seen by the API, and
// what the form does not show (the notes) is kept. Another unit's contact
// is not found.
func TestPortalEditsContact(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	path := "/portal/contacts/" + fx.tokens["contact1"] + "?unit=" + fx.tokens["unitA"]
	page := b.do("GET", path, nil).Body.String()
	for _, want := range []string{`value="11.444.777/0001-61"`, `value="Alfa Comércio Ltda"`, `value="01304-000"`, `value="(11) 3333-4444"`, `value="Rua Augusta"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
	if list := b.do("GET", "/portal/contacts", nil).Body.String(); !strings.Contains(list, `href="/portal/contacts/`+fx.tokens["contact1"]+`?unit=`) {
		t.Error("the list does not link the contact's page")
	}
	form := url.Values{"csrf": {csrf(t, page)}, "type": {"legal"}, "register": {"11.444.777/0001-61"}, "name": {"Alfa Comércio e Serviços Ltda"},
		"email": {"fin@alfa"}, "phone": {"(11) 99876-5432"}, "zip": {"01304-000"}, "address": {"Rua Augusta"}, "number": {"510"},
		"district": {"Consolação"}, "city": {"São Paulo"}, "state": {"SP"}}
	rec := b.do("POST", path, form)
	if body := rec.Body.String(); rec.Code != 400 || !strings.Contains(body, `id="erro-email">e-mail inválido.`) || !strings.Contains(body, `value="Alfa Comércio e Serviços Ltda"`) {
		t.Fatalf("a wrong e-mail = %d\n%s", rec.Code, body)
	}
	form.Set("email", "fin@alfa.com.br")
	form.Set("zip", "0130-400")
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-zip">CEP inválido`) {
		t.Fatalf("a short CEP = %d", rec.Code)
	}
	form.Set("zip", "01304-000")
	if rec := b.do("POST", path, form); rec.Code != 303 || !strings.Contains(b.do("GET", rec.Header().Get("Location"), nil).Body.String(), "Contato alterado.") {
		t.Fatalf("save = %d\n%s", rec.Code, rec.Body)
	}
	got := post(t, h, "/get_contacts", `{`+auth+`,"search":"Alfa"}`)["data"].([]any)
	if len(got) != 1 || got[0].(map[string]any)["company_name"] != "Alfa Comércio e Serviços Ltda" || got[0].(map[string]any)["phone"] != "11998765432" {
		t.Fatalf("the API sees %v", got)
	}
	db, release := acquire(t, ds)
	f, err := db.ContactByToken(context.Background(), 1, fx.tokens["contact2"])
	release()
	if err != nil {
		t.Fatal(err)
	}
	path2 := "/portal/contacts/" + fx.tokens["contact2"] + "?unit=" + fx.tokens["unitA"]
	form2 := url.Values{"csrf": {form.Get("csrf")}, "type": {"natural_person"}, "register": {"529.982.247-25"}, "name": {"Maria da Silva Souza"}}
	if rec := b.do("POST", path2, form2); rec.Code != 303 {
		t.Fatalf("save a person = %d\n%s", rec.Code, rec.Body)
	}
	db, release = acquire(t, ds)
	g, _ := db.ContactByToken(context.Background(), 1, fx.tokens["contact2"])
	release()
	if g.FullName != "Maria da Silva Souza" || g.Observation != f.Observation || f.Observation == "" {
		t.Errorf("saved %+v, the notes were %q", g, f.Observation)
	}
	if rec := b.do("GET", "/portal/contacts/"+fx.tokens["contactB"]+"?unit="+fx.tokens["unitA"], nil); rec.Code != 404 || !strings.Contains(rec.Body.String(), "Contato não encontrado nesta unidade.") {
		t.Errorf("another unit's contact = %d", rec.Code)
	}
	if rec := b.do("POST", "/portal/contacts/"+fx.tokens["contactB"]+"?unit="+fx.tokens["unitA"], form2); rec.Code != 404 {
		t.Errorf("saving another unit's contact = %d", rec.Code)
	}
}

// TestPortalContactByCEP: the CEP names its state (the Correios' ranges):
// the form's script asks /portal/cep for it and its cities; on save an
// empty UF is filled from the CEP, a different one is refused beside the
// CEP, and a city the IBGE table does not hold in the state is refused
// beside the city (invoices need its code).
func TestPortalContactByCEP(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	b := signedIn(t, s, ds)
	rec := b.do("GET", "/portal/cep?cep=01310-100", nil)
	var got struct {
		State  string
		Cities []string
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 200 || got.State != "SP" || len(got.Cities) != 645 || !slices.Contains(got.Cities, "São Paulo") {
		t.Fatalf("/portal/cep = %d %s", rec.Code, rec.Body.String()[:min(200, rec.Body.Len())])
	}
	if rec := b.do("GET", "/portal/cep?cep=00999-999", nil); rec.Code != 404 {
		t.Errorf("no state's CEP = %d", rec.Code)
	}
	if rec := (&browser{t: t, h: s.Handler()}).do("GET", "/portal/cep?cep=01310-100", nil); rec.Code != http.StatusSeeOther {
		t.Errorf("without a session = %d", rec.Code)
	}
	path := "/portal/contacts?unit=" + fx.tokens["unitA"]
	form := url.Values{"csrf": {csrf(t, b.do("GET", path, nil).Body.String())}, "type": {"legal"}, "register": {"45.789.123/0001-91"},
		"name": {"Comercial Horizonte Ltda"}, "zip": {"01310-100"}, "city": {"Sao Paulo"}, "state": {"RJ"}}
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-zip">o CEP 01310-100 é de SP, e a UF informada é RJ.`) {
		t.Fatalf("a CEP of another state = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("state", "")
	form.Set("city", "Gotham")
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-city">cidade não encontrada em SP`) {
		t.Fatalf("an unknown city = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("city", "sao paulo")
	if rec := b.do("POST", path, form); rec.Code != 303 {
		t.Fatalf("save = %d\n%s", rec.Code, rec.Body)
	}
	db, release := acquire(t, ds)
	defer release()
	list, _ := db.Contacts(context.Background(), 1, store.ContactFilter{Register: "45789123000191"})
	f, _ := db.ContactByToken(context.Background(), 1, list[0].Token)
	if f.State != "SP" || f.CityIBGE != "3550308" {
		t.Errorf("saved state %q, city %q (%s)", f.State, f.City, f.CityIBGE)
	}
}
