package billing

import (
	"context"
	"encoding/json"
	"errors"

	"fincom/server/problem"
	"fincom/server/psp"
	"fincom/server/psp/rehearsal"
	"fincom/store"
)

// ErrNotAtTestPSP: the charge is not at the domain's test PSP (another
// provider's, or the unit's own PSP's).
var ErrNotAtTestPSP = errors.New("the charge is not at the domain's test PSP")

// ErrNoTestPSP: only test mode and the demo have local PSPs.
var ErrNoTestPSP = problem.New(problem.NotFound, "Only test mode's local PSPs take a mode.")

// TestPixPayment is what the payer's Pix at the test PSP did: its
// end-to-end id, whether its webhook reached fincom, and the payment it
// applied (null when the webhook was lost).
type TestPixPayment struct {
	EndToEndID string         `json:"end_to_end_id" doc:"The payment's end-to-end id."`
	Webhook    string         `json:"webhook" enum:"delivered,dropped" doc:"delivered, or dropped (the PSP's webhook lost: the poll finds the payment)."`
	Payment    *store.Payment `json:"payment" doc:"The payment as applied; null when the webhook was dropped or the Pix is held."`
	// Held says the Pix is of another amount than its charge asked that
	// day: held on the charge for a person's decision (absent otherwise).
	Held bool `json:"held,omitzero" doc:"true: the Pix is of another amount than its charge asked that day, held on the charge (held_pix) until a person decides in the portal; absent otherwise."`
}

// PayAtTestPSP (test mode, the demo) is the payer paying the order's open
// charge (installment, else the first open one) at the domain's test PSP,
// amount (nil: what the charge asks that day, a PIX with due date's fine
// and interest included, as the payer's bank shows it): the PSP records the Pix and posts its
// webhook, which goes through the same path as a PSP's (PixHook), twice
// when asked (as a PSP retrying does), unless test mode asked the PSP to
// drop webhooks and droppable says this one may be. ErrNotAtTestPSP for a
// charge created elsewhere.
func (s *Service) PayAtTestPSP(ctx context.Context, db *store.DB, unitID int64, orderToken string, installment int, amount *store.Money, twice, droppable bool) (TestPixPayment, error) {
	var out TestPixPayment
	if s.PSPs == nil || s.PSPs.Rehearsal == nil {
		return out, ErrNotAtTestPSP
	}
	charges, err := db.SalesOrderCharges(ctx, unitID, orderToken)
	if err != nil {
		return out, err
	}
	var kind, txid, token string
	var due store.Money
	for _, c := range charges {
		if (c.Status == store.ChargePending || c.Status == store.ChargeOverdue) && (installment == 0 || c.Installment == installment) {
			k, id, ok := pspRef(c.ProviderRef.String)
			if !ok {
				return out, ErrNotAtTestPSP
			}
			kind, txid, token = k, id, c.Token
			// What the charge asks today, as the payer's bank shows it.
			facts, err := db.ChargeDueOf(ctx, unitID, c.Token)
			if err != nil {
				return out, err
			}
			due = Rules{}.Owed(facts, store.Today(db.Now()).ISO()).Total()
			break
		}
	}
	if txid == "" {
		return out, store.ErrNothingToPay
	}
	if _, ok, err := s.PSPs.Client(ctx, db, unitID); err != nil || !ok {
		return out, errors.Join(err, ErrNotAtTestPSP)
	}
	if amount == nil {
		amount = &due
	}
	if kind == psp.Recurrent {
		// The payer's PSP debits the cycle's charge in full on its day.
		e2e, hook, ok := s.PSPs.Rehearsal.PayCobR(db.Name, txid, droppable)
		if !ok {
			return out, ErrNotAtTestPSP
		}
		out.EndToEndID, out.Webhook = e2e, "dropped"
		if hook == nil {
			return out, nil
		}
		out.Webhook = "delivered"
		applied, err := s.CobRHook(ctx, db, unitID, []string{txid})
		if len(applied) > 0 {
			out.Payment = &applied[0]
		}
		return out, err
	}
	e2e, hook, ok := s.PSPs.Rehearsal.Pay(db.Name, txid, amount.StringFixed(2), droppable)
	if !ok {
		// Not held there: the unit's own PSP's, or no longer active.
		return out, ErrNotAtTestPSP
	}
	out.EndToEndID, out.Webhook = e2e, "dropped"
	if hook == nil {
		return out, nil
	}
	var body struct {
		Pix []struct {
			EndToEndID string `json:"endToEndId"`
		} `json:"pix"`
	}
	if err := json.Unmarshal(hook, &body); err != nil {
		return out, err
	}
	ids := make([]string, 0, len(body.Pix))
	for _, p := range body.Pix {
		ids = append(ids, p.EndToEndID)
	}
	out.Webhook = "delivered"
	times := 1
	if twice {
		times = 2
	}
	for range times {
		applied, err := s.PixHook(ctx, db, unitID, ids)
		if err != nil {
			return out, err
		}
		if len(applied) > 0 {
			out.Payment = &applied[0]
		}
	}
	if out.Payment == nil {
		after, err := db.SalesOrderCharges(ctx, unitID, orderToken)
		for _, c := range after {
			for _, h := range c.HeldPix {
				out.Held = out.Held || c.Token == token && h.EndToEndID == e2e && h.Status == store.PixHeld
			}
		}
		return out, err
	}
	return out, nil
}

// DecideTestRecurrence (test mode, the demo) is the payer approving or
// rejecting, in the payer's app, the contract's recurrence waiting at the
// domain's test PSP; its webhook goes through the same path as a PSP's
// (RecHook) unless test mode asked the PSP to drop it. It answers the
// recurrence as it then stands.
func (s *Service) DecideTestRecurrence(ctx context.Context, db *store.DB, unitID int64, contractToken string, approve bool) (store.PixRecurrence, error) {
	if s.PSPs == nil || s.PSPs.Rehearsal == nil {
		return store.PixRecurrence{}, ErrNoTestPSP
	}
	plan, err := db.ContractRecurrencePlan(ctx, unitID, contractToken)
	if err != nil {
		return store.PixRecurrence{}, err
	}
	if plan.Open == nil || plan.Open.Status != psp.RecCreated {
		return store.PixRecurrence{}, ErrNoWaitingRecurrence
	}
	if _, ok, err := s.PSPs.Client(ctx, db, unitID); err != nil || !ok {
		return store.PixRecurrence{}, errors.Join(err, ErrNotAtTestPSP)
	}
	rec := *plan.Open
	hook, ok := s.PSPs.Rehearsal.DecideRec(db.Name, rec.IDRec, approve)
	if !ok {
		return rec, ErrNotAtTestPSP
	}
	if hook != nil {
		if _, err := s.RecHook(ctx, db, unitID, []string{rec.IDRec}); err != nil {
			return rec, err
		}
	}
	return db.Recurrence(ctx, unitID, rec.IDRec)
}

// ErrNoWaitingRecurrence: the contract has no recurrence waiting for the
// payer.
var ErrNoWaitingRecurrence = problem.New(problem.Conflict, "The contract has no PIX automático recurrence waiting for the payer: request one first.")

// SetTestPSP sets what the domain's test PSP does from now on
// (rehearsal.Mode); ErrNoTestPSP outside test mode and the demo.
func (s *Service) SetTestPSP(db *store.DB, m rehearsal.Mode) error {
	if s.PSPs == nil || s.PSPs.Rehearsal == nil {
		return ErrNoTestPSP
	}
	return s.PSPs.Rehearsal.Set(db.Name, m)
}

// ForgetTestPSP makes the domain's test PSP start again from its file
// (after a reset or a restored snapshot).
func (s *Service) ForgetTestPSP(domain string) {
	if s.PSPs != nil && s.PSPs.Rehearsal != nil {
		s.PSPs.Rehearsal.Forget(domain)
	}
}
