// Package render draws what fincom shows people: the public payment portal
// pages and the e-mails, from embedded templates parsed once. html/template
// escapes every value.
package render

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	htmltemplate "html/template"
	"image/png"
	"io"
	"regexp"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/code128"
	"github.com/boombuler/barcode/twooffive"
)

//go:embed templates
var files embed.FS

// Renderer holds the parsed templates.
type Renderer struct {
	pages *htmltemplate.Template
	mails *texttemplate.Template
	csp   string
}

// New parses the embedded templates.
func New() (*Renderer, error) {
	script, err := files.ReadFile("templates/portal.js")
	if err != nil {
		return nil, err
	}
	funcs := htmltemplate.FuncMap{"portalScript": func() htmltemplate.JS { return htmltemplate.JS(script) }, "fieldOf": fieldOf, "selectOf": selectOf, "checkedAs": checkedAs,
		"inc": func(i int) int { return i + 1 }}
	pages, err := htmltemplate.New("pages").Funcs(funcs).ParseFS(files, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("parse pages: %w", err)
	}
	mails, err := texttemplate.New("mails").ParseFS(files, "templates/*.txt")
	if err != nil {
		return nil, fmt.Errorf("parse mails: %w", err)
	}
	sum := sha256.Sum256(script)
	// The pages load nothing from elsewhere and run only the portal
	// script, named by its hash; no page may be framed (clickjacking on a
	// payment page). Their styles are inline blocks of the templates.
	csp := "default-src 'none'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; style-src 'unsafe-inline'; " +
		"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	return &Renderer{pages: pages, mails: mails, csp: csp}, nil
}

// PageCSP is the Content-Security-Policy of the pages (TestPortalHeaders,
// and the browser test runs the script under it).
func (r *Renderer) PageCSP() string { return r.csp }

// ChargeView is one charge as the pages show it.
type ChargeView struct {
	Installment, Installments int
	PaymentMethod             string // e.g. "Boleto bancário"
	Amount                    string // "R$ 1.026,56"
	DueDate                   string // "15/07/2018"
	Status                    string // "Em aberto", "Pago", "Vencido"
	Paid                      bool
	BoletoLine                string // formatted linha digitável
	BoletoURL                 string
	// BoletoNotice says why the boleto is not shown yet (in registration
	// at the bank, or refused by it).
	BoletoNotice string
	PixPayload   string
	PixQRURL     string
}

// PaymentPageData fills the payment page.
type PaymentPageData struct {
	Seller      string
	SellerCNPJ  string
	Customer    string
	OrderCode   string
	Description string
	Total       string
	Status      string
	EventURL    string
	Token       string
	Charges     []ChargeView
}

// PaymentPage writes the order's payment page.
func (r *Renderer) PaymentPage(w io.Writer, d PaymentPageData) error {
	return r.pages.ExecuteTemplate(w, "payment.html", d)
}

// BoletoPageData fills the printable boleto: every field of FEBRABAN's
// payment slip (ficha de compensação) and the payer's receipt.
type BoletoPageData struct {
	Bank          string // "341-7"
	BankName      string
	Seller        string
	SellerCNPJ    string
	SellerAddress string
	Customer      string
	// CustomerDocument is the payer's CPF or CNPJ, masked.
	CustomerDocument string
	CustomerAddress  string
	OrderCode        string
	Description      string
	// DocumentNumber is the firm's number of the title ("PV-000001/1").
	DocumentNumber string
	DocumentKind   string // "DM": duplicata mercantil
	Acceptance     string // "N"
	DocumentDate   string // dd/mm/yyyy
	ProcessingDate string
	// AgencyCode is the "agência / código do beneficiário" box.
	AgencyCode   string
	OurNumber    string
	Wallet       string
	Currency     string // "R$"
	Amount       string
	DueDate      string
	PaymentPlace string
	Instructions []string
	Line         string
	// BarcodeImage is the bar code drawn as Interleaved 2 of 5, a PNG data
	// URI the template may use as an image source.
	BarcodeImage htmltemplate.URL
	// Paid shows PAGO (with the day) instead of a payable bar code.
	Paid   bool
	PaidOn string
	// Simulated marks a boleto of test mode's simulated bank: no bank
	// registered it, and the page says so.
	Simulated bool
}

// BoletoPage writes a printable boleto page.
func (r *Renderer) BoletoPage(w io.Writer, d BoletoPageData) error {
	return r.pages.ExecuteTemplate(w, "boleto.html", d)
}

// ErrorPage writes the page of a failed public request (404, 429, ...).
func (r *Renderer) ErrorPage(w io.Writer, title, message string) error {
	return r.pages.ExecuteTemplate(w, "error.html", map[string]string{"Title": title, "Message": message})
}

// BarcodeDataURI draws a boleto's 44-digit bar code as Interleaved 2 of 5
// and answers it as a PNG data URI.
func BarcodeDataURI(digits string) (htmltemplate.URL, error) {
	code, err := twooffive.Encode(digits, true)
	if err != nil {
		return "", err
	}
	// Two pixels a module: a screen shows it at its size and a reader
	// reads it from a capture (TestBoletoPageInBrowser); print scales it
	// to 103 mm by 13 mm, as FEBRABAN asks.
	code, err = barcode.Scale(code, 2*code.Bounds().Dx(), 100)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, code); err != nil {
		return "", err
	}
	return htmltemplate.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())), nil
}

// MailData fills an e-mail.
type MailData struct {
	Seller      string
	Customer    string
	OrderCode   string
	Description string
	Amount      string
	DueDate     string
	PaymentURL  string
	Days        int
	Extra       string // one more line, such as a second link
	LoginURL    string // portal_login: the sign-in link
	// A charge's reminder (charge_reminder): its Step (Before, DueDay,
	// Late days, or a person's Resend), what it asks on the day it is
	// sent (AmountDue, of it Fine and Interest) and what pays it: the
	// boleto's line (its PDF attached), the PIX code.
	Before, Late              int
	DueDay, Resend            bool
	AmountDue, Fine, Interest string
	BoletoLine, PixCode       string
	BoletoAttached            bool
}

// Mail renders an e-mail of a kind (charge_created, charge_notice,
// payment_confirmed, charge_resent): its subject is the first line.
func (r *Renderer) Mail(kind string, d MailData) (subject, body string, err error) {
	var buf bytes.Buffer
	if err := r.mails.ExecuteTemplate(&buf, kind+".txt", d); err != nil {
		return "", "", err
	}
	subject, body, _ = strings.Cut(buf.String(), "\n")
	return strings.TrimSpace(subject), strings.TrimLeft(body, "\n"), nil
}

// BRNumber formats a decimal as Brazilians write it, with the places it
// has: "1.026,56", "100,0000".
func BRNumber(v string) string {
	intPart, frac, _ := strings.Cut(v, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("," + frac)
	}
	return b.String()
}

// BRL formats an amount as Brazilians read it: "R$ 1.026,56".
func BRL(amount string) string {
	intPart, frac, _ := strings.Cut(amount, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(c)
	}
	for len(frac) < 2 {
		frac += "0"
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + "R$ " + b.String() + "," + frac[:2]
}

// DateBR turns YYYY-MM-DD into DD/MM/YYYY.
func DateBR(iso string) string {
	if len(iso) < 10 {
		return iso
	}
	return iso[8:10] + "/" + iso[5:7] + "/" + iso[0:4]
}

// FormatLine spaces a 47-digit linha digitável as printed on boletos:
// AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE.
func FormatLine(l string) string {
	if len(l) != 47 {
		return l
	}
	return l[0:5] + "." + l[5:10] + " " + l[10:15] + "." + l[15:21] + " " + l[21:26] + "." + l[26:32] + " " + l[32:33] + " " + l[33:]
}

// Code128DataURI draws an access key as Code 128 (the DANFE's bar code),
// as a PNG data URI.
func Code128DataURI(key string) (htmltemplate.URL, error) {
	raw, err := code128.Encode(key)
	if err != nil {
		return "", err
	}
	code, err := barcode.Scale(raw, 840, 100)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, code); err != nil {
		return "", err
	}
	return htmltemplate.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())), nil
}

// DateTimeBR formats a moment as DD/MM/YYYY HH:mm in São Paulo time.
func DateTimeBR(t time.Time) string {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		loc = time.FixedZone("-03", -3*3600)
	}
	return t.In(loc).Format("02/01/2006 15:04")
}

// ContractDocument is a contract's printable page. Body, Header and Footer
// are template HTML that SanitizeHTML reduced, with placeholders already
// replaced by escaped values; CSS went through SanitizeCSS. The page's
// Content-Security-Policy forbids loading or running anything anyway.
type ContractDocument struct {
	Title                string
	CSS                  htmltemplate.CSS
	Body, Header, Footer htmltemplate.HTML
}

// Contract writes the contract's printable page.
func (r *Renderer) Contract(w io.Writer, d ContractDocument) error {
	return r.pages.ExecuteTemplate(w, "contract.html", d)
}

var placeholder = regexp.MustCompile(`\{\{\s*([a-z_]+)\s*\}\}`)

// FillPlaceholders replaces {{name}} in sanitized template HTML by the
// escaped value of name; unknown placeholders stay visible.
func FillPlaceholders(sanitized string, values map[string]string) string {
	return placeholder.ReplaceAllStringFunc(sanitized, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		if v, ok := values[name]; ok {
			return htmltemplate.HTMLEscapeString(v)
		}
		return m
	})
}

// paymentMethodNames are the payment keys as the portal and contracts
// name them.
var paymentMethodNames = map[string]string{
	"BOLETO": "Boleto bancário", "PIX": "PIX", "PIX_AUTOMATICO": "PIX Automático", "CREDIT_CARD": "Cartão de crédito",
	"DEBIT_CARD": "Cartão de débito", "TRANSFER": "Transferência bancária", "CASH": "Dinheiro",
}

// PaymentMethodName names a payment key in Portuguese ("" if unknown).
func PaymentMethodName(key string) string { return paymentMethodNames[key] }
