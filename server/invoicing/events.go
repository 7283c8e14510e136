package invoicing

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"fincom/server/fiscal"
	"fincom/server/fiscal/nfsen"
	"fincom/server/fiscal/sefaz"
	"fincom/server/problem"
	"fincom/store"
)

// Refusals of Correct.
var (
	// ErrCorrectionText: a correction letter's text has 15 to 1,000
	// characters (the schema's xCorrecao).
	ErrCorrectionText = problem.New(problem.Invalid, "The correction needs 15 to 1000 characters.")
	// ErrNotCorrectable: only an authorized NF-e takes a correction letter.
	ErrNotCorrectable = problem.New(problem.Unprocessable, "Only an authorized NF-e takes a correction letter.")
	// ErrTooManyCorrections: a note takes at most 20 letters.
	ErrTooManyCorrections = problem.New(problem.Unprocessable, "The NF-e has its 20 correction letters already.")
)

// NFCeCancelWindow is how long an NFC-e may be cancelled after its
// authorization, as most states rule; past it, it is cancelled by
// substitution (CancelBySubstitution).
const NFCeCancelWindow = 30 * time.Minute

// NFCeCancellable reports whether an NFC-e authorized at issued may still
// be cancelled at now (else it is cancelled by substitution): within the
// server's window in test mode and the demo, within NFCeCancelWindow,
// most states' rule, otherwise (SEFAZ's own refusal is the last word).
func (s *Service) NFCeCancellable(issued, now time.Time) bool {
	window := NFCeCancelWindow
	if !s.answersVerdicts(fiscal.NFCe) && s.CancelWindow > 0 {
		window = min(window, s.CancelWindow)
	}
	return now.Sub(issued) <= window
}

// Cancel cancels the order's authorized invoice within the cancellation
// window (outside test mode an NF-e's or NFC-e's is SEFAZ's; else the
// server's, at most NFCeCancelWindow for an NFC-e), with its reason; the
// authority's event is kept with it. reasonCode is a national NFS-e's
// cMotivo (fiscal.Cancel*; "" the default, other).
func (s *Service) Cancel(ctx context.Context, db *store.DB, unitID int64, orderToken, reason, reasonCode string) error {
	window := s.CancelWindow
	if inv, err := db.OrderInvoice(ctx, unitID, orderToken); err == nil {
		switch {
		case s.answersVerdicts(inv.Kind):
			// SEFAZ keeps an NF-e's or NFC-e's window (24 hours, an
			// NFC-e's as its state sets): its refusal says when it has
			// closed, not fincom's guess.
			window = time.Duration(math.MaxInt64)
		case inv.Kind == fiscal.NFCe:
			window = min(window, NFCeCancelWindow)
		}
	}
	var ev *store.InvoiceEvent
	if c, ok := s.Authority.(fiscal.Canceller); ok {
		var err error
		ev, err = s.registerCancellation(ctx, c, db, unitID, orderToken, reason, reasonCode, window)
		if errors.Is(err, ErrCancellationUnsure) {
			// Sent, and neither its answer nor the note's consult could
			// be read: the transmissions loop asks until SEFAZ tells.
			if herr := db.HoldCancellation(ctx, unitID, orderToken, reason); herr != nil {
				return herr
			}
		}
		if err != nil {
			return err
		}
	}
	return db.CancelInvoice(ctx, unitID, orderToken, reason, window, "Cancelada: "+reason, ev)
}

// FinishCancellation asks the authority again for a cancellation whose
// answer was lost (store.HoldCancellation), as /cancel_nf would with the
// same reason: registered, the invoice is cancelled; refused, it stays
// authorized and the order says why. Anything else (still no answer, the
// authority unreachable) is counted and answered, and the cancellation
// waits for the next try.
func (s *Service) FinishCancellation(ctx context.Context, db *store.DB, c store.PendingCancellation) error {
	err := s.Cancel(ctx, db, c.UnitID, c.OrderToken, c.Reason, "")
	var refused *problem.Problem
	switch {
	case err == nil, errors.Is(err, store.ErrNoInvoice):
		return nil
	case errors.Is(err, ErrCancellationRefused) && errors.As(err, &refused):
		d, _ := refused.Details.(map[string]any)
		return db.DropCancellation(ctx, c.UnitID, c.OrderToken, fmt.Sprintf("Cancelamento recusado pela autoridade (%v): %v", d["code"], d["reason"]))
	}
	if cerr := db.CountCancellationTry(ctx, c.UnitID, c.OrderToken); cerr != nil {
		return cerr
	}
	return err
}

// Refusals of CancelBySubstitution.
var (
	// ErrNotSubstitutable: only an authorized NFC-e is cancelled by
	// substitution, by another authorized NFC-e of the unit.
	ErrNotSubstitutable = problem.New(problem.Unprocessable,
		"Only an authorized NFC-e is cancelled by substitution, by another authorized NFC-e of the unit.")
)

// CancelBySubstitution cancels the order's NFC-e past its cancellation
// window, replaced by the unit's NFC-e of substituteKey (event 110112,
// registered by the authority first); the event is kept with it.
func (s *Service) CancelBySubstitution(ctx context.Context, db *store.DB, unitID int64, orderToken, substituteKey, reason string) error {
	sub, ok := s.Authority.(fiscal.Substituter)
	if !ok {
		return fiscal.ErrNotConnected
	}
	d, err := db.InvoiceData(ctx, unitID, orderToken)
	if err != nil {
		return err
	}
	if d.Existing == nil {
		return store.ErrNoInvoice
	}
	inv := *d.Existing
	other, err := db.InvoiceByKey(ctx, unitID, substituteKey)
	if inv.Kind != fiscal.NFCe || inv.Protocol == "" || errors.Is(err, store.ErrNotFound) || other.Kind != fiscal.NFCe ||
		other.Status != "AUTHORIZED" || other.Protocol == "" || other.Token == inv.Token {
		return ErrNotSubstitutable
	}
	if err != nil {
		return err
	}
	doc := Document(d)
	cert, err := s.certificate(ctx, db, d, doc)
	if err != nil {
		return err
	}
	ev, err := sub.CancelBySubstitution(ctx, fiscal.Substitution{Cancellation: fiscal.Cancellation{Kind: inv.Kind, Production: production(inv),
		Key: inv.AccessKey.String, Protocol: inv.Protocol, CNPJ: doc.Emitter.Register, Reason: reason, At: db.Now(), Cert: cert,
		Domain: db.Name, Book: book{db}}, SubstituteKey: substituteKey})
	if err != nil {
		return eventError(ErrSubstitutionRefused, err)
	}
	return db.CancelInvoice(ctx, unitID, orderToken, reason, time.Duration(math.MaxInt64),
		"Cancelada por substituição (NFC-e "+substituteKey+"): "+reason, kept(ev))
}

// registerCancellation has the authority register an NF-e's, NFC-e's or
// national NFS-e's cancellation before fincom records it: a refusal (the
// note stays authorized) is a 422 with the authority's code and text, an
// authority that cannot be reached ErrAuthorityDown, and nothing changes.
func (s *Service) registerCancellation(ctx context.Context, c fiscal.Canceller, db *store.DB, unitID int64, orderToken, reason, reasonCode string,
	window time.Duration) (*store.InvoiceEvent, error) {
	d, err := db.InvoiceData(ctx, unitID, orderToken)
	if err != nil {
		return nil, err
	}
	if d.Existing == nil {
		return nil, store.ErrNoInvoice
	}
	inv := *d.Existing
	if inv.Kind == fiscal.NFSe {
		return nil, nil // the municipal note is cancelled where it was kept
	}
	if inv.Protocol == "" {
		return nil, ErrOfflinePending
	}
	if db.Now().Sub(inv.IssuedTime()) > window {
		return nil, store.ErrCancelWindow
	}
	doc := Document(d)
	cert, err := s.certificate(ctx, db, d, doc)
	if err != nil {
		return nil, err
	}
	ev, err := c.Cancel(ctx, fiscal.Cancellation{Kind: inv.Kind, Production: production(inv), Key: inv.AccessKey.String,
		Protocol: inv.Protocol, CNPJ: doc.Emitter.Register, Reason: reason, ReasonCode: reasonCode, At: db.Now(), Cert: cert, Domain: db.Name,
		Book: book{db}})
	if errors.Is(err, fiscal.ErrUnsure) {
		return nil, ErrCancellationUnsure
	}
	if err != nil {
		return nil, eventError(ErrCancellationRefused, err)
	}
	return kept(ev), nil
}

// Correct sends a correction letter (carta de correção) of the order's
// authorized NF-e to its authority and keeps the registered event with
// the invoice: its text replaces every earlier letter's.
func (s *Service) Correct(ctx context.Context, db *store.DB, unitID int64, orderToken, text string) (store.InvoiceEvent, error) {
	text = strings.Join(strings.Fields(text), " ")
	if n := utf8.RuneCountInString(text); n < 15 || n > 1000 {
		return store.InvoiceEvent{}, ErrCorrectionText
	}
	c, ok := s.Authority.(fiscal.Corrector)
	if !ok {
		return store.InvoiceEvent{}, fiscal.ErrNotConnected
	}
	d, err := db.InvoiceData(ctx, unitID, orderToken)
	if err != nil {
		return store.InvoiceEvent{}, err
	}
	if d.Existing == nil {
		return store.InvoiceEvent{}, store.ErrNoInvoice
	}
	inv := *d.Existing
	if inv.Kind != fiscal.NFe || inv.Status != "AUTHORIZED" {
		return store.InvoiceEvent{}, ErrNotCorrectable
	}
	events, err := db.InvoiceEvents(ctx, unitID, inv.AccessKey.String)
	if err != nil {
		return store.InvoiceEvent{}, err
	}
	seq := NextSequence(events, "110110")
	if seq > 20 {
		return store.InvoiceEvent{}, ErrTooManyCorrections
	}
	doc := Document(d)
	cert, err := s.certificate(ctx, db, d, doc)
	if err != nil {
		return store.InvoiceEvent{}, err
	}
	ev, err := c.Correct(ctx, fiscal.Correction{Production: production(inv), Key: inv.AccessKey.String, CNPJ: doc.Emitter.Register,
		Text: text, Sequence: seq, At: db.Now(), Cert: cert, Domain: db.Name, Book: book{db}})
	if err != nil {
		return store.InvoiceEvent{}, eventError(ErrCorrectionRefused, err)
	}
	k := kept(ev)
	if k == nil {
		return store.InvoiceEvent{}, fiscal.ErrNotConnected
	}
	if err := db.AddInvoiceEvent(ctx, unitID, inv.AccessKey.String, *k); err != nil {
		return store.InvoiceEvent{}, err
	}
	return *k, nil
}

// NextSequence is the sequence the next event of type typ takes among a
// note's events (1 for the first).
func NextSequence(events []store.InvoiceEvent, typ string) int {
	n := 1
	for _, e := range events {
		if e.Type == typ && e.Sequence >= n {
			n = e.Sequence + 1
		}
	}
	return n
}

// What EventOf looks for: a cancellation (by event 110111, by
// substitution 110112, or the national NFS-e's e101101) or a correction
// letter (110110).
const (
	EventCancellation = "cancellation"
	EventCorrection   = "correction"
)

// eventTypes are each EventOf kind's event types.
var eventTypes = map[string][]string{EventCancellation: {"110111", "110112", "e101101", "e105102"}, EventCorrection: {"110110"}}

// EventOf is the note's event of a kind (Event*): the one of sequence seq,
// or with seq 0 the latest registered.
func EventOf(events []store.InvoiceEvent, kind string, seq int) (store.InvoiceEvent, bool) {
	var found store.InvoiceEvent
	ok := false
	for _, e := range events {
		if slices.Contains(eventTypes[kind], e.Type) && (seq == 0 || e.Sequence == seq) {
			found, ok = e, true
		}
	}
	return found, ok
}

// EventKind is the EventOf kind of an event ("" for none: an EPEC).
func EventKind(e store.InvoiceEvent) string {
	for kind, types := range eventTypes {
		if slices.Contains(types, e.Type) {
			return kind
		}
	}
	return ""
}

// CorrectionText is a correction letter's text as the authority
// registered it (xCorrecao; "" for another event).
func CorrectionText(e store.InvoiceEvent) string {
	if e.Type != "110110" {
		return ""
	}
	d := xml.NewDecoder(strings.NewReader(e.XML))
	for {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "xCorrecao" {
			var text string
			if d.DecodeElement(&text, &se) != nil {
				return ""
			}
			return text
		}
	}
}

// production says the invoice was issued in production (tpAmb 1).
func production(inv store.Invoice) bool { return strings.Contains(inv.XML, "<tpAmb>1</tpAmb>") }

// kept is an event as the store keeps it; nil when the authority keeps
// none.
func kept(ev fiscal.Event) *store.InvoiceEvent {
	if ev.Type == "" {
		return nil
	}
	return &store.InvoiceEvent{Type: ev.Type, Sequence: ev.Sequence, Protocol: ev.Protocol, XML: string(ev.XML)}
}

// The authority's refusals of an event, each text written once: the
// authority's own code and text go in details.code and details.reason.
var (
	ErrCancellationRefused = problem.New(problem.Unprocessable, "The tax authority refused the cancellation: see details.")
	ErrSubstitutionRefused = problem.New(problem.Unprocessable, "The tax authority refused the cancellation by substitution: see details.")
	ErrCorrectionRefused   = problem.New(problem.Unprocessable, "The tax authority refused the correction letter: see details.")
	ErrEPECRefused         = problem.New(problem.Unprocessable, "The tax authority refused the EPEC: see details.")
	ErrVoidingRefused      = problem.New(problem.Unprocessable, "The tax authority refused to void the number: see details.")
	// ErrCancellationUnsure: the cancellation was sent and neither its
	// answer nor the note's consult could be read.
	ErrCancellationUnsure = problem.New(problem.Unavailable,
		"The cancellation was sent and the tax authority's answer was lost: it will be confirmed when the authority answers; it is never registered twice.")
)

// eventError is an event's failure as answered: the authority's refusal
// the event's refused (422) with the authority's code and text in its
// details, a refusal of fincom's as it is, a message fincom would not
// send ErrEventNotSent, an answer fincom cannot read ErrAuthorityAnswer
// (its reason in details), and only an authority that could not be
// reached ErrAuthorityDown.
func eventError(refused *problem.Problem, err error) error {
	var rejected *fiscal.Rejection
	var refusal *problem.Problem
	switch {
	case errors.As(err, &rejected):
		return refused.With(map[string]any{"code": rejected.Code, "reason": rejected.Reason})
	case errors.As(err, &refusal):
		return err
	case !unanswered(err):
		return ErrEventNotSent.With(map[string]string{"reason": clipReason(err.Error())})
	case errors.Is(err, sefaz.ErrAnswer), errors.Is(err, nfsen.ErrAnswer):
		return ErrAuthorityAnswer.With(map[string]string{"reason": clipReason(err.Error())})
	}
	return fmt.Errorf("%w: %v", ErrAuthorityDown, err)
}
