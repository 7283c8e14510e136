// Package problem is a refusal as fincom answers it: what kind of refusal
// it is (a domain code) and the exact text (the spec's, where it gives
// one). A business package declares each of its refusals once, beside the
// rule that meets it, as a *Problem; the API and the portal answer it as
// it is (web.Route.Answer), server/web alone turning its code into an
// HTTP status, and errors.Is finds it through any wrapping.
package problem

// Code is the kind of a refusal.
type Code string

// The domain's codes (server/web answers each with its HTTP status).
const (
	// Invalid: the request is malformed, or a field is not what it must
	// be (400).
	Invalid Code = "invalid"
	// Unprocessable: the request is well formed, but the rules refuse it
	// (422).
	Unprocessable Code = "unprocessable"
	// NotFound: what it names is not there, or not the caller's (404).
	NotFound Code = "not_found"
	// Conflict: what it names is not in a state that allows it now (409).
	Conflict Code = "conflict"
	// Forbidden: the caller may not do it (403).
	Forbidden Code = "forbidden"
	// Unavailable: an outside party (an authority, a PSP, a bank's
	// server) failed or answered what cannot be taken (502).
	Unavailable Code = "unavailable"
)

// Problem is a refusal: its code, the text, and optional details.
type Problem struct {
	Code Code
	// Status is the HTTP status the HTTP layer (server/web) named itself
	// for a refusal of its own (a body too large, a missing token); zero
	// for a refusal of the domain, answered by its code.
	HTTPStatus int
	Text       string
	Details    any
}

func (p *Problem) Error() string { return p.Text }

// New is a refusal of kind code with text.
func New(code Code, text string) *Problem { return &Problem{Code: code, Text: text} }

// With is the refusal with details (an outside party's own code and text
// beside fixed text of ours); errors.Is still finds p in it.
func (p *Problem) With(details any) *Problem {
	return &Problem{Code: p.Code, HTTPStatus: p.HTTPStatus, Text: p.Text, Details: details}
}

// Is says target is the same refusal: its code (or status) and text.
func (p *Problem) Is(target error) bool {
	t, ok := target.(*Problem)
	return ok && t.Code == p.Code && t.HTTPStatus == p.HTTPStatus && t.Text == p.Text
}
