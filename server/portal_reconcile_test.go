package server

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestPortalClosesTheMonth: in Conciliação an office manager reconciles
// a boleto of R$ 1.000,00 paid ten days late with a line of R$ 1.023,33
// (its preselected pairing; R$ 20,00 fine and R$ 3,33 interest booked
// apart), one deposit of R$ 1.100,00 that pays three charges (ticked; the
// sum is also the preselected suggestion), a line of R$ 400,00 that pays
// part of a bill of R$ 1.000,00 (R$ 600,00 left open) and a bank fee
// booked as "Tarifas bancárias"; each is undone, and everything is as
// before. Amounts are held to the cent against a hand computation.
func TestPortalClosesTheMonth(t *testing.T) {
	t.Parallel()
	var now time.Time
	h, s, ds, late := lateBoletoServer(t, &now)
	// A second boleto of the same amount and day: the late line is no
	// longer matched at import, it waits for the person.
	twin := orderWith(t, h, `"value":1500`, `"value":1000`, `"2026-11-30"`, `"2026-11-11"`)
	parts := map[string]string{}
	for _, v := range []string{"250.40", "330.10", "519.50"} {
		parts[v] = orderWith(t, h, `"value":1500`, `"value":`+v, `"2026-11-30"`, `"2026-11-28"`)
	}
	for _, id := range append([]string{twin}, parts["250.40"], parts["330.10"], parts["519.50"]) {
		post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	}
	bill := post(t, h, "/insert_expense", `{`+auth+`,"description":"Papel A4 (fornecedor)","value":"1000.00","due_date":"2026-11-20"}`)["token"].(string)
	now = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	for _, f := range []struct{ fitid, amount, memo string }{
		{"L1", "1023.33", "BOLETO PAGO"}, {"D1", "1100.00", "DEPOSITO ALFA"}, {"B1", "-400.00", "PAGTO PAPEL"}, {"F1", "-12.90", "TARIFA PACOTE SERVICOS"},
	} {
		if rec := doMultipart(h, "/import_ofx", `{`+auth+`,"id_token_bank_account":"{{account1}}"}`,
			map[string][]byte{"x.ofx": ofxSGML(f.fitid, "20261121", f.amount, f.memo)}); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"open":1`) {
			t.Fatalf("import %s: %d %s", f.fitid, rec.Code, rec.Body)
		}
	}
	type state struct{ charges, entries string }
	snapshot := func() state {
		var cs []string
		for _, id := range []string{late, twin, parts["250.40"], parts["330.10"], parts["519.50"]} {
			c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
			paid, _ := c["paid_amount"].(string)
			cs = append(cs, c["amount"].(string)+":"+c["status"].(string)+":"+paid)
		}
		var es []string
		for _, x := range post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31"}`)["data"].([]any) {
			m := x.(map[string]any)
			if m["active"] == false {
				continue
			}
			cat, _ := m["category"].(string)
			pay, _ := m["pay_day"].(string)
			es = append(es, m["type"].(string)+" "+m["value"].(string)+" "+m["description"].(string)+" ["+cat+"] "+pay)
		}
		sort.Strings(es)
		return state{strings.Join(cs, " "), strings.Join(es, "\n")}
	}
	before := snapshot()
	if before.entries != "out 1000.00 Papel A4 (fornecedor) [] " {
		t.Fatalf("before: %q", before.entries)
	}
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	statement := "/portal/statement" + unit
	page := b.do("GET", statement, nil).Body.String()
	session := csrf(t, page)
	section := func(page, memo string) (token, body string) {
		t.Helper()
		for _, sec := range strings.Split(page, `<section class="card"`) {
			if strings.Contains(sec, "<p>"+memo+"</p>") {
				m := regexp.MustCompile(`action="/portal/statement/([^"?]+)\?`).FindStringSubmatch(sec)
				return m[1], sec
			}
		}
		t.Fatalf("no line %s on the page", memo)
		return "", ""
	}
	selected := func(sec string) (value, label string) {
		m := regexp.MustCompile(`<option value="([^"]+)" selected>([^<]*)</option>`).FindStringSubmatch(sec)
		if m == nil {
			return "", ""
		}
		return html.UnescapeString(m[1]), html.UnescapeString(m[2])
	}
	post := func(token string, form url.Values) {
		t.Helper()
		form.Set("csrf", session)
		if rec := b.do("POST", "/portal/statement/"+token+unit, form); rec.Code != http.StatusSeeOther {
			t.Fatalf("%v = %d\n%s", form, rec.Code, rec.Body)
		}
	}

	// The late boleto: its pairing preselected, at what it asks that day.
	l1, sec := section(page, "BOLETO PAGO")
	v, label := selected(sec)
	if !strings.HasPrefix(v, "charge:") || !strings.HasPrefix(label, "R$ 1.023,33 com multa e juros no dia · R$ 1.000,00 · 11/11/2026") {
		t.Fatalf("the late line preselects %q %q", v, label)
	}
	post(l1, url.Values{"action": {"match"}, "pair": {v}})
	// The deposit: the sum of the three charges suggested first, and the
	// three ticked.
	d1, sec := section(page, "DEPOSITO ALFA")
	if v, label := selected(sec); !strings.HasPrefix(v, "items:") || !strings.HasPrefix(label, "R$ 1.100,00 · soma de 3 itens de Alfa: ") {
		t.Fatalf("the deposit preselects %q %q", v, label)
	}
	var ticked []string
	for _, m := range regexp.MustCompile(`<input type="checkbox" name="item" value="([^"]+)"> ([^<]*)`).FindAllStringSubmatch(sec, -1) {
		for _, amount := range []string{"R$ 250,40", "R$ 330,10", "R$ 519,50"} {
			if strings.HasPrefix(m[2], amount+" · ") {
				ticked = append(ticked, html.UnescapeString(m[1]))
			}
		}
	}
	if len(ticked) != 3 {
		t.Fatalf("the deposit's items to tick: %v\n%s", ticked, sec)
	}
	post(d1, url.Values{"action": {"match"}, "item": ticked})
	// The bill, part paid.
	b1, _ := section(page, "PAGTO PAPEL")
	post(b1, url.Values{"action": {"match"}, "pair": {"entry:" + bill}, "partial": {"1"}})
	// The fee, booked under its preselected category.
	f1, sec := section(page, "TARIFA PACOTE SERVICOS")
	fee := regexp.MustCompile(`<option value="([^"]+)" selected>Tarifas bancárias</option>`).FindStringSubmatch(sec)
	if fee == nil {
		t.Fatalf("the fee's category is not preselected:\n%s", sec)
	}
	post(f1, url.Values{"action": {"book"}, "category": {fee[1]}, "description": {"Tarifa do pacote de serviços"}})

	after := snapshot()
	// 1.000,00 ten days late: 2 % = 20,00; 1.000,00 × 1 % × 10 / 30 =
	// 3,333… = 3,33; the deposit 250,40 + 330,10 + 519,50 = 1.100,00; the
	// bill 1.000,00 − 400,00 = 600,00 left.
	if want := "1000.00:PAID:1023.33 1000.00:PENDING: 250.40:PAID:250.40 330.10:PAID:330.10 519.50:PAID:519.50"; after.charges != want {
		t.Errorf("charges:\n%s\nwant\n%s", after.charges, want)
	}
	want := strings.Join([]string{
		"in 1000.00 Instalação de rede [Assinaturas] 2026-11-21",
		"in 20.00 Multa: Instalação de rede [Multas recebidas] 2026-11-21",
		"in 250.40 Instalação de rede [Assinaturas] 2026-11-21",
		"in 3.33 Juros: Instalação de rede [Juros recebidos] 2026-11-21",
		"in 330.10 Instalação de rede [Assinaturas] 2026-11-21",
		"in 519.50 Instalação de rede [Assinaturas] 2026-11-21",
		"out 12.90 Tarifa do pacote de serviços [Tarifas bancárias] 2026-11-21",
		"out 400.00 Papel A4 (fornecedor) [] 2026-11-21",
		"out 600.00 Papel A4 (fornecedor) (restante) [] ",
	}, "\n")
	if after.entries != want {
		t.Errorf("entries:\n%s\nwant\n%s", after.entries, want)
	}
	// Each undone, from the page's Desfazer.
	for _, tok := range []string{l1, d1, b1, f1} {
		post(tok, url.Values{"action": {"undo"}})
	}
	undone := snapshot()
	// The boletos past their due date are overdue once open again.
	if want := strings.Replace(before.charges, "1000.00:PENDING:", "1000.00:OVERDUE:", 1); undone.charges != want || undone.entries != before.entries {
		t.Errorf("after the undo:\n%s\n%s\nwant\n%s\n%s", undone.charges, undone.entries, want, before.entries)
	}
	if page := b.do("GET", statement, nil).Body.String(); strings.Count(page, `name="action" value="match"`) != 4 {
		t.Errorf("the four lines are not open again")
	}
}
