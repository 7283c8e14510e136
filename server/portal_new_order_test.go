package server

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fincom/store"

	"github.com/shopspring/decimal"
)

// TestPortalNewOrder: a person makes a sales order from the portal,
// charged by boleto in two installments and invoiced by NF-e on saving;
// the order's page says both were done and the API sees the order, its
// charges and its invoice; a quantity that is no number is refused in
// Portuguese beside its field.
func TestPortalNewOrder(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	b := signedIn(t, s, ds)
	page := b.do("GET", "/portal/new-order", nil).Body.String()
	if !strings.Contains(page, "Novo pedido de venda") || !strings.Contains(page, "Parafuso 10mm") {
		t.Fatalf("the form:\n%s", page)
	}
	// A sale's category is preselected: the first of services' (the
	// fixture's Assinaturas, before the seeded Prestação de serviços) until a product is
	// chosen (the script switches it to goods', the server decides the
	// same for a form sent without one).
	if !strings.Contains(page, `data-group="services" selected>Assinaturas<`) ||
		!strings.Contains(page, `data-group="goods">Venda de produtos<`) || !strings.Contains(page, `data-kind="product"`) {
		t.Fatalf("the form's category:\n%s", page)
	}
	form := url.Values{"csrf": {csrf(t, page)}, "contact": {fx.tokens["contact2"]}, "item": {fx.tokens["product1"]}, "quantity": {"dez"},
		"date": {"2026-12-10"}, "category": {fx.tokens["category1"]}, "method": {payBoleto}, "provider": {"provider_a"}, "account": {fx.tokens["account1"]},
		"installments": {"2"}, "invoice": {"nfe"}, "email": {"compras@alfa.com.br"}, "charge": {"1"}, "issue": {"1"}}
	path := "/portal/new-order?unit=" + fx.tokens["unitA"]
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-quantity-1">quantidade inválida`) {
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
	// The save is answered by a redirect like any other (a reload of the
	// page repeats nothing) whose page says what failed, once.
	rec = b.do("POST", path, form)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("an invoice that cannot be issued = %d\n%s", rec.Code, rec.Body)
	}
	loc = rec.Header().Get("Location")
	page = b.do("GET", loc, nil).Body.String()
	if !strings.Contains(page, "A nota não foi emitida: Os dados fiscais do pedido estão incompletos:") ||
		!strings.Contains(page, "falta a cidade do cliente com o código do IBGE") {
		t.Fatalf("the page after an invoice that cannot be issued:\n%s", page)
	}
	if page = b.do("GET", loc, nil).Body.String(); strings.Contains(page, "falta a cidade") || !strings.Contains(page, "A nota não foi emitida.") {
		t.Fatalf("the page reloaded:\n%s", page)
	}
}

// TestPortalNewOrderLines: an order of several products is the sum of its
// lines, each line's item and quantity kept on the order; a service is an
// order of its own (mixing it with a product is refused beside its line)
// and is invoiced by a national NFS-e of its LC 116 item and ISS rate,
// which the form asks; a recurring order is marked so.
func TestPortalNewOrderLines(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	nut := post(t, h, "/insert_product_or_service", `{`+auth+`,"description":"Porca 10mm","type":"product","value":"0.20","ncm":"73181600","cfop":"5102","unit":"UN"}`)["token"].(string)
	b := signedIn(t, s, ds)
	page := b.do("GET", "/portal/new-order", nil).Body.String()
	if n := strings.Count(page, `name="item"`); n != 10 {
		t.Fatalf("the form has %d item lines", n)
	}
	path := "/portal/new-order?unit=" + fx.tokens["unitA"]
	form := url.Values{"csrf": {csrf(t, page)}, "contact": {fx.tokens["contact2"]}, "item": {fx.tokens["product1"], "", nut, ""},
		"quantity": {"100", "", "50,1234", "1"}, "date": {"2026-12-10"}, "category": {fx.tokens["category1"]}, "method": {payBoleto},
		"provider": {"provider_a"}, "account": {fx.tokens["account1"]}, "installments": {"1"}, "recurrence": {"1"}}
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-quantity-3">quantidade inválida`) {
		t.Fatalf("a quantity with four decimals' worth = %d\n%s", rec.Code, rec.Body)
	}
	form["quantity"] = []string{"100", "", "50", "1"}
	rec := b.do("POST", path, form)
	if rec.Code != 303 {
		t.Fatalf("save = %d\n%s", rec.Code, rec.Body)
	}
	loc := rec.Header().Get("Location")
	id := strings.TrimPrefix(loc[:strings.Index(loc, "?")], "/portal/orders/")
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if o["value"] != "45.00" || o["recurrence"] != true || !strings.Contains(o["description"].(string), "e outros 1 itens") {
		t.Fatalf("the API sees value %v, recurrence %v, %q", o["value"], o["recurrence"], o["description"])
	}
	// A service with a product: refused beside the service's line.
	form["item"] = []string{fx.tokens["product1"], fx.tokens["service1"]}
	form["quantity"] = []string{"1", "2"}
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-item-2">um pedido é de produtos ou de um único serviço`) {
		t.Fatalf("a service with a product = %d\n%s", rec.Code, rec.Body)
	}
	// A service invoiced by a national NFS-e on saving.
	form["item"], form["quantity"] = []string{fx.tokens["service1"]}, []string{"2"}
	form.Set("invoice", "nfsen")
	form.Set("issue", "1")
	form.Set("recurrence", "")
	form.Set("service_code", "1.07")
	form.Set("iss_rate", "5")
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-service_code">informe o item da lista`) {
		t.Fatalf("a service code without its group = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("service_code", "0107")
	form.Set("iss_rate", "7")
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-iss_rate">alíquota do ISS de 2% a 5%`) {
		t.Fatalf("an ISS of 7%% = %d\n%s", rec.Code, rec.Body)
	}
	form.Set("iss_rate", "2,5")
	rec = b.do("POST", path, form)
	if rec.Code != 303 {
		t.Fatalf("save a service = %d\n%s", rec.Code, rec.Body)
	}
	loc = rec.Header().Get("Location")
	if page := b.do("GET", loc, nil).Body.String(); !strings.Contains(page, "Pedido salvo e nota fiscal emitida.") {
		t.Fatalf("the service order's page:\n%s", page)
	}
	id = strings.TrimPrefix(loc[:strings.Index(loc, "?")], "/portal/orders/")
	o = post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	inv, _ := o["invoice"].(map[string]any)
	if o["value"] != "300.00" || inv == nil || inv["kind"] != "nfsen" || inv["status"] != "AUTHORIZED" {
		t.Fatalf("the API sees value %v, invoice %v", o["value"], o["invoice"])
	}
}

// TestPortalNewOrderOnce: the new order's form carries a one-time key: sent
// again (a reload of the page that said a step failed, a double click,
// back and resend) it makes no second order and shows the one it made.
func TestPortalNewOrderOnce(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	path := "/portal/new-order?unit=" + fx.tokens["unitA"]
	page := b.do("GET", path, nil).Body.String()
	key := regexp.MustCompile(`name="form_key" value="([0-9a-f]{32})"`).FindStringSubmatch(page)
	if key == nil {
		t.Fatalf("the form has no one-time key:\n%s", page)
	}
	// contact1 has no address: the order is saved and its NF-e is not
	// issued (a partly failed save, answered with the order's page).
	form := url.Values{"csrf": {csrf(t, page)}, "form_key": {key[1]}, "contact": {fx.tokens["contact1"]}, "item": {fx.tokens["product1"]},
		"quantity": {"3"}, "date": {"2026-12-10"}, "category": {fx.tokens["category1"]}, "method": {payBoleto}, "provider": {"provider_a"},
		"account": {fx.tokens["account1"]}, "installments": {"1"}, "invoice": {"nfe"}, "issue": {"1"}}
	orders := func() int {
		return len(post(t, h, "/list_sales_orders", `{`+auth+`,"date_from":"2026-01-01","date_to":"2027-12-31"}`)["data"].([]any))
	}
	before := orders()
	first := b.do("POST", path, form)
	if first.Code != http.StatusSeeOther || !strings.Contains(b.do("GET", first.Header().Get("Location"), nil).Body.String(), "A nota não foi emitida") {
		t.Fatalf("a partly failed save = %d\n%s", first.Code, first.Body)
	}
	for range 2 {
		again := b.do("POST", path, form)
		if again.Code != http.StatusSeeOther || !strings.Contains(again.Header().Get("Location"), "feito=repetido") {
			t.Fatalf("the same form again = %d %s", again.Code, again.Header().Get("Location"))
		}
	}
	if n := orders(); n != before+1 {
		t.Fatalf("%d orders made by one form sent three times", n-before)
	}
	// A new form is a new order.
	fresh := b.do("GET", path, nil).Body.String()
	form.Set("form_key", regexp.MustCompile(`name="form_key" value="([0-9a-f]{32})"`).FindStringSubmatch(fresh)[1])
	if rec := b.do("POST", path, form); rec.Code != http.StatusSeeOther || orders() != before+2 {
		t.Fatalf("a new form = %d, %d orders", rec.Code, orders()-before)
	}
}

// TestPortalRegistersOnce: the new contact, product and contract forms
// carry a one-time key; sent again (a double click, back and resend) they
// make nothing twice and say so. A form refused keeps its key: corrected,
// it makes its record.
func TestPortalRegistersOnce(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	tpl := post(t, h, "/insert_contract_template", `{`+auth+`,"name":"Prestação de serviços","body_html":"<p>Contrato com {{contato_nome}}</p>"}`)["token"].(string)
	formKey := regexp.MustCompile(`name="form_key" value="([0-9a-f]{32})"`)
	for _, c := range []struct {
		list string
		form url.Values
		bad  [2]string // a field and a value refused
		name string    // what the list shows once
	}{
		{"contacts", url.Values{"type": {"legal"}, "register": {"45.789.123/0001-91"}, "name": {"Comercial Horizonte Ltda"}, "email": {"fin@horizonte.com.br"},
			"zip": {"01310-100"}, "address": {"Avenida Paulista"}, "number": {"1000"}, "district": {"Bela Vista"}, "city": {"São Paulo"}, "state": {"sp"}},
			[2]string{"zip", "0131"}, "Comercial Horizonte Ltda"},
		{"products", url.Values{"type": {"product"}, "description": {"Feijão carioca 1 kg"}, "price": {"8,99"}, "unit": {"un"}, "ncm": {"0713.33.19"}, "cfop": {"5102"},
			"ibs_cbs_cst": {"200"}, "ibs_cbs_class": {"200034"}}, [2]string{"ncm", "12"}, "Feijão carioca 1 kg"},
		{"contracts", url.Values{"template": {tpl}, "contact": {fx.tokens["contact2"]}, "name": {"Suporte mensal"}, "start": {"2026-12-01"}, "recurrence": {"monthly"}},
			[2]string{"end", "2026-11-01"}, "Suporte mensal"},
	} {
		list := "/portal/" + c.list + "?unit=" + fx.tokens["unitA"]
		page := b.do("GET", list, nil).Body.String()
		key := formKey.FindStringSubmatch(page)
		if key == nil {
			t.Errorf("%s: the form has no one-time key", c.list)
			continue
		}
		c.form.Set("csrf", csrf(t, page))
		c.form.Set("form_key", key[1])
		good := c.form.Get(c.bad[0])
		c.form.Set(c.bad[0], c.bad[1])
		if rec := b.do("POST", list, c.form); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), key[1]) {
			t.Errorf("%s: refused = %d, or its form lost its key", c.list, rec.Code)
		}
		c.form.Set(c.bad[0], good)
		var shown [2]int
		for i, want := range []string{"criado=1", "criado=repetido"} {
			rec := b.do("POST", list, c.form)
			if rec.Code != http.StatusSeeOther || !strings.Contains(rec.Header().Get("Location"), want) {
				t.Errorf("%s: send %d = %d %s", c.list, i+1, rec.Code, rec.Header().Get("Location"))
			}
			page = b.do("GET", rec.Header().Get("Location"), nil).Body.String()
			shown[i] = strings.Count(page, c.name)
		}
		if shown[0] == 0 || shown[1] != shown[0] || !strings.Contains(page, "Este formulário já tinha sido enviado") {
			t.Errorf("%s: shown %d times after one send, %d after two:\n%s", c.list, shown[0], shown[1], page)
		}
	}
}

// TestPortalNewOrderTenLines: without the page's script, an office
// manager asks for more lines, types ten products by code or by a part of
// their name, with freight paid by the customer; the order is the sum of
// the lines, its charge the sum with the freight; a name that fits two
// products, or freight without a mode, is refused beside its field.
func TestPortalNewOrderTenLines(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	// A firm of the normal regime: its NF-e states ICMS, PIS and COFINS.
	normalRegime(t, ds)
	var typed, qtys []string
	want := decimal.Zero
	for i := 1; i <= 10; i++ {
		price := decimal.New(int64(100*i+37), -2) // 1,37, 2,37, … 10,37
		gtin := ""
		if i == 7 {
			gtin = `,"gtin":"7891000315507"`
		}
		post(t, h, "/insert_product_or_service", fmt.Sprintf(`{`+auth+`,"code":"PX%02d","description":"Peça modelo %c","type":"product","value":"%s","ncm":"73181600","cfop":"5102","unit":"UN"%s}`,
			i, 'A'+i-1, price.StringFixed(2), gtin))
		// Half by code, half by a part of the name, any case; one by its
		// GTIN, as a bar code reader types it.
		switch {
		case i == 7:
			typed = append(typed, "7891000315507")
			qtys = append(qtys, strconv.Itoa(i))
			want = want.Add(price.Mul(decimal.NewFromInt(int64(i))))
			continue
		case i%2 == 0:
			typed = append(typed, fmt.Sprintf("PX%02d", i))
		default:
			typed = append(typed, fmt.Sprintf("peça modelo %c", 'a'+i-1))
		}
		qtys = append(qtys, strconv.Itoa(i))
		want = want.Add(price.Mul(decimal.NewFromInt(int64(i))))
	}
	if rec := do(h, http.MethodPost, "/insert_product_or_service", `{`+auth+`,"description":"Sem código","type":"product","value":"1","gtin":"7891000315508"}`); rec.Code != 400 ||
		!strings.Contains(rec.Body.String(), "Invalid gtin.") {
		t.Fatalf("a GTIN of a wrong digit = %d %s", rec.Code, rec.Body)
	}
	b := signedIn(t, s, ds)
	path := "/portal/new-order?unit=" + fx.tokens["unitA"]
	page := b.do("GET", path, nil).Body.String()
	if !strings.Contains(page, `<option value="PX03 · Peça modelo C" data-price="3.37" data-kind="product">R$ 3,37</option>`) ||
		!strings.Contains(page, `>R$ 7,37 · GTIN 7891000315507</option>`) {
		t.Fatalf("the items to pick:\n%s", page)
	}
	form := url.Values{"csrf": {csrf(t, page)}, "contact": {fx.tokens["contact2"]}, "date": {"2026-12-10"}, "category": {fx.tokens["category1"]},
		"method": {payBoleto}, "provider": {"provider_a"}, "account": {fx.tokens["account1"]}, "installments": {"1"}, "invoice": {"nfe"},
		"item": typed[:3], "quantity": qtys[:3], "more": {"1"}}
	more := b.do("POST", path, form)
	if more.Code != 200 || strings.Count(more.Body.String(), `name="item"`) != 13 || !strings.Contains(more.Body.String(), `value="peça modelo c"`) {
		t.Fatalf("more lines = %d: %d lines", more.Code, strings.Count(more.Body.String(), `name="item"`))
	}
	form.Del("more")
	form["item"], form["quantity"] = append(slices.Clone(typed), ""), append(slices.Clone(qtys), "")
	form.Set("freight_total", "25,90")
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-freight_mode">há valor de frete`) {
		t.Fatalf("freight without a mode = %d", rec.Code)
	}
	form.Set("freight_mode", "1")
	form["item"][4] = "peça"
	if rec := b.do("POST", path, form); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-item-5">escolha um produto`) {
		t.Fatalf("a name of many = %d", rec.Code)
	}
	form["item"][4] = typed[4]
	form.Set("charge", "1")
	form.Set("issue", "1")
	rec := b.do("POST", path, form)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("save = %d\n%s", rec.Code, rec.Body)
	}
	loc := rec.Header().Get("Location")
	id := strings.TrimPrefix(loc[:strings.Index(loc, "?")], "/portal/orders/")
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	// 1,37×1 + 2,37×2 + … + 10,37×10 = 385 + 0,37×55 = 405,35; with
	// R$ 25,90 of freight the charge is 431,25.
	if want.StringFixed(2) != "405.35" || o["value"] != "405.35" || o["freight_mode"] != float64(1) || o["freight_total"] != "25.90" {
		t.Fatalf("the order: value %v, freight %v %v", o["value"], o["freight_mode"], o["freight_total"])
	}
	if c := o["charges"].([]any)[0].(map[string]any); c["amount"] != "431.25" {
		t.Fatalf("the charge: %v", c)
	}
	// The order's page: the ten lines as sold, the freight, the total, the
	// taxes the NF-e states (ICMS 18 % of 431,25 with the freight =
	// 77,63; PIS 0,65 % and COFINS 3 % of the goods' 405,35, line by line:
	// 2,64 and 12,16), the charge, the invoice and what was done.
	page = b.do("GET", loc, nil).Body.String()
	for _, w := range []string{"PX10", "Peça modelo J", "R$ 10,37", "R$ 103,70", "Frete</td><td class=\"num\">R$ 25,90", "<strong>R$ 431,25</strong>",
		"ICMS: R$ 77,63", "PIS: R$ 2,64", "COFINS: R$ 12,16", "NF-e autorizada", "Parcela 1</strong> · Boleto",
		"Histórico", "Bia &lt;bia@example.com&gt;"} {
		if !strings.Contains(page, w) {
			t.Errorf("the order's page lacks %q", w)
		}
	}
	if n := strings.Count(page, "<td>Peça modelo "); n != 10 {
		t.Errorf("the order's page lists %d lines", n)
	}
	// The NF-e names the product of the GTIN by it (cEAN, cEANTrib).
	db, release := acquire(t, ds)
	inv, err := db.OrderInvoice(context.Background(), 1, id)
	release()
	if err != nil || !strings.Contains(inv.XML, "<cEAN>7891000315507</cEAN>") || !strings.Contains(inv.XML, "<cEANTrib>7891000315507</cEANTrib>") ||
		strings.Count(inv.XML, "<cEAN>SEM GTIN</cEAN>") != 9 {
		t.Errorf("the NF-e's GTIN: %v", err)
	}
	// The "Pedido de venda" PDF, read back by pdftotext: every line, the
	// freight, the total, the customer, the boleto's terms.
	pdf := b.do("GET", "/portal/orders/"+id+"/pedido.pdf?unit="+fx.tokens["unitA"], nil)
	if pdf.Code != 200 || pdf.Header().Get("Content-Type") != "application/pdf" {
		t.Fatalf("the order's PDF = %d %s", pdf.Code, pdf.Header().Get("Content-Type"))
	}
	text := pdfToText(t, pdf.Body.Bytes())
	for i := 1; i <= 10; i++ {
		line := regexp.MustCompile(fmt.Sprintf(`PX%02d\s+Peça modelo %c\s+%d UN\s+R\$ %d,37\s+R\$ `, i, 'A'+i-1, i, i))
		if !line.MatchString(text) {
			t.Errorf("the PDF lacks line %d:\n%s", i, text)
		}
	}
	for _, w := range []string{"Pedido de venda PV-", "Acme Matriz", "Maria da Silva", "Frete: R$ 25,90", "Total do pedido: R$ 431,25",
		"Pagamento: Boleto bancário", "Parcela 1 · vence em 10/12/2026 · R$ 431,25"} {
		if !strings.Contains(text, w) {
			t.Errorf("the PDF lacks %q:\n%s", w, text)
		}
	}
	// Duplicar pedido: the form filled with its lines, quantities and
	// freight; saved, it makes an order of the same value.
	dup := b.do("GET", "/portal/new-order?unit="+fx.tokens["unitA"]+"&copiar="+id, nil).Body.String()
	for _, w := range []string{`value="PX10 · Peça modelo J"`, `id="campo-quantity-10" name="quantity" type="text" inputmode="decimal" size="6" value="10"`,
		`value="25,90"`, `<option value="1" selected>`} {
		if !strings.Contains(dup, w) {
			t.Errorf("the duplicate's form lacks %s", w)
		}
	}
	copyForm := url.Values{"csrf": {csrf(t, dup)}}
	for _, m := range regexp.MustCompile(`<input id="campo-[a-z_]+(?:-\d+)?" name="([a-z_]+)" type="(?:text|search|date|email|number)"[^>]*? value="([^"]*)"`).FindAllStringSubmatch(dup, -1) {
		copyForm.Add(m[1], html.UnescapeString(m[2]))
	}
	for _, m := range regexp.MustCompile(`(?s)<select id="campo-([a-z_]+)" name="[a-z_]+"[^>]*>.*?</select>`).FindAllStringSubmatch(dup, -1) {
		if sel := regexp.MustCompile(`<option value="([^"]*)"[^>]*selected`).FindStringSubmatch(m[0]); sel != nil {
			copyForm.Set(m[1], sel[1])
		}
	}
	copyForm.Set("form_key", regexp.MustCompile(`name="form_key" value="([0-9a-f]{32})"`).FindStringSubmatch(dup)[1])
	rec = b.do("POST", path, copyForm)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("the duplicate saved = %d\n%s", rec.Code, rec.Body)
	}
	loc = rec.Header().Get("Location")
	copied := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+strings.TrimPrefix(loc[:strings.Index(loc, "?")], "/portal/orders/")+`"}`)["data"].(map[string]any)
	if copied["value"] != "405.35" || copied["freight_total"] != "25.90" || copied["id_token"] == id {
		t.Fatalf("the duplicate: value %v, freight %v", copied["value"], copied["freight_total"])
	}
}

// TestChargeMailCarriesOrderPDF: when the unit asks for it (Configurações),
// the charge's e-mail carries the order's "Pedido de venda" PDF with the
// charge's PIX code; by default it does not.
func TestChargeMailCarriesOrderPDF(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	pdfs := func() []string {
		db, release := acquire(t, ds)
		defer release()
		mails, err := db.Outbox(context.Background(), store.EveryUnit, 50)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range mails {
			for _, a := range m.Attachments {
				if m.Kind == "charge_created" && a.ContentType == "application/pdf" {
					out = append(out, a.Name)
				}
			}
		}
		return out
	}
	charge := func() string {
		body := strings.Replace(productOrder, `"description":"Parafusos"`, `"description":"Parafusos","notify_email_charge":"fin@beta.com.br"`, 1)
		id := post(t, h, "/insert_sales_order", body)["data"].(map[string]any)["id"].(string)
		post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
		return post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["cod_orders"].(string)
	}
	charge()
	if got := pdfs(); len(got) != 0 {
		t.Fatalf("a PDF by default: %v", got)
	}
	page := b.do("GET", "/portal/settings"+unit, nil).Body.String()
	if rec := b.do("POST", "/portal/settings/order-pdf"+unit, url.Values{"csrf": {csrf(t, page)}, "order_pdf": {"1"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("the setting = %d", rec.Code)
	}
	code := charge()
	if got := pdfs(); len(got) != 1 || got[0] != "pedido-"+code+".pdf" {
		t.Fatalf("the charge's e-mail carries %v", got)
	}
	db, release := acquire(t, ds)
	pending, err := db.DueMail(context.Background(), 50)
	release()
	if err != nil {
		t.Fatal(err)
	}
	var data []byte
	for _, m := range pending {
		for _, a := range m.Attachments {
			if a.Name == "pedido-"+code+".pdf" {
				data = a.Data
			}
		}
	}
	if text := pdfToText(t, data); !strings.Contains(text, "Pedido de venda "+code) || !strings.Contains(text, "PIX copia e cola:") || !strings.Contains(text, "Total do pedido: R$ 47,30") {
		t.Fatalf("the attached PDF:\n%s", text)
	}
}
