package server

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
)

// route is one entry of the route table: everything that differs between
// routes is declared here once, and the router, the OpenAPI document and
// the audit log derive from it.
type route struct {
	method string // "" is POST
	path   string
	do     action
	auth   authKind // zero: access_token and unit_token
	// need are the request fields the route requires (JSON names, dotted
	// below a group): the decoder answers the route's missing text when
	// one is blank, and the OpenAPI document lists them as required.
	need []string
	// query are the URL query parameters the route reads, each a whole
	// number from 1: another value answers 400 before the handler runs.
	query    []queryParam
	envelope envelope // zero: {success, data} and {success, error}
	texts    texts    // the spec's texts for the failures every route meets
	errs     errMap   // what this route answers for the store's and the business packages' errors
	write    bool     // it changes data: audited with the access token that made the change
	doc      doc      // what the OpenAPI document says of it
}

// doc is what the OpenAPI document says of a route besides what the
// route table already holds: its tag, a summary, a description, what it
// answers (resp: the zero value of the handler's value, e.g. created{},
// withMessage{Data: T}, okData{Data: T}, T, nullable{T}, eitherOf{...};
// or raw: the media types of a document it answers instead of JSON), and
// whether it takes multipart bodies.
type doc struct {
	tag, summary, desc string
	resp               any
	raw                string
	multipart          bool
}

// action is a route's handler and the request struct it decodes (nil when
// the route reads only its tokens).
type action struct {
	run handler
	req reflect.Type
}

// handler is a route's logic: a value or an error.
type handler func(r *request) (any, error)

// handle makes the action of a handler that takes a request struct: the
// body is decoded into a new Q (aliases applied, types checked, then its
// validate method) before fn runs.
func handle[Q any](fn func(r *request, q *Q) (any, error)) action {
	return action{req: reflect.TypeFor[Q](), run: func(r *request) (any, error) {
		q := new(Q)
		if err := r.decode(q); err != nil {
			return nil, err
		}
		return fn(r, q)
	}}
}

// plain makes the action of a handler that reads nothing but its tokens
// (or its path).
func plain(fn handler) action { return action{run: fn} }

// errMap says what a route answers for an error a handler returns (a
// store sentinel such as ErrNotFound, a business package's error), in
// order: the first whose sentinel the error is wins.
type errMap []struct {
	err error
	to  *Error
}

// answer maps err to the route's answer: errMissing to the route's
// missing text, an *Error as it is, a declared error to its answer, then
// the errors every route answers alike (sharedErrors). Anything else is
// the route's 500, its cause logged and never sent.
func (rt *route) answer(err error) error {
	if err == nil {
		return nil
	}
	for _, m := range rt.errs {
		if errors.Is(err, m.err) {
			return m.to
		}
	}
	if errors.Is(err, errMissing) {
		var m *missingError
		if rt.texts.details && errors.As(err, &m) {
			return missingFieldsError(m.fields)
		}
		return rt.texts.missing
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if e := sharedError(rt, err); e != nil {
		return e
	}
	return err
}

// queryParam is a URL query parameter a route reads.
type queryParam struct {
	name, doc string
}

// readQuery checks the route's query parameters: absent is fine, else a
// whole number from 1.
func (rt *route) readQuery(r *http.Request) (map[string]int, error) {
	if rt.query == nil {
		return nil, nil
	}
	out := map[string]int{}
	q := r.URL.Query()
	for _, p := range rt.query {
		if !q.Has(p.name) {
			continue
		}
		n, err := strconv.Atoi(q.Get(p.name))
		if err != nil || n < 1 {
			return nil, newError(http.StatusBadRequest, fmt.Sprintf(textInvalidQuery, p.name))
		}
		out[p.name] = n
	}
	return out, nil
}

// methodOf is the route's HTTP method.
func (rt *route) methodOf() string {
	if rt.method == "" {
		return http.MethodPost
	}
	return rt.method
}
