package pix

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fincom/server/needs"

	"github.com/shopspring/decimal"
)

// The central bank manual's static example (shared/data/README.md).
const manual = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"

func TestCRC(t *testing.T) {
	if got := CRC16("123456789"); got != 0x29B1 {
		t.Fatalf("CRC16 check value = %04X, want 29B1", got)
	}
}

func TestManualExample(t *testing.T) {
	got, err := Code{Key: "123e4567-e12b-12d1-a456-426655440000", Name: "Fulano de Tal", City: "BRASILIA"}.Payload()
	if err != nil {
		t.Fatal(err)
	}
	if got != manual {
		t.Fatalf("payload\n%s\nwant\n%s", got, manual)
	}
	if !Valid(manual) {
		t.Fatal("manual example not valid")
	}
	bad := manual[:len(manual)-1] + "E"
	if Valid(bad) {
		t.Fatal("bad CRC accepted")
	}
}

func TestDynamicAndAmount(t *testing.T) {
	p, err := Code{URL: "pix.example.com/qr/v2/abc123", Amount: decimal.RequireFromString("1026.5"), Name: "Padaria Pão Quente Ltda ME",
		City: "São José dos Campos", TxID: "PV000001P1"}.Payload()
	if err != nil {
		t.Fatal(err)
	}
	if !Valid(p) {
		t.Fatalf("invalid %s", p)
	}
	for _, part := range []string{"010212", "25", "5925Padaria Pao Quente Ltda M", "6015Sao Jose dos Ca", "62070503***"} {
		if !bytes.Contains([]byte(p), []byte(part)) {
			t.Errorf("payload %s lacks %s", p, part)
		}
	}
	// A dynamic code's amount and txid are in the payload at its location.
	if bytes.Contains([]byte(p), []byte("54071026.50")) || bytes.Contains([]byte(p), []byte("PV000001P1")) {
		t.Errorf("dynamic payload %s carries the amount or txid", p)
	}
	s, err := Code{Key: "fin@acme.com.br", Amount: decimal.RequireFromString("1026.5"), Name: "Padaria", City: "Sao Paulo",
		TxID: "PV000001P1"}.Payload()
	if err != nil || !bytes.Contains([]byte(s), []byte("54071026.50")) || !bytes.Contains([]byte(s), []byte("0510PV000001P1")) {
		t.Errorf("static payload %s %v", s, err)
	}
	if _, err := (Code{Key: "k", Name: "N", City: "C", TxID: "has space"}).Payload(); err == nil {
		t.Error("bad txid accepted")
	}
	if _, err := (Code{Name: "N", City: "C"}).Payload(); err == nil {
		t.Error("no key nor URL accepted")
	}
}

func TestQRPNG(t *testing.T) {
	b, err := QRPNG(manual, 256)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() != 256 {
		t.Fatalf("png: %v %v", img.Bounds(), err)
	}
}

// TestQRDecodes reads the QR code back with zbarimg (Debian's zbar-tools),
// a reader that knows nothing of fincom.
func TestQRDecodes(t *testing.T) {
	zbar := needs.Tool(t, "zbarimg", needs.PDFToolsInstall)
	b, err := QRPNG(manual, 320)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "qr.png")
	os.WriteFile(path, b, 0o644)
	out, err := exec.Command(zbar, "--raw", "-q", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != manual {
		t.Fatalf("zbarimg read %q", got)
	}
}
