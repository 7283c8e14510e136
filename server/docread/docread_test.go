package docread

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the sample PDFs and golden files in testdata/docread")

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

const dir = "../../testdata/docread"

// buildPDF writes a valid one-page PDF (Helvetica, WinAnsi) showing lines,
// with its content stream raw or FlateDecode, and a correct xref table.
func buildPDF(lines []string, compress bool) []byte {
	var content bytes.Buffer
	content.WriteString("BT /F1 10 Tf 40 800 Td 14 TL\n")
	for _, l := range lines {
		esc := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(l)
		var latin []byte
		for _, r := range esc {
			latin = append(latin, byte(r))
		}
		fmt.Fprintf(&content, "(%s) Tj T*\n", latin)
	}
	content.WriteString("ET\n")
	stream, filter := content.Bytes(), ""
	if compress {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write(stream)
		w.Close()
		stream, filter = z.Bytes(), " /Filter /FlateDecode"
	}
	var b bytes.Buffer
	var offsets []int
	obj := func(s string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), s)
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>")
	obj(fmt.Sprintf("<< /Length %d%s >>\nstream\n%s\nendstream", len(stream), filter, stream))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

var pdfSamples = map[string]struct {
	lines    []string
	compress bool
}{
	"boleto.pdf": {[]string{
		"Banco do Brasil S.A.   001-9",
		"00190.00009 01149.718601 68524.522114 6 75860000102656",
		"Beneficiário: Distribuidora Paulista de Papelaria Ltda - CNPJ 58.716.523/0001-19",
		"Vencimento 15/07/2018   Valor do Documento R$ 1.026,56",
	}, true},
	"invoice_text.pdf": {[]string{
		"FATURA DE SERVIÇOS No 4471",
		"Prestador: Manutenção Predial Rápida Ltda  CNPJ: 11.444.777/0001-61",
		"Vencimento: 10/03/2026",
		"Valor total: R$ 2.480,00",
	}, false},
}

func sample(t *testing.T, name string) []byte {
	t.Helper()
	path := filepath.Join(dir, name)
	if s, ok := pdfSamples[name]; ok && *update {
		if err := os.WriteFile(path, buildPDF(s.lines, s.compress), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGolden reads every sample and compares the result with its golden
// JSON.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ file, ct string }{
		{"nfe.xml", "application/xml"}, {"nfse_nacional.xml", "application/xml"}, {"nfse_abrasf.xml", "application/xml"},
		{"boleto.pdf", "application/pdf"}, {"invoice_text.pdf", "application/pdf"},
	} {
		t.Run(c.file, func(t *testing.T) {
			r, err := Read(c.ct, sample(t, c.file), now)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.MarshalIndent(r, "", "  ")
			golden := filepath.Join(dir, strings.TrimSuffix(c.file, filepath.Ext(c.file))+".golden.json")
			if *update {
				os.WriteFile(golden, append(got, '\n'), 0o644)
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(got)+"\n" != string(want) {
				t.Errorf("result differs from %s:\n%s", golden, got)
			}
		})
	}
}

func TestHostile(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"billion_laughs.xml", "external_entity.xml"} {
		if _, err := Read("application/xml", sample(t, f), now); !errors.Is(err, ErrUnreadable) {
			t.Errorf("%s: %v", f, err)
		}
	}
	// A stream that inflates past the budget is refused, quickly.
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(bytes.Repeat([]byte("BT (a) Tj ET "), 4<<20))
	w.Close()
	bomb := []byte(fmt.Sprintf("%%PDF-1.4\n1 0 obj\n<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream\nendobj\n", z.Len(), z.Bytes()))
	if _, err := Read("application/pdf", bomb, now); !errors.Is(err, ErrUnreadable) {
		t.Errorf("bomb: %v", err)
	}
	if _, err := Read("image/png", []byte("\x89PNG\r\n\x1a\n"), now); !errors.Is(err, ErrNoOCR) {
		t.Errorf("image: %v", err)
	}
	if _, err := Read("application/pdf", buildPDF([]string{"nothing useful here"}, true), now); !errors.Is(err, ErrUnreadable) {
		t.Errorf("empty pdf: %v", err)
	}
}

func FuzzReadXML(f *testing.F) {
	for _, s := range []string{"nfe.xml", "nfse_nacional.xml", "nfse_abrasf.xml", "billion_laughs.xml"} {
		b, _ := os.ReadFile(filepath.Join(dir, s))
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ReadXML(b)
		if err == nil && len(r.Fields) == 0 {
			t.Fatal("success without fields")
		}
	})
}

func FuzzPDFText(f *testing.F) {
	f.Add(buildPDF([]string{"Vencimento 10/03/2026 Valor total 1,00"}, true))
	f.Add(buildPDF([]string{"(nested (parens)) \\ \\101"}, false))
	f.Add([]byte("%PDF-1.4 stream\nBT <414243> Tj [(a) -300 (b)] TJ ET endstream"))
	f.Fuzz(func(t *testing.T, b []byte) {
		text, err := PDFText(b)
		if err == nil {
			ReadText(text, now)
		}
	})
}
