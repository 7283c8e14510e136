package server

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"fincom/store"
)

// TestDRE: /get_dre lays out a month's result by the categories' DRE
// groups, on the accrual basis (competence, paid or not) or the cash basis
// (paid, by payment day), beside the month before; a fee without a
// category is a line of its own; a partner's withdrawal is outside the
// result; every unit of the domain with all_units.
func TestDRE(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	cat := func(typ string, group int, name string) string {
		return post(t, h, "/insert_category", `{`+auth+`,"module_type":"`+typ+`","category":"`+name+`","category_master":`+strconv.Itoa(group)+`}`)["token"].(string)
	}
	sales, rent, withdrawal := cat("in", 101, "Vendas balcão"), cat("out", 205, "Aluguel da loja"), cat("out", 211, "Retirada Ana")
	post(t, h, "/insert_income", `{`+auth+`,"description":"Vendas de novembro","value":"10000.00","due_date":"2026-11-30","competence_date":"2026-11-30","id_token_category":"`+sales+`"}`)
	post(t, h, "/insert_income", `{`+auth+`,"description":"Vendas de outubro","value":"8000.00","due_date":"2026-10-31","pay_day":"2026-11-03","id_token_bank_account":"{{account1}}","id_token_category":"`+sales+`"}`)
	post(t, h, "/insert_expense", `{`+auth+`,"description":"Aluguel","value":"2500.00","due_date":"2026-11-05","pay_day":"2026-11-05","id_token_bank_account":"{{account1}}","id_token_category":"`+rent+`"}`)
	post(t, h, "/insert_expense", `{`+auth+`,"description":"Tarifa","value":"39.90","due_date":"2026-11-10","pay_day":"2026-11-10","id_token_bank_account":"{{account1}}"}`)
	post(t, h, "/insert_expense", `{`+auth+`,"description":"Retirada","value":"3000.00","due_date":"2026-11-15","pay_day":"2026-11-15","id_token_bank_account":"{{account1}}","id_token_category":"`+withdrawal+`"}`)
	post(t, h, "/insert_income", `{"access_token":"{{access}}","unit_token":"{{unitB}}","description":"Filial","value":"700.00","due_date":"2026-11-12"}`)

	lines := func(body string) map[string][2]string {
		t.Helper()
		d := post(t, h, "/get_dre", body)["data"].(map[string]any)
		out := map[string][2]string{}
		for _, l := range d["lines"].([]any) {
			m := l.(map[string]any)
			out[m["key"].(string)] = [2]string{m["amount"].(string), m["previous"].(string)}
		}
		out["_period"] = [2]string{d["from"].(string) + ".." + d["to"].(string), d["previous_from"].(string) + ".." + d["previous_to"].(string)}
		return out
	}
	accrual := lines(`{` + auth + `,"initial_date":"2026-11-01","final_date":"2026-11-30"}`)
	for key, want := range map[string][2]string{
		"_period": {"2026-11-01..2026-11-30", "2026-10-01..2026-10-31"}, "g101": {"10000.00", "8000.00"}, "g205": {"-2500.00", "0.00"},
		"sem_grupo_out": {"-39.90", "0.00"}, "resultado_liquido": {"7460.10", "8000.00"}, "g211": {"-3000.00", "0.00"},
	} {
		if accrual[key] != want {
			t.Errorf("accrual %s = %v, want %v", key, accrual[key], want)
		}
	}
	cash := lines(`{` + auth + `,"initial_date":"2026-11-01","final_date":"2026-11-30","basis":"cash"}`)
	if cash["g101"] != [2]string{"8000.00", "0.00"} || cash["resultado_liquido"] != [2]string{"5460.10", "0.00"} {
		t.Errorf("cash: sales %v, result %v", cash["g101"], cash["resultado_liquido"])
	}
	all := lines(`{` + auth + `,"initial_date":"2026-11-01","final_date":"2026-11-30","all_units":true}`)
	if all["sem_grupo_in"] != [2]string{"700.00", "0.00"} || all["resultado_liquido"] != [2]string{"8160.10", "8000.00"} {
		t.Errorf("all units: %v, %v", all["sem_grupo_in"], all["resultado_liquido"])
	}
	for _, c := range []struct{ body, text string }{
		{`{` + auth + `,"basis":"caixa"}`, ""},
		{`{` + auth + `,"initial_date":"2026-13-01"}`, "Invalid initial_date. Use YYYY-MM-DD."},
		{`{` + auth + `,"initial_date":"2026-11-30","final_date":"2026-11-01"}`, ""},
	} {
		rec := do(h, http.MethodPost, "/get_dre", c.body)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), c.text) {
			t.Errorf("%s = %d %s", c.body, rec.Code, rec.Body)
		}
	}
}

// TestPortalDRE: the portal's DRE page shows the month's result by group
// beside the month before, on either basis and for all units, with its
// chart of subtotals.
func TestPortalDRE(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	rent := post(t, h, "/insert_category", `{`+auth+`,"module_type":"out","category":"Aluguel da loja","category_master":205}`)["token"].(string)
	post(t, h, "/insert_income", `{`+auth+`,"description":"Vendas","value":"10000.00","due_date":"2026-11-30"}`)
	post(t, h, "/insert_expense", `{`+auth+`,"description":"Aluguel","value":"2500.00","due_date":"2026-11-05","pay_day":"2026-11-05","id_token_bank_account":"{{account1}}","id_token_category":"`+rent+`"}`)
	b := signedIn(t, s, ds)
	page := b.do("GET", "/portal/dre?mes=2026-11&unit="+fx.tokens["unitA"], nil).Body.String()
	for _, want := range []string{"Resultado de 01/11/2026 a 30/11/2026", "o período anterior é 01/10/2026 a 31/10/2026", "(−) Despesas administrativas",
		"-R$ 2.500,00", "R$ 7.500,00", "Resultado líquido do período", "<svg", "Fora do resultado"} {
		if !strings.Contains(page, want) {
			t.Errorf("the DRE page lacks %q", want)
		}
	}
	cash := b.do("GET", "/portal/dre?mes=2026-11&base=caixa&unit="+fx.tokens["unitA"], nil).Body.String()
	if !strings.Contains(cash, "-R$ 2.500,00") || strings.Contains(cash, "R$ 7.500,00") {
		t.Error("the cash basis counts what was not paid")
	}
	if all := b.do("GET", "/portal/dre?mes=2026-11&todas=1&unit="+fx.tokens["unitA"], nil).Body.String(); !strings.Contains(all, "DRE · todas as unidades") {
		t.Error("the page of all units does not say so")
	}
}

// TestDREAccrualCountsSales: on the accrual basis a sale is revenue of
// the month it is made (its authorized invoice's month when invoiced),
// paid or not, once: a sale made in November and paid in December is
// November's revenue on the accrual basis and December's on the cash
// basis, each once; invoiced in December it is December's; a disabled
// order and one whose invoice was cancelled are no revenue. A unit in
// the regime normal deducts the ICMS, PIS and COFINS its notes state.
func TestDREAccrualCountsSales(t *testing.T) {
	t.Parallel()
	now := fixedNow // 2026-11-22
	s, ds := newTestServerAt(t, &now, Config{Version: "test", PublicURL: "https://fincom.test"})
	h := s.Handler()
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	normalRegime(t, ds)
	// 35.00 of screws and 12.30 of freight, billed 47.30, category1
	// (group 102), its payment booked as an income when it is paid.
	sale := strings.Replace(strings.Replace(productOrder, `"local_destino":2`, `"local_destino":1`, 1), `"estimated_payment_date":"2026-12-10"`,
		`"estimated_payment_date":"2026-12-10","in_automation":true`, 1)
	order := func() string { return post(t, h, "/insert_sales_order", sale)["data"].(map[string]any)["id"].(string) }
	revenue := func(month, basis string) [2]string {
		t.Helper()
		last := map[string]string{"2026-11": "30", "2026-12": "31"}[month]
		d := post(t, h, "/get_dre", `{`+auth+`,"initial_date":"`+month+`-01","final_date":"`+month+`-`+last+`","basis":"`+basis+`"}`)["data"].(map[string]any)
		var out [2]string
		for _, l := range d["lines"].([]any) {
			switch m := l.(map[string]any); m["key"] {
			case "g102":
				out[0] = m["amount"].(string)
			case "g201":
				out[1] = m["amount"].(string)
			}
		}
		return out
	}
	zero := [2]string{"0.00", "0.00"}
	for _, c := range []struct{ month, basis string }{{"2026-11", "accrual"}, {"2026-11", "cash"}, {"2026-12", "accrual"}, {"2026-12", "cash"}} {
		if got := revenue(c.month, c.basis); got != zero {
			t.Fatalf("before any sale, %s %s: %v", c.month, c.basis, got)
		}
	}

	paidLater, invoicedLater, disabled, undone := order(), order(), order(), order()
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+paidLater+`"}`)
	post(t, h, "/disable_sales_order", `{`+auth+`,"id_token":"`+disabled+`"}`)
	if inv := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+undone+`"}`)["data"].(map[string]any); inv["status"] != "AUTHORIZED" {
		t.Fatalf("the note of the sale undone: %v", inv)
	}
	// November: three sales of 47.30 are revenue (the disabled one is
	// not), unpaid; the note of the invoiced one states 18% ICMS of
	// 47.30 (freight included: 8.51), 0.65% PIS and 3% COFINS of the
	// products' 35.00 (0.23 and 1.05): 9.79.
	if got := revenue("2026-11", "accrual"); got != [2]string{"141.90", "-9.79"} {
		t.Errorf("November, accrual, before the cancellation: %v", got)
	}
	if rec := do(h, http.MethodPost, "/cancel_nf", `{`+auth+`,"id_token":"`+undone+`","reason":"Venda desfeita a pedido do cliente"}`); rec.Code != 200 {
		t.Fatalf("cancel_nf: %d %s", rec.Code, rec.Body)
	}
	if got := revenue("2026-11", "accrual"); got != [2]string{"94.60", "0.00"} {
		t.Errorf("November, accrual: %v", got)
	}
	if got := revenue("2026-11", "cash"); got != zero {
		t.Errorf("November, cash: %v", got)
	}

	now = time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	if rec := do(h, http.MethodPost, "/settle_charge", `{`+auth+`,"id_token":"`+paidLater+`","id_token_bank_account":"{{account1}}"}`); rec.Code != 200 {
		t.Fatalf("settle_charge: %d %s", rec.Code, rec.Body)
	}
	if inv := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+invoicedLater+`"}`)["data"].(map[string]any); inv["status"] != "AUTHORIZED" {
		t.Fatalf("the note of December: %v", inv)
	}
	for _, c := range []struct {
		month, basis string
		want         [2]string
	}{
		{"2026-11", "accrual", [2]string{"47.30", "0.00"}},  // the sale paid in December
		{"2026-11", "cash", zero},                           // nothing was paid in November
		{"2026-12", "accrual", [2]string{"47.30", "-9.79"}}, // the sale invoiced in December, its taxes; not the payment
		{"2026-12", "cash", [2]string{"47.30", "0.00"}},     // the payment
	} {
		if got := revenue(c.month, c.basis); got != c.want {
			t.Errorf("%s, %s: %v, want %v", c.month, c.basis, got, c.want)
		}
	}

	// December's package: the note of December with what it states, the
	// payment's entry with its category, contact and account.
	rec := do(h, http.MethodPost, "/get_accountant_package", `{`+auth+`,"month":"2026-12"}`)
	if rec.Code != 200 {
		t.Fatalf("package = %d %.300s", rec.Code, rec.Body)
	}
	sheets := packageSheets(t, rec.Body.Bytes())
	notes := sheets["notas-emitidas-2026-12.xlsx"]
	if len(notes) != 2 {
		t.Fatalf("December's notes sheet: %q", notes)
	}
	note := map[string]string{}
	for i, h := range notes[0] {
		note[h] = notes[1][i]
	}
	for col, want := range map[string]string{"Tipo": "NF-e", "Emissão": excelDate("2026-12-05"), "Cliente": "Maria da Silva", "CPF/CNPJ do cliente": "529.982.247-25",
		"CFOP": "5102", "Valor": "47.3", "ICMS": "8.51", "ISS": "0", "PIS": "0.23", "COFINS": "1.05", "Situação": "Autorizada"} {
		if note[col] != want {
			t.Errorf("the note's %s is %q, want %q", col, note[col], want)
		}
	}
	// The payment of the order paid in December (a PIX charge: no document).
	entries := sheets["lancamentos-2026-12.xlsx"]
	if want := [][]string{entries[0], {"Receita", "Parafusos", "Assinaturas", "Receita de prestação de serviços", excelDate("2026-12-10"), excelDate("2026-12-10"),
		excelDate("2026-12-05"), "", "", "", "Maria da Silva", "529.982.247-25", "BB Principal", "Banco do Brasil S.A.", "1234-5", "99887-1", "47.3"}}; !reflect.DeepEqual(entries, want) {
		t.Errorf("December's entries sheet:\n%q\nwant\n%q", entries, want)
	}
}

// normalRegime puts the fixture's unit A in the normal regime (CRT 3,
// ICMS 18 %, PIS 0,65 %, COFINS 3 %): its NF-e state ICMS, PIS and
// COFINS.
func normalRegime(t *testing.T, ds *store.Domains) {
	t.Helper()
	db, release := acquire(t, ds)
	defer release()
	if _, err := db.SetUnitProfile(context.Background(), fx.tokens["unitA"], func(p *store.UnitProfile) error {
		p.CRT, p.ICMSRate, p.PISRate, p.COFINSRate = 3, "18", "0.65", "3"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
