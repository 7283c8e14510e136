// Package server serves fincom's HTTP API under /api/v1.
package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/julienschmidt/httprouter"

	"fincom/render"
	"fincom/server/billing"
	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/server/invoicing"
	"fincom/server/provider"
	"fincom/store"
)

// Prefix is the base path of every route (spec, Versioning).
const Prefix = "/api/v1"

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
	RunDay DayRunner
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

// Server answers the API for the domains of one data directory.
type Server struct {
	cfg      Config
	domains  *store.Domains
	system   *store.System
	log      *slog.Logger
	dec      decoder
	routes   []route
	render   *render.Renderer
	links    render.Links
	billing  *billing.Service
	invoices *invoicing.Service
	limiter  *rateLimiter
	signIn   signInLimits
	mailing  sync.WaitGroup // sign-in e-mails being queued (queueLoginLink)
	queuing  chan struct{}  // their slots, maxQueuing
	uploads  *uploadBudget
	faults   *faults  // test mode's
	journal  *journal // test mode's
	openapi  []byte   // the OpenAPI document, built once from the routes
	apiDocs  []byte   // its HTML reference (GET /docs), drawn once from it
}

// NewServices builds the business services a server and the scheduler
// share: charges through the built-in providers, invoices through the
// simulated authority, links and e-mails for a server reached at
// PublicURL.
func NewServices(o ServiceOptions) (*billing.Service, *invoicing.Service, error) {
	rd, err := render.New()
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
	inv := &invoicing.Service{Authority: &fiscal.Simulated{}, Render: rd, Links: links, CancelWindow: o.CancelWindow,
		Keyring: o.Keyring, TestCertificates: o.TestCertificates}
	return &billing.Service{Providers: provider.Builtin(), Render: rd, Links: links, Invoices: inv, Log: o.Log,
		SimulatedBanks: o.SimulatedBanks || o.TestCertificates}, inv, nil
}

// ServiceOptions configure the business services.
type ServiceOptions struct {
	PublicURL string
	Log       *slog.Logger
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
	if cfg.Billing == nil || cfg.Invoices == nil {
		b, inv, err := NewServices(ServiceOptions{PublicURL: cfg.PublicURL, Log: cfg.Logger, Keyring: cfg.Keyring, TestCertificates: cfg.TestMode})
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
	r, err := render.New()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, domains: domains, system: system, log: cfg.Logger, render: r, links: render.NewLinks(cfg.PublicURL),
		billing: cfg.Billing, invoices: cfg.Invoices, limiter: newRateLimiter(120, time.Minute), signIn: newSignInLimits(), queuing: make(chan struct{}, maxQueuing),
		uploads: newUploadBudget(cfg.UploadMemory, cfg.MaxMultipartBytes)}
	s.routes = s.routeTable()
	if cfg.TestMode {
		s.routes = append(s.routes, s.testRoutes()...)
		s.faults = newFaults(cfg.Seed)
		s.journal = &journal{entries: map[string][]journalEntry{}}
	}
	if s.openapi, err = s.openAPI(); err != nil {
		return nil, err
	}
	if s.apiDocs, err = s.apiReference(); err != nil {
		return nil, err
	}
	return s, nil
}

// Handler returns the HTTP handler with every route registered.
func (s *Server) Handler() http.Handler {
	r := httprouter.New()
	for i := range s.routes {
		rt := &s.routes[i]
		r.Handle(rt.methodOf(), Prefix+rt.path, s.adapt(rt))
	}
	// HEAD is GET without the body (net/http drops it), for the routes
	// without effects; a portal page records that it was viewed.
	for path, h := range map[string]httprouter.Handle{"/health": s.health, "/openapi.json": s.serveOpenAPI, "/docs": s.serveAPIDocs} {
		r.GET(Prefix+path, h)
		r.HEAD(Prefix+path, h)
	}
	s.portalRoutes(r)
	r.GlobalOPTIONS = http.HandlerFunc(s.options)
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusNotFound, errorBody{Error: textRouteNotFound})
	})
	r.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{Error: textMethodNotAllow})
	})
	r.PanicHandler = func(w http.ResponseWriter, req *http.Request, v any) {
		if v == http.ErrAbortHandler {
			// Half an answer is out (writeJSON): net/http must cut the
			// connection, not end the body as if it were whole.
			panic(v)
		}
		s.log.Error("panic", "path", redactTokens(req.URL.EscapedPath()), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: textSomethingWentWrong})
	}
	return s.logRequests(s.withCORS(r))
}

// request is what a handler gets: the decoded body, the resolved domain and
// unit (auth already passed), and the route.
type request struct {
	ctx    context.Context
	http   *http.Request
	params httprouter.Params
	route  *route
	body   body
	db     *store.DB
	unit   store.Unit
	units  []store.Unit   // with authUnits: every unit named; else just unit
	actor  string         // the access token, as the audit log names it
	query  map[string]int // the route's query parameters that were sent
	dec    *decoder
	// release lets the domain go. It runs after the answer is written:
	// a listing (store.Listing) reads its rows while it is written.
	release func()
}

// validator is implemented by request structs.
type validator interface{ validate() error }

// decode fills dst from the body (aliases applied, types checked) and runs
// its validate method.
func (r *request) decode(dst any) error {
	if err := r.dec.fill(r.body.fields, r.body.form, dst); err != nil {
		return r.decodeError(err)
	}
	// A route whose missing text lists the fields in details checks its
	// need itself, with the fields that depend on others (insert_sales_order).
	if m := r.dec.missing(dst, r.route.need); m != nil && !r.route.texts.details {
		return r.route.answer(&missingError{m})
	}
	if v, ok := dst.(validator); ok {
		return r.route.answer(v.validate())
	}
	return nil
}

// decodeError answers a decode failure, naming the field: what the route
// declares for it (errMap), else an amount or quantity out of range, a text
// with a control character, a value outside its choices (400 with the
// field's text); any other is the route's format text with the field in
// details.field.
func (r *request) decodeError(err error) error {
	var fe *fieldError
	if !errors.As(err, &fe) {
		return r.route.texts.format
	}
	for _, m := range r.route.errs {
		if errors.Is(err, m.err) {
			if m.to.Text == r.route.texts.format.Text && m.to.Details == nil {
				// The route answers it as a format error: named like one.
				return r.route.formatError(fe.field)
			}
			return m.to
		}
	}
	var choice *choiceError
	switch {
	case errors.Is(err, store.ErrMoneyRange):
		return newError(http.StatusBadRequest, fmt.Sprintf(textMoneyRange, fe.field))
	case errors.Is(err, store.ErrQuantityRange):
		return newError(http.StatusBadRequest, fmt.Sprintf(textQuantityRange, fe.field))
	case errors.Is(err, brdoc.ErrPixKey):
		return newError(http.StatusBadRequest, fmt.Sprintf(textPixKey, fe.field))
	case errors.Is(err, errControl):
		return newError(http.StatusBadRequest, fmt.Sprintf(textControlChars, fe.field))
	case errors.As(err, &choice):
		return newError(http.StatusBadRequest, fmt.Sprintf(textInvalidChoice, fe.field, orList(choice.choices)))
	}
	return r.route.formatError(fe.field)
}

// formatError is the route's format text naming the field in
// details.field: every "Invalid parameter format" says which field.
func (rt *route) formatError(field string) *Error {
	f := *rt.texts.format
	f.Details = fieldDetails{Field: field}
	return &f
}

// fieldDetails names the field a format error is about.
type fieldDetails struct {
	Field string `json:"field"`
}

// errMissing is returned by validate methods for an absent required field;
// the adapter answers it with the route's own "missing" text.
var errMissing = errors.New("missing required field")

// adapt turns a route into an httprouter handle: read the body, check the
// tokens, call the handler, write the envelope.
func (s *Server) adapt(rt *route) httprouter.Handle {
	return func(w http.ResponseWriter, hr *http.Request, ps httprouter.Params) {
		info := requestInfo(hr.Context())
		info.route = rt.path
		req := &request{ctx: hr.Context(), http: hr, params: ps, route: rt, dec: &s.dec}
		if s.journal != nil {
			tw := &teeWriter{ResponseWriter: w, status: http.StatusOK}
			defer s.record(req, tw, time.Now())
			w = tw
		}
		defer func() {
			if req.release != nil {
				req.release()
			}
			if req.body.free != nil {
				req.body.free()
			}
		}()
		v, err := s.run(w, req)
		if err != nil && hr.Context().Err() != nil {
			// The client went away (a closed tab, a load tool's end): no
			// one reads an answer, and the error is the cancellation's,
			// not the server's. Logged as 499, not as an internal error.
			w.WriteHeader(statusClientClosed)
			return
		}
		if err != nil && rt.envelope == envHTML {
			var e *Error
			if !errors.As(err, &e) {
				s.log.Error("internal error", "route", rt.path, "err", err)
			}
			s.errorPage(err).write(w)
			return
		}
		if err != nil {
			status, b := s.errorStatusBody(rt, err, s.log)
			writeJSON(w, status, b)
			return
		}
		if raw, ok := v.(rawResponse); ok {
			raw.write(w)
			return
		}
		writeJSON(w, http.StatusOK, successBody(v))
	}
}

// rawResponse lets public routes answer HTML or images instead of JSON.
type rawResponse interface{ write(http.ResponseWriter) }

func (s *Server) run(w http.ResponseWriter, req *request) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	rt := req.route
	if req.query, err = rt.readQuery(req.http); err != nil {
		return nil, err
	}
	if rt.methodOf() == http.MethodPost {
		if req.body, err = s.readBody(w, req.http); err != nil {
			return nil, err
		}
	}
	if req.release, err = s.authenticate(req); err != nil {
		return nil, err
	}
	if req.db != nil && rt.write {
		record := req.body.str("id_token", "token", "id_token_purchase_order", "access_key")
		if req.actor == "" {
			req.actor = req.db.TokenActor(req.ctx, req.body.str("access_token"))
		}
		req.ctx = store.WithAudit(req.ctx, req.actor, rt.path, record, req.unit.ID)
	}
	if s.faults != nil && req.db != nil {
		if err := s.faults.apply(req.db.Name, rt.path); err != nil {
			return nil, err
		}
	}
	v, err = rt.do.run(req)
	return v, rt.answer(err)
}
