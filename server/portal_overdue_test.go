package server

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// TestPortalOverdue: "Em atraso" lists the open charges past their due
// date and the orders without a charge past their estimated payment date
// (not what is still to come, nor a cancelled order), with the days late
// and the total; "Reenviar cobrança" e-mails the charge again, and the
// reminder reaches every overdue order that has where to send it.
func TestPortalOverdue(t *testing.T) {
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
	rec = b.do("POST", "/portal/overdue?unit="+fx.tokens["unitA"], url.Values{"csrf": {token}})
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "1 lembrete(s) enviado(s).") {
		t.Fatalf("remind = %d\n%s", rec.Code, rec.Body)
	}
	if rec := b.do("POST", "/portal/overdue?unit="+fx.tokens["unitA"], url.Values{}); rec.Code != 403 {
		t.Fatalf("remind without CSRF = %d", rec.Code)
	}
	db, release := acquire(t, ds)
	defer release()
	mails, err := db.Outbox(context.Background(), 50)
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
