package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

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
