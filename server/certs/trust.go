package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"embed"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"net/http"
	"os"
	"time"
)

// icpBrasil holds the roots of the ICP-Brasil chain ("Autoridade
// Certificadora Raiz Brasileira" v5 to v12, as the ITI publishes them):
// SEFAZ, the national NFS-e system and many banks serve certificates of
// that chain, which system trust stores lack.
//
//go:embed icpbrasil/*.crt
var icpBrasil embed.FS

// ErrNoCertificates is a --ca-file holding no PEM certificate.
var ErrNoCertificates = errors.New("no PEM certificate in the file")

// ICPBrasilRoots answers the embedded ICP-Brasil roots.
func ICPBrasilRoots() ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	err := fs.WalkDir(icpBrasil, "icpbrasil", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := icpBrasil.ReadFile(path)
		if err != nil {
			return err
		}
		b, _ := pem.Decode(data)
		if b == nil || b.Type != "CERTIFICATE" {
			return fmt.Errorf("%s: %w", path, ErrNoCertificates)
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// TrustPool answers the roots every outbound TLS connection of fincom
// trusts (webhook deliveries, SMTP, and the fiscal and payment services):
// the system's (Go's pool, which honours SSL_CERT_FILE and SSL_CERT_DIR),
// the embedded ICP-Brasil roots, and the PEM certificates of caFile
// (serve --ca-file) when given, for an operator's own authority or a
// local double's (TestTrustPool).
func TrustPool(caFile string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	roots, err := ICPBrasilRoots()
	if err != nil {
		return nil, fmt.Errorf("icp-brasil roots: %w", err)
	}
	for _, c := range roots {
		pool.AddCert(c)
	}
	return pool, addCAFile(pool, caFile)
}

// SignerPool answers the roots a signer of a document fincom takes in (a
// supplier's NF-e) must chain to: the embedded ICP-Brasil roots and the
// PEM certificates of caFile when given, the same file outbound TLS
// trusts. The system's roots are not among them: a web certificate
// signs no fiscal document.
func SignerPool(caFile string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	roots, err := ICPBrasilRoots()
	if err != nil {
		return nil, fmt.Errorf("icp-brasil roots: %w", err)
	}
	for _, c := range roots {
		pool.AddCert(c)
	}
	return pool, addCAFile(pool, caFile)
}

// addCAFile adds the PEM certificates of caFile to pool. Its errors never
// show the file's content.
func addCAFile(pool *x509.CertPool, caFile string) error {
	if caFile == "" {
		return nil
	}
	data, err := os.ReadFile(caFile)
	if err != nil {
		return fmt.Errorf("--ca-file: %w", err)
	}
	if !pool.AppendCertsFromPEM(data) {
		return fmt.Errorf("--ca-file %s: %w", caFile, ErrNoCertificates)
	}
	return nil
}

// MutualClient is the HTTP client of a call to an authority or a PSP:
// MutualTLS, no proxy, no redirect followed, each step bounded by timeout.
func MutualClient(c Certificate, roots *x509.CertPool, timeout time.Duration) *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: nil, TLSHandshakeTimeout: timeout, ResponseHeaderTimeout: timeout,
		TLSClientConfig: MutualTLS(c, roots), IdleConnTimeout: idleConnTimeout, MaxIdleConnsPerHost: 4},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// MutualTLS is the TLS of a call to an authority or a PSP: TLS 1.2 or
// newer, the server's chain checked against roots (TrustPool), and c
// presented as the client's certificate, with its intermediates.
func MutualTLS(c Certificate, roots *x509.CertPool) *tls.Config {
	presented := [][]byte{c.Cert.Raw}
	for _, ic := range c.Chain {
		presented = append(presented, ic.Raw)
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots,
		Certificates: []tls.Certificate{{Certificate: presented, PrivateKey: c.Key, Leaf: c.Cert}}}
}

// LoopbackServer is the server of a local party (fincom's own SEFAZ,
// national NFS-e system or PSP) serving h: TLS 1.2 or newer with a
// Loopback certificate, asking every client for a certificate (any: the
// party judges what it needs). It answers the certificate its clients
// trust.
func LoopbackServer(h http.Handler) (*http.Server, *x509.Certificate, error) {
	cert, err := Loopback(time.Now())
	if err != nil {
		return nil, nil, err
	}
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAnyClientCert}}, cert.Leaf, nil
}

// Local is a LoopbackServer listening on a free loopback port: its base
// URL and the roots its clients trust it by.
type Local struct {
	Base  string
	Roots *x509.CertPool
	srv   *http.Server
}

// StartLocal serves h as a local party on a free loopback port
// (LoopbackServer) until Close.
func StartLocal(h http.Handler) (*Local, error) {
	srv, leaf, err := LoopbackServer(h)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &Local{Base: "https://" + ln.Addr().String(), Roots: x509.NewCertPool(), srv: srv}
	l.Roots.AddCert(leaf)
	go srv.ServeTLS(ln, "", "")
	return l, nil
}

// Close stops the server (nil: nothing to stop).
func (l *Local) Close() error {
	if l == nil {
		return nil
	}
	return l.srv.Close()
}

// Loopback is a self-signed TLS certificate for 127.0.0.1, ::1 and
// localhost, valid for a year from now: the local authorities' (fincom
// fiscal local-authority, test mode).
func Loopback(now time.Time) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: "fincom local authority"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0), KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}
