package invoicing

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"fincom/server/fiscal"
	"fincom/server/problem"
	"fincom/store"
)

// Refusals of Replace.
var (
	// ErrNotReplaceable: only an authorized national NFS-e is replaced.
	ErrNotReplaceable = problem.New(problem.Unprocessable, "Only an authorized national NFS-e is replaced by another.")
	// ErrReplacementRefused: the national system refused the replacing
	// DPS; its codes and texts are in details.
	ErrReplacementRefused = problem.New(problem.Unprocessable, "The national NFS-e system refused the replacement: see details.")
	// ErrReplacementUnsure: the replacing DPS was sent and its answer
	// lost; it is kept and asked for first when called again.
	ErrReplacementUnsure = problem.New(problem.Unavailable,
		"The replacement was sent and the national NFS-e system's answer was lost: call /replace_nf again; it is asked for first and never issued twice.")
)

// Replace replaces the order's authorized national NFS-e by a note of the
// order as it is now (a correction of the service or its values): a DPS
// carrying subst (the replaced key, code 01 to 05 or 99, the reason),
// which the national system issues while cancelling the replaced note
// itself (e105102). Both are recorded in one transaction: the old invoice
// cancelled by substitution, its event the new note; the new one the
// order's invoice. A replacement whose answer was lost is kept, and the
// next call asks the system for its DPS first and sends it again as it
// was: never a second note.
func (s *Service) Replace(ctx context.Context, db *store.DB, unitID int64, orderToken, code, reason string) (store.Invoice, error) {
	mu := s.orderLock(db, orderToken)
	mu.Lock()
	defer mu.Unlock()
	d, err := db.InvoiceData(ctx, unitID, orderToken)
	if err != nil {
		return store.Invoice{}, err
	}
	old := d.Existing
	if old == nil || old.Kind != fiscal.NFSeN || old.Status != store.InvoiceAuthorized || !old.AccessKey.Valid {
		return store.Invoice{}, ErrNotReplaceable
	}
	inv := Document(d)
	inv.Reform = s.Reform
	cert, err := s.certificate(ctx, db, d, inv)
	if err != nil {
		return store.Invoice{}, err
	}
	pending, retry, err := db.PendingReplacement(ctx, d.OrderID)
	if err != nil {
		return store.Invoice{}, err
	}
	var signed []byte
	if retry && pending.Replaces == old.AccessKey.String {
		inv.Series, inv.Number, inv.Issued, signed = pending.Series, pending.Number, pending.Issued, pending.Signed
	} else {
		if retry {
			// A replacement of an earlier note: that note is gone.
			if err := db.DropReplacement(ctx, d.OrderID); err != nil {
				return store.Invoice{}, err
			}
			retry = false
		}
		n, err := db.ReserveInvoiceNumber(ctx, unitID, fiscal.NFSeN, Series)
		if err != nil {
			return store.Invoice{}, err
		}
		inv.Series, inv.Number, inv.Issued = Series, n, db.Now()
		inv.Code = fiscal.RandomCode(fmt.Sprintf("%s:%s:%d:%d", orderToken, inv.Kind, Series, n), 9)
		inv.Replaces = &fiscal.Replacement{Key: old.AccessKey.String, Code: cmp.Or(code, "99"), Reason: reason}
		if problems := fiscal.Validate(inv); len(problems) > 0 {
			return store.Invoice{}, errors.Join(&InvalidError{Problems: problems},
				db.ReleaseInvoiceNumber(context.WithoutCancel(ctx), unitID, fiscal.NFSeN, Series, n))
		}
		if signed, err = signDocument(inv, fiscal.NationalKey(inv), cert); err != nil {
			return store.Invoice{}, err
		}
		// Recorded before it leaves: its DPS number is used once.
		if err := db.StartReplacement(ctx, store.Replacement{OrderID: d.OrderID, UnitID: unitID, Series: Series, Number: n, Issued: inv.Issued,
			Signed: signed, Replaces: old.AccessKey.String}); err != nil {
			return store.Invoice{}, err
		}
	}
	auth, err := s.Authority.Authorize(ctx, fiscal.Request{Invoice: inv, Key: fiscal.NationalKey(inv), Signed: signed, Retry: retry, Cert: cert,
		Registry: registry{db, unitID}, Domain: db.Name, Book: book{db}})
	var rejected *fiscal.Rejection
	switch {
	case errors.As(err, &rejected):
		if derr := db.DropReplacement(context.WithoutCancel(ctx), d.OrderID); derr != nil {
			return store.Invoice{}, derr
		}
		return store.Invoice{}, eventError(ErrReplacementRefused, err)
	case err != nil:
		// Not answered: kept for the next call, which asks first.
		return store.Invoice{}, fmt.Errorf("%w: %v", ErrReplacementUnsure, err)
	}
	rec := store.NewInvoice{Kind: fiscal.NFSeN, Series: inv.Series, Number: inv.Number, Issued: inv.Issued, AccessKey: auth.Key,
		Protocol: auth.Protocol, XML: auth.XML, StatusCode: auth.Status}
	return db.ReplaceInvoice(context.WithoutCancel(ctx), d.OrderID, unitID, old.AccessKey.String, rec,
		"Substituída pela NFS-e "+auth.Key+": "+reason, auth.Message+" (protocolo "+auth.Protocol+")",
		store.InvoiceEvent{Type: "e105102", Sequence: 1, Protocol: auth.Key, XML: string(auth.XML)})
}
