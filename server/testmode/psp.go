package testmode

import (
	"errors"
	"net/http"

	"fincom/server/billing"
	"fincom/server/psp/rehearsal"
	"fincom/server/web"
	"fincom/store"
)

var errPSPMode = web.NewError(http.StatusBadRequest, "Use mode online, slow (delay_ms 1 to 60000) or offline; drop_webhooks 0 to 100; refuse_refunds up to 140 characters.")

// pspMode is test mode's choice of what the domain's local PSP does from
// now on (rehearsal.Mode).
type pspMode struct {
	Mode          string `json:"mode" enum:"online,slow,offline" doc:"online, slow (delay_ms before each answer) or offline (503 to every call)."`
	DelayMS       int    `json:"delay_ms" doc:"slow: the milliseconds before each answer (1 to 60000)."`
	DropWebhooks  int    `json:"drop_webhooks" doc:"The next N webhooks lost (0 to 100)."`
	RefuseRefunds string `json:"refuse_refunds" doc:"The reason refunds end NAO_REALIZADO with; empty: they settle."`
}

// testPSP (test mode) sets what the domain's local PSP does: answer,
// answer slowly or not at all (503), lose its next webhooks, refuse the
// refunds asked about.
func (s *Mode) testPSP(r *web.Request, q *pspMode) (any, error) {
	err := s.Billing.SetTestPSP(r.DB, rehearsal.Mode{Mode: q.Mode, DelayMS: q.DelayMS, DropWebhooks: q.DropWebhooks, RefuseRefunds: q.RefuseRefunds})
	if errors.Is(err, rehearsal.ErrMode) {
		return nil, errPSPMode
	}
	return *q, err
}

// testPSPPoll (test mode) runs the domain's PSP poll now: what the PSPs
// hold paid is applied, refunds followed, as `serve --psp-poll` does.
func (s *Mode) testPSPPoll(r *web.Request) (any, error) {
	if err := s.Billing.PollPSPs(r.Ctx, r.DB, ""); err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "PSP polled.", Data: map[string]string{"domain": r.DB.Name}}, nil
}

// payAtPSP is /_test/pay_charge paying a charge at the domain's local
// PSP, its webhook always delivered (false when the charge is not there).
func (s *Mode) payAtPSP(r *web.Request, q *testPayRequest, amount *store.Money) (any, bool, error) {
	p, err := s.Billing.PayAtTestPSP(r.Ctx, r.DB, r.Unit.ID, q.IDToken, q.Installment, amount, q.Twice, false)
	switch {
	case errors.Is(err, billing.ErrNotAtTestPSP):
		return nil, false, nil
	case err != nil:
		return nil, true, err
	case p.Payment == nil:
		return nil, true, store.ErrNothingToPay
	}
	return web.WithMessage{Message: "Payment simulated.", Data: *p.Payment}, true, nil
}

type payPixRequest struct {
	IDToken     string       `json:"id_token" alias:"token" required:"true" doc:"The sales order paid."`
	Installment int          `json:"installment" doc:"The installment paid (default: the first open)."`
	Amount      *store.Money `json:"amount" doc:"The amount paid (default: the charge's)."`
	Twice       bool         `json:"twice" doc:"true: the PSP's webhook is posted twice."`
}

func (q *payPixRequest) Validate() error {
	if q.Amount != nil && !q.Amount.IsPositive() {
		return web.ErrInvalidValue
	}
	return nil
}

var errNotAtTestPSP = web.NewError(http.StatusConflict, "The charge is not a PIX charge at the domain's local PSP.")

// testPayPix (test mode) is the payer paying an order's PIX charge at the
// domain's local PSP: any amount, the webhook twice, or lost when
// /_test/psp asked.
func (s *Mode) testPayPix(r *web.Request, q *payPixRequest) (any, error) {
	p, err := s.Billing.PayAtTestPSP(r.Ctx, r.DB, r.Unit.ID, q.IDToken, q.Installment, q.Amount, q.Twice, true)
	if errors.Is(err, billing.ErrNotAtTestPSP) {
		return nil, errNotAtTestPSP
	}
	if err != nil {
		return nil, err
	}
	msg := "Paid at the test PSP."
	switch {
	case p.Webhook == "dropped":
		msg = "Paid at the test PSP; its webhook was lost (the PSP poll will find the payment)."
	case p.Held:
		msg = "Paid at the test PSP; the Pix is not the amount its charge asks, and is held on the charge for a person to decide."
	}
	return web.WithMessage{Message: msg, Data: p}, nil
}

type recDecision struct {
	IDToken  string `json:"id_token" alias:"token" required:"true" doc:"The contract whose recurrence is decided."`
	Decision string `json:"decision" enum:"approve,reject" required:"true" doc:"approve or reject, as the payer does in the bank's app."`
}

var errRecDecision = web.NewError(http.StatusBadRequest, "Use decision approve or reject.")

func (q *recDecision) Validate() error {
	if q.Decision != "approve" && q.Decision != "reject" {
		return errRecDecision
	}
	return nil
}

// testPixAutomatico (test mode) is the payer approving or rejecting, in
// the payer's app, a contract's PIX automático recurrence waiting at the
// domain's local PSP.
func (s *Mode) testPixAutomatico(r *web.Request, q *recDecision) (any, error) {
	rec, err := s.Billing.DecideTestRecurrence(r.Ctx, r.DB, r.Unit.ID, q.IDToken, q.Decision == "approve")
	if errors.Is(err, billing.ErrNotAtTestPSP) {
		return nil, errNotAtTestPSP
	}
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Recurrence decided.", Data: rec}, nil
}

const docTestPixAutomatico = "The payer approves (`decision` `approve`) or rejects (`reject`) in the payer's bank app the PIX " +
	"automático recurrence of a contract (`id_token`) waiting at the domain's local PSP (`/request_pix_automatico`). The PSP posts " +
	"its webhook, which fincom follows as it does a real PSP's: an approval accepts the contract and issues its first charge at the " +
	"PSP, due in 30 days (`/_test/pay_pix` has the payer's PSP debit it). Answers the recurrence as it then stands (`CRIADA` when " +
	"`/_test/psp` lost the webhook: the PSP poll finds the decision)."

const docTestPSP = "Sets what the domain's local PSP (test mode's and the demo's stand-in for the firm's PSP, spoken to through the " +
	"Banco Central's API Pix like a real one) does from now on: `mode` `online`, `slow` (`delay_ms` 1 to 60000 before each answer) " +
	"or `offline` (503 to every call); `drop_webhooks` loses its next N webhooks (0 to 100), so only the PSP poll settles those " +
	"payments; `refuse_refunds` ends the refunds asked about `NAO_REALIZADO` with that reason (empty: they settle)."

const docTestPayPix = "The payer pays an order's open PIX charge (`id_token`, optional `installment`) at the domain's local PSP: its " +
	"amount or any `amount`. The PSP records the Pix and posts its webhook, which fincom confirms with the PSP (`GET /pix/{e2eid}`) " +
	"as it does a real PSP's; `twice` posts it twice, as a PSP retrying does (applied once). Answers the Pix's `end_to_end_id`, " +
	"whether its `webhook` was `delivered` or `dropped` (`/_test/psp` `drop_webhooks`), and the `payment` applied (null when " +
	"dropped: `/_test/psp_poll`, or the server's PSP poll, applies it). 409 when the charge is not at the local PSP."
