package server

import (
	"context"
	"fincom/store"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestPortalUndoesReconciliation: on Conciliação the lines already resolved
// are listed with what each did, and a person undoes a pairing: an
// expense the line paid is open again (and can be paired again), an
// income already paid stays paid, an entry booked from the line is
// disabled, a dismissed line waits again. A line that paid a charge shows
// no undo and refuses one in Portuguese; so does a line still open.
func TestPortalUndoesReconciliation(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	statement := "/portal/statement?unit=" + fx.tokens["unitA"]
	session := csrf(t, b.do("GET", statement, nil).Body.String())
	light := post(t, h, "/insert_expense", `{`+auth+`,"description":"Conta de luz","value":"321.00","due_date":"2026-11-20"}`)["token"].(string)
	paid := post(t, h, "/insert_income", `{`+auth+`,"description":"Venda balcão","value":"200.00","due_date":"2026-11-02","pay_day":"2026-11-02","id_token_bank_account":"{{account1}}"}`)["token"].(string)
	cat := post(t, h, "/insert_category", `{`+auth+`,"module_type":"out","name":"Tarifas do banco"}`)["token"].(string)
	meta := `{` + auth + `,"id_token_bank_account":"{{account1}}"}`
	for _, l := range [][]byte{ofxSGML("U1", "20261101", "-321.00", "DEBITO LUZ"), ofxSGML("U2", "20261102", "-9.90", "TARIFA"),
		ofxSGML("U3", "20261102", "200.00", "DEPOSITO"), ofxSGML("U4", "20261103", "50.00", "TRANSF PROPRIA")} {
		if rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": l}); rec.Code != 200 {
			t.Fatalf("import: %d %s", rec.Code, rec.Body)
		}
	}
	lineOf := func(memo string) string {
		t.Helper()
		db, release := acquire(t, ds)
		defer release()
		all, _, err := db.StatementLines(context.Background(), 1, "", "", store.Page{})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range all {
			if l.Memo.String == memo {
				return l.Token
			}
		}
		t.Fatalf("no line %q", memo)
		return ""
	}
	act := func(memo string, form url.Values) *http.Response {
		t.Helper()
		form.Set("csrf", session)
		return b.do("POST", "/portal/statement/"+lineOf(memo)+"?unit="+fx.tokens["unitA"], form).Result()
	}
	for memo, form := range map[string]url.Values{"DEBITO LUZ": {"action": {"match"}, "pair": {"entry:" + light}},
		"TARIFA": {"action": {"book"}, "category": {cat}, "description": {"Tarifa do mês"}}, "TRANSF PROPRIA": {"action": {"dismiss"}}} {
		if res := act(memo, form); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d", memo, res.StatusCode)
		}
	}
	// The same form sent again (a reload, a double click, back and
	// resend) books and pays nothing twice: the line is resolved.
	month := "/portal/transactions?unit=" + fx.tokens["unitA"] + "&mes=2026-11"
	listed := strings.Count(b.do("GET", month, nil).Body.String(), "Tarifa do mês")
	for memo, form := range map[string]url.Values{"DEBITO LUZ": {"action": {"match"}, "pair": {"entry:" + light}},
		"TARIFA": {"action": {"book"}, "category": {cat}, "description": {"Tarifa do mês"}}} {
		if res := act(memo, form); res.StatusCode != http.StatusConflict {
			t.Errorf("%s sent again: %d", memo, res.StatusCode)
		}
	}
	if again := strings.Count(b.do("GET", month, nil).Body.String(), "Tarifa do mês"); listed == 0 || again != listed {
		t.Errorf("the booking sent twice is listed %d times, once %d", again, listed)
	}
	status := func(token string) (string, string) {
		t.Helper()
		db, release := acquire(t, ds)
		defer release()
		st, err := db.EntryStatuses(context.Background(), 1, []string{token})
		if err != nil {
			t.Fatal(err)
		}
		return st[0].Status, st[0].PayDay.String
	}
	if st, _ := status(light); st != "paid" {
		t.Fatalf("the paired expense is %s", st)
	}
	page := b.do("GET", statement, nil).Body.String()
	for _, want := range []string{"Resolvidas recentemente", "Pagou o lançamento “Conta de luz”", "Lançada como “Tarifa do mês”",
		"Conciliou o lançamento “Venda balcão”", "Descartada", ">automática<", ">manual<"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := len(regexp.MustCompile(`name="action" value="undo"`).FindAllString(page, -1)); n != 4 {
		t.Errorf("%d undo buttons, want 4", n)
	}
	db, release := acquire(t, ds)
	resolved, _ := db.ResolvedStatementLines(context.Background(), 1, 10)
	release()
	var booked string
	for _, r := range resolved {
		if r.Memo.String == "TARIFA" {
			booked = r.EntryToken.String
		}
	}
	for _, memo := range []string{"DEBITO LUZ", "TARIFA", "DEPOSITO", "TRANSF PROPRIA"} {
		res := act(memo, url.Values{"action": {"undo"}})
		if res.StatusCode != http.StatusSeeOther || !strings.Contains(b.do("GET", res.Header.Get("Location"), nil).Body.String(), "Conciliação desfeita") {
			t.Fatalf("undo %s = %d", memo, res.StatusCode)
		}
	}
	if st, day := status(light); st == "paid" || day != "" {
		t.Errorf("the expense the line paid is %s (%s) after the undo", st, day)
	}
	if st, day := status(paid); st != "paid" || day != "2026-11-02" {
		t.Errorf("the income already paid is %s (%s) after the undo", st, day)
	}
	if st, _ := status(booked); st != "cancelled" {
		t.Errorf("the entry booked from the line is %s after the undo", st)
	}
	page = b.do("GET", statement, nil).Body.String()
	if strings.Contains(page, "Resolvidas recentemente") || strings.Count(page, `name="action" value="dismiss"`) != 4 {
		t.Errorf("the four lines do not wait again:\n%s", page)
	}
	rec := b.do("POST", "/portal/statement/"+lineOf("DEBITO LUZ")+"?unit="+fx.tokens["unitA"], url.Values{"csrf": {session}, "action": {"undo"}})
	if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "Esta linha do extrato está em aberto: não há o que desfazer.") {
		t.Errorf("undo an open line = %d", rec.Code)
	}
	// Paired again with the same expense: it was open.
	if res := act("DEBITO LUZ", url.Values{"action": {"match"}, "pair": {"entry:" + light}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("pair again = %d", res.StatusCode)
	}
	// A line that paid a charge is undone too: the charge is open again.
	order := post(t, h, "/insert_sales_order", serviceOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+order+`"}`)
	if rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": ofxSGML("U5", "20261210", "1500.00", "PIX RECEBIDO")}); rec.Code != 200 {
		t.Fatalf("import: %d", rec.Code)
	}
	if res := act("PIX RECEBIDO", url.Values{"action": {"match"}, "pair": {"charge:" + order + ":1"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("pair with the charge = %d", res.StatusCode)
	}
	page = b.do("GET", statement, nil).Body.String()
	if !strings.Contains(page, "Pagou a cobrança do pedido") || strings.Count(page, `name="action" value="undo"`) != 2 {
		t.Errorf("the charge's line:\n%s", page)
	}
	rec = b.do("POST", "/portal/statement/"+lineOf("PIX RECEBIDO")+"?unit="+fx.tokens["unitA"], url.Values{"csrf": {session}, "action": {"undo"}})
	if rec.Code != http.StatusSeeOther {
		t.Errorf("undo a charge's line = %d", rec.Code)
	}
	if c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+order+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any); c["status"] == "PAID" {
		t.Errorf("the charge after the undo: %v", c)
	}
}
