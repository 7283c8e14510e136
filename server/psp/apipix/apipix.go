// Package apipix is the Banco Central's API Pix 2.9.0 as published: the
// schema every body fincom sends a PSP, and every body the local PSP
// receives, is held to.
package apipix

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// apiPix is the Banco Central's API Pix 2.9.0 as published (OpenAPI 3):
// every body fincom sends a PSP is held to it, and so is every body the
// local PSP receives.
//
//go:embed apipix.yaml
var apiPix []byte

// slashed is a pattern the published document writes in JavaScript's
// /…/ form (the CPF's and some IBGE codes': 14 of them); JSON Schema reads
// a pattern as the expression itself, so the slashes would refuse every
// CPF. They are read as the expression between them
// (TestValidateBody's CPF).
var slashed = regexp.MustCompile(`pattern: "/(.*)/"`)

var spec = sync.OnceValues(func() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(slashed.ReplaceAll(apiPix, []byte(`pattern: "$1"`)))
	if err != nil {
		return nil, err
	}
	for name, drop := range unrequired {
		s := doc.Components.Schemas[name]
		if s == nil || s.Value == nil {
			return nil, fmt.Errorf("the document has no schema %s", name)
		}
		kept := s.Value.Required[:0:0]
		for _, r := range s.Value.Required {
			if !slices.Contains(drop, r) {
				kept = append(kept, r)
			}
		}
		s.Value.Required = kept
	}
	return doc, nil
})

// unrequired are properties the published document requires of a
// request that no request can hold, and its own examples (recBody1,
// solicRecBody1) omit: RecBase's idRec, which the PSP assigns when it
// creates the recurrence (POST /rec answers it), and retentativa, which
// names no property (the property is politicaRetentativa, required by
// RecConfiguracao); SolicRecBase's pagador, defined nowhere. Every other
// requirement is held (TestValidateBody's recurrence).
var unrequired = map[string][]string{"RecBase": {"idRec", "retentativa"}, "SolicRecBase": {"pagador"}}

// ErrMessage is a body fincom would not send: invalid by the published
// schema. Nothing left.
var ErrMessage = errors.New("the request is invalid by the API Pix's schema")

// ValidateBody checks a JSON request body of method and path (as the
// document writes it: /cobv/{txid}) against the published schema.
func ValidateBody(method, path string, body []byte) error {
	doc, err := spec()
	if err != nil {
		return fmt.Errorf("the API Pix's document: %w", err)
	}
	item := doc.Paths.Value(path)
	if item == nil || item.GetOperation(strings.ToUpper(method)) == nil {
		return fmt.Errorf("%w: no operation %s %s", ErrMessage, method, path)
	}
	op := item.GetOperation(strings.ToUpper(method))
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return fmt.Errorf("%w: %s %s takes no body", ErrMessage, method, path)
	}
	media := op.RequestBody.Value.Content.Get("application/json")
	if media == nil || media.Schema == nil || media.Schema.Value == nil {
		return fmt.Errorf("%w: %s %s takes no JSON", ErrMessage, method, path)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("%w: %v", ErrMessage, err)
	}
	if err := media.Schema.Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
		return fmt.Errorf("%w: %s %s: %v", ErrMessage, method, path, err)
	}
	return nil
}
