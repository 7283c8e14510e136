package cmd

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"fincom/server"
)

// demoCall posts a JSON body to a route of the demo's first unit.
type demoCall func(path string, body map[string]any) (map[string]any, error)

// demoMonth seeds a month of work around today, through the API as a
// client would: orders charged by boleto and PIX (some paid, some
// overdue, some to come, one without a charge), their service invoices,
// bills and incomes, and a bank statement with lines to reconcile, so
// that every page of a first visit shows something to do.
func demoMonth(h http.Handler, post demoCall, access, unit, service, customer, account string, today time.Time) error {
	day := func(offset int) string { return today.AddDate(0, 0, offset).Format(time.DateOnly) }
	// Each entry under the seeded category a firm's accountant expects
	// (its DRE line): sales as services rendered, the rent as Aluguel.
	categories := map[string]string{}
	for _, typ := range []string{"in", "out"} {
		out, err := post("/get_categories", map[string]any{"type": typ})
		if err != nil {
			return err
		}
		list, _ := out["data"].([]any)
		for _, c := range list {
			c := c.(map[string]any)
			name, _ := c["category"].(string)
			tok, _ := c["token"].(string)
			categories[name] = tok
		}
	}
	category := func(name string) (string, error) {
		if tok := categories[name]; tok != "" {
			return tok, nil
		}
		return "", fmt.Errorf("the demo's unit has no category %q", name)
	}
	income, err := category("Prestação de serviços")
	if err != nil {
		return err
	}
	methods, err := post("/list_payments_method", map[string]any{})
	if err != nil {
		return err
	}
	method := map[string]string{}
	for _, m := range methods["data"].([]any) {
		m := m.(map[string]any)
		key, _ := m["payment_key"].(string)
		tok, _ := m["token"].(string)
		method[key] = tok
	}
	for _, o := range []struct {
		offset      int
		description string
		value       float64
		pay         string // BOLETO, PIX, or "" without a charge
		paid        bool
		invoice     bool
	}{
		{-20, "Consultoria de outubro: fechamento contábil", 1250, "PIX", true, true},
		{-14, "Implantação do plano de contas", 2400, "BOLETO", true, true},
		{-9, "Consultoria: fluxo de caixa", 980, "BOLETO", false, false},
		{-4, "Treinamento da equipe financeira", 650, "PIX", false, false},
		{-2, "Revisão de contratos", 450, "", false, false},
		{5, "Consultoria de novembro", 1250, "BOLETO", false, false},
		{12, "Planejamento tributário 2027", 3200, "PIX", false, false},
	} {
		// An order without a charge is paid by transfer, when the firm
		// decides to charge it.
		charge := map[string]any{"payment_type": method["TRANSFER"], "bankAccountPayment": account}
		if o.pay != "" {
			charge = map[string]any{"payment_type": method[o.pay]}
			if o.pay == "BOLETO" {
				charge["provider_bank"] = "provider_a"
			} else {
				charge["charge_pix_key"] = "financeiro@demo.fincom.local"
			}
		}
		iss := o.value * 5 / 100
		out, err := post("/insert_sales_order", map[string]any{
			"pv": map[string]any{"id_token_contact": customer, "id_token_stock_item": service, "description": o.description, "value": o.value,
				"quantity": 1, "notify_email_charge": "financeiro@horizonte.com.br", "notify_email_nf": "financeiro@horizonte.com.br"},
			"faturamento": map[string]any{"id_token_category": income, "estimated_payment_date": day(o.offset), "id_token_bank_account": account,
				"in_automation": true},
			"charge": charge,
			"nf": map[string]any{"nf_kind": "nfse", "service_id_token": "CONS-01", "service_cod": "17.01", "service_location": "3550308",
				"tax_service_gross_amount": o.value, "tax_iss_rate_percent": 5, "tax_iss_amount": iss, "net_receivable_amount": o.value},
		})
		if err != nil {
			return err
		}
		id := out["data"].(map[string]any)["id"].(string)
		if o.pay != "" {
			if _, err := post("/generate_charge", map[string]any{"id_token": id}); err != nil {
				return err
			}
		}
		if o.paid {
			if _, err := post("/settle_charge", map[string]any{"id_token": id, "amount": fmt.Sprintf("%.2f", o.value), "date": day(o.offset + 1)}); err != nil {
				return err
			}
		}
		if o.invoice {
			if _, err := post("/generate_nf", map[string]any{"id_token": id}); err != nil {
				return err
			}
		}
	}
	for _, e := range []struct {
		category string
		entry    map[string]any
	}{
		{"Aluguel", map[string]any{"description": "Aluguel do escritório", "value": "3200.00", "due_date": day(5)}},
		{"Energia elétrica", map[string]any{"description": "Energia elétrica", "value": "412.37", "due_date": day(-6), "pay_day": day(-6), "id_token_bank_account": account}},
		{"Internet e telefone", map[string]any{"description": "Internet e telefone", "value": "189.90", "due_date": day(-3)}},
		{"Contabilidade", map[string]any{"description": "Contador: honorários", "value": "850.00", "due_date": day(9)}},
		{"Tarifas bancárias", map[string]any{"description": "Tarifa do pacote de serviços", "value": "39.90", "due_date": day(-20), "pay_day": day(-20), "id_token_bank_account": account}},
	} {
		tok, err := category(e.category)
		if err != nil {
			return err
		}
		e.entry["id_token_category"] = tok
		if _, err := post("/insert_expense", e.entry); err != nil {
			return err
		}
	}
	yield, err := category("Rendimentos de aplicações")
	if err != nil {
		return err
	}
	if _, err := post("/insert_income", map[string]any{"description": "Rendimento da aplicação", "value": "37.15", "due_date": day(-10),
		"pay_day": day(-10), "id_token_bank_account": account, "id_token_category": yield}); err != nil {
		return err
	}
	// The bank's statement of the last days: a tariff and a PIX no order
	// explains, for a person to reconcile (the portal's Conciliação).
	ofx := demoOFX([]demoLine{{"DEMO-1", day(-2), "-39.90", "TARIFA PACOTE DE SERVICOS"}, {"DEMO-2", day(-1), "480.00", "PIX RECEBIDO MARIA DA SILVA"},
		{"DEMO-3", day(-1), "-12.50", "TARIFA PIX"}})
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("metadata", fmt.Sprintf(`{"access_token":%q,"unit_token":%q,"id_token_bank_account":%q}`, access, unit, account))
	fw, _ := mw.CreateFormFile("files", "extrato.ofx")
	fw.Write(ofx)
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, server.Prefix+"/import_ofx", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return fmt.Errorf("/import_ofx: %d %s", rec.Code, rec.Body.String())
	}
	return nil
}

type demoLine struct{ fitid, day, amount, memo string }

// demoOFX is an OFX 1.02 statement of Banco do Brasil's account 98765-0,
// as a Brazilian bank exports it.
func demoOFX(lines []demoLine) []byte {
	var b strings.Builder
	b.WriteString("OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\nCHARSET:1252\r\nCOMPRESSION:NONE\r\n" +
		"OLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><LANGUAGE>POR</SONRS></SIGNONMSGSRSV1>\r\n" +
		"<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS><STMTRS><CURDEF>BRL\r\n" +
		"<BANKACCTFROM><BANKID>001<ACCTID>98765-0<ACCTTYPE>CHECKING</BANKACCTFROM>\r\n<BANKTRANLIST>\r\n")
	for _, l := range lines {
		kind := "CREDIT"
		if strings.HasPrefix(l.amount, "-") {
			kind = "DEBIT"
		}
		fmt.Fprintf(&b, "<STMTTRN><TRNTYPE>%s<DTPOSTED>%s<TRNAMT>%s<FITID>%s<MEMO>%s</STMTTRN>\r\n", kind, strings.ReplaceAll(l.day, "-", ""),
			l.amount, l.fitid, l.memo)
	}
	b.WriteString("</BANKTRANLIST><LEDGERBAL><BALAMT>0</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n")
	return []byte(b.String())
}
