package invoicing

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"fincom/server/fiscal/nfsen"
	"fincom/server/fiscal/sefaz"
	"fincom/server/problem"
)

// TestNotSent: an invoice fincom refused to send (its document invalid by
// the authority's schema, no authorizer or address for the unit's state
// or environment) is a 422 naming why, never "the authority did not
// answer"; a failure that may be the authority's silence is not one.
func TestNotSent(t *testing.T) {
	for _, err := range []error{fmt.Errorf("%w: xBairro too short", sefaz.ErrMessage), fmt.Errorf("%w: DPS", nfsen.ErrMessage),
		sefaz.ErrNoEndpoint, sefaz.ErrUnknownState, sefaz.ErrBadEnvironment} {
		got := notSent(err)
		var p *problem.Problem
		if !errors.As(got, &p) || p.Status != http.StatusUnprocessableEntity || p.Text != ErrNotSent.Text ||
			!strings.Contains(p.Details.(map[string]string)["reason"], err.Error()) {
			t.Errorf("%v: %v", err, got)
		}
	}
	for _, err := range []error{io.ErrUnexpectedEOF, fmt.Errorf("%w: HTTP 503", sefaz.ErrAnswer)} {
		if got := notSent(err); got != nil {
			t.Errorf("%v is silence or the authority's answer, not a refusal: %v", err, got)
		}
	}
}
