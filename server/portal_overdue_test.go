package server

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/render"
	"fincom/store"
)

// TestPortalOverdue: "Em atraso" lists the open charges past their due
// date and the orders without a charge past their estimated payment date
// (not what is still to come, nor a cancelled order), with the days late
// and the total; "Reenviar cobrança" e-mails the charge again, and the
// reminder reaches every overdue order that has where to send it.
func TestPortalOverdue(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", withAddress)
	late := strings.Replace(serviceOrder, `"estimated_payment_date":"2026-11-30"`, `"estimated_payment_date":"2026-11-10"`, 1)
	charged := post(t, h, "/insert_sales_order", late)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+charged+`"}`)
	noCharge := strings.Replace(strings.Replace(late, `"estimated_payment_date":"2026-11-10"`, `"estimated_payment_date":"2026-11-20"`, 1),
		`"description":"Instalação de rede"`, `"description":"Visita sem cobrança"`, 1)
	uncharged := post(t, h, "/insert_sales_order", noCharge)["data"].(map[string]any)["id"].(string)
	post(t, h, "/insert_sales_order", serviceOrder) // due on the 30th: not late
	cancelled := post(t, h, "/insert_sales_order", late)["data"].(map[string]any)["id"].(string)
	post(t, h, "/disable_sales_order", `{`+auth+`,"id_token":"`+cancelled+`"}`)

	b := signedIn(t, s, ds)
	page := b.do("GET", "/portal/overdue", nil).Body.String()
	codes := map[string]string{}
	for _, id := range []string{charged, uncharged, cancelled} {
		codes[id] = post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["cod_orders"].(string)
	}
	for _, want := range []string{codes[charged] + "</a><br><span class=\"muted nowrap\">parcela 1</span>", "10/11/2026", "<td class=\"num\">12</td>", codes[uncharged] + "</a></td>",
		"20/11/2026", "Sem cobrança", "Gerar cobrança", "Reenviar cobrança", "Lembrar 1 cliente por e-mail", "R$ 3.000,00"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, codes[cancelled]) || strings.Count(page, "<tr>") != 3 {
		t.Errorf("a cancelled or future order is listed:\n%s", page)
	}

	token := csrf(t, page)
	rec := b.do("POST", "/portal/overdue/"+charged+"/resend?unit="+fx.tokens["unitA"], url.Values{"csrf": {token}})
	if rec.Code != 303 || !strings.Contains(b.do("GET", rec.Header().Get("Location"), nil).Body.String(), "Cobrança reenviada.") {
		t.Fatalf("resend = %d %s", rec.Code, rec.Header().Get("Location"))
	}
	rec = b.do("POST", "/portal/overdue/"+uncharged+"/resend?unit="+fx.tokens["unitA"], url.Values{"csrf": {token}})
	if rec.Code != 409 || !strings.Contains(rec.Body.String(), "O pedido não tem cobrança em aberto para reenviar.") {
		t.Fatalf("resend without a charge = %d", rec.Code)
	}
	// The reminders are answered by a redirect; the same form sent
	// again (a reload, back and resend) sends nothing again.
	key := regexp.MustCompile(`name="form_key" value="([0-9a-f]{32})"`).FindStringSubmatch(page)
	if key == nil {
		t.Fatalf("the reminders form has no one-time key:\n%s", page)
	}
	remind := url.Values{"csrf": {token}, "form_key": {key[1]}}
	rec = b.do("POST", "/portal/overdue?unit="+fx.tokens["unitA"], remind)
	if rec.Code != http.StatusSeeOther || !strings.Contains(b.do("GET", rec.Header().Get("Location"), nil).Body.String(), "1 lembrete(s) enviado(s).") {
		t.Fatalf("remind = %d\n%s", rec.Code, rec.Body)
	}
	rec = b.do("POST", "/portal/overdue?unit="+fx.tokens["unitA"], remind)
	if rec.Code != http.StatusSeeOther || !strings.Contains(b.do("GET", rec.Header().Get("Location"), nil).Body.String(), "nenhum lembrete foi enviado de novo") {
		t.Fatalf("remind again = %d\n%s", rec.Code, rec.Body)
	}
	if rec := b.do("POST", "/portal/overdue?unit="+fx.tokens["unitA"], url.Values{}); rec.Code != 403 {
		t.Fatalf("remind without CSRF = %d", rec.Code)
	}
	db, release := acquire(t, ds)
	defer release()
	mails, err := db.Outbox(context.Background(), store.EveryUnit, 50)
	if err != nil {
		t.Fatal(err)
	}
	resent := 0
	for _, m := range mails {
		if m.Kind == "charge_resent" && m.To == "fin@alfa.com.br" {
			resent++
		}
	}
	if resent != 2 {
		t.Errorf("%d charges e-mailed again, want 2", resent)
	}
	if page := b.do("GET", "/portal/overdue?cliente=ninguem", nil).Body.String(); !strings.Contains(page, "Nada em atraso para esse cliente.") {
		t.Errorf("a search that finds no one:\n%s", page)
	}
}

// TestPortalMonthReceivables: the month's page counts what is to be
// received from the open entries, the open charges and the orders without
// a charge, each once: an order counts through its charge, a paid charge
// not at all (its payment is the income entry it booked, or nothing to
// receive), a cancelled order never.
func TestPortalMonthReceivables(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", withAddress)
	order := func(date, value string, charge bool) string {
		body := strings.Replace(serviceOrder, `"estimated_payment_date":"2026-11-30"`, `"estimated_payment_date":"`+date+`"`, 1)
		body = strings.Replace(body, `"value":1500,`, `"value":`+value+`,`, 1)
		body = strings.Replace(body, `"tax_service_gross_amount":1500,`, `"tax_service_gross_amount":`+value+`,`, 1)
		id := post(t, h, "/insert_sales_order", body)["data"].(map[string]any)["id"].(string)
		if charge {
			post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
		}
		return id
	}
	order("2026-11-10", "100", true)   // a charge overdue
	order("2026-11-26", "200", true)   // a charge due this month
	order("2026-11-20", "400", false)  // an order without a charge, late
	order("2026-11-28", "800", false)  // and one to come this month
	order("2026-12-15", "1600", false) // next month: not counted
	paid := order("2026-11-27", "3200", true)
	post(t, h, "/settle_charge", `{`+auth+`,"id_token":"`+paid+`","amount":"3200.00","date":"2026-11-22"}`)
	gone := order("2026-11-27", "6400", false)
	post(t, h, "/disable_sales_order", `{`+auth+`,"id_token":"`+gone+`"}`)

	b := signedIn(t, s, ds)
	page := b.do("GET", "/portal/", nil).Body.String()
	for _, want := range []string{"Cobranças em aberto — vencidas: <strong class=\"out\">R$ 100,00</strong> · a vencer no mês: <strong>R$ 200,00</strong>",
		"Pedidos sem cobrança — vencidos: <strong class=\"out\">R$ 400,00</strong> · previstos no mês: <strong>R$ 800,00</strong>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the month lacks %q", want)
		}
	}
	db, release := acquire(t, ds)
	totals, err := db.OpenEntryTotals(context.Background(), 1, store.Today(fixedNow), store.Date{Time: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)})
	release()
	if err != nil {
		t.Fatal(err)
	}
	want := totals.ReceivableDue.Add(totals.ReceivableOverdue.Decimal).Add(decimal.NewFromInt(1500))
	if !strings.Contains(page, "Total a receber até o fim do mês: <strong>"+render.BRL(want.StringFixed(2))+"</strong>") {
		t.Errorf("the total is not the entries' and the 1,500.00 of orders and charges:\n%s", page)
	}
	// The headline's forecast is that same total.
	if !strings.Contains(page, "+ "+render.BRL(want.StringFixed(2))+" a receber até o fim do mês") {
		t.Errorf("the headline forecasts another amount than the total %s:\n%s", want.StringFixed(2), page)
	}
	// The month moves: December's page is December's, the order of the
	// 15th among what is to come, what November left open late by then.
	dec := b.do("GET", "/portal/?mes=2026-12", nil).Body.String()
	for _, w := range []string{"<h1>Dezembro de 2026", "mes=2026-11\" rel=\"prev\"", "mes=2027-01\" rel=\"next\"",
		"Pedidos sem cobrança — vencidos: <strong class=\"out\">R$ 1.200,00</strong> · previstos no mês: <strong>R$ 1.600,00</strong>",
		"Cobranças em aberto — vencidas: <strong class=\"out\">R$ 300,00</strong>"} {
		if !strings.Contains(dec, w) {
			t.Errorf("December's page lacks %q", w)
		}
	}
	if bad := b.do("GET", "/portal/?mes=dezembro", nil).Body.String(); !strings.Contains(bad, "<h1>Novembro de 2026") {
		t.Errorf("a month that is none shows another than the current one")
	}
}
