// Package problem is a refusal as fincom answers it: the HTTP status and
// the exact text (the spec's, where it gives one). A business package
// declares each of its refusals once, beside the rule that meets it, as a
// *Problem; the API and the portal answer it as it is (web.Route.Answer),
// and errors.Is finds it through any wrapping.
package problem

// Problem is a refusal: the status, the text, and optional details.
type Problem struct {
	Status  int
	Text    string
	Details any
}

func (p *Problem) Error() string { return p.Text }

// New is a refusal of status with text.
func New(status int, text string) *Problem { return &Problem{Status: status, Text: text} }

// With is the refusal with details (an outside party's own code and text
// beside fixed text of ours); errors.Is still finds p in it.
func (p *Problem) With(details any) *Problem {
	return &Problem{Status: p.Status, Text: p.Text, Details: details}
}

// Is says target is the same refusal: its status and text.
func (p *Problem) Is(target error) bool {
	t, ok := target.(*Problem)
	return ok && t.Status == p.Status && t.Text == p.Text
}
