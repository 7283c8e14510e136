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
	t.Parallel()
	const barcode = "00196758600001026560000001149718606852452211"
	d := BoletoPageData{Bank: "001-9", BankName: "Banco do Brasil", Seller: "Acme Serviços Ltda", SellerCNPJ: "11.222.333/0001-81",
		SellerAddress: "Rua Vergueiro, 1000 · Paraíso · São Paulo - SP · CEP 04101-000", Customer: "Maria da Conceição",
		CustomerDocument: "CPF 529.982.247-25", CustomerAddress: "Rua das Flores, 10 · Centro · Campinas - SP · CEP 13010-000",
		OrderCode: "PV-000012", Description: "Manutenção (novembro)", DocumentNumber: "PV-000012/1", DocumentKind: "DM", Acceptance: "N",
		DocumentDate: "20/11/2026", ProcessingDate: "20/11/2026", AgencyCode: "1234-5 / 99887-1", OurNumber: "11497186068-5", Wallet: "17",
		Currency: "R$", Amount: "R$ 1.026,56", DueDate: "10/12/2026", PaymentPlace: "Pagável em qualquer banco, mesmo após o vencimento",
		Instructions: []string{"Após o vencimento, multa de 2% (R$ 20,53) e juros de mora de 1% ao mês (R$ 0,34 ao dia).",
			"Referente ao pedido PV-000012: manutenção preventiva e corretiva dos equipamentos de refrigeração da loja da Rua Augusta, novembro de 2026."},
		Line: FormatLine("00190000090114971860168524522114675860000102656")}
	b, err := BoletoPDF(d, barcode)
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
	for _, want := range []string{"001-9", "00190.00009 01149.718601 68524.522114 6 75860000102656", "Acme Serviços Ltda - CNPJ 11.222.333/0001-81",
		"Maria da Conceição - CPF 529.982.247-25", "R$ 1.026,56", "10/12/2026", "FICHA DE COMPENSAÇÃO", "LOCAL DE PAGAMENTO",
		"Pagável em qualquer banco", "AGÊNCIA / CÓDIGO DO BENEFICIÁRIO", "1234-5 / 99887-1", "NOSSO NÚMERO", "11497186068-5",
		"PV-000012/1", "ESPÉCIE DOC.", "DM", "ACEITE", "DATA PROCESSAMENTO", "20/11/2026", "CARTEIRA", "17", "multa de 2%",
		"Rua Vergueiro, 1000", "CEP 13010-000", "ENDEREÇO DO PAGADOR"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("pdftotext did not find %q in:\n%s", want, out)
		}
	}
	// Every instruction whole, over as many lines as it takes.
	words := strings.Join(strings.Fields(string(out)), " ")
	for _, in := range d.Instructions {
		if !strings.Contains(words, in) {
			t.Errorf("the instruction %q is not whole in:\n%s", in, out)
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

	// Paid: PAGO, and neither a line nor a bar code to pay again.
	d.Paid, d.PaidOn = true, "05/12/2026"
	b, err = BoletoPDF(d, barcode)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, b, 0o644)
	out, _ = exec.Command(tools["pdftotext"], file, "-").CombinedOutput()
	if !strings.Contains(string(out), "PAGO EM 05/12/2026") || strings.Contains(string(out), "00190.00009") {
		t.Errorf("paid boleto:\n%s", out)
	}
	exec.Command(tools["pdftoppm"], "-r", "300", "-png", "-singlefile", file, filepath.Join(dir, "paid")).Run()
	if out, _ := exec.Command(tools["zbarimg"], "--raw", "-q", "-Sdisable", "-Si25.enable", filepath.Join(dir, "paid.png")).Output(); len(out) > 0 {
		t.Errorf("a paid boleto still has a bar code: %s", out)
	}
}
