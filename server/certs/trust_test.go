package certs

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTrustPool: the embedded ICP-Brasil roots are the ITI's (their
// SHA-256 fingerprints as published), each verifies against the pool, and
// a --ca-file adds its certificates or is refused when it holds none.
func TestTrustPool(t *testing.T) {
	t.Parallel()
	roots, err := ICPBrasilRoots()
	if err != nil || len(roots) < 6 {
		t.Fatalf("%d roots, %v", len(roots), err)
	}
	want := map[string]string{
		"Autoridade Certificadora Raiz Brasileira v5":  "CAA53FC6091C6951887C976E378F6EF89AA6377C55D97B6475422B71ED7E9B17",
		"Autoridade Certificadora Raiz Brasileira v10": "6E0BFF069A26994C15DE2C4888CC54AF84882E5495B7FBF66BE9CCFFEC7489F6",
	}
	pool, err := TrustPool("")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range roots {
		sum := sha256.Sum256(c.Raw)
		if w, ok := want[c.Subject.CommonName]; ok && !strings.EqualFold(hex.EncodeToString(sum[:]), w) {
			t.Errorf("%s: fingerprint %x", c.Subject.CommonName, sum)
		}
		delete(want, c.Subject.CommonName)
		if _, err := c.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: c.NotBefore.Add(time.Hour)}); err != nil {
			t.Errorf("%s does not verify against the pool: %v", c.Subject.CommonName, err)
		}
	}
	if len(want) != 0 {
		t.Errorf("roots missing: %v", want)
	}
	// An operator's authority.
	own, err := TestCertificate("Autoridade Local", "11222333000181", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: own.Cert.Raw}), 0o600)
	pool, err = TrustPool(ca)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := own.Cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		t.Errorf("the --ca-file's certificate is not trusted: %v", err)
	}
	empty := filepath.Join(dir, "empty.pem")
	os.WriteFile(empty, []byte("not a certificate"), 0o600)
	if _, err := TrustPool(empty); !errors.Is(err, ErrNoCertificates) {
		t.Errorf("a file without certificates: %v", err)
	}
	if _, err := TrustPool(filepath.Join(dir, "missing.pem")); err == nil {
		t.Error("a missing file was accepted")
	}
}
