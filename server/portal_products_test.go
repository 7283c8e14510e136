package server

import (
	"net/url"
	"strings"
	"testing"
)

// TestPortalCreatesProduct: a person registers a product with its fiscal
// codes from the portal by the rules /insert_product_or_service holds it
// to; a wrong NCM or tax reform class is said in Portuguese beside its
// field; the product is listed with its price and NCM as people read
// them, numbered in the unit, and sold through the API.
func TestPortalCreatesProduct(t *testing.T) {
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	token := csrf(t, b.do("GET", "/portal/products", nil).Body.String())
	path := "/portal/products?unit=" + fx.tokens["unitA"]
	form := url.Values{"csrf": {token}, "type": {"product"}, "description": {"Feijão carioca 1 kg"}, "price": {"8,99"}, "unit": {"un"},
		"ncm": {"0713.33"}, "cfop": {"5102"}, "ibs_cbs_cst": {"200"}, "ibs_cbs_class": {"200034"}}
	rec := b.do("POST", path, form)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-ncm">NCM inválido: use os 8 dígitos.`) {
		t.Fatalf("a short NCM = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("ncm", "0713.33.19")
	form.Set("ibs_cbs_class", "200028")
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-ibs_cbs_class">código da reforma tributária inválido`) {
		t.Fatalf("a service's class = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("ibs_cbs_class", "200034")
	form.Set("price", "-1")
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), "o preço não pode ser negativo") {
		t.Fatalf("a negative price = %d", rec.Code)
	}
	form.Set("price", "8,99")
	rec = b.do("POST", path, form)
	if rec.Code != 303 {
		t.Fatalf("create = %d\n%s", rec.Code, rec.Body)
	}
	page := b.do("GET", rec.Header().Get("Location"), nil).Body.String()
	for _, want := range []string{"Produto ou serviço cadastrado.", "Feijão carioca 1 kg", "R$ 8,99", "0713.33.19", "200034"} {
		if !strings.Contains(page, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	items := post(t, h, "/list_stock_items_by_unit", `{`+auth+`}`)["data"].(map[string]any)["data"].([]any)
	found := false
	for _, it := range items {
		m := it.(map[string]any)
		if m["description"] == "Feijão carioca 1 kg" && m["ncm"] == "07133319" && m["unit"] == "UN" && m["usage_type"] == "00" && m["ibs_cbs_class"] == "200034" {
			found = true
		}
	}
	if !found {
		t.Errorf("the API does not see it: %v", items)
	}
}
