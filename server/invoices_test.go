package server

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/docread"
	"fincom/server/fiscal"
	"fincom/server/invoicing"
	"fincom/store"
)

// withAddress completes contact1's address, which invoices need.
const withAddress = `{` + auth + `,"id_token":"{{contact1}}","address":"Av. Paulista","number":"1500","neighborhood":"Bela Vista",
	"city":"São Paulo","state":"SP","zip_code":"01310-100"}`

// hasProblem checks that an invoice's refusal lists a problem of field.
func hasProblem(field string) func(*testing.T, map[string]any) {
	return func(t *testing.T, r map[string]any) {
		t.Helper()
		ps, _ := r["details"].(map[string]any)["problems"].([]any)
		for _, p := range ps {
			if p.(map[string]any)["field"] == field {
				return
			}
		}
		t.Errorf("no problem of %s in %v", field, ps)
	}
}

func TestInvoiceProblems(t *testing.T) {
	t.Parallel()
	run(t, []scenario{
		{name: "every problem listed", path: "/generate_nf", before: []call{{"/insert_sales_order", strings.NewReplacer(`"tax_iss_amount":75`, `"tax_iss_amount":70`,
			"{{contact1}}", "{{contact2}}").Replace(serviceOrder)}}, // contact2 has no address
			body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`, status: 422,
			text: "The order's fiscal data is incomplete: fix every problem listed in details.", golden: "invoices/problems"},
		{name: "interstate product", path: "/generate_nf", before: []call{{"/update_contact", withAddress}, {"/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1)},
			{"/insert_sales_order", productOrder}}, body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`, status: 422,
			text: "The order's fiscal data is incomplete: fix every problem listed in details.",
			check: func(t *testing.T, r map[string]any) {
				ps := r["details"].(map[string]any)["problems"].([]any)
				if len(ps) != 1 || ps[0].(map[string]any)["field"] != "pv.products[0].cfop" {
					t.Errorf("problems %v", ps)
				}
			}},
		// The portal's form names the bairro district: the API takes that
		// name too; a customer without one is told, not "the authority did
		// not answer".
		{name: "district alias", path: "/generate_nf", before: []call{{"/update_contact", strings.Replace(withAddress, `"neighborhood"`, `"district"`, 1)},
			{"/update_contact", strings.Replace(strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1), `"neighborhood":"Bela Vista",`, ``, 1)},
			{"/insert_sales_order", productOrder}}, body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`, status: 422,
			text: "The order's fiscal data is incomplete: fix every problem listed in details.",
			check: func(t *testing.T, r map[string]any) {
				ps := r["details"].(map[string]any)["problems"].([]any)
				var fields []string
				for _, p := range ps {
					fields = append(fields, p.(map[string]any)["field"].(string))
				}
				if !slices.Contains(fields, "contact.neighborhood") {
					t.Errorf("problems %v", ps)
				}
			}},
		{name: "gross against the value", path: "/generate_nf", before: []call{{"/update_contact", withAddress},
			{"/insert_sales_order", strings.Replace(serviceOrder, `"tax_service_gross_amount":1500`, `"tax_service_gross_amount":3000`, 1)}},
			body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`, status: 422,
			text: "The order's fiscal data is incomplete: fix every problem listed in details.", check: hasProblem("nf.tax_service_gross_amount")},
		{name: "withholdings against their total", path: "/generate_nf", before: []call{{"/update_contact", withAddress},
			{"/insert_sales_order", strings.Replace(nationalOrder, `"ret_total_amount":22.5},"net_receivable_amount":1477.5`, `"ret_total_amount":30},"net_receivable_amount":1470`, 1)}},
			body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`, status: 422,
			text: "The order's fiscal data is incomplete: fix every problem listed in details.", check: hasProblem("nf.ret_total_amount")},
		{name: "unknown order", path: "/generate_nf", body: `{` + auth + `,"id_token":"x"}`, status: 404, text: "Sales order not found or not updated."},
		{name: "cancel without invoice", path: "/cancel_nf", before: []call{{"/insert_sales_order", serviceOrder}},
			body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001","reason":"Erro na descrição do serviço"}`, status: 409, text: "The order has no authorized invoice."},
		{name: "cancel short reason", path: "/cancel_nf", body: `{` + auth + `,"id_token":"x","reason":"curto"}`, status: 400, text: "The cancellation reason needs 15 to 255 characters."},
		{name: "send without invoice", path: "/send_danfe_xml", before: []call{{"/insert_sales_order", serviceOrder}},
			body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`, status: 409, text: "The order has no authorized invoice."},
	})
}

// TestInvoiceLifecycle: issue an NFS-e (once), read its documents, send
// them, cancel it within the window, and refuse after it. NFS-e is issued
// in test mode only: no NFS-e system is connected.
func TestInvoiceLifecycle(t *testing.T) {
	t.Parallel()
	now := fixedNow
	bill, inv, err := testServices(ServiceOptions{PublicURL: "https://fincom.test", CancelWindow: time.Hour, Keyring: testKeys, TestCertificates: true})
	if err != nil {
		t.Fatal(err)
	}
	s, ds := newTestServerAt(t, &now, Config{PublicURL: "https://fincom.test", Billing: bill, Invoices: inv, TestMode: true})
	h := s.Handler()
	post(t, h, "/update_contact", withAddress)
	id := orderWith(t, h)
	out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if out["kind"] != "nfse" || out["status"] != "AUTHORIZED" || out["number"] != 1.0 || out["verification_code"] == nil || out["danfe_url"] == nil {
		t.Fatalf("issued %v", out)
	}
	again := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if again["token"] != out["token"] {
		t.Fatal("issued twice")
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if o["nf"] != true || o["date_nf"] != "22/11/2026 09:00" || !strings.HasPrefix(o["nf_status_text"].(string), "NFS-e gerada com sucesso") ||
		o["invoice"].(map[string]any)["token"] != out["token"] {
		t.Fatalf("order: nf %v date %v text %v", o["nf"], o["date_nf"], o["nf_status_text"])
	}
	public := out["danfe_url"].(string)[strings.LastIndex(out["danfe_url"].(string), "/")+1:]
	x := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+public, "")
	if x.Code != 200 || !strings.HasPrefix(x.Header().Get("Content-Type"), "application/xml") {
		t.Fatalf("xml: %d", x.Code)
	}
	var root struct{ XMLName xml.Name }
	if err := xml.Unmarshal(x.Body.Bytes(), &root); err != nil || root.XMLName.Local != "CompNfse" {
		t.Fatalf("xml root %v %v", root.XMLName, err)
	}
	r, err := docread.ReadXML(x.Body.Bytes())
	if err != nil || r.Fields["value"].Value != "1477.50" || r.Fields["supplier_register"].Value != "11222333000181" {
		t.Fatalf("read back %+v %v", r, err)
	}
	danfe := do(h, http.MethodGet, "/sales_orders/public_danfe/"+public, "")
	if danfe.Code != 200 || !strings.Contains(danfe.Body.String(), "NFS-e") || !strings.Contains(danfe.Body.String(), "R$ 1.477,50") {
		t.Fatalf("danfe: %d", danfe.Code)
	}
	post(t, h, "/send_danfe_xml", `{`+auth+`,"id_token":"`+id+`"}`)
	db, release, _ := ds.Acquire(context.Background(), "acme")
	mails, _ := db.Outbox(context.Background(), store.EveryUnit, 10)
	release()
	if len(mails) != 2 || mails[0].Kind != "invoice_issued" || mails[0].To != "nf@alfa.com.br" || !strings.Contains(mails[0].Body, "public_nf_xml/"+public) {
		t.Fatalf("outbox %+v", mails)
	}
	// Both e-mails (at issue, and sent again) carry the XML and the DANFE
	// PDF themselves, named and made as their downloads are.
	_, xp, _ := mime.ParseMediaType(x.Header().Get("Content-Disposition"))
	name := xp["filename"]
	pdf := do(h, http.MethodGet, "/sales_orders/public_danfe_pdf/"+public, "")
	disposition, pp, _ := mime.ParseMediaType(pdf.Header().Get("Content-Disposition"))
	if pdf.Code != 200 || pdf.Header().Get("Content-Type") != "application/pdf" || !strings.HasPrefix(pdf.Body.String(), "%PDF-1.4") ||
		disposition != "inline" || pp["filename"] != strings.TrimSuffix(name, ".xml")+".pdf" {
		t.Fatalf("danfe pdf: %d %v", pdf.Code, pdf.Header())
	}
	for _, m := range mails {
		want := []store.AttachmentInfo{{Name: name, ContentType: "application/xml", Size: int64(x.Body.Len())},
			{Name: strings.TrimSuffix(name, ".xml") + ".pdf", ContentType: "application/pdf", Size: int64(pdf.Body.Len())}}
		if !slices.Equal(m.Attachments, want) {
			t.Fatalf("attachments %+v, want %+v", m.Attachments, want)
		}
	}
	if rec := do(h, http.MethodGet, "/sales_orders/public_danfe_pdf/fcp_acme_nope", ""); rec.Code != 404 {
		t.Fatalf("unknown public token: %d", rec.Code)
	}

	if rec := do(h, http.MethodPost, "/cancel_nf", `{`+auth+`,"id_token":"`+id+`","reason":"Serviço prestado em outra data"}`); rec.Code != 200 {
		t.Fatalf("cancel: %d %s", rec.Code, rec.Body.String())
	}
	o = post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if o["cancel_nf"] != true || o["date_cancel_nf"] == nil || o["invoice"].(map[string]any)["status"] != "CANCELLED" {
		t.Fatalf("after cancel: %v %v", o["cancel_nf"], o["invoice"])
	}
	if !strings.Contains(do(h, http.MethodGet, "/sales_orders/public_danfe/"+public, "").Body.String(), "DOCUMENTO CANCELADO") {
		t.Fatal("cancelled DANFE not marked")
	}
	// A new invoice after the cancellation takes the next number.
	next := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if next["number"] != 2.0 {
		t.Fatalf("reissued %v", next)
	}
	now = now.Add(2 * time.Hour)
	if rec := do(h, http.MethodPost, "/cancel_nf", `{`+auth+`,"id_token":"`+id+`","reason":"Serviço prestado em outra data"}`); rec.Code != 409 ||
		!strings.Contains(rec.Body.String(), "window has closed") {
		t.Fatalf("cancel after the window: %d %s", rec.Code, rec.Body.String())
	}
}

// TestNFeAndWebhook: a product order with generateNFWebhook gets its NF-e
// when its PIX charge is paid; the key is valid and the DANFE shows its
// bar code.
func TestNFeAndWebhook(t *testing.T) {
	t.Parallel()
	s, _ := newTestModeServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	body := strings.Replace(strings.Replace(productOrder, `"local_destino":2`, `"local_destino":1`, 1), `"nf_kind":"nfe"`, `"nf_kind":"nfe","generateNFWebhook":true`, 1)
	id := post(t, h, "/insert_sales_order", body)["data"].(map[string]any)["id"].(string)
	url := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["payment_url"].(string)
	public := url[strings.LastIndex(url, "/")+1:]
	paid := post(t, h, "/sales_orders/public_pay", `{"token":"`+public+`"}`)["data"].(map[string]any)
	if paid["invoice_due"] != true || paid["invoice_token"] == nil {
		t.Fatalf("payment %v", paid)
	}
	inv := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["invoice"].(map[string]any)
	key := inv["access_key"].(string)
	if inv["kind"] != "nfe" || !brdoc.ValidAccessKey(key) || key[20:22] != "55" || key[:2] != "35" {
		t.Fatalf("invoice %v", inv)
	}
	danfe := do(h, http.MethodGet, "/sales_orders/public_danfe/"+public, "").Body.String()
	if !strings.Contains(danfe, "DANFE") || !strings.Contains(danfe, key[:4]+" "+key[4:8]) || !strings.Contains(danfe, "data:image/png;base64,") {
		t.Fatal("DANFE lacks its key or bar code")
	}
	x := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+public, "").Body.Bytes()
	r, err := docread.ReadXML(x)
	if err != nil || r.Kind != "nfe" || r.Fields["access_key"].Value != key || r.Fields["value"].Value != "47.30" {
		t.Fatalf("read back %+v %v", r, err)
	}
	_ = fiscal.NFe
}

// TestConcurrentIssue: requests issuing one order's invoice at once get
// the same invoice, and spend one number: the next order takes the next.
func TestConcurrentIssue(t *testing.T) {
	t.Parallel()
	s, _ := newTestModeServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", withAddress)
	id := orderWith(t, h)
	const n = 8
	answers := make(chan map[string]any, n)
	for range n {
		go func() {
			rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
			var a map[string]any
			json.Unmarshal(rec.Body.Bytes(), &a)
			answers <- a
		}()
	}
	var token any
	for range n {
		a := <-answers
		data, _ := a["data"].(map[string]any)
		if data == nil || data["number"] != 1.0 || token != nil && data["token"] != token {
			t.Fatalf("answer %v", a)
		}
		token = data["token"]
	}
	next := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+orderWith(t, h)+`"}`)["data"].(map[string]any)
	if next["number"] != 2.0 {
		t.Fatalf("the next order's invoice is number %v", next["number"])
	}
}

// nfceOrder is productOrder as a counter sale: an NFC-e to a consumer in
// person, paid in cash.
var nfceOrder = strings.NewReplacer(`"nf_kind":"nfe"`, `"nf_kind":"nfce"`, `"presenca_comprador":"2"`, `"presenca_comprador":"1"`,
	`"freight_mode":"1","freight_total":12.3,"local_destino":2`, `"freight_mode":"9","local_destino":1`).Replace(productOrder)

// nationalOrder is serviceOrder as a national NFS-e.
var nationalOrder = strings.Replace(serviceOrder, `"nf_kind":"nfse"`, `"nf_kind":"nfsen"`, 1)

// TestEveryInvoiceKind issues an NF-e, an NFC-e and a national NFS-e
// through the API on a server outside test mode, signed with the unit's
// installed certificate and authorized by a SEFAZ and a national system
// on loopback (a municipal NFS-e is refused there: no city's system is
// connected); TestMain then holds each document to the official schemas
// with xmllint and its signatures to xmlsec1.
func TestEveryInvoiceKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ kind, body string }{
		{"nfe", strings.Replace(productOrder, `"local_destino":2`, `"local_destino":1`, 1)},
		{"nfce", nfceOrder},
		{"nfsen", nationalOrder},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			s, _ := newTestServer(t)
			h := s.Handler()
			post(t, h, "/update_contact", withAddress)
			post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
			if tc.kind == "nfsen" {
				id := post(t, h, "/insert_sales_order", serviceOrder)["data"].(map[string]any)["id"].(string)
				rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
				if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "a municipal NFS-e is issued only in test mode") {
					t.Fatalf("production municipal NFS-e: %d %s", rec.Code, rec.Body)
				}
			}
			id := post(t, h, "/insert_sales_order", tc.body)["data"].(map[string]any)["id"].(string)
			out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
			if out["kind"] != tc.kind || out["status"] != "AUTHORIZED" {
				t.Fatalf("issued %v", out)
			}
			pub := publicOf(t, h, id)
			xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+pub, "").Body.String()
			if !strings.Contains(xml, "<Signature xmlns=\"http://www.w3.org/2000/09/xmldsig#\">") || !strings.Contains(xml, "<tpAmb>2</tpAmb>") {
				t.Fatalf("the XML is not signed or not of the test environment: %.300s", xml)
			}
			// The DANFE the customer gets says what the document is, and
			// its codes read back as the XML's.
			pdf := do(h, http.MethodGet, "/sales_orders/public_danfe_pdf/"+pub, "").Body.Bytes()
			text := pdfToText(t, pdf)
			for _, want := range []string{"SEM VALOR FISCAL", "EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO", "11.222.333/0001-81"} {
				if !strings.Contains(text, want) {
					t.Errorf("the DANFE PDF lacks %q:\n%s", want, text)
				}
			}
			page := do(h, http.MethodGet, "/sales_orders/public_danfe/"+pub, "").Body.String()
			if !strings.Contains(page, "EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO") {
				t.Error("the DANFE page lacks the test environment's notice")
			}
			switch tc.kind {
			case "nfe":
				key := out["access_key"].(string)
				if got := zbarPDF(t, pdf, "code128"); got != key {
					t.Errorf("the DANFE's bar code reads %q, the key is %s", got, key)
				}
				for _, want := range []string{"NATUREZA DA OPERAÇÃO", "CÁLCULO DO IMPOSTO", "Avenida Paulista, 1000", "110042490114"} {
					if !strings.Contains(text, want) {
						t.Errorf("the DANFE PDF lacks %q", want)
					}
				}
			case "nfce":
				_, rest, _ := strings.Cut(xml, "<qrCode>")
				qr, _, _ := strings.Cut(rest, "</qrCode>")
				if got := zbarPDF(t, pdf, "qrcode"); got != qr {
					t.Errorf("the receipt's QR code reads %q, the XML's is %q", got, qr)
				}
			}
		})
	}
}

// publicOf answers an order's public token.
func publicOf(t *testing.T, h http.Handler, id string) string {
	t.Helper()
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	u, _ := o["invoice"].(map[string]any)["xml_url"].(string)
	return u[strings.LastIndex(u, "/")+1:]
}

// TestInvoiceCertificates: outside test mode a unit signs with the
// certificate its operator installed: none, an expired one or another
// firm's refuse to issue (422 saying what to do), nothing is issued and
// the number stays free; in test mode a unit without one gets a test
// certificate.
func TestInvoiceCertificates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	issue := func(t *testing.T, s *Server, ds *store.Domains, install func(db *store.DB, unitID int64)) *httptest.ResponseRecorder {
		t.Helper()
		h := s.Handler()
		post(t, h, "/update_contact", withAddress)
		id := orderWith(t, h, `"nf_kind":"nfse"`, `"nf_kind":"nfsen"`)
		if install != nil {
			db, release, err := ds.Acquire(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			units, _ := db.Units(ctx)
			install(db, units[0].ID)
			release()
		}
		return do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	}
	expired, _ := certs.TestCertificate("Acme Matriz", "11222333000181", fixedNow.AddDate(-6, 0, 0))
	other, _ := certs.TestCertificate("Outra Firma", "11444777000161", fixedNow)
	for _, tc := range []struct {
		name    string
		install func(db *store.DB, unitID int64)
		want    string
	}{
		{"expired", func(db *store.DB, id int64) { invoicing.InstallCertificate(ctx, db, id, testKeys, expired) },
			`"details":{"reason":"the certificate has expired (on `},
		{"another firm's", func(db *store.DB, id int64) { invoicing.InstallCertificate(ctx, db, id, testKeys, other) },
			`"details":{"reason":"the certificate belongs to another CNPJ: it names 11444777000161`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ds := newTestServer(t)
			rec := issue(t, s, ds, tc.install)
			if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), tc.want) ||
				!strings.Contains(rec.Body.String(), "cannot sign (details.reason)") {
				t.Fatalf("%d %s", rec.Code, rec.Body.String())
			}
		})
	}
	t.Run("another key", func(t *testing.T) {
		// A server given another secrets key cannot open the sealed key.
		k, _ := certs.NewKeyring(make([]byte, 32))
		now := fixedNow
		s, ds := newTestServerAt(t, &now, Config{Version: "test", Keyring: k})
		if rec := issue(t, s, ds, nil); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "does not open the unit's certificate") {
			t.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
	})
	newDomain := func(t *testing.T, testCerts bool) (http.Handler, string, string) {
		t.Helper()
		bill, inv, err := testServices(ServiceOptions{PublicURL: "https://fincom.test", TestCertificates: testCerts})
		if err != nil {
			t.Fatal(err)
		}
		now := fixedNow
		s, _ := newTestServerAt(t, &now, Config{Version: "test", TestMode: true, Billing: bill, Invoices: inv})
		h := s.Handler()
		// A fresh throw-away domain: complete profile, no certificate.
		d := post(t, h, "/_test/domains", `{}`)["data"].(map[string]any)
		tokens := `"access_token":"` + d["access_token"].(string) + `","unit_token":"` + d["unit_token"].(string) + `"`
		c := post(t, h, "/insert_contact", `{`+tokens+`,"type":"legal","register":"11444777000161","socialReason":"Alfa SA","address":"Av. Paulista",
			"number":"1500","neighborhood":"Bela Vista","city":"São Paulo","state":"SP","zip_code":"01310-100"}`)["token"].(string)
		svc := post(t, h, "/insert_product_or_service", `{`+tokens+`,"description":"Instalação","type":"service","value":100}`)["token"].(string)
		cat := post(t, h, "/get_categories", `{`+tokens+`,"type":"in"}`)["data"].([]any)[0].(map[string]any)["token"].(string)
		pm := post(t, h, "/list_payments_method", `{`+tokens+`}`)["data"].([]any)[0].(map[string]any)["token"].(string)
		id := post(t, h, "/insert_sales_order", `{`+tokens+`,"pv":{"id_token_contact":"`+c+`","id_token_stock_item":"`+svc+`","description":"Instalação","value":100},
			"faturamento":{"id_token_category":"`+cat+`","estimated_payment_date":"2026-12-01"},"charge":{"payment_type":"`+pm+`"},
			"nf":{"nf_kind":"nfsen","service_id_token":"S1","service_cod":"01.07","tax_iss_rate_percent":5}}`)["data"].(map[string]any)["id"].(string)
		return h, tokens, id
	}
	t.Run("none", func(t *testing.T) {
		h, tokens, id := newDomain(t, false)
		rec := do(h, http.MethodPost, "/generate_nf", `{`+tokens+`,"id_token":"`+id+`"}`)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "install its A1 with fincom unit cert DOMAIN UNIT_TOKEN --pfx FILE") {
			t.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
	})
	t.Run("test mode makes one", func(t *testing.T) {
		h, tokens, id := newDomain(t, true)
		out := post(t, h, "/generate_nf", `{`+tokens+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
		if out["status"] != "AUTHORIZED" || out["number"] != 1.0 {
			t.Fatalf("issued %v", out)
		}
	})
}

// TestInvoiceNeedsProfile: a unit without its fiscal profile cannot issue,
// and the 422 names each missing field as `fincom unit set` sets it.
func TestInvoiceNeedsProfile(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", withAddress)
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	db, release, err := ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SetUnitProfile(context.Background(), fx.tokens["unitA"], func(p *store.UnitProfile) error {
		*p = store.UnitProfile{}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	release()
	id := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	var out struct {
		Details struct {
			Problems []struct{ Field, Message string }
		}
	}
	json.Unmarshal(rec.Body.Bytes(), &out)
	got := map[string]string{}
	for _, p := range out.Details.Problems {
		got[p.Field] = p.Message
	}
	for _, f := range []string{"unit.street", "unit.number", "unit.district", "unit.zip", "unit.ie", "unit.crt", "unit.csc"} {
		if !strings.Contains(got[f], "fincom unit set") {
			t.Errorf("%s: %q", f, got[f])
		}
	}
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
}

// TestRecipientStateRegistration: a contact's state registration is read
// by its state's rule and agrees with its ICMS contributor indicator, each
// refusal naming its field; the NF-e's indIEDest and IE follow the contact
// (the document held to the official schema like every other), and a sale
// to whom is not a contributor with consumidor_final 0 is refused before
// it reaches SEFAZ, naming the field (rule 696).
func TestRecipientStateRegistration(t *testing.T) {
	t.Parallel()
	const update = `{` + auth + `,"id_token":"{{contact2}}",`
	field := func(name string) func(*testing.T, map[string]any) {
		return func(t *testing.T, r map[string]any) {
			if d, _ := r["details"].(map[string]any); d == nil || d["field"] != name {
				t.Errorf("details %v, want field %s", r["details"], name)
			}
		}
	}
	run(t, []scenario{
		{name: "wrong digit", path: "/update_contact", body: update + `"state":"SP","state_registration":"110.042.490.115"}`, status: 400,
			text: "Invalid state_registration: not an inscrição estadual of the contact's state (details.state; its check digits differ), nor ISENTO.", check: field("state_registration")},
		{name: "another state's", path: "/update_contact", body: update + `"state":"RJ","state_registration":"110.042.490.114"}`, status: 400,
			text: "Invalid state_registration: not an inscrição estadual of the contact's state (details.state; its check digits differ), nor ISENTO.", check: field("state_registration")},
		{name: "no state", path: "/insert_contact", body: `{` + auth + `,"type":"legal","register":"45.997.418/0001-53","socialReason":"Beta Ltda","state_registration":"110042490114"}`,
			status: 400, text: "A state registration is read by its state's rule: send the contact's state too.", check: field("state")},
		{name: "contributor without registration", path: "/update_contact", body: update + `"icms_contributor":"1"}`, status: 400,
			text: "icms_contributor 1 (contributor of ICMS) needs the contact's state_registration.", check: field("icms_contributor")},
		{name: "exempt with a number", path: "/update_contact", body: update + `"state":"SP","state_registration":"110042490114","icms_contributor":"2"}`, status: 400,
			text: "icms_contributor 2 (exempt from state registration) does not go with a state_registration number: send ISENTO or 1.", check: field("icms_contributor")},
		{name: "unknown indicator", path: "/update_contact", body: update + `"icms_contributor":"3"}`, status: 400, text: "Invalid icms_contributor. Use 1, 2 or 9."},
		{name: "valid", path: "/update_contact", body: update + `"state":"SP","state_registration":"110.042.490.114"}`, status: 200},
		{name: "exempt", path: "/update_contact", body: update + `"state_registration":"isento","icms_contributor":"2"}`, status: 200},
	})

	// The NF-e: indIEDest and IE as the contact says.
	b2b := strings.NewReplacer(`"local_destino":2`, `"local_destino":1`, `"consumidor_final":"1"`, `"consumidor_final":"0"`).Replace(productOrder)
	for _, c := range []struct {
		name, contact, order string
		want                 []string
		problem              string
	}{
		{"contributor", `"state_registration":"110.042.490.114"`, b2b, []string{"<indFinal>0</indFinal>", "<indIEDest>1</indIEDest><IE>110042490114</IE>"}, ""},
		{"exempt", `"state_registration":"ISENTO"`, b2b, []string{"<indIEDest>2</indIEDest>"}, ""},
		{"not a contributor, final consumer", `"state_registration":""`, strings.Replace(b2b, `"consumidor_final":"0"`, `"consumidor_final":"1"`, 1),
			[]string{"<indFinal>1</indFinal>", "<indIEDest>9</indIEDest>"}, ""},
		{"not a contributor, not final", `"state_registration":"","icms_contributor":"9"`, b2b, nil, "nf.consumidor_final"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newTestServer(t)
			h := s.Handler()
			post(t, h, "/update_contact", withAddress)
			post(t, h, "/update_contact", strings.Replace(strings.TrimSuffix(withAddress, "}")+`,`+c.contact+`}`, "{{contact1}}", "{{contact2}}", 1))
			id := post(t, h, "/insert_sales_order", c.order)["data"].(map[string]any)["id"].(string)
			rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
			if c.problem != "" {
				if rec.Code != 422 || !strings.Contains(rec.Body.String(), `"field":"`+c.problem+`"`) || !strings.Contains(rec.Body.String(), "rule 696") {
					t.Fatalf("want the problem %s: %d %s", c.problem, rec.Code, rec.Body)
				}
				return
			}
			if rec.Code != 200 {
				t.Fatalf("issue: %d %s", rec.Code, rec.Body)
			}
			xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, id), "").Body.String()
			for _, w := range c.want {
				if !strings.Contains(xml, w) {
					t.Errorf("the NF-e lacks %s", w)
				}
			}
			if dest := xml[strings.Index(xml, "<dest>"):strings.Index(xml, "</dest>")]; strings.Contains(dest, "<IE>") != (c.name == "contributor") {
				t.Errorf("the recipient's IE: %s", dest)
			}
		})
	}
}

// TestFreightChargedAsInvoiced: an order with freight charges what its
// NF-e totals, products and freight, and the note's payment group states
// that amount by the means charged: a PIX paid by a static BR Code is
// tPag 20.
func TestFreightChargedAsInvoiced(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", withAddress)
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	id := post(t, h, "/insert_sales_order", strings.Replace(productOrder, `"local_destino":2`, `"local_destino":1`, 1))["data"].(map[string]any)["id"].(string)
	charges := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)
	if len(charges) != 1 || charges[0].(map[string]any)["amount"] != "47.30" {
		t.Fatalf("charges %v", charges)
	}
	post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, id), "").Body.String()
	for _, want := range []string{"<vFrete>12.30</vFrete><vSeg>", "<vNF>47.30</vNF>", "<detPag><tPag>20</tPag><vPag>47.30</vPag></detPag>"} {
		if !strings.Contains(xml, want) {
			t.Errorf("the NF-e lacks %s", want)
		}
	}
}
