package render

import (
	"bytes"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPages(t *testing.T) {
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
	zbar, err := exec.LookPath("zbarimg")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("zbarimg is not installed (.ci/run installs zbar-tools)")
		}
		t.Skip("zbarimg not installed")
	}
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
