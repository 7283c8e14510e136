package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"

	"fincom/server/access"
	"fincom/server/brdoc"
	"fincom/server/problem"
	"fincom/store"
)

// Route is one entry of the route table: everything that differs between
// routes is declared here once, and the router, the OpenAPI document and
// the audit log derive from it.
type Route struct {
	Method string // "" is POST
	Path   string
	Do     Action
	Auth   AuthKind // zero: access_token and unit_token
	// Need are the request fields the route requires (JSON names, dotted
	// below a group): the decoder answers the route's missing text when
	// one is blank, and the OpenAPI document lists them as required.
	Need []string
	// Query are the URL query parameters the route reads, each a whole
	// number from 1: another value answers 400 before the handler runs.
	Query    []QueryParam
	Envelope Envelope // zero: {success, data} and {success, error}
	Texts    Texts    // the spec's texts for the failures every route meets
	Errs     ErrMap   // what this route answers for the store's and the business packages' errors
	Write    bool     // it changes data: audited with the access token that made the change
	// Files is what the route takes as attachments (nil: none).
	Files *FileRule
	// Area is what a write changes, which the token's role must be
	// allowed (access.May); zero: the area of the route's tag (areaOf).
	Area access.Area
	Doc  Doc // what the OpenAPI document says of it
}

// Doc is what the OpenAPI document says of a route besides what the
// route table already holds: its tag, a summary, a description, what it
// answers (resp: the zero value of the handler's value, e.g. created{},
// withMessage{Data: T}, okData{Data: T}, T, nullable{T}, eitherOf{...};
// or raw: the media types of a document it answers instead of JSON), and
// whether it takes multipart bodies.
type Doc struct {
	Tag, Summary, Desc string
	Resp               any
	Raw                string
	Multipart          bool
	// Example and RespExample are a request body and its answer as JSON
	// texts, shown in the document beside the schemas; ExampleParam is the
	// example of the path's parameter (a public token, a webhook's secret).
	Example, RespExample, ExampleParam string
	// ExampleFile names the file a multipart example sends beside
	// Example (its metadata part): a route that reads a file has its
	// example there, not as a JSON body.
	ExampleFile string
}

// Action is a route's handler and the request struct it decodes (nil when
// the route reads only its tokens).
type Action struct {
	run handler
	Req reflect.Type
}

// handler is a route's logic: a value or an error.
type handler func(r *Request) (any, error)

// Handle makes the action of a handler that takes a request struct: the
// body is decoded into a new Q (aliases applied, types checked, then its
// validate method) before fn runs.
func Handle[Q any](fn func(r *Request, q *Q) (any, error)) Action {
	return Action{Req: reflect.TypeFor[Q](), run: func(r *Request) (any, error) {
		q := new(Q)
		if err := r.decode(q); err != nil {
			return nil, err
		}
		return fn(r, q)
	}}
}

// Plain makes the action of a handler that reads nothing but its tokens
// (or its path).
func Plain(fn handler) Action { return Action{run: fn} }

// ErrMap says what a route answers for an error a handler returns (a
// store sentinel such as ErrNotFound, a business package's error), in
// order: the first whose sentinel the error is wins.
type ErrMap []struct {
	Err error
	To  *Error
}

// Answers lists errors a route's handler returns as they are, to be
// named in the document beside the errors it maps.
func Answers(errs ...*Error) ErrMap {
	out := make(ErrMap, len(errs))
	for i, e := range errs {
		out[i].Err, out[i].To = e, e
	}
	return out
}

// Answer maps err to the route's answer: errMissing to the route's
// missing text, an *Error as it is, a declared error to its answer, then
// the errors every route answers alike (sharedErrors). Anything else is
// the route's 500, its cause logged and never sent.
func (rt *Route) Answer(err error) error {
	if err == nil {
		return nil
	}
	for _, m := range rt.Errs {
		if errors.Is(err, m.Err) {
			// A refusal listed as it is (Answers) keeps its details.
			var e *Error
			if m.Err == error(m.To) && errors.As(err, &e) {
				return e
			}
			return m.To
		}
	}
	if errors.Is(err, ErrMissing) {
		var m *missingError
		if rt.Texts.details && errors.As(err, &m) {
			return problem.MissingFields(m.fields)
		}
		return rt.Texts.Missing
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

// QueryParam is a URL query parameter a route reads.
type QueryParam struct {
	Name, Doc string
}

// readQuery checks the route's query parameters: absent is fine, else a
// whole number from 1.
func (rt *Route) readQuery(r *http.Request) (map[string]int, error) {
	if rt.Query == nil {
		return nil, nil
	}
	out := map[string]int{}
	q := r.URL.Query()
	for _, p := range rt.Query {
		if !q.Has(p.Name) {
			continue
		}
		n, err := strconv.Atoi(q.Get(p.Name))
		if err != nil || n < 1 {
			return nil, NewError(http.StatusBadRequest, fmt.Sprintf(textInvalidQuery, p.Name))
		}
		out[p.Name] = n
	}
	return out, nil
}

// MethodOf is the route's HTTP method.
func (rt *Route) MethodOf() string {
	if rt.Method == "" {
		return http.MethodPost
	}
	return rt.Method
}

// FieldText is one of the decoder's refusals of a field: the field's path
// (dotted below its group, [] for a list's items) and the answer, its text
// with problem.FieldPlaceholder for the name.
type FieldText struct {
	Field string
	Err   *Error
}

// FieldTexts are the decoder's refusals of the route's fields, each naming
// its field: a text too long or holding a control character, an amount or
// quantity out of range, a text that is no PIX key, a choice outside a
// field's choices, a whole number outside its range. The ranges and PIX
// keys are found by asking the field's own type, as the decoder does.
func (rt *Route) FieldTexts() []FieldText {
	if rt.Do.Req == nil {
		return nil
	}
	// A route that answers its own text for a choice lists that instead.
	mapped := false
	for _, m := range rt.Errs {
		mapped = mapped || m.Err == ErrChoice
	}
	var d Decoder
	var out []FieldText
	add := func(field string, e *Error) { out = append(out, FieldText{field, e}) }
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for _, fi := range d.FieldsOf(t) {
			ft := t.FieldByIndex(fi.Index).Type
			name := prefix + fi.Name
			if fi.Group {
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				walk(name+".", ft)
				continue
			}
			if elem, ok := structList(ft); ok {
				walk(name+"[].", elem)
				continue
			}
			named := func(text string, args ...any) *Error {
				return NewError(http.StatusBadRequest, fmt.Sprintf(text, append([]any{problem.FieldPlaceholder}, args...)...))
			}
			if ft.Kind() == reflect.String || ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.String {
				add(name, named(textControlChars))
			}
			if fi.max > 0 {
				add(name, ErrTooLong)
			}
			switch probe(ft) {
			case store.ErrMoneyRange:
				add(name, named(textMoneyRange))
			case store.ErrQuantityRange:
				add(name, named(textQuantityRange))
			case brdoc.ErrPixKey:
				add(name, named(textPixKey))
			}
			if fi.ranged {
				add(name, named(textIntRange, fi.lo, fi.hi))
			}
			if fi.Choices != nil && !mapped {
				add(name, named(TextInvalidChoice, orList(fi.Choices)))
			}
		}
	}
	walk("", rt.Do.Req)
	return out
}

// probe answers which of the decoder's named refusals a field's type gives
// a value out of every range, or one that is no PIX key: the type's own
// UnmarshalJSON says, as it does to the decoder.
func probe(t reflect.Type) error {
	for _, raw := range []string{`"99999999999999999999"`, `99999999999999999999`, `"not a key"`} {
		err := json.Unmarshal([]byte(raw), reflect.New(t).Interface())
		for _, known := range []error{store.ErrMoneyRange, store.ErrQuantityRange, brdoc.ErrPixKey} {
			if errors.Is(err, known) {
				return known
			}
		}
	}
	return nil
}

// FieldErrors are a POST body that is no JSON and FieldTexts' answers,
// each text once.
func (rt *Route) FieldErrors() []*Error {
	var out []*Error
	if rt.Do.Req != nil || rt.MethodOf() == http.MethodPost {
		// Every POST body is read as JSON (tokens come in it too).
		out = append(out, errInvalidJSON)
	}
	for _, ft := range rt.FieldTexts() {
		if !slices.ContainsFunc(out, func(e *Error) bool { return e.Text == ft.Err.Text }) {
			out = append(out, ft.Err)
		}
	}
	return out
}

// BodyErrors are refusals of a POST route's body: a body too large, a
// multipart form that is none or comes while uploads are full, and on a
// route that takes files one too large, of a type it does not take or with
// a name that is none.
func (rt *Route) BodyErrors() []*Error {
	if rt.MethodOf() != "POST" {
		return nil
	}
	// Any POST body may come as a multipart form (a JSON metadata part
	// and files), so each may meet the form's own refusals.
	out := []*Error{errBodyTooLarge, errInvalidMultipart, errTwoMetadata, ErrUploadsBusy}
	if rt.Files != nil {
		out = append(out, ErrFileTooLarge, rt.Files.err, errFileName)
	}
	return out
}
