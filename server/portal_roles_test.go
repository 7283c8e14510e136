package server

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"fincom/server/settings"
	"fincom/store"
)

// contactForm is a valid new contact of the portal's form.
func contactForm(csrf string) url.Values {
	return url.Values{"csrf": {csrf}, "type": {"legal"}, "register": {"45.789.123/0001-91"}, "name": {"Comercial Horizonte Ltda"},
		"email": {"fin@horizonte.com.br"}, "zip": {"01310-100"}, "address": {"Avenida Paulista"}, "number": {"1000"},
		"district": {"Bela Vista"}, "city": {"São Paulo"}, "state": {"sp"}}
}

// portalToken makes an access token on the profile page and returns it.
func portalToken(t *testing.T, b *browser, label string) string {
	t.Helper()
	page := b.do("GET", "/portal/profile", nil).Body.String()
	rec := b.do("POST", "/portal/profile/tokens", url.Values{"csrf": {csrf(t, page)}, "label": {label}})
	m := regexp.MustCompile(`id="novo-token">(fca_acme_[0-9a-f]+)<`).FindStringSubmatch(rec.Body.String())
	if rec.Code != 200 || m == nil {
		t.Fatalf("new token = %d\n%s", rec.Code, rec.Body.String())
	}
	return m[1]
}

// TestPortalAccountantReadsOnly: an accountant given unit A sees only it,
// changes nothing (its forms are not shown, and sent anyway are refused
// before anything is saved), downloads the month's package and exports,
// and the token it makes reads the API and is refused its writes.
func TestPortalAccountantReadsOnly(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedInAs(t, s, ds, "Caio Contador", "caio@contabil.com.br", store.RoleAccountant, fx.tokens["unitA"])
	unitA, unitB := "?unit="+fx.tokens["unitA"], "?unit="+fx.tokens["unitB"]

	units := b.do("GET", "/portal/units", nil).Body.String()
	if !strings.Contains(units, "Acme Matriz") || strings.Contains(units, "Acme Filial") || strings.Contains(units, fx.tokens["unitB"]) {
		t.Fatalf("the units page shows a unit not given:\n%s", units)
	}
	if home := b.do("GET", "/portal/"+unitB, nil).Body.String(); strings.Contains(home, "Acme Filial") {
		t.Fatal("a unit not given is shown by its token")
	}
	contacts := b.do("GET", "/portal/contacts"+unitA, nil).Body.String()
	if strings.Contains(contacts, `action="/portal/contacts?`) || strings.Contains(contacts, "Novo cliente") ||
		strings.Contains(contacts, `href="/portal/users"`) || !strings.Contains(contacts, "Contador (só leitura)") {
		t.Fatalf("the accountant is offered a change, or not told its role:\n%s", contacts)
	}
	session := csrf(t, contacts)
	for _, form := range []struct {
		path string
		form url.Values
	}{
		{"/portal/contacts" + unitA, contactForm(session)},
		{"/portal/transactions" + unitA, url.Values{"csrf": {session}, "type": {"out"}, "description": {"Aluguel"}, "value": {"100,00"}}},
		{"/portal/new-order" + unitA, url.Values{"csrf": {session}}},
		{"/portal/import/return" + unitA, url.Values{"csrf": {session}}},
		{"/portal/settings/people" + unitA, url.Values{"csrf": {session}, "name": {"Eu"}, "email": {"eu@contabil.com.br"}, "role": {"owner"}}},
		{"/portal/settings/people/role" + unitA, url.Values{"csrf": {session}, "email": {"caio@contabil.com.br"}, "role": {"owner"}}},
	} {
		rec := b.do("POST", form.path, form.form)
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "não permite esta alteração") {
			t.Errorf("POST %s as accountant = %d\n%s", form.path, rec.Code, rec.Body.String())
		}
	}
	if rec := b.do("GET", "/portal/users", nil); rec.Code != http.StatusForbidden {
		t.Errorf("the users page for an accountant = %d", rec.Code)
	}
	if rec := do(h, "POST", "/get_contacts", `{"access_token":"{{access}}","unit_token":"{{unitA}}","search":"Horizonte"}`); strings.Contains(rec.Body.String(), "Horizonte") {
		t.Fatalf("a refused form saved a contact: %s", rec.Body)
	}
	// What an accountant is for: the package and the exports.
	rec := b.do("GET", "/portal/accountant"+unitA+"&mes=2026-11", nil)
	if zr, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len())); rec.Code != 200 || err != nil || len(zr.File) == 0 {
		t.Fatalf("the package = %d %v", rec.Code, err)
	}
	if rec := b.do("GET", "/portal/transactions"+unitA+"&mes=2026-11&formato=xlsx", nil); rec.Code != 200 || rec.Header().Get("Content-Type") == "" ||
		!bytes.HasPrefix(rec.Body.Bytes(), []byte("PK")) {
		t.Fatalf("the entries' spreadsheet = %d", rec.Code)
	}
	// Its token reads and is refused writes.
	token := portalToken(t, b, "Planilhas do escritório")
	read := do(h, "POST", "/get_contacts", `{"access_token":"`+token+`","unit_token":"{{unitA}}"}`)
	write := do(h, "POST", "/insert_contact", `{"access_token":"`+token+`","unit_token":"{{unitA}}","type":"legal","register":"45789123000191","social_reason":"Horizonte"}`)
	other := do(h, "POST", "/get_contacts", `{"access_token":"`+token+`","unit_token":"{{unitB}}"}`)
	if read.Code != 200 || write.Code != 403 || other.Code != 404 {
		t.Fatalf("the accountant's token: read %d, write %d %s, unit not given %d", read.Code, write.Code, write.Body, other.Code)
	}
	// The profile lists its own tokens only, not the operator's.
	if page := b.do("GET", "/portal/profile", nil).Body.String(); !strings.Contains(page, "Planilhas do escritório") ||
		strings.Contains(page, fx.tokens["access"][:15]) || !strings.Contains(page, "Seus tokens de acesso") {
		t.Fatalf("the accountant's profile:\n%s", page)
	}
}

// TestPortalOwnerManagesUsers: finance changes its area and not users or
// tokens; an owner of every unit adds users, changes their roles (each
// change in the audit log under the owner) and cannot leave the domain
// without an owner.
func TestPortalOwnerManagesUsers(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	fin := signedInAs(t, s, ds, "Fábio Financeiro", "fabio@acme.com.br", store.RoleFinance, "")
	page := fin.do("GET", "/portal/contacts?unit="+fx.tokens["unitA"], nil).Body.String()
	if rec := fin.do("POST", "/portal/contacts?unit="+fx.tokens["unitA"], contactForm(csrf(t, page))); rec.Code != http.StatusSeeOther {
		t.Fatalf("finance saving a contact = %d\n%s", rec.Code, rec.Body)
	}
	if rec := fin.do("GET", "/portal/users", nil); rec.Code != http.StatusForbidden {
		t.Fatalf("the users page for finance = %d", rec.Code)
	}
	if rec := fin.do("POST", "/portal/settings/people/role?unit="+fx.tokens["unitA"], url.Values{"csrf": {csrf(t, page)}, "email": {"fabio@acme.com.br"},
		"role": {"owner"}}); rec.Code != http.StatusForbidden {
		t.Fatalf("finance making itself owner = %d", rec.Code)
	}
	// Finance sees and revokes only its own tokens.
	if rec := fin.do("POST", "/portal/profile/tokens/revoke", url.Values{"csrf": {csrf(t, page)}, "id": {"1"}}); !strings.Contains(rec.Body.String(), "já estava revogado ou não existe") {
		t.Fatalf("finance revoked the operator's token:\n%s", rec.Body)
	}
	if rec := do(s.Handler(), "POST", "/get_contacts", `{"access_token":"{{access}}","unit_token":"{{unitA}}"}`); rec.Code != 200 {
		t.Fatalf("the operator's token after finance's try = %d", rec.Code)
	}

	owner := signedIn(t, s, ds)
	page = owner.do("GET", "/portal/users", nil).Body.String()
	if !strings.Contains(page, "Fábio Financeiro") || !strings.Contains(page, "Financeiro · todas as unidades") {
		t.Fatalf("the users page:\n%s", page)
	}
	session := csrf(t, page)
	// People are invited in each unit's Configurações, which the page
	// links.
	if !strings.Contains(page, `href="/portal/settings?unit=`+fx.tokens["unitB"]+`#pessoas"`) {
		t.Fatalf("the users page does not lead to the units' people:\n%s", page)
	}
	unitB := "?unit=" + fx.tokens["unitB"]
	rec := owner.do("POST", "/portal/settings/people"+unitB, url.Values{"csrf": {session}, "name": {"Dora Vendas"}, "email": {"dora@acme.com.br"},
		"role": {"sales"}})
	if rec.Code != 200 || !strings.Contains(owner.do("GET", "/portal/users", nil).Body.String(), "Vendas · unidade Acme Filial") {
		t.Fatalf("a new user = %d\n%s", rec.Code, rec.Body)
	}
	for _, bad := range []url.Values{
		{"csrf": {session}, "name": {""}, "email": {"x@acme.com.br"}, "role": {"sales"}},
		{"csrf": {session}, "name": {"X"}, "email": {"x@acme"}, "role": {"sales"}},
		{"csrf": {session}, "name": {"X"}, "email": {"x@acme.com.br"}, "role": {"boss"}},
	} {
		if rec := owner.do("POST", "/portal/settings/people"+unitB, bad); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "Nada foi salvo") {
			t.Errorf("user %v = %d", bad, rec.Code)
		}
	}
	role := func(email, role, unit string) *httptest.ResponseRecorder {
		return owner.do("POST", "/portal/settings/people/role?unit="+fx.tokens[unit], url.Values{"csrf": {session}, "email": {email}, "role": {role}})
	}
	rec = role("fabio@acme.com.br", "accountant", "unitA")
	if rec.Code != http.StatusSeeOther || !strings.Contains(owner.do("GET", "/portal/users", nil).Body.String(), "Contador (só leitura) · unidade Acme Matriz") {
		t.Fatalf("a role changed = %d\n%s", rec.Code, rec.Body)
	}
	// Finance is now an accountant on unit A, at its next page.
	if rec := fin.do("POST", "/portal/contacts?unit="+fx.tokens["unitA"], contactForm(csrf(t, page))); rec.Code != http.StatusForbidden {
		t.Fatalf("a former finance user saving a contact = %d", rec.Code)
	}
	// The fixture's Ana Lima and Bia own every unit: Ana may stop owning
	// unit A, then Bia, the last owner of every unit, may not.
	if rec := role("ana@acme.com.br", "sales", "unitA"); rec.Code != http.StatusSeeOther {
		t.Fatalf("Ana to sales = %d\n%s", rec.Code, rec.Body)
	}
	db, release := acquire(t, ds)
	_, err := settings.SetRole(context.Background(), db, "ana@acme.com.br", store.RoleSales, 0)
	release()
	if err != nil {
		t.Fatal(err)
	}
	rec = role("bia@example.com", "none", "unitA")
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "sem um proprietário") {
		t.Fatalf("the last owner left = %d\n%s", rec.Code, rec.Body)
	}
	db, release = acquire(t, ds)
	log, _, _ := db.AuditLog(context.Background(), store.EveryUnit, "", store.Page{Number: 1, Size: 50})
	release()
	n := 0
	var records []string
	for _, e := range log {
		if e.Route == "portal:/settings/people/role" && e.Actor == "user:Bia <bia@example.com>" {
			n++
			records = append(records, e.Record.String)
		}
	}
	if n != 2 {
		t.Fatalf("%d role changes audited under the owner, want 2: %+v", n, log)
	}
	// Each names the user, the unit and the role before and after.
	want := []string{"user ana@acme.com.br · unit " + fx.tokens["unitA"] + " · role owner → sales",
		"user fabio@acme.com.br · unit " + fx.tokens["unitA"] + " · role finance → accountant"}
	if strings.Join(records, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the role changes are audited as\n%s\nwant\n%s", strings.Join(records, "\n"), strings.Join(want, "\n"))
	}
}

// TestPortalFormsFollowTheAPIRoles walks every form the portal takes with
// a user of each role on unit A: each form's action is an API write route
// (or the user's own, or the domain's users), and a form the role may not
// send through the API of the same action is refused before anything is
// written. What a new order asks with it (its charge, its invoice) is
// sales.Create's to allow (TestPortalSellerIssuesNoInvoice, sales'
// TestCreate).
func TestPortalFormsFollowTheAPIRoles(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	apiWrites := map[string]bool{}
	for _, rt := range s.routes {
		apiWrites[rt.Path] = rt.Write
	}
	users := map[store.Role]*browser{}
	for _, role := range store.Roles {
		users[role] = signedInAs(t, s, ds, "Pessoa "+string(role), string(role)+"@acme.com.br", role, fx.tokens["unitA"])
	}
	audited := func() int {
		db, release := acquire(t, ds)
		defer release()
		_, n, err := db.AuditLog(context.Background(), store.EveryUnit, "", store.Page{Number: 1, Size: 1})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	forms, sent := s.portal.Forms(), 0
	if len(forms) < 25 {
		t.Fatalf("only %d forms", len(forms))
	}
	for _, f := range forms {
		if f.Act != "own" && f.Act != "owner" && !apiWrites[f.Act] {
			t.Errorf("%s acts as %s, which is no API write route", f.Path, f.Act)
		}
		if f.Path == "/portal/logout" {
			continue // it ends the user's own session, as any user may
		}
		for _, role := range store.Roles {
			b := users[role]
			session := csrf(t, b.do("GET", "/portal/profile", nil).Body.String())
			may := f.Act == "own" || f.Act == "owner" && role == store.RoleOwner || f.Act != "owner" && s.portal.MayAct(role, f.Act)
			before := audited()
			rec := b.do("POST", strings.ReplaceAll(f.Path, ":token", "x")+"?unit="+fx.tokens["unitA"], url.Values{"csrf": {session}})
			sent++
			refused := rec.Code == http.StatusForbidden && strings.Contains(rec.Body.String(), "não permite esta alteração")
			if refused == may {
				t.Errorf("%s as %s: %d, want refused: %v", f.Path, role, rec.Code, !may)
			}
			if refused && audited() != before {
				t.Errorf("%s as %s: refused, yet something was written", f.Path, role)
			}
		}
	}
	t.Logf("%d forms sent", sent)
}

// TestPortalSellerIssuesNoInvoice: a seller makes an order and its charge
// in the portal, as the API lets it, and is neither offered nor allowed
// its invoice (/generate_nf refuses sales): the order that asks for one
// is refused whole, nothing saved.
func TestPortalSellerIssuesNoInvoice(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	b := signedInAs(t, s, ds, "Sílvia Vendas", "silvia@acme.com.br", store.RoleSales, fx.tokens["unitA"])
	path := "/portal/new-order?unit=" + fx.tokens["unitA"]
	page := b.do("GET", path, nil).Body.String()
	if strings.Contains(page, `name="issue"`) || !strings.Contains(page, `name="charge"`) {
		t.Fatalf("the seller's form offers an invoice, or no charge:\n%s", page)
	}
	form := url.Values{"csrf": {csrf(t, page)}, "contact": {fx.tokens["contact2"]}, "item": {fx.tokens["product1"]}, "quantity": {"10"},
		"date": {"2026-12-10"}, "category": {fx.tokens["category1"]}, "method": {payBoleto}, "provider": {"provider_a"}, "account": {fx.tokens["account1"]},
		"installments": {"1"}, "invoice": {"nfe"}, "charge": {"1"}, "issue": {"1"}}
	orders := func() int {
		return len(post(t, h, "/list_sales_orders", `{`+auth+`,"date_from":"2026-01-01","date_to":"2027-12-31"}`)["data"].([]any))
	}
	before := orders()
	if rec := b.do("POST", path, form); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "Seu papel nesta unidade (Vendas) não permite") {
		t.Fatalf("a seller issuing an invoice = %d\n%s", rec.Code, rec.Body)
	}
	if orders() != before {
		t.Fatal("the refused order was saved")
	}
	form.Del("issue")
	if rec := b.do("POST", path, form); rec.Code != http.StatusSeeOther || orders() != before+1 {
		t.Fatalf("a seller's charged order = %d\n%s", rec.Code, rec.Body)
	}
}

// TestPortalPagesShowNoSiblingUnit: a user given unit B alone reads every
// page of the portal, and every list's export, and meets none of unit A's
// records: its orders, charges, entries, e-mails (recipients and subjects)
// and audit entries; a page of one of A's records is not found.
func TestPortalPagesShowNoSiblingUnit(t *testing.T) {
	t.Parallel()
	s, ds := newTestModeServer(t)
	h := s.Handler()
	leak := map[string]string{"unit A's token": fx.tokens["unitA"], "contact": fx.tokens["contact1"], "product": fx.tokens["product1"]}
	id, public := chargedOrder(t, h)
	leak["order"], leak["public token"] = id, public
	leak["expense"] = post(t, h, "/insert_expense", `{`+auth+`,"description":"Aluguel da matriz","value":2500,"due_date":"2026-11-05"}`)["token"].(string)
	leak["webhook"] = post(t, h, "/insert_webhook", `{`+auth+`,"url":"https://hooks.example.com/matriz","events":["*"]}`)["data"].(map[string]any)["token"].(string)
	signedInAs(t, s, ds, "Ana Matriz", "ana.matriz@acme.com.br", store.RoleFinance, fx.tokens["unitA"])
	db, release := acquire(t, ds)
	unitA, err := db.UnitByToken(context.Background(), fx.tokens["unitA"])
	if err != nil {
		t.Fatal(err)
	}
	mails, err := db.Outbox(context.Background(), unitA.ID, 50)
	release()
	if err != nil || len(mails) == 0 {
		t.Fatalf("unit A's mails: %v %v", mails, err)
	}
	for _, m := range mails {
		leak["mail to "+m.To] = m.To
	}
	b := signedInAs(t, s, ds, "Bruno Filial", "bruno@acme.com.br", store.RoleOwner, fx.tokens["unitB"])
	pages := []string{"/portal/", "/portal/units", "/portal/profile", "/portal/orders", "/portal/orders/" + id, "/portal/overdue",
		"/portal/contacts", "/portal/contacts/" + fx.tokens["contact1"], "/portal/products", "/portal/products/" + fx.tokens["product1"],
		"/portal/contracts", "/portal/new-order", "/portal/import", "/portal/transactions", "/portal/transactions/" + leak["expense"],
		"/portal/statement", "/portal/dre", "/portal/inbox", "/portal/outbox", "/portal/webhooks", "/portal/audit"}
	lists := []string{"/portal/orders", "/portal/overdue", "/portal/contacts", "/portal/products", "/portal/contracts", "/portal/transactions",
		"/portal/statement", "/portal/inbox", "/portal/outbox", "/portal/webhooks", "/portal/audit"}
	for _, l := range lists {
		pages = append(pages, l+"?formato=csv")
	}
	for _, page := range pages {
		sep := "?"
		if strings.Contains(page, "?") {
			sep = "&"
		}
		rec := b.do("GET", page+sep+"unit="+fx.tokens["unitA"], nil)
		if rec.Code >= 500 {
			t.Errorf("%s: %d", page, rec.Code)
		}
		for what, tok := range leak {
			if strings.Contains(rec.Body.String(), tok) {
				t.Errorf("%s shows unit A's %s to a user of unit B", page, what)
			}
		}
	}
}

// TestUserWithoutUnitSignsOut: a user held back from its every unit is
// signed out at once (its page sends it to sign in), gets no sign-in link
// and cannot spend one it had; the change is audited with the user, the
// unit and the role before and after, as every role change is.
func TestUserWithoutUnitSignsOut(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	ctx := context.Background()
	b := signedInAs(t, s, ds, "Caio Contador", "caio@contabil.com.br", store.RoleAccountant, fx.tokens["unitA"])
	if rec := b.do("GET", "/portal/audit", nil); rec.Code != 200 {
		t.Fatalf("the audit page before = %d", rec.Code)
	}
	db, release := acquire(t, ds)
	defer release()
	u, err := db.UserByEmail(ctx, "caio@contabil.com.br")
	if err != nil {
		t.Fatal(err)
	}
	unitA, err := db.UnitByToken(ctx, fx.tokens["unitA"])
	if err != nil {
		t.Fatal(err)
	}
	old, err := db.RequestLoginLink(ctx, "caio@contabil.com.br", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetUserRole(store.WithAudit(ctx, "cli", "cli:user set", u.Token, unitA.ID), u.ID, unitA.ID, ""); err != nil {
		t.Fatal(err)
	}
	if rec := b.do("GET", "/portal/audit", nil); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/portal/login" {
		t.Fatalf("the audit page of a user with no unit = %d %s\n%s", rec.Code, rec.Header().Get("Location"), rec.Body)
	}
	if _, err := db.RequestLoginLink(ctx, "caio@contabil.com.br", nil); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a sign-in link for a user with no unit: %v", err)
	}
	if _, _, err := db.StartSession(ctx, old); err == nil {
		t.Fatal("a user with no unit signed in with an old link")
	}
	// Given a unit again, it signs in anew: the old session stays ended.
	if err := db.SetUserRole(ctx, u.ID, unitA.ID, store.RoleFinance); err != nil {
		t.Fatal(err)
	}
	if rec := b.do("GET", "/portal/audit", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("an ended session came back = %d", rec.Code)
	}
	log, _, err := db.AuditLog(ctx, store.EveryUnit, "cli:user set", store.Page{Number: 1, Size: 5})
	if err != nil || len(log) != 1 {
		t.Fatalf("the CLI's role change in the audit log: %+v %v", log, err)
	}
	if got, want := log[0].Record.String, "user caio@contabil.com.br · unit "+fx.tokens["unitA"]+" · role accountant → none"; got != want {
		t.Fatalf("the role change is audited as %q, want %q", got, want)
	}
}
