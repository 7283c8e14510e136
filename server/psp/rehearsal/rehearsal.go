// Package rehearsal is test mode's and the demo's PSPs: for each domain,
// a PSP of fincom's own (psp/local) on one loopback address with mutual
// TLS and OAuth, reached through the same client a production server
// uses (psp.Client), on the domain's clock. Test mode plays the payer at
// it, drops its webhooks, and makes it slow or down.
package rehearsal

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"fincom/server/certs"
	"fincom/server/psp"
	"fincom/server/psp/local"
)

// PSPs are the domains' local PSPs. Give it the domains' clock.
type PSPs struct {
	// Now is a domain's clock.
	Now func(domain string) time.Time

	start   sync.Once
	startEr error
	srv     *certs.Local
	base    string
	roots   *x509.CertPool
	cert    certs.Certificate // the client's, which the PSPs require

	mu      sync.Mutex
	domains map[string]*domain
}

// domain is one domain's PSP, its client and what test mode asked of it.
type domain struct {
	psp    *local.PSP
	client *psp.Client
	mode   Mode
	drops  int
}

// Mode is what test mode asks of a domain's PSP from now on: answer
// (online), answer after DelayMS (slow) or not at all (offline, 503);
// lose the next DropWebhooks webhooks; refuse the refunds asked about
// with RefuseRefunds as the reason ("" settles them).
type Mode struct {
	Mode          string `json:"mode" enum:"online,slow,offline"`
	DelayMS       int    `json:"delay_ms,omitempty"`
	DropWebhooks  int    `json:"drop_webhooks,omitempty"`
	RefuseRefunds string `json:"refuse_refunds,omitempty"`
}

// Clock is a domain's clock, the process's when nil.
func Clock(c func(domain string) time.Time) func(string) time.Time {
	if c == nil {
		return func(string) time.Time { return time.Now() }
	}
	return c
}

// ErrMode is a mode test mode cannot set.
var ErrMode = errors.New("mode must be online, slow (delay_ms 1 to 60000) or offline; drop_webhooks 0 to 100; refuse_refunds at most 140 characters")

// Close stops the PSPs' listener.
func (p *PSPs) Close() error { return p.srv.Close() }

func (p *PSPs) listen() error {
	p.start.Do(func() {
		var err error
		if p.cert, err = certs.TestCertificate("fincom test mode", "11222333000181", time.Now()); err != nil {
			p.startEr = err
			return
		}
		if p.srv, p.startEr = certs.StartLocal(http.HandlerFunc(p.serve)); p.startEr == nil {
			p.base, p.roots = p.srv.Base, p.srv.Roots
		}
	})
	return p.startEr
}

// serve hands /<domain>/… to the domain's PSP, after its delay.
func (p *PSPs) serve(w http.ResponseWriter, r *http.Request) {
	name, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	p.mu.Lock()
	d := p.domains[name]
	var mode Mode
	if d != nil {
		mode = d.mode
	}
	p.mu.Unlock()
	if d == nil {
		http.NotFound(w, r)
		return
	}
	if mode.Mode == "slow" {
		select {
		case <-time.After(time.Duration(mode.DelayMS) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/" + strings.TrimPrefix(rest, "api/v2/")
	d.psp.ServeHTTP(w, r2)
}

// Client answers the client of the domain's PSP, making the PSP at its
// first use; fresh is true then, for the caller to seed it (Know) with
// the charges the domain holds open.
func (p *PSPs) Client(name string) (c *psp.Client, pp *local.PSP, fresh bool, err error) {
	if err := p.listen(); err != nil {
		return nil, nil, false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if d := p.domains[name]; d != nil {
		return d.client, d.psp, false, nil
	}
	now := func() time.Time { return p.Now(name) }
	secret := make([]byte, 16)
	rand.Read(secret)
	key := make([]byte, 16)
	rand.Read(key)
	k := hex.EncodeToString(key)
	d := &domain{psp: &local.PSP{ClientID: "fincom-" + name, Secret: hex.EncodeToString(secret), Now: now, Host: "psp.fincom.test"}}
	// The domain's key at its PSP: a random key (EVP), as PSPs issue.
	evp := k[0:8] + "-" + k[8:12] + "-4" + k[13:16] + "-8" + k[17:20] + "-" + k[20:32]
	d.client = &psp.Client{BaseURL: p.base + "/" + name + "/api/v2", TokenURL: p.base + "/" + name + "/oauth/token",
		ClientID: d.psp.ClientID, Secret: d.psp.Secret, Cert: p.cert, Roots: p.roots, PixKey: evp, Timeout: 70 * time.Second, Now: now}
	if p.domains == nil {
		p.domains = map[string]*domain{}
	}
	p.domains[name] = d
	return d.client, d.psp, true, nil
}

// Pay is the payer paying the domain's charge txid with amount at the
// domain's PSP: the Pix's end-to-end id and the webhook body the PSP
// posts, or nil when test mode asked it to drop webhooks and droppable
// says this one may be. A charge the PSP holds as not active is refused
// (false).
func (p *PSPs) Pay(name, txid, amount string, droppable bool) (e2e string, hook []byte, ok bool) {
	d := p.domain(name)
	if d == nil {
		return "", nil, false
	}
	e2e, _, hook, ok = d.psp.Pay(txid, amount, p.Now(name))
	return e2e, p.drop(d, hook, ok && droppable), ok
}

// PayCobR is the payer's PSP debiting the domain's recurrent charge txid
// on its day: the Pix's end-to-end id and the webhook body, nil when
// dropped (as Pay).
func (p *PSPs) PayCobR(name, txid string, droppable bool) (e2e string, hook []byte, ok bool) {
	d := p.domain(name)
	if d == nil {
		return "", nil, false
	}
	e2e, _, hook, ok = d.psp.PayCobR(txid, p.Now(name))
	return e2e, p.drop(d, hook, ok && droppable), ok
}

// DecideRec is the payer approving (or rejecting) the domain's recurrence
// idRec in the payer's app: the webhook body, nil when dropped.
func (p *PSPs) DecideRec(name, idRec string, approve bool) (hook []byte, ok bool) {
	d := p.domain(name)
	if d == nil {
		return nil, false
	}
	if approve {
		_, hook, ok = d.psp.ApproveRec(idRec)
	} else {
		_, hook, ok = d.psp.RejectRec(idRec)
	}
	return p.drop(d, hook, ok), ok
}

func (p *PSPs) domain(name string) *domain {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.domains[name]
}

// drop loses a webhook when test mode asked for it.
func (p *PSPs) drop(d *domain, hook []byte, droppable bool) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if droppable && d.drops > 0 {
		d.drops--
		return nil
	}
	return hook
}

// Set sets what a domain's PSP does from now on.
func (p *PSPs) Set(name string, m Mode) error {
	switch {
	case m.Mode != "online" && m.Mode != "slow" && m.Mode != "offline",
		m.Mode == "slow" && (m.DelayMS <= 0 || m.DelayMS > 60_000),
		m.DropWebhooks < 0 || m.DropWebhooks > 100, len([]rune(m.RefuseRefunds)) > 140:
		return ErrMode
	}
	if _, _, _, err := p.Client(name); err != nil {
		return err
	}
	p.mu.Lock()
	d := p.domains[name]
	d.mode, d.drops = m, m.DropWebhooks
	p.mu.Unlock()
	d.psp.SetOffline(m.Mode == "offline")
	d.psp.RefuseRefunds(m.RefuseRefunds)
	return nil
}

// Forget drops a domain's PSP: the next use makes it again (after a
// reset, a restored snapshot, a removal).
func (p *PSPs) Forget(name string) {
	p.mu.Lock()
	delete(p.domains, name)
	p.mu.Unlock()
}
