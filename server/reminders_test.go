package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"fincom/store"
)

// thousand makes the service order R$ 1.000,00 (its invoice's amounts
// with it), due on due.
func thousand(due string) []string {
	return []string{`"value":1500`, `"value":1000`, `"2026-11-30"`, `"` + due + `"`, `"tax_service_gross_amount":1500`, `"tax_service_gross_amount":1000`,
		`"tax_iss_amount":75`, `"tax_iss_amount":50`, `"ret_ir_amount":22.5,"ret_total_amount":22.5},"net_receivable_amount":1477.5`,
		`"ret_ir_amount":15,"ret_total_amount":15},"net_receivable_amount":985`}
}

// TestCollectionSchedule: with test mode's clock moved a day at a time
// past two boletos' due date (R$ 1.000,00 on 10/12/2026, the notice 3
// days before it), the notice, the due day's, the +3 and the +10
// reminders are each e-mailed once, on their day, with what the boleto
// asks that day by its registered terms (1.000,00; 1.000,00; 1.021,00 =
// 1.000,00 + 20,00 + 1,00; 1.023,33 = 1.000,00 + 20,00 + 3,33), its line
// and its PDF; none after the charge is paid; each in the order's history
// and told to the webhooks (charge.reminder_sent).
func TestCollectionSchedule(t *testing.T) {
	t.Parallel()
	h := testModeServer(t)
	post(t, h, "/insert_webhook", `{`+auth+`,"url":"https://hooks.example.com/cobranca","events":["charge.reminder_sent"]}`)
	late := orderWith(t, h, thousand("2026-12-10")...)
	paid := orderWith(t, h, thousand("2026-12-10")...)
	for _, id := range []string{late, paid} {
		post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	}
	// Registered by the bank: a boleto it has not registered is not sent.
	registerBoletos(t, h, "provider_a")
	code := func(id string) string {
		return post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["cod_orders"].(string)
	}
	codes := map[string]string{code(late): "late", code(paid): "paid"}
	// 22/11 to 21/12, a day at a time; the second boleto paid on 14/12.
	for day := 23; day <= 30+21; day++ {
		post(t, h, "/_test/clock", `{"access_token":"{{access}}","advance":"P1D"}`)
		if day == 30+14 {
			post(t, h, "/_test/pay_charge", `{`+auth+`,"id_token":"`+paid+`"}`)
		}
	}
	type sent struct{ order, kind, subject, owed string }
	var got []sent
	for _, x := range post(t, h, "/_test/outbox", `{"access_token":"{{access}}"}`)["data"].([]any) {
		m := x.(map[string]any)
		kind := m["kind"].(string)
		if !strings.HasPrefix(kind, "charge_notice") && kind != "charge_reminder" {
			continue
		}
		body := m["body"].(string)
		var order string
		for c, name := range codes {
			if strings.Contains(body, "pedido "+c) {
				order = name
			}
		}
		owed := ""
		if i := strings.Index(body, "Hoje ela é de "); i >= 0 {
			owed = strings.SplitN(body[i+len("Hoje ela é de "):], "\n", 2)[0]
		}
		files := m["attachments"].([]any)
		if !strings.Contains(body, "Boleto (o PDF vai anexo), linha digitável:") || len(files) != 1 ||
			files[0].(map[string]any)["content_type"] != "application/pdf" {
			t.Errorf("%s %s carries no boleto:\n%s\n%v", order, m["subject"], body, files)
		}
		got = append(got, sent{order, kind, m["subject"].(string), owed})
	}
	want := []sent{
		{"late", "charge_reminder", "Acme Matriz: cobrança vencida há 10 dia(s)", "R$ 1.023,33: R$ 1.000,00 + multa de R$ 20,00 + juros de R$ 3,33."},
		{"late", "charge_reminder", "Acme Matriz: cobrança vencida há 3 dia(s)", "R$ 1.021,00: R$ 1.000,00 + multa de R$ 20,00 + juros de R$ 1,00."},
		{"paid", "charge_reminder", "Acme Matriz: cobrança vencida há 3 dia(s)", "R$ 1.021,00: R$ 1.000,00 + multa de R$ 20,00 + juros de R$ 1,00."},
		{"late", "charge_reminder", "Acme Matriz: sua cobrança vence hoje", ""},
		{"paid", "charge_reminder", "Acme Matriz: sua cobrança vence hoje", ""},
		{"late", "charge_notice", "Acme Matriz: sua cobrança vence em 3 dia(s)", ""},
		{"paid", "charge_notice", "Acme Matriz: sua cobrança vence em 3 dia(s)", ""},
	}
	// The outbox's order, newest first; within a day by order.
	key := func(x sent) string { return x.subject + "|" + x.order }
	sort.SliceStable(got, func(i, j int) bool { return key(got[i]) < key(got[j]) })
	sort.SliceStable(want, func(i, j int) bool { return key(want[i]) < key(want[j]) })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("reminders sent:\n%v\nwant\n%v", got, want)
	}
	// Each told to the webhooks with its step and what was asked.
	var steps []string
	for _, x := range post(t, h, "/_test/webhooks", `{"access_token":"{{access}}"}`)["data"].([]any) {
		d := x.(map[string]any)
		if d["event_type"] != "charge.reminder_sent" {
			continue
		}
		var p struct {
			Data struct {
				Step      *int   `json:"step"`
				Trigger   string `json:"trigger"`
				Day       string `json:"day"`
				AmountDue string `json:"amount_due"`
				Channel   string `json:"channel"`
			} `json:"data"`
		}
		b, _ := json.Marshal(d["payload"])
		if err := json.Unmarshal(b, &p); err != nil || p.Data.Step == nil {
			t.Fatalf("payload %s", b)
		}
		steps = append(steps, fmt.Sprintf("%s %+d %s %s %s", p.Data.Day, *p.Data.Step, p.Data.AmountDue, p.Data.Trigger, p.Data.Channel))
	}
	if w := "2026-12-20 +10 1023.33 schedule email|2026-12-13 +3 1021.00 schedule email|2026-12-13 +3 1021.00 schedule email|2026-12-10 +0 1000.00 schedule email|" +
		"2026-12-10 +0 1000.00 schedule email|2026-12-07 -3 1000.00 schedule email|2026-12-07 -3 1000.00 schedule email"; strings.Join(steps, "|") != w {
		t.Errorf("webhooks:\n%s\nwant\n%s", strings.Join(steps, "|"), w)
	}
	// The order's history holds them.
	events := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+late+`"}`)["data"].(map[string]any)["portal_events"].([]any)
	n := 0
	for _, e := range events {
		if e.(map[string]any)["kind"] == "reminder_sent" {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d reminders in the order's history, want 4: %v", n, events)
	}
}

// TestPortalReminderSchedule: an owner sets the unit's collection
// schedule in Configurações (the due day, 3, 10 and 30 days after, each on
// or off; by default the first three), audited before and after; a day
// off the list is refused beside the field with nothing changed; a
// seller may not.
func TestPortalReminderSchedule(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	page := b.do("GET", "/portal/settings"+unit, nil).Body.String()
	session := csrf(t, page)
	for _, w := range []string{`name="day" value="0" checked`, `name="day" value="3" checked`, `name="day" value="10" checked`, `name="day" value="30">`} {
		if !strings.Contains(page, w) {
			t.Fatalf("the default schedule lacks %s", w)
		}
	}
	days := func() string {
		db, release := acquire(t, ds)
		defer release()
		d, err := db.ReminderDays(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if rec := b.do("POST", "/portal/settings/reminders"+unit, url.Values{"csrf": {session}, "day": {"0", "99"}}); rec.Code != 400 ||
		!strings.Contains(rec.Body.String(), `id="erro-reminder-days">marque dias da lista`) || days() != "0,3,10" {
		t.Fatalf("a day off the list = %d, schedule %q", rec.Code, days())
	}
	if rec := b.do("POST", "/portal/settings/reminders"+unit, url.Values{"csrf": {session}, "day": {"30", "0"}}); rec.Code != http.StatusSeeOther || days() != "0,30" {
		t.Fatalf("the schedule = %d, %q", rec.Code, days())
	}
	if rec := b.do("POST", "/portal/settings/reminders"+unit, url.Values{"csrf": {session}}); rec.Code != http.StatusSeeOther || days() != "" {
		t.Fatalf("no reminder = %d, %q", rec.Code, days())
	}
	db, release := acquire(t, ds)
	entries, _, err := db.AuditLog(context.Background(), 1, "reminder-days", store.Page{Number: 1, Size: 10})
	release()
	if err != nil || len(entries) != 2 || !strings.Contains(entries[0].Record.String, "reminder-days: 0,30 → (none)") ||
		!strings.Contains(entries[1].Record.String, "reminder-days: 0,3,10 → 0,30") {
		t.Fatalf("audit: %+v %v", entries, err)
	}
	seller := signedInAs(t, s, ds, "Caio", "caio@example.com", store.RoleSales, "")
	if rec := seller.do("POST", "/portal/settings/reminders"+unit, url.Values{"csrf": {csrf(t, seller.do("GET", "/portal/"+unit, nil).Body.String())}, "day": {"0"}}); rec.Code != 403 || days() != "" {
		t.Fatalf("a seller's schedule = %d, %q", rec.Code, days())
	}
}

// TestCollectionReissuesPix: a PIX with due date is reminded with its own
// code while it is valid (30 days after its due date); past that, the
// reminder (here a person's resend, 35 days late) issues a new one at the
// PSP for what the charge asks that day (R$ 47,30 + 0,95 fine + 0,55
// interest = 48,80), which pays it.
func TestCollectionReissuesPix(t *testing.T) {
	t.Parallel()
	h := testModeServer(t)
	body := strings.Replace(productOrder, `"description":"Parafusos"`, `"description":"Parafusos","notify_email_charge":"fin@beta.com.br"`, 1)
	id := post(t, h, "/insert_sales_order", body)["data"].(map[string]any)["id"].(string)
	c := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	first, code := c["provider_ref"].(string), c["pix_payload"].(string)
	if !strings.HasPrefix(first, "psp:cobv:") || c["amount"] != "47.30" {
		t.Fatalf("the charge: %v", c)
	}
	// To 14/01/2027, 35 days after the due date: the schedule's
	// reminders carry the charge's own code.
	post(t, h, "/_test/clock", `{"access_token":"{{access}}","now":"2027-01-14T12:00:00Z"}`)
	mails := func() []map[string]any {
		var out []map[string]any
		for _, x := range post(t, h, "/_test/outbox", `{"access_token":"{{access}}"}`)["data"].([]any) {
			if m := x.(map[string]any); m["kind"] != "charge_created" && strings.HasPrefix(m["kind"].(string), "charge_") && m["to"] == "fin@beta.com.br" {
				out = append(out, m)
			}
		}
		return out
	}
	before := mails()
	if len(before) == 0 {
		t.Fatal("no reminder of the PIX")
	}
	var asked []string
	for _, m := range before {
		body := m["body"].(string)
		if !strings.Contains(body, code) {
			t.Errorf("%s lacks the charge's PIX code:\n%s", m["subject"], body)
		}
		if i := strings.Index(body, "Hoje ela é de "); i >= 0 {
			asked = append(asked, strings.SplitN(body[i+len("Hoje ela é de "):], ":", 2)[0])
		}
	}
	// The due day, +3 and +10 (no notice before: the order asks none);
	// +10 and +3 ask 47,30 + 0,95 (2 %) + 0,16 and 0,05 (1/30 % a day).
	if strings.Join(asked, " ") != "R$ 48,41 R$ 48,30" || len(before) != 3 {
		t.Errorf("the PIX's reminders ask %v (%d reminders)", asked, len(before))
	}
	post(t, h, "/resend_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	c = post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	ref, newCode := c["provider_ref"].(string), c["pix_payload"].(string)
	if ref == first || !strings.HasPrefix(ref, "psp:cobv:") || newCode == code || c["amount"] != "47.30" {
		t.Fatalf("not issued anew: %v", c)
	}
	resent := mails()[0]
	if resent["kind"] != "charge_resent" || !strings.Contains(resent["body"].(string), newCode) ||
		!strings.Contains(resent["body"].(string), "Hoje ela é de R$ 48,80: R$ 47,30 + multa de R$ 0,95 + juros de R$ 0,55.") {
		t.Fatalf("the resend:\n%s", resent["body"])
	}
	// The new PIX, paid as the payer's bank shows it, pays the charge.
	p := post(t, h, "/_test/pay_pix", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if pay, _ := p["payment"].(map[string]any); pay == nil || pay["paid_amount"] != "48.80" || pay["settlement"] != "late" {
		t.Fatalf("paid: %v", p)
	}
}
