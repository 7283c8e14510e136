package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"fincom/render"
	"fincom/server/portal"
	"fincom/server/web"
	"fincom/store"
)

// browser is a cookie-keeping client of the handler, as a person's browser
// is of the portal.
type browser struct {
	t       *testing.T
	h       http.Handler
	cookies map[string]*http.Cookie
	addr    string // the client's address; 127.0.0.1 when empty
}

func (b *browser) do(method, path string, form url.Values) *httptest.ResponseRecorder {
	b.t.Helper()
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	req.RemoteAddr = "127.0.0.1:1234"
	if b.addr != "" {
		req.RemoteAddr = b.addr + ":1234"
	}
	for _, c := range b.cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, req)
	for _, c := range rec.Result().Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c
		}
	}
	return rec
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// csrf is the CSRF token of the page's forms.
func csrf(t *testing.T, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token in the page:\n%s", page)
	}
	return m[1]
}

// otherHex is the hex token with its first digit changed, so it is
// always a different token (a fixed "0" matched one token in 16).
func otherHex(token string) string {
	first := "0"
	if token[0] == '0' {
		first = "1"
	}
	return first + token[1:]
}

// TestPortalFlow signs a user in with the link the outbox holds, makes an
// access token on the profile page and calls the API with it, sees the
// month and the units, and signs out; forms without their CSRF token,
// spent or foreign links and stale sessions are refused.
func TestPortalFlow(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	ctx := context.Background()
	db, release := acquire(t, ds)
	if _, err := db.CreateUser(ctx, "Ana Souza", "ana@example.com"); err != nil {
		t.Fatal(err)
	}
	release()
	h := s.Handler()
	b := &browser{t: t, h: h, cookies: map[string]*http.Cookie{}}

	// Without a session the portal sends the browser to sign in.
	if rec := b.do("GET", "/portal/", nil); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/portal/login" {
		t.Fatalf("GET /portal/ without a session = %d %q", rec.Code, rec.Header().Get("Location"))
	}
	rec := b.do("GET", "/portal/login", nil)
	if rec.Code != 200 || rec.Header().Get("Content-Security-Policy") != render.PortalCSP || !strings.Contains(rec.Body.String(), `lang="pt-BR"`) {
		t.Fatalf("login page: %d %q", rec.Code, rec.Header().Get("Content-Security-Policy"))
	}
	token := csrf(t, rec.Body.String())

	// A sign-in without the form's token is refused.
	if rec := b.do("POST", "/portal/login", url.Values{"domain": {"acme"}, "email": {"ana@example.com"}}); rec.Code != http.StatusForbidden {
		t.Fatalf("sign-in without CSRF = %d", rec.Code)
	}
	// The same answer for a user, a stranger and an unknown domain.
	var answers []string
	for _, f := range []url.Values{
		{"domain": {"acme"}, "email": {"ana@example.com"}, "csrf": {token}},
		{"domain": {"acme"}, "email": {"ninguem@example.com"}, "csrf": {token}},
		{"domain": {"nope"}, "email": {"ana@example.com"}, "csrf": {token}},
	} {
		rec := b.do("POST", "/portal/login", f)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), portal.PortalLinkSent) {
			t.Fatalf("sign-in %v = %d", f, rec.Code)
		}
		answers = append(answers, strings.ReplaceAll(strings.ReplaceAll(rec.Body.String(), f.Get("email"), ""), f.Get("domain"), ""))
	}
	if answers[0] != answers[1] || answers[0] != answers[2] {
		t.Error("the sign-in answer tells whether the user exists")
	}
	// Asking again and again sends at most 3 live links, with the same
	// answer.
	for i := 0; i < 4; i++ {
		if rec := b.do("POST", "/portal/login", url.Values{"domain": {"acme"}, "email": {"ana@example.com"}, "csrf": {token}}); rec.Code != 200 {
			t.Fatalf("sign-in again = %d", rec.Code)
		}
	}

	// One message, to the user, with the link sealed: the file holds
	// none that signs in; the mailer (here, the server's keys) opens it.
	s.portal.WaitLoginMail()
	db, release = acquire(t, ds)
	mails, err := db.Outbox(ctx, store.EveryUnit, 10)
	release()
	if err != nil || len(mails) != 3 || mails[0].To != "ana@example.com" || mails[0].Kind != "portal_login" {
		t.Fatalf("outbox = %d mails %+v, %v", len(mails), mails, err)
	}
	if !strings.Contains(mails[0].Body, "https://fincom.test/portal/link?t="+store.SealedMark) || len(mails[0].Sealed) == 0 {
		t.Fatalf("the queued e-mail holds its link in clear: %q", mails[0].Body)
	}
	link := regexp.MustCompile(`https://fincom\.test(/portal/link\?t=\S+)`).FindStringSubmatch(s.portal.Unsealed(mails[0]).Body)
	if link == nil {
		t.Fatalf("no link in %q", mails[0].Body)
	}
	// Following the link spends nothing: the page asks to confirm.
	rec = b.do("GET", link[1], nil)
	if rec.Code != 200 {
		t.Fatalf("GET link = %d", rec.Code)
	}
	secret, _ := url.QueryUnescape(strings.TrimPrefix(link[1], "/portal/link?t="))
	if rec := b.do("POST", "/portal/link", url.Values{"t": {secret}}); rec.Code != http.StatusForbidden {
		t.Fatalf("link without CSRF = %d", rec.Code)
	}
	rec = b.do("POST", "/portal/link", url.Values{"t": {secret}, "csrf": {csrf(t, rec.Body.String())}})
	if rec.Code != http.StatusSeeOther || b.cookies[portal.SessionCookie] == nil {
		t.Fatalf("POST link = %d, cookies %v", rec.Code, b.cookies)
	}
	if c := b.cookies[portal.SessionCookie]; !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || !c.Secure || c.Path != "/portal/" {
		t.Errorf("session cookie %+v", c)
	}
	// The link is spent.
	other := &browser{t: t, h: h, cookies: map[string]*http.Cookie{}}
	page := other.do("GET", "/portal/login", nil).Body.String()
	if rec := other.do("POST", "/portal/link", url.Values{"t": {secret}, "csrf": {csrf(t, page)}}); rec.Code != http.StatusNotFound {
		t.Errorf("a spent link = %d", rec.Code)
	}

	// The month at a glance.
	rec = b.do("GET", "/portal/", nil)
	if body := rec.Body.String(); rec.Code != 200 || !strings.Contains(body, "<svg") || !strings.Contains(body, "Acme Matriz") || !strings.Contains(body, "Novembro de 2026") {
		t.Fatalf("home = %d\n%s", rec.Code, rec.Body.String())
	}
	session := csrf(t, rec.Body.String())

	// Profile: a token made without the session's CSRF token is refused.
	if rec := b.do("POST", "/portal/profile/tokens", url.Values{}); rec.Code != http.StatusForbidden {
		t.Fatalf("token without CSRF = %d", rec.Code)
	}
	if rec := b.do("POST", "/portal/profile/tokens", url.Values{"csrf": {otherHex(session)}}); rec.Code != http.StatusForbidden {
		t.Fatalf("token with a wrong CSRF = %d", rec.Code)
	}
	// A token needs a label.
	if rec := b.do("POST", "/portal/profile/tokens", url.Values{"csrf": {session}}); rec.Code != http.StatusBadRequest ||
		!strings.Contains(rec.Body.String(), "Dê ao token um nome") {
		t.Fatalf("token without a label = %d", rec.Code)
	}
	key := regexp.MustCompile(`name="form_key" value="([0-9a-f]{32})"`).FindStringSubmatch(b.do("GET", "/portal/profile", nil).Body.String())
	if key == nil {
		t.Fatal("the new token form has no one-time key")
	}
	form := url.Values{"csrf": {session}, "label": {"ERP da loja"}, "form_key": {key[1]}}
	rec = b.do("POST", "/portal/profile/tokens", form)
	m := regexp.MustCompile(`id="novo-token">(fca_acme_[0-9a-f]+)<`).FindStringSubmatch(rec.Body.String())
	if rec.Code != 200 || m == nil {
		t.Fatalf("new token = %d\n%s", rec.Code, rec.Body.String())
	}
	// The same form again (a reload of the page that showed it) makes no
	// second token and shows none.
	if again := b.do("POST", "/portal/profile/tokens", form).Body.String(); strings.Count(again, "ERP da loja") != 1 ||
		!strings.Contains(again, "nenhum outro foi criado") || strings.Contains(again, `id="novo-token"`) {
		t.Fatalf("the token form sent again:\n%s", again)
	}
	// It authenticates the API.
	api := httptest.NewRecorder()
	h.ServeHTTP(api, httptest.NewRequest("POST", web.Prefix+"/get_contacts", strings.NewReader(`{"access_token":"`+m[1]+`","unit_token":"`+fx.tokens["unitA"]+`"}`)))
	if api.Code != 200 {
		t.Fatalf("API with the portal's token = %d %s", api.Code, api.Body)
	}
	// Shown once: the profile lists it by hint only.
	if rec := b.do("GET", "/portal/profile", nil); strings.Contains(rec.Body.String(), m[1]) || !strings.Contains(rec.Body.String(), m[1][:15]) ||
		!strings.Contains(rec.Body.String(), "ERP da loja") {
		t.Error("the profile shows the token again, or not its hint")
	}
	// An order's page issues its charge, with the API's business code.
	order := orderWith(t, h)
	orderPath := "/portal/orders/" + order + "?unit=" + fx.tokens["unitA"]
	if rec := b.do("GET", "/portal/orders?unit="+fx.tokens["unitA"]+"&mes=2026-11", nil); rec.Code != 200 || !strings.Contains(rec.Body.String(), order) {
		t.Fatalf("orders page = %d", rec.Code)
	}
	if rec := b.do("GET", "/portal/orders?unit="+fx.tokens["unitA"]+"&mes=2025-01&codigo=pv-000001", nil); !strings.Contains(rec.Body.String(), order) {
		t.Error("the order is not found by its code")
	}
	if rec := b.do("GET", "/portal/orders?unit="+fx.tokens["unitA"]+"&mes=2025-01", nil); strings.Contains(rec.Body.String(), order) {
		t.Error("another month lists the order")
	}
	if rec := b.do("GET", "/portal/orders?unit="+fx.tokens["unitA"]+"&mes=2026-11&cliente=ALF", nil); !strings.Contains(rec.Body.String(), order) {
		t.Error("the order is not found by its customer's name")
	}
	if rec := b.do("GET", "/portal/orders?unit="+fx.tokens["unitA"]+"&mes=2026-11&cliente=Zeta", nil); strings.Contains(rec.Body.String(), order) {
		t.Error("another customer's name lists the order")
	}
	// Only the actions possible now are offered.
	if body := b.do("GET", orderPath, nil).Body.String(); !strings.Contains(body, "Gerar cobrança") || strings.Contains(body, "Cancelar cobrança") ||
		!strings.Contains(body, "Emitir nota") || strings.Contains(body, "Cancelar nota") {
		t.Errorf("an order without charge or invoice offers:\n%s", body)
	}
	if rec := b.do("POST", "/portal/orders/"+order+"/charge?unit="+fx.tokens["unitA"], url.Values{}); rec.Code != http.StatusForbidden {
		t.Fatalf("charge without CSRF = %d", rec.Code)
	}
	rec = b.do("POST", "/portal/orders/"+order+"/charge?unit="+fx.tokens["unitA"], url.Values{"csrf": {session}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("charge = %d\n%s", rec.Code, rec.Body.String())
	}
	rec = b.do("GET", rec.Header().Get("Location"), nil)
	if body := rec.Body.String(); !strings.Contains(body, "Cobrança gerada.") || !strings.Contains(body, "Em aberto") ||
		strings.Contains(body, "Gerar cobrança") || !strings.Contains(body, "Cancelar cobrança") {
		t.Fatalf("order after charging:\n%s", body)
	}
	// A refusal is said in Portuguese, with the API's status: the
	// invoice's cancel reason.
	rec = b.do("POST", "/portal/orders/"+order+"/cancel_invoice?unit="+fx.tokens["unitA"], url.Values{"csrf": {session}, "reason": {"curto"}})
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "O motivo do cancelamento precisa de 15 a 255 caracteres.") {
		t.Errorf("cancel invoice with a short reason = %d", rec.Code)
	}
	// From the sibling unit the order is not found.
	if rec := b.do("GET", strings.Replace(orderPath, fx.tokens["unitA"], fx.tokens["unitB"], 1), nil); rec.Code != http.StatusNotFound {
		t.Errorf("the order from another unit = %d", rec.Code)
	}
	if rec := b.do("POST", "/portal/orders/"+order+"/cancel_charge?unit="+fx.tokens["unitB"], url.Values{"csrf": {session}}); rec.Code == http.StatusSeeOther {
		t.Errorf("cancelled another unit's charge")
	}

	// An open expense is marked paid from the transactions page.
	entry := post(t, h, "/insert_expense", `{`+auth+`,"description":"Aluguel da sala","value":"1234.56","due_date":"2026-11-10"}`)["token"].(string)
	txPath := "/portal/transactions?unit=" + fx.tokens["unitA"] + "&mes=2026-11"
	if rec := b.do("GET", txPath, nil); !strings.Contains(rec.Body.String(), "Aluguel da sala") || !strings.Contains(rec.Body.String(), "R$ 1.234,56") {
		t.Fatalf("transactions page lacks the expense:\n%s", rec.Body.String())
	}
	if rec := b.do("GET", txPath+"&tipo=in", nil); strings.Contains(rec.Body.String(), "Aluguel da sala") {
		t.Error("the income filter lists an expense")
	}
	for period, want := range map[string]bool{"&de=2026-11-10&ate=2026-11-10": true, "&de=2026-11-11&ate=2026-12-31": false,
		"&de=2026-11-11&ate=2026-11-01": true /* out of order: the month */} {
		if rec := b.do("GET", txPath+period, nil); strings.Contains(rec.Body.String(), "Aluguel da sala") != want {
			t.Errorf("period %s: listed = %v", period, !want)
		}
	}
	pay := url.Values{"csrf": {session}, "type": {"out"}, "pay_day": {"2026-11-12"}, "account": {fx.tokens["account1"]}}
	bad := url.Values{"csrf": {session}, "type": {"out"}, "pay_day": {"12/11/2026"}, "account": {fx.tokens["account1"]}}
	if rec := b.do("POST", "/portal/transactions/"+entry+"/pay?unit="+fx.tokens["unitA"], bad); rec.Code != http.StatusBadRequest {
		t.Errorf("a bad pay day = %d", rec.Code)
	}
	// Bad input gets the API's 4xx, never a 500: an unknown account, an
	// unknown entry, an unknown type.
	for _, c := range []struct{ token, typ, account string }{
		{entry, "out", "nope"}, {"nope", "out", fx.tokens["account1"]}, {entry, "x", fx.tokens["account1"]},
	} {
		f := url.Values{"csrf": {session}, "type": {c.typ}, "pay_day": {"2026-11-12"}, "account": {c.account}}
		if rec := b.do("POST", "/portal/transactions/"+c.token+"/pay?unit="+fx.tokens["unitA"], f); rec.Code < 400 || rec.Code >= 500 {
			t.Errorf("pay %+v = %d", c, rec.Code)
		}
	}
	for _, action := range []string{"charge", "cancel_charge", "invoice"} {
		if rec := b.do("POST", "/portal/orders/nope/"+action+"?unit="+fx.tokens["unitA"], url.Values{"csrf": {session}}); rec.Code < 400 || rec.Code >= 500 {
			t.Errorf("%s of an unknown order = %d", action, rec.Code)
		}
	}
	if rec := b.do("POST", "/portal/statement/nope?unit="+fx.tokens["unitA"], url.Values{"csrf": {session}, "action": {"dismiss"}}); rec.Code < 400 || rec.Code >= 500 {
		t.Errorf("dismiss an unknown line = %d", rec.Code)
	}
	if rec := b.do("POST", "/portal/transactions/"+entry+"/pay?unit="+fx.tokens["unitA"]+"&mes=2026-11", pay); rec.Code != http.StatusSeeOther {
		t.Fatalf("pay = %d\n%s", rec.Code, rec.Body.String())
	}
	if rec := b.do("GET", txPath, nil); !strings.Contains(rec.Body.String(), "Pago em 12/11/2026") {
		t.Errorf("the expense is not paid on the page")
	}

	// Two statement lines no entry matches: one paired by hand with an
	// open expense of its amount, one dismissed.
	rent := post(t, h, "/insert_expense", `{`+auth+`,"description":"Conta de luz","value":"321.00","due_date":"2026-11-20"}`)["token"].(string)
	meta := `{` + auth + `,"id_token_bank_account":"{{account1}}"}`
	for _, l := range [][]byte{ofxSGML("P1", "20261101", "-321.00", "DEBITO CONTA"), ofxSGML("P2", "20261102", "-9.90", "TARIFA")} {
		if rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": l}); rec.Code != 200 {
			t.Fatalf("import: %d %s", rec.Code, rec.Body)
		}
	}
	rec = b.do("GET", "/portal/statement?unit="+fx.tokens["unitA"], nil)
	lines := regexp.MustCompile(`action="/portal/statement/([0-9a-f-]+)\?`).FindAllStringSubmatch(rec.Body.String(), -1)
	if len(lines) != 6 || !strings.Contains(rec.Body.String(), "TARIFA") { // three forms per line: pair, book, dismiss
		t.Fatalf("statement page: %d forms\n%s", len(lines), rec.Body.String())
	}
	first, second := lines[0][1], lines[3][1]
	// Each debit is offered expenses only, the one of its amount first.
	page = rec.Body.String()
	sel := page[strings.Index(page, `<select id="par-0"`):]
	sel = sel[:strings.Index(sel, "</select>")]
	opts := regexp.MustCompile(`<option value="([^"]+)"(?: selected)?>([^<]*)`).FindAllStringSubmatch(sel, -1)
	if len(opts) == 0 || opts[0][1] != "entry:"+rent || !strings.Contains(sel, `<option value="entry:`+rent+`" selected>`) {
		t.Fatalf("the debit of 321.00 is first offered %v", opts)
	}
	for _, o := range opts {
		if strings.HasPrefix(o[1], "charge:") || !strings.Contains(o[2], "-R$") {
			t.Errorf("a debit is offered %q", o[2])
		}
	}
	if !strings.Contains(rec.Body.String(), "-R$ 9,90") {
		t.Error("the statement page lacks the fee's amount")
	}
	for _, c := range []struct {
		line string
		form url.Values
	}{
		{first, url.Values{"csrf": {session}, "action": {"match"}, "pair": {"entry:" + rent}}},
		{second, url.Values{"csrf": {session}, "action": {"dismiss"}}},
	} {
		if rec := b.do("POST", "/portal/statement/"+c.line+"?unit="+fx.tokens["unitA"], c.form); rec.Code != http.StatusSeeOther {
			t.Fatalf("reconcile %v = %d\n%s", c.form, rec.Code, rec.Body.String())
		}
	}
	if rec := b.do("GET", "/portal/statement?unit="+fx.tokens["unitA"], nil); !strings.Contains(rec.Body.String(), "Nenhuma linha") {
		t.Error("lines still wait after pairing and dismissing")
	}
	// A credit far from the charge's due date waits, and is paired with
	// the order's open charge by hand: the charge is paid.
	if rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": ofxSGML("P3", "20261103", "1500.00", "PIX RECEBIDO")}); rec.Code != 200 {
		t.Fatalf("import: %d %s", rec.Code, rec.Body)
	}
	rec = b.do("GET", "/portal/statement?unit="+fx.tokens["unitA"], nil)
	line := regexp.MustCompile(`action="/portal/statement/([0-9a-f-]+)\?`).FindStringSubmatch(rec.Body.String())
	if line == nil || !strings.Contains(rec.Body.String(), `value="charge:`+order+`:1"`) {
		t.Fatalf("the credit waits with no charge to pair:\n%s", rec.Body.String())
	}
	if rec := b.do("POST", "/portal/statement/"+line[1]+"?unit="+fx.tokens["unitA"], url.Values{"csrf": {session}, "action": {"match"}, "pair": {"charge:" + order + ":1"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("pair with the charge = %d\n%s", rec.Code, rec.Body.String())
	}
	if rec := b.do("GET", orderPath, nil); !strings.Contains(rec.Body.String(), "Cobrança: <strong>Pago</strong>") {
		t.Error("the charge paired with the statement line is not paid")
	}
	// Pairing with nothing is refused in Portuguese.
	if rec := doMultipart(h, "/import_ofx", meta, map[string][]byte{"x.ofx": ofxSGML("P4", "20261104", "77.00", "TED")}); rec.Code != 200 {
		t.Fatalf("import: %d", rec.Code)
	}
	rec = b.do("GET", "/portal/statement?unit="+fx.tokens["unitA"], nil)
	line = regexp.MustCompile(`action="/portal/statement/([0-9a-f-]+)\?`).FindStringSubmatch(rec.Body.String())
	if rec := b.do("POST", "/portal/statement/"+line[1]+"?unit="+fx.tokens["unitA"], url.Values{"csrf": {session}, "action": {"match"}}); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "Escolha com o que conciliar a linha.") {
		t.Errorf("pairing with nothing = %d", rec.Code)
	}
	// The read-only lists.
	for path, want := range map[string]string{"/portal/outbox": "Seu link de acesso", "/portal/audit": "Ana Souza &lt;ana@example.com&gt;",
		"/portal/webhooks": "Avisos enviados a outros sistemas"} {
		if rec := b.do("GET", path+"?unit="+fx.tokens["unitA"], nil); rec.Code != 200 || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s lacks %q", path, want)
		}
	}

	// The units, with their Token API.
	if rec := b.do("GET", "/portal/units", nil); !strings.Contains(rec.Body.String(), fx.tokens["unitA"]) {
		t.Error("the units page lacks the unit's token")
	}

	// The audit log names the user for the sign-in and the token.
	db, release = acquire(t, ds)
	entries, _, err := db.AuditLog(ctx, store.EveryUnit, "", store.Page{Number: 1, Size: 50})
	release()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if e.Actor == "user:Ana Souza <ana@example.com>" {
			seen[e.Route] = true
		}
	}
	if !seen["portal:sign-in"] || !seen["portal:/profile/tokens"] {
		t.Errorf("audit entries of the user: %v", seen)
	}

	// Sign-out ends the session on the server: the old cookie is refused.
	old := *b.cookies[portal.SessionCookie]
	if rec := b.do("POST", "/portal/logout", url.Values{"csrf": {session}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("sign-out = %d", rec.Code)
	}
	b.cookies[portal.SessionCookie] = &old
	if rec := b.do("GET", "/portal/", nil); rec.Code != http.StatusSeeOther {
		t.Errorf("an ended session still opens the portal: %d", rec.Code)
	}
}

// TestPortalAssets: the style sheet and script are embedded; nothing else
// is served from the assets path.
func TestPortalAssets(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	for path, want := range map[string]int{"/portal/assets/portal.css": 200, "/portal/assets/portal_app.js": 200,
		"/portal/assets/portal.js": 404, "/portal/assets/..%2fportal.html": 404} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != want {
			t.Errorf("GET %s = %d, want %d", path, rec.Code, want)
		}
	}
}

// portalEnglish are words a person must not meet on a portal page: the
// API's, the code's and the providers' own names where Portuguese words
// belong (a technical code may follow its words, in parentheses).
var portalEnglish = regexp.MustCompile(`(?i)\b(webhooks?|provider_[abc]|bank \d|account \d|route not found|not found|token:\d|settings|invoice|charge)\b|Perfil · API|>cClassTrib|\b1 (autorizadas|canceladas|denegadas)\b`)

// parenthesized is a code in parentheses after its words.
var parenthesized = regexp.MustCompile(`\([^()]*\)`)

// unformatted are document numbers as no Brazilian writes them: a CNPJ or
// a CPF, a phone, a CEP in bare digits.
var unformatted = regexp.MustCompile(`(^|[^\d./-])(\d{14}|\d{11}|\d{10})([^\d./-]|$)|CEP \d{8}`)

// visibleText is the text of a page a person reads: its text nodes
// outside code, scripts and styles (attributes, hidden fields and copied
// codes are not read as words).
func visibleText(page string) string {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return page
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "code" || n.Data == "script" || n.Data == "style" || n.Data == "pre" || n.Data == "textarea") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteString("\n")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return b.String()
}

// TestPortalSpeaksPortuguese visits every page of a unit with records of
// every kind: no English word of the code's or the API's, no document
// number unformatted; a mistyped address answers the portal's own page.
func TestPortalSpeaksPortuguese(t *testing.T) {
	t.Parallel()
	s, ds := newTestModeServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", withAddress)
	id, _ := chargedOrder(t, h)
	expense := post(t, h, "/insert_expense", `{`+auth+`,"description":"Aluguel","value":2500,"due_date":"2026-11-05"}`)["token"].(string)
	post(t, h, "/insert_webhook", `{`+auth+`,"url":"https://hooks.example.com/a","events":["*"]}`)
	b := signedIn(t, s, ds)
	unit := "unit=" + fx.tokens["unitA"]
	pages := []string{"/portal/", "/portal/units", "/portal/profile", "/portal/users", "/portal/orders", "/portal/orders/" + id, "/portal/overdue",
		"/portal/contacts", "/portal/contacts/" + fx.tokens["contact1"], "/portal/products", "/portal/products/" + fx.tokens["product1"],
		"/portal/contracts", "/portal/new-order", "/portal/import", "/portal/transactions", "/portal/transactions/" + expense,
		"/portal/statement", "/portal/dre", "/portal/inbox", "/portal/outbox", "/portal/webhooks", "/portal/audit", "/portal/settings", "/portal/no-such-page"}
	for _, page := range pages {
		rec := b.do("GET", page+"?"+unit, nil)
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") || (rec.Code != 200 && page != "/portal/no-such-page") {
			t.Errorf("%s: %d %s", page, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		text := visibleText(rec.Body.String())
		// A code in parentheses follows its words: it is not a word.
		for _, m := range portalEnglish.FindAllString(parenthesized.ReplaceAllString(text, ""), -1) {
			t.Errorf("%s says %q", page, m)
		}
		for _, m := range unformatted.FindAllString(text, -1) {
			t.Errorf("%s shows %q unformatted", page, strings.TrimSpace(m))
		}
	}
	if rec := b.do("GET", "/portal/no-such-page", nil); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "Página não encontrada") {
		t.Errorf("a mistyped address: %d %s", rec.Code, rec.Body.String())
	}
	// The audit log says what the API did in words, its route after them.
	audit := visibleText(b.do("GET", "/portal/audit?"+unit, nil).Body.String())
	for _, want := range []string{"Incluir despesa pela API (/insert_expense)", "Incluir aviso a sistema pela API (/insert_webhook)"} {
		if !strings.Contains(audit, want) {
			t.Errorf("the audit log does not say %q:\n%s", want, audit)
		}
	}
	// Every route that changes data has its words.
	for _, r := range s.routes {
		if _, ok := portal.APIWords(r.Path); r.Write && !ok {
			t.Errorf("%s has no words for the audit log", r.Path)
		}
	}
}
