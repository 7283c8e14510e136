package problem

import (
	"errors"
	"strings"
)

// FieldPlaceholder stands, in a listed text, for the name of the field
// refused as it was sent: dotted below its group (pv.value), indexed in a
// list (pv.products[0].quantity), or one of its other names.
const FieldPlaceholder = "{field}"

// Named is p answered for one field: FieldPlaceholder in its text is the
// field's name. The route lists p as it is, the text written once.
func Named(p *Problem, field string) *Problem {
	c := *p
	c.Text = strings.ReplaceAll(c.Text, FieldPlaceholder, field)
	return &c
}

// TextMissingRequiredFields is the spec's text of required fields absent.
const TextMissingRequiredFields = "Missing required fields"

// MissingFields is "Missing required fields" (invalid) with the spec's
// details: the fields, and the group of the first.
func MissingFields(fields []string) *Problem {
	group, _, _ := strings.Cut(fields[0], ".")
	return &Problem{Code: Invalid, Text: TextMissingRequiredFields, Details: missingDetails{MissingFields: fields, Group: group}}
}

// missingDetails is the spec's details of "Missing required fields".
type missingDetails struct {
	MissingFields []string `json:"missing_fields"`
	Group         string   `json:"group"`
}

// MissingFieldsOf is the list of a "Missing required fields" refusal
// (MissingFields), nil for any other error.
func MissingFieldsOf(err error) []string {
	var p *Problem
	if errors.As(err, &p) {
		if d, ok := p.Details.(missingDetails); ok {
			return d.MissingFields
		}
	}
	return nil
}
