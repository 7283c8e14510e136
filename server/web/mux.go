package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/julienschmidt/httprouter"

	"fincom/server/brdoc"
	"fincom/store"
)

// Prefix is the base path of every route (spec, Versioning).
const Prefix = "/api/v1"

// Mux runs the declared routes: body, tokens, handler, envelope.
type Mux struct {
	MaxJSON, MaxMultipart int64
	Domains               *store.Domains
	System                *store.System
	Log                   *slog.Logger
	dec                   Decoder
	Uploads               *UploadBudget
	Hooks                 Hooks                   // test mode's; nil outside it
	HTMLError             func(error) RawResponse // the answer of a failed HTML route
}

// Hooks let test mode see every routed request: a fault before the
// handler runs, the journal after the answer.
type Hooks interface {
	Fault(domain, route string) error
	Record(req *Request, status int, answer []byte, start time.Time)
}

// Request is what a handler gets: the decoded body, the resolved domain and
// unit (auth already passed), and the route.
type Request struct {
	Ctx    context.Context
	HTTP   *http.Request
	Params httprouter.Params
	Route  *Route
	Body   Body
	DB     *store.DB
	Unit   store.Unit
	Units  []store.Unit   // with authUnits: every unit named; else just unit
	roles  []store.Role   // the access token's role on each of Units
	actor  string         // the access token, as the audit log names it
	Query  map[string]int // the route's query parameters that were sent
	Dec    *Decoder
	// release lets the domain go. It runs after the answer is written:
	// a listing (store.Listing) reads its rows while it is written.
	release func()
}

// validator is implemented by request structs.
type validator interface{ Validate() error }

// decode fills dst from the body (aliases applied, types checked) and runs
// its validate method.
func (r *Request) decode(dst any) error {
	if err := r.Dec.Fill(r.Body.Fields, r.Body.form, dst); err != nil {
		return r.DecodeError(err)
	}
	// A route whose missing text lists the fields in details checks its
	// need itself, with the fields that depend on others (insert_sales_order).
	if m := r.Dec.Missing(dst, r.Route.Need); m != nil && !r.Route.Texts.details {
		return r.Route.Answer(&missingError{m})
	}
	if v, ok := dst.(validator); ok {
		return r.Route.Answer(v.Validate())
	}
	return nil
}

// DecodeError answers a decode failure, naming the field: what the route
// declares for it (errMap), else an amount or quantity out of range, a text
// with a control character, a value outside its choices (400 with the
// field's text); any other is the route's format text with the field in
// details.field.
func (r *Request) DecodeError(err error) error {
	var fe *FieldError
	if !errors.As(err, &fe) {
		return r.Route.Texts.Format
	}
	for _, m := range r.Route.Errs {
		if errors.Is(err, m.Err) {
			if m.To.Text == r.Route.Texts.Format.Text && m.To.Details == nil {
				// The route answers it as a format error: named like one.
				return r.Route.FormatError(fe.Field)
			}
			return m.To
		}
	}
	var choice *choiceError
	var outside *rangeError
	switch {
	case errors.Is(err, store.ErrMoneyRange):
		return NewError(http.StatusBadRequest, fmt.Sprintf(textMoneyRange, fe.Field))
	case errors.Is(err, store.ErrQuantityRange):
		return NewError(http.StatusBadRequest, fmt.Sprintf(textQuantityRange, fe.Field))
	case errors.Is(err, brdoc.ErrPixKey):
		return NewError(http.StatusBadRequest, fmt.Sprintf(textPixKey, fe.Field))
	case errors.Is(err, ErrTooLong):
		return ErrTooLong.With(FieldDetails{Field: fe.Field})
	case errors.Is(err, errControl):
		return NewError(http.StatusBadRequest, fmt.Sprintf(textControlChars, fe.Field))
	case errors.As(err, &outside):
		return NewError(http.StatusBadRequest, fmt.Sprintf(textIntRange, fe.Field, outside.lo, outside.hi))
	case errors.As(err, &choice):
		return NewError(http.StatusBadRequest, fmt.Sprintf(TextInvalidChoice, fe.Field, orList(choice.choices)))
	}
	return r.Route.FormatError(fe.Field)
}

// FormatError is the route's format text naming the field in
// details.field: every "Invalid parameter format" says which field.
func (rt *Route) FormatError(field string) *Error {
	f := *rt.Texts.Format
	f.Details = FieldDetails{Field: field}
	return &f
}

// FieldDetails names the field a format error is about.
type FieldDetails struct {
	Field string `json:"field"`
}

// ErrMissing is returned by validate methods for an absent required field;
// the adapter answers it with the route's own "missing" text.
var ErrMissing = errors.New("missing required field")

// Adapt turns a route into an httprouter handle: read the body, check the
// tokens, call the handler, write the envelope.
func (s *Mux) Adapt(rt *Route) httprouter.Handle {
	return func(w http.ResponseWriter, hr *http.Request, ps httprouter.Params) {
		info := RequestInfo(hr.Context())
		info.route = rt.Path
		req := &Request{Ctx: hr.Context(), HTTP: hr, Params: ps, Route: rt, Dec: &s.dec}
		if s.Hooks != nil {
			tw := &teeWriter{ResponseWriter: w, status: http.StatusOK}
			defer func(start time.Time) { s.Hooks.Record(req, tw.status, tw.buf.Bytes(), start) }(time.Now())
			w = tw
		}
		defer func() {
			if req.release != nil {
				req.release()
			}
			if req.Body.free != nil {
				req.Body.free()
			}
		}()
		v, err := s.run(w, req)
		if err != nil && hr.Context().Err() != nil {
			// The client went away (a closed tab, a load tool's end): no
			// one reads an answer, and the error is the cancellation's,
			// not the server's. Logged as 499, not as an internal error.
			w.WriteHeader(StatusClientClosed)
			return
		}
		if err != nil && rt.Envelope == EnvHTML {
			var e *Error
			if !errors.As(err, &e) {
				s.Log.Error("internal error", "route", rt.Path, "err", err)
			}
			s.HTMLError(err).Write(w)
			return
		}
		if err != nil {
			status, b := s.errorStatusBody(rt, err, s.Log)
			WriteJSON(w, status, b)
			return
		}
		if raw, ok := v.(RawResponse); ok {
			raw.Write(w)
			return
		}
		WriteJSON(w, http.StatusOK, successBody(v))
	}
}

// RawResponse lets public routes answer HTML or images instead of JSON.
type RawResponse interface{ Write(http.ResponseWriter) }

func (s *Mux) run(w http.ResponseWriter, req *Request) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	rt := req.Route
	if req.Query, err = rt.readQuery(req.HTTP); err != nil {
		return nil, err
	}
	if rt.MethodOf() == http.MethodPost {
		if req.Body, err = s.readBody(w, req.HTTP); err != nil {
			return nil, err
		}
	}
	if req.release, err = s.authenticate(req); err != nil {
		return nil, err
	}
	if err := permit(req); err != nil {
		return nil, err
	}
	if req.DB != nil && rt.Write {
		record := req.Body.str("id_token", "token", "id_token_purchase_order", "access_key")
		if req.actor == "" {
			req.actor = req.DB.TokenActor(req.Ctx, req.Body.str("access_token"))
		}
		req.Ctx = store.WithAudit(req.Ctx, req.actor, rt.Path, record, req.Unit.ID)
	}
	if s.Hooks != nil && req.DB != nil {
		if err := s.Hooks.Fault(req.DB.Name, rt.Path); err != nil {
			return nil, err
		}
	}
	v, err = rt.Do.run(req)
	return v, rt.Answer(err)
}

// teeWriter keeps a copy of a JSON answer for the journal.
type teeWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (t *teeWriter) WriteHeader(code int) {
	t.status = code
	t.ResponseWriter.WriteHeader(code)
}

func (t *teeWriter) Write(p []byte) (int, error) {
	if t.buf.Len() < 64<<10 {
		t.buf.Write(p)
	}
	return t.ResponseWriter.Write(p)
}
