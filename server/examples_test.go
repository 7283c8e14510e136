package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
)

// The tokens the document's examples show, and the fixture's they stand
// for when the examples are sent.
const (
	exampleAccess = "fca_acme_3b8e1f0c2d4a6e8b"
	exampleUnit   = "fcu_acme_7d2c9a41e0b35f68"
	examplePublic = "fcp_acme_5e0c9b2a7d41f386"
)

// exampleID is the id the examples give the nth record the fixture lacks
// (exampleRecords makes them).
func exampleID(n int) string { return fmt.Sprintf("00000000-0000-4000-9000-%012d", n) }

// exampleRecords makes, on the test-mode server h, each record the
// document's examples name and the fixture lacks, and answers what each
// example id (and the example public token) stands for: an expense and an
// income with a file each, a pending screening, an open statement line,
// sales orders in the states their routes need (new, charged, paid at the
// PSP, with an NF-e, with a national NFS-e), a purchase order, a contract
// with a file, a template, a contract paid by PIX automático, a webhook, a
// CRM record and a movement; the inbox holds purchaseKey's NF-e.
func exampleRecords(t *testing.T, h http.Handler) map[string]string {
	t.Helper()
	ids := map[string]string{}
	set := func(n int, v any) {
		s, ok := v.(string)
		if !ok || s == "" {
			t.Fatalf("example record %d: %v", n, v)
		}
		ids[exampleID(n)] = s
	}
	multipart := func(path, meta, file string) map[string]any {
		rec := doMultipart(h, path, meta, map[string][]byte{file: testFile(t, file)})
		var out map[string]any
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &out) != nil {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		return out
	}
	firstFile := func(path, id string) any {
		files := post(t, h, path, `{`+auth+`,"id_token":"`+id+`"}`)["data"].([]any)
		return files[0].(map[string]any)["token"]
	}
	order := func(body string) string {
		return post(t, h, "/insert_sales_order", body)["data"].(map[string]any)["id"].(string)
	}
	charge := func(id string) map[string]any {
		return post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	}
	post(t, h, "/update_contact", withAddress)
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))

	ofx, err := os.ReadFile("statement/testdata/itau_102_sgml.ofx")
	if err != nil {
		t.Fatal(err)
	}
	// Itaú's export as account1's bank (BB, 1234-5 / 99887-1) writes it.
	ofx = []byte(strings.NewReplacer("<BANKID>0341", "<BANKID>001", "<ACCTID>0057123457", "<ACCTID>1234599887-1").Replace(string(ofx)))
	if rec := doMultipart(h, "/import_ofx", `{`+auth+`,"id_token_bank_account":"{{account1}}"}`, map[string][]byte{"extrato.ofx": ofx}); rec.Code != http.StatusOK {
		t.Fatalf("import_ofx: %d %s", rec.Code, rec.Body)
	}
	for _, l := range post(t, h, "/list_statement_lines", `{`+auth+`}`)["data"].([]any) {
		if l := l.(map[string]any); l["status"] == "open" && ids[exampleID(11)] == "" {
			set(11, l["token"])
		}
	}
	set(1, multipart("/insert_expense", `{`+auth+`,"description":"Aluguel","value":2500,"due_date":"2026-11-05"}`, "boleto.pdf")["token"])
	set(2, firstFile("/list_expense_files", ids[exampleID(1)]))
	set(3, multipart("/insert_income", `{`+auth+`,"description":"Consultoria","value":4200,"due_date":"2026-11-25"}`, "boleto.pdf")["token"])
	set(4, firstFile("/list_income_files", ids[exampleID(3)]))
	set(5, multipart("/insert_screening", `{`+auth+`}`, "boleto.pdf")["token"])
	set(6, order(serviceOrder))
	set(7, order(serviceOrder))
	paid := order(productOrder)
	charge(paid)
	post(t, h, "/_test/pay_pix", `{`+auth+`,"id_token":"`+paid+`"}`)
	set(8, paid)
	nfe := order(nfeOrder)
	set(9, nfe)
	public := charge(nfe)["payment_url"].(string)
	ids[examplePublic] = public[strings.LastIndex(public, "/")+1:]
	national := order(nationalOrder)
	post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+national+`"}`)
	set(10, national)
	// The inbox holds purchaseKey's NF-e, which the examples manifest and
	// buy; record 12 is another note the local authority serves.
	multipart("/import_nfe", `{`+auth+`}`, "nfe.xml")
	set(12, post(t, h, "/insert_purchase_order_by_access_key", `{`+auth+`,"access_key":"35170458716523000119550010000000131000123455"}`)["token"])
	contract := multipart("/insert_contract", contractMeta, "boleto.pdf")["data"].(map[string]any)["id_token"]
	set(13, contract)
	set(14, firstFileOfContract(t, h, contract.(string)))
	set(15, post(t, h, "/insert_contract_template", `{`+auth+`,"name":"Prestação de serviços","body_html":"<h1>Contrato com {{contato_nome}}</h1>"}`)["token"])
	account := post(t, h, "/insert_bank_account", `{`+auth+`,`+newAccount+`,"agency":"1234","current_account":"56789","dv_conta":"0"}`)["token"].(string)
	set(16, post(t, h, "/insert_contract", pixAutomaticoMeta(account))["data"].(map[string]any)["id_token"])
	set(17, post(t, h, "/insert_webhook", `{`+auth+`,"url":"https://hooks.example.com/a","events":["*"]}`)["data"].(map[string]any)["token"])
	set(18, post(t, h, "/insert_crm", `{`+auth+`,"description":"ligar"}`)["token"])
	set(19, post(t, h, "/insert_inventory_movement", `{`+auth+`,"id_token_product":"{{product1}}","type":"in","quantity":5,"unitary_value":1}`)["token"])
	cancel := order(serviceOrder)
	charge(cancel)
	set(20, cancel)
	resend := order(serviceOrder)
	charge(resend)
	set(21, resend)
	return ids
}

// firstFileOfContract answers the token of a contract's first file.
func firstFileOfContract(t *testing.T, h http.Handler, id string) any {
	t.Helper()
	for _, c := range post(t, h, "/list_contracts", `{`+auth+`}`)["data"].([]any) {
		c := c.(map[string]any)
		if c["id_token"] == id {
			return c["files"].([]any)[0].(map[string]any)["token"]
		}
	}
	return nil
}

// TestExamplesAnswer sends every request example the document gives to a
// test-mode server with the fixture's data and the records the examples
// name (exampleRecords), in the route table's order: each is answered
// 2xx, and the answer is held to the document (checkContract, through
// do).
func TestExamplesAnswer(t *testing.T) {
	s, _ := newTestModeServer(t)
	h := s.Handler()
	ids := exampleRecords(t, h)
	pairs := []string{exampleAccess, "{{access}}", exampleUnit, "{{unitA}}"}
	for k, v := range ids {
		pairs = append(pairs, k, v)
	}
	checked := 0
	for _, rt := range s.routes {
		if rt.Doc.Example == "" || strings.HasPrefix(rt.Path, "/_test/") {
			continue
		}
		body := strings.NewReplacer(pairs...).Replace(rt.Doc.Example)
		if rec := do(h, rt.MethodOf(), rt.Path, body); rec.Code/100 != 2 {
			t.Errorf("%s: its example answers %d %s", rt.Path, rec.Code, rec.Body)
		}
		checked++
	}
	if checked < 12 {
		t.Fatalf("only %d examples", checked)
	}
}

// TestExampleTokensArePlaceholders: the examples' tokens are of no domain
// a server holds (they name acme, the fixture's, with too few digits).
func TestExampleTokensArePlaceholders(t *testing.T) {
	s, _ := newTestServer(t)
	rec := do(s.Handler(), http.MethodPost, "/get_contacts", `{"access_token":"`+exampleAccess+`","unit_token":"`+exampleUnit+`"}`)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("an example's token answered %d", rec.Code)
	}
}
