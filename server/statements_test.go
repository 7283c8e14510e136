package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"fincom/store"
)

// TestStatementReconciliation: an OFX statement's lines are imported once
// each, matched to the charge or the expense they settle (by amount, the
// same date first, else the nearest within the window), which are settled
// and reconciled (id_ofx, conciliation_date); the rest waits for a person
// to pair or dismiss.
func TestStatementReconciliation(t *testing.T) {
	t.Parallel()
	var applied appliedLog
	now := fixedNow
	s, _ := newTestServerAt(t, &now, Config{Version: "test", PublicURL: "https://fincom.test", Logger: applied.logger()})
	h := s.Handler()
	order := post(t, h, "/insert_sales_order", serviceOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+order+`"}`)
	post(t, h, "/insert_expense", `{`+auth+`,"description":"Energia elétrica","value":250.75,"due_date":"2026-11-20"}`)
	// Two equal incomes equally near a line's date: a person decides.
	sala1 := post(t, h, "/insert_income", `{`+auth+`,"description":"Aluguel sala 1","value":99.90,"due_date":"2026-11-20"}`)["token"].(string)
	post(t, h, "/insert_income", `{`+auth+`,"description":"Aluguel sala 2","value":99.90,"due_date":"2026-11-22"}`)
	ofx, err := os.ReadFile("statement/testdata/itau_102_sgml.ofx")
	if err != nil {
		t.Fatal(err)
	}
	// Itaú's export as account1's bank (BB, 1234-5 / 99887-1) writes it.
	ofx = []byte(strings.NewReplacer("<BANKID>0341", "<BANKID>001", "<ACCTID>0057123457", "<ACCTID>1234599887-1").Replace(string(ofx)))
	meta := `{` + auth + `,"id_token_bank_account":"{{account1}}"}`
	rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"extrato.ofx": ofx})
	if rec.Code != 200 {
		t.Fatalf("import: %d %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	for _, want := range []string{`"imported":3`, `"matched":2`, `"open":1`, `"repeated":0`} {
		if !strings.Contains(body, want) {
			t.Errorf("report lacks %s: %s", want, body)
		}
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+order+`"}`)["data"].(map[string]any)
	if o["charge_status"] != "PAID" {
		t.Errorf("the 1500.00 credit two days before the due date did not pay the charge: %v", o["charges"])
	}
	applied.want(t, store.PaidStatement)
	txs := post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31"}`)["data"].([]any)
	reconciled := map[string]string{}
	for _, x := range txs {
		m := x.(map[string]any)
		if m["id_ofx"] != nil {
			reconciled[m["id_ofx"].(string)] = m["conciliation_date"].(string)
		}
	}
	if reconciled["20261128001"] == "" || reconciled["20261120002"] == "" || len(reconciled) != 2 {
		t.Errorf("reconciled entries %v", reconciled)
	}

	// The same file again changes nothing.
	rec = doMultipart(h, "/import_ofx", meta, map[string][]byte{"extrato.ofx": ofx})
	if !strings.Contains(rec.Body.String(), `"imported":0`) || !strings.Contains(rec.Body.String(), `"repeated":3`) {
		t.Errorf("second import: %s", rec.Body)
	}

	// The open line: listed, then dismissed, once.
	open := post(t, h, "/list_statement_lines", `{`+auth+`,"status":"open"}`)["data"].([]any)
	if len(open) != 1 || open[0].(map[string]any)["fitid"] != "20261121003" {
		t.Fatalf("open lines %v", open)
	}
	line := open[0].(map[string]any)["token"].(string)
	if rec := do(h, http.MethodPost, "/reconcile_statement_line", `{`+auth+`,"id_token":"`+line+`","action":"match"}`); rec.Code != 400 {
		t.Errorf("match without a target: %d %s", rec.Code, rec.Body)
	}
	if rec := do(h, http.MethodPost, "/reconcile_statement_line", `{`+auth+`,"id_token":"`+line+`","action":"match","id_token_entry":"`+order+`"}`); rec.Code != 403 {
		t.Errorf("match with a non-entry: %d %s", rec.Code, rec.Body)
	}
	r := post(t, h, "/reconcile_statement_line", `{`+auth+`,"id_token":"`+line+`","action":"match","id_token_entry":"`+sala1+`"}`)["data"].(map[string]any)
	if r["status"] != "matched" || r["matched_by"] != "person" || r["entry_token"] != sala1 {
		t.Errorf("paired %v", r)
	}
	if rec := do(h, http.MethodPost, "/reconcile_statement_line", `{`+auth+`,"id_token":"`+line+`","action":"dismiss"}`); rec.Code != 409 {
		t.Errorf("dismiss again: %d %s", rec.Code, rec.Body)
	}
	if rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": []byte("not an ofx")}); rec.Code != 400 {
		t.Errorf("not OFX: %d %s", rec.Code, rec.Body)
	}
	if rec := doMultipart(h, "/import_ofx", `{`+auth+`,"id_token_bank_account":"nope"}`, map[string][]byte{"extrato.ofx": ofx}); rec.Code != 403 {
		t.Errorf("another's account: %d %s", rec.Code, rec.Body)
	}
}

// ofxSGML is a one-line OFX 1.02 statement as a Brazilian bank exports it.
func ofxSGML(fitid, day, amount, memo string) []byte {
	return []byte(strings.ReplaceAll(`OFXHEADER:100
DATA:OFXSGML
VERSION:102
SECURITY:NONE
ENCODING:USASCII
CHARSET:1252
COMPRESSION:NONE
OLDFILEUID:NONE
NEWFILEUID:NONE

<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20261130<LANGUAGE>POR</SONRS></SIGNONMSGSRSV1>
<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS><STMTRS><CURDEF>BRL
<BANKACCTFROM><BANKID>001<ACCTID>99887-1<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST><DTSTART>20261101<DTEND>20261130
<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>`+day+`<TRNAMT>`+amount+`<FITID>`+fitid+`<MEMO>`+memo+`</STMTTRN>
</BANKTRANLIST><LEDGERBAL><BALAMT>0<DTASOF>20261130</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>
`, "\n", "\r\n"))
}

// TestStatementReconcilesPaidEntries: money a bank return (or the firm)
// already booked into the account is reconciled by the statement's line,
// never settled twice; a charge paid into another account is not matched.
func TestStatementReconcilesPaidEntries(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	id := post(t, h, "/insert_sales_order", strings.Replace(serviceOrder, `"value":1500`, `"value":777.77`, 1))["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	post(t, h, "/settle_charge", `{`+auth+`,"id_token":"`+id+`","date":"2026-11-25","id_token_bank_account":"{{account1}}"}`)
	before := len(post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31"}`)["data"].([]any))
	meta := `{` + auth + `,"id_token_bank_account":"{{account1}}"}`
	rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": ofxSGML("F1", "20261126", "777.77", "CREDITO COBRANCA")})
	if !strings.Contains(rec.Body.String(), `"matched":1`) || !strings.Contains(rec.Body.String(), `"matched_by":"window"`) {
		t.Fatalf("import: %s", rec.Body)
	}
	txs := post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31"}`)["data"].([]any)
	if len(txs) != before {
		t.Errorf("the statement booked %d entries more", len(txs)-before)
	}
	found := false
	for _, x := range txs {
		m := x.(map[string]any)
		if m["id_ofx"] == "F1" {
			found = m["conciliation_date"] == "2026-11-26"
		}
	}
	if !found {
		t.Errorf("the paid income was not reconciled: %v", txs)
	}

	// A charge whose money goes to another account: the line stays open.
	other := post(t, h, "/insert_bank_account", `{`+auth+`,"id_token_bank":"{{bankBB}}","id_token_bank_type":"{{typeChecking}}","agency":"9","current_account":"1"}`)["token"].(string)
	id2 := post(t, h, "/insert_sales_order", strings.Replace(strings.Replace(serviceOrder, `"value":1500`, `"value":321`, 1), `"provider_bank":"provider_a",`, ``, 1))["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id2+`"}`)
	rec = doMultipart(h, "/import_ofx", `{`+auth+`,"id_token_bank_account":"`+other+`"}`, map[string][]byte{"y.ofx": []byte(strings.Replace(string(ofxSGML("F2", "20261130", "321.00", "TED")), "<ACCTID>99887-1", "<ACCTID>9/1", 1))})
	if !strings.Contains(rec.Body.String(), `"open":1`) {
		t.Errorf("a line of another account matched the charge: %s", rec.Body)
	}
}

// TestStatementOfAnotherAccount: a statement is imported only into its own
// account: another account's (of the same bank or another), one in another
// currency, or a file of several accounts none of which is the chosen one
// is refused whole and settles nothing; of several, the chosen account's
// statement is imported alone.
func TestStatementOfAnotherAccount(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	order := post(t, h, "/insert_sales_order", serviceOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+order+`"}`)
	meta := `{` + auth + `,"id_token_bank_account":"{{account1}}"}`
	pay := string(ofxSGML("F1", "20261121", "1500.00", "CREDITO COBRANCA"))
	for _, c := range []struct {
		name, file string
		text       string
		accounts   string
	}{
		{"another account of the bank", strings.Replace(pay, "<ACCTID>99887-1", "<ACCTID>655000-2", 1),
			"The file holds no statement of this bank account (details.accounts lists those it holds): nothing was imported.", `["bank 001, account 655000-2"]`},
		{"another bank", strings.Replace(pay, "<BANKID>001", "<BANKID>237", 1),
			"The file holds no statement of this bank account (details.accounts lists those it holds): nothing was imported.", `["bank 237, account 99887-1"]`},
		{"euros", strings.Replace(pay, "<CURDEF>BRL", "<CURDEF>EUR", 1), "The statement is not in reais (CURDEF BRL): nothing was imported.", ``},
		{"dollars", strings.Replace(pay, "<CURDEF>BRL", "<CURDEF>USD", 1), "The statement is not in reais (CURDEF BRL): nothing was imported.", ``},
	} {
		rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": []byte(c.file)})
		var out struct {
			Error   string `json:"error"`
			Details struct {
				Accounts json.RawMessage `json:"accounts"`
			} `json:"details"`
		}
		json.Unmarshal(rec.Body.Bytes(), &out)
		if rec.Code != 422 || out.Error != c.text || string(out.Details.Accounts) != c.accounts {
			t.Errorf("%s: %d %s", c.name, rec.Code, rec.Body)
		}
	}
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+order+`"}`)["data"].(map[string]any); o["charge_status"] == "PAID" {
		t.Fatal("a refused statement paid the charge")
	}
	if lines := post(t, h, "/list_statement_lines", `{`+auth+`}`)["data"].([]any); len(lines) != 0 {
		t.Fatalf("refused statements left lines: %v", lines)
	}
	// Three statements in one file (the account's written with its
	// agency, another of the same bank, one in dollars): only account1's.
	stmt := pay[strings.Index(pay, "<STMTTRNRS>"):strings.Index(pay, "</BANKMSGSRSV1>")]
	multi := strings.Replace(pay, stmt, strings.Replace(stmt, "<FITID>F1", "<FITID>X1", 1)+
		strings.Replace(strings.Replace(stmt, "<ACCTID>99887-1", "<ACCTID>1234-5/99887-1", 1), "<FITID>F1", "<FITID>F2", 1)+
		strings.Replace(strings.Replace(stmt, "<CURDEF>BRL", "<CURDEF>USD", 1), "<ACCTID>99887-1", "<ACCTID>4444-4", 1), 1)
	multi = strings.Replace(multi, "<ACCTID>99887-1", "<ACCTID>655000-2", 1) // the first: another account
	rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": []byte(multi)})
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"imported":1`) || !strings.Contains(rec.Body.String(), `"fitid":"F2"`) {
		t.Errorf("multi-statement file: %d %s", rec.Code, rec.Body)
	}
}

// TestStatementLineBooked: a bank fee on the statement is booked as an
// expense in one step, paid on its day from the line's account and
// reconciled with it; a credit books an income; a category of the other
// direction, or none, is refused and nothing is booked. The portal books
// the same way.
func TestStatementLineBooked(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	fees := post(t, h, "/insert_category", `{`+auth+`,"module_type":"out","category":"Tarifas do banco X","category_master":206}`)["token"].(string)
	meta := `{` + auth + `,"id_token_bank_account":"{{account1}}"}`
	for _, f := range []struct{ fitid, amount, memo string }{{"T1", "-39.90", "TARIFA PACOTE"}, {"T2", "12.34", "RENDIMENTO"}, {"T3", "-5.00", "TARIFA PIX"}} {
		if rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": ofxSGML(f.fitid, "20261121", f.amount, f.memo)}); rec.Code != 200 {
			t.Fatalf("import: %d %s", rec.Code, rec.Body)
		}
	}
	lines := map[string]string{}
	for _, l := range post(t, h, "/list_statement_lines", `{`+auth+`,"status":"open"}`)["data"].([]any) {
		m := l.(map[string]any)
		lines[m["fitid"].(string)] = m["token"].(string)
	}
	if rec := do(h, http.MethodPost, "/reconcile_statement_line", `{`+auth+`,"id_token":"`+lines["T1"]+`","action":"book"}`); rec.Code != 400 ||
		!strings.Contains(rec.Body.String(), "To book a statement line give its id_token_category") {
		t.Errorf("book without a category: %d %s", rec.Code, rec.Body)
	}
	if rec := do(h, http.MethodPost, "/reconcile_statement_line", `{`+auth+`,"id_token":"`+lines["T1"]+`","action":"book","id_token_category":"{{category1}}"}`); rec.Code < 400 || rec.Code >= 500 {
		t.Errorf("a debit in an income category: %d %s", rec.Code, rec.Body)
	}
	r := post(t, h, "/reconcile_statement_line", `{`+auth+`,"id_token":"`+lines["T1"]+`","action":"book","id_token_category":"`+fees+`"}`)["data"].(map[string]any)
	if r["status"] != "matched" || r["matched_by"] != "person" || r["entry_token"] == nil {
		t.Fatalf("booked %v", r)
	}
	r = post(t, h, "/reconcile_statement_line", `{`+auth+`,"id_token":"`+lines["T2"]+`","action":"book","id_token_category":"{{category1}}","description":"Rendimento da aplicação"}`)["data"].(map[string]any)
	if r["status"] != "matched" {
		t.Fatalf("credit booked %v", r)
	}
	txs := post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-11-30"}`)["data"].([]any)
	found := map[string]map[string]any{}
	for _, x := range txs {
		m := x.(map[string]any)
		found[m["description"].(string)] = m
	}
	fee, income := found["TARIFA PACOTE"], found["Rendimento da aplicação"]
	if fee == nil || fee["type"] != "out" || fee["value"] != "39.90" || fee["id_ofx"] != "T1" || fee["conciliation_date"] != "2026-11-21" {
		t.Errorf("the fee's expense: %v", fee)
	}
	if income == nil || income["type"] != "in" || income["value"] != "12.34" {
		t.Errorf("the credit's income: %v", income)
	}
	if len(txs) != 2 {
		t.Errorf("%d entries, want the two booked: %v", len(txs), txs)
	}

	// The portal's "Lançar e conciliar".
	b := signedIn(t, s, ds)
	page := b.do("GET", "/portal/statement", nil).Body.String()
	if !strings.Contains(page, "Lançar como despesa") || !strings.Contains(page, `<option value="`+fees+`">Tarifas do banco X</option>`) {
		t.Fatalf("the statement page offers no booking:\n%s", page)
	}
	if rec := b.do("POST", "/portal/statement/"+lines["T3"]+"?unit="+fx.tokens["unitA"], url.Values{"csrf": {csrf(t, page)}, "action": {"book"},
		"category": {fees}, "description": {strings.Repeat("x", 256)}}); rec.Code != 400 {
		t.Errorf("a description too long = %d", rec.Code)
	}
	rec := b.do("POST", "/portal/statement/"+lines["T3"]+"?unit="+fx.tokens["unitA"], url.Values{"csrf": {csrf(t, page)}, "action": {"book"}, "category": {fees},
		"description": {"Tarifa Pix"}})
	if rec.Code != 303 {
		t.Fatalf("portal booking = %d\n%s", rec.Code, rec.Body)
	}
	if open := post(t, h, "/list_statement_lines", `{`+auth+`,"status":"open"}`)["data"].([]any); len(open) != 0 {
		t.Errorf("lines left open: %v", open)
	}
}

// TestStatementPaysPartOfAnEntry: a debit of R$ 400,00 pays part of a
// R$ 1.000,00 bill (in the portal, the box ticked): the bill keeps
// R$ 400,00, paid and reconciled, and R$ 600,00 stays open as its rest;
// without the box, or for more than the bill, it is refused; undone, the
// bill is R$ 1.000,00 and open again, the rest gone.
func TestStatementPaysPartOfAnEntry(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	bill := post(t, h, "/insert_expense", `{`+auth+`,"description":"Fornecedor de papel","value":"1000.00","due_date":"2026-11-20","id_token_contact":"{{contact1}}"}`)["token"].(string)
	meta := `{` + auth + `,"id_token_bank_account":"{{account1}}"}`
	if rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": ofxSGML("P1", "20261121", "-400.00", "PAGTO FORNECEDOR")}); rec.Code != 200 {
		t.Fatalf("import: %d %s", rec.Code, rec.Body)
	}
	line := post(t, h, "/list_statement_lines", `{`+auth+`,"status":"open"}`)["data"].([]any)[0].(map[string]any)["token"].(string)
	entries := func() map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, x := range post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-11-30"}`)["data"].([]any) {
			m := x.(map[string]any)
			out[m["description"].(string)] = m
		}
		return out
	}
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	page := b.do("GET", "/portal/statement"+unit, nil).Body.String()
	if !strings.Contains(page, `<option value="" selected disabled>Nenhum do mesmo valor: escolha um</option>`) {
		t.Fatalf("a line of another amount preselects a pairing:\n%s", page)
	}
	match := url.Values{"csrf": {csrf(t, page)}, "action": {"match"}, "pair": {"entry:" + bill}}
	if rec := b.do("POST", "/portal/statement/"+line+unit, match); rec.Code != http.StatusConflict {
		t.Fatalf("another amount without the box = %d", rec.Code)
	}
	match.Set("partial", "1")
	if rec := b.do("POST", "/portal/statement/"+line+unit, match); rec.Code != http.StatusSeeOther {
		t.Fatalf("part of the bill = %d\n%s", rec.Code, rec.Body)
	}
	got := entries()
	paid, rest := got["Fornecedor de papel"], got["Fornecedor de papel (restante)"]
	if paid["value"] != "400.00" || paid["pay_day"] != "2026-11-21" || paid["conciliation_date"] != "2026-11-21" ||
		rest["value"] != "600.00" || rest["pay_day"] != nil || rest["due_date"] != "2026-11-20" || rest["contact_name"] != "Alfa" {
		t.Fatalf("the bill and its rest: %v\n%v", paid, rest)
	}
	if rec := b.do("POST", "/portal/statement/"+line+unit, url.Values{"csrf": {match.Get("csrf")}, "action": {"undo"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("the undo = %d\n%s", rec.Code, rec.Body)
	}
	got = entries()
	if e := got["Fornecedor de papel"]; len(got) != 1 || e["value"] != "1000.00" || e["pay_day"] != nil {
		t.Fatalf("after the undo: %v", got)
	}
	// More than the bill is no part of it.
	post(t, h, "/update_expense", `{`+auth+`,"id_token":"`+bill+`","value":"300.00"}`)
	if rec := do(h, http.MethodPost, "/reconcile_statement_line", `{`+auth+`,"id_token":"`+line+`","action":"match","id_token_entry":"`+bill+`","partial":true}`); rec.Code != http.StatusConflict {
		t.Fatalf("a line larger than the bill = %d %s", rec.Code, rec.Body)
	}
}

// TestStatementFeeBookedAsTariff: a bank's tariff line (its memo) is
// offered to be booked under the seeded "Tarifas bancárias", preselected,
// a yield under "Rendimentos de aplicações"; booked, the fee is an
// expense of that category, paid on the line's day.
func TestStatementFeeBookedAsTariff(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	meta := `{` + auth + `,"id_token_bank_account":"{{account1}}"}`
	for _, f := range []struct{ fitid, amount, memo string }{{"F1", "-39.90", "TARIFA PACOTE SERVICOS"}, {"F2", "12.34", "REND PAGO APLIC AUT MAIS"}} {
		if rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": ofxSGML(f.fitid, "20261121", f.amount, f.memo)}); rec.Code != 200 {
			t.Fatalf("import: %d %s", rec.Code, rec.Body)
		}
	}
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	page := b.do("GET", "/portal/statement"+unit, nil).Body.String()
	fee := regexp.MustCompile(`<option value="([^"]+)" selected>Tarifas bancárias</option>`).FindStringSubmatch(page)
	if fee == nil || !strings.Contains(page, `" selected>Rendimentos de aplicações</option>`) {
		t.Fatalf("the booking's preselected categories:\n%s", page)
	}
	var line string
	for _, l := range post(t, h, "/list_statement_lines", `{`+auth+`,"status":"open"}`)["data"].([]any) {
		if m := l.(map[string]any); m["fitid"] == "F1" {
			line = m["token"].(string)
		}
	}
	if rec := b.do("POST", "/portal/statement/"+line+unit, url.Values{"csrf": {csrf(t, page)}, "action": {"book"}, "category": {fee[1]},
		"description": {"TARIFA PACOTE SERVICOS"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("booking the fee = %d\n%s", rec.Code, rec.Body)
	}
	db, release := acquire(t, ds)
	entries, err := db.EntrySummaries(context.Background(), 1, "2026-11-21", "2026-11-21", "out", 10)
	release()
	if err != nil || len(entries) != 1 || entries[0].Category != "Tarifas bancárias" || entries[0].Value.StringFixed(2) != "39.90" || entries[0].PayDay != "2026-11-21" {
		t.Fatalf("the fee booked: %+v %v", entries, err)
	}
}

// TestStatementDifferenceBooked: a credit of R$ 1.023,33 for an income
// of R$ 1.000,00 pairs with it, the income paid at its amount and the
// R$ 23,33 booked under "Juros recebidos" on the line's day (the portal);
// a debit of R$ 480,00 for a bill of R$ 500,00 books R$ 20,00 obtained
// as an income (the API); each undone together; a difference in a
// category of the wrong direction is refused, nothing changed.
func TestStatementDifferenceBooked(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	categories := map[string]string{}
	for _, typ := range []string{"in", "out"} {
		db, release := acquire(t, ds)
		cats, err := db.Categories(context.Background(), 1, typ, "")
		release()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cats {
			categories[c.Category] = c.Token
		}
	}
	income := post(t, h, "/insert_income", `{`+auth+`,"description":"Boleto do cliente","value":"1000.00","due_date":"2026-11-11"}`)["token"].(string)
	bill := post(t, h, "/insert_expense", `{`+auth+`,"description":"Papelaria","value":"500.00","due_date":"2026-11-20"}`)["token"].(string)
	meta := `{` + auth + `,"id_token_bank_account":"{{account1}}"}`
	for _, f := range []struct{ fitid, amount, memo string }{{"D1", "1023.33", "BOLETO RECEBIDO"}, {"D2", "-480.00", "PAGTO PAPELARIA"}} {
		if rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": ofxSGML(f.fitid, "20261121", f.amount, f.memo)}); rec.Code != 200 {
			t.Fatalf("import: %d %s", rec.Code, rec.Body)
		}
	}
	lines := map[string]string{}
	for _, l := range post(t, h, "/list_statement_lines", `{`+auth+`,"status":"open"}`)["data"].([]any) {
		m := l.(map[string]any)
		lines[m["fitid"].(string)] = m["token"].(string)
	}
	entries := func() map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, x := range post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-11-30"}`)["data"].([]any) {
			m := x.(map[string]any)
			if m["active"] != false {
				out[m["description"].(string)+"/"+m["type"].(string)] = m
			}
		}
		return out
	}
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	page := b.do("GET", "/portal/statement"+unit, nil).Body.String()
	session := csrf(t, page)
	// A difference in an expense category for money that came in: refused.
	if rec := b.do("POST", "/portal/statement/"+lines["D1"]+unit, url.Values{"csrf": {session}, "action": {"match"}, "pair": {"entry:" + income},
		"difference": {categories["Juros pagos"]}}); rec.Code/100 != 4 {
		t.Fatalf("a difference of the wrong direction = %d", rec.Code)
	}
	if got := entries(); got["Boleto do cliente/in"]["pay_day"] != nil || len(got) != 2 {
		t.Fatalf("a refused pairing changed the entries: %v", got)
	}
	if rec := b.do("POST", "/portal/statement/"+lines["D1"]+unit, url.Values{"csrf": {session}, "action": {"match"}, "pair": {"entry:" + income},
		"difference": {categories["Juros recebidos"]}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("the late payment = %d\n%s", rec.Code, rec.Body)
	}
	r := post(t, h, "/reconcile_statement_line", `{`+auth+`,"id_token":"`+lines["D2"]+`","action":"match","id_token_entry":"`+bill+`","id_token_difference_category":"`+categories["Rendimentos de aplicações"]+`"}`)
	if r["data"].(map[string]any)["status"] != "matched" {
		t.Fatalf("the discount obtained: %v", r)
	}
	got := entries()
	for key, want := range map[string]struct{ value, payDay string }{
		"Boleto do cliente/in": {"1000.00", "2026-11-21"}, "BOLETO RECEBIDO/in": {"23.33", "2026-11-21"},
		"Papelaria/out": {"500.00", "2026-11-21"}, "PAGTO PAPELARIA/in": {"20.00", "2026-11-21"},
	} {
		if e := got[key]; e == nil || e["value"] != want.value || e["pay_day"] != want.payDay {
			t.Errorf("%s: %v, want %v", key, e, want)
		}
	}
	if got["BOLETO RECEBIDO/in"]["category"] != "Juros recebidos" {
		t.Errorf("the interest's category: %v", got["BOLETO RECEBIDO/in"]["category"])
	}
	for _, l := range []string{lines["D1"], lines["D2"]} {
		if rec := b.do("POST", "/portal/statement/"+l+unit, url.Values{"csrf": {session}, "action": {"undo"}}); rec.Code != http.StatusSeeOther {
			t.Fatalf("undo = %d\n%s", rec.Code, rec.Body)
		}
	}
	got = entries()
	if len(got) != 2 || got["Boleto do cliente/in"]["pay_day"] != nil || got["Papelaria/out"]["pay_day"] != nil {
		t.Fatalf("after the undo: %v", got)
	}
}
