// Package https serves fincom over TLS by itself: a certificate obtained
// and renewed by ACME (Let's Encrypt or any ACME server, through
// golang.org/x/crypto/acme/autocert), or the firm's own certificate files,
// read again when they change; and the plain-HTTP side, which answers the
// ACME HTTP-01 challenge and sends everything else to https.
package https

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"
)

// LetsEncrypt is Let's Encrypt's production ACME directory, the default.
const LetsEncrypt = autocert.DefaultACMEDirectory

// Config is how a site gets its certificate: Domains by ACME (Directory,
// Email, its cache in CacheDir), or CertFile and KeyFile.
type Config struct {
	Domains   []string
	Directory string
	Email     string
	// CacheDir keeps the ACME account's key and the certificates with
	// their keys, readable by their owner only.
	CacheDir          string
	CertFile, KeyFile string
	// Roots are the CAs the ACME server's own TLS is checked against (the
	// system's and --ca-file's).
	Roots *x509.CertPool
	// RenewBefore is how long before its end a certificate is renewed (0:
	// a third of its lifetime, as Let's Encrypt advises; at most 30 days).
	RenewBefore time.Duration
	// HTTPSPort is the port https is served on: the redirect names it
	// unless it is 443.
	HTTPSPort string
	Log       *slog.Logger
}

// Site is a TLS configuration and the plain-HTTP handler that goes with
// it.
type Site struct {
	// TLS is the server's TLS configuration (its certificate for each
	// handshake).
	TLS *tls.Config
	// HTTP answers plain HTTP: the ACME challenge, else a redirect.
	HTTP    http.Handler
	cfg     Config
	manager *autocert.Manager
	files   *certFiles
}

// New prepares the site; nothing is asked of the ACME server yet (Obtain
// does, and every handshake of a name without a certificate).
func New(c Config) (*Site, error) {
	s := &Site{cfg: c}
	redirect := http.HandlerFunc(s.redirect)
	switch {
	case c.CertFile != "" || c.KeyFile != "":
		if c.CertFile == "" || c.KeyFile == "" {
			return nil, errors.New("--tls-cert and --tls-key go together")
		}
		if len(c.Domains) > 0 {
			return nil, errors.New("--https obtains a certificate by ACME; --tls-cert and --tls-key bring one: use one of them")
		}
		s.files = &certFiles{cert: c.CertFile, key: c.KeyFile, log: c.Log}
		if _, err := s.files.load(); err != nil {
			return nil, err
		}
		s.TLS = &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: s.files.get, NextProtos: []string{"h2", "http/1.1"}}
		s.HTTP = redirect
	case len(c.Domains) > 0:
		for _, d := range c.Domains {
			if !strings.Contains(strings.Trim(d, "."), ".") || strings.ContainsAny(d, "/: ") {
				return nil, fmt.Errorf("--https %q: a domain name, as fincom.example.com", d)
			}
		}
		if err := os.MkdirAll(c.CacheDir, 0o700); err != nil {
			return nil, err
		}
		if err := os.Chmod(c.CacheDir, 0o700); err != nil {
			return nil, err
		}
		if c.Directory == "" {
			c.Directory = LetsEncrypt
		}
		client := &acme.Client{DirectoryURL: c.Directory, UserAgent: "fincom",
			HTTPClient: &http.Client{Timeout: time.Minute, Transport: &http.Transport{Proxy: http.ProxyFromEnvironment,
				TLSClientConfig: &tls.Config{RootCAs: c.Roots, MinVersion: tls.VersionTLS12}}}}
		s.manager = &autocert.Manager{Prompt: autocert.AcceptTOS, Cache: autocert.DirCache(c.CacheDir), HostPolicy: hostsOnly(c.Domains),
			Email: c.Email, Client: client, RenewBefore: c.RenewBefore}
		s.TLS = s.manager.TLSConfig()
		s.TLS.MinVersion = tls.VersionTLS12
		s.HTTP = s.manager.HTTPHandler(redirect)
		s.cfg = c
	default:
		return nil, errors.New("no certificate: --https DOMAIN or --tls-cert and --tls-key")
	}
	return s, nil
}

// hostsOnly lets the ACME manager answer only the domains given, with or
// without a port (the challenge's Host names the port when it is not 80).
func hostsOnly(domains []string) autocert.HostPolicy {
	allowed := autocert.HostWhitelist(domains...)
	return func(ctx context.Context, host string) error {
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		return allowed(ctx, host)
	}
}

// redirect sends a GET or HEAD to the same address over https; any other
// method is refused, since what it carried went in clear already.
func (s *Site) redirect(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if p := s.cfg.HTTPSPort; p != "" && p != "443" {
		host = net.JoinHostPort(host, p)
	}
	target := "https://" + host + r.URL.RequestURI()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "fincom answers over HTTPS only: use "+target, http.StatusBadRequest)
		return
	}
	http.Redirect(w, r, target, http.StatusMovedPermanently)
}

// Obtain gets each domain's certificate now (from the cache, else from
// the ACME server) and keeps trying until it has them or ctx ends: a
// wrong or unreachable ACME server is said in the log, with when the next
// try is, and fincom keeps serving. With certificate files it does
// nothing.
func (s *Site) Obtain(ctx context.Context) {
	if s.manager == nil {
		return
	}
	for _, d := range s.cfg.Domains {
		wait := 10 * time.Second
		for {
			c, err := s.manager.GetCertificate(&tls.ClientHelloInfo{ServerName: d, SignatureSchemes: []tls.SignatureScheme{tls.ECDSAWithP256AndSHA256},
				CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}})
			if err == nil {
				s.cfg.Log.Info("https certificate", "domain", d, "not_after", c.Leaf.NotAfter.UTC().Format(time.RFC3339), "acme", s.cfg.Directory)
				break
			}
			s.cfg.Log.Error("https: no certificate for the domain yet: the ACME server refused or did not answer; fincom keeps serving "+
				"and tries again", "domain", d, "acme", s.cfg.Directory, "error", err.Error(), "retry_in", wait.String())
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(wait*2, time.Hour)
		}
	}
}

// HSTS tells browsers to come back over https only, for a year.
func HSTS(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", "max-age=31536000")
		h.ServeHTTP(w, r)
	})
}

// certFiles is a certificate and key read from files, read again when
// either changes (a certificate renewed by another tool): checked at most
// once a second, and a pair that does not load keeps the one served.
type certFiles struct {
	cert, key string
	log       *slog.Logger
	mu        sync.Mutex
	current   *tls.Certificate
	stamp     string
	checked   time.Time
}

func (f *certFiles) stampNow() (string, error) {
	var b strings.Builder
	for _, p := range []string{f.cert, f.key} {
		st, err := os.Stat(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%d.%d.", st.ModTime().UnixNano(), st.Size())
	}
	return b.String(), nil
}

func (f *certFiles) load() (*tls.Certificate, error) {
	stamp, err := f.stampNow()
	if err != nil {
		return nil, err
	}
	c, err := tls.LoadX509KeyPair(f.cert, f.key)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert and --tls-key: %w", err)
	}
	f.current, f.stamp = &c, stamp
	return &c, nil
}

func (f *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if time.Since(f.checked) < time.Second {
		return f.current, nil
	}
	f.checked = time.Now()
	if stamp, err := f.stampNow(); err == nil && stamp != f.stamp {
		was := f.current
		if c, err := f.load(); err != nil {
			f.current = was
			f.log.Error("https: the certificate files changed but do not load; the one loaded before is served", "cert", f.cert, "error", err.Error())
		} else {
			f.log.Info("https: certificate files read again", "cert", f.cert, "not_after", c.Leaf.NotAfter.UTC().Format(time.RFC3339))
		}
	}
	return f.current, nil
}

// Expiry is when the certificate a certificate file or an ACME cache
// entry holds ends, and the names it covers.
func Expiry(pemBytes []byte) (time.Time, []string, error) {
	for {
		var block *pem.Block
		block, pemBytes = pem.Decode(pemBytes)
		if block == nil {
			return time.Time{}, nil, errors.New("no certificate in it")
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return time.Time{}, nil, err
		}
		return c.NotAfter, c.DNSNames, nil
	}
}

// URL is where the site is reached: https:// and its first domain (or its
// certificate's first name), with the port unless it is 443.
func (s *Site) URL() string {
	host := ""
	if len(s.cfg.Domains) > 0 {
		host = s.cfg.Domains[0]
	} else if s.files != nil && s.files.current != nil && s.files.current.Leaf != nil && len(s.files.current.Leaf.DNSNames) > 0 {
		host = s.files.current.Leaf.DNSNames[0]
	}
	if host == "" {
		host = "localhost"
	}
	if p := s.cfg.HTTPSPort; p != "" && p != "443" {
		host = net.JoinHostPort(host, p)
	}
	return "https://" + host
}
