package server

import (
	"net/url"
	"strings"
	"testing"
)

// TestPortalNewOrder: a person makes a sales order from the portal,
// charged by boleto in two installments and invoiced by NF-e on saving;
// the order's page says both were done and the API sees the order, its
// charges and its invoice; a quantity that is no number is refused in
// Portuguese beside its field.
func TestPortalNewOrder(t *testing.T) {
	s, ds := newTestServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	b := signedIn(t, s, ds)
	page := b.do("GET", "/portal/new-order", nil).Body.String()
	if !strings.Contains(page, "Novo pedido de venda") || !strings.Contains(page, "Parafuso 10mm") {
		t.Fatalf("the form:\n%s", page)
	}
	form := url.Values{"csrf": {csrf(t, page)}, "contact": {fx.tokens["contact2"]}, "item": {fx.tokens["product1"]}, "quantity": {"dez"},
		"date": {"2026-12-10"}, "category": {fx.tokens["category1"]}, "method": {payBoleto}, "provider": {"provider_a"}, "account": {fx.tokens["account1"]},
		"installments": {"2"}, "invoice": {"nfe"}, "email": {"compras@alfa.com.br"}, "charge": {"1"}, "issue": {"1"}}
	path := "/portal/new-order?unit=" + fx.tokens["unitA"]
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-quantity">quantidade inválida`) {
		t.Fatalf("a quantity in words = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("quantity", "100")
	rec := b.do("POST", path, form)
	if rec.Code != 303 {
		t.Fatalf("save = %d\n%s", rec.Code, rec.Body)
	}
	loc := rec.Header().Get("Location")
	page = b.do("GET", loc, nil).Body.String()
	if !strings.Contains(page, "Pedido salvo, cobrança gerada e nota fiscal emitida.") {
		t.Fatalf("the order's page:\n%s", page)
	}
	id := strings.TrimPrefix(loc[:strings.Index(loc, "?")], "/portal/orders/")
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if o["value"] != "35.00" || len(o["charges"].([]any)) != 2 || o["invoice"] == nil || o["invoice"].(map[string]any)["status"] != "AUTHORIZED" {
		t.Fatalf("the API sees value %v, %d charges, invoice %v", o["value"], len(o["charges"].([]any)), o["invoice"])
	}
	// An NF-e to a customer without a city: the order is saved, the
	// page lists what the invoice lacks.
	form.Set("contact", fx.tokens["contact1"])
	form.Set("charge", "")
	rec = b.do("POST", path, form)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "A nota não foi emitida: Os dados fiscais do pedido estão incompletos:") ||
		!strings.Contains(rec.Body.String(), "contact.city: the customer&#39;s city (IBGE code) is required") {
		t.Fatalf("an invoice that cannot be issued = %d\n%s", rec.Code, rec.Body)
	}
}
