package invoicing

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"fincom/server/fiscal"
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
		if !errors.As(got, &p) || p.Code != problem.Unprocessable || p.Text != ErrNotSent.Text ||
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

// TestEventError: an event's failure is told as it is: the authority's
// refusal with its code, a message fincom would not send (422), an answer
// that is not the protocol's (502 saying the authority answered), and
// only silence "did not answer".
func TestEventError(t *testing.T) {
	for _, c := range []struct {
		err  error
		code problem.Code
		text string
	}{
		{&fiscal.Rejection{Code: 501, Reason: "Prazo de cancelamento superior ao previsto"}, problem.Unprocessable, ErrCancellationRefused.Text},
		{fmt.Errorf("%w: evento", sefaz.ErrMessage), problem.Unprocessable, ErrEventNotSent.Text},
		{fmt.Errorf("%w: not a SOAP 1.2 envelope (HTTP 200)", sefaz.ErrAnswer), problem.Unavailable, ErrAuthorityAnswer.Text},
		{fmt.Errorf("%w: not JSON", nfsen.ErrAnswer), problem.Unavailable, ErrAuthorityAnswer.Text},
		{io.ErrUnexpectedEOF, problem.Unavailable, ErrAuthorityDown.Text},
	} {
		var p *problem.Problem
		if got := eventError(ErrCancellationRefused, c.err); !errors.As(got, &p) || p.Code != c.code || p.Text != c.text {
			t.Errorf("%v: %v", c.err, got)
		}
	}
}
