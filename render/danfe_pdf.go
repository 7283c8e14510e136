package render

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"image"
	"image/color"
	"strings"
	"unicode/utf8"

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
	// width and height of the pages in points; A4 when zero.
	width, height float64
}

// size is the page's width and height.
func (p *pdf) size() (float64, float64) {
	if p.width == 0 {
		return pageW, pageH
	}
	return p.width, p.height
}

// top turns a distance from the top of the page into PDF's y.
func (p *pdf) top(y float64) float64 {
	_, h := p.size()
	return h - y
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
	fmt.Fprintf(p.page, "BT /%s %.1f Tf %.2f %.2f Td (%s) Tj ET\n", font, size, x, p.top(y), pdfString(s))
}

// box strokes a rectangle whose top left corner is (x, y from the top).
func (p *pdf) box(x, y, w, h float64) {
	fmt.Fprintf(p.page, "0.6 w %.2f %.2f %.2f %.2f re S\n", x, p.top(y)-h, w, h)
}

// bar fills a rectangle (a bar of a bar code).
func (p *pdf) bar(x, y, w, h float64) {
	fmt.Fprintf(p.page, "%.3f %.3f %.3f %.3f re f\n", x, p.top(y)-h, w, h)
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
		pw, ph := p.size()
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.0f %.0f] /Contents %d 0 R /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> >>",
			pw, ph, 6+2*i))
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
	var words []string
	for _, w := range strings.Fields(s) {
		// A word longer than a line (an address) is broken where the line
		// ends.
		for r := []rune(w); len(r) > 0; {
			n := min(len(r), max)
			words = append(words, string(r[:n]))
			r = r[n:]
		}
	}
	for _, w := range words {
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
