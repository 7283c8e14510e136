package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"fincom/server/settings"
	"fincom/store"
)

// lateBoletoServer is a server whose clock starts on 2026-11-01 with an
// order of R$ 1.000,00 whose boleto, registered under the unit's Itaú
// agreement, is due on 2026-11-11; it answers the order's token.
func lateBoletoServer(t *testing.T, now *time.Time) (http.Handler, *Server, *store.Domains, string) {
	t.Helper()
	*now = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	s, ds := newTestServerAt(t, now, Config{Version: "test", PublicURL: "https://fincom.test"})
	h := s.Handler()
	id := orderWith(t, h, `"value":1500`, `"value":1000`, `"2026-11-30"`, `"2026-11-11"`, `"tax_service_gross_amount":1500`, `"tax_service_gross_amount":1000`,
		`"tax_iss_amount":75`, `"tax_iss_amount":50`, `"ret_ir_amount":22.5,"ret_total_amount":22.5},"net_receivable_amount":1477.5`,
		`"ret_ir_amount":15,"ret_total_amount":15},"net_receivable_amount":985`)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	if c["amount"] != "1000.00" || c["due_date"] != "2026-11-11" || c["our_number"] == nil {
		t.Fatalf("the boleto: %v", c)
	}
	return h, s, ds, id
}

// orderEntries are the active entries of an order's charge payments by
// description: the principal, the fine, the interest.
func orderEntries(t *testing.T, h http.Handler) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, x := range post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31"}`)["data"].([]any) {
		m := x.(map[string]any)
		if m["active"] != false {
			out[m["description"].(string)] = m
		}
	}
	return out
}

// TestStatementLateBoleto: a line of the amount a registered boleto asks
// on its day with its fine and interest (R$ 1.000,00 ten days late:
// 1.000,00 + 20,00 + 3,33) pairs with it as exact at import; the charge is
// paid late and its principal, fine and interest are booked apart, each
// in its category, paid on the line's day and reconciled.
func TestStatementLateBoleto(t *testing.T) {
	t.Parallel()
	var now time.Time
	h, _, _, id := lateBoletoServer(t, &now)
	now = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	rec := doMultipart(h, "/import_ofx", `{`+auth+`,"id_token_bank_account":"{{account1}}"}`,
		map[string][]byte{"x.ofx": ofxSGML("L1", "20261121", "1023.33", "BOLETO ALFA")})
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"matched":1`) || !strings.Contains(rec.Body.String(), `"matched_by":"exact"`) {
		t.Fatalf("import: %d %s", rec.Code, rec.Body)
	}
	c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	if c["status"] != "PAID" || c["paid_amount"] != "1023.33" || c["settlement"] != "late" {
		t.Fatalf("the charge: %v", c)
	}
	got := orderEntries(t, h)
	for desc, want := range map[string]struct{ value, category string }{
		"Instalação de rede": {"1000.00", ""}, "Multa: Instalação de rede": {"20.00", "Multas recebidas"}, "Juros: Instalação de rede": {"3.33", "Juros recebidos"},
	} {
		e := got[desc]
		if e == nil || e["value"] != want.value || e["pay_day"] != "2026-11-21" || e["conciliation_date"] != "2026-11-21" ||
			(want.category != "" && e["category"] != want.category) {
			t.Errorf("%s: %v, want %v", desc, e, want)
		}
	}
	// On either basis November holds the 23,33 of fine and interest as
	// financial income (group 103): on the accrual basis beside the
	// sale's 1.000,00, not inside it.
	for _, basis := range []string{"accrual", "cash"} {
		d := post(t, h, "/get_dre", `{`+auth+`,"initial_date":"2026-11-01","final_date":"2026-11-30","basis":"`+basis+`"}`)["data"].(map[string]any)
		got := map[string]string{}
		for _, l := range d["lines"].([]any) {
			m := l.(map[string]any)
			got[m["key"].(string)] = m["amount"].(string)
		}
		if got["g103"] != "23.33" {
			t.Errorf("%s: financial incomes %q, want 23.33 (%v)", basis, got["g103"], got)
		}
	}
}

// TestStatementChargeUndone: undoing the line that paid a charge opens
// the charge again (overdue past its due date), disables the income, fine
// and interest it booked, and tells the webhooks (charge.reopened); the
// line pairs again, and a line of another amount than the charge asks is
// refused unless its difference is booked.
func TestStatementChargeUndone(t *testing.T) {
	t.Parallel()
	var now time.Time
	h, s, ds, id := lateBoletoServer(t, &now)
	post(t, h, "/insert_webhook", `{`+auth+`,"url":"https://hooks.example.com/a","events":["charge.*"]}`)
	now = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	for _, f := range []struct{ fitid, amount string }{{"L1", "1023.33"}, {"L2", "1010.00"}} {
		if rec := doMultipart(h, "/import_ofx", `{`+auth+`,"id_token_bank_account":"{{account1}}"}`,
			map[string][]byte{"x.ofx": ofxSGML(f.fitid, "20261121", f.amount, "BOLETO ALFA")}); rec.Code != 200 {
			t.Fatalf("import: %d %s", rec.Code, rec.Body)
		}
	}
	lines := map[string]string{}
	for _, l := range post(t, h, "/list_statement_lines", `{`+auth+`}`)["data"].([]any) {
		m := l.(map[string]any)
		lines[m["fitid"].(string)] = m["token"].(string)
	}
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	page := b.do("GET", "/portal/statement"+unit, nil).Body.String()
	if rec := b.do("POST", "/portal/statement/"+lines["L1"]+unit, url.Values{"csrf": {csrf(t, page)}, "action": {"undo"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("undo = %d\n%s", rec.Code, rec.Body)
	}
	c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	charge := c["charges"].([]any)[0].(map[string]any)
	if charge["status"] != "OVERDUE" || charge["paid_amount"] != nil || charge["settlement"] != nil {
		t.Fatalf("the charge after the undo: %v", charge)
	}
	if got := orderEntries(t, h); len(got) != 0 {
		t.Fatalf("entries left after the undo: %v", got)
	}
	if rec := do(h, "POST", "/list_webhook_deliveries", `{`+auth+`}`); !strings.Contains(rec.Body.String(), `"charge.reopened"`) {
		t.Errorf("no charge.reopened: %s", rec.Body)
	}
	// 1.010,00 is neither what the charge asks nor with its fine and
	// interest: refused, then paired with the difference booked.
	match := `{` + auth + `,"id_token":"` + lines["L2"] + `","action":"match","id_token_sales_order":"` + id + `"`
	if rec := do(h, "POST", "/reconcile_statement_line", match+`}`); rec.Code != 409 {
		t.Fatalf("another amount = %d %s", rec.Code, rec.Body)
	}
	cat := ""
	db, release := acquire(t, ds)
	cats, err := db.Categories(context.Background(), 1, "in", "")
	release()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cats {
		if c.Category == "Juros recebidos" {
			cat = c.Token
		}
	}
	if r := post(t, h, "/reconcile_statement_line", match+`,"id_token_difference_category":"`+cat+`"}`); r["data"].(map[string]any)["status"] != "matched" {
		t.Fatalf("with the difference: %v", r)
	}
	got := orderEntries(t, h)
	if got["Instalação de rede"]["value"] != "1000.00" || got["BOLETO ALFA"]["value"] != "10.00" || got["BOLETO ALFA"]["category"] != "Juros recebidos" {
		t.Fatalf("the principal and the difference: %v", got)
	}
}

// TestStatementPaysPartOfACharge: a line smaller than a charge pays part
// of it: booked as an income at once, the charge open for the rest, which
// a later line of the rest pays (matched at import); the first line is
// not undone while the second stands, and undoing both leaves the charge
// as it was.
func TestStatementPaysPartOfACharge(t *testing.T) {
	t.Parallel()
	var now time.Time
	h, s, ds, id := lateBoletoServer(t, &now)
	now = time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	imp := func(fitid, day, amount string) map[string]any {
		t.Helper()
		rec := doMultipart(h, "/import_ofx", `{`+auth+`,"id_token_bank_account":"{{account1}}"}`, map[string][]byte{"x.ofx": ofxSGML(fitid, day, amount, "TED ALFA")})
		if rec.Code != 200 {
			t.Fatalf("import: %d %s", rec.Code, rec.Body)
		}
		var out map[string]any
		json.Unmarshal(rec.Body.Bytes(), &out)
		return out["data"].(map[string]any)["lines"].([]any)[0].(map[string]any)
	}
	charge := func() map[string]any {
		return post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	}
	first := imp("P1", "20261105", "400.00")
	if first["status"] != "open" {
		t.Fatalf("a line of part of a charge matched by itself: %v", first)
	}
	match := `{` + auth + `,"id_token":"` + first["token"].(string) + `","action":"match","id_token_sales_order":"` + id + `"`
	if rec := do(h, "POST", "/reconcile_statement_line", match+`}`); rec.Code != 409 {
		t.Fatalf("part without partial = %d %s", rec.Code, rec.Body)
	}
	if r := post(t, h, "/reconcile_statement_line", match+`,"partial":true}`); r["data"].(map[string]any)["status"] != "matched" {
		t.Fatalf("partial: %v", r)
	}
	if c := charge(); c["status"] != "PENDING" || c["paid_amount"] != nil {
		t.Fatalf("the charge after a part: %v", c)
	}
	if e := orderEntries(t, h)["Instalação de rede"]; e["value"] != "400.00" || e["pay_day"] != "2026-11-05" || e["conciliation_date"] != "2026-11-05" {
		t.Fatalf("the part's income: %v", e)
	}
	if parts, _ := charge()["paid_parts"].([]any); len(parts) != 1 || parts[0].(map[string]any)["amount"] != "400.00" || parts[0].(map[string]any)["date"] != "2026-11-05" {
		t.Fatalf("the charge's parts: %v", charge())
	}
	b := signedIn(t, s, ds)
	if page := b.do("GET", "/portal/orders/"+id+"?unit="+fx.tokens["unitA"], nil).Body.String(); !strings.Contains(page, "Recebido em parte (extrato): 05/11/2026: R$ 400,00 · resta R$ 600,00") {
		t.Fatalf("the order's page does not show the part:\n%s", page)
	}
	// The rest, R$ 600,00, is what the charge asks now: matched.
	second := imp("P2", "20261110", "600.00")
	if second["status"] != "matched" {
		t.Fatalf("the rest: %v", second)
	}
	if c := charge(); c["status"] != "PAID" || c["paid_amount"] != "1000.00" || c["settlement"] != "exact" {
		t.Fatalf("the charge paid: %v", c)
	}
	values := func() string {
		var v []string
		for _, x := range post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31"}`)["data"].([]any) {
			if m := x.(map[string]any); m["active"] != false {
				v = append(v, m["value"].(string)+"@"+m["pay_day"].(string))
			}
		}
		sort.Strings(v)
		return strings.Join(v, " ")
	}
	if got := values(); got != "400.00@2026-11-05 600.00@2026-11-10" {
		t.Fatalf("the incomes: %s", got)
	}
	undo := func(line map[string]any) *httptest.ResponseRecorder {
		return do(h, "POST", "/reconcile_statement_line", `{`+auth+`,"id_token":"`+line["token"].(string)+`","action":"undo"}`)
	}
	if rec := undo(first); rec.Code != 409 || !strings.Contains(rec.Body.String(), "since paid in full") {
		t.Fatalf("undo the part while the rest stands = %d %s", rec.Code, rec.Body)
	}
	for _, l := range []map[string]any{second, first} {
		if rec := undo(l); rec.Code != 200 {
			t.Fatalf("undo = %d %s", rec.Code, rec.Body)
		}
	}
	if c := charge(); c["status"] != "PENDING" || c["paid_amount"] != nil || values() != "" {
		t.Fatalf("after both undone: %v %s", c, values())
	}
}

// TestStatementPaysSeveral: one deposit pays three charges and an income
// at once when their amounts add up to it (a late boleto at what it asks
// that day); another sum, or an item named twice, is refused with nothing
// paid; undoing the line opens them all again.
func TestStatementPaysSeveral(t *testing.T) {
	t.Parallel()
	var now time.Time
	h, _, _, first := lateBoletoServer(t, &now)
	second := orderWith(t, h, `"value":1500`, `"value":250.40`, `"2026-11-30"`, `"2026-11-25"`)
	third := orderWith(t, h, `"value":1500`, `"value":330.10`, `"2026-11-30"`, `"2026-11-25"`)
	for _, id := range []string{second, third} {
		post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	}
	income := post(t, h, "/insert_income", `{`+auth+`,"description":"Aluguel da sala","value":"96.17","due_date":"2026-11-20"}`)["token"].(string)
	now = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	// 1.023,33 (ten days late) + 250,40 + 330,10 + 96,17 = 1.700,00.
	rec := doMultipart(h, "/import_ofx", `{`+auth+`,"id_token_bank_account":"{{account1}}"}`,
		map[string][]byte{"x.ofx": ofxSGML("D1", "20261121", "1700.00", "DEPOSITO")})
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"open":1`) {
		t.Fatalf("import: %d %s", rec.Code, rec.Body)
	}
	line := post(t, h, "/list_statement_lines", `{`+auth+`}`)["data"].([]any)[0].(map[string]any)["token"].(string)
	statuses := func() string {
		var out []string
		for _, id := range []string{first, second, third} {
			c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
			out = append(out, c["status"].(string))
		}
		for _, x := range post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31"}`)["data"].([]any) {
			if m := x.(map[string]any); m["description"] == "Aluguel da sala" {
				out = append(out, m["status"].(string))
			}
		}
		return strings.Join(out, ",")
	}
	items := func(extra string) string {
		return `{` + auth + `,"id_token":"` + line + `","action":"match","items":[{"id_token_sales_order":"` + first + `"},{"id_token_sales_order":"` + second +
			`"},{"id_token_sales_order":"` + third + `"}` + extra + `]}`
	}
	for _, c := range []struct {
		extra string
		code  int
		text  string
	}{
		{``, 409, "The items' amounts do not add up to the statement line's."},
		{`,{"id_token_entry":"` + income + `"},{"id_token_sales_order":"` + third + `"}`, 400, "An entry or charge is named twice among the items the statement line pays."},
	} {
		if rec := do(h, "POST", "/reconcile_statement_line", items(c.extra)); rec.Code != c.code || !strings.Contains(rec.Body.String(), c.text) {
			t.Fatalf("%s: %d %s", c.extra, rec.Code, rec.Body)
		}
	}
	if got := statuses(); got != "PENDING,PENDING,PENDING,overdue" {
		t.Fatalf("a refused pairing paid: %s", got)
	}
	r := post(t, h, "/reconcile_statement_line", items(`,{"id_token_entry":"`+income+`"}`))
	if r["data"].(map[string]any)["status"] != "matched" {
		t.Fatalf("the deposit: %v", r)
	}
	if got := statuses(); got != "PAID,PAID,PAID,paid" {
		t.Fatalf("after the deposit: %s", got)
	}
	c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+first+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	if c["paid_amount"] != "1023.33" || c["settlement"] != "late" {
		t.Errorf("the late boleto: %v", c)
	}
	if rec := do(h, "POST", "/reconcile_statement_line", `{`+auth+`,"id_token":"`+line+`","action":"undo"}`); rec.Code != 200 {
		t.Fatalf("undo: %d %s", rec.Code, rec.Body)
	}
	// Open again; the boleto past its due date overdue at once.
	if got := statuses(); got != "OVERDUE,PENDING,PENDING,overdue" {
		t.Fatalf("after the undo: %s", got)
	}
}

// TestAgreementLateTerms: an agreement states its own late terms (1 %
// fine, 2 % a month of interest): its remittance registers them with the
// boleto (segment R's fine, segment P's interest a day: 1.000,00 × 2 % /
// 30 = 0,67), and a line of what the boleto asks ten days late under them
// (1.000,00 + 10,00 + 6,67 = 1.016,67) pairs at import, the fine and
// interest booked apart.
func TestAgreementLateTerms(t *testing.T) {
	t.Parallel()
	var now time.Time
	now = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	s, ds := newTestServerAt(t, &now, Config{Version: "test", PublicURL: "https://fincom.test"})
	h := s.Handler()
	db, release := acquire(t, ds)
	ctx := context.Background()
	unit, err := db.UnitByToken(ctx, fx.tokens["unitA"])
	if err != nil {
		t.Fatal(err)
	}
	a, err := db.Agreement(ctx, unit.ID, "provider_a")
	if err != nil {
		t.Fatal(err)
	}
	in := settings.AgreementInput{Provider: "provider_a", Agency: a.Agency, Account: a.Account + "-" + a.AccountDV, Wallet: a.Wallet, Code: a.Code,
		FinePercent: "1", InterestPercent: "2", BankAccount: fx.tokens["account1"]}
	bad := in
	bad.FinePercent = "12"
	if _, err := settings.SetAgreement(ctx, db, unit, bad); !errors.Is(err, settings.ErrLateTerms) {
		t.Fatalf("a fine of 12 %%: %v", err)
	}
	if a, err = settings.SetAgreement(ctx, db, unit, in); err != nil || a.FinePercent.String() != "1" || a.InterestPercent.String() != "2" {
		t.Fatalf("the terms: %+v %v", a, err)
	}
	release()
	id := orderWith(t, h, thousand("2026-11-11")...)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	rec := do(h, http.MethodPost, "/export_remittance", `{`+auth+`,"provider":"provider_a"}`)
	recs := strings.Split(strings.TrimSuffix(rec.Body.String(), "\r\n"), "\r\n")
	if rec.Code != 200 || len(recs) != 7 || recs[2][126:141] != "000000000000067" || recs[4][74:89] != "000000000000100" {
		t.Fatalf("the remittance's terms:\n%s", rec.Body)
	}
	now = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	if rec := doMultipart(h, "/import_ofx", `{`+auth+`,"id_token_bank_account":"{{account1}}"}`,
		map[string][]byte{"x.ofx": ofxSGML("T1", "20261121", "1016.67", "BOLETO")}); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"matched":1`) {
		t.Fatalf("import: %d %s", rec.Code, rec.Body)
	}
	got := orderEntries(t, h)
	if got["Multa: Instalação de rede"]["value"] != "10.00" || got["Juros: Instalação de rede"]["value"] != "6.67" {
		t.Fatalf("the fine and interest: %v", got)
	}
}
