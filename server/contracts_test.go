package server

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

const contractMeta = `{` + auth + `,"id_token_contact":"{{contact1}}","contract_name":"Manutenção mensal","validity_start":"2026-12-01",
	"validity_end":"2027-11-30","is_recurring":true,"recurrence_type":"monthly","generates_payment":true,"auto_extend":false,
	"description":"Manutenção preventiva do parque de TI",
	"sales_order":{"id_token_stock_item":"{{service1}}","description":"Manutenção mensal","value":1234.56,"id_token_category":"{{category1}}",
		"estimated_payment_date":"2026-12-10","payment_type":"` + payBoleto + `","recurrence":true}}`

func TestContracts(t *testing.T) {
	t.Parallel()
	pdf := testFile(t, "boleto.pdf")
	s, _ := newTestServer(t)
	h := s.Handler()
	rec := doMultipart(h, "/insert_contract", contractMeta, map[string][]byte{"assinado.pdf": pdf})
	if rec.Code != 200 {
		t.Fatalf("insert: %d %s", rec.Code, rec.Body.String())
	}
	out := post(t, h, "/list_contracts", `{`+auth+`}`)
	list := out["data"].([]any)
	if len(list) != 1 {
		t.Fatalf("list %v", out)
	}
	c := list[0].(map[string]any)
	if c["status"] != "draft" || c["id_sales_order"] == nil || len(c["files"].([]any)) != 1 || len(c["id_token_sales_orders"].([]any)) != 1 {
		t.Fatalf("contract %v", c)
	}
	id := c["id_token"].(string)
	// The order the contract created is a real order.
	order := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+c["id_sales_order"].(string)+`"}`)["data"].(map[string]any)
	if order["value"] != "1234.56" || order["recurrence"] != true || order["id_contact"] != fx.tokens["contact1"] {
		t.Fatalf("order %v", order)
	}
	// Preview of the contract with the default template.
	prev := post(t, h, "/get_contract_preview", `{`+auth+`,"id_contract":"`+id+`","preview_context":{"responsible":"Ana Lima"}}`)["data"].(map[string]any)
	dict := prev["placeholder_dict"].(map[string]any)
	if prev["source"] != "contract" || prev["status"] != "draft" || dict["valor"] != "R$ 1.234,56" ||
		dict["valor_extenso"] != "mil duzentos e trinta e quatro reais e cinquenta e seis centavos" || dict["contato_documento"] != "11.444.777/0001-61" ||
		dict["recorrencia"] != "mensalmente" || dict["responsavel"] != "Ana Lima" || dict["forma_pagamento"] != "Boleto bancário" {
		t.Fatalf("preview %v", dict)
	}
	doc := prev["html_document"].(string)
	if !strings.HasPrefix(doc, "<!doctype html>") || !strings.Contains(doc, "Content-Security-Policy") || !strings.Contains(doc, "Manutenção mensal") ||
		strings.Contains(prev["rendered_html"].(string), "{{") {
		t.Fatalf("document %s", doc)
	}
	// Update: status, and a file added; then delete it.
	if rec := doMultipart(h, "/update_contract", `{`+auth+`,"id_token":"`+id+`","status":"active"}`, map[string][]byte{"anexo.pdf": pdf}); rec.Code != 200 {
		t.Fatalf("update: %d %s", rec.Code, rec.Body.String())
	}
	c = post(t, h, "/list_contracts", `{`+auth+`,"status":"active"}`)["data"].([]any)[0].(map[string]any)
	files := c["files"].([]any)
	if len(files) != 2 {
		t.Fatalf("files %v", files)
	}
	// Each file reads back as it was sent.
	added := files[1].(map[string]any)
	get := do(h, http.MethodPost, "/get_contract_file", `{`+auth+`,"id_token":"`+id+`","file_token":"`+added["token"].(string)+`"}`)
	if get.Code != 200 || !bytes.Equal(get.Body.Bytes(), pdf) || get.Header().Get("Content-Type") != "application/pdf" || added["name"] != "anexo.pdf" {
		t.Fatalf("get file: %d %v", get.Code, get.Header())
	}
	if rec := do(h, http.MethodPost, "/get_contract_file", `{`+auth+`,"id_token":"`+id+`","file_token":"nope"}`); rec.Code != 404 ||
		!strings.Contains(rec.Body.String(), `"File not found."`) {
		t.Fatalf("unknown file: %d %s", rec.Code, rec.Body.String())
	}
	if rec := do(h, http.MethodPost, "/get_contract_file", `{"access_token":"{{access}}","unit_token":"{{unitB}}","id_token":"`+id+`","file_token":"`+added["token"].(string)+`"}`); rec.Code != 404 ||
		!strings.Contains(rec.Body.String(), `"Contract not found or not updated."`) {
		t.Fatalf("other unit: %d %s", rec.Code, rec.Body.String())
	}
	post(t, h, "/delete_contract_files", `{`+auth+`,"id_token":"`+id+`","files":["`+files[1].(map[string]any)["token"].(string)+`"]}`)
	if n := len(post(t, h, "/list_contracts", `{`+auth+`}`)["data"].([]any)[0].(map[string]any)["files"].([]any)); n != 1 {
		t.Fatalf("after delete: %d files", n)
	}
	if n := len(post(t, h, "/list_contracts", `{`+auth+`,"valid_on":"2028-01-01"}`)["data"].([]any)); n != 0 {
		t.Fatal("valid after its end")
	}
	post(t, h, "/disable_contract", `{`+auth+`,"id_token":"`+id+`"}`)
	if n := len(post(t, h, "/list_contracts", `{`+auth+`}`)["data"].([]any)); n != 0 {
		t.Fatal("disabled contract listed")
	}
	post(t, h, "/enable_contract", `{`+auth+`,"token":"`+id+`"}`)
	if n := len(post(t, h, "/list_contracts", `{`+auth+`}`)["data"].([]any)); n != 1 {
		t.Fatal("enabled contract not listed")
	}
}

func TestContractErrors(t *testing.T) {
	t.Parallel()
	xml := testFile(t, "nfe.xml")
	for _, c := range []struct {
		name, meta string
		files      map[string][]byte
		status     int
		body       string
	}{
		{"missing", `{` + auth + `,"contract_name":"X"}`, nil, 400, `{"success":false,"message":"Missing parameters","data":null}`},
		{"recurring without type", `{` + auth + `,"id_token_contact":"{{contact1}}","contract_name":"X","validity_start":"2026-12-01","is_recurring":true}`, nil, 400,
			`{"success":false,"message":"Missing parameters","data":null}`},
		{"bad token", `{"access_token":"{{revoked}}","unit_token":"{{unitA}}"}`, nil, 403, `{"success":false,"message":"Invalid data","data":null}`},
		{"other unit contact", `{` + auth + `,"id_token_contact":"{{contactB}}","contract_name":"X","validity_start":"2026-12-01"}`, nil, 403,
			`{"success":false,"message":"Invalid data","data":null}`},
		{"xml attachment", `{` + auth + `,"id_token_contact":"{{contact1}}","contract_name":"X","validity_start":"2026-12-01"}`,
			map[string][]byte{"nota.xml": xml}, 415, `{"success":false,"message":"Attachments must be PDF or image files.","data":null}`},
		{"bad recurrence", `{` + auth + `,"id_token_contact":"{{contact1}}","contract_name":"X","validity_start":"2026-12-01","is_recurring":true,"recurrence_type":"weekly"}`, nil, 400,
			`{"success":false,"message":"Invalid recurrence_type. Use unique, monthly or yearly.","data":null}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newTestServer(t)
			rec := doMultipart(s.Handler(), "/insert_contract", c.meta, c.files)
			if rec.Code != c.status || strings.TrimSpace(rec.Body.String()) != c.body {
				t.Fatalf("%d %s", rec.Code, rec.Body.String())
			}
		})
	}
}

// TestHostileTemplate: a template full of scripts is stored inert and its
// preview runs nothing.
func TestHostileTemplate(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	body := `{` + auth + `,"name":"Hostil","body_html":"<p onclick=\"alert(1)\">Olá {{contato_nome}}<script>alert(2)</script></p><svg onload=alert(3)></svg><a href=\"javascript:alert(4)\">x</a><img src=x onerror=alert(5)>",
		"page_css":"body{background:url(https://evil.example/x)} p{color:red}","header_html":"<iframe src=https://evil.example></iframe><b>Topo</b>"}`
	tok := post(t, h, "/insert_contract_template", body)["token"].(string)
	tpl := post(t, h, "/get_contract_template", `{`+auth+`,"id_token":"`+tok+`"}`)["data"].(map[string]any)
	prev := post(t, h, "/get_contract_preview", `{`+auth+`,"id_token_template":"`+tok+`","id_contact":"{{contact2}}"}`)["data"].(map[string]any)
	for _, s := range []string{tpl["body_html"].(string), tpl["page_css"].(string), tpl["header_html"].(string), prev["html_document"].(string)} {
		low := strings.ToLower(s)
		for _, bad := range []string{"<script", "onclick", "onload", "onerror", "javascript:", "<svg", "<iframe", "<img", "evil.example"} {
			if strings.Contains(low, bad) {
				t.Fatalf("%q survived in %s", bad, s)
			}
		}
	}
	if !strings.Contains(prev["rendered_html"].(string), "Olá Maria da Silva") || prev["source"] != "template" {
		t.Fatalf("preview %v", prev["rendered_html"])
	}
	// Values are escaped into the HTML.
	post(t, h, "/update_contact", `{`+auth+`,"id_token":"{{contact2}}","fullName":"<b>Maria</b> & Cia"}`)
	prev = post(t, h, "/get_contract_preview", `{`+auth+`,"id_token_template":"`+tok+`","id_contact":"{{contact2}}"}`)["data"].(map[string]any)
	if !strings.Contains(prev["rendered_html"].(string), "Olá &lt;b&gt;Maria&lt;/b&gt; &amp; Cia") {
		t.Fatalf("value not escaped: %v", prev["rendered_html"])
	}
	if rec := do(h, http.MethodPost, "/get_contract_preview", `{`+auth+`}`); rec.Code != 400 {
		t.Fatalf("no target: %d", rec.Code)
	}
	// An update is sanitized as an insert is.
	post(t, h, "/update_contract_template", `{`+auth+`,"id_token":"`+tok+`","name":"Revisto","body_html":"<p>Caro {{contato_nome}}<script>alert(6)</script></p>"}`)
	tpl = post(t, h, "/get_contract_template", `{`+auth+`,"id_token":"`+tok+`"}`)["data"].(map[string]any)
	if tpl["name"] != "Revisto" || tpl["body_html"] != "<p>Caro {{contato_nome}}</p>" {
		t.Fatalf("updated template %v", tpl)
	}
	if rec := do(h, http.MethodPost, "/update_contract_template", `{`+auth+`,"id_token":"nope","name":"X"}`); rec.Code != 404 {
		t.Fatalf("unknown template: %d %s", rec.Code, rec.Body.String())
	}
	list := post(t, h, "/list_contract_templates", `{`+auth+`}`)["data"].([]any)
	if len(list) != 2 || list[0].(map[string]any)["is_default"] != true {
		t.Fatalf("templates %v", list)
	}
}

func TestContractPreviewGolden(t *testing.T) {
	t.Parallel()
	run(t, []scenario{
		{name: "contract", path: "/get_contract_preview", before: []call{{"/insert_contract", contractMeta}},
			body: `{` + auth + `,"id_contract":"00000000-0000-4000-8001-000000000001","preview_context":{"responsible":"Ana Lima"}}`, status: 200,
			golden: "contracts/preview_contract"},
		{name: "template with overrides", path: "/get_contract_preview",
			body: `{` + auth + `,"id_token_template":"","id_contract":"","id_contact":"{{contact2}}"}`, status: 400, text: "Provide id_contract or id_token_template."},
		{name: "default template for a contact", path: "/get_contract_preview", before: []call{{"/list_contract_templates", `{` + auth + `}`}},
			body: `{` + auth + `,"id_token_template":"00000000-0000-4000-8001-000000000001","id_contact":"{{contact2}}",
				"preview_context":{"sales_order":{"value":99.9,"recurrence":true,"payment_key_name":"PIX"},"contract":{"name":"Assinatura"}}}`,
			status: 200, golden: "contracts/preview_template"},
	})
}

// TestPixAutomatico: accepting the recurrence issues the cycle's first
// charge, due in 30 days; accepting again issues nothing more.
func TestPixAutomatico(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	meta := strings.Replace(contractMeta, `"payment_type":"`+payBoleto+`","recurrence":true`,
		`"payment_type":"9c61cd65-9b9c-525b-84e6-37a6bc09d571","pix_key":"pix@acme.com.br","requested_payment_mode":"PIX_AUTOMATICO","generateChargeOnPixAutomaticAcceptance":true`, 1)
	id := post(t, h, "/insert_contract", meta)["data"].(map[string]any)["id_token"].(string)
	out := post(t, h, "/accept_pix_automatico", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	charges := out["charges"].([]any)
	if len(charges) != 1 || charges[0].(map[string]any)["due_date"] != "2026-12-22" || charges[0].(map[string]any)["payment_key"] != "PIX_AUTOMATICO" {
		t.Fatalf("first charge %v", out)
	}
	again := post(t, h, "/accept_pix_automatico", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if len(again["charges"].([]any)) != 1 || again["charges"].([]any)[0].(map[string]any)["token"] != charges[0].(map[string]any)["token"] {
		t.Fatalf("accepted twice: %v", again)
	}
	if c := post(t, h, "/list_contracts", `{`+auth+`}`)["data"].([]any)[0].(map[string]any); c["status"] != "active" {
		t.Fatalf("contract %v", c["status"])
	}
	plain := post(t, h, "/insert_contract", contractMeta)["data"].(map[string]any)["id_token"].(string)
	if rec := do(h, http.MethodPost, "/accept_pix_automatico", `{`+auth+`,"id_token":"`+plain+`"}`); rec.Code != 409 {
		t.Fatalf("plain contract: %d %s", rec.Code, rec.Body.String())
	}
}

// TestFileRulesPerRoute: each route that takes files answers its own
// rule's text: a contract takes PDF or images (and says so), an expense
// takes XML too.
func TestFileRulesPerRoute(t *testing.T) {
	t.Parallel()
	exe := append([]byte("MZ\x90\x00"), make([]byte, 64)...)
	txt := []byte("apenas um texto")
	xml := testFile(t, "nfe.xml")
	expense := `{` + auth + `,"description":"Anexo","value":10,"due_date":"2026-12-01"}`
	var scenarios []scenario
	for name, data := range map[string][]byte{"a.exe": exe, "a.txt": txt, "nfe.xml": xml} {
		scenarios = append(scenarios,
			scenario{name: "contract " + name, path: "/insert_contract", body: contractMeta, files: map[string][]byte{name: data},
				status: 415, text: "Attachments must be PDF or image files."},
			scenario{name: "contract update " + name, path: "/update_contract", before: nil, body: `{` + auth + `,"id_token":"nope"}`,
				files: map[string][]byte{name: data}, status: 415, text: "Attachments must be PDF or image files."})
		if name != "nfe.xml" {
			scenarios = append(scenarios, scenario{name: "expense " + name, path: "/insert_expense", body: expense, files: map[string][]byte{name: data},
				status: 415, text: "Unsupported file type. Send PDF, image (PNG, JPEG, GIF, WebP) or XML."})
		}
	}
	scenarios = append(scenarios, scenario{name: "expense xml", path: "/insert_expense", body: expense, files: map[string][]byte{"nfe.xml": xml}, status: 200})
	run(t, scenarios)
}

// TestContractPixKey: a contract's order takes its PIX key as an order
// does: normalized, or refused naming the field.
func TestContractPixKey(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	pixMeta := func(key string) string {
		return strings.Replace(contractMeta, `"payment_type":"`+payBoleto+`","recurrence":true`,
			`"payment_type":"9c61cd65-9b9c-525b-84e6-37a6bc09d571","pix_key":"`+key+`","requested_payment_mode":"PIX"`, 1)
	}
	out := post(t, h, "/insert_contract", pixMeta("+55 (11) 98888-7777"))["data"].(map[string]any)
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+out["id_sales_order"].(string)+`"}`)["data"].(map[string]any)
	if o["pix_key"] != "+5511988887777" {
		t.Errorf("contract order's key %v", o["pix_key"])
	}
	rec := do(h, http.MethodPost, "/insert_contract", pixMeta("98888-7777"))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "Invalid sales_order.pix_key. A PIX key") {
		t.Errorf("bad key: %d %s", rec.Code, rec.Body)
	}
}
