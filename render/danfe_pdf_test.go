package render

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fincom/server/needs"
)

// readers finds the tools that read the PDFs back (poppler's and zbar's):
// required in CI, which installs them; elsewhere the test skips without
// them.
func readers(t *testing.T) map[string]string {
	t.Helper()
	tools := map[string]string{}
	for _, name := range []string{"pdftotext", "pdftoppm", "zbarimg"} {
		tools[name] = needs.Tool(t, name, needs.PDFToolsInstall)
	}
	return tools
}

const danfeKey = "35170458716523000119550010000000121000123458"

func danfeSample(items int) DANFEData {
	d := DANFEData{Kind: "nfe", Title: "DANFE", Homologation: true, Number: 12, Series: 1, Direction: "1", Operation: "Venda de mercadoria",
		Key: "3517 0458 7165 2300 0119 5500 1000 0000 1210 0012 3458", Protocol: "135170000012345", IssuedAt: "10/04/2017 10:15",
		AuthorizedAt: "10/04/2017 10:16", Emitter: DANFEParty{Name: "Serviços Técnicos Ação & Cia (Matriz) Ltda", Register: "58.716.523/0001-19",
			IE: "110042490114", Address: "Rua Vergueiro, 1000", District: "Paraíso", City: "São Paulo", State: "SP", Zip: "04101-000", Phone: "1133334444"},
		Recipient: DANFEParty{Name: "Maria da Conceição", Register: "529.982.247-25", Address: "Av. Paulista, 1500", District: "Bela Vista",
			City: "São Paulo", State: "SP", Zip: "01310-100"},
		Taxes: []Labelled{{Label: "BASE DE CÁLC. DO ICMS", Value: "0,00"}, {Label: "VALOR DO ICMS", Value: "0,00"},
			{Label: "V. TOTAL PRODUTOS", Value: "1.467,50"}, {Label: "VALOR DO FRETE", Value: "10,00"}, {Label: "V. TOTAL DA NOTA", Value: "1.477,50"}},
		Freight: FreightName("1"), Payments: []Labelled{{Label: "Boleto Bancário", Value: "1.477,50"}},
		AdditionalInfo: "Documento emitido em ambiente de homologação."}
	for i := range items {
		d.Items = append(d.Items, DocumentLine{Item: i + 1, Code: fmt.Sprint(i + 1), Description: fmt.Sprintf(`Item %d \ peça (avulsa)`, i+1),
			NCM: "84713012", CST: "0102", CFOP: "5102", Unit: "UN", Quantity: "1,00", UnitValue: "24,45", Total: "24,45"})
	}
	return d
}

// pdfText is pdftotext's reading of a PDF.
func pdfText(t *testing.T, tools map[string]string, b []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "doc.pdf")
	os.WriteFile(file, b, 0o644)
	out, err := exec.Command(tools["pdftotext"], "-layout", file, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v %s", err, out)
	}
	return string(out)
}

// zbar rasterizes a PDF's first page with pdftoppm and reads its code with
// zbarimg, with the symbology given (code128, qrcode).
func zbar(t *testing.T, tools map[string]string, b []byte, symbology string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "doc.pdf")
	os.WriteFile(file, b, 0o644)
	if out, err := exec.Command(tools["pdftoppm"], "-r", "200", "-png", "-f", "1", "-l", "1", "-singlefile", file, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	out, err := exec.Command(tools["zbarimg"], "--raw", "-q", "-Sdisable", "-S"+symbology+".enable", filepath.Join(dir, "page.png")).Output()
	if err != nil {
		t.Fatalf("zbarimg: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestDANFEPDF: the NF-e's A4 DANFE is read by poppler's tools, which know
// nothing of fincom: the manual's blocks, every page's test-environment
// notice, a second page of items, and its bar code, read by zbarimg as the
// access key.
func TestDANFEPDF(t *testing.T) {
	t.Parallel()
	b, err := DANFEPDF(danfeSample(60))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("%PDF-1.4")) || !bytes.Contains(b, []byte("/Count 2")) || !bytes.HasSuffix(b, []byte("%%EOF\n")) {
		t.Fatalf("not a two-page PDF: %.100q", b)
	}
	tools := readers(t)
	text := pdfText(t, tools, b)
	for _, want := range []string{"DANFE", "Nº 000.000.012", "SÉRIE 001", "SERVIÇOS TÉCNICOS AÇÃO & CIA (MATRIZ) LTDA", "RECEBEMOS DE",
		"NATUREZA DA OPERAÇÃO", "Venda de mercadoria", "PROTOCOLO DE AUTORIZAÇÃO DE USO", "135170000012345", "INSCRIÇÃO ESTADUAL", "110042490114",
		"DESTINATÁRIO / REMETENTE", "Maria da Conceição", "01310-100", "CÁLCULO DO IMPOSTO", "V. TOTAL DA NOTA", "1.477,50",
		"TRANSPORTADOR / VOLUMES TRANSPORTADOS", "1-Por conta do Dest", "DADOS DOS PRODUTOS / SERVIÇOS", `Item 1 \ peça (avulsa)`, "0102",
		"Item 60", "FOLHA 2/2", "DADOS ADICIONAIS", "RESERVADO AO FISCO", "Página 2 de 2"} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext did not find %q in:\n%s", want, text)
		}
	}
	for _, notice := range []string{"SEM VALOR FISCAL", "EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO"} {
		if n := strings.Count(text, notice); n < 2 {
			t.Errorf("%q on %d pages, want every page", notice, n)
		}
	}
	if got := zbar(t, tools, b, "code128"); got != danfeKey {
		t.Fatalf("zbarimg read %q", got)
	}
}

// TestConsumerDANFE: the NFC-e's receipt is 80 mm wide, says it is of the
// test environment, and its QR code is read back by zbarimg as the
// document's qrCode.
func TestConsumerDANFE(t *testing.T) {
	t.Parallel()
	d := danfeSample(3)
	d.Kind, d.Title = "nfce", "DANFE NFC-e"
	d.QR = "https://www.homologacao.nfce.fazenda.sp.gov.br/qrcode?p=35261111222333000181650010000000071123456780|2|2|1|DFE86E91E20826FB8CE918BB33F168963835ECAD"
	d.ConsultURL = "https://www.homologacao.nfce.fazenda.sp.gov.br/NFCeConsultaPublica"
	d.Totals = []Labelled{{Label: "QTD. TOTAL DE ITENS", Value: "3"}, {Label: "VALOR TOTAL R$", Value: "73,35"}}
	b, err := DANFEPDF(d)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("/MediaBox [0 0 226 ")) {
		t.Fatal("not an 80 mm receipt")
	}
	tools := readers(t)
	text := pdfText(t, tools, b)
	for _, want := range []string{"Documento Auxiliar da Nota Fiscal de Consumidor", "EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO", "SEM VALOR",
		"VALOR TOTAL R$", "73,35", "Consulte pela Chave de Acesso em", "CONSUMIDOR - CPF/CNPJ: 529.982.247-25", "NFC-e nº 12", "Protocolo de autorização"} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext did not find %q in:\n%s", want, text)
		}
	}
	if got := zbar(t, tools, b, "qrcode"); got != d.QR {
		t.Fatalf("zbarimg read %q, want %q", got, d.QR)
	}
}

// TestDANFEPDFCancelledService: an NFS-e's note has no bar code, shows its
// service and verification code, and a cancelled one says so.
func TestDANFEPDFCancelledService(t *testing.T) {
	t.Parallel()
	d := DANFEData{Kind: "nfse", Title: "NFS-e", Homologation: true, Number: 3, Series: 1, Verification: "60425773", Protocol: "355265179574907",
		IssuedAt: "22/11/2026 09:00", Emitter: DANFEParty{Name: "Alfa"}, Recipient: DANFEParty{Name: "Beta"},
		Service:   "01.07 — Suporte técnico em informática, inclusive instalação, configuração e manutenção de programas de computação e bancos de dados " + strings.Repeat("e mais ", 30),
		Cancelled: true, CancelledAt: "22/11/2026 10:00"}
	b, err := DANFEPDF(d)
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, readers(t), b)
	for _, want := range []string{"NFS-e", "60425773", "Suporte técnico em informática", "DOCUMENTO CANCELADO", "Cancelado em 22/11/2026 10:00",
		"EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO"} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext did not find %q in:\n%s", want, text)
		}
	}
	if strings.Contains(text, "CHAVE DE ACESSO") {
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
		d.Emitter.Name, d.Items[0].Description, d.Items[1].Total, d.Service = emitter, item, value, item
		if _, err := DANFEPDF(d); err != nil {
			t.Fatal(err)
		}
	})
}
