package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"fincom/store"
)

// TestPortalBillContacts: a contact is marked supplier (or customer, or
// both); the contacts' list and the entry form's contact field offer the
// suppliers for a bill and the customers for an income; a bill names its
// supplier by CPF/CNPJ or by the choice offered, is listed under the
// supplier's name, and shows it when edited; a contact the unit does not
// have is refused beside the field.
func TestPortalBillContacts(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	edit := "/portal/contacts/" + fx.tokens["contact1"] + unit
	form := url.Values{"csrf": {csrf(t, b.do("GET", edit, nil).Body.String())}, "type": {"legal"}, "register": {"11.444.777/0001-61"},
		"name": {"Alfa Comércio Ltda"}, "fantasy_name": {"Alfa"}, "kind": {"supplier"}}
	if rec := b.do("POST", edit, form); rec.Code != http.StatusSeeOther {
		t.Fatalf("the supplier = %d\n%s", rec.Code, rec.Body)
	}
	db, release := acquire(t, ds)
	err := db.UpdateContact(context.Background(), 1, fx.tokens["contact2"], func(f *store.ContactFields) error { f.Kind = "customer"; return nil })
	release()
	if err != nil {
		t.Fatal(err)
	}
	suppliers := b.do("GET", "/portal/contacts"+unit+"&papel=fornecedores", nil).Body.String()
	if !strings.Contains(suppliers, ">Alfa<") || strings.Contains(suppliers, "Maria da Silva") {
		t.Fatalf("the suppliers' list:\n%s", suppliers)
	}
	page := b.do("GET", "/portal/transactions"+unit+"&mes=2026-12", nil).Body.String()
	supplierList := page[strings.Index(page, `<datalist id="fornecedores">`):strings.Index(page, `<datalist id="clientes">`)]
	customerList := page[strings.Index(page, `<datalist id="clientes">`):]
	if !strings.Contains(supplierList, `value="Alfa · 11.444.777/0001-61"`) || strings.Contains(supplierList, "Maria") ||
		!strings.Contains(customerList, `value="Maria da Silva · 529.982.247-25"`) || strings.Contains(customerList, "Alfa") {
		t.Fatalf("the contact field's choices:\n%s", page)
	}
	session := csrf(t, page)
	bill := func(contact string) *http.Response {
		rec := b.do("POST", "/portal/transactions"+unit+"&mes=2026-12", url.Values{"csrf": {session}, "type": {"out"}, "description": {"Aluguel de dezembro"},
			"value": {"2.500,00"}, "due_date": {"2026-12-05"}, "contact": {contact}, "form_key": {store.NewSecret(16)}})
		return rec.Result()
	}
	if rec := bill("Beta Ltda"); rec.StatusCode != 400 {
		t.Fatalf("an unknown supplier = %d", rec.StatusCode)
	}
	if page := b.do("POST", "/portal/transactions"+unit+"&mes=2026-12", url.Values{"csrf": {session}, "type": {"out"}, "description": {"Aluguel"},
		"value": {"1,00"}, "due_date": {"2026-12-05"}, "contact": {"Beta Ltda"}}).Body.String(); !strings.Contains(page, `id="erro-contact">contato não encontrado`) {
		t.Fatalf("the unknown supplier's refusal:\n%s", page)
	}
	if rec := bill("Alfa · 11.444.777/0001-61"); rec.StatusCode != http.StatusSeeOther {
		t.Fatalf("the bill = %d", rec.StatusCode)
	}
	if rec := bill("11444777000161"); rec.StatusCode != http.StatusSeeOther {
		t.Fatalf("the bill by CNPJ = %d", rec.StatusCode)
	}
	db, release = acquire(t, ds)
	entries, err := db.EntrySummaries(context.Background(), 1, "2026-12-01", "2026-12-31", "out", 100)
	release()
	if err != nil {
		t.Fatal(err)
	}
	var token string
	n := 0
	for _, e := range entries {
		if e.Description == "Aluguel de dezembro" {
			n++
			token = e.Token
			if e.Contact != "Alfa" || e.ContactRegister != "11444777000161" {
				t.Errorf("the bill's contact: %q %q", e.Contact, e.ContactRegister)
			}
		}
	}
	if n != 2 {
		t.Fatalf("%d bills made, want 2", n)
	}
	if list := b.do("GET", "/portal/transactions"+unit+"&mes=2026-12&busca=alfa", nil).Body.String(); strings.Count(list, "Aluguel de dezembro</a> · Alfa") != 2 {
		t.Fatalf("the bills under the supplier:\n%s", list)
	}
	if page := b.do("GET", "/portal/transactions/"+token+unit, nil).Body.String(); !strings.Contains(page, `name="contact" type="text" value="Alfa · 11.444.777/0001-61"`) {
		t.Fatalf("the bill's page:\n%s", page)
	}
}
