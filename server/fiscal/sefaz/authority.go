package sefaz

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"fincom/server/fiscal"
)

// Authority is fiscal.Authority through SEFAZ: each NF-e goes to the
// authorizer of its state for the unit's environment (Client.Authorize),
// and a note sent before whose answer was lost is asked for by its key
// first (Client.Consult), so that it is never sent as a second note.
type Authority struct {
	Client *Client

	// stopped holds the authorizers (by model, state and environment)
	// whose last lot found them unavailable (108, 109, an HTTP 5xx): the
	// next lot waits until NFeStatusServico4 says 107.
	stopped sync.Map
	// busy holds, by the same, until when an authorizer that answered 656
	// (Consumo Indevido) is left alone: the hour the manual asks, in which
	// nothing is sent to it nor asked of it.
	busy sync.Map
}

// BusyWait is how long an authorizer that answered 656 is left alone.
const BusyWait = time.Hour

// leftAlone answers ErrBusy while the authorizer of a note's key is in
// the hour after its 656.
func (a *Authority) leftAlone(key, env string) error {
	if until, ok := a.busy.Load(a.authorizerOf(key, env)); ok && a.Client.now().Before(until.(time.Time)) {
		return fmt.Errorf("%w (until %s)", ErrBusy, until.(time.Time).Format(time.RFC3339))
	}
	return nil
}

// heard records a 656 among an authorizer's answers.
func (a *Authority) heard(key, env string, err error) {
	if errors.Is(err, ErrBusy) {
		a.busy.Store(a.authorizerOf(key, env), a.Client.now().Add(BusyWait))
	}
}

// Authorize sends the note and answers its authorization or refusal; an
// error after the note may have left wraps fiscal.ErrUnsure.
func (a *Authority) Authorize(ctx context.Context, r fiscal.Request) (fiscal.Authorization, error) {
	if r.Invoice.Kind != fiscal.NFe && r.Invoice.Kind != fiscal.NFCe {
		return fiscal.Authorization{}, fiscal.ErrNotConnected
	}
	env := Homologacao
	if r.Invoice.Production {
		env = Producao
	}
	if len(r.Key) != 44 {
		return fiscal.Authorization{}, fmt.Errorf("%w: %q is not an access key (44 digits)", ErrMessage, r.Key)
	}
	if err := a.leftAlone(r.Key, env); err != nil {
		return fiscal.Authorization{}, err
	}
	if r.Retry || r.Lookup {
		auth, ok, err := a.known(ctx, r, env)
		switch {
		case err != nil || ok:
			return auth, err
		case r.Lookup:
			return auth, fiscal.ErrUnknownNote
		}
	}
	if err := a.inOperation(ctx, r, env); err != nil {
		return fiscal.Authorization{}, err
	}
	res, err := a.Client.Authorize(ctx, r.Cert, r.Signed, r.Key, env)
	a.heard(r.Key, env, err)
	if errors.Is(err, ErrUnavailable) {
		a.stopped.Store(a.authorizerOf(r.Key, env), true)
	}
	if err != nil {
		if notSent(err) {
			return fiscal.Authorization{}, err
		}
		return fiscal.Authorization{}, fmt.Errorf("%w: %v", fiscal.ErrUnsure, err)
	}
	switch {
	case res.Authorized():
		return fiscal.Authorization{Protocol: res.Protocol, Status: res.Code, Message: res.Reason, At: time.Now(),
			XML: fiscal.Proc(r.Signed, res.ProtNFe)}, nil
	case res.Code == 204:
		// Authorized before (a lost answer): the authority has it. A
		// consult that does not say so leaves the note unsure, held.
		auth, ok, err := a.known(ctx, r, env)
		var rejected *fiscal.Rejection
		switch {
		case err != nil && !errors.As(err, &rejected):
			return fiscal.Authorization{}, fmt.Errorf("%w: %v", fiscal.ErrUnsure, err)
		case err != nil || ok:
			return auth, err
		}
	}
	rej := &fiscal.Rejection{Code: res.Code, Reason: res.Reason}
	if rej.Denied() && len(res.ProtNFe) > 0 {
		rej.Protocol, rej.XML = res.Protocol, fiscal.Proc(r.Signed, res.ProtNFe)
	}
	return fiscal.Authorization{}, rej
}

// Cancel registers the note's cancellation (event 110111): the event
// once the authority registered it (135, 155), its refusal as a
// *fiscal.Rejection.
func (a *Authority) Cancel(ctx context.Context, x fiscal.Cancellation) (fiscal.Event, error) {
	if x.Kind != fiscal.NFe && x.Kind != fiscal.NFCe {
		return fiscal.Event{}, fiscal.ErrNotConnected
	}
	if err := a.leftAlone(x.Key, envOf(x.Production)); err != nil {
		return fiscal.Event{}, err
	}
	env := envOf(x.Production)
	ev, err := a.Client.Cancel(ctx, x.Cert, Cancellation{Key: x.Key, Protocol: x.Protocol, CNPJ: x.CNPJ, Reason: x.Reason, At: x.At}, env)
	a.heard(x.Key, env, err)
	if (err != nil && !notSent(err) && !errors.Is(err, ErrBusy)) || (err == nil && ev.Code == 573) {
		// The answer was lost, or SEFAZ says the event is registered
		// already (573): its consult says whether the note is cancelled.
		// An event is never registered twice.
		s, cerr := a.Client.Consult(ctx, x.Cert, x.Key, env)
		switch {
		case cerr == nil && (s.Code == 101 || s.Code == 151):
			// Cancelled at SEFAZ; the event's own answer was not read:
			// the consult's answer (which lists the event) is kept in its
			// place, with the event's protocol when it names it.
			return fiscal.Event{Type: "110111", Sequence: 1, Protocol: s.Cancellation, XML: s.Raw}, nil
		case cerr == nil && err != nil && (s.Code == 100 || s.Code == 150):
			// What the event was answered stays its cause: an answer outside
			// the protocol is told as one, silence as silence.
			return fiscal.Event{}, fmt.Errorf("%w: the cancellation's answer was lost and SEFAZ holds the note authorized: it was not registered: %w", ErrUnavailable, err)
		case err != nil:
			return fiscal.Event{}, fmt.Errorf("%w: %v", fiscal.ErrUnsure, err)
		}
	}
	return registered(ev, err, "110111", 1)
}

// CancelBySubstitution registers an NFC-e's cancellation by substitution
// (event 110112) as Cancel does.
func (a *Authority) CancelBySubstitution(ctx context.Context, x fiscal.Substitution) (fiscal.Event, error) {
	ev, err := a.Client.CancelBySubstitution(ctx, x.Cert, Substitution{Key: x.Key, Protocol: x.Protocol, CNPJ: x.CNPJ,
		SubstituteKey: x.SubstituteKey, Reason: x.Reason, At: x.At}, envOf(x.Production))
	return registered(ev, err, "110112", 1)
}

// RegisterEPEC registers the note's EPEC (event 110140) at the national
// environment as Cancel registers a cancellation.
func (a *Authority) RegisterEPEC(ctx context.Context, r fiscal.Request) (fiscal.Event, error) {
	ev, err := a.Client.EPEC(ctx, r.Cert, r.Signed, r.Invoice.Issued, envOf(r.Invoice.Production))
	return registered(ev, err, "110140", 1)
}

// Correct registers a correction letter (event 110110) as Cancel does.
func (a *Authority) Correct(ctx context.Context, x fiscal.Correction) (fiscal.Event, error) {
	ev, err := a.Client.Correct(ctx, x.Cert, Correction{Key: x.Key, CNPJ: x.CNPJ, Text: x.Text, Sequence: x.Sequence, At: x.At}, envOf(x.Production))
	return registered(ev, err, "110110", x.Sequence)
}

// Void voids the number of the note of a key at its authorizer
// (NFeInutilizacao4): 102 is the voiding, anything else its refusal.
func (a *Authority) Void(ctx context.Context, v fiscal.Voiding) (fiscal.Event, error) {
	if len(v.Key) != 44 {
		return fiscal.Event{}, fmt.Errorf("%w: %q is not an access key (44 digits)", ErrMessage, v.Key)
	}
	state, ok := ufByCode[v.Key[:2]]
	if !ok {
		return fiscal.Event{}, fmt.Errorf("access key of state code %s: %w", v.Key[:2], ErrUnknownState)
	}
	series, _ := strconv.Atoi(v.Key[22:25])
	number, _ := strconv.Atoi(v.Key[25:34])
	env := envOf(v.Production)
	if err := a.leftAlone(v.Key, env); err != nil {
		return fiscal.Event{}, err
	}
	res, err := a.Client.Void(ctx, v.Cert, Voiding{Model: v.Key[20:22], State: state, StateCode: v.Key[:2], CNPJ: v.Key[6:20],
		Year: v.At.Year(), Series: series, From: number, To: number, Reason: v.Reason}, env)
	a.heard(v.Key, env, err)
	switch {
	case err != nil:
		return fiscal.Event{}, err
	case res.Code != 102:
		return fiscal.Event{}, &fiscal.Rejection{Code: res.Code, Reason: res.Reason}
	}
	return fiscal.Event{Type: "inutilizacao", Sequence: 1, Protocol: res.Protocol, XML: res.Raw}, nil
}

// registered is an event's answer as fiscal keeps it: the procEventoNFe
// once registered, the refusal as a *fiscal.Rejection.
func registered(ev Event, err error, typ string, seq int) (fiscal.Event, error) {
	if err != nil {
		return fiscal.Event{}, err
	}
	if !ev.Registered() {
		return fiscal.Event{}, &fiscal.Rejection{Code: ev.Code, Reason: ev.Reason}
	}
	return fiscal.Event{Type: typ, Sequence: seq, Protocol: ev.Protocol, XML: fiscal.ProcEvento(ev.Signed, ev.RetEvento)}, nil
}

func envOf(production bool) string {
	if production {
		return Producao
	}
	return Homologacao
}

// Manifest sends a recipient's manifestation to the national environment.
func (a *Authority) Manifest(ctx context.Context, m fiscal.Manifestation) (bool, string, error) {
	env := Homologacao
	if m.Production {
		env = Producao
	}
	ev, err := a.Client.Manifest(ctx, m.Cert, Manifestation{Key: m.Key, CNPJ: m.CNPJ, Event: m.Event, Reason: m.Reason, At: m.At}, env)
	if err != nil {
		return false, "", err
	}
	switch {
	case ev.Registered():
		return true, ev.Protocol, nil
	case ev.Code == 573:
		// Sent again after a lost reply: the same event, registered
		// already.
		return true, fmt.Sprintf("%d %s", ev.Code, ev.Reason), nil
	}
	return false, fmt.Sprintf("%d %s", ev.Code, ev.Reason), nil
}

// authorizerOf names the authorizer a note's lot goes to, for stopped.
func (a *Authority) authorizerOf(key, env string) string {
	return key[:2] + "/" + key[20:22] + "/" + env
}

// inOperation asks an authorizer found unavailable by the last lot sent
// to it whether it is in operation again (NFeStatusServico4, 107) before
// another lot goes: while it is not, nothing is sent (ErrUnavailable).
func (a *Authority) inOperation(ctx context.Context, r fiscal.Request, env string) error {
	id := a.authorizerOf(r.Key, env)
	if _, stopped := a.stopped.Load(id); !stopped || r.Key[34] == '6' || r.Key[34] == '7' {
		return nil
	}
	state, ok := ufByCode[r.Key[:2]]
	if !ok {
		return fmt.Errorf("access key of state code %s: %w", r.Key[:2], ErrUnknownState)
	}
	st, err := a.Client.Status(ctx, r.Cert, r.Key[20:22], state, r.Key[:2], env)
	switch {
	case err != nil:
		return fmt.Errorf("%w: its status could not be asked: %v", ErrUnavailable, err)
	case st.Code != 107:
		return fmt.Errorf("%w: %d %s", ErrUnavailable, st.Code, Shown(st.Reason))
	}
	a.stopped.Delete(id)
	return nil
}

// known asks the authority for the note by its key: its authorization
// when it has one (100, 150), its denial (110, 301 to 303) as a
// *fiscal.Rejection, not known (217: the note may be sent again). Any
// other answer says nothing of the note (656 asked too often, 108/109
// service stopped, …): an error, so that the note stays held and is not
// sent again on a guess (TestAskedBeforeSendingAgain).
func (a *Authority) known(ctx context.Context, r fiscal.Request, env string) (fiscal.Authorization, bool, error) {
	s, err := a.Client.Consult(ctx, r.Cert, r.Key, env)
	if err == nil && s.Code == 656 {
		err = ErrBusy
	}
	a.heard(r.Key, env, err)
	if err != nil {
		return fiscal.Authorization{}, false, err
	}
	switch {
	case s.Code == 217:
		return fiscal.Authorization{}, false, nil
	case s.Code == 110 || (s.Code >= 301 && s.Code <= 303):
		rej := &fiscal.Rejection{Code: s.Code, Reason: s.Reason}
		if len(s.ProtNFe) > 0 {
			rej.Protocol, rej.XML = s.Protocol, fiscal.Proc(r.Signed, s.ProtNFe)
		}
		return fiscal.Authorization{}, false, rej
	case s.Code == 108 || s.Code == 109:
		return fiscal.Authorization{}, false, fmt.Errorf("%w: %d %s", ErrUnavailable, s.Code, Shown(s.Reason))
	case (s.Code != 100 && s.Code != 150) || len(s.ProtNFe) == 0:
		return fiscal.Authorization{}, false, fmt.Errorf("the authority did not say where the note stands (%d %s): it is asked again", s.Code, Shown(s.Reason))
	}
	return fiscal.Authorization{Protocol: s.Protocol, Status: s.Code, Message: s.Reason, At: time.Now(),
		XML: fiscal.Proc(r.Signed, s.ProtNFe)}, true, nil
}

// notSent says an error happened before the note could leave: no
// connection, a refused handshake, an authority that said it is
// unavailable or that it refuses requests for a while, a message fincom
// would not send.
func notSent(err error) bool {
	var op *net.OpError
	var hs *tls.CertificateVerificationError
	var rec tls.RecordHeaderError
	switch {
	case errors.Is(err, ErrReceived):
		// The lot is at the authority, whatever followed.
		return false
	case errors.Is(err, ErrUnavailable), errors.Is(err, ErrBusy), errors.Is(err, ErrUnknownState), errors.Is(err, ErrNoEndpoint),
		errors.Is(err, ErrMessage):
		return true
	case errors.As(err, &op) && op.Op == "dial":
		return true
	case errors.As(err, &hs), errors.As(err, &rec):
		return true
	}
	return false
}
