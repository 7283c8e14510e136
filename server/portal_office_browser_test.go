package server

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPortalOfficeDayInBrowser is an office manager's day in headless
// Chromium, with no API call: a new customer (the CNPJ's check digits
// said as typed, the state and the cities found by the CEP), a product,
// an order of it charged by boleto and invoiced by NF-e on saving, a bill,
// a bank statement imported (the bill's line reconciled at once), the
// bank fee booked from its line and a pairing undone, who is overdue
// reminded, and the month's page. Every page is judged at 390 and 1280
// px (officeBrowser.judge).
func TestPortalOfficeDayInBrowser(t *testing.T) {
	t.Parallel()
	_, pageURL := chromium(t)
	now := fixedNow
	s, ds := newTestServerAt(t, &now, Config{Version: "test", PublicURL: "http://127.0.0.1"})
	h := s.Handler()
	ts := httptest.NewServer(h)
	defer ts.Close()
	db, release := acquire(t, ds)
	if _, err := db.CreateUser(context.Background(), "Bia Lima", "bia@example.com"); err != nil {
		t.Fatal(err)
	}
	release()
	// A receivable of an earlier day, for Em atraso (made before the
	// day begins: the day's own work is the browser's).
	post(t, h, "/update_contact", withAddress)
	late := post(t, h, "/insert_sales_order", strings.Replace(serviceOrder, `"estimated_payment_date":"2026-11-30"`, `"estimated_payment_date":"2026-11-10"`, 1))
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+late["data"].(map[string]any)["id"].(string)+`"}`)

	o := newOfficeBrowser(t, s, ds, ts.URL, 390, 1280)
	o.signIn(pageURL, "bia@example.com")
	p := o.p
	unit := "?unit=" + fx.tokens["unitA"]
	// set types into a field as a person does: its value, then the
	// input event the page's script listens to.
	set := func(sel, value string) string {
		return `(() => { const e = document.querySelector(` + jsString(sel) + `); e.value = ` + jsString(value) + `; e.dispatchEvent(new Event("input", {bubbles: true})); e.dispatchEvent(new Event("change", {bubbles: true})); })()`
	}
	// choose picks the option of a select whose label holds text.
	choose := func(sel, text string) string {
		return `(() => { const s = document.querySelector(` + jsString(sel) + `); const o = Array.from(s.options).find(o => o.text.indexOf(` + jsString(text) + `) >= 0); s.value = o.value; })()`
	}
	notice := func(want string) {
		t.Helper()
		p.waitFor(t, `document.readyState === "complete" && document.querySelector(".notice") !== null && document.querySelector(".notice").textContent.indexOf(`+jsString(want)+`) >= 0`)
	}

	// A customer: the CNPJ's digits checked as typed, the CEP filling
	// the state and offering its cities.
	o.open("/portal/contacts"+unit, "Clientes e fornecedores")
	p.eval(t, set("#campo-register", "45.789.123/0001-90"))
	p.waitFor(t, `document.querySelector("#verifica-register").textContent === "CNPJ inválido: confira os dígitos verificadores."`)
	p.eval(t, set("#campo-register", "45789123000191"))
	p.waitFor(t, `document.querySelector("#verifica-register").textContent === "CNPJ válido."`)
	p.eval(t, set("#campo-zip", "01310100"))
	p.waitFor(t, `document.querySelector("#campo-state").value === "SP" && document.querySelectorAll("#cidades-zip option").length === 645`)
	for sel, v := range map[string]string{"#campo-name": "Papelaria Horizonte Ltda", "#campo-email": "compras@horizonte.com.br", "#campo-phone": "1132221100",
		"#campo-address": "Avenida Paulista", "#campo-number": "1000", "#campo-district": "Bela Vista", "#campo-city": "São Paulo"} {
		p.eval(t, set(sel, v))
	}
	o.judge("contact-typed")
	o.submit("", "form[method=post][action^='/portal/contacts'] button[type=submit]")
	notice("Contato cadastrado.")
	if got := p.eval(t, `document.body.textContent.indexOf("45.789.123/0001-91") >= 0`); got != true {
		t.Error("the new customer is not listed with its CNPJ")
	}

	// A product with its fiscal codes.
	o.open("/portal/products"+unit, "Produtos e serviços")
	for sel, v := range map[string]string{"#campo-description": "Caneta esferográfica azul", "#campo-price": "2,50", "#campo-unit": "UN",
		"#campo-ncm": "9608.10.00", "#campo-cfop": "5102"} {
		p.eval(t, set(sel, v))
	}
	o.submit("", "form[method=post][action^='/portal/products'] button[type=submit]")
	notice("Produto ou serviço cadastrado.")
	o.judge("products")

	// An order of it, charged and invoiced on saving.
	o.open("/portal/new-order"+unit, "Novo pedido")
	p.eval(t, choose("#campo-contact", "Papelaria Horizonte"))
	// The item typed by a part of its name, the line's and the order's
	// totals as typed; a line added and removed without reloading.
	p.eval(t, set("#campo-item-1", "Caneta esferográfica azul"))
	p.eval(t, set("#campo-quantity-1", "40"))
	p.waitFor(t, `document.querySelector("#total-pedido").value === "R$ 100,00" && document.querySelector("output[data-line-total]").value === "R$ 100,00"`)
	p.eval(t, `document.querySelector("#adicionar-item").click()`)
	p.waitFor(t, `document.querySelectorAll("#linhas-pedido tbody tr").length === 11 && document.activeElement.id === "campo-item-11"`)
	p.eval(t, `document.querySelector("#linhas-pedido tbody tr:last-child [data-remove-line]").click()`)
	p.waitFor(t, `document.querySelectorAll("#linhas-pedido tbody tr").length === 10 && document.querySelector("[data-more-lines]").hidden`)
	p.eval(t, set("#campo-freight_total", "12,30"))
	p.waitFor(t, `document.querySelector("#total-pedido").value === "R$ 112,30"`)
	p.eval(t, set("#campo-freight_total", ""))
	p.waitFor(t, `document.querySelector("#total-pedido").value === "R$ 100,00"`)
	p.eval(t, choose("#campo-method", "oleto"))
	p.eval(t, `document.querySelector("#campo-invoice").value = "nfe"; document.querySelector("[name=charge]").checked = true; document.querySelector("[name=issue]").checked = true`)
	o.judge("new-order-typed")
	o.submit("", "form[method=post][action^='/portal/new-order'] button[type=submit]")
	notice("Pedido salvo, cobrança gerada e nota fiscal emitida.")
	if got := p.eval(t, `document.body.textContent.indexOf("R$ 100,00") >= 0 && document.body.textContent.indexOf("NF-e autorizada") >= 0`); got != true {
		t.Error("the order's page does not show its total and its authorized NF-e")
	}
	o.judge("order-saved")

	// A bill to pay, due today.
	o.open("/portal/transactions"+unit, "Lançamentos")
	p.eval(t, `document.querySelector("details.card").open = true`)
	p.eval(t, set("#campo-description", "Energia elétrica"))
	p.eval(t, set("#campo-value", "321,00"))
	p.eval(t, set("#campo-due_date", "2026-11-22"))
	o.submit("", "form[method=post][action^='/portal/transactions'] button[type=submit]")
	notice("Lançamento cadastrado.")
	o.judge("transactions")

	// The bank's statement: the bill's debit is reconciled at once, the
	// fee waits.
	ofx := []byte(strings.Replace(string(ofxSGML("D1", "20261122", "-321.00", "DEB AUTOMATICO ENERGIA")), "</BANKTRANLIST>",
		"<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20261122<TRNAMT>-9.90<FITID>D2<MEMO>TARIFA PACOTE</STMTTRN></BANKTRANLIST>", 1))
	file := filepath.Join(t.TempDir(), "extrato.ofx")
	if err := os.WriteFile(file, ofx, 0o644); err != nil {
		t.Fatal(err)
	}
	o.open("/portal/import"+unit, "Importar")
	input := p.call(t, "Runtime.evaluate", map[string]any{"expression": `document.querySelector("#arquivo-ofx")`})
	var node struct {
		Result struct {
			ObjectID string `json:"objectId"`
		} `json:"result"`
	}
	json.Unmarshal(input, &node)
	p.call(t, "DOM.setFileInputFiles", map[string]any{"files": []string{file}, "objectId": node.Result.ObjectID})
	o.submit("", "form[method=post][action^='/portal/import/statement'] button[type=submit]")
	p.waitFor(t, `document.readyState === "complete" && document.querySelector("#resultado") !== null`)
	if got := p.eval(t, `document.body.textContent.indexOf("Conciliadas na hora: 1") >= 0 && document.body.textContent.indexOf("À espera em Conciliação: 1") >= 0`); got != true {
		t.Errorf("the import's result: %v", p.eval(t, `document.querySelector("#resultado").parentElement.textContent`))
	}
	o.judge("import-result")

	// The fee is booked as an expense from its line, and that booking,
	// the latest resolution, undone.
	o.open("/portal/statement"+unit, "Conciliação")
	p.eval(t, `document.querySelector("details").open = true`)
	o.judge("statement")
	o.submit("", "form input[name=action][value=book] ~ button[type=submit]")
	notice("Linha do extrato resolvida.")
	if got := p.eval(t, `document.querySelectorAll("input[name=action][value=undo]").length`); got != 2.0 {
		t.Fatalf("%v lines resolved, want 2", got)
	}
	o.submit("", "tr:has(input[name=action][value=undo]) button")
	notice("Conciliação desfeita")
	o.judge("statement-undone")

	// Who is overdue, reminded by e-mail at once.
	o.open("/portal/overdue"+unit, "Em atraso")
	o.judge("overdue")
	o.submit("", "form[method=post][action^='/portal/overdue?'] button[type=submit]")
	notice("lembrete")

	// The month counts what is to be received: the order's charge among
	// it.
	o.open("/portal/"+unit, "Visão do mês")
	o.judge("home")
	if got := p.eval(t, `document.body.textContent.indexOf("R$ 100,00") >= 0`); got != true {
		t.Error("the month does not count the order's charge")
	}
}
