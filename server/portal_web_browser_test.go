package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"fincom/server/needs"
	"fincom/server/web"
	"fincom/store"
)

// TestPortalWebInBrowser clicks through the portal in headless Chromium as a
// person would: signs in with the link from the outbox, opens the month,
// makes an access token (copied with its button) and calls the API with
// it, issues a charge from an order's page. On every page axe-core (npm,
// .ci/judges) must find no serious or critical violation, the page must
// not scroll sideways at 390 px, and its screenshots at 390 and 1366 px
// are kept (in FINCOM_SCREENSHOTS when set).
func TestPortalWebInBrowser(t *testing.T) {
	t.Parallel()
	browser, pageURL := chromium(t)
	now := fixedNow
	// Plain http on loopback: cookies without Secure, as behind no TLS.
	s, ds := newTestServerAt(t, &now, Config{Version: "test", PublicURL: "http://127.0.0.1"})
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	h := s.Handler()
	db, release := acquire(t, ds)
	if _, err := db.CreateUser(context.Background(), "Ana Souza", "ana@example.com"); err != nil {
		t.Fatal(err)
	}
	release()
	order := orderWith(t, h)
	bill := post(t, h, "/insert_expense", `{`+auth+`,"description":"Aluguel","value":"2500.00","due_date":"2026-11-28"}`)["token"].(string)
	// A receivable past its day, for "Em atraso".
	post(t, h, "/update_contact", withAddress)
	late := post(t, h, "/insert_sales_order", strings.Replace(serviceOrder, `"estimated_payment_date":"2026-11-30"`, `"estimated_payment_date":"2026-11-10"`, 1))
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+late["data"].(map[string]any)["id"].(string)+`"}`)
	post(t, h, "/insert_income", `{`+auth+`,"description":"Consultoria","value":"4200.00","due_date":"2026-11-10","pay_day":"2026-11-10","id_token_bank_account":"{{account1}}"}`)

	o := newOfficeBrowser(t, s, ds, ts.URL, 390, 1366)
	b := dialCDP(t, browser)
	b.call(t, "Browser.grantPermissions", map[string]any{"origin": ts.URL, "permissions": []string{"clipboardReadWrite", "clipboardSanitizedWrite"}})
	o.signIn(pageURL, "ana@example.com")
	p, open, judge := o.p, o.open, o.judge
	if got := p.eval(t, `document.querySelectorAll("svg rect").length > 0 && document.body.textContent.indexOf("R$ 4.200,00") >= 0`); got != true {
		t.Error("the month shows no bars or not the income")
	}
	judge("home")

	// Perfil e tokens: a token, copied with its button, that the API takes.
	open("/portal/profile", "Perfil")
	judge("profile")
	p.eval(t, `document.querySelector("#token-label").value = "Planilha do financeiro"`)
	p.eval(t, `setTimeout(() => document.querySelector("form[action='/portal/profile/tokens'] button").click(), 0)`)
	p.waitFor(t, `document.querySelector("#novo-token") !== null`)
	token := p.eval(t, `document.querySelector("#novo-token").textContent`).(string)
	p.eval(t, `document.querySelector("[data-copy='novo-token']").click()`)
	p.waitFor(t, `document.querySelector("[data-copy='novo-token']").textContent === "Copiado"`)
	if clip := p.eval(t, `navigator.clipboard.readText()`); clip != token {
		t.Errorf("clipboard %q, want the token %q", clip, token)
	}
	res, err := http.Post(ts.URL+web.Prefix+"/get_contacts", "application/json", strings.NewReader(`{"access_token":"`+token+`","unit_token":"`+fx.tokens["unitA"]+`"}`))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("the API with the portal's token: %v %v", res, err)
	}
	res.Body.Close()

	// An order's page issues its charge.
	open("/portal/orders/"+order+"?unit="+fx.tokens["unitA"], "Pedido")
	judge("order")
	p.eval(t, `setTimeout(() => document.querySelector("form[action*='/charge?'] button").click(), 0)`)
	p.waitFor(t, `document.querySelector(".notice") !== null && document.querySelector(".notice").textContent === "Cobrança gerada."`)
	judge("order-charged")

	for _, pg := range []struct{ path, title, name string }{
		{"/portal/orders?unit=" + fx.tokens["unitA"], "Pedidos", "orders"},
		{"/portal/new-order?unit=" + fx.tokens["unitA"], "Novo pedido", "new-order"},
		{"/portal/contacts?unit=" + fx.tokens["unitA"], "Clientes e fornecedores", "contacts"},
		{"/portal/contacts/" + fx.tokens["contact1"] + "?unit=" + fx.tokens["unitA"], "Editar contato", "contact-edit"},
		{"/portal/products/" + fx.tokens["product1"] + "?unit=" + fx.tokens["unitA"], "Editar produto", "product-edit"},
		{"/portal/contracts?unit=" + fx.tokens["unitA"], "Contratos", "contracts"},
		{"/portal/dre?unit=" + fx.tokens["unitA"], "DRE", "dre"},
		{"/portal/transactions/" + bill + "?unit=" + fx.tokens["unitA"], "Editar lançamento", "entry-edit"},
		{"/portal/products?unit=" + fx.tokens["unitA"], "Produtos e serviços", "products"},
		{"/portal/overdue?unit=" + fx.tokens["unitA"], "Em atraso", "overdue"},
		{"/portal/transactions?unit=" + fx.tokens["unitA"], "Lançamentos", "transactions"},
		{"/portal/import?unit=" + fx.tokens["unitA"], "Importar", "import"},
		{"/portal/statement?unit=" + fx.tokens["unitA"], "Conciliação", "statement"},
		{"/portal/inbox?unit=" + fx.tokens["unitA"], "NF-e recebidas", "inbox"},
		{"/portal/units", "Unidades", "units"},
		{"/portal/outbox", "E-mails", "outbox"},
		{"/portal/webhooks", "Avisos a sistemas", "webhooks"},
		{"/portal/audit", "Registro", "audit"},
		{"/portal/users", "Usuários", "users"},
	} {
		open(pg.path, pg.title)
		judge(pg.name)
	}
	// Sign-out returns to the sign-in page.
	p.eval(t, `setTimeout(() => document.querySelector("form[action='/portal/logout'] button").click(), 0)`)
	p.waitFor(t, `document.title.indexOf("Entrar") >= 0 && document.querySelector(".notice") !== null`)
}

// officeBrowser drives the portal in headless Chromium as a person does,
// and judges each page: axe-core (npm, .ci/judges) must find no serious or
// critical violation, the page must not scroll sideways at 390 px, and
// its screenshots at each width are kept (in FINCOM_SCREENSHOTS when set,
// to be looked at).
type officeBrowser struct {
	t      *testing.T
	s      *Server
	ds     *store.Domains
	p      *cdp
	base   string
	shots  string
	axe    []byte
	widths []int
}

// newOfficeBrowser is a browser of the portal at base (s's handler),
// judging pages at widths; skipped where axe-core is not installed.
func newOfficeBrowser(t *testing.T, s *Server, ds *store.Domains, base string, widths ...int) *officeBrowser {
	t.Helper()
	needs.Outside(t)
	axe, err := os.ReadFile(filepath.Join(needs.Judges(t), "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		needs.Missing(t, "axe-core is not installed", needs.JudgesInstall)
	}
	o := &officeBrowser{t: t, s: s, ds: ds, base: base, shots: t.TempDir(), axe: axe, widths: widths}
	if dir := os.Getenv("FINCOM_SCREENSHOTS"); dir != "" {
		o.shots = dir
	}
	return o
}

// width sets the page's width (a phone's below 500 px).
func (o *officeBrowser) width(w int) {
	o.p.call(o.t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": w, "height": 900, "deviceScaleFactor": 1, "mobile": w < 500})
}

// open navigates to path and waits for a page whose title holds title.
func (o *officeBrowser) open(path, title string) {
	o.t.Helper()
	o.p.call(o.t, "Page.navigate", map[string]any{"url": o.base + path})
	o.p.waitFor(o.t, `document.readyState === "complete" && document.title.indexOf(`+jsString(title)+`) >= 0`)
}

// submit runs js (filling a form) and then clicks selector after the
// evaluation returns: an evaluation the navigation overtakes fails
// ("Inspected target navigated or closed"), as seen under a loaded
// machine.
func (o *officeBrowser) submit(js, selector string) {
	o.t.Helper()
	o.p.eval(o.t, js+`; setTimeout(() => document.querySelector(`+jsString(selector)+`).click(), 0)`)
}

// phoneCheck says what of a page does not fit a phone's 390 px ("" all
// does): an element wider than the screen or past its right edge, a box
// that scrolls sideways, a list row's amount or action out of view, a
// menu that is not one button.
const phoneCheck = `(() => {
  const out = [];
  const seen = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const name = (e) => e.tagName + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.split(" ").join(".") : "");
  for (const e of document.querySelectorAll("body *")) {
    if (!seen(e)) continue;
    const r = e.getBoundingClientRect(), st = getComputedStyle(e);
    if (r.right > 391 || r.left < -1) out.push("past the screen: " + name(e));
    if ((st.overflowX === "auto" || st.overflowX === "scroll") && e.scrollWidth > e.clientWidth + 1) out.push("scrolls sideways: " + name(e));
  }
  for (const c of document.querySelectorAll("tbody td.num, tbody td button, tbody td a")) {
    if (!seen(c)) continue;
    const r = c.getBoundingClientRect();
    if (r.right > 391 || r.left < 0) out.push("a row's amount or action out of view: " + name(c));
  }
  const wide = document.querySelector("nav.wide"), menu = document.querySelector(".menu summary");
  if (wide && seen(wide)) out.push("the menu is a list, not one button");
  if (wide && !(menu && seen(menu))) out.push("no menu button");
  return out.slice(0, 6).join("; ");
})()`

// judge runs axe-core and the 390 px check on the page at each width,
// and keeps its screenshots.
func (o *officeBrowser) judge(name string) {
	t, p := o.t, o.p
	t.Helper()
	for _, w := range o.widths {
		o.width(w)
		time.Sleep(100 * time.Millisecond)
		if w == 390 {
			if sw := p.eval(t, `document.documentElement.scrollWidth`); sw.(float64) > 390 {
				wide := p.eval(t, `Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > 391 && !e.closest(".scroll")).slice(0, 8).map(e => e.tagName + "." + e.className).join(" ")`)
				t.Errorf("%s scrolls sideways at 390 px: %v px wide (%v)", name, sw, wide)
			}
			// As a phone: nothing wider than the screen, nothing in a box
			// scrolled sideways (a list is cards), every row's amounts and
			// actions in view, the menu one button.
			if bad := p.eval(t, phoneCheck); bad != "" {
				t.Errorf("%s at 390 px: %v", name, bad)
			}
		}
		shot := p.call(t, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true})
		var sc struct{ Data string }
		json.Unmarshal(shot, &sc)
		raw, _ := base64.StdEncoding.DecodeString(sc.Data)
		if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
			t.Fatalf("%s screenshot: %v", name, err)
		}
		os.WriteFile(filepath.Join(o.shots, "portal-"+name+"-"+strconv.Itoa(w)+".png"), raw, 0o644)
		p.eval(t, string(o.axe))
		got := p.eval(t, `axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => v.id + ": " + v.nodes.map(n => n.target.join(" ")).join(", "))))`)
		if got != "[]" {
			t.Errorf("%s at %d px, axe-core: %v", name, w, got)
		}
	}
	o.width(o.widths[len(o.widths)-1])
}

// signIn opens the page target and signs in as email: the form, then the
// link from the outbox, then its button, landing on the month.
func (o *officeBrowser) signIn(pageURL, email string) {
	t := o.t
	t.Helper()
	o.p = dialCDP(t, pageURL)
	o.p.call(t, "Page.enable", map[string]any{})
	o.p.call(t, "Emulation.setFocusEmulationEnabled", map[string]any{"enabled": true})
	o.width(o.widths[len(o.widths)-1])
	o.open("/portal/login", "Entrar")
	o.judge("login")
	o.submit(`document.querySelector("#domain").value = "acme"; document.querySelector("#email").value = `+jsString(email), "form button")
	o.p.waitFor(t, `document.querySelector(".notice") !== null`)
	o.s.portal.WaitLoginMail()
	db, release := acquire(t, o.ds)
	mails, _ := db.Outbox(context.Background(), store.EveryUnit, 5)
	release()
	if len(mails) == 0 {
		t.Fatal("no sign-in e-mail")
	}
	link := regexp.MustCompile(`http://127\.0\.0\.1(/portal/link\?t=\S+)`).FindStringSubmatch(o.s.portal.Unsealed(mails[0]).Body)
	if link == nil {
		t.Fatalf("no link in %q", mails[0].Body)
	}
	o.open(link[1], "Entrar")
	o.submit("", "form button")
	o.p.waitFor(t, `document.title.indexOf("Visão do mês") >= 0 && document.readyState === "complete"`)
}

// jsString quotes s for JavaScript.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
