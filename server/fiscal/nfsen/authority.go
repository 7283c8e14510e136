package nfsen

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"

	"fincom/server/fiscal"
	"fincom/server/fiscal/sefaz"
)

// Authority is fiscal.Authority for national NFS-e through the national
// system: a DPS sent before whose answer was lost is asked for by its Id
// first (Client.Find), so that it never becomes a second note.
type Authority struct {
	Client *Client
}

func envOf(production bool) string {
	if production {
		return sefaz.Producao
	}
	return sefaz.Homologacao
}

// Authorize sends the signed DPS and answers the system's note, with the
// key the system gave it; an error after the DPS may have left wraps
// fiscal.ErrUnsure.
func (a *Authority) Authorize(ctx context.Context, r fiscal.Request) (fiscal.Authorization, error) {
	env := envOf(r.Invoice.Production)
	id := fiscal.DPSID(r.Invoice)
	if r.Retry {
		key, ok, err := a.Client.Find(ctx, r.Cert, id, env)
		if err != nil {
			return fiscal.Authorization{}, err
		}
		if ok {
			n, err := a.Client.Note(ctx, r.Cert, key, id, env)
			if err != nil {
				return fiscal.Authorization{}, err
			}
			return authorization(n), nil
		}
	}
	n, err := a.Client.Issue(ctx, r.Cert, r.Signed, env)
	var refused *Refusal
	switch {
	case errors.As(err, &refused):
		return fiscal.Authorization{}, &fiscal.Rejection{Code: refused.Code(), Reason: refused.Error()}
	case err != nil && notSent(err):
		return fiscal.Authorization{}, err
	case err != nil:
		return fiscal.Authorization{}, fmt.Errorf("%w: %v", fiscal.ErrUnsure, err)
	}
	return authorization(n), nil
}

func authorization(n Issued) fiscal.Authorization {
	return fiscal.Authorization{Protocol: n.Number, Status: 100, Message: "NFS-e gerada pelo Sistema Nacional", Key: n.Key, XML: n.NFSe}
}

// Cancel registers the note's cancellation (event e101101): the system's
// event once it registered it, its refusal as a *fiscal.Rejection.
func (a *Authority) Cancel(ctx context.Context, x fiscal.Cancellation) (fiscal.Event, error) {
	env := envOf(x.Production)
	ev, err := a.Client.Cancel(ctx, x.Cert, Cancellation{Key: x.Key, Author: x.CNPJ, Code: cmp.Or(x.ReasonCode, fiscal.CancelOther), Reason: x.Reason, At: x.At},
		env)
	var refused *Refusal
	alreadyCancelled := errors.As(err, &refused) && len(refused.Problems) > 0 && refused.Problems[0].Code == codeCancelled
	if err != nil && (alreadyCancelled || (!errors.As(err, &refused) && !notSent(err))) {
		// Its reply lost, or the note cancelled already (a cancellation
		// sent again): the system's own event says whether it is.
		found, ok, ferr := a.Client.CancellationOf(ctx, x.Cert, x.Key, env)
		switch {
		case ferr == nil && ok:
			ev, err = found, nil
		case ferr == nil && !alreadyCancelled:
			return fiscal.Event{}, fmt.Errorf("%w: %v", fiscal.ErrUnsure, err)
		case ferr != nil:
			return fiscal.Event{}, fmt.Errorf("%w: %v; asked for its event: %v", fiscal.ErrUnsure, err, ferr)
		}
	}
	if errors.As(err, &refused) {
		return fiscal.Event{}, &fiscal.Rejection{Code: refused.Code(), Reason: refused.Error()}
	}
	if err != nil {
		return fiscal.Event{}, err
	}
	return fiscal.Event{Type: "e101101", Sequence: 1, Protocol: ev.Number, XML: ev.XML}, nil
}

// DANFSe fetches the note's official DANFSe from the ADN.
func (a *Authority) DANFSe(ctx context.Context, r fiscal.DANFSeRequest) ([]byte, error) {
	return a.Client.DANFSe(ctx, r.Cert, r.Key, envOf(r.Production))
}

// codeCancelled is the system's refusal of an event on a note cancelled
// already.
const codeCancelled = "E0840"

// notSent says an error happened before the DPS could leave: no
// connection, a refused handshake, a system that said it is unavailable,
// a document fincom would not send.
func notSent(err error) bool {
	var op *net.OpError
	var hs *tls.CertificateVerificationError
	var rec tls.RecordHeaderError
	switch {
	case errors.Is(err, ErrUnavailable), errors.Is(err, ErrMessage), errors.Is(err, sefaz.ErrNoEndpoint), errors.Is(err, sefaz.ErrBadEnvironment):
		return true
	case errors.As(err, &op) && op.Op == "dial":
		return true
	case errors.As(err, &hs), errors.As(err, &rec):
		return true
	}
	return false
}
