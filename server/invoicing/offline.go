package invoicing

import (
	"context"
	"errors"
	"fmt"

	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/server/problem"
	"fincom/store"
)

// ErrOfflinePending: a note issued in contingency (an NFC-e offline, an
// NF-e by EPEC) is cancelled once SEFAZ authorized it.
var ErrOfflinePending = problem.New(problem.Unprocessable,
	"The note was issued in contingency and waits for SEFAZ's authorization: cancel it once authorized.")

// issueOffline issues an NFC-e in offline contingency (tpEmis 9) when
// SEFAZ could not be reached: the same number, a key of its own, when and
// why in the note, the offline QR code; the customer gets it at once, and
// it is kept in transmission for TransmitOffline (the retry job) to send
// within the legal window.
func (s *Service) issueOffline(ctx context.Context, db *store.DB, d store.InvoiceData, inv fiscal.Invoice, cert certs.Certificate,
	rec store.NewInvoice, orderToken string) (store.Invoice, error) {
	inv.Contingency = &fiscal.Contingency{TpEmis: 9, Since: inv.Issued, Reason: fiscal.OfflineReason}
	key := fiscal.AccessKey(inv)
	signed, err := signDocument(inv, key, cert)
	if err != nil {
		return store.Invoice{}, err
	}
	if signed, err = fiscal.OfflineQR(signed, inv, key); err != nil {
		return store.Invoice{}, err
	}
	// Held to its schema now: SEFAZ will judge it later, and the customer
	// has it already.
	if err := fiscal.ValidateSchema("NFe", signed); err != nil {
		return store.Invoice{}, fmt.Errorf("the offline NFC-e: %w", err)
	}
	rec.AccessKey, rec.Protocol, rec.XML = key, "", signed
	public, err := db.EnsurePublicToken(ctx, d.UnitID, orderToken)
	if err != nil {
		return store.Invoice{}, err
	}
	notice, err := s.notice(d, public, rec.Invoice())
	if err != nil {
		return store.Invoice{}, err
	}
	held := store.Transmission{OrderID: d.OrderID, UnitID: d.UnitID, Kind: inv.Kind, Series: inv.Series, Number: inv.Number, Key: key,
		Issued: inv.Issued, Signed: signed}
	return db.SaveInvoice(ctx, d.OrderID, d.UnitID, rec, "Emitida em contingência off-line: aguardando a autorização da SEFAZ", notice, &held, nil)
}

// replaceOffline abandons the order's NFC-e whose sending may have reached
// SEFAZ unanswered (store.AbandonTransmission: never sent again, ended by
// EndAbandoned once SEFAZ answers) and issues the sale's note offline
// under the series' next fresh number: a number sent once as a normal
// emission is never the contingency note's.
func (s *Service) replaceOffline(ctx context.Context, db *store.DB, d store.InvoiceData, inv fiscal.Invoice, cert certs.Certificate,
	orderToken string, cause error) (store.Invoice, error) {
	n, err := db.AbandonTransmission(context.WithoutCancel(ctx), d.OrderID, cause.Error())
	if err != nil {
		return store.Invoice{}, err
	}
	inv.Number, inv.Issued = n, db.Now()
	inv.Code = fiscal.RandomCode(fmt.Sprintf("%s:%s:%d:%d", orderToken, inv.Kind, inv.Series, n), 8)
	out, err := s.issueOffline(ctx, db, d, inv, cert, store.NewInvoice{Kind: inv.Kind, Series: inv.Series, Number: n, Issued: inv.Issued}, orderToken)
	if err != nil {
		if rerr := db.ReleaseInvoiceNumber(context.WithoutCancel(ctx), d.UnitID, inv.Kind, inv.Series, n); rerr != nil {
			return store.Invoice{}, errors.Join(err, rerr)
		}
	}
	return out, err
}

// issueEPEC issues an NF-e in EPEC contingency (tpEmis 4): the national
// environment registers its EPEC (event 110140) first; then the note is
// the invoice at once, its EPEC kept with it, and it is kept in
// transmission for TransmitOffline to send to its authorizer once back. A
// refusal of the EPEC is a 422 with its code and text, an environment
// that cannot be reached a 502: nothing is issued.
func (s *Service) issueEPEC(ctx context.Context, db *store.DB, d store.InvoiceData, inv fiscal.Invoice, cert certs.Certificate,
	rec store.NewInvoice, held store.Transmission, orderToken string) (store.Invoice, error) {
	r, ok := s.Authority.(fiscal.EPECRegistrar)
	if !ok {
		return store.Invoice{}, fiscal.ErrNotConnected
	}
	ev, err := r.RegisterEPEC(ctx, fiscal.Request{Invoice: inv, Key: held.Key, Signed: held.Signed, Cert: cert, Domain: db.Name, Book: book{db}})
	if err != nil {
		return store.Invoice{}, eventError(ErrEPECRefused, err)
	}
	rec.Protocol, rec.XML = "", held.Signed
	public, err := db.EnsurePublicToken(ctx, d.UnitID, orderToken)
	if err != nil {
		return store.Invoice{}, err
	}
	notice, err := s.notice(d, public, rec.Invoice())
	if err != nil {
		return store.Invoice{}, err
	}
	return db.SaveInvoice(ctx, d.OrderID, d.UnitID, rec, "Emitida em contingência EPEC (protocolo "+ev.Protocol+"): aguardando a autorização da SEFAZ",
		notice, &held, kept(ev))
}

// TransmitOffline sends the order's NFC-e issued offline to SEFAZ (asking
// for it first after an attempt whose answer was lost) and, once
// authorized, makes its nfeProc the invoice. Outside test mode SEFAZ's
// refusal is the invoice's verdict, shown as any note's
// (store.RefuseOffline); in test mode it is kept on the transmission,
// shown where the waiting notes are.
func (s *Service) TransmitOffline(ctx context.Context, db *store.DB, unitID int64, orderToken string) error {
	d, err := db.InvoiceData(ctx, unitID, orderToken)
	if err != nil {
		return err
	}
	held, ok, err := db.PendingTransmission(ctx, d.OrderID)
	if err != nil || !ok || d.Existing == nil {
		return err
	}
	inv := Document(d)
	inv.Series, inv.Number, inv.Issued = held.Series, held.Number, held.Issued
	cert, err := s.certificate(ctx, db, d, inv)
	if err != nil {
		return err
	}
	auth, err := s.Authority.Authorize(ctx, fiscal.Request{Invoice: inv, Key: held.Key, Signed: held.Signed, Registry: registry{db, unitID},
		Cert: cert, Retry: held.Attempts > 0, Domain: db.Name, Book: book{db}})
	var rejected *fiscal.Rejection
	if errors.As(err, &rejected) && s.answersVerdicts(inv.Kind) {
		// Judged: the note the customer holds is shown REJECTED (or
		// DENIED) as any note is; a rejected one's number is voided at
		// SEFAZ (EndAbandoned), the sale may be invoiced again.
		_, rerr := db.RefuseOffline(ctx, d.OrderID, store.Refusal{Code: rejected.Code, Text: refusalText(rejected, rejected.Denied()), Denied: rejected.Denied(),
			Protocol: rejected.Protocol, XML: rejected.XML})
		return rerr
	}
	if errors.As(err, &rejected) {
		err = fmt.Errorf("rejected by the authority: %d %s", rejected.Code, rejected.Reason)
	}
	if err != nil {
		if herr := db.HoldTransmission(ctx, held, err.Error()); herr != nil {
			return herr
		}
		return err
	}
	return db.AuthorizeOffline(ctx, d.OrderID, auth.Protocol, auth.XML,
		"Autorizada após a contingência off-line: "+auth.Message+" (protocolo "+auth.Protocol+")")
}
