package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBoletoPDF: poppler reads the boleto's text, and zbarimg its bar
// code, rasterized, as the 44 digits it was drawn from.
func TestBoletoPDF(t *testing.T) {
	const barcode = "00196758600001026560000001149718606852452211"
	b, err := BoletoPDF(BoletoPageData{Bank: "001-9", Seller: "Acme Serviços Ltda", SellerCNPJ: "11.222.333/0001-81", Customer: "Maria da Conceição",
		OrderCode: "PV-000012", Description: "Manutenção (novembro)", Amount: "R$ 1.026,56", DueDate: "10/12/2026",
		Line: FormatLine("00190000090114971860168524522114675860000102656")}, barcode)
	if err != nil {
		t.Fatal(err)
	}
	tools := readers(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "boleto.pdf")
	os.WriteFile(file, b, 0o644)
	out, err := exec.Command(tools["pdftotext"], file, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v %s", err, out)
	}
	for _, want := range []string{"001-9", "00190.00009 01149.718601 68524.522114 6 75860000102656", "Acme Serviços Ltda (CNPJ 11.222.333/0001-81)",
		"Maria da Conceição", "R$ 1.026,56", "10/12/2026", "Manutenção (novembro)", "FICHA DE COMPENSAÇÃO"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("pdftotext did not find %q in:\n%s", want, out)
		}
	}
	if out, err := exec.Command(tools["pdftoppm"], "-r", "300", "-png", "-singlefile", file, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	out, err = exec.Command(tools["zbarimg"], "--raw", "-q", "-Sdisable", "-Si25.enable", filepath.Join(dir, "page.png")).Output()
	if err != nil {
		t.Fatalf("zbarimg: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != barcode {
		t.Fatalf("zbarimg read %q", got)
	}
}
