package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"fincom/store"
)

// Payment method tokens are the same in every domain (store/seed.go).
const (
	payBoleto   = "6d2ddf64-ee2f-588d-909e-724066befa2b"
	payPix      = "fb3245d4-428b-51de-95df-55e8263d2292"
	payTransfer = "04997d3d-77fd-563b-b7a7-fd5b41cd6438"
)

// serviceOrder is a complete grouped order for a service with an NFS-e.
const serviceOrder = `{` + auth + `,
	"pv": {"id_token_contact":"{{contact1}}","id_token_stock_item":"{{service1}}","description":"Instalação de rede","value":1500,"quantity":2,
		"observation_sales":"cliente novo","notify_email_charge":"fin@alfa.com.br","notify_email_nf":"nf@alfa.com.br"},
	"faturamento": {"id_token_category":"{{category1}}","estimated_payment_date":"2026-11-30","id_token_bank_account":"{{account1}}",
		"id_token_project":"{{project1}}","recurrence":true,"in_automation":true},
	"charge": {"payment_type":"` + payBoleto + `","provider_bank":"provider_a","installment_credit":1,"notify_days_charge":3},
	"nf": {"nf_kind":"nfse","service_id_token":"SRV-0107","service_cod":"01.07","service_location":"3550308",
		"tax_service_gross_amount":1500,"tax_iss_rate_percent":5,"tax_iss_amount":75,
		"retencoes":{"ret_ir_rate_percent":1.5,"ret_ir_amount":22.5,"ret_total_amount":22.5},"net_receivable_amount":1477.5}
}`

// The same order in the legacy flat form, with synonyms.
const serviceOrderFlat = `{` + auth + `,
	"id_contact":"{{contact1}}","id_stock_item":"{{service1}}","description":"Instalação de rede","value":"1500","quantity":"2",
	"observation_sales":"cliente novo","notify_email_charge":"fin@alfa.com.br","notify_email_nf":"nf@alfa.com.br",
	"id_token_category":"{{category1}}","estimated_payment_date":"2026-11-30","id_token_bank_account":"{{account1}}",
	"id_token_project":"{{project1}}","recurrence":true,"in_automation":true,
	"payment_type":"` + payBoleto + `","generate_with_provider_a":true,"installment_credit":"1","notify_days_charge":3,
	"nf_kind":"nfse","service_id":"SRV-0107","service_code":"01.07","service_location":"3550308",
	"impostos":{"tax_service_gross_amount":"1500.00","tax_iss_rate_percent":"5","tax_iss_amount":75},
	"ret_ir_rate_percent":1.5,"ret_ir_amount":22.5,"ret_total_amount":22.5,"net_receivable_amount":"1477.50"
}`

const productOrder = `{` + auth + `,
	"pv": {"id_token_contact":"{{contact2}}","products":[{"token":"{{product1}}","quantity":100}],"description":"Parafusos","value":35},
	"faturamento": {"id_token_category":"{{category1}}","estimated_payment_date":"2026-12-10"},
	"charge": {"payment_type":"` + payPix + `","charge_pix_key":"pix@acme.com.br"},
	"nf": {"nf_kind":"nfe","tipo_documento":1,"finalidade_emissao":"1","presenca_comprador":"2","consumidor_final":"1","freight_mode":"1","freight_total":12.3,"local_destino":2}
}`

const listNov = `{` + auth + `,"date_from":"2026-11-01","date_to":"2026-12-31"}`

// formatField checks that a 422 "Invalid parameter format" names its
// field in details.field (TestSalesOrders).
func formatField(field string) func(*testing.T, map[string]any) {
	return func(t *testing.T, r map[string]any) {
		t.Helper()
		if d, _ := r["details"].(map[string]any); d == nil || d["field"] != field {
			t.Errorf("details %v, want field %s", r["details"], field)
		}
	}
}

func TestSalesOrders(t *testing.T) {
	t.Parallel()
	run(t, []scenario{
		{name: "insert answer", path: "/insert_sales_order", body: serviceOrder, status: 200, golden: "sales_orders/insert_answer"},
		{name: "listed", path: "/list_sales_orders", before: []call{{"/insert_sales_order", serviceOrder}, {"/insert_sales_order", productOrder}},
			body: listNov, status: 200, golden: "sales_orders/listed"},
		{name: "by id", path: "/get_sales_order_by_id", before: []call{{"/insert_sales_order", serviceOrder}},
			body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`, status: 200, golden: "sales_orders/by_id"},
		{name: "legacy products form", path: "/list_sales_orders", before: []call{{"/insert_sales_order", strings.Replace(productOrder,
			`"products":[{"token":"{{product1}}","quantity":100}]`, `"product_id_tokens":["{{product1}}","{{product1}}"],"product_qtys":[60,"40"]`, 1)}},
			body: listNov, status: 200, check: func(t *testing.T, r map[string]any) {
				o := r["data"].([]any)[0].(map[string]any)
				if o["products_qty"] != "60,40" || len(o["product_id_tokens"].([]any)) != 2 {
					t.Errorf("order %v %v", o["products_qty"], o["product_id_tokens"])
				}
			}},
		{name: "codes are sequential", path: "/list_sales_orders", before: []call{{"/insert_sales_order", serviceOrder}, {"/insert_sales_order", serviceOrder}},
			body: `{` + auth + `,"date_from":"2026-11-01","date_to":"2026-12-31","code_orders":"PV-000002"}`, status: 200, check: wantCount(1)},

		// Filters.
		{name: "filter contact", path: "/list_sales_orders", before: []call{{"/insert_sales_order", serviceOrder}, {"/insert_sales_order", productOrder}},
			body: `{` + auth + `,"date_from":"2026-11-01","date_to":"2026-12-31","id_token_contact":"{{contact2}}"}`, status: 200, check: wantCount(1)},
		{name: "filter stock item", path: "/list_sales_orders", before: []call{{"/insert_sales_order", serviceOrder}, {"/insert_sales_order", productOrder}},
			body: `{` + auth + `,"date_from":"2026-11-01","date_to":"2026-12-31","id_token_stock_item":"{{service1}}"}`, status: 200, check: wantCount(1)},
		{name: "filter stock item of a product line", path: "/list_sales_orders", before: []call{{"/insert_sales_order", serviceOrder}, {"/insert_sales_order", productOrder}},
			body: `{` + auth + `,"date_from":"2026-11-01","date_to":"2026-12-31","id_token_stock_item":"{{product1}}"}`, status: 200, check: wantCount(1)},
		{name: "filter project", path: "/list_sales_orders", before: []call{{"/insert_sales_order", serviceOrder}, {"/insert_sales_order", productOrder}},
			body: `{` + auth + `,"date_from":"2026-11-01","date_to":"2026-12-31","id_token_project":"{{project1}}"}`, status: 200, check: wantCount(1)},
		{name: "filter category", path: "/list_sales_orders", before: []call{{"/insert_sales_order", serviceOrder}},
			body: `{` + auth + `,"date_from":"2026-11-01","date_to":"2026-12-31","id_token_category":"{{category1}}"}`, status: 200, check: wantCount(1)},
		{name: "filter dates", path: "/list_sales_orders", before: []call{{"/insert_sales_order", serviceOrder}, {"/insert_sales_order", productOrder}},
			body: `{` + auth + `,"date_from":"2026-12-01","date_to":"2026-12-31"}`, status: 200, check: wantCount(1)},
		{name: "filter inactive", path: "/list_sales_orders", before: []call{{"/insert_sales_order", serviceOrder}, {"/insert_sales_order", productOrder},
			{"/disable_sales_order", `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`}},
			body: `{` + auth + `,"date_from":"2026-11-01","date_to":"2026-12-31","active":false}`, status: 200, check: wantCount(1)},
		{name: "active not sent lists both", path: "/list_sales_orders", before: []call{{"/insert_sales_order", serviceOrder}, {"/insert_sales_order", productOrder},
			{"/disable_sales_order", `{` + auth + `,"token":"00000000-0000-4000-8001-000000000001"}`}},
			body: listNov, status: 200, check: wantCount(2)},
		{name: "other unit sees none", path: "/list_sales_orders", before: []call{{"/insert_sales_order", serviceOrder}},
			body: `{"access_token":"{{access}}","unit_token":"{{unitB}}","date_from":"2026-11-01","date_to":"2026-12-31"}`, status: 200, check: wantCount(0)},
		{name: "list dates missing", path: "/list_sales_orders", body: `{` + auth + `,"date_from":"2026-11-01"}`, status: 400, text: "Parâmetros de data são obrigatórios."},
		{name: "list bad token", path: "/list_sales_orders", body: `{"access_token":"x","unit_token":"{{unitA}}","date_from":"2026-11-01","date_to":"2026-11-30"}`, status: 403, text: "Invalid data"},
		{name: "list missing token", path: "/list_sales_orders", body: `{"unit_token":"{{unitA}}"}`, status: 403, text: "Invalid data"},

		// Insert errors.
		{name: "missing fields", path: "/insert_sales_order", body: `{` + auth + `,"pv":{"description":"x"},"charge":{"payment_type":"` + payPix + `"}}`, status: 400,
			text: "Missing required fields", golden: "sales_orders/missing_fields"},
		{name: "nfse needs stock item and service", path: "/insert_sales_order", body: strings.Replace(strings.Replace(serviceOrder, `"id_token_stock_item":"{{service1}}",`, ``, 1), `"service_id_token":"SRV-0107",`, ``, 1), status: 400,
			text: "Missing required fields", check: func(t *testing.T, r map[string]any) {
				d := r["details"].(map[string]any)
				if b, _ := json.Marshal(d); string(b) != `{"group":"pv","missing_fields":["pv.id_token_stock_item","nf.service_id_token"]}` {
					t.Errorf("details %s", b)
				}
			}},
		{name: "transfer needs account", path: "/insert_sales_order", body: strings.Replace(serviceOrder, payBoleto, payTransfer, 1), status: 400, text: "Missing required fields",
			check: func(t *testing.T, r map[string]any) {
				if b, _ := json.Marshal(r["details"]); string(b) != `{"group":"charge","missing_fields":["charge.bankAccountPayment"]}` {
					t.Errorf("details %s", b)
				}
			}},
		{name: "installment credit zero", path: "/insert_sales_order", body: strings.Replace(serviceOrder, `"installment_credit":1`, `"installment_credit":0`, 1), status: 422, text: "Invalid parameter format", check: formatField("charge.installment_credit")},
		{name: "tax not numeric", path: "/insert_sales_order", body: strings.Replace(serviceOrder, `"tax_iss_amount":75`, `"tax_iss_amount":"setenta"`, 1), status: 422, text: "Invalid parameter format", check: formatField("nf.tax_iss_amount")},
		{name: "bad date", path: "/insert_sales_order", body: strings.Replace(serviceOrder, `"2026-11-30"`, `"30/11/2026"`, 1), status: 422, text: "Invalid parameter format", check: formatField("faturamento.estimated_payment_date")},
		{name: "bad nf kind", path: "/insert_sales_order", body: strings.Replace(serviceOrder, `"nf_kind":"nfse"`, `"nf_kind":"nfx"`, 1), status: 422, text: "Invalid parameter format", check: formatField("nf.nf_kind")},
		{name: "bad freight mode", path: "/insert_sales_order", body: strings.Replace(productOrder, `"freight_mode":"1"`, `"freight_mode":"5"`, 1), status: 422, text: "Invalid parameter format", check: formatField("nf.freight_mode")},
		{name: "bad provider", path: "/insert_sales_order", body: strings.Replace(serviceOrder, `"provider_a"`, `"provider_z"`, 1), status: 422, text: "Invalid parameter format", check: formatField("charge.provider_bank")},
		{name: "conflicting providers", path: "/insert_sales_order", body: strings.Replace(serviceOrder, `"provider_bank":"provider_a"`, `"provider_bank":"provider_a","generate_provider_b":true`, 1), status: 422, text: "Invalid parameter format", check: formatField("charge.provider_bank")},
		{name: "value wrong type", path: "/insert_sales_order", body: strings.Replace(serviceOrder, `"value":1500`, `"value":[1500]`, 1), status: 422, text: "Invalid parameter format", check: formatField("pv.value")},
		{name: "group not object", path: "/insert_sales_order", body: `{` + auth + `,"pv":"x"}`, status: 422, text: "Invalid parameter format", check: formatField("pv")},
		{name: "token not a string", path: "/insert_sales_order", body: strings.Replace(serviceOrder, `"access_token":"{{access}}"`, `"access_token":7`, 1), status: 422, text: "Invalid parameter format", check: formatField("access_token")},
		{name: "product id_token alias", path: "/insert_sales_order", body: strings.Replace(productOrder, `"token":"{{product1}}","quantity":100`, `"id_token":"{{product1}}","qty":100`, 1), status: 200},
		{name: "product without quantity", path: "/insert_sales_order", body: strings.Replace(productOrder, `,"quantity":100`, ``, 1), status: 422, text: "Invalid parameter format", check: formatField("pv.products[0].quantity")},
		{name: "product quantity wrong type", path: "/insert_sales_order", body: strings.Replace(productOrder, `"quantity":100`, `"quantity":"cem"`, 1), status: 422, text: "Invalid parameter format", check: formatField("pv.products[0].quantity")},
		{name: "product not object", path: "/insert_sales_order", body: strings.Replace(productOrder, `[{"token":"{{product1}}","quantity":100}]`, `[{"token":"{{product1}}","quantity":1},"x"]`, 1), status: 422, text: "Invalid parameter format", check: formatField("pv.products[1]")},
		{name: "legacy quantities short", path: "/insert_sales_order", body: strings.Replace(productOrder, `"products":[{"token":"{{product1}}","quantity":100}]`, `"product_id_tokens":["{{product1}}"],"product_qtys":[]`, 1), status: 422, text: "Invalid parameter format", check: formatField("pv.product_qtys")},
		{name: "negative freight", path: "/insert_sales_order", body: strings.Replace(productOrder, `"freight_total":12.3`, `"freight_total":-1`, 1), status: 422, text: "Invalid parameter format", check: formatField("nf.freight_total")},
		{name: "unknown contact", path: "/insert_sales_order", body: strings.Replace(serviceOrder, `"id_token_contact":"{{contact1}}"`, `"id_token_contact":"{{contactB}}"`, 1), status: 403, text: "Invalid data"},
		{name: "expense category", path: "/insert_sales_order", body: strings.Replace(serviceOrder, `"id_token_category":"{{category1}}"`, `"id_token_category":"nope"`, 1), status: 403, text: "Invalid data"},
		{name: "bad token", path: "/insert_sales_order", body: strings.Replace(serviceOrder, `"access_token":"{{access}}"`, `"access_token":"{{revoked}}"`, 1), status: 403, text: "Invalid data"},
		{name: "missing tokens", path: "/insert_sales_order", body: `{"pv":{}}`, status: 400, text: "Missing required fields"},

		{name: "by id unknown", path: "/get_sales_order_by_id", body: `{` + auth + `,"id_token":"x"}`, status: 404, text: "Sales order not found or not updated."},
		{name: "enable other unit", path: "/enable_sales_order", before: []call{{"/insert_sales_order", serviceOrder}},
			body: `{"access_token":"{{access}}","unit_token":"{{unitB}}","id_token":"00000000-0000-4000-8001-000000000001"}`, status: 404, text: "Sales order not found or not updated."},
	})
}

// TestSalesOrderForms: the grouped and the flat form store the same order.
func TestSalesOrderForms(t *testing.T) {
	t.Parallel()
	get := func(body string) string {
		s, _ := newTestServer(t)
		h := s.Handler()
		id := post(t, h, "/insert_sales_order", body)["data"].(map[string]any)["id"].(string)
		b, _ := json.Marshal(post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`))
		return string(b)
	}
	grouped, flat := get(serviceOrder), get(serviceOrderFlat)
	if grouped != flat {
		t.Fatalf("forms differ:\ngrouped %s\nflat    %s", grouped, flat)
	}
}

// TestSalesOrderSynonyms: every synonym of the spec lands in its field.
func TestSalesOrderSynonyms(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	body := `{` + auth + `,
		"pv": {"id_token_contact":"{{contact1}}","id_token_stock_item":"{{service1}}","description":"X","value":10},
		"faturamento": {"id_token_category":"{{category1}}"},
		"charge": {"payment_type":"` + payTransfer + `","installment":3,"pix_key":"Chave@Pix.com.br","id_token_bank_account_payment":"{{account1}}",
			"estimated_payment_date":"2026-12-05","generate_provider_c":true},
		"nf": {"nf_kind":"nfsen","service_id":"S1","service_assoc_id":"A1","service_code":"07.02"}
	}`
	id := post(t, h, "/insert_sales_order", body)["data"].(map[string]any)["id"].(string)
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"token":"`+id+`"}`)["data"].(map[string]any)
	cc := o["charge_config"].(map[string]any)
	ic := o["invoice_config"].(map[string]any)
	for _, c := range []struct {
		got  any
		want any
	}{
		{cc["installments"], 3.0}, {o["pix_key"], "chave@pix.com.br"}, {cc["id_token_bank_account_payment"], fx.tokens["account1"]},
		{o["estimated_payment_date"], "2026-12-05T00:00:00.000Z"}, {cc["provider_bank"], "provider_c"},
		{ic["service_id_token"], "S1"}, {o["service_assoc_id"], "A1"}, {o["service_cod"], "07.02"}, {o["nf_kind"], "nfsen"},
	} {
		if c.got != c.want {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
}

// TestOrderLinesAsSold: an order keeps each product line as it was sold.
// The product's later price and name change neither the order, its
// listing, its invoice, nor the copies its recurrence makes; an invoice
// whose lines do not add up to the order's value is refused, the
// difference named.
func TestOrderLinesAsSold(t *testing.T) {
	t.Parallel()
	h := testModeServer(t)
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	post(t, h, "/update_product_or_service", `{`+auth+`,"id_token":"{{product1}}","monetary_value":"40.00"}`)
	order := strings.NewReplacer(`"quantity":100}],"description":"Parafusos","value":35`, `"quantity":2}],"description":"Parafusos","value":80`,
		`"local_destino":2`, `"local_destino":1`, `"freight_mode":"1","freight_total":12.3`, `"freight_mode":"9"`,
		`"estimated_payment_date":"2026-12-10"}`, `"estimated_payment_date":"2026-12-10","recurrence":true}`).Replace(productOrder)
	id := post(t, h, "/insert_sales_order", order)["data"].(map[string]any)["id"].(string)
	post(t, h, "/update_product_or_service", `{`+auth+`,"id_token":"{{product1}}","monetary_value":"55.00","description":"Parafuso 12mm"}`)

	want := func(where string, lines []any) {
		t.Helper()
		l := lines[0].(map[string]any)
		if len(lines) != 1 || l["unit_value"] != "40.00" || l["total"] != "80.00" || l["description"] != "Parafuso 10mm" || l["code"] != "000001" ||
			l["ncm"] != "73181500" || l["cfop"] != "5102" || l["unit"] != "UN" || l["quantity"] != "2" {
			t.Fatalf("%s: lines %v", where, lines)
		}
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	want("get_sales_order_by_id", o["products"].([]any))
	listed := post(t, h, "/list_sales_orders", `{`+auth+`,"date_from":"2026-12-01","date_to":"2026-12-31"}`)["data"].([]any)
	want("list_sales_orders", listed[0].(map[string]any)["products"].([]any))

	post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicToken(t, h, id), "").Body.String()
	for _, w := range []string{"<vUnCom>40.0000000000</vUnCom>", "<vProd>80.00</vProd>", "<vNF>80.00</vNF>", "<xProd>Parafuso 10mm</xProd>", "<cProd>000001</cProd>"} {
		if !strings.Contains(xml, w) {
			t.Errorf("the NF-e lacks %s", w)
		}
	}

	// The recurrence's copy for January bills what the origin sold.
	post(t, h, "/_test/clock", `{"access_token":"{{access}}","advance":"P41D"}`)
	jan := post(t, h, "/list_sales_orders", `{`+auth+`,"date_from":"2027-01-01","date_to":"2027-01-31"}`)["data"].([]any)
	if len(jan) != 1 {
		t.Fatalf("January: %v", jan)
	}
	want("the recurrence's copy", jan[0].(map[string]any)["products"].([]any))

	// An order whose value is not what its lines add up to cannot be
	// invoiced.
	odd := strings.Replace(order, `"value":80`, `"value":100`, 1)
	id2 := post(t, h, "/insert_sales_order", odd)["data"].(map[string]any)["id"].(string)
	rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id2+`"}`)
	if rec.Code != 422 || !strings.Contains(rec.Body.String(), `"field":"pv.value","message":"the order's lines add up to 110.00 but its value is 100.00 (a difference of -10.00)"`) {
		t.Fatalf("mismatched order: %d %s", rec.Code, rec.Body.String())
	}
}

// publicToken is an order's public token, given it has one.
func publicToken(t *testing.T, h http.Handler, id string) string {
	t.Helper()
	u := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["invoice"].(map[string]any)["xml_url"].(string)
	return u[strings.LastIndex(u, "/")+1:]
}

// TestPixKeyEntersNormalized: an order's or a contract's PIX key is kept
// in the form the DICT registers, and a text that is no key is refused
// naming its field; the static BR Code carries the normalized key.
func TestPixKeyEntersNormalized(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	// Without a key of its own or the unit's, a PIX order is refused.
	noKey := strings.Replace(productOrder, `,"charge_pix_key":"pix@acme.com.br"`, ``, 1)
	if rec := do(h, http.MethodPost, "/insert_sales_order", noKey); rec.Code != 400 || !strings.Contains(rec.Body.String(), "charge.charge_pix_key") {
		t.Errorf("a PIX order without a key: %d %s", rec.Code, rec.Body)
	}
	// With the unit's key (fincom unit set --pix-key), it takes that one.
	db, release, err := ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SetUnitProfile(context.Background(), fx.tokens["unitA"], func(p *store.UnitProfile) error { p.PixKey = "11222333000181"; return nil }); err != nil {
		t.Fatal(err)
	}
	release()
	id := post(t, h, "/insert_sales_order", noKey)["data"].(map[string]any)["id"].(string)
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); o["pix_key"] != "11222333000181" {
		t.Errorf("the unit's key was not taken: %v", o["pix_key"])
	}
	for _, c := range []struct{ sent, kept string }{
		{"529.982.247-25", "52998224725"}, {"(11) 98888-7777", "+5511988887777"}, {"Fin@Acme.com.br", "fin@acme.com.br"},
		{"11.222.333/0001-81", "11222333000181"}, {"123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-12d3-a456-426614174000"},
	} {
		body := strings.Replace(productOrder, `"charge_pix_key":"pix@acme.com.br"`, `"charge_pix_key":"`+c.sent+`"`, 1)
		id := post(t, h, "/insert_sales_order", body)["data"].(map[string]any)["id"].(string)
		o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
		if o["pix_key"] != c.kept {
			t.Errorf("sent %q, kept %v, want %q", c.sent, o["pix_key"], c.kept)
		}
		post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
		ch := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
		code, _ := ch["charges"].([]any)[0].(map[string]any)["pix_payload"].(string)
		if want := fmt.Sprintf("0014br.gov.bcb.pix01%02d%s", len(c.kept), c.kept); !strings.Contains(code, want) {
			t.Errorf("BR Code %q lacks the key %q", code, want)
		}
	}
	for _, bad := range []string{"not a key", "529.982.247-26", "(11) 8888-777", "chave@pix"} {
		rec := do(h, http.MethodPost, "/insert_sales_order", strings.Replace(productOrder, `"charge_pix_key":"pix@acme.com.br"`, `"charge_pix_key":"`+bad+`"`, 1))
		want := `"Invalid charge.charge_pix_key. A PIX key is a CPF or CNPJ`
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("key %q: %d %s", bad, rec.Code, rec.Body)
		}
	}
}
