package inbox

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fincom/server/certs"
)

// TestOwnUnitsSigner: a note signed by the very certificate fincom holds
// for the issuing unit of the same domain (a note between a firm's own
// units) is taken though its signer chains to no trusted root; the same
// certificate held for a unit of another CNPJ, or another certificate of
// the issuer's, is not.
func TestOwnUnitsSigner(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "docread", "nfe.xml"))
	if err != nil {
		t.Fatal(err)
	}
	pemData, err := os.ReadFile(filepath.Join("..", "..", "testdata", "docread", "supplier.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pemData)
	block, _ := pem.Decode(pemData)
	if block == nil {
		t.Fatal("supplier.pem holds no certificate")
	}
	der := block.Bytes
	other, err := certs.TestCertificate("Outra", "58716523000119", time.Date(2017, 1, 2, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	icp, err := certs.SignerPool("")
	if err != nil {
		t.Fatal(err)
	}
	const recipient = "11222333000181"
	for _, c := range []struct {
		name string
		own  map[string][][]byte
		ok   bool
	}{
		{"the issuing unit's own certificate", map[string][][]byte{"58716523000119": {der}}, true},
		{"another unit's", map[string][][]byte{"99888777000166": {der}}, false},
		{"another certificate of the issuer's unit", map[string][][]byte{"58716523000119": {other.Cert.Raw}}, false},
		{"none", nil, false},
	} {
		_, err := ReadNFe(data, recipient, &Signers{Roots: icp, Own: c.own})
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrSignature)) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// Trusted through the operator's --ca-file instead.
	if _, err := ReadNFe(data, recipient, &Signers{Roots: pool}); err != nil {
		t.Errorf("--ca-file: %v", err)
	}
	// Test mode reads it without judging the signer.
	if _, err := ReadNFe([]byte(strings.Replace(string(data), "<cStat>100</cStat>", "<cStat>302</cStat>", 1)), recipient, nil); err != nil {
		t.Errorf("test mode: %v", err)
	}
}
