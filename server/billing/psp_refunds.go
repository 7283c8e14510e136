package billing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"fincom/server/problem"
	"fincom/server/psp"
	"fincom/store"
)

// ErrRefundPending: the PSP did not answer a refund; it is recorded and
// asked again (the same request) by the PSP poll.
var ErrRefundPending = problem.New(problem.Unavailable,
	"The PSP did not answer: the refund is recorded and will be requested again at the next poll.")

// ErrRefundHeld: the PSP answered a refund for another amount than the
// one asked; it is held (store.RefundHeld) with both amounts in details.
var ErrRefundHeld = problem.New(problem.Unavailable,
	"The PSP answered the refund for another amount than the one asked: it is held for a person to check with the PSP, and nothing was booked. See details.")

// RefundPix gives back to their payers the order's Pix received at the
// unit's PSP: amount (nil: everything not yet given back), each refund
// recorded before the PSP is asked (PUT /pix/{e2eid}/devolucao/{id}) and
// then in the state the PSP answers; a refund the PSP refuses at once is
// recorded refused, with the PSP's title and detail in the error.
func (s *Service) RefundPix(ctx context.Context, db *store.DB, unitID int64, orderToken string, amount *store.Money, reason string) ([]store.PSPRefund, error) {
	if amount != nil && (!amount.IsPositive() || !store.InMoneyRange(amount.Decimal)) {
		return nil, store.ErrMoneyRange
	}
	if s.PSPs == nil {
		return nil, ErrPSPGone
	}
	cl, ok, err := s.PSPs.Client(ctx, db, unitID)
	if err != nil || !ok {
		return nil, errors.Join(err, ErrPSPGone)
	}
	asked, err := db.RequestRefunds(ctx, unitID, orderToken, amount, reason)
	if err != nil {
		return nil, err
	}
	out := make([]store.PSPRefund, 0, len(asked))
	var errs []error
	for _, f := range asked {
		got, err := s.askRefund(ctx, db, cl, f)
		if err != nil {
			errs = append(errs, err)
		}
		out = append(out, got)
	}
	return out, errors.Join(errs...)
}

// askRefund asks the PSP for a recorded refund (again, when it was never
// acknowledged) or about it, and records what the PSP says.
func (s *Service) askRefund(ctx context.Context, db *store.DB, cl *psp.Client, f store.PSPRefund) (store.PSPRefund, error) {
	var r psp.Refund
	var err error
	if f.Status == store.RefundRequested {
		r, err = cl.PutRefund(ctx, f.EndToEndID, f.ID, f.Amount.StringFixed(2), clipRunes(f.Reason.String, 140))
	} else {
		r, err = cl.GetRefund(ctx, f.EndToEndID, f.ID)
	}
	var p *psp.Problem
	switch {
	case errors.As(err, &p) && p.Status >= 400 && p.Status < 500 && p.Status != http.StatusUnauthorized && f.Status == store.RefundRequested:
		// Refused as asked (the PSP's validation): nothing will change it.
		got, rerr := db.RecordRefund(ctx, f.ID, psp.RefundRefused, clipRunes(p.Error(), 255), "")
		return got, errors.Join(rerr, problem.New(problem.Unprocessable, "The PSP refused the refund: "+p.Error()))
	case err != nil:
		if s.Log != nil {
			s.Log.Warn("psp refund", "refund", f.ID, "err", err)
		}
		return f, ErrRefundPending
	}
	// Whichever call answered it: a refund of another amount than the one
	// asked is not the refund asked.
	if answered, perr := store.ParseMoney(r.Valor); perr != nil || !answered.Equal(f.Amount.Decimal) {
		asked := f.Amount.StringFixed(2)
		got, rerr := db.RecordRefund(ctx, f.ID, store.RefundHeld, clipRunes("the PSP answered "+r.Valor+" for the "+asked+" asked", 255), "")
		return got, errors.Join(rerr, ErrRefundHeld.With(map[string]string{"asked": asked, "answered": clipRunes(r.Valor, 20), "refund_id": f.ID}))
	}
	day := ""
	if r.Status == psp.RefundDone {
		at, perr := time.Parse(time.RFC3339, r.Horario.Liquidacao)
		if perr != nil {
			at = db.Now()
		}
		day = at.In(saoPaulo).Format(time.DateOnly)
	}
	return db.RecordRefund(ctx, f.ID, r.Status, clipRunes(r.Motivo, 255), day)
}

// followRefunds asks the unit's PSP about its refunds not yet settled or
// refused (the poll), asking again those it never acknowledged.
func (s *Service) followRefunds(ctx context.Context, db *store.DB, unitID int64, cl *psp.Client) error {
	open, err := db.OpenPSPRefunds(ctx, unitID)
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range open {
		if _, err := s.askRefund(ctx, db, cl, f); err != nil {
			errs = append(errs, fmt.Errorf("refund %s: %w", f.ID, err))
		}
	}
	return errors.Join(errs...)
}
