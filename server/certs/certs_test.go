package certs

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// TestCNPJFromCertificate: the CNPJ is read from the ICP-Brasil otherName,
// as OpenSSL shows it, and the common name.
func TestCNPJFromCertificate(t *testing.T) {
	t.Parallel()
	c, err := TestCertificate("Acme Comércio Ltda", "11222333000181", now)
	if err != nil {
		t.Fatal(err)
	}
	if got := sanCNPJ(c.Cert); got != "11222333000181" {
		t.Fatalf("otherName CNPJ %q", got)
	}
	if got := CNPJ(c.Cert); got != "11222333000181" {
		t.Fatalf("CNPJ %q", got)
	}
	if c.Cert.Subject.CommonName != "ACME COMRCIO LTDA:11222333000181" || !IsTest(c.Cert) {
		t.Fatalf("subject %v", c.Cert.Subject)
	}
	// An outside reader sees the otherName with its OID.
	if _, err := exec.LookPath("openssl"); err == nil {
		path := filepath.Join(t.TempDir(), "c.der")
		os.WriteFile(path, c.Cert.Raw, 0o600)
		out, err := exec.Command("openssl", "x509", "-inform", "DER", "-in", path, "-noout", "-text").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "2.16.76.1.3.3") {
			t.Fatalf("openssl: %v\n%s", err, out)
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	c, _ := TestCertificate("Acme", "11222333000181", now)
	for _, tc := range []struct {
		cnpj string
		at   time.Time
		want error
	}{
		{"11222333000181", now, nil},
		{"11222333000262", now, nil}, // a branch of the same firm
		{"11444777000161", now, ErrOtherCNPJ},
		{"11222333000181", now.Add(-2 * time.Hour), ErrNotYetValid},
		{"11222333000181", now.AddDate(6, 0, 0), ErrExpired},
	} {
		if err := Check(c.Cert, tc.cnpj, tc.at); !errors.Is(err, tc.want) {
			t.Errorf("%s at %s: %v, want %v", tc.cnpj, tc.at, err, tc.want)
		}
	}
}

// TestPFXRoundTrip: a PKCS#12 file as firms receive it is read, and its
// key sealed and opened again; another key does not open it.
func TestPFXRoundTrip(t *testing.T) {
	t.Parallel()
	c, _ := TestCertificate("Acme", "11222333000181", now)
	pfx, err := pkcs12.Modern.Encode(c.Key, c.Cert, nil, "segredo")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadPFX(pfx, "segredo")
	if err != nil || !got.Cert.Equal(c.Cert) {
		t.Fatalf("ReadPFX: %v", err)
	}
	if _, err := ReadPFX(pfx, "errada"); err == nil {
		t.Fatal("a wrong password opened the file")
	}
	key := make([]byte, 32)
	rand.Read(key)
	k, _ := NewKeyring(key)
	sealed, err := k.SealKey(got)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := pkcs12.Modern.Encode(c.Key, c.Cert, nil, "")
	if bytes.Contains(sealed, der[len(der)-64:]) {
		t.Fatal("the sealed key shows its plaintext")
	}
	back, err := k.OpenCertificate(got.Cert.Raw, nil, sealed)
	if err != nil || !back.Cert.Equal(c.Cert) {
		t.Fatalf("OpenCertificate: %v", err)
	}
	rand.Read(key)
	other, _ := NewKeyring(key)
	if _, err := other.OpenCertificate(got.Cert.Raw, nil, sealed); !errors.Is(err, ErrSealed) {
		t.Fatalf("another key: %v", err)
	}
}

func TestKeyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "secrets.key")
	a, err := WriteKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := b.Open(a.Seal([]byte("x"))); err != nil || string(s) != "x" {
		t.Fatalf("the key read back differs: %v", err)
	}
	os.Chmod(path, 0o644)
	if _, err := ReadKeyFile(path); err == nil {
		t.Fatal("a key others can read was accepted")
	}
}
