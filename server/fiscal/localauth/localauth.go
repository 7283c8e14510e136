// Package localauth is test mode's and the demo's tax authorities: for
// each domain, a SEFAZ (sefaz/local) and a national NFS-e system
// (nfsen/local) of fincom's own, served on one loopback address with
// mutual TLS and reached through the same clients a production server
// uses (sefaz.Authority, nfsen.Authority), so that test mode checks the
// same schemas and signatures and answers with the same codes. Each
// domain's authorities run on the domain's clock and start from what its
// file says it issued (fiscal.Book), so a domain reset or restored from a
// snapshot meets authorities that agree with it. The municipal NFS-e,
// which no national system takes, is authorized by fiscal.Simulated.
package localauth

import (
	"bufio"
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/server/fiscal/nfsen"
	nfselocal "fincom/server/fiscal/nfsen/local"
	"fincom/server/fiscal/sefaz"
	"fincom/server/fiscal/sefaz/local"
)

// Authorities are the domains' local authorities. Its zero value is not
// usable: give it the domains' clock.
type Authorities struct {
	// Now is a domain's clock.
	Now func(domain string) time.Time

	start   sync.Once
	startEr error
	srv     *certs.Local
	base    string // https://127.0.0.1:PORT
	roots   *x509.CertPool
	tables  []byte // the endpoints file pointing every authority at {base}

	mu      sync.Mutex
	domains map[string]*domain
	muni    fiscal.Simulated
}

// domain is one domain's authorities and what test mode asked of them.
type domain struct {
	sefaz     *local.Authority
	nfse      *nfselocal.System
	authority fiscal.Authorities
	client    *sefaz.Client // the domain's SEFAZ's, for its status
	seeded    bool
	mode      Mode
	drop      bool // the next answer, of either authority, is lost
	log       []Message
}

// Mode is what test mode asks of a domain's authorities from now on:
// authorize (as they judge), async (a lot answered by a receipt, asked
// Polls times before its verdict), reject every note with Code and Reason (the
// manual's text for the code by default), deny (reject with 301 by
// default), answer after DelayMS, drop_reply (process the next message
// and lose its answer on the wire, as a timeout after sending would; then
// authorize), unreachable (no connection: nothing reaches them), or
// offline (they answer 503). drop is drop_reply's earlier name.
type Mode struct {
	Mode string `json:"mode" enum:"authorize,reject,deny,async,delay,drop_reply,unreachable,offline,drop" doc:"What the local authorities do."`
	// Polls is how often an async lot's receipt is answered 105 (Lote em
	// processamento) before its verdict (1 by default).
	Polls int `json:"polls,omitempty" doc:"How often an async lot's receipt is answered 105 before its verdict; absent for the default (1)."`
	Code  int `json:"code,omitempty" doc:"The refusal's code; absent when none."`
	// National: Code is the national NFS-e system's (E and its digits),
	// which only that system answers.
	National bool   `json:"national,omitempty" doc:"true: the code is the national NFS-e system's (E and its digits); absent when not."`
	Reason   string `json:"reason,omitempty" doc:"The refusal's text; absent when none."`
	DelayMS  int    `json:"delay_ms,omitempty" doc:"How long each answer waits, in milliseconds; absent when none."`
}

// Close stops the authorities' listener.
func (a *Authorities) Close() error { return a.srv.Close() }

// listen starts the listener once, on a free loopback port.
func (a *Authorities) listen() error {
	a.start.Do(func() {
		if a.srv, a.startEr = certs.StartLocal(http.HandlerFunc(a.serve)); a.startEr != nil {
			return
		}
		a.base, a.roots = a.srv.Base, a.srv.Roots
		if a.tables, a.startEr = EndpointsFile(a.base + "/{domain}"); a.startEr != nil {
			a.srv.Close()
		}
	})
	return a.startEr
}

// serve hands /<domain>/… to the domain's SEFAZ, or to its national
// system under /<domain>/SefinNacional/ (and its ADN, /<domain>/adn/).
func (a *Authorities) serve(w http.ResponseWriter, r *http.Request) {
	name, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	a.mu.Lock()
	d := a.domains[name]
	var mode Mode
	drop := false
	if d != nil {
		mode, drop = d.mode, d.drop
		d.drop = false
	}
	a.mu.Unlock()
	if d == nil {
		http.NotFound(w, r)
		return
	}
	if mode.Mode == "unreachable" {
		// No connection: closed before anything is read.
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	if mode.Mode == "delay" {
		select {
		case <-time.After(time.Duration(mode.DelayMS) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/" + rest
	body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	r2.Body = io.NopCloser(bytes.NewReader(body))
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	w = rec
	defer func() { a.record(d, r2, body, rec) }()
	if strings.HasPrefix(rest, "SefinNacional/") || strings.HasPrefix(rest, "adn/") {
		if drop {
			d.nfse.DropReplies(1)
		}
		d.nfse.ServeHTTP(w, r2)
		return
	}
	if drop {
		d.sefaz.DropReplies(1)
	}
	d.sefaz.ServeHTTP(w, r2)
}

// of answers a domain's authorities and what test mode asked of them,
// making them at its first use from its records.
func (a *Authorities) of(ctx context.Context, name string, b fiscal.Book) (*domain, Mode, error) {
	if err := a.listen(); err != nil {
		return nil, Mode{}, err
	}
	a.mu.Lock()
	if a.domains == nil {
		a.domains = map[string]*domain{}
	}
	d := a.domains[name]
	if d == nil {
		now := func() time.Time { return a.Now(name) }
		e, err := sefaz.Load()
		if err == nil {
			_, err = e.Override([]byte(strings.ReplaceAll(string(a.tables), "{domain}", name)))
		}
		if err != nil {
			a.mu.Unlock()
			return nil, Mode{}, err
		}
		d = &domain{sefaz: &local.Authority{Now: now}, nfse: &nfselocal.System{Now: now}}
		sc := &sefaz.Client{Endpoints: e, Roots: a.roots, Timeout: 30 * time.Second, ReceiptWait: 10 * time.Millisecond}
		s := &sefaz.Authority{Client: sc}
		d.client = sc
		d.authority = fiscal.Authorities{fiscal.NFe: s, fiscal.NFCe: s, fiscal.NFSe: &a.muni,
			fiscal.NFSeN: &nfsen.Authority{Client: &nfsen.Client{Endpoints: e, Roots: a.roots, Timeout: 30 * time.Second, Now: now}}}
		a.domains[name] = d
	}
	seeded := d.seeded
	d.seeded = true
	mode := d.mode
	a.mu.Unlock()
	if !seeded && b != nil {
		issued, err := b.Issued(ctx)
		if err != nil {
			a.mu.Lock()
			d.seeded = false
			a.mu.Unlock()
			return nil, Mode{}, err
		}
		for _, n := range issued {
			switch n.Kind {
			case fiscal.NFe, fiscal.NFCe:
				err = d.sefaz.Know(n.XML, n.Cancelled, n.Corrections)
			case fiscal.NFSeN:
				err = d.nfse.Know(n.XML, n.Cancelled)
			}
			if err != nil {
				return nil, Mode{}, fmt.Errorf("the domain's note: %w", err)
			}
		}
	}
	switch mode.Mode {
	case "reject", "deny":
		if !mode.National {
			d.sefaz.RejectNext(mode.Code, mode.Reason)
		}
		d.nfse.RejectNext(mode.Code, mode.Reason)
	}
	return d, mode, nil
}

// Status asks the domain's SEFAZ NFeStatusServico4 of the state's NF-e
// in env, as a production server asks the state's own.
func (a *Authorities) Status(ctx context.Context, name string, cert certs.Certificate, state, stateCode, env string) (sefaz.Status, error) {
	d, _, err := a.of(ctx, name, nil)
	if err != nil {
		return sefaz.Status{}, err
	}
	return d.client.Status(ctx, cert, "55", state, stateCode, env)
}

// Authorize has the domain's authority of the note's kind judge it.
func (a *Authorities) Authorize(ctx context.Context, r fiscal.Request) (fiscal.Authorization, error) {
	d, mode, err := a.of(ctx, r.Domain, r.Book)
	if err != nil {
		return fiscal.Authorization{}, err
	}
	if r.Invoice.Kind == fiscal.NFSe {
		// The municipal note's stand-in takes the same refusal and delay.
		switch mode.Mode {
		case "reject", "deny":
			return fiscal.Authorization{}, &fiscal.Rejection{Code: mode.Code, Reason: mode.Reason}
		case "delay":
			select {
			case <-time.After(time.Duration(mode.DelayMS) * time.Millisecond):
			case <-ctx.Done():
				return fiscal.Authorization{}, ctx.Err()
			}
		}
	}
	return d.authority.Authorize(ctx, r)
}

// Cancel has the domain's authority register a cancellation.
func (a *Authorities) Cancel(ctx context.Context, c fiscal.Cancellation) (fiscal.Event, error) {
	d, _, err := a.of(ctx, c.Domain, c.Book)
	if err != nil {
		return fiscal.Event{}, err
	}
	return d.authority.Cancel(ctx, c)
}

// Correct has the domain's SEFAZ register a correction letter.
func (a *Authorities) Correct(ctx context.Context, c fiscal.Correction) (fiscal.Event, error) {
	d, _, err := a.of(ctx, c.Domain, c.Book)
	if err != nil {
		return fiscal.Event{}, err
	}
	return d.authority.Correct(ctx, c)
}

// CancelBySubstitution has the domain's SEFAZ register an NFC-e's
// cancellation by substitution.
func (a *Authorities) CancelBySubstitution(ctx context.Context, s fiscal.Substitution) (fiscal.Event, error) {
	d, _, err := a.of(ctx, s.Domain, s.Book)
	if err != nil {
		return fiscal.Event{}, err
	}
	return d.authority.CancelBySubstitution(ctx, s)
}

// DANFSe has the domain's national system give a note's DANFSe.
func (a *Authorities) DANFSe(ctx context.Context, r fiscal.DANFSeRequest) ([]byte, error) {
	d, _, err := a.of(ctx, r.Domain, r.Book)
	if err != nil {
		return nil, err
	}
	return d.authority.DANFSe(ctx, r)
}

// Void has the domain's SEFAZ void a number.
func (a *Authorities) Void(ctx context.Context, v fiscal.Voiding) (fiscal.Event, error) {
	d, _, err := a.of(ctx, v.Domain, v.Book)
	if err != nil {
		return fiscal.Event{}, err
	}
	return d.authority.Void(ctx, v)
}

// RegisterEPEC has the domain's national environment register an EPEC.
func (a *Authorities) RegisterEPEC(ctx context.Context, r fiscal.Request) (fiscal.Event, error) {
	d, _, err := a.of(ctx, r.Domain, r.Book)
	if err != nil {
		return fiscal.Event{}, err
	}
	return d.authority.RegisterEPEC(ctx, r)
}

// Manifest has the domain's national environment register a recipient's
// manifestation.
func (a *Authorities) Manifest(ctx context.Context, m fiscal.Manifestation) (bool, string, error) {
	d, _, err := a.of(ctx, m.Domain, m.Book)
	if err != nil {
		return false, "", err
	}
	return d.authority.Manifest(ctx, m)
}

// ErrMode is a mode test mode cannot set.
var ErrMode = errors.New("mode must be authorize, async (polls 0 to 8), reject (code 200 to 999; a reason unless the manual lists the code), deny, delay (1 to 60000 ms), drop_reply, unreachable or offline")

// Set sets what a domain's authorities do from now on.
func (a *Authorities) Set(ctx context.Context, name string, m Mode, b fiscal.Book) error {
	if m.Mode == "drop" {
		m.Mode = "drop_reply"
	}
	if m.Mode == "deny" && m.Code == 0 {
		m.Code = 301
	}
	if m.Reason == "" && (m.Mode == "reject" || m.Mode == "deny") && !m.National {
		m.Reason, _ = sefaz.ReturnText(m.Code)
	}
	if m.Mode == "async" && m.Polls == 0 {
		m.Polls = 1
	}
	switch m.Mode {
	case "authorize", "drop_reply", "offline", "unreachable":
	case "async":
		if m.Polls < 0 || m.Polls > 8 {
			return ErrMode
		}
	case "reject", "deny":
		if (!m.National && (m.Code < 200 || m.Code > 999)) || (m.National && (m.Code < 1 || m.Code > 9999)) || m.Reason == "" {
			return ErrMode
		}
	case "delay":
		if m.DelayMS <= 0 || m.DelayMS > 60_000 {
			return ErrMode
		}
	default:
		return ErrMode
	}
	d, _, err := a.of(ctx, name, b)
	if err != nil {
		return err
	}
	a.mu.Lock()
	d.mode, d.drop = m, m.Mode == "drop_reply"
	if d.drop {
		// Once the reply is lost, the authorities judge again.
		d.mode = Mode{Mode: "authorize"}
	}
	a.mu.Unlock()
	d.sefaz.SetOffline(m.Mode == "offline")
	d.nfse.SetOffline(m.Mode == "offline")
	// The mode before may have armed a rejection no note met (of arms
	// one at each use in reject mode): the new mode starts clean.
	d.sefaz.ClearRejection()
	d.nfse.ClearRejection()
	d.sefaz.SetAsync(m.Mode == "async", m.Polls)
	return nil
}

// Forget drops a domain's authorities: the next call makes them again
// from its file (after a reset, a restored snapshot, a removal).
func (a *Authorities) Forget(name string) {
	a.mu.Lock()
	delete(a.domains, name)
	a.mu.Unlock()
}

// EndpointsFile is an endpoints file (sefaz.Endpoints.Override) pointing
// every NF-e and NFC-e authorizer's services, in both environments, and
// the national NFS-e system's Sefin address at base: fincom fiscal
// local-authority writes it, and test mode's domains use it.
func EndpointsFile(base string) ([]byte, error) {
	e, err := sefaz.Load()
	if err != nil {
		return nil, err
	}
	services := map[string]string{}
	for _, s := range local.Services {
		services[s] = base + "/" + s
	}
	envs := map[string]any{sefaz.Homologacao: services, sefaz.Producao: services}
	file := map[string]any{}
	for _, model := range []string{"55", "65"} {
		byAuth := map[string]any{}
		for auth := range e.NFe[model] {
			byAuth[auth] = envs
		}
		file[model] = byAuth
	}
	sefin := map[string]string{"sefin": base + "/SefinNacional", "adn": base + "/adn"}
	file["nfse"] = map[string]any{sefaz.Homologacao: sefin, sefaz.Producao: sefin}
	return json.MarshalIndent(file, "", "  ")
}

// Message is a message a domain's local authorities received, as
// /_test/authority_log lists it: the service (a SEFAZ web service, or
// the national system's method and path), the message (its root element:
// enviNFe, consSitNFe, envEvento, …; a DPS, an event, a query), the
// access key it names, and its answer's code (the note's cStat, or the
// HTTP status of a lost or refused one).
type Message struct {
	Service string `json:"service" doc:"The web service called (NFeAutorizacao4, NFeRetAutorizacao4, …, or the national system's route)."`
	Message string `json:"message" doc:"The message's root element (enviNFe, consSitNFe, envEvento, …; a DPS, an event, a query)."`
	Key     string `json:"key" doc:"The access key it names."`
	Code    string `json:"code" doc:"Its answer's code: the note's cStat, or the HTTP status of a lost or refused one."`
}

// maxLog bounds a domain's log of messages (the oldest go first).
const maxLog = 1000

var (
	rootElement = regexp.MustCompile(`<nfeDadosMsg[^>]*>\s*(?:<\?xml[^>]*>\s*)?<([A-Za-z]+)[\s>]`)
	keyOf       = regexp.MustCompile(`(?:<chNFe>|Id="NFe|Id="ID|"chaveAcesso":"|/nfse/|/dps/)([0-9]{44,50})`)
	cStatOf     = regexp.MustCompile(`<cStat>([0-9]+)</cStat>`)
)

// recorder keeps what a local authority answered.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(code int) { r.status = code; r.ResponseWriter.WriteHeader(code) }
func (r *recorder) Write(b []byte) (int, error) {
	if r.body.Len() < 1<<20 {
		r.body.Write(b)
	}
	return r.ResponseWriter.Write(b)
}

// Hijack lets a dropped reply close the connection.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	r.status = 0
	return http.NewResponseController(r.ResponseWriter).Hijack()
}

// record logs a message the domain's authorities received and answered.
func (a *Authorities) record(d *domain, r *http.Request, body []byte, rec *recorder) {
	m := Message{Service: strings.TrimPrefix(r.URL.Path, "/")}
	if root := rootElement.FindSubmatch(body); root != nil {
		m.Message = string(root[1])
	} else {
		m.Service, m.Message = "SefinNacional", r.Method+" "+strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/SefinNacional"), "/adn")
	}
	if k := keyOf.FindSubmatch(append(append([]byte(r.URL.Path+" "), body...), rec.body.Bytes()...)); k != nil {
		m.Key = string(k[1])
	}
	switch all := cStatOf.FindAllSubmatch(rec.body.Bytes(), -1); {
	case rec.status == 0, rec.status == http.StatusOK && rec.body.Len() == 0:
		m.Code = "no reply"
	case len(all) > 0:
		m.Code = string(all[len(all)-1][1])
	default:
		m.Code = strconv.Itoa(rec.status)
	}
	a.mu.Lock()
	d.log = append(d.log, m)
	if len(d.log) > maxLog {
		d.log = d.log[len(d.log)-maxLog:]
	}
	a.mu.Unlock()
}

// Log lists the messages a domain's authorities received, in order.
func (a *Authorities) Log(name string) []Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []Message{}
	if d := a.domains[name]; d != nil {
		out = append(out, d.log...)
	}
	return out
}
