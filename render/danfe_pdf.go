package render

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"image"
	"image/color"
	"strings"
	"unicode/utf8"

	"github.com/boombuler/barcode/code128"
	"golang.org/x/text/encoding/charmap"
)

// A4 in points, and the margins of the DANFE.
const (
	pageW, pageH = 595.0, 842.0
	margin       = 28.0
	contentW     = pageW - 2*margin
)

// pdf writes a PDF 1.4 of A4 pages with the standard Helvetica fonts
// (WinAnsiEncoding: every letter of Portuguese) and ruled boxes: what a
// DANFE needs, no more. Every reader has these fonts, so none is embedded.
type pdf struct {
	pages []*bytes.Buffer
	page  *bytes.Buffer
}

func (p *pdf) newPage() {
	p.page = new(bytes.Buffer)
	p.pages = append(p.pages, p.page)
}

// text writes s with its baseline at (x, y from the top of the page).
func (p *pdf) text(x, y, size float64, bold bool, s string) {
	font := "F1"
	if bold {
		font = "F2"
	}
	fmt.Fprintf(p.page, "BT /%s %.1f Tf %.2f %.2f Td (%s) Tj ET\n", font, size, x, pageH-y, pdfString(s))
}

// box strokes a rectangle whose top left corner is (x, y from the top).
func (p *pdf) box(x, y, w, h float64) {
	fmt.Fprintf(p.page, "0.6 w %.2f %.2f %.2f %.2f re S\n", x, pageH-y-h, w, h)
}

// bar fills a rectangle (a bar of a bar code).
func (p *pdf) bar(x, y, w, h float64) {
	fmt.Fprintf(p.page, "%.3f %.2f %.3f %.2f re f\n", x, pageH-y-h, w, h)
}

// barcode draws a one-dimensional bar code (one pixel per module, as
// boombuler/barcode encodes them) at (x, y from the top), each module
// module points wide, each bar height points tall: one rectangle per run
// of dark modules.
func (p *pdf) barcode(code image.Image, x, y, module, height float64) {
	width := code.Bounds().Dx()
	for i := 0; i < width; {
		if !isDark(code.At(i, 0)) {
			i++
			continue
		}
		run := 1
		for i+run < width && isDark(code.At(i+run, 0)) {
			run++
		}
		p.bar(x+module*float64(i), y, module*float64(run), height)
		i += run
	}
}

// bytes assembles the document: catalog, page tree, the two fonts, then
// each page and its compressed content.
func (p *pdf) bytes() []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	kids := make([]string, len(p.pages))
	for i := range p.pages {
		kids[i] = fmt.Sprintf("%d 0 R", 5+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(p.pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
	for i, content := range p.pages {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.0f %.0f] /Contents %d 0 R /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> >>",
			pageW, pageH, 6+2*i))
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write(content.Bytes())
		w.Close()
		obj(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// pdfString is s as a PDF literal string in WinAnsiEncoding: a character
// the encoding lacks becomes "?", control characters are dropped, and the
// delimiters are escaped.
func pdfString(s string) string {
	var b strings.Builder
	for _, r := range s {
		c, ok := charmap.Windows1252.EncodeRune(r)
		switch {
		case r < 0x20:
			continue
		case !ok:
			c = '?'
		}
		if c == '(' || c == ')' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// fit cuts s to what fits in width points at size (Helvetica's letters
// average under 0.55 em; 0.56 keeps capitals from overflowing).
func fit(s string, width, size float64) string {
	max := int(width / (0.56 * size))
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// wrap breaks s into lines that fit width at size.
func wrap(s string, width, size float64) []string {
	max := int(width / (0.56 * size))
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= max:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	for i, l := range lines {
		lines[i] = fit(l, width, size)
	}
	return lines
}

// DANFEPDF lays the printable invoice out as an A4 PDF: the same content as
// the DANFE page (DANFE), with the access key's Code 128 drawn as bars, for
// printing with the goods and attaching to e-mails. It is fincom's own
// layout, not the MOC's official one.
func DANFEPDF(d DANFEData) ([]byte, error) {
	p := &pdf{}
	p.newPage()
	y := margin
	subtitle := map[string]string{"DANFE": "Documento Auxiliar da Nota Fiscal Eletrônica", "DANFE NFC-e": "Documento Auxiliar da Nota Fiscal de Consumidor Eletrônica",
		"NFS-e": "Nota Fiscal de Serviço Eletrônica"}[d.Title]

	// Title and number.
	p.box(margin, y, contentW, 46)
	p.text(margin+8, y+20, 16, true, d.Title)
	p.text(margin+8, y+36, 8, false, subtitle)
	p.text(margin+contentW-150, y+20, 11, true, "Nº "+danfeNumber(d.Number))
	p.text(margin+contentW-150, y+36, 9, false, fmt.Sprintf("Série %d", d.Series))
	y += 46

	// A party: its role, name and register, in a box.
	party := func(role, name, register string) {
		p.box(margin, y, contentW, 40)
		p.text(margin+8, y+12, 7, true, role)
		p.text(margin+8, y+25, 10, true, fit(name, contentW-16, 10))
		p.text(margin+8, y+35, 8, false, register)
		y += 40
	}
	party("EMITENTE", d.Emitter, "CNPJ "+d.EmitterRegister)

	// Key and its bar code, or the verification code.
	raw := strings.ReplaceAll(d.Key, " ", "")
	if raw != "" {
		code, err := code128.Encode(raw)
		if err != nil {
			return nil, err
		}
		p.box(margin, y, contentW, 96)
		// One point per module, bars 40 points tall: about 2.8 pixels a
		// module at 200 dpi, which bar code readers take.
		p.barcode(code, margin+(contentW-float64(code.Bounds().Dx()))/2, y+8, 1, 40)
		p.text(margin+8, y+62, 7, true, "CHAVE DE ACESSO")
		p.text(margin+8, y+74, 10, false, d.Key)
		if d.Title != "NFS-e" {
			p.text(margin+8, y+88, 7, false, "Consulta de autenticidade no portal nacional da NF-e (www.nfe.fazenda.gov.br/portal) ou no site da Sefaz autorizadora")
		}
		y += 96
	}
	p.box(margin, y, contentW, 28)
	if d.Verification != "" {
		p.text(margin+8, y+11, 7, true, "CÓDIGO DE VERIFICAÇÃO")
		p.text(margin+8, y+23, 9, false, d.Verification)
	}
	p.text(margin+contentW/2, y+11, 7, true, "PROTOCOLO DE AUTORIZAÇÃO")
	p.text(margin+contentW/2, y+23, 9, false, d.Protocol+"  "+d.IssuedAt)
	y += 28

	party("DESTINATÁRIO / TOMADOR", d.Recipient, "CPF/CNPJ "+d.RecipientRegister)
	y += 8

	// Items, or the service.
	if len(d.Items) > 0 {
		cols := []struct {
			title string
			x     float64
		}{{"DESCRIÇÃO", 0}, {"NCM", 230}, {"CFOP", 280}, {"UN", 318}, {"QTD", 346}, {"VL. UNIT.", 396}, {"VL. TOTAL", 466}}
		header := func() {
			p.box(margin, y, contentW, 14)
			for _, c := range cols {
				p.text(margin+4+c.x, y+10, 7, true, c.title)
			}
			y += 14
		}
		p.text(margin, y+8, 7, true, "DADOS DOS PRODUTOS")
		y += 12
		header()
		for _, it := range d.Items {
			if y > pageH-margin-110 {
				p.newPage()
				y = margin
				p.text(margin, y+8, 7, true, d.Title+" Nº "+danfeNumber(d.Number)+", continuação")
				y += 12
				header()
			}
			cells := []string{fit(it.Description, 224, 8), it.NCM, it.CFOP, fit(it.Unit, 26, 8), fit(it.Quantity, 48, 8), fit(it.UnitValue, 68, 8), fit(it.Total, 70, 8)}
			for i, c := range cols {
				p.text(margin+4+c.x, y+10, 8, false, cells[i])
			}
			y += 13
		}
		y += 6
	}
	if d.Service != "" {
		lines := wrap(d.Service, contentW-16, 9)
		h := 18 + 12*float64(len(lines))
		p.box(margin, y, contentW, h)
		p.text(margin+8, y+11, 7, true, "DISCRIMINAÇÃO DO SERVIÇO")
		for i, l := range lines {
			p.text(margin+8, y+24+12*float64(i), 9, false, l)
		}
		y += h + 6
	}

	// Totals.
	if len(d.Totals) > 0 {
		w := contentW / float64(len(d.Totals))
		p.box(margin, y, contentW, 30)
		for i, t := range d.Totals {
			x := margin + w*float64(i)
			p.text(x+6, y+11, 7, true, fit(strings.ToUpper(t.Label), w-10, 7))
			p.text(x+6, y+24, 10, true, t.Value)
		}
		y += 30
	}
	if d.Cancelled {
		fmt.Fprintf(p.page, "0.75 0 0 rg\n")
		p.text(margin+8, y+28, 18, true, "DOCUMENTO CANCELADO")
		if d.CancelledAt != "" {
			p.text(margin+8, y+44, 9, true, "Cancelado em "+d.CancelledAt)
		}
		fmt.Fprintf(p.page, "0 0 0 rg\n")
	}
	for i, page := range p.pages {
		p.page = page
		p.text(margin, pageH-margin+10, 7, false, fmt.Sprintf("Emitido por fincom. Página %d de %d.", i+1, len(p.pages)))
	}
	return p.bytes(), nil
}

// danfeNumber writes an invoice number as DANFEs print it: nine digits in
// groups of three (000.000.012).
func danfeNumber(n int) string {
	s := fmt.Sprintf("%09d", n)
	return s[:len(s)-6] + "." + s[len(s)-6:len(s)-3] + "." + s[len(s)-3:]
}

func isDark(c color.Color) bool {
	r, _, _, _ := c.RGBA()
	return r < 0x8000
}
