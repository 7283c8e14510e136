package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"fincom/jobs"
	"fincom/store"
)

// TestPortalBillContacts: a contact is marked supplier (or customer, or
// both); the contacts' list and the entry form's contact field offer the
// suppliers for a bill and the customers for an income; a bill names its
// supplier by CPF/CNPJ or by the choice offered, is listed under the
// supplier's name, and shows it when edited; a contact the unit does not
// have is refused beside the field.
func TestPortalBillContacts(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	edit := "/portal/contacts/" + fx.tokens["contact1"] + unit
	form := url.Values{"csrf": {csrf(t, b.do("GET", edit, nil).Body.String())}, "type": {"legal"}, "register": {"11.444.777/0001-61"},
		"name": {"Alfa Comércio Ltda"}, "fantasy_name": {"Alfa"}, "kind": {"supplier"}}
	if rec := b.do("POST", edit, form); rec.Code != http.StatusSeeOther {
		t.Fatalf("the supplier = %d\n%s", rec.Code, rec.Body)
	}
	db, release := acquire(t, ds)
	err := db.UpdateContact(context.Background(), 1, fx.tokens["contact2"], func(f *store.ContactFields) error { f.Kind = "customer"; return nil })
	release()
	if err != nil {
		t.Fatal(err)
	}
	suppliers := b.do("GET", "/portal/contacts"+unit+"&papel=fornecedores", nil).Body.String()
	if !strings.Contains(suppliers, ">Alfa<") || strings.Contains(suppliers, "Maria da Silva") {
		t.Fatalf("the suppliers' list:\n%s", suppliers)
	}
	page := b.do("GET", "/portal/transactions"+unit+"&mes=2026-12", nil).Body.String()
	supplierList := page[strings.Index(page, `<datalist id="fornecedores">`):strings.Index(page, `<datalist id="clientes">`)]
	customerList := page[strings.Index(page, `<datalist id="clientes">`):]
	if !strings.Contains(supplierList, `value="Alfa · 11.444.777/0001-61"`) || strings.Contains(supplierList, "Maria") ||
		!strings.Contains(customerList, `value="Maria da Silva · 529.982.247-25"`) || strings.Contains(customerList, "Alfa") {
		t.Fatalf("the contact field's choices:\n%s", page)
	}
	session := csrf(t, page)
	bill := func(contact string) *http.Response {
		rec := b.do("POST", "/portal/transactions"+unit+"&mes=2026-12", url.Values{"csrf": {session}, "type": {"out"}, "description": {"Aluguel de dezembro"},
			"value": {"2.500,00"}, "due_date": {"2026-12-05"}, "contact": {contact}, "form_key": {store.NewSecret(16)}})
		return rec.Result()
	}
	if rec := bill("Beta Ltda"); rec.StatusCode != 400 {
		t.Fatalf("an unknown supplier = %d", rec.StatusCode)
	}
	if page := b.do("POST", "/portal/transactions"+unit+"&mes=2026-12", url.Values{"csrf": {session}, "type": {"out"}, "description": {"Aluguel"},
		"value": {"1,00"}, "due_date": {"2026-12-05"}, "contact": {"Beta Ltda"}}).Body.String(); !strings.Contains(page, `id="erro-contact">contato não encontrado`) {
		t.Fatalf("the unknown supplier's refusal:\n%s", page)
	}
	if rec := bill("Alfa · 11.444.777/0001-61"); rec.StatusCode != http.StatusSeeOther {
		t.Fatalf("the bill = %d", rec.StatusCode)
	}
	if rec := bill("11444777000161"); rec.StatusCode != http.StatusSeeOther {
		t.Fatalf("the bill by CNPJ = %d", rec.StatusCode)
	}
	db, release = acquire(t, ds)
	entries, err := db.EntrySummaries(context.Background(), 1, "2026-12-01", "2026-12-31", "out", 100)
	release()
	if err != nil {
		t.Fatal(err)
	}
	var token string
	n := 0
	for _, e := range entries {
		if e.Description == "Aluguel de dezembro" {
			n++
			token = e.Token
			if e.Contact != "Alfa" || e.ContactRegister != "11444777000161" {
				t.Errorf("the bill's contact: %q %q", e.Contact, e.ContactRegister)
			}
		}
	}
	if n != 2 {
		t.Fatalf("%d bills made, want 2", n)
	}
	if list := b.do("GET", "/portal/transactions"+unit+"&mes=2026-12&busca=alfa", nil).Body.String(); strings.Count(list, "Aluguel de dezembro</a> · Alfa") != 2 {
		t.Fatalf("the bills under the supplier:\n%s", list)
	}
	if page := b.do("GET", "/portal/transactions/"+token+unit, nil).Body.String(); !strings.Contains(page, `name="contact" type="text" value="Alfa · 11.444.777/0001-61"`) {
		t.Fatalf("the bill's page:\n%s", page)
	}
}

// TestPortalInstalments: a purchase of R$ 1.000,00 in 3 instalments is
// three bills of the supplier (R$ 333,33, R$ 333,33, R$ 333,34) due a
// month apart, "1/3" to "3/3", sharing a group and the purchase's
// competence, made once for a form sent twice, and paid one by one; 49
// instalments are refused beside the field, nothing made.
func TestPortalInstalments(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	page := b.do("GET", "/portal/transactions"+unit+"&mes=2026-12", nil).Body.String()
	session := csrf(t, page)
	key := store.NewSecret(16)
	purchase := url.Values{"csrf": {session}, "type": {"out"}, "description": {"Compra de material"}, "value": {"1.000,00"}, "due_date": {"2026-12-10"},
		"installments": {"49"}, "contact": {"11444777000161"}, "form_key": {key}}
	if rec := b.do("POST", "/portal/transactions"+unit, purchase); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-installments">de 2 a 48 parcelas`) {
		t.Fatalf("49 instalments = %d\n%s", rec.Code, rec.Body)
	}
	purchase.Set("installments", "3")
	for range 2 {
		if rec := b.do("POST", "/portal/transactions"+unit, purchase); rec.Code != http.StatusSeeOther {
			t.Fatalf("the purchase = %d\n%s", rec.Code, rec.Body)
		}
	}
	bills := func() []store.EntrySummary {
		db, release := acquire(t, ds)
		defer release()
		all, err := db.EntrySummaries(context.Background(), 1, "2026-12-01", "2027-03-31", "out", 100)
		if err != nil {
			t.Fatal(err)
		}
		var out []store.EntrySummary
		for _, e := range all {
			if strings.HasPrefix(e.Description, "Compra de material") {
				out = append(out, e)
			}
		}
		return out
	}
	got := bills()
	want := []struct{ description, due, value string }{
		{"Compra de material 1/3", "2026-12-10", "333.33"}, {"Compra de material 2/3", "2027-01-10", "333.33"}, {"Compra de material 3/3", "2027-02-10", "333.34"}}
	if len(got) != 3 {
		t.Fatalf("%d bills, want 3: %+v", len(got), got)
	}
	for i, w := range want {
		if e := got[i]; e.Description != w.description || e.DueDate != w.due || e.Value.StringFixed(2) != w.value || e.Contact != "Alfa" ||
			e.Competence != "2026-12-10" || e.GroupToken == "" || e.GroupToken != got[0].GroupToken || e.Instalment != i+1 || e.Instalments != 3 {
			t.Errorf("bill %d: %+v", i+1, e)
		}
	}
	// The accountant's export shows the contact, the instalment and the
	// group.
	csv := b.do("GET", "/portal/transactions"+unit+"&mes=2027-01&formato=csv", nil).Body.String()
	if !strings.Contains(csv, "Despesa;Compra de material 2/3;;;10/12/2026;10/01/2027;;;2/3;"+got[0].GroupToken+";Alfa;11.444.777/0001-61;;;;;333,33") {
		t.Errorf("the export:\n%s", csv)
	}
	// Paid one by one.
	for i, e := range got[:2] {
		page := b.do("GET", "/portal/transactions"+unit+"&mes="+e.DueDate[:7], nil).Body.String()
		rec := b.do("POST", "/portal/transactions/"+e.Token+"/pay"+unit, url.Values{"csrf": {csrf(t, page)}, "type": {"out"},
			"pay_day": {e.DueDate}, "account": {fx.tokens["account1"]}})
		if rec.Code != http.StatusSeeOther {
			t.Fatalf("paying %d = %d\n%s", i+1, rec.Code, rec.Body)
		}
	}
	got = bills()
	if got[0].PayDay != "2026-12-10" || got[1].PayDay != "2027-01-10" || got[2].PayDay != "" {
		t.Fatalf("paid: %q %q %q", got[0].PayDay, got[1].PayDay, got[2].PayDay)
	}
	// Instalments on the dates typed, in order.
	dated := url.Values{"csrf": {session}, "type": {"in"}, "description": {"Projeto"}, "value": {"900,00"}, "due_date": {"2026-12-01"},
		"installments": {"2"}, "installment_dates": {"15/01/2027, 10/12/2026"}, "form_key": {store.NewSecret(16)}}
	if rec := b.do("POST", "/portal/transactions"+unit, dated); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-installment_dates">os vencimentos vão em ordem`) {
		t.Fatalf("dates out of order = %d\n%s", rec.Code, rec.Body)
	}
	dated.Set("installment_dates", "10/12/2026, 15/01/2027")
	if rec := b.do("POST", "/portal/transactions"+unit, dated); rec.Code != http.StatusSeeOther {
		t.Fatalf("dated instalments = %d\n%s", rec.Code, rec.Body)
	}
	db, release := acquire(t, ds)
	incomes, _ := db.EntrySummaries(context.Background(), 1, "2026-12-01", "2027-12-31", "in", 100)
	release()
	var dues []string
	for _, e := range incomes {
		if strings.HasPrefix(e.Description, "Projeto ") {
			dues = append(dues, e.Description+" "+e.DueDate+" "+e.Value.StringFixed(2))
		}
	}
	if strings.Join(dues, ", ") != "Projeto 1/2 2026-12-10 450.00, Projeto 2/2 2027-01-15 450.00" {
		t.Fatalf("the dated instalments: %v", dues)
	}
	// The group, listed from any instalment, and its open one cancelled.
	page = b.do("GET", "/portal/transactions/"+got[1].Token+unit, nil).Body.String()
	if !strings.Contains(page, "Parcela 2 de 3") || strings.Count(page, "</a> · ") != 3 || !strings.Contains(page, "paga em 10/12/2026") {
		t.Fatalf("the group on an instalment's page:\n%s", page)
	}
	if rec := b.do("POST", "/portal/transactions/"+got[1].Token+"/cancel-group"+unit, url.Values{"csrf": {session}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("cancel the group = %d\n%s", rec.Code, rec.Body)
	}
	if got := bills(); len(got) != 2 || got[1].Description != "Compra de material 2/3" {
		t.Fatalf("after the cancellation: %+v", got)
	}
}

// TestPortalRecurringBill: a supplier's rent of R$ 2.500,00 due on the
// 5th, repeating monthly 12 times, is made in the portal; the daily job
// makes each month's bill 10 days before it is due, once (the same day
// run twice, or a day of the past run again, makes nothing more; days
// down are caught up); stopped, it makes no more and keeps what it made.
func TestPortalRecurringBill(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	b := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	session := csrf(t, b.do("GET", "/portal/transactions"+unit, nil).Body.String())
	rent := url.Values{"csrf": {session}, "type": {"out"}, "description": {"Aluguel da loja"}, "value": {"2.500,00"}, "due_date": {"2026-12-05"},
		"contact": {"11444777000161"}, "repeat": {"1"}, "repeat_times": {"12"}, "repeat_until": {"2027-06-05"}, "form_key": {store.NewSecret(16)}}
	if rec := b.do("POST", "/portal/transactions"+unit, rent); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-repeat_times">diga quando a repetição termina`) {
		t.Fatalf("a count and an end date = %d\n%s", rec.Code, rec.Body)
	}
	rent.Del("repeat_until")
	if rec := b.do("POST", "/portal/transactions"+unit, rent); rec.Code != http.StatusSeeOther {
		t.Fatalf("the rent = %d\n%s", rec.Code, rec.Body)
	}
	runner := &jobs.Runner{Domains: ds, Log: slog.New(slog.DiscardHandler)}
	run := func(day string) {
		t.Helper()
		db, release := acquire(t, ds)
		defer release()
		d, _ := store.ParseDateISO(day)
		if _, err := runner.RunDay(context.Background(), db, d); err != nil {
			t.Fatal(err)
		}
	}
	rents := func() []store.EntrySummary {
		t.Helper()
		db, release := acquire(t, ds)
		defer release()
		all, err := db.EntrySummaries(context.Background(), 1, "2026-01-01", "2028-12-31", "out", 1000)
		if err != nil {
			t.Fatal(err)
		}
		var out []store.EntrySummary
		for _, e := range all {
			if e.Description == "Aluguel da loja" {
				if e.Value.StringFixed(2) != "2500.00" || e.Contact != "Alfa" || e.PayDay != "" {
					t.Errorf("an occurrence: %+v", e)
				}
				out = append(out, e)
			}
		}
		return out
	}
	dues := func() string {
		var d []string
		for _, e := range rents() {
			d = append(d, e.DueDate)
		}
		return strings.Join(d, " ")
	}
	run("2026-11-22")
	run("2026-12-25") // 11 days before 5 January: not yet
	if got := dues(); got != "2026-12-05" {
		t.Fatalf("before January's lead: %s", got)
	}
	run("2026-12-26")
	run("2026-12-26")
	run("2026-12-20")
	if got := dues(); got != "2026-12-05 2027-01-05" {
		t.Fatalf("the day run twice, and a past one: %s", got)
	}
	run("2027-03-01") // days down: February's and March's
	if got := dues(); got != "2026-12-05 2027-01-05 2027-02-05 2027-03-05" {
		t.Fatalf("caught up: %s", got)
	}
	run("2028-01-01") // the rest, 12 in all
	if got := rents(); len(got) != 12 || got[11].DueDate != "2027-11-05" {
		t.Fatalf("12 occurrences: %s", dues())
	}
	// Stopped: the page says what it made, and no more is made.
	first := rents()[0].Token
	page := b.do("GET", "/portal/transactions/"+first+unit, nil).Body.String()
	if !strings.Contains(page, "Repete todo mês, 12 vezes ao todo; 12 lançada(s) até agora") {
		t.Fatalf("the rent's page:\n%s", page)
	}
	if rec := b.do("POST", "/portal/transactions/"+first+"/stop"+unit, url.Values{"csrf": {session}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("stop = %d\n%s", rec.Code, rec.Body)
	}
	if page := b.do("GET", "/portal/transactions/"+first+unit, nil).Body.String(); !strings.Contains(page, "parada, com 12 lançada(s)") {
		t.Fatalf("the stopped rent's page:\n%s", page)
	}
	// A bill repeating every 2 months until a date, stopped after its
	// second: the rest is never made, the two made stay.
	internet := url.Values{"csrf": {session}, "type": {"out"}, "description": {"Manutenção"}, "value": {"100,00"}, "due_date": {"2028-02-10"},
		"repeat": {"2"}, "repeat_until": {"2028-12-31"}, "form_key": {store.NewSecret(16)}}
	if rec := b.do("POST", "/portal/transactions"+unit, internet); rec.Code != http.StatusSeeOther {
		t.Fatalf("the upkeep = %d\n%s", rec.Code, rec.Body)
	}
	upkeep := func() (out []string) {
		db, release := acquire(t, ds)
		defer release()
		all, _ := db.EntrySummaries(context.Background(), 1, "2028-01-01", "2029-12-31", "out", 1000)
		for _, e := range all {
			if e.Description == "Manutenção" {
				out = append(out, e.DueDate)
			}
		}
		return out
	}
	run("2028-04-01")
	if got := upkeep(); strings.Join(got, " ") != "2028-02-10 2028-04-10" {
		t.Fatalf("the upkeep before the stop: %v", got)
	}
	db, release := acquire(t, ds)
	all, _ := db.EntrySummaries(context.Background(), 1, "2028-02-10", "2028-02-10", "out", 10)
	release()
	if rec := b.do("POST", "/portal/transactions/"+all[0].Token+"/stop"+unit, url.Values{"csrf": {session}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("stop = %d\n%s", rec.Code, rec.Body)
	}
	run("2029-12-01")
	if got := upkeep(); strings.Join(got, " ") != "2028-02-10 2028-04-10" {
		t.Fatalf("after the stop: %v", got)
	}
}
