package server

import (
	"strings"
	"testing"
)

// TestPortalPhoneKeyboards: the portal's fields ask a phone for the
// keyboard they take (amounts decimal, CPF/CNPJ, CEP and codes numeric,
// e-mail and phone their own), and the menu is also one button (a
// details element, no script) beside the unit's name and the page's
// title.
func TestPortalPhoneKeyboards(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	for page, wants := range map[string][]string{
		"/portal/contacts" + unit: {`name="register" type="text" value="" inputmode="numeric"`, `name="zip" type="text" value="" inputmode="numeric"`,
			`name="email" type="email"`, `name="phone" type="tel"`},
		"/portal/products" + unit:     {`name="price" type="text" value="" inputmode="decimal"`, `name="gtin" type="text" value="" inputmode="numeric"`},
		"/portal/transactions" + unit: {`name="value" type="text" value="" inputmode="decimal"`},
		"/portal/new-order" + unit:    {`name="quantity" type="text" inputmode="decimal"`, `name="freight_total" type="text" inputmode="decimal"`},
		"/portal/orders" + unit:       {`<details class="menu"><summary>Menu <span class="muted-light">· Pedidos de venda</span></summary>`, `<span class="unit-name">Acme Matriz</span>`},
	} {
		body := b.do("GET", page, nil).Body.String()
		for _, w := range wants {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %s", page, w)
			}
		}
	}
}
