package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"fincom/server/needs"
	"fincom/server/web"
)

// cdp is a minimal Chrome DevTools Protocol client over one WebSocket.
type cdp struct {
	ws *websocket.Conn
	id int
}

func dialCDP(t *testing.T, url string) *cdp {
	t.Helper()
	ws, err := websocket.Dial(url, "", "http://127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &cdp{ws: ws}
}

// call sends a command and waits for its answer, skipping events.
func (c *cdp) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	out, err := c.try(method, params)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// try is call answering its failure.
func (c *cdp) try(method string, params any) (json.RawMessage, error) {
	c.id++
	if err := websocket.JSON.Send(c.ws, map[string]any{"id": c.id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	c.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := websocket.JSON.Receive(c.ws, &msg); err != nil {
			return nil, fmt.Errorf("%s: %v", method, err)
		}
		if msg.ID != c.id {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, msg.Error.Message)
		}
		return msg.Result, nil
	}
}

// eval runs JavaScript in the page (as a user gesture) and answers its
// value.
func (c *cdp) eval(t *testing.T, js string) any {
	t.Helper()
	raw := c.call(t, "Runtime.evaluate", map[string]any{"expression": js, "awaitPromise": true, "returnByValue": true, "userGesture": true})
	var out struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails any `json:"exceptionDetails"`
	}
	json.Unmarshal(raw, &out)
	if out.ExceptionDetails != nil {
		t.Fatalf("%s: %v", js, out.ExceptionDetails)
	}
	return out.Result.Value
}

// waitFor polls a JavaScript condition, for up to 10 s (a loaded CI
// machine runs Chromium slowly); a poll a navigation overtakes ("Inspected
// target navigated or closed") is polled again.
func (c *cdp) waitFor(t *testing.T, js string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		raw, err := c.try("Runtime.evaluate", map[string]any{"expression": js, "returnByValue": true})
		var out struct {
			Result struct {
				Value any `json:"value"`
			} `json:"result"`
		}
		if err == nil && json.Unmarshal(raw, &out) == nil && out.Result.Value == true {
			return
		}
		if err != nil && !strings.Contains(err.Error(), "navigated or closed") {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", js)
}

// chromium starts headless Chromium with remote debugging on a free port
// and answers the browser's and the first page's WebSocket URLs.
func chromium(t *testing.T) (browser, page string) {
	t.Helper()
	needs.Outside(t)
	path := needs.Tool(t, "chromium", needs.ChromiumInstall)
	profile, err := os.MkdirTemp("", "fincom-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir="+profile, "--window-size=420,900", "about:blank")
	// Its own process group, so that its helpers go with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		os.RemoveAll(profile)
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`DevTools listening on (ws://\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case browser = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("chromium did not start")
	}
	host := strings.TrimPrefix(browser, "ws://")
	host = host[:strings.Index(host, "/")]
	resp, err := http.Get("http://" + host + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var targets []struct{ Type, WebSocketDebuggerURL string }
	json.NewDecoder(resp.Body).Decode(&targets)
	for _, tg := range targets {
		if tg.Type == "page" {
			return browser, tg.WebSocketDebuggerURL
		}
	}
	t.Fatal("no page target")
	return "", ""
}

// TestPortalInBrowser opens the payment page of a PIX charge in headless
// Chromium: it renders, the QR image loads, the copy button copies the code
// and the portal records it; a screenshot is kept (and must not be blank).
func TestPortalInBrowser(t *testing.T) {
	t.Parallel()
	browser, pageURL := chromium(t)
	s, ds := newTestServer(t)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	h := s.Handler()
	id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	url := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["payment_url"].(string)
	public := url[strings.LastIndex(url, "/")+1:]
	target := ts.URL + web.Prefix + "/sales_orders/public_payment/" + public

	b := dialCDP(t, browser)
	b.call(t, "Browser.grantPermissions", map[string]any{"origin": ts.URL, "permissions": []string{"clipboardReadWrite", "clipboardSanitizedWrite"}})
	p := dialCDP(t, pageURL)
	p.call(t, "Page.enable", map[string]any{})
	// A headless page has no focus, and the clipboard wants one.
	p.call(t, "Emulation.setFocusEmulationEnabled", map[string]any{"enabled": true})
	p.call(t, "Page.navigate", map[string]any{"url": target})
	p.waitFor(t, `document.readyState === "complete" && document.title.indexOf("PV-000001") >= 0`)
	p.waitFor(t, `(() => { const i = document.querySelector("img.qr"); return !!i && i.complete && i.naturalWidth > 100 })()`)
	// Its icon is in the page: the browser asks no /favicon.ico.
	if got := p.eval(t, `!!document.querySelector('link[rel="icon"]') && !performance.getEntriesByType("resource").some(e => e.name.endsWith("/favicon.ico"))`); got != true {
		t.Errorf("the page has no icon of its own")
	}
	if got := p.eval(t, `document.querySelector("#total").textContent`); got != "R$ 35,00" {
		t.Errorf("total %v", got)
	}
	code := p.eval(t, `document.querySelector("code.pix-code").textContent`).(string)
	p.eval(t, `document.querySelector("button.copy").click()`)
	p.waitFor(t, `document.querySelector("button.copy").textContent === "Copiado!"`)
	if clip := p.eval(t, `navigator.clipboard.readText()`); clip != code {
		t.Errorf("clipboard %q, want the PIX code %q", clip, code)
	}

	shot := p.call(t, "Page.captureScreenshot", map[string]any{"format": "png"})
	var sc struct{ Data string }
	json.Unmarshal(shot, &sc)
	raw, _ := base64.StdEncoding.DecodeString(sc.Data)
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	colors := map[uint32]bool{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 7 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 7 {
			r, g, bb, _ := img.At(x, y).RGBA()
			colors[r>>8<<16|g>>8<<8|bb>>8] = true
		}
	}
	if len(colors) < 8 {
		t.Fatalf("screenshot looks blank: %d colours", len(colors))
	}
	out := filepath.Join(t.TempDir(), "portal.png")
	if dir := os.Getenv("FINCOM_SCREENSHOTS"); dir != "" {
		out = filepath.Join(dir, "portal.png")
	}
	os.WriteFile(out, raw, 0o644)

	// The copy was recorded by the portal (the page posted the event).
	db, release, _ := ds.Acquire(context.Background(), "acme")
	defer release()
	var kinds []string
	for i := 0; i < 40; i++ {
		events, _ := db.PortalEvents(context.Background(), 1, id)
		kinds = kinds[:0]
		for _, e := range events {
			kinds = append(kinds, e.Kind)
		}
		if strings.Contains(strings.Join(kinds, ","), "copied_pix") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("events %v: the copy was not recorded", fmt.Sprint(kinds))
}

// TestContractDocumentInBrowser loads a preview's html_document in
// headless Chromium: it renders its text, and a hostile template's page
// runs nothing.
func TestContractDocumentInBrowser(t *testing.T) {
	t.Parallel()
	_, pageURL := chromium(t)
	s, _ := newTestServer(t)
	h := s.Handler()
	tok := post(t, h, "/insert_contract_template", `{`+auth+`,"name":"T","body_html":"<h1>Contrato de {{contato_nome}}</h1><p onclick=\"document.title='hacked'\">x</p><script>document.title='hacked'</script><img src=x onerror=\"document.title='hacked'\">"}`)["token"].(string)
	doc := post(t, h, "/get_contract_preview", `{`+auth+`,"id_token_template":"`+tok+`","id_contact":"{{contact2}}"}`)["data"].(map[string]any)["html_document"].(string)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(doc))
	}))
	defer ts.Close()
	p := dialCDP(t, pageURL)
	p.call(t, "Page.enable", map[string]any{})
	p.call(t, "Page.navigate", map[string]any{"url": ts.URL})
	p.waitFor(t, `document.readyState === "complete"`)
	if got := p.eval(t, `document.querySelector("h1").textContent`); got != "Contrato de Maria da Silva" {
		t.Fatalf("h1 %v", got)
	}
	p.eval(t, `document.querySelector("p") && document.querySelector("p").click()`)
	if got := p.eval(t, `document.title`); got != "T" {
		t.Fatalf("title %v: something ran", got)
	}
	if n := p.eval(t, `document.querySelectorAll("script, img, iframe").length`); n != 0.0 {
		t.Fatalf("%v active elements", n)
	}
}

// TestAPIDocsInBrowser opens the API reference in headless Chromium: it
// renders every operation of the document with its anchor, loads nothing
// besides itself (no CDN, no script, no font), and is not blank.
func TestAPIDocsInBrowser(t *testing.T) {
	t.Parallel()
	browser, pageURL := chromium(t)
	_ = browser
	now := fixedNow
	s, _ := newTestServerAt(t, &now, Config{Version: "test", TestMode: true})
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openapiOf(t, s), &doc); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, ops := range doc.Paths {
		for _, op := range ops {
			ids = append(ids, op.OperationID)
		}
	}
	p := dialCDP(t, pageURL)
	p.call(t, "Page.enable", map[string]any{})
	p.call(t, "Page.navigate", map[string]any{"url": ts.URL + web.Prefix + "/docs"})
	p.waitFor(t, `document.readyState === "complete" && document.title.indexOf("API reference") >= 0`)
	if n := p.eval(t, `document.querySelectorAll("section.op").length`); n != float64(len(ids)) {
		t.Errorf("%v operations drawn, the document has %d", n, len(ids))
	}
	for _, id := range ids {
		if p.eval(t, `!!document.getElementById("op-`+id+`")`) != true {
			t.Errorf("no section for %s", id)
		}
	}
	if got := p.eval(t, `document.querySelector("#op-get_contacts").textContent`).(string); !strings.Contains(got, "register") || !strings.Contains(got, "Invalid data") {
		t.Errorf("get_contacts section lacks its fields or texts: %.300s", got)
	}
	if n := p.eval(t, `performance.getEntriesByType("resource").map(e => e.name).concat([...document.scripts].map(s => "script")).join(" ")`); n != "" {
		t.Errorf("the reference loads %v resources or scripts", n)
	}
	// Every link inside the page leads to a section of it.
	if bad := p.eval(t, `[...document.querySelectorAll('a[href^="#"]')].filter(a => !document.getElementById(a.getAttribute("href").slice(1))).map(a => a.getAttribute("href")).slice(0, 5)`); len(bad.([]any)) != 0 {
		t.Errorf("links to no section: %v", bad)
	}
	shot := p.call(t, "Page.captureScreenshot", map[string]any{"format": "png"})
	var sc struct{ Data string }
	json.Unmarshal(shot, &sc)
	raw, _ := base64.StdEncoding.DecodeString(sc.Data)
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	colors := map[uint32]bool{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 7 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 7 {
			r, g, bb, _ := img.At(x, y).RGBA()
			colors[r>>8<<16|g>>8<<8|bb>>8] = true
		}
	}
	if len(colors) < 8 {
		t.Fatalf("screenshot looks blank: %d colours", len(colors))
	}
}

// TestBoletoPageInBrowser opens a registered Bradesco boleto in headless
// Chromium: it carries every field a boleto has, fits a 390-px phone
// without sideways scrolling, its bar code is read by zbarimg from a
// desktop screenshot as the charge's, and once paid it shows PAGO and no
// bar code.
func TestBoletoPageInBrowser(t *testing.T) {
	t.Parallel()
	_, pageURL := chromium(t)
	zbar := pdfTool(t, "zbarimg")
	s, _ := newTestServer(t)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	h := s.Handler()
	payer := post(t, h, "/insert_contact", `{`+auth+`,"type":"legal","register":"04252011000110","socialReason":"Beta Distribuidora de Peças Ltda",
		"address":"Avenida Paulista","number":"1000","neighborhood":"Bela Vista","city":"São Paulo","state":"SP","zip_code":"01310-100"}`)["token"].(string)
	order := strings.Replace(strings.Replace(serviceOrder, `"provider_a"`, `"provider_b"`, 1), `"id_token_contact":"{{contact1}}"`, `"id_token_contact":"`+payer+`"`, 1)
	id := post(t, h, "/insert_sales_order", order)["data"].(map[string]any)["id"].(string)
	out := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	c := out["charges"].([]any)[0].(map[string]any)
	registerBoletos(t, h, "provider_b")
	url := out["payment_url"].(string)
	public := url[strings.LastIndex(url, "/")+1:]
	target := ts.URL + web.Prefix + "/sales_orders/public_boleto/" + public

	p := dialCDP(t, pageURL)
	p.call(t, "Page.enable", map[string]any{})
	p.call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": true})
	p.call(t, "Page.navigate", map[string]any{"url": target})
	p.waitFor(t, `document.readyState === "complete" && !!document.querySelector("#ficha")`)
	if w := p.eval(t, `document.documentElement.scrollWidth`); w.(float64) > 390 {
		t.Errorf("the boleto is %v px wide on a 390-px phone", w)
	}
	text := p.eval(t, `document.body.innerText`).(string)
	for _, want := range []string{"237-2", "Acme Matriz", "CNPJ 11.222.333/0001-81", "1234-3 / 0506511-9", "09/00000000001-", "PV-000001/1", "DM",
		"LOCAL DE PAGAMENTO", "DATA DO PROCESSAMENTO", "CARTEIRA", "NOSSO NÚMERO", "AGÊNCIA / CÓDIGO DO BENEFICIÁRIO", "ESPÉCIE DOC.", "ACEITE", "R$ 1.500,00", "30/11/2026", "multa de 2%", "juros de mora de 1% ao mês",
		"Beta Distribuidora de Peças Ltda", "CNPJ 04.252.011/0001-10", "Avenida Paulista, 1000", "CEP 01310-100"} {
		if !strings.Contains(text, want) {
			t.Errorf("the boleto page lacks %q", want)
		}
	}

	// At desktop size, a screen capture's bar code reads as the charge's.
	p.call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 1400, "deviceScaleFactor": 1, "mobile": false})
	p.call(t, "Page.reload", map[string]any{})
	p.waitFor(t, `document.readyState === "complete" && (() => { const i = document.querySelector(".barcode img"); return !!i && i.complete && i.naturalWidth > 100 })()`)
	shot := p.call(t, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true})
	var sc struct{ Data string }
	json.Unmarshal(shot, &sc)
	raw, _ := base64.StdEncoding.DecodeString(sc.Data)
	file := filepath.Join(t.TempDir(), "boleto.png")
	if dir := os.Getenv("FINCOM_SCREENSHOTS"); dir != "" {
		file = filepath.Join(dir, "boleto.png")
	}
	os.WriteFile(file, raw, 0o644)
	got, _ := exec.Command(zbar, "--raw", "-q", "-Sdisable", "-Si25.enable", file).Output()
	if strings.TrimSpace(string(got)) != c["boleto_barcode"] {
		t.Errorf("zbarimg read %q from the screenshot, want %v", got, c["boleto_barcode"])
	}

	// Paid: PAGO, and no bar code to pay again.
	post(t, h, "/settle_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	p.call(t, "Page.reload", map[string]any{})
	p.waitFor(t, `document.readyState === "complete" && !!document.querySelector("#ficha")`)
	if got := p.eval(t, `(document.querySelector("#pago") || {}).textContent + "|" + !!document.querySelector(".barcode img") + "|" + document.querySelector("#linha").textContent.trim()`); got != "PAGO em 22/11/2026|false|" {
		t.Errorf("paid boleto: %v", got)
	}
}
