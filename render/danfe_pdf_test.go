package render

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readers finds the tools that read the PDFs back (poppler's and zbar's):
// required in CI, which installs them; elsewhere the test skips without
// them.
func readers(t *testing.T) map[string]string {
	t.Helper()
	tools := map[string]string{}
	for _, name := range []string{"pdftotext", "pdftoppm", "zbarimg"} {
		path, err := exec.LookPath(name)
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed (.ci/run installs poppler-utils and zbar-tools)", name)
			}
			t.Skipf("%s not installed", name)
		}
		tools[name] = path
	}
	return tools
}

const danfeKey = "35170458716523000119550010000000121000123458"

func danfeSample(items int) DANFEData {
	d := DANFEData{Title: "DANFE", Number: 12, Series: 1, Key: "3517 0458 7165 2300 0119 5500 1000 0000 1210 0012 3458",
		Protocol: "135170000012345", IssuedAt: "10/04/2017 10:15", Emitter: "Serviços Técnicos Ação & Cia (Matriz) Ltda",
		EmitterRegister: "58.716.523/0001-19", Recipient: "Maria da Conceição", RecipientRegister: "52998224725",
		Totals: []Labelled{{Label: "Frete", Value: "R$ 10,00"}, {Label: "Valor total da nota", Value: "R$ 1.477,50"}}}
	for i := range items {
		d.Items = append(d.Items, DocumentLine{Description: fmt.Sprintf(`Item %d \ peça (avulsa)`, i+1), NCM: "84713012", CFOP: "5102",
			Unit: "UN", Quantity: "1", UnitValue: "R$ 24,45", Total: "R$ 24,45"})
	}
	return d
}

// TestDANFEPDF: the PDF is read by poppler's tools, which know nothing of
// fincom: its text (accents, delimiters, a second page of items) by
// pdftotext, and its bar code, rasterized by pdftoppm, by zbarimg as the
// access key.
func TestDANFEPDF(t *testing.T) {
	b, err := DANFEPDF(danfeSample(60))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("%PDF-1.4")) || !bytes.Contains(b, []byte("/Count 2")) || !bytes.HasSuffix(b, []byte("%%EOF\n")) {
		t.Fatalf("not a two-page PDF: %.100q", b)
	}
	tools := readers(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "danfe.pdf")
	os.WriteFile(file, b, 0o644)
	out, err := exec.Command(tools["pdftotext"], "-layout", file, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v %s", err, out)
	}
	text := string(out)
	for _, want := range []string{"DANFE", "Nº 000.000.012", "Série 1", "Serviços Técnicos Ação & Cia (Matriz) Ltda", "3517 0458 7165 2300 0119 5500 1000 0000 1210 0012 3458",
		`Item 1 \ peça (avulsa)`, "Item 60", "continuação", "R$ 1.477,50", "Página 2 de 2"} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext did not find %q in:\n%s", want, text)
		}
	}
	if out, err := exec.Command(tools["pdftoppm"], "-r", "200", "-png", "-f", "1", "-l", "1", "-singlefile", file, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	out, err = exec.Command(tools["zbarimg"], "--raw", "-q", "-Sdisable", "-Scode128.enable", filepath.Join(dir, "page.png")).Output()
	if err != nil {
		t.Fatalf("zbarimg: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != danfeKey {
		t.Fatalf("zbarimg read %q", got)
	}
}

// TestDANFEPDFCancelledService: an NFS-e has no bar code, shows its
// service and verification code, and a cancelled one says so.
func TestDANFEPDFCancelledService(t *testing.T) {
	d := DANFEData{Title: "NFS-e", Number: 3, Series: 1, Verification: "60425773", Protocol: "355265179574907", IssuedAt: "22/11/2026 09:00",
		Emitter: "Alfa", Recipient: "Beta", Service: "01.07 — Suporte técnico em informática, inclusive instalação, configuração e manutenção de programas de computação e bancos de dados " + strings.Repeat("e mais ", 30),
		Cancelled: true, CancelledAt: "22/11/2026 10:00"}
	b, err := DANFEPDF(d)
	if err != nil {
		t.Fatal(err)
	}
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext not installed")
	}
	file := filepath.Join(t.TempDir(), "nfse.pdf")
	os.WriteFile(file, b, 0o644)
	out, err := exec.Command(pdftotext, file, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NFS-e", "60425773", "Suporte técnico em informática", "DOCUMENTO CANCELADO", "Cancelado em 22/11/2026 10:00"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("pdftotext did not find %q in:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "CHAVE DE ACESSO") {
		t.Error("an NFS-e without a key shows a key")
	}
}

// FuzzDANFEPDF: whatever the names and descriptions hold, the DANFE is
// made, and every string in its pages is a closed PDF literal: escaped
// delimiters, no control characters.
func FuzzDANFEPDF(f *testing.F) {
	f.Add("Ação (Matriz) \\ Ltda", "peça\x00\n)(", "R$ 1,00")
	f.Add("😀 emoji", "中文", "")
	f.Fuzz(func(t *testing.T, emitter, item, value string) {
		s := pdfString(emitter + item)
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c < 0x20:
				t.Fatalf("control byte in %q", s)
			case c == '\\':
				i++ // an escape: the next byte is literal
				if i == len(s) || (s[i] != '\\' && s[i] != '(' && s[i] != ')') {
					t.Fatalf("lone backslash in %q", s)
				}
			case c == '(' || c == ')':
				t.Fatalf("unescaped delimiter in %q", s)
			}
		}
		d := danfeSample(3)
		d.Emitter, d.Items[0].Description, d.Items[1].Total, d.Service = emitter, item, value, item
		if _, err := DANFEPDF(d); err != nil {
			t.Fatal(err)
		}
	})
}
