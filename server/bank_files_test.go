package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/bank"
	"fincom/server/billing"
	"fincom/server/brdoc"
	"fincom/store"
)

// itauReturn is the return file the bank would send for unit A's Itaú
// agreement (the fixture's).
func itauReturn(t *testing.T, items ...bank.ReturnItem) []byte {
	t.Helper()
	b, _ := bank.ByProvider("provider_a")
	a := bank.Samples()["provider_a"]
	a.Name, a.CNPJ = "Acme Matriz", "11222333000181"
	if err := b.Check(&a); err != nil {
		t.Fatal(err)
	}
	f, err := b.ReturnFile(a, 1, fixedNow, items)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func itauOur(t *testing.T, n int64) bank.OurNumber {
	b, _ := bank.ByProvider("provider_a")
	a := bank.Samples()["provider_a"]
	o, err := b.OurNumber(a, n)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestBankChannels: a production server collects through the unit's bank:
// the boleto carries the agreement's our-number, the remittance registers
// it, the return file registers and pays it (settling it as a confirmed
// payment does), the same file twice changes nothing, a malformed one is
// refused at its line and column, a unit without an agreement is told the
// command that sets one, and money received elsewhere is recorded by the
// firm.
func TestBankChannels(t *testing.T) {
	t.Parallel()
	var applied appliedLog
	now := fixedNow
	s, ds := newTestServerAt(t, &now, Config{Version: "test", PublicURL: "https://fincom.test", Logger: applied.logger()})
	h := s.Handler()
	id := post(t, h, "/insert_sales_order", serviceOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	order := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	c := order["charges"].([]any)[0].(map[string]any)
	if c["our_number"] != "1" || c["registration"] != "pending" {
		t.Fatalf("charge %v", c)
	}
	line := c["boleto_barcode"].(string)
	// Itaú's free field: wallet 109, our-number 00000001 and its DAC,
	// agency 0057, account 12345 and its DAC 7, 000.
	o := itauOur(t, 1)
	if !brdoc.ValidBoleto(line) || line[19:] != "109"+"00000001"+o.DV+"0057"+"12345"+"7"+"000" {
		t.Errorf("bar code %s", line)
	}

	// The remittance registers it, and is kept.
	rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"provider_a"}`)
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("remittance: %d %s", rec.Code, rec.Body)
	}
	file := rec.Body.String()
	recs := strings.Split(strings.TrimSuffix(file, "\r\n"), "\r\n")
	if len(recs) != 7 || recs[2][13] != 'P' || recs[2][40:49] != "00000001"+o.DV || recs[2][85:100] != "000000000150000" {
		t.Fatalf("remittance records:\n%s", file)
	}
	if rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"provider_a"}`); rec.Code != 409 {
		t.Errorf("second remittance: %d %s", rec.Code, rec.Body)
	}
	if rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"provider_a","sequence":1}`); rec.Body.String() != file {
		t.Errorf("remittance 1 downloaded again differs")
	}
	// A sequence never written, and one of another provider's agreement.
	for _, body := range []string{`"provider":"provider_a","sequence":99`, `"provider":"provider_b","sequence":1`} {
		if rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,`+body+`}`); rec.Code != 404 ||
			!strings.Contains(rec.Body.String(), `"Remittance not found: no file of that sequence was written for this provider's agreement."`) {
			t.Errorf("%s: %d %s", body, rec.Code, rec.Body)
		}
	}
	c = post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	if c["registration"] != "sent" {
		t.Errorf("after the remittance: %v", c["registration"])
	}

	// The return registers and pays it; a line of an unknown our-number
	// is reported.
	day := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	ret := itauReturn(t,
		bank.ReturnItem{Movement: "02", Our: o, Document: "PV-000001/1", Due: day, Amount: decimal.NewFromInt(1500)},
		bank.ReturnItem{Movement: "06", Our: o, Document: "PV-000001/1", Due: day, Amount: decimal.NewFromInt(1500),
			Paid: decimal.NewFromInt(1500), Fee: decimal.RequireFromString("3.20"), Occurred: day, Credited: day.AddDate(0, 0, 1)},
		bank.ReturnItem{Movement: "06", Our: itauOur(t, 77), Due: day, Amount: decimal.NewFromInt(10), Paid: decimal.NewFromInt(10), Occurred: day},
	)
	imp := doMultipart(h, "/import_return", `{`+auth+`,"provider":"provider_a"}`, map[string][]byte{"RET.txt": ret})
	if imp.Code != 200 {
		t.Fatalf("import: %d %s", imp.Code, imp.Body)
	}
	var rep struct {
		Data struct {
			Duplicate bool `json:"duplicate"`
			Lines     []struct {
				Line    int    `json:"line"`
				Outcome string `json:"outcome"`
			} `json:"lines"`
		} `json:"data"`
	}
	json.Unmarshal(imp.Body.Bytes(), &rep)
	got := []string{}
	for _, l := range rep.Data.Lines {
		got = append(got, l.Outcome)
	}
	if strings.Join(got, ",") != "registered,paid,unknown_charge" || rep.Data.Lines[2].Line != 7 {
		t.Errorf("report %s", imp.Body)
	}
	order = post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	c = order["charges"].([]any)[0].(map[string]any)
	if c["status"] != "PAID" || c["registration"] != "registered" || c["paid_amount"] != "1500.00" || order["charge_status"] != "PAID" {
		t.Errorf("after the return: %v %v", c, order["charge_status"])
	}
	entries := post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31","type":"in"}`)["data"].([]any)
	paid := 0
	for _, e := range entries {
		if m := e.(map[string]any); m["value"] == "1500.00" || m["value"] == 1500.0 {
			paid++
		}
	}
	if paid != 1 {
		t.Errorf("income entries of 1500: %d in %v", paid, entries)
	}

	// The payer is told, as after every confirmed payment.
	odb, orelease, err := ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	mails, _ := odb.Outbox(context.Background(), store.EveryUnit, 50)
	orelease()
	confirmed := 0
	for _, m := range mails {
		if m.Kind == "payment_confirmed" && strings.Contains(m.Body, "1.500,00") {
			confirmed++
		}
	}
	if confirmed != 1 {
		t.Errorf("payment e-mails after the return: %d", confirmed)
	}
	applied.want(t, store.PaidReturn)

	// The same file twice changes nothing.
	again := doMultipart(h, "/import_return", `{`+auth+`,"provider":"provider_a"}`, map[string][]byte{"RET.txt": ret})
	if !strings.Contains(again.Body.String(), `"duplicate":true`) {
		t.Errorf("second import: %s", again.Body)
	}
	entries2 := post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31","type":"in"}`)["data"].([]any)
	if len(entries2) != len(entries) {
		t.Errorf("the second import booked %d entries more", len(entries2)-len(entries))
	}

	// A malformed file is refused whole, at its line and column.
	lines := strings.Split(string(ret), "\r\n")
	lines[3] = lines[3][:81] + "ABC" + lines[3][84:] // the amount of the first T
	bad := []byte(strings.Join(lines, "\r\n"))
	rec = doMultipart(h, "/import_return", `{`+auth+`,"provider":"provider_a"}`, map[string][]byte{"RET.txt": bad})
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"Line":4`) || !strings.Contains(rec.Body.String(), `"Column":82`) {
		t.Errorf("malformed: %d %s", rec.Code, rec.Body)
	}

	// A production server does not use a simulated agreement: the charge
	// is refused with the command that sets a real one.
	db, release, err := ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := db.UnitByToken(context.Background(), fx.tokens["unitA"])
	sm := bank.Samples()["provider_c"]
	if _, err := db.SetAgreement(context.Background(), u.ID, store.Agreement{Provider: "provider_c", Bank: sm.Bank, Agency: sm.Agency,
		AgencyDV: sm.AgencyDV, Account: sm.Account, AccountDV: sm.AccountDV, Wallet: sm.Wallet, Code: sm.Code, Simulated: true}); err != nil {
		t.Fatal(err)
	}
	release()
	cid := post(t, h, "/insert_sales_order", strings.Replace(serviceOrder, `"provider_a"`, `"provider_c"`, 1))["data"].(map[string]any)["id"].(string)
	if rec := do(h, http.MethodPost, "/generate_charge", `{`+auth+`,"id_token":"`+cid+`"}`); rec.Code != 422 ||
		!strings.Contains(rec.Body.String(), "fincom unit agreement DOMAIN UNIT_TOKEN --provider") {
		t.Errorf("simulated agreement in production: %d %s", rec.Code, rec.Body)
	}
	if c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+cid+`"}`)["data"].(map[string]any); len(c["charges"].([]any)) != 0 {
		t.Errorf("a refused charge left %v", c["charges"])
	}

	// Money received elsewhere: the firm records it.
	id2 := post(t, h, "/insert_sales_order", serviceOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id2+`"}`)
	c2 := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id2+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	if c2["our_number"] != "2" {
		t.Errorf("second boleto's our-number %v", c2["our_number"])
	}
	st := post(t, h, "/settle_charge", `{`+auth+`,"id_token":"`+id2+`","amount":"1500.00","date":"2026-11-25"}`)["data"].(map[string]any)
	if st["settlement"] != "exact" || st["charge_status"] != "PAID" {
		t.Errorf("settle: %v", st)
	}
	applied.want(t, store.PaidReturn, store.PaidFirm)
	if rec := do(h, http.MethodPost, "/settle_charge", `{`+auth+`,"id_token":"`+id2+`"}`); rec.Code == 200 {
		t.Errorf("settling a paid charge again: %d", rec.Code)
	}
}

// registerBoletos has the bank register unit A's boletos through the
// provider: the remittance out, a return confirming each entry in.
func registerBoletos(t *testing.T, h http.Handler, provider string) {
	t.Helper()
	rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"`+provider+`"}`)
	if rec.Code != 200 {
		t.Fatalf("remittance: %d %s", rec.Code, rec.Body)
	}
	b, _ := bank.ByProvider(provider)
	a := bank.Samples()[provider]
	a.Name, a.CNPJ = "Acme Matriz", "11222333000181"
	moves, ours := b.Remitted(rec.Body.Bytes())
	var items []bank.ReturnItem
	for i, o := range ours {
		if moves[i] == bank.MoveEntry {
			items = append(items, bank.ReturnItem{Movement: "02", Our: o, Due: fixedNow, Amount: decimal.NewFromInt(1)})
		}
	}
	f, err := b.ReturnFile(a, 1, fixedNow, items)
	if err != nil {
		t.Fatal(err)
	}
	if rec := doMultipart(h, "/import_return", `{`+auth+`}`, map[string][]byte{"ret.txt": f}); rec.Code != 200 {
		t.Fatalf("return: %d %s", rec.Code, rec.Body)
	}
}

// TestBoletoPayerComplete: with a production agreement, a boleto whose
// customer lacks what its bank needs to register it (segment Q: name,
// CPF or CNPJ in digits, address, CEP) is refused at the charge, naming
// the contact's fields, with nothing written (no charge, no our-number
// taken); a contact emptied after its charge holds the remittance back.
func TestBoletoPayerComplete(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	contact := func(body string) string {
		return post(t, h, "/insert_contact", `{`+auth+`,`+body+`}`)["token"].(string)
	}
	order := func(contact string) string {
		return post(t, h, "/insert_sales_order", strings.Replace(serviceOrder, "{{contact1}}", contact, 1))["data"].(map[string]any)["id"].(string)
	}
	type refusal struct {
		Error   string `json:"error"`
		Details struct {
			Order   string   `json:"cod_orders"`
			Missing []string `json:"missing"`
		} `json:"details"`
	}
	refused := func(rec *httptest.ResponseRecorder, missing string) {
		t.Helper()
		var r refusal
		json.Unmarshal(rec.Body.Bytes(), &r)
		if rec.Code != 422 || r.Error != "The customer lacks what the bank needs to register a boleto: complete the contact (details.missing: its CPF or CNPJ in digits, address, city, state and zip_code), then try again." || strings.Join(r.Details.Missing, ",") != missing || r.Details.Order == "" {
			t.Errorf("want 422 missing %s, got %d %s", missing, rec.Code, rec.Body)
		}
	}
	charges := func(id string) []any {
		return post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)
	}
	address := `"address":"Av. Paulista","number":"1000","neighborhood":"Bela Vista","city":"São Paulo","state":"SP","zip_code":"01310-100"`

	bare := contact(`"type":"legal","register":"11.222.333/0001-81","socialReason":"Beta Serviços S.A."`)
	o1 := order(bare)
	refused(do(h, http.MethodPost, "/generate_charge", `{`+auth+`,"id_token":"`+o1+`"}`), "address,city,state,zip_code")
	if c := charges(o1); len(c) != 0 {
		t.Errorf("a refused charge left %v", c)
	}
	alnum := contact(`"type":"legal","register":"12.abc.345/01de-35","socialReason":"Nova Era Ltda",` + address)
	refused(do(h, http.MethodPost, "/generate_charge", `{`+auth+`,"id_token":"`+order(alnum)+`"}`), "register")

	// Completed, the contact's boleto takes the agreement's first
	// our-number: the refusals took none.
	post(t, h, "/update_contact", `{`+auth+`,"id_token":"`+bare+`",`+address+`}`)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+o1+`"}`)
	if c := charges(o1); len(c) != 1 || c[0].(map[string]any)["our_number"] != "1" {
		t.Fatalf("charge of the completed contact %v", c)
	}

	// Emptied after the charge: the remittance waits for the contact.
	post(t, h, "/update_contact", `{`+auth+`,"id_token":"`+bare+`","zip_code":""}`)
	refused(do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"provider_a"}`), "zip_code")
	post(t, h, "/update_contact", `{`+auth+`,"id_token":"`+bare+`","zip_code":"01310-100"}`)
	rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"provider_a"}`)
	recs := strings.Split(rec.Body.String(), "\r\n")
	// Segment Q at FEBRABAN's positions: inscription kind 18, number
	// 19-33, CEP 129-136.
	if rec.Code != 200 || len(recs) < 4 || recs[3][13] != 'Q' || recs[3][17:33] != "2"+"011222333000181" || recs[3][128:136] != "01310100" {
		t.Errorf("remittance %d:\n%s", rec.Code, rec.Body)
	}
}

// TestReturnFileAmountsBounded: a return file's amounts fill 13 integer
// digits; a fee beyond what fincom keeps refuses the file whole, and the
// charge stays open.
func TestReturnFileAmountsBounded(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	id := post(t, h, "/insert_sales_order", serviceOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	day := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		paid string
		fee  bool // Itaú's segment T fee, columns 199-213, all nines
	}{
		{"fee", "1500", true},
		{"paid", "9999999999999.99", false},
	} {
		ret := itauReturn(t, bank.ReturnItem{Movement: "06", Our: itauOur(t, 1), Document: "PV-000001/1", Due: day,
			Amount: decimal.NewFromInt(1500), Paid: decimal.RequireFromString(c.paid), Occurred: day, Credited: day})
		if c.fee {
			lines := strings.Split(string(ret), "\r\n")
			if lines[2][13] != 'T' {
				t.Fatalf("line 3 is not segment T: %s", lines[2])
			}
			lines[2] = lines[2][:198] + strings.Repeat("9", 15) + lines[2][213:]
			ret = []byte(strings.Join(lines, "\r\n"))
		}
		rec := doMultipart(h, "/import_return", `{`+auth+`,"provider":"provider_a"}`, map[string][]byte{"RET.txt": ret})
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), "Amounts must be between") {
			t.Errorf("%s out of range: %d %s", c.name, rec.Code, rec.Body)
		}
	}
	c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	if c["status"] != "PENDING" {
		t.Errorf("after refused returns: %v", c)
	}
}

// TestReturnOfAnotherCompany: a return file is applied only when its
// header names the unit's agreement: another company's file at the same
// bank, whose title carries our our-number, settles nothing, and neither
// does a payment the bank dates after today (it is reported).
func TestReturnOfAnotherCompany(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	id := post(t, h, "/insert_sales_order", serviceOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	b, _ := bank.ByProvider("provider_a")
	day := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	paid := bank.ReturnItem{Movement: "06", Our: itauOur(t, 1), Document: "PV-000001/1", Due: day, Amount: decimal.NewFromInt(1500),
		Paid: decimal.NewFromInt(1500), Occurred: day, Credited: day}
	ours := bank.Samples()["provider_a"]
	ours.Name, ours.CNPJ = "Acme Matriz", "11222333000181"
	for _, c := range []struct {
		name   string
		change func(a *bank.Agreement)
		fields string
	}{
		{"another CNPJ", func(a *bank.Agreement) { a.CNPJ = "11444777000161" }, `["inscription"]`},
		{"another agency", func(a *bank.Agreement) { a.Agency = "1500" }, `["agency"]`},
		{"another account", func(a *bank.Agreement) { a.Account, a.AccountDV = "99999", "1" }, `["account","account_dac"]`},
		{"a person's file", func(a *bank.Agreement) { a.CNPJ = "52998224725" }, `["inscription"]`},
	} {
		a := ours
		c.change(&a)
		f, err := b.ReturnFile(a, 1, fixedNow, []bank.ReturnItem{paid})
		if err != nil {
			t.Fatal(err)
		}
		rec := doMultipart(h, "/import_return", `{`+auth+`,"provider":"provider_a"}`, map[string][]byte{"RET.txt": f})
		var out struct {
			Error   string `json:"error"`
			Details struct {
				Fields json.RawMessage `json:"fields"`
			} `json:"details"`
		}
		json.Unmarshal(rec.Body.Bytes(), &out)
		if rec.Code != 422 || out.Error != "This return file is another beneficiary's: its header's CNPJ, agency, account or agreement (details.fields) are not the unit's agreement's. Nothing was applied." ||
			string(out.Details.Fields) != c.fields {
			t.Errorf("%s: %d %s", c.name, rec.Code, rec.Body)
		}
	}
	status := func() string {
		o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
		return o["charges"].([]any)[0].(map[string]any)["status"].(string)
	}
	if st := status(); st != "PENDING" {
		t.Fatalf("after foreign files the charge is %s", st)
	}
	// The unit's own file with the payment dated tomorrow, then undated.
	for _, occurred := range []time.Time{fixedNow.AddDate(0, 0, 1), {}} {
		p := paid
		p.Occurred = occurred
		f, err := b.ReturnFile(ours, 2, fixedNow, []bank.ReturnItem{p})
		if err != nil {
			t.Fatal(err)
		}
		rec := doMultipart(h, "/import_return", `{`+auth+`,"provider":"provider_a"}`, map[string][]byte{"RET.txt": f})
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"outcome":"not_settled"`) {
			t.Errorf("payment dated %v: %d %s", occurred, rec.Code, rec.Body)
		}
	}
	if st := status(); st != "PENDING" {
		t.Fatalf("after future-dated payments the charge is %s", st)
	}
	// Dated today, it settles, on the bank's date.
	f, _ := b.ReturnFile(ours, 3, fixedNow, []bank.ReturnItem{paid})
	if rec := doMultipart(h, "/import_return", `{`+auth+`,"provider":"provider_a"}`, map[string][]byte{"RET.txt": f}); !strings.Contains(rec.Body.String(), `"outcome":"paid"`) {
		t.Fatalf("own file: %d %s", rec.Code, rec.Body)
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if c := o["charges"].([]any)[0].(map[string]any); c["status"] != "PAID" || !strings.HasPrefix(fmt.Sprint(c["paid_at"]), "2026-11-21") {
		t.Errorf("paid: %v", c)
	}
}

// TestBoletoPayerLegalName: a company pays a boleto under its legal name
// (razão social), which its CNPJ is registered under, not its trade name:
// in the remittance's segment Q and on the printed boleto.
func TestBoletoPayerLegalName(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	c := post(t, h, "/insert_contact", `{`+auth+`,"type":"legal","register":"45.997.418/0001-53","socialReason":"Alfa Comercio de Papeis Ltda",
		"fantasyName":"Papelaria do Bairro","address":"Av. Paulista","number":"1000","neighborhood":"Bela Vista","city":"São Paulo","state":"SP","zip_code":"01310-100"}`)["token"].(string)
	id := post(t, h, "/insert_sales_order", strings.Replace(serviceOrder, "{{contact1}}", c, 1))["data"].(map[string]any)["id"].(string)
	url := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["payment_url"].(string)
	rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"provider_a"}`)
	recs := strings.Split(rec.Body.String(), "\r\n")
	if rec.Code != 200 || len(recs) < 4 || recs[3][13] != 'Q' || !strings.Contains(strings.ToUpper(recs[3]), "ALFA COMERCIO DE PAPEIS LTDA") ||
		strings.Contains(strings.ToUpper(recs[3]), "PAPELARIA DO BAIRRO") {
		t.Errorf("segment Q names the payer otherwise:\n%s", recs[min(3, len(recs)-1)])
	}
	reg := itauReturn(t, bank.ReturnItem{Movement: "02", Our: itauOur(t, 1), Document: "PV-000001/1", Due: fixedNow, Amount: decimal.NewFromInt(1500)})
	if rec := doMultipart(h, "/import_return", `{`+auth+`,"provider":"provider_a"}`, map[string][]byte{"RET.txt": reg}); rec.Code != 200 {
		t.Fatalf("registration: %d %s", rec.Code, rec.Body)
	}
	page := do(h, http.MethodGet, "/sales_orders/public_boleto/"+url[strings.LastIndex(url, "/")+1:], "")
	if !strings.Contains(page.Body.String(), "Alfa Comercio de Papeis Ltda") {
		t.Errorf("the boleto page does not name the payer's legal name: %d", page.Code)
	}
}

// TestBoletoNewDueDate: the office gives a registered boleto paid late a
// new due date from the order's page: its bar code carries the new date
// (the same our-number), it is open again, the next remittance tells the
// bank (movement 06, segment P alone, the new date), and what it asks
// counts from the new date; a day before today, or a charge that is no
// boleto, is refused with nothing changed.
func TestBoletoNewDueDate(t *testing.T) {
	t.Parallel()
	now := fixedNow
	s, ds := newTestServerAt(t, &now, Config{Version: "test", PublicURL: "https://fincom.test"})
	h := s.Handler()
	id := orderWith(t, h, thousand("2026-11-30")...)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	registerBoletos(t, h, "provider_a")
	charge := func() map[string]any {
		return post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	}
	before := charge()
	if before["registration"] != "registered" {
		t.Fatalf("not registered: %v", before)
	}
	now = time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	page := b.do("GET", "/portal/orders/"+id+unit, nil).Body.String()
	if !strings.Contains(page, "Prorrogar o vencimento") || !strings.Contains(page, ">Boleto em PDF</a>") {
		t.Fatalf("the order's page offers no new due date:\n%s", page)
	}
	session := csrf(t, page)
	change := func(due string) *httptest.ResponseRecorder {
		return b.do("POST", "/portal/orders/"+id+"/due_date"+unit, url.Values{"csrf": {session}, "installment": {"1"}, "due_date": {due}})
	}
	if rec := change("2026-12-04"); rec.Code != 400 || !strings.Contains(rec.Body.String(), "Novo vencimento inválido") || charge()["due_date"] != "2026-11-30" {
		t.Fatalf("a day past = %d", rec.Code)
	}
	if rec := change("20/12/2026"); rec.Code != http.StatusSeeOther {
		t.Fatalf("the new due date = %d\n%s", rec.Code, rec.Body)
	}
	after := charge()
	line := after["boleto_barcode"].(string)
	factor, err := brdoc.Factor(time.Date(2026, 12, 20, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if after["due_date"] != "2026-12-20" || after["status"] != "PENDING" || after["our_number"] != before["our_number"] || !brdoc.ValidBoleto(line) ||
		line[5:9] != fmt.Sprintf("%04d", factor) || line[19:] != before["boleto_barcode"].(string)[19:] {
		t.Fatalf("after the new due date: %v (before %v)", after, before)
	}
	// The remittance tells the bank: movement 06, the new date.
	rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"provider_a"}`)
	if rec.Code != 200 {
		t.Fatalf("remittance: %d %s", rec.Code, rec.Body)
	}
	recs := strings.Split(strings.TrimSuffix(rec.Body.String(), "\r\n"), "\r\n")
	// Header, batch header, segment P, batch trailer, trailer.
	if len(recs) != 5 || recs[2][13] != 'P' || recs[2][15:17] != "06" || recs[2][77:85] != "20122026" {
		t.Fatalf("remittance:\n%s", rec.Body)
	}
	if rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"provider_a"}`); rec.Code != 409 {
		t.Fatalf("the change sent twice: %d", rec.Code)
	}
	// What it asks on 21/12 counts from the new date: a day late.
	db, release := acquire(t, ds)
	due, err := db.ChargeDueOf(context.Background(), 1, after["token"].(string))
	release()
	if err != nil {
		t.Fatal(err)
	}
	if got := (billing.Rules{}).Owed(due, "2026-12-21").Total(); got.StringFixed(2) != "1020.33" {
		t.Fatalf("owed a day past the new date: %s", got)
	}
	// A PIX charge is no boleto.
	pix := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+pix+`"}`)
	if rec := do(h, http.MethodPost, "/change_charge_due_date", `{`+auth+`,"id_token":"`+pix+`","due_date":"2026-12-20"}`); rec.Code != 409 ||
		!strings.Contains(rec.Body.String(), "Only an open boleto registered with a bank is given a new due date") {
		t.Fatalf("a PIX's due date = %d %s", rec.Code, rec.Body)
	}
}
