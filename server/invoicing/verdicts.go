package invoicing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/server/fiscal/nfsen"
	"fincom/server/fiscal/sefaz"
	"fincom/store"
)

// What the authority's verdict on a note makes of it: the verdict
// answered as the invoice, how long it is waited for, the refusals' text,
// a 539's note adopted or its number spent.

// RejectedError is the authority's refusal, with its code and reason.
type RejectedError struct {
	Code   int
	Reason string
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("rejected by the authority: %d %s", e.Code, e.Reason)
}

// numberTaken is issue's answer when SEFAZ said another note holds the
// number (539): the number is spent, and the order's note goes out again.
type numberTaken struct {
	invoice  store.Invoice
	rejected *RejectedError
}

func (e *numberTaken) Error() string { return e.rejected.Error() }

// adopt answers, for a 539, the authorization of the note SEFAZ says holds
// the number, when fincom sent it for the order (a note of the order's
// records under that key) and SEFAZ authorized it; ok false when the note
// is not the order's or SEFAZ does not hold it authorized.
func (s *Service) adopt(ctx context.Context, db *store.DB, d store.InvoiceData, inv fiscal.Invoice, cert certs.Certificate,
	rejected *fiscal.Rejection, key string) (fiscal.Authorization, store.Transmission, bool, error) {
	other := fiscal.DuplicateKey(rejected.Reason)
	if other == "" || other == key {
		return fiscal.Authorization{}, store.Transmission{}, false, nil
	}
	sent, ok, err := db.SentNote(ctx, d.OrderID, other)
	if err != nil || !ok {
		return fiscal.Authorization{}, sent, false, err
	}
	auth, err := s.Authority.Authorize(ctx, fiscal.Request{Invoice: inv, Key: other, Signed: sent.Signed, Lookup: true, Cert: cert,
		Registry: registry{db, d.UnitID}, Domain: db.Name, Book: book{db}})
	var refused *fiscal.Rejection
	switch {
	case errors.Is(err, fiscal.ErrUnknownNote), errors.As(err, &refused):
		return fiscal.Authorization{}, sent, false, nil
	case err != nil:
		return fiscal.Authorization{}, sent, false, err
	}
	auth.Key = other
	return auth, sent, true, nil
}

// answersVerdicts says /generate_nf answers the authority's verdict on a
// note of kind as its invoice (AUTHORIZED, PENDING, REJECTED, DENIED):
// an NF-e's, NFC-e's or national NFS-e's, which SEFAZ or the national
// system judges (in test mode the local authorities, through the same
// clients: test mode answers as production does). The municipal NFS-e
// answers a refusal as 422 and an authority that did not answer as 502.
func (s *Service) answersVerdicts(kind string) bool {
	return kind == fiscal.NFe || kind == fiscal.NFCe || kind == fiscal.NFSeN
}

// verdictWait is how long /generate_nf waits for SEFAZ's verdict.
func (s *Service) verdictWait() time.Duration {
	if s.VerdictWait > 0 {
		return s.VerdictWait
	}
	return 10 * time.Second
}

// unanswered says an error is the authority's silence (unreachable,
// stopped, busy, slow), which a later try may overcome, and not fincom's
// own (no address for the state, a message it would not send).
func unanswered(err error) bool {
	return !errors.Is(err, sefaz.ErrNoEndpoint) && !errors.Is(err, sefaz.ErrMessage) && !errors.Is(err, sefaz.ErrUnknownState) &&
		!errors.Is(err, sefaz.ErrBadEnvironment) && !errors.Is(err, nfsen.ErrMessage)
}

// refusalText is what the order and the invoice say of the authority's
// refusal: its code and its text as it wrote it.
func refusalText(r *fiscal.Rejection, denied bool) string {
	if denied {
		return fmt.Sprintf("Uso denegado pela autoridade (%d): %s", r.Code, r.Reason)
	}
	return fmt.Sprintf("Rejeitada pela autoridade (%d): %s", r.Code, r.Reason)
}
