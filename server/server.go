// Package server composes fincom's HTTP audiences (the API, the staff portal,
// test mode and the API's document) on one router, with the middleware they share.
package server

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/julienschmidt/httprouter"

	"fincom/render"
	"fincom/server/api"
	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/server/fiscal/localauth"
	"fincom/server/fiscal/nfsen"
	"fincom/server/fiscal/reform"
	"fincom/server/fiscal/sefaz"
	"fincom/server/invoicing"
	"fincom/server/openapi"
	"fincom/server/paypage"
	"fincom/server/portal"
	"fincom/server/provider"
	psprehearsal "fincom/server/psp/rehearsal"
	"fincom/server/testmode"
	"fincom/server/web"
	"fincom/store"
	"fincom/store/replica"
)

// Prefix is the base path of every route (spec, Versioning).
const Prefix = web.Prefix

// Config holds the server's limits and identity.
type Config struct {
	Version           string
	MaxJSONBytes      int64 // JSON bodies; spec is silent, fincom uses 1 MiB
	MaxMultipartBytes int64 // multipart bodies, default 25 MiB
	// UploadMemory bounds the memory of all multipart bodies being read
	// at once; default four times MaxMultipartBytes.
	UploadMemory int64
	Logger       *slog.Logger
	// PublicURL is where clients reach this server (scheme and host), for
	// the payment links in e-mails. Default http://127.0.0.1:8080.
	PublicURL string
	// Billing and Invoices are the business services the server shares
	// with the scheduler (NewServices; built here when nil).
	Billing  *billing.Service
	Invoices *invoicing.Service
	// TestMode serves the /_test routes (serve --test-mode, demo). It
	// implies WebhookAllowPrivate.
	TestMode bool
	// WebhookAllowPrivate accepts webhooks to loopback, private and
	// link-local addresses (serve --webhook-allow-private).
	WebhookAllowPrivate bool
	// RunDay runs a day's jobs for a domain (test mode's clock).
	RunDay testmode.DayRunner
	// Wake tries a domain's held notes now (jobs.Runner.Wake): test mode
	// calls it when the domain's authorities change mode.
	Wake func(ctx context.Context, db *store.DB) error
	// Seed makes test mode's random choices (faults) reproducible.
	Seed uint64
	// Keyring opens the units' sealed certificate keys and CSCs (used
	// when Billing and Invoices are built here).
	Keyring *certs.Keyring
	// CORSOrigins are the browser origins that may read the answers
	// (ParseOrigins; serve --cors-origin); none by default.
	CORSOrigins []string
	// LinkKeys seals the sign-in links queued e-mails carry (the jobs'
	// mailer opens them with the same keys): the operator's Keyring, else
	// one made for this process (LinkKeyring).
	LinkKeys *certs.Keyring
	// Render draws the pages and e-mails (nil: the embedded templates are
	// parsed here); the services' may be shared.
	Render *render.Renderer
	// Replicas answers the replication of each file (serve --replicate);
	// nil without.
	Replicas interface {
		Statuses(now time.Time) []replica.Status
	}
}

// LinkKeyring answers the keys sign-in links are sealed with: the
// operator's secrets key when there is one (a queued link survives a
// restart), else a key of this process's alone, never written anywhere (a
// link queued before a restart is lost; links live 15 minutes anyway).
func LinkKeyring(operator *certs.Keyring) (*certs.Keyring, error) {
	if operator != nil {
		return operator, nil
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return certs.NewKeyring(key)
}

// Server answers every audience of one data directory on one router: the
// API, the staff portal, test mode and the API's document.
type Server struct {
	cfg     Config
	domains *store.Domains
	system  *store.System
	log     *slog.Logger
	mux     *web.Mux
	api     *api.API
	portal  *portal.Portal
	test    *testmode.Mode // nil outside test mode
	routes  []web.Route    // the API's, then test mode's
	// docs answers the OpenAPI document, built once from the routes, and
	// its HTML reference (GET /docs), drawn once from it: on the first
	// ask (serve asks at start, so that a broken document stops it).
	docs    func() (apiDocs, error)
	pageCSP string // the pages' Content-Security-Policy
}

// NewServices builds the business services a server and the scheduler
// share: charges through the built-in providers, invoices through the
// simulated authority, links and e-mails for a server reached at
// PublicURL.
func NewServices(o ServiceOptions) (*billing.Service, *invoicing.Service, error) {
	rd, err := o.Render, error(nil)
	if rd == nil {
		rd, err = render.New()
	}
	if err != nil {
		return nil, nil, err
	}
	if o.CancelWindow <= 0 {
		o.CancelWindow = 24 * time.Hour
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	links := render.NewLinks(o.PublicURL)
	// Test mode and the demo send their notes to local authorities of
	// fincom's own through the same clients; a production server sends
	// every NF-e and NFC-e to SEFAZ (o.Fiscal) and every national NFS-e to
	// the national system (at the same endpoints' nfse addresses), and
	// never lets a simulated party authorize one.
	var authority fiscal.Authority
	var rehearsal *localauth.Authorities
	roots := (*x509.CertPool)(nil) // the PSPs': the system's and ICP-Brasil's, or the fiscal client's (--ca-file)
	var national *sefaz.Client     // the units' documents are fetched in production only
	if o.TestCertificates {
		clock := o.Clock
		if clock == nil {
			clock = func(string) time.Time { return time.Now() }
		}
		rehearsal = &localauth.Authorities{Now: clock}
		authority = rehearsal
	} else {
		if o.Fiscal == nil {
			e, err := sefaz.Load()
			if err != nil {
				return nil, nil, err
			}
			roots, err := certs.TrustPool("")
			if err != nil {
				return nil, nil, err
			}
			o.Fiscal = &sefaz.Client{Endpoints: e, Roots: roots}
		}
		sefazAuthority := &sefaz.Authority{Client: o.Fiscal}
		nfse := &nfsen.Authority{Client: &nfsen.Client{Endpoints: o.Fiscal.Endpoints, Roots: o.Fiscal.Roots, Timeout: o.Fiscal.Timeout}}
		authority = fiscal.Authorities{fiscal.NFe: sefazAuthority, fiscal.NFCe: sefazAuthority, fiscal.NFSeN: nfse}
		national, roots = o.Fiscal, o.Fiscal.Roots
	}
	if roots == nil && o.Fiscal != nil {
		// Test mode too: a unit's own PSP is reached trusting what serve
		// trusts (--ca-file), as in production.
		roots = o.Fiscal.Roots
	}
	if roots == nil {
		var err error
		if roots, err = certs.TrustPool(""); err != nil {
			return nil, nil, err
		}
	}
	if o.Reform == nil {
		if o.Reform, err = reform.Load(); err != nil {
			return nil, nil, err
		}
	}
	inv := &invoicing.Service{Reform: o.Reform, Authority: authority, Rehearsal: rehearsal, SEFAZ: national, Render: rd, Links: links, CancelWindow: o.CancelWindow,
		Keyring: o.Keyring, TestCertificates: o.TestCertificates, SignerRoots: o.SignerRoots, InboxPoll: o.InboxPoll, InboxOff: o.InboxOff}
	psps := &billing.PSPs{Keyring: o.Keyring, Roots: roots}
	if o.TestCertificates {
		// Test mode and the demo connect every unit without a PSP of its
		// own to its domain's local one, through the same client.
		psps.Rehearsal = &psprehearsal.PSPs{Now: psprehearsal.Clock(o.Clock)}
	}
	return &billing.Service{Providers: provider.Builtin(), Render: rd, Links: links, Invoices: inv, Log: o.Log,
		SimulatedBanks: o.SimulatedBanks || o.TestCertificates, PSPs: psps}, inv, nil
}

// ServiceOptions configure the business services.
type ServiceOptions struct {
	PublicURL string
	Log       *slog.Logger
	// Render draws the pages and e-mails (nil: the embedded templates are
	// parsed here); a server and its services may share one.
	Render *render.Renderer
	// CancelWindow is how long an invoice may be cancelled (24 h when 0).
	CancelWindow time.Duration
	// Keyring opens the sealed certificate keys and CSCs (serve
	// --secrets-key-file); without it no unit can sign an invoice.
	Keyring *certs.Keyring
	// TestCertificates gives a unit without a certificate a self-signed
	// test one at its first invoice (test mode and demo).
	TestCertificates bool
	// SimulatedBanks gives a unit without a bank agreement a simulated
	// sample one (test mode and demo; implied by TestCertificates).
	SimulatedBanks bool
	// Clock is a domain's clock (store.Domains.DomainNow), which test
	// mode's local authorities judge by; the process clock when nil.
	Clock func(domain string) time.Time
	// Fiscal is the SEFAZ client a production server sends its notes
	// through (serve --fiscal-endpoints, --ca-file): the shipped addresses
	// and the system's and ICP-Brasil roots when nil.
	Fiscal *sefaz.Client
	// SignerRoots are the roots a supplier's note must chain to for the
	// inbox (certs.SignerPool with serve's --ca-file): the ICP-Brasil
	// roots when nil.
	SignerRoots *x509.CertPool
	// InboxPoll is how long a unit's inbox waits between fetches once it
	// has taken what was new (serve --inbox-poll; an hour when 0), and
	// InboxOff turns the fetching off (--inbox-poll 0).
	InboxPoll time.Duration
	InboxOff  bool
	// Reform is the tax reform's table (serve --ibscbs-table): the
	// shipped one when nil.
	Reform *reform.Table
}

// New returns a Server over open domains and the system file.
func New(domains *store.Domains, system *store.System, cfg Config) (*Server, error) {
	if cfg.MaxJSONBytes <= 0 {
		cfg.MaxJSONBytes = 1 << 20
	}
	if cfg.MaxMultipartBytes <= 0 {
		cfg.MaxMultipartBytes = 25 << 20
	}
	if cfg.UploadMemory <= 0 {
		cfg.UploadMemory = 4 * cfg.MaxMultipartBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://127.0.0.1:8080"
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	if cfg.Keyring == nil && cfg.Invoices != nil {
		cfg.Keyring = cfg.Invoices.Keyring
	}
	if cfg.TestMode && cfg.Keyring == nil {
		// Test mode seals its test certificates and CSCs as production
		// does; with no key given, with one of this process's.
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		k, err := certs.NewKeyring(key)
		if err != nil {
			return nil, err
		}
		cfg.Keyring = k
	}
	r := cfg.Render
	if r == nil {
		var err error
		if r, err = render.New(); err != nil {
			return nil, err
		}
	}
	if cfg.Billing == nil || cfg.Invoices == nil {
		b, inv, err := NewServices(ServiceOptions{PublicURL: cfg.PublicURL, Log: cfg.Logger, Keyring: cfg.Keyring, TestCertificates: cfg.TestMode,
			Clock: domains.DomainNow, Render: r})
		if err != nil {
			return nil, err
		}
		cfg.Billing, cfg.Invoices = b, inv
	}
	if cfg.LinkKeys == nil {
		k, err := LinkKeyring(cfg.Keyring)
		if err != nil {
			return nil, err
		}
		cfg.LinkKeys = k
	}
	links := render.NewLinks(cfg.PublicURL)
	// The public routes (the payment page's, the PSP's callbacks) share
	// one rate per client address.
	limiter := web.NewRateLimiter(120, time.Minute)
	a := &api.API{Domains: domains, Log: cfg.Logger, Render: r, Links: links, Billing: cfg.Billing, Invoices: cfg.Invoices,
		Limiter: limiter, TestMode: cfg.TestMode, WebhookAllowPrivate: cfg.WebhookAllowPrivate || cfg.TestMode}
	pages := &paypage.Pages{Domains: domains, Render: r, Billing: cfg.Billing, Invoices: cfg.Invoices, Limiter: limiter, TestMode: cfg.TestMode}
	// The API's and the portal's uploads share one budget.
	uploads := web.NewUploadBudget(cfg.UploadMemory, cfg.MaxMultipartBytes)
	m := &web.Mux{MaxJSON: cfg.MaxJSONBytes, MaxMultipart: cfg.MaxMultipartBytes, Domains: domains, System: system, Log: cfg.Logger,
		Uploads:   uploads,
		HTMLError: pages.ErrorPage}
	s := &Server{cfg: cfg, domains: domains, system: system, log: cfg.Logger, mux: m, api: a, pageCSP: r.PageCSP()}
	s.routes = append(a.RouteTable(), pages.Routes()...)
	s.portal = portal.New(&portal.Portal{Domains: domains, System: system, Log: cfg.Logger, Render: r, Links: links, Billing: cfg.Billing, Invoices: cfg.Invoices,
		PublicURL: cfg.PublicURL, LinkKeys: cfg.LinkKeys, TestMode: cfg.TestMode, APIRoutes: s.routes, Uploads: uploads})
	if cfg.TestMode {
		s.test = testmode.New(testmode.Mode{Mux: m, Domains: domains, Billing: cfg.Billing, Invoices: cfg.Invoices, Keyring: cfg.Keyring, RunDay: cfg.RunDay, Wake: cfg.Wake,
			WaitMail: s.portal.WaitLoginMail, Unseal: s.portal.Unsealed}, cfg.Seed)
		m.Hooks = s.test
		s.routes = append(s.routes, s.test.TestRoutes()...)
	}
	s.docs = sync.OnceValues(func() (apiDocs, error) {
		doc, err := openapi.Document(s.routes)
		if err != nil {
			return apiDocs{}, err
		}
		ref, err := openapi.Reference(r, doc)
		return apiDocs{document: doc, reference: ref}, err
	})
	return s, nil
}

// apiDocs are the OpenAPI document and its HTML reference.
type apiDocs struct{ document, reference []byte }

// Docs answers the OpenAPI document and its HTML reference, drawing them
// on the first ask.
func (s *Server) Docs() (document, reference []byte, err error) {
	d, err := s.docs()
	return d.document, d.reference, err
}

// Handler returns the HTTP handler with every route registered.
func (s *Server) Handler() http.Handler {
	r := httprouter.New()
	for i := range s.routes {
		rt := &s.routes[i]
		r.Handle(rt.MethodOf(), web.Prefix+rt.Path, s.mux.Adapt(rt))
	}
	// HEAD is GET without the body (net/http drops it), for the routes
	// without effects; a portal page records that it was viewed.
	for path, h := range map[string]httprouter.Handle{"/health": s.health, "/openapi.json": s.serveOpenAPI, "/docs": s.serveAPIDocs} {
		r.GET(web.Prefix+path, h)
		r.HEAD(web.Prefix+path, h)
	}
	s.portal.Routes(r)
	r.GlobalOPTIONS = http.HandlerFunc(s.options)
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, "/portal/") {
			s.portal.NotFound(w, req)
			return
		}
		web.WriteJSON(w, http.StatusNotFound, web.ErrorBody{Error: "Route not found."})
	})
	r.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		web.WriteJSON(w, http.StatusMethodNotAllowed, web.ErrorBody{Error: "Method not allowed."})
	})
	r.PanicHandler = func(w http.ResponseWriter, req *http.Request, v any) {
		if v == http.ErrAbortHandler {
			// Half an answer is out (writeJSON): net/http must cut the
			// connection, not end the body as if it were whole.
			panic(v)
		}
		s.log.Error("panic", "path", web.RedactTokens(req.URL.EscapedPath()), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		web.WriteJSON(w, http.StatusInternalServerError, web.ErrorBody{Error: web.TextSomethingWentWrong})
	}
	return web.LogRequests(s.log, s.withCORS(r))
}

// serveAPIDocs answers GET /api/v1/docs: the reference, drawn on the
// server from the document, with no script and nothing from elsewhere.
func (s *Server) serveAPIDocs(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	_, ref, err := s.Docs()
	if err != nil {
		s.log.Error("the API reference", "err", err)
		http.Error(w, "Internal server error.", http.StatusInternalServerError)
		return
	}
	web.HtmlPage(http.StatusOK, ref, s.pageCSP).Write(w)
}

// serveOpenAPI answers GET /api/v1/openapi.json.
func (s *Server) serveOpenAPI(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	doc, _, err := s.Docs()
	if err != nil {
		s.log.Error("the OpenAPI document", "err", err)
		http.Error(w, "Internal server error.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write(doc)
}
