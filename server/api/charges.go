package api

import (
	"fincom/server/web"
	"fincom/store"
)

// charges handles the routes of charges (routes.go).
type charges struct{ *API }

// chargeAnswer is the data of /generate_charge.
type chargeAnswer struct {
	IDToken      string         `json:"id_token" format:"uuid" doc:"The order's token."`
	ChargeStatus string         `json:"charge_status" enum:"NONE,PENDING,PAID,OVERDUE,CANCELLED" doc:"The order's charge now: PENDING once issued, PAID, OVERDUE or CANCELLED."`
	PaymentURL   string         `json:"payment_url" doc:"The order's public payment page, for the customer."`
	Charges      []store.Charge `json:"charges" doc:"The order's charges, one per installment."`
}

// generateCharge issues the order's charges through its provider
// (billing.Service.IssueCharges: idempotent, an installment is never
// charged twice) and answers them.
func (s charges) generateCharge(r *web.Request, q *web.IdRequest) (any, error) {
	if err := s.Billing.IssueCharges(r.Ctx, r.DB, r.Unit.ID, q.IDToken); err != nil {
		return nil, err
	}
	return s.chargeState(r, q.IDToken, "Charge generated successfully.")
}

// chargeState answers an order's live charges and its payment page.
func (s charges) chargeState(r *web.Request, orderToken, message string) (any, error) {
	order, err := r.DB.SalesOrder(r.Ctx, r.Unit.ID, orderToken)
	if err != nil {
		return nil, err
	}
	all, err := r.DB.SalesOrderCharges(r.Ctx, r.Unit.ID, orderToken)
	if err != nil {
		return nil, err
	}
	live := []store.Charge{}
	for _, c := range all {
		if c.Status != store.ChargeCancelled {
			live = append(live, c)
		}
	}
	return web.WithMessage{Message: message, Data: chargeAnswer{IDToken: orderToken, ChargeStatus: order.ChargeStatus,
		PaymentURL: s.Links.Payment(order.PublicToken.String), Charges: live}}, nil
}

// cancelCharge cancels the order's unpaid charges; a paid charge cannot be
// cancelled.
func (s charges) cancelCharge(r *web.Request, q *web.IdRequest) (any, error) {
	if err := s.Billing.CancelCharges(r.Ctx, r.DB, r.Unit.ID, q.IDToken); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Charge cancelled successfully.", Token: q.IDToken}, nil
}

type refundRequest struct {
	IDToken string       `json:"id_token" alias:"token" required:"true" doc:"The sales order whose PIX payments are refunded."`
	Amount  *store.Money `json:"amount" doc:"The amount refunded (default: everything received and not yet refunded)."`
	Reason  string       `json:"reason" doc:"Told to the payer, cut to 140 characters."`
}

// refundCharge gives back the order's PIX payments received at the
// unit's PSP (billing.Service.RefundPix).
func (s charges) refundCharge(r *web.Request, q *refundRequest) (any, error) {
	refunds, err := s.Billing.RefundPix(r.Ctx, r.DB, r.Unit.ID, q.IDToken, q.Amount, q.Reason)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Refund requested.", Data: refunds}, nil
}

// resendCharge e-mails the order's open charge again to notify_email_charge.
func (s charges) resendCharge(r *web.Request, q *web.IdRequest) (any, error) {
	if err := s.Billing.Resend(r.Ctx, r.DB, r.Unit.ID, q.IDToken); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Charge sent again.", Token: q.IDToken}, nil
}

type changeDueRequest struct {
	IDToken     string       `json:"id_token" alias:"token" required:"true" doc:"The sales order's token."`
	Installment *web.FlexInt `json:"installment" doc:"The installment (default: the first open)."`
	DueDate     string       `json:"due_date" required:"true" format:"date" doc:"The new due date, YYYY-MM-DD: today to 5 years ahead."`
}

// changeChargeDueDate gives the order's open boleto a new due date (a
// fincom route), which the next remittance tells the bank.
func (s charges) changeChargeDueDate(r *web.Request, q *changeDueRequest) (any, error) {
	n := 0
	if q.Installment != nil {
		n = int(*q.Installment)
	}
	if err := s.Billing.ChangeBoletoDue(r.Ctx, r.DB, r.Unit, q.IDToken, n, q.DueDate); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Due date changed.", Token: q.IDToken}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docChangeChargeDueDate = "Gives the order's open boleto (`installment`, default the first open) a new `due_date` (a fincom route), " +
		"at the office's asking: its line and bar code are made again with it (the same our-number), the charge is `PENDING` again, and a " +
		"boleto the bank has received waits for the next remittance to tell it (movement 06, segment P); one not yet sent goes with " +
		"the new date. From then its fine and interest count from the new date and its reminders start anew. A new due date is never " +
		"made by e-mail. 409 for a charge that is no open boleto registered with a bank (`Only an open boleto …`), 400 for a date " +
		"before today or past 5 years."
	docGenerateCharge = "Issues the order's charges through its provider (`provider_bank`, or the `generate_*` flags; none: " +
		"a manual charge): one per installment (`installments`, monthly from the estimated payment date, the " +
		"value split in whole cents, the remainder on the first), or one card charge with " +
		"`installment_credit` card installments. Each installment's charge is asked with an idempotency key " +
		"outside any transaction: a retry after a timeout gets the same charge, and calling the route again " +
		"answers the same charges. A charge is `ISSUING` while its provider is asked, then `PENDING`; " +
		"`OVERDUE` after its due date (daily job); `PAID` when its payment is confirmed; `CANCELLED` by " +
		"`/cancel_charge`. The order's `charge_status` sums them up: `NONE`, `PENDING`, `OVERDUE` (any), " +
		"`PAID` (all), `CANCELLED` (all). 409 `The sales order is disabled; enable it before charging.`, 422 " +
		"`The collection provider refused the charge.`; 422 for a boleto through a production bank agreement whose " +
		"customer lacks what the bank needs to register it (name, CPF or CNPJ in digits, address, city, state, " +
		"8-digit zip_code), with `details.cod_orders` and `details.missing` naming the contact's fields; 502 `The collection provider did not answer. Try " +
		"again: the charge will not be issued twice.`"
	docCancelCharge = "Cancels the order's unpaid charges (409 `The charge is paid and cannot be cancelled.`, `There is no " +
		"open charge to cancel.`). A cancelled installment can be charged again."
	docResendCharge = "E-mails the order's open charge again to `notify_email_charge` (400 `The sales order has no " +
		"notify_email_charge.`, 409 `There is no open charge to send.`)."
	docRefundCharge = "Gives back to its payer the order's PIX payments received at the unit's PSP (a fincom route): `amount` (else " +
		"everything not yet given back) taken from its payments in the order they came, each refund recorded first and then asked of the " +
		"PSP (`PUT /pix/{e2eid}/devolucao/{id}` of the Banco Central's API Pix, under an id of fincom's, so asking again is the same " +
		"request). Answers the refunds in the state the PSP gave: `EM_PROCESSAMENTO` is followed by the PSP poll until `DEVOLVIDO` " +
		"(the expense is booked once on the order's account and the charge's `refunded_amount` grows; `charge.refunded`) or " +
		"`NAO_REALIZADO` (`detail` says why; `charge.refund_refused`). 409 when nothing is left to refund, 422 for more than is left or a " +
		"refund the PSP refused at once (its title and detail), 502 when the PSP did not answer (the refund is recorded and asked again)."
)
