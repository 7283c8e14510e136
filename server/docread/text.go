package docread

import (
	"regexp"
	"strings"
	"time"

	"fincom/server/brdoc"
)

var (
	bankLine       = regexp.MustCompile(`\d{5}\.?\d{5}\s*\d{5}\.?\d{6}\s*\d{5}\.?\d{6}\s*\d\s*\d{14}`)
	collectionLine = regexp.MustCompile(`8\d{10}[\s-]*\d(?:\s*\d{11}[\s-]*\d){3}`)
	bareBarcode    = regexp.MustCompile(`\b\d{44}\b`)
	accessKey      = regexp.MustCompile(`\b(?:\d{4}\s?){10}\d{4}\b`)
	cnpjMasked     = regexp.MustCompile(`\b[0-9A-Z]{2}\.[0-9A-Z]{3}\.[0-9A-Z]{3}/[0-9A-Z]{4}-\d{2}\b`)
	dueLabel       = regexp.MustCompile(`(?i)vencimento\D{0,30}?(\d{2}/\d{2}/\d{4})`)
	valueLabel     = regexp.MustCompile(`(?i)(?:valor do documento|valor total|total a pagar|valor cobrado|valor a pagar|total)\D{0,30}?(\d{1,3}(?:\.\d{3})*,\d{2})`)
)

// ReadText finds expense fields in a document's text: a boleto's line
// (trusted only when its check digits hold), an NF-e access key, the first
// valid CNPJ, and the due date and amount next to their usual labels.
func ReadText(text string, now time.Time) (Result, error) {
	r := Result{Kind: "pdf", Fields: map[string]Field{}, Items: []Item{}}
	candidates := append(bankLine.FindAllString(text, -1), collectionLine.FindAllString(text, -1)...)
	candidates = append(candidates, bareBarcode.FindAllString(text, -1)...)
	for _, c := range candidates {
		b, err := brdoc.ParseBoleto(c, now)
		if err != nil {
			continue
		}
		r.Kind = "boleto"
		r.set("barcode", b.Line, 0.99)
		if b.Value.IsPositive() {
			r.set("value", b.Value.StringFixed(2), 0.99)
		}
		if !b.DueDate.IsZero() {
			r.set("due_date", b.DueDate.Format(time.DateOnly), 0.99)
		}
		break
	}
	for _, c := range accessKey.FindAllString(text, -1) {
		if k := brdoc.Digits(c); brdoc.ValidAccessKey(k) {
			r.set("access_key", k, 0.95)
			break
		}
	}
	for _, c := range cnpjMasked.FindAllString(text, -1) {
		if k := brdoc.Clean(c); brdoc.ValidCNPJ(k) {
			r.set("supplier_register", k, 0.9)
			break
		}
	}
	if m := dueLabel.FindStringSubmatch(text); m != nil {
		if d, err := time.Parse("02/01/2006", m[1]); err == nil {
			r.set("due_date", d.Format(time.DateOnly), 0.7)
		}
	}
	if m := valueLabel.FindStringSubmatch(text); m != nil {
		v := strings.ReplaceAll(strings.ReplaceAll(m[1], ".", ""), ",", ".")
		r.set("value", money(v), 0.7)
	}
	if len(r.Fields) == 0 {
		return Result{}, ErrUnreadable
	}
	return r, nil
}
