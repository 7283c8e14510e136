package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/bank"
	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/store"
)

// The tokens the document's examples show, and the fixture's they stand
// for when the examples are sent.
const (
	exampleAccess = "fca_acme_3b8e1f0c2d4a6e8b"
	exampleUnit   = "fcu_acme_7d2c9a41e0b35f68"
	// The public tokens of records 9 (PIX, its NF-e then cancelled), 21
	// (a boleto, registered by the return file's example) and 22 (its
	// NF-e with a correction letter).
	examplePublic       = "fcp_acme_5e0c9b2a7d41f386"
	examplePublicBoleto = "fcp_acme_2c7e9d4b1a0f6358"
	examplePublicLetter = "fcp_acme_8a3d6f1e0c9b7254"
	// The webhook secret of unit B's PSP (exampleRecords connects it).
	exampleHook = "fcw_acme_6b1d0e9f3a2c7458"
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
func exampleRecords(t *testing.T, s *Server, ds *store.Domains) map[string]string {
	t.Helper()
	h := s.Handler()
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

	if rec := doMultipart(h, "/import_ofx", `{`+auth+`,"id_token_bank_account":"{{account1}}"}`, map[string][]byte{"extrato.ofx": exampleOFX(t)}); rec.Code != http.StatusOK {
		t.Fatalf("import_ofx: %d %s", rec.Code, rec.Body)
	}
	for _, l := range post(t, h, "/list_statement_lines", `{`+auth+`}`)["data"].([]any) {
		if l := l.(map[string]any); l["status"] == "open" && ids[exampleID(11)] == "" {
			set(11, l["token"])
		}
	}
	set(1, multipart("/insert_expense", `{`+auth+`,"description":"Aluguel","value":2500,"due_date":"2026-11-05"}`, "boleto.pdf")["token"])
	set(2, firstFile("/list_expense_files", ids[exampleID(1)]))
	// Two incomes of contact1 in category1: its category median.
	set(3, multipart("/insert_income", `{`+auth+`,"description":"Consultoria","value":4200,"due_date":"2026-11-25","id_token_contact":"{{contact1}}","id_token_category":"{{category1}}"}`, "boleto.pdf")["token"])
	post(t, h, "/insert_income", `{`+auth+`,"description":"Consultoria de outubro","value":4200,"due_date":"2026-10-25","id_token_contact":"{{contact1}}","id_token_category":"{{category1}}"}`)
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
	publicToken := func(id string) string {
		url := charge(id)["payment_url"].(string)
		return url[strings.LastIndex(url, "/")+1:]
	}
	ids[examplePublic] = publicToken(nfe)
	national := order(nationalOrder)
	post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+national+`"}`)
	set(10, national)
	// The inbox holds a second NF-e of the supplier (exampleKey), which the
	// examples manifest and buy, the first being /import_nfe's example;
	// record 12 is a third note the local authority serves.
	if rec := doMultipart(h, "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": secondNFe(t)}); rec.Code != http.StatusOK {
		t.Fatalf("the second NF-e: %d %s", rec.Code, rec.Body)
	}
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
	ids[examplePublicBoleto] = publicToken(resend)
	set(21, resend)
	letter := order(nfeOrder)
	post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+letter+`"}`)
	ids[examplePublicLetter] = publicToken(letter)
	b := signedIn(t, s, ds)
	page := b.do("GET", "/portal/orders/"+letter+"?unit="+expand("{{unitA}}"), nil).Body.String()
	if rec := b.do("POST", "/portal/orders/"+letter+"/correct?unit="+expand("{{unitA}}"),
		url.Values{"csrf": {csrf(t, page)}, "correction": {"Endereço de entrega: Rua Vergueiro, 1002"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("the correction letter: %d %s", rec.Code, rec.Body)
	}
	set(22, letter)
	ids[exampleHook] = exampleWebhook(t, ds)
	// A purchase in instalments and a repeating rent.
	set(28, post(t, h, "/insert_expense", `{`+auth+`,"description":"Compra de material","value":900,"due_date":"2026-12-10","installments":3}`)["token"])
	set(29, post(t, h, "/insert_expense", `{`+auth+`,"description":"Aluguel da loja","value":2500,"due_date":"2026-12-05","recurrence_every_months":1,"recurrence_times":12}`)["token"])
	// Charged orders for test mode's payer, bank and clock.
	for n, body := range map[int]string{23: serviceOrder, 24: serviceOrder, 25: productOrder, 26: serviceOrder, 27: serviceOrder} {
		id := order(body)
		charge(id)
		set(n, id)
	}
	return ids
}

// exampleKey is the access key of secondNFe.
const exampleKey = "35170458716523000119550010000000121000543210"

// secondNFe is the supplier's NF-e (testdata/docread/nfe.xml) under
// another code (cNF) and so another key, without its protocol and signed
// anew by a test certificate: test mode's inbox takes it.
func secondNFe(t *testing.T) []byte {
	t.Helper()
	good := string(testFile(t, "nfe.xml"))
	prot := good[strings.Index(good, "<protNFe") : strings.Index(good, "</protNFe>")+len("</protNFe>")]
	sig := good[strings.Index(good, "<Signature") : strings.Index(good, "</Signature>")+len("</Signature>")]
	if keyDigit(exampleKey[:43]) != int(exampleKey[43]-'0') {
		t.Fatalf("exampleKey's check digit")
	}
	doc := strings.NewReplacer(prot, "", sig, "", "NFe"+purchaseKey, "NFe"+exampleKey, "<cNF>00012345</cNF>", "<cNF>00054321</cNF>",
		"<cDV>8</cDV>", "<cDV>0</cDV>").Replace(good)
	supplier, err := certs.TestCertificate("Distribuidora Paulista", "58716523000119", fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := fiscal.Sign([]byte(doc), "NFe"+exampleKey, supplier)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

// exampleOFX is Itaú's OFX export as account1's bank (BB, 1234-5 /
// 99887-1) writes it.
func exampleOFX(t *testing.T) []byte {
	t.Helper()
	ofx, err := os.ReadFile("statement/testdata/itau_102_sgml.ofx")
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.NewReplacer("<BANKID>0341", "<BANKID>001", "<ACCTID>0057123457", "<ACCTID>1234599887-1").Replace(string(ofx)))
}

// exampleFiles are the files the multipart examples name: the return
// file registers the boleto of record 21 (charged, not yet registered).
func exampleFiles(t *testing.T, h http.Handler, ids map[string]string) map[string][]byte {
	t.Helper()
	c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+ids[exampleID(21)]+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	n, err := strconv.ParseInt(c["our_number"].(string), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	return map[string][]byte{
		"boleto.pdf":  testFile(t, "boleto.pdf"),
		"nota.xml":    testFile(t, "nfe.xml"),
		"extrato.ofx": exampleOFX(t),
		"RET.txt":     itauReturn(t, bank.ReturnItem{Movement: "02", Our: itauOur(t, n), Due: due, Amount: decimal.RequireFromString(c["amount"].(string))}),
	}
}

// exampleWebhook connects unit B to a PSP on a loopback port where none
// listens, and answers its webhook's secret: the PSP's callbacks are
// taken and each Pix, recurrence or charge asked of the PSP, which does
// not answer (unit A's charges stay at test mode's local PSP).
func exampleWebhook(t *testing.T, ds *store.Domains) string {
	t.Helper()
	return connectPSP(t, ds, "unitB", "Acme Filial", "11222333000262", "https://127.0.0.1:1")
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

// exampleServer is a test-mode server holding the records the document's
// examples name (exampleRecords), what each example id stands for, and
// the replacer that makes an example's text a request to it.
func exampleServer(t *testing.T) (*Server, http.Handler, map[string]string, *strings.Replacer) {
	t.Helper()
	s, ds := newTestModeServer(t)
	ids := exampleRecords(t, s, ds)
	pairs := []string{exampleAccess, expand("{{access}}"), exampleUnit, expand("{{unitA}}")}
	for k, v := range ids {
		pairs = append(pairs, k, v)
	}
	return s, s.Handler(), ids, strings.NewReplacer(pairs...)
}

// TestExamplesAnswer sends every request example the document gives to a
// test-mode server with the fixture's data and the records the examples
// name (exampleRecords), in the route table's order: each is answered
// 2xx, and the answer is held to the document (checkContract, through
// do).
func TestExamplesAnswer(t *testing.T) {
	t.Parallel()
	s, h, ids, fill := exampleServer(t)
	files := exampleFiles(t, h, ids)
	// An answer shows the examples' tokens and ids, not the fixture's.
	back := []string{fx.tokens["access"], exampleAccess, fx.tokens["unitA"], exampleUnit}
	for k, v := range ids {
		back = append(back, v, k)
	}
	concealed := strings.NewReplacer(back...)
	answers := map[string]json.RawMessage{}
	checked := 0
	for _, rt := range s.routes {
		if rt.Doc.Example == "" && rt.Doc.ExampleParam == "" {
			continue
		}
		body := fill.Replace(rt.Doc.Example)
		path := rt.Path
		if i := strings.Index(path, "/:"); i >= 0 {
			if ids[rt.Doc.ExampleParam] == "" {
				t.Fatalf("%s: its example's %s stands for no record", rt.Path, rt.Doc.ExampleParam)
			}
			j := strings.Index(path[i+1:], "/")
			if j < 0 {
				j = len(path) - i - 1
			}
			path = path[:i+1] + ids[rt.Doc.ExampleParam] + path[i+1+j:]
		}
		var rec *httptest.ResponseRecorder
		if f := rt.Doc.ExampleFile; f != "" {
			if files[f] == nil {
				t.Fatalf("%s: no file %s", rt.Path, f)
			}
			rec = doMultipart(h, path, body, map[string][]byte{f: files[f]})
		} else {
			rec = do(h, rt.MethodOf(), path, body)
		}
		if rec.Code/100 != 2 {
			t.Errorf("%s: its example answers %d %s", rt.Path, rec.Code, rec.Body)
		}
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && rt.Doc.RespExample == "" {
			answers[rt.MethodOf()+" "+rt.Path] = exampleAnswer(t, concealed.Replace(rec.Body.String()))
		}
		checked++
	}
	if checked < 12 {
		t.Fatalf("only %d examples", checked)
	}
	const file = "openapi/answers.json"
	if *update {
		b, err := json.MarshalIndent(answers, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	// The document's answer examples are these answers, each of them
	// still what the document says the route answers.
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var stored map[string]json.RawMessage
	if err := json.Unmarshal(b, &stored); err != nil {
		t.Fatal(err)
	}
	for key := range answers {
		if stored[key] == nil {
			t.Errorf("%s has no answer example in %s (go test ./server -run TestExamplesAnswer -update)", key, file)
		}
	}
	for key, a := range stored {
		method, path, _ := strings.Cut(key, " ")
		if answers[key] == nil {
			t.Errorf("%s: an answer example of no request example", key)
		} else if err := answerViolation(method, path, http.StatusOK, a); err != nil {
			t.Errorf("%s: its answer example is not what the document says it answers (go test ./server -run TestExamplesAnswer -update): %v", key, err)
		}
	}
}

// exampleAnswer is an answer as the document shows it: its arrays cut to
// two items.
func exampleAnswer(t *testing.T, body string) json.RawMessage {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	var cut func(v any) any
	cut = func(v any) any {
		switch v := v.(type) {
		case []any:
			if len(v) > 2 {
				v = v[:2]
			}
			for i := range v {
				v[i] = cut(v[i])
			}
			return v
		case map[string]any:
			for k := range v {
				v[k] = cut(v[k])
			}
		}
		return v
	}
	b, err := json.Marshal(cut(v))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExampleTokensArePlaceholders: the examples' tokens are of no domain
// a server holds (they name acme, the fixture's, with too few digits).
func TestExampleTokensArePlaceholders(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	rec := do(s.Handler(), http.MethodPost, "/get_contacts", `{"access_token":"`+exampleAccess+`","unit_token":"`+exampleUnit+`"}`)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("an example's token answered %d", rec.Code)
	}
}
