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
	t.Parallel()
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

// TestPortalEditsProduct: a product's page shows its form filled (price and
// NCM as people read them); a wrong CFOP is said beside its field; a
// saved change is seen by the API, its code kept when the field is left
// empty.
func TestPortalEditsProduct(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	path := "/portal/products/" + fx.tokens["product1"] + "?unit=" + fx.tokens["unitA"]
	page := b.do("GET", path, nil).Body.String()
	for _, want := range []string{`value="Parafuso 10mm"`, `value="0,35"`, `value="7318.15.00"`, `value="5102"`, `value="UN"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
	if list := b.do("GET", "/portal/products", nil).Body.String(); !strings.Contains(list, `href="/portal/products/`+fx.tokens["product1"]+`?unit=`) {
		t.Error("the list does not link the product's page")
	}
	form := url.Values{"csrf": {csrf(t, page)}, "type": {"product"}, "description": {"Parafuso 10 mm inox"}, "price": {"1.234,50"}, "unit": {"cx"},
		"ncm": {"7318.15.00"}, "cfop": {"8102"}, "usage_type": {"00"}}
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-cfop">CFOP inválido`) ||
		!strings.Contains(rec.Body.String(), `value="Parafuso 10 mm inox"`) {
		t.Fatalf("a wrong CFOP = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("cfop", "5405")
	if rec := b.do("POST", path, form); rec.Code != 303 || !strings.Contains(b.do("GET", rec.Header().Get("Location"), nil).Body.String(), "Produto ou serviço alterado.") {
		t.Fatalf("save = %d\n%s", rec.Code, rec.Body)
	}
	items := post(t, h, "/list_stock_items_by_unit", `{`+auth+`}`)["data"].(map[string]any)["data"].([]any)
	found := false
	for _, it := range items {
		m := it.(map[string]any)
		if m["id"] == fx.tokens["product1"] {
			found = m["description"] == "Parafuso 10 mm inox" && m["monetary_value"] == "1234.50" && m["cfop"] == "5405" && m["unit"] == "CX" && m["code"] != ""
			if !found {
				t.Errorf("the API sees %v", m)
			}
		}
	}
	if !found {
		t.Error("the product is gone")
	}
	if rec := b.do("GET", "/portal/products/00000000-0000-4000-8000-999999999999?unit="+fx.tokens["unitA"], nil); rec.Code != 404 {
		t.Errorf("an unknown product = %d", rec.Code)
	}
}
