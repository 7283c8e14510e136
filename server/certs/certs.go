// Package certs keeps a unit's digital certificate (the ICP-Brasil A1 an
// issuer signs its fiscal documents with): it reads the PKCS#12 file the
// firm receives, checks it belongs to the unit and is valid today, seals
// its private key with the operator's secrets key before the key touches
// a domain file, and makes the self-signed test certificates of test mode.
package certs

import (
	"bytes"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"sync"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// Errors of a certificate that cannot be installed or used.
var (
	ErrExpired     = errors.New("the certificate has expired")
	ErrNotYetValid = errors.New("the certificate is not valid yet")
	ErrOtherCNPJ   = errors.New("the certificate belongs to another CNPJ")
	ErrNoCNPJ      = errors.New("the certificate names no CNPJ (ICP-Brasil e-CNPJ certificates carry it)")
	ErrNoKey       = errors.New("the certificate has no RSA private key")
	ErrSealed      = errors.New("the sealed key does not open with this secrets key")
	ErrPassword    = errors.New("the certificate's password is wrong")
)

// Keyring seals secrets (private keys, the NFC-e CSC) with the operator's
// 32-byte key: what a domain file and its backups hold is ciphertext.
type Keyring struct{ aead cipher.AEAD }

// NewKeyring makes a keyring from a 32-byte key.
func NewKeyring(key []byte) (*Keyring, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("a secrets key is 32 bytes, not %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Keyring{aead}, nil
}

// ReadKeyFile reads a secrets key file (ReadKey).
func ReadKeyFile(path string) (*Keyring, error) {
	key, err := ReadKey(path)
	if err != nil {
		return nil, fmt.Errorf("secrets key: %w", err)
	}
	return NewKeyring(key)
}

// ReadKey reads a key file: 32 raw bytes, or 64 hex digits, or their
// base64, with or without a trailing newline. A file others may read is
// refused.
func ReadKey(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s is readable by others (chmod 600 it)", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key := decodeKey(b)
	if len(key) != 32 {
		return nil, fmt.Errorf("%s: a key is 32 bytes (or 64 hex digits), not %d", path, len(key))
	}
	return key, nil
}

func decodeKey(b []byte) []byte {
	if len(b) == 32 {
		return b
	}
	s := strings.TrimSpace(string(b))
	if k, err := hex.DecodeString(s); err == nil && len(k) == 32 {
		return k
	}
	if k, err := base64.StdEncoding.DecodeString(s); err == nil && len(k) == 32 {
		return k
	}
	return b
}

// WriteKeyFile makes a new random secrets key file, readable by its owner
// only; an existing file is kept and read.
func WriteKeyFile(path string) (*Keyring, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return ReadKeyFile(path)
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write([]byte(hex.EncodeToString(key) + "\n")); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return NewKeyring(key)
}

// Seal encrypts plaintext: nonce then ciphertext.
func (k *Keyring) Seal(plaintext []byte) []byte {
	nonce := make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return k.aead.Seal(nonce, nonce, plaintext, nil)
}

// Open decrypts what Seal made.
func (k *Keyring) Open(sealed []byte) ([]byte, error) {
	n := k.aead.NonceSize()
	if len(sealed) < n {
		return nil, ErrSealed
	}
	out, err := k.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return nil, ErrSealed
	}
	return out, nil
}

// Certificate is a unit's certificate and its private key.
type Certificate struct {
	Cert *x509.Certificate
	Key  crypto.Signer
	// Chain are the intermediates between Cert and its root, as its
	// PKCS#12 file carried them: presented with it in mutual TLS (an
	// ICP-Brasil A1 certificate needs them to be verified).
	Chain []*x509.Certificate
}

// ChainDER is the chain's DER, one certificate after another, as the
// store keeps it.
func (c Certificate) ChainDER() []byte {
	var out []byte
	for _, ic := range c.Chain {
		out = append(out, ic.Raw...)
	}
	return out
}

// ReadPFX reads a PKCS#12 (.pfx, .p12) file: the leaf certificate and its
// RSA key (NF-e signatures are RSA).
func ReadPFX(data []byte, password string) (Certificate, error) {
	key, cert, cas, err := pkcs12.DecodeChain(data, password)
	if errors.Is(err, pkcs12.ErrIncorrectPassword) {
		return Certificate{}, ErrPassword
	}
	if err != nil {
		return Certificate{}, fmt.Errorf("read the certificate file: %w", err)
	}
	rk, ok := key.(*rsa.PrivateKey)
	if !ok {
		return Certificate{}, ErrNoKey
	}
	// The intermediates are kept; a root (self-signed) the file may carry
	// is the peer's to trust, not ours to present.
	var chain []*x509.Certificate
	for _, ca := range cas {
		if !bytes.Equal(ca.RawSubject, ca.RawIssuer) {
			chain = append(chain, ca)
		}
	}
	return Certificate{Cert: cert, Key: rk, Chain: chain}, nil
}

// icpCNPJ is ICP-Brasil's otherName of a legal entity's CNPJ
// (DOC-ICP-04: 2.16.76.1.3.3).
var icpCNPJ = asn1.ObjectIdentifier{2, 16, 76, 1, 3, 3}

// CNPJ answers the CNPJ a certificate names: the ICP-Brasil otherName of
// its subject alternative names, else the digits after the last colon of
// its common name ("EMPRESA LTDA:11222333000181").
func CNPJ(c *x509.Certificate) string {
	if v := sanCNPJ(c); v != "" {
		return v
	}
	if _, after, ok := cutLast(c.Subject.CommonName, ":"); ok {
		if v := alnum(after); len(v) == 14 {
			return v
		}
	}
	return ""
}

// sanCNPJ is the CNPJ of the ICP-Brasil otherName, or "".
func sanCNPJ(c *x509.Certificate) string {
	for _, ext := range c.Extensions {
		if !ext.Id.Equal(asn1.ObjectIdentifier{2, 5, 29, 17}) {
			continue
		}
		var names []asn1.RawValue
		if _, err := asn1.Unmarshal(ext.Value, &names); err != nil {
			continue
		}
		for _, n := range names {
			if n.Tag != 0 || n.Class != asn1.ClassContextSpecific {
				continue
			}
			var other struct {
				ID    asn1.ObjectIdentifier
				Value asn1.RawValue `asn1:"explicit,tag:0"`
			}
			if _, err := asn1.UnmarshalWithParams(n.FullBytes, &other, "tag:0"); err != nil || !other.ID.Equal(icpCNPJ) {
				continue
			}
			var s asn1.RawValue
			if _, err := asn1.Unmarshal(other.Value.Bytes, &s); err != nil {
				continue
			}
			if v := alnum(string(s.Bytes)); len(v) >= 14 {
				return v[:14]
			}
		}
	}
	return ""
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// alnum keeps the digits and capital letters of s (an alphanumeric CNPJ
// has letters).
func alnum(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Check answers why a certificate cannot sign for the CNPJ at now, or nil.
// An e-CNPJ covers its firm's branches: the root (the first 8 of the 14
// characters) must match.
func Check(c *x509.Certificate, cnpj string, now time.Time) error {
	switch {
	case now.Before(c.NotBefore):
		return fmt.Errorf("%w (from %s)", ErrNotYetValid, c.NotBefore.Format(time.DateOnly))
	case now.After(c.NotAfter):
		return fmt.Errorf("%w (on %s)", ErrExpired, c.NotAfter.Format(time.DateOnly))
	}
	got := CNPJ(c)
	if got == "" {
		return ErrNoCNPJ
	}
	if len(cnpj) != 14 || got[:8] != cnpj[:8] {
		return fmt.Errorf("%w: it names %s, the unit is %s", ErrOtherCNPJ, got, cnpj)
	}
	return nil
}

// testKeys caches the RSA keys of test certificates by CNPJ: making a
// 2048-bit key takes a tenth of a second, and a test suite issues for
// the same units again and again.
var testKeys sync.Map // string -> *rsa.PrivateKey

// TestCertificate makes a self-signed certificate for a firm, shaped as
// an ICP-Brasil e-CNPJ (the CNPJ in its common name and otherName) and
// marked in its organization as a test certificate: fiscal documents
// signed with it verify, and no authority would accept them.
func TestCertificate(name, cnpj string, now time.Time) (Certificate, error) {
	var key *rsa.PrivateKey
	if k, ok := testKeys.Load(cnpj); ok {
		key = k.(*rsa.PrivateKey)
	} else {
		var err error
		if key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			return Certificate{}, err
		}
		testKeys.Store(cnpj, key)
	}
	value, err := asn1.Marshal(asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagOctetString, Bytes: []byte(cnpj)})
	if err != nil {
		return Certificate{}, err
	}
	other, err := asn1.Marshal(struct {
		ID    asn1.ObjectIdentifier
		Value asn1.RawValue
	}{icpCNPJ, asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: value}})
	if err != nil {
		return Certificate{}, err
	}
	other[0] = 0xa0 // [0] IMPLICIT: otherName in GeneralNames
	san, err := asn1.Marshal([]asn1.RawValue{{FullBytes: other}})
	if err != nil {
		return Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:    serial,
		Subject:         pkix.Name{CommonName: upperASCII(name) + ":" + cnpj, Organization: []string{"CERTIFICADO DE TESTE fincom - SEM VALOR"}, Country: []string{"BR"}},
		NotBefore:       now.Add(-time.Hour),
		NotAfter:        now.AddDate(5, 0, 0),
		KeyUsage:        x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		ExtKeyUsage:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageEmailProtection},
		ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{2, 5, 29, 17}, Value: san}},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return Certificate{}, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return Certificate{}, err
	}
	return Certificate{Cert: cert, Key: key}, nil
}

// IsTest reports a certificate TestCertificate made.
func IsTest(c *x509.Certificate) bool {
	return len(c.Subject.Organization) > 0 && strings.HasPrefix(c.Subject.Organization[0], "CERTIFICADO DE TESTE fincom")
}

func upperASCII(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if r < 0x80 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// SealKey seals a certificate's private key (PKCS#8) for storage.
func (k *Keyring) SealKey(c Certificate) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(c.Key)
	if err != nil {
		return nil, err
	}
	return k.Seal(der), nil
}

// OpenCertificate rebuilds a certificate from its DER, its chain's (DER
// one after another, or nil) and its sealed key.
func (k *Keyring) OpenCertificate(certDER, chainDER, sealedKey []byte) (Certificate, error) {
	cert, err := x509.ParseCertificate(certDER)
	if err != nil {
		return Certificate{}, err
	}
	var chain []*x509.Certificate
	if len(chainDER) > 0 {
		if chain, err = x509.ParseCertificates(chainDER); err != nil {
			return Certificate{}, fmt.Errorf("the certificate's chain: %w", err)
		}
	}
	der, err := k.Open(sealedKey)
	if err != nil {
		return Certificate{}, err
	}
	key, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return Certificate{}, err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return Certificate{}, ErrNoKey
	}
	return Certificate{Cert: cert, Key: signer, Chain: chain}, nil
}
