package certs

import (
	"crypto/x509"
	"embed"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
	if caFile == "" {
		return pool, nil
	}
	data, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("--ca-file: %w", err)
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("--ca-file %s: %w", caFile, ErrNoCertificates)
	}
	return pool, nil
}
