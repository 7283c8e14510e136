package invoicing

import (
	"context"
	"errors"
	"strings"

	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/store"
)

// errAwaitingReplacement: the abandoned note is authorized at SEFAZ and
// the sale's note that replaces it is not yet: the substitution names an
// authorized note.
var errAwaitingReplacement = errors.New("authorized at SEFAZ: cancelled by substitution once the note that replaced it is authorized")

// substitutedReason is the reason of an abandoned NFC-e's cancellation by
// substitution (xJust, 15 to 255 characters).
const substitutedReason = "Venda emitida em contingencia off-line pela NFC-e "

// EndAbandoned ends an abandoned note at SEFAZ (a note sent whose answer
// never came, replaced for its sale by an NFC-e issued offline; or an
// offline note SEFAZ rejected): asked for by its key, never sent again,
// one SEFAZ does not know has its number voided (NFeInutilizacao4), as a
// skipped number must be; one SEFAZ authorized after all is cancelled by
// substitution (110112) naming the sale's note that replaced it, once
// that one is authorized (errAwaitingReplacement until then). An error
// is counted on the note, which is tried again.
func (s *Service) EndAbandoned(ctx context.Context, db *store.DB, a store.AbandonedNote) (ended bool, err error) {
	defer func() {
		if err != nil {
			if cerr := db.CountAbandonedTry(context.WithoutCancel(ctx), a.ID, err.Error()); cerr != nil {
				err = errors.Join(err, cerr)
			}
		}
	}()
	d, err := db.InvoiceData(ctx, a.UnitID, a.OrderToken)
	if err != nil {
		return false, err
	}
	inv := Document(d)
	inv.Kind, inv.Series, inv.Number, inv.Issued = a.Kind, a.Series, a.Number, a.Issued
	inv.Production = strings.Contains(string(a.Signed), "<tpAmb>1</tpAmb>")
	cert, err := s.certificate(ctx, db, d, inv)
	if err != nil {
		return false, err
	}
	auth, err := s.Authority.Authorize(ctx, fiscal.Request{Invoice: inv, Key: a.Key, Signed: a.Signed, Lookup: true, Cert: cert,
		Registry: registry{db, a.UnitID}, Domain: db.Name, Book: book{db}})
	if errors.Is(err, fiscal.ErrUnknownNote) {
		return s.voidAbandoned(ctx, db, a, inv, cert)
	}
	if err != nil {
		return false, err
	}
	if a.ReplacedProt == "" {
		return false, errAwaitingReplacement
	}
	sub, ok := s.Authority.(fiscal.Substituter)
	if !ok {
		return false, fiscal.ErrNotConnected
	}
	ev, err := sub.CancelBySubstitution(ctx, fiscal.Substitution{Cancellation: fiscal.Cancellation{Kind: a.Kind, Production: inv.Production,
		Key: a.Key, Protocol: auth.Protocol, CNPJ: inv.Emitter.Register, Reason: substitutedReason + a.ReplacedBy, At: db.Now(), Cert: cert,
		Domain: db.Name, Book: book{db}}, SubstituteKey: a.ReplacedBy})
	if err != nil {
		return false, eventError(ErrSubstitutionRefused, err)
	}
	return true, db.EndAbandonedNote(ctx, a.ID, store.AbandonedSubstituted, ev.Protocol, ev.XML)
}

// voidedReason is the reason of an abandoned note's voiding (xJust).
const voidedReason = "Numero de NFC-e enviada sem resposta da SEFAZ, substituida em contingencia off-line"

// voidAbandoned voids the number of an abandoned note SEFAZ does not know:
// it never arrived, and the number is a gap SEFAZ must be told of.
func (s *Service) voidAbandoned(ctx context.Context, db *store.DB, a store.AbandonedNote, inv fiscal.Invoice, cert certs.Certificate) (bool, error) {
	v, ok := s.Authority.(fiscal.Voider)
	if !ok {
		return false, fiscal.ErrNotConnected
	}
	ev, err := v.Void(ctx, fiscal.Voiding{Key: a.Key, Production: inv.Production, Reason: voidedReason, At: db.Now(), Cert: cert,
		Domain: db.Name, Book: book{db}})
	if err != nil {
		return false, eventError(ErrVoidingRefused, err)
	}
	return true, db.EndAbandonedNote(ctx, a.ID, store.AbandonedVoided, ev.Protocol, ev.XML)
}
