package certs

import (
	"crypto/sha256"
	"crypto/x509"
	"net/http"
	"sync"
	"time"
)

// Clients keeps one HTTP client per certificate, roots and timeout, so
// that the calls to an authority reuse their connections: a mutual TLS
// handshake costs an RSA signature with the unit's key and two round
// trips, and a client made per call left its idle connection open for as
// long as the process ran. Its zero value is ready; it is not copied.
type Clients struct {
	mu sync.Mutex
	m  map[clientKey]*http.Client
}

type clientKey struct {
	// cert hashes the certificate and its chain: its key is the one its
	// public key names, or no handshake would succeed.
	cert    [32]byte
	roots   *x509.CertPool
	timeout time.Duration
}

// maxClients bounds the clients kept (one per unit certificate in use):
// past it they are all let go, their idle connections closed.
const maxClients = 256

// idleConnTimeout closes a connection an authority has not been called on
// for that long.
const idleConnTimeout = 90 * time.Second

// Get is the client of MutualClient(c, roots, timeout), made once.
func (cs *Clients) Get(c Certificate, roots *x509.CertPool, timeout time.Duration) *http.Client {
	h := sha256.New()
	h.Write(c.Cert.Raw)
	for _, ic := range c.Chain {
		h.Write(ic.Raw)
	}
	k := clientKey{roots: roots, timeout: timeout}
	h.Sum(k.cert[:0])
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cl, ok := cs.m[k]; ok {
		return cl
	}
	if cs.m == nil || len(cs.m) >= maxClients {
		for _, old := range cs.m {
			old.CloseIdleConnections()
		}
		cs.m = map[clientKey]*http.Client{}
	}
	cl := MutualClient(c, roots, timeout)
	cs.m[k] = cl
	return cl
}

// Close closes the kept clients' idle connections.
func (cs *Clients) Close() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, cl := range cs.m {
		cl.CloseIdleConnections()
	}
	cs.m = nil
}
