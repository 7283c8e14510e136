package certs

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// TestChainPresented: an A1 certificate issued by an intermediate (as
// ICP-Brasil's are) keeps the intermediates its PKCS#12 file carries,
// through sealing and opening, and presents them in mutual TLS: a server
// that trusts only the root verifies the client; the root itself is not
// kept.
func TestChainPresented(t *testing.T) {
	t.Parallel()
	now := time.Now()
	issue := func(cn string, ca bool, parent *x509.Certificate, parentKey *rsa.PrivateKey) (*x509.Certificate, *rsa.PrivateKey) {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
		tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: cn}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
			IsCA: ca, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
		if parent == nil {
			parent, parentKey = tmpl, key
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := x509.ParseCertificate(der)
		return c, key
	}
	root, rootKey := issue("AC Raiz de teste", true, nil, nil)
	inter, interKey := issue("AC Intermediaria de teste", true, root, rootKey)
	leaf, leafKey := issue("MATRIZ:11222333000181", false, inter, interKey)
	pfx, err := pkcs12.Modern.Encode(leafKey, leaf, []*x509.Certificate{inter, root}, "s3nha")
	if err != nil {
		t.Fatal(err)
	}
	read, err := ReadPFX(pfx, "s3nha")
	if err != nil {
		t.Fatal(err)
	}
	if len(read.Chain) != 1 || !read.Chain[0].Equal(inter) {
		t.Fatalf("chain %v", read.Chain)
	}
	key := make([]byte, 32)
	rand.Read(key)
	k, err := NewKeyring(key)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := k.SealKey(read)
	if err != nil {
		t.Fatal(err)
	}
	opened, err := k.OpenCertificate(read.Cert.Raw, read.ChainDER(), sealed)
	if err != nil || len(opened.Chain) != 1 || !opened.Chain[0].Equal(inter) {
		t.Fatalf("opened: %v %v", opened.Chain, err)
	}

	clients := x509.NewCertPool()
	clients.AddCert(root)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.TLS.VerifiedChains[0][0].Subject.CommonName)
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clients}
	srv.StartTLS()
	defer srv.Close()
	servers := x509.NewCertPool()
	servers.AddCert(srv.Certificate())
	resp, err := MutualClient(opened, servers, 5*time.Second).Get(srv.URL)
	if err != nil {
		t.Fatalf("with its chain: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "MATRIZ:11222333000181" {
		t.Errorf("verified as %q", body)
	}
	// Without its intermediate the same certificate is not verified.
	alone := opened
	alone.Chain = nil
	if _, err := MutualClient(alone, servers, 5*time.Second).Get(srv.URL); err == nil {
		t.Error("a leaf without its intermediate was verified")
	}
}
