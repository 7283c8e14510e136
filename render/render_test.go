package render

import (
	"bytes"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"fincom/server/needs"

	"github.com/shopspring/decimal"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
)

func TestPages(t *testing.T) {
	t.Parallel()
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	d := PaymentPageData{Seller: `Loja <script>alert(1)</script>`, OrderCode: "PV-000001", Total: "R$ 10,00", Token: "fcp_x_1", EventURL: "/e",
		Charges: []ChargeView{{Installment: 1, Installments: 1, BoletoLine: "0019", PixPayload: "000201", PixQRURL: "/qr"}}}
	if err := r.PaymentPage(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "<script>alert(1)") || !strings.Contains(out, "Loja &lt;script&gt;") {
		t.Fatal("seller not escaped")
	}
	img, err := BarcodeDataURI("00196758600001026560000001149718606852452211")
	if err != nil || !strings.HasPrefix(string(img), "data:image/png;base64,") {
		t.Fatalf("barcode: %v", err)
	}
	buf.Reset()
	if err := r.BoletoPage(&buf, BoletoPageData{Line: "0019", BarcodeImage: img}); err != nil || !strings.Contains(buf.String(), "data:image/png;base64,") {
		t.Fatalf("boleto page: %v", err)
	}
	subject, body, err := r.Mail("charge_created", MailData{Seller: "Acme", OrderCode: "PV-000001", Amount: "R$ 10,00", DueDate: "01/12/2026", PaymentURL: "http://x/p"})
	if err != nil || subject != "Acme: cobrança do pedido PV-000001" || !strings.Contains(body, "http://x/p") {
		t.Fatalf("mail: %q %q %v", subject, body, err)
	}
}

func TestFormats(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"1026.56": "R$ 1.026,56", "0.5": "R$ 0,50", "1234567.00": "R$ 1.234.567,00", "100": "R$ 100,00"} {
		if got := BRL(in); got != want {
			t.Errorf("BRL(%s) = %s, want %s", in, got, want)
		}
	}
	if got := FormatLine("00190000090114971860168524522114675860000102656"); got != "00190.00009 01149.718601 68524.522114 6 75860000102656" {
		t.Errorf("FormatLine = %s", got)
	}
}

// TestBarcodeDecodes reads the boleto's Interleaved 2 of 5 bar code back
// with zbarimg.
func TestBarcodeDecodes(t *testing.T) {
	t.Parallel()
	zbar := needs.Tool(t, "zbarimg", needs.PDFToolsInstall)
	const barcode = "00196758600001026560000001149718606852452211"
	uri, err := BarcodeDataURI(barcode)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(string(uri), "data:image/png;base64,"))
	path := filepath.Join(t.TempDir(), "barcode.png")
	os.WriteFile(path, raw, 0o644)
	out, err := exec.Command(zbar, "--raw", "-q", "-Sdisable", "-Si25.enable", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != barcode {
		t.Fatalf("zbarimg read %q", got)
	}
}

// TestSanitizeHostile: every hostile template comes out inert.
func TestSanitizeHostile(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`<script>alert(1)</script><p>ok</p>`,
		`<p onclick="alert(1)" onmouseover=alert(2)>x</p>`,
		`<a href="javascript:alert(1)">x</a><a href=" JaVaScRiPt:alert(1)">y</a><a href="java&#x09;script:alert(1)">z</a>`,
		`<div style="background:url(javascript:alert(1))">x</div>`,
		`<img src=x onerror=alert(1)>`,
		`<svg><script>alert(1)</script><foreignObject><p onload=alert(1)>x</p></foreignObject></svg>`,
		`<svg/onload=alert(1)>`,
		`<math><mi xlink:href="javascript:alert(1)">x</mi></math>`,
		`<iframe src="https://evil.example"></iframe><object data="x"></object><embed src=x>`,
		`<p>unclosed <b>bold <i>italic</p><table><tr><td>cell`,
		`<style>body{background:url(https://evil.example/x)}</style>`,
		`<<script>script>alert(1)<</script>/script>`,
		`<a href="https://ok.example" target=_blank rel=opener>fine</a>`,
		`<link rel=stylesheet href=https://evil.example/x.css><meta http-equiv=refresh content="0;url=https://evil.example">`,
		`<form action=https://evil.example><input name=x><button>go</button></form>`,
		`<p>{{contato_nome}}</p><!-- <script>alert(1)</script> -->`,
	} {
		out := SanitizeHTML(in)
		low := strings.ToLower(out)
		for _, bad := range []string{"<script", "javascript:", "onerror", "onload", "onclick", "onmouseover", "<svg", "<iframe", "<object", "<embed",
			"<img", "<style", "style=", "<link", "<meta", "<form", "<input", "<math", "xlink", "evil.example/x"} {
			if strings.Contains(low, bad) {
				t.Errorf("%q -> %q still has %q", in, out, bad)
			}
		}
	}
	if got := SanitizeHTML(`<p class="x">Olá <b>{{contato_nome}}</b></p>`); got != `<p class="x">Olá <b>{{contato_nome}}</b></p>` {
		t.Errorf("clean HTML changed: %q", got)
	}
	css := SanitizeCSS(`body { font-family: serif; background: url(https://evil.example/x.png); } @import url(x.css); p { width: expression(alert(1)); color: red }`)
	for _, bad := range []string{"url(", "@import", "expression"} {
		if strings.Contains(strings.ToLower(css), bad) {
			t.Errorf("css %q still has %q", css, bad)
		}
	}
	if !strings.Contains(css, "font-family: serif") || !strings.Contains(css, "color: red") {
		t.Errorf("css lost its safe parts: %q", css)
	}
}

var handler = regexp.MustCompile(`<[^>]*\son[a-z]+=`)

func FuzzSanitizeHTML(f *testing.F) {
	f.Add(`<script>alert(1)</script><p onclick=x>ok</p>`)
	f.Add(`<svg><a href="javascript:x">y</a></svg>`)
	f.Fuzz(func(t *testing.T, in string) {
		out := strings.ToLower(SanitizeHTML(in))
		// Text may say anything (it is escaped); markup may not.
		for _, bad := range []string{"<script", "<iframe", "<svg", "<img", "<style", `href="javascript:`, "style="} {
			if strings.Contains(out, bad) {
				t.Fatalf("%q -> %q has %q", in, out, bad)
			}
		}
		if handler.MatchString(out) {
			t.Fatalf("%q -> %q has an event handler", in, out)
		}
		if again := SanitizeHTML(SanitizeHTML(in)); strings.ToLower(again) != out {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
	})
}

// cssVerdict re-reads sanitized CSS as a browser would and names what it
// should not hold, or "".
func cssVerdict(out string) string {
	l := css.NewLexer(parse.NewInputString(out))
	for {
		tt, raw := l.Next()
		switch tt {
		case css.ErrorToken:
			return ""
		case css.URLToken, css.BadURLToken:
			return "a url"
		case css.FunctionToken:
			if n := cssName(bytes.TrimSuffix(raw, []byte("("))); !cssFunctions[n] {
				return "the function " + n
			}
		case css.AtKeywordToken:
			n := strings.TrimPrefix(strings.TrimPrefix(cssName(raw[1:]), "-webkit-"), "-moz-")
			if !cssAtRules[n] {
				return "the at-rule " + n
			}
		case css.IdentToken:
			if cssDangerousProperties[cssName(raw)] {
				return "the property " + cssName(raw)
			}
		}
		if bytes.IndexByte(raw, '<') >= 0 {
			return "markup"
		}
	}
}

func TestSanitizeCSSEscapes(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`p { background: u\72l(https://evil.example/x.png) }`,
		`p { background: U\52 L(https://evil.example/x.png) }`,
		`p { background-image: image-set("https://evil.example/x.png" 1x) }`,
		`p { background-image: -webkit-image-set(url(x.png) 1x) }`,
		`@\69mport "https://evil.example/x.css"; p { color: red }`,
		`@IMPORT url(x.css); p { color: red }`,
		`@font-face { font-family: x; src: url(https://evil.example/f.woff) } p { color: red }`,
		`p { width: e\78pression(alert(1)) }`,
		`p { -moz-binding: url(x.xml#y) }`,
		`p { behavio\72: url(x.htc) }`,
		`p { content: "</style><script>alert(1)</script>" }`,
		`p { color: red } <!-- --> q { color: blue }`,
		`p[title="<b>"] { color: red }`,
		`p { background: cross-fade(url(a.png), url(b.png), 50%) }`,
		`p { background: url("unterminated`,
	} {
		out := SanitizeCSS(in)
		if v := cssVerdict(out); v != "" {
			t.Errorf("%q -> %q still has %s", in, out, v)
		}
		if low := strings.ToLower(out); strings.Contains(low, "evil") || strings.Contains(low, "<") {
			t.Errorf("%q -> %q", in, out)
		}
	}
	for in, want := range map[string]string{
		`@media print { p { color: red; background: url(x) } }`:     `@media print { p { color: red; } }`,
		`@\69mport "x.css"; p { color: red }`:                       `  p { color: red }`,
		`h1 { font: bold 12pt/1.2 serif; color: rgb(0 0 0) }`:       `h1 { font: bold 12pt/1.2 serif; color: rgb(0 0 0) }`,
		`p:not(.x) { margin: calc(1em + 2px) }`:                     `p:not(.x) { margin: calc(1em + 2px) }`,
		`@font-face { src: url(f.woff) } p { color: red }`:          `  p { color: red }`,
		`p { color: red } /* a comment */ q { color: blue }`:        `p { color: red }   q { color: blue }`,
		`p { color: red; background: u\72l(x); font-weight: bold }`: `p { color: red;  font-weight: bold }`,
	} {
		if got := SanitizeCSS(in); got != want {
			t.Errorf("SanitizeCSS(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSanitizeCSS(f *testing.F) {
	f.Add(`p { background: u\72l(x) } @\69mport "y"; q { color: red }`)
	f.Add(`@media print { p { width: expression(1) } }`)
	f.Add(`p { content: "</style>" }`)
	f.Add(`{@\`)
	f.Add(`\0}(`) // a hex escape takes the blank that parted it from "("
	f.Fuzz(func(t *testing.T, in string) {
		out := SanitizeCSS(in)
		if v := cssVerdict(out); v != "" {
			t.Fatalf("%q -> %q still has %s", in, out, v)
		}
	})
}

// TestCashChart: the chart's grid sits on round amounts that cover every
// value drawn, zero on a line of its own, and each non-zero amount has a
// bar titled with it.
func TestCashChart(t *testing.T) {
	t.Parallel()
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	c := NewCashChart("novembro de 2026", []ChartDay{
		{Day: 1, Balance: d("1000.10"), ForecastBalance: d("1000.10"), Realized: true},
		{Day: 2, In: d("4200"), Balance: d("5200.10"), ForecastBalance: d("5200.10"), Realized: true},
		{Day: 3, ForecastOut: d("2500"), Balance: d("5200.10"), ForecastBalance: d("2700.10")},
	}, 720)
	var labels []string
	for _, g := range c.Grid {
		labels = append(labels, g.Label)
	}
	if got := strings.Join(labels, " | "); got != "-R$ 4 mil | -R$ 2 mil | R$ 0 | R$ 2 mil | R$ 4 mil | R$ 6 mil" {
		t.Errorf("grid %s", got)
	}
	if len(c.Bars) != 2 || c.Bars[0].Title != "Dia 2: entradas realizadas R$ 4.200,00" || c.Bars[1].Title != "Dia 3: saídas previstas R$ 2.500,00" {
		t.Errorf("bars %+v", c.Bars)
	}
	if c.Bars[1].Y != c.Zero || c.Bars[0].Y+c.Bars[0].H != c.Zero {
		t.Errorf("bars do not start at zero: %+v, zero %d", c.Bars, c.Zero)
	}
	if strings.Count(c.Balance, ",") != 2 || strings.Count(c.Forecast, ",") != 3 {
		t.Errorf("lines %q / %q", c.Balance, c.Forecast)
	}
}
