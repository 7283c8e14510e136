package server

import (
	"net/url"
	"strings"
	"testing"
)

// TestPortalContracts: a person makes a contract from one of the unit's
// templates: an end before the start is refused in Portuguese beside its
// field; the contract is listed with its customer and validity, the API
// sees it, and its document is the template filled with the customer's
// name, served under a policy that runs nothing.
func TestPortalContracts(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	tpl := post(t, h, "/insert_contract_template", `{`+auth+`,"name":"Prestação de serviços","body_html":"<h1>Contrato com {{contato_nome}}</h1><p>Início: {{contrato_inicio}}</p>"}`)["token"].(string)
	page := b.do("GET", "/portal/contracts", nil).Body.String()
	path := "/portal/contracts?unit=" + fx.tokens["unitA"]
	form := url.Values{"csrf": {csrf(t, page)}, "template": {tpl}, "contact": {fx.tokens["contact2"]}, "name": {"Suporte mensal"},
		"start": {"2026-12-01"}, "end": {"2026-11-01"}, "recurrence": {"monthly"}}
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-end">o fim da vigência não pode ser antes do início.`) {
		t.Fatalf("an end before the start = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("end", "")
	form.Set("contact", fx.tokens["contactB"])
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-contact">`) {
		t.Fatalf("another unit's contact = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("contact", fx.tokens["contact2"])
	rec := b.do("POST", path, form)
	if rec.Code != 303 {
		t.Fatalf("create = %d\n%s", rec.Code, rec.Body)
	}
	page = b.do("GET", rec.Header().Get("Location"), nil).Body.String()
	for _, want := range []string{"Contrato criado como rascunho.", "Suporte mensal", "Maria da Silva", "Rascunho", "01/12/2026 a indeterminado", "Mensal", "Pôr em vigor"} {
		if !strings.Contains(page, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	list := post(t, h, "/list_contracts", `{`+auth+`}`)["data"].([]any)
	var token string
	for _, c := range list {
		if m := c.(map[string]any); m["contract_name"] == "Suporte mensal" && m["status"] == "draft" && m["is_recurring"] == true {
			token = m["id_token"].(string)
		}
	}
	if token == "" {
		t.Fatalf("the API sees %v", list)
	}
	// Signed: it comes into force; a contract in force does not go back
	// to draft.
	status := "/portal/contracts/" + token + "/status?unit=" + fx.tokens["unitA"]
	if rec := b.do("POST", status, url.Values{"csrf": form["csrf"], "status": {"active"}}); rec.Code != 303 ||
		!strings.Contains(b.do("GET", rec.Header().Get("Location"), nil).Body.String(), "Contrato em vigor.") {
		t.Fatalf("into force = %d\n%s", rec.Code, rec.Body)
	}
	if rec := b.do("POST", status, url.Values{"csrf": form["csrf"], "status": {"draft"}}); rec.Code != 409 || !strings.Contains(rec.Body.String(), "A situação do contrato não muda para essa") {
		t.Errorf("back to draft = %d", rec.Code)
	}
	if got := post(t, h, "/list_contracts", `{`+auth+`,"status":"active"}`)["data"].([]any); len(got) != 1 {
		t.Errorf("the API sees %d contracts in force", len(got))
	}
	// Its page changes it, by /update_contract's rules; its status stays.
	edit := "/portal/contracts/" + token + "?unit=" + fx.tokens["unitA"]
	page = b.do("GET", edit, nil).Body.String()
	for _, want := range []string{`value="Suporte mensal"`, `value="2026-12-01"`, "Em vigor", `<option value="monthly" selected>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the contract's page lacks %s", want)
		}
	}
	change := url.Values{"csrf": form["csrf"], "template": {tpl}, "contact": {fx.tokens["contact2"]}, "name": {"Suporte mensal 2027"},
		"start": {"2027-01-01"}, "end": {"2026-12-31"}, "recurrence": {"yearly"}}
	if rec := b.do("POST", edit, change); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-end">o fim da vigência não pode ser antes do início.`) ||
		!strings.Contains(rec.Body.String(), `value="Suporte mensal 2027"`) {
		t.Fatalf("an end before the start = %d\n%s", rec.Code, rec.Body)
	}
	change.Set("end", "2027-12-31")
	if rec := b.do("POST", edit, change); rec.Code != 303 || !strings.Contains(b.do("GET", rec.Header().Get("Location"), nil).Body.String(), "Contrato alterado.") {
		t.Fatalf("save = %d\n%s", rec.Code, rec.Body)
	}
	got := post(t, h, "/list_contracts", `{`+auth+`,"status":"active"}`)["data"].([]any)
	if len(got) != 1 || got[0].(map[string]any)["contract_name"] != "Suporte mensal 2027" || got[0].(map[string]any)["recurrence_type"] != "yearly" ||
		got[0].(map[string]any)["validity_end"] != "2027-12-31" {
		t.Errorf("the API sees %v", got)
	}
	rec = b.do("GET", "/portal/contracts/"+token+"/document?unit="+fx.tokens["unitA"], nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "Contrato com Maria da Silva") || !strings.Contains(rec.Body.String(), "Início: 01/01/2027") ||
		!strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("the document = %d %s\n%s", rec.Code, rec.Header(), rec.Body)
	}
	if rec := b.do("GET", "/portal/contracts/"+token+"/document?unit="+fx.tokens["unitB"], nil); rec.Code != 404 {
		t.Errorf("the document under another unit = %d", rec.Code)
	}
}
