package server

import (
	"fmt"
	"net/http"

	"fincom/store"
)

var (
	errOrderDisabled   = newError(http.StatusConflict, textOrderDisabled)
	errChargePaid      = newError(http.StatusConflict, textChargePaid)
	errNothingToCancel = newError(http.StatusConflict, textNothingToCancel)
	errNothingToResend = newError(http.StatusConflict, textNothingToResend)
	errNoChargeEmail   = newError(http.StatusBadRequest, textNoChargeEmail)
	errProviderRefused = newError(http.StatusUnprocessableEntity, textProviderRefused)
	errNoAgreement     = newError(http.StatusUnprocessableEntity, textNoAgreement)
	errProviderDown    = newError(http.StatusBadGateway, textProviderDown)
	errUnknownProvider = newError(http.StatusUnprocessableEntity, textUnknownProvider)
	errNothingToPay    = newError(http.StatusConflict, textNothingToPay)
	errOnlinePayment   = newError(http.StatusConflict, textOnlinePayment)
	errPortalNotFound  = newError(http.StatusNotFound, textPortalNotFound)
	// A boleto the bank has not registered yet (or refused) is not shown:
	// the payer's bank would refuse it.
	errBoletoRegistering = newError(http.StatusConflict, textBoletoRegistering)
	errBoletoRejected    = newError(http.StatusConflict, textBoletoRejected)
	errTooManyRequests   = newError(http.StatusTooManyRequests, textTooManyRequests)
	// errAmountRange: a confirmed amount (with a late payment's fees) past
	// the money range.
	errAmountRange = newError(http.StatusBadRequest, fmt.Sprintf(textMoneyRange, "amount"))
)

// chargeAnswer is the data of /generate_charge.
type chargeAnswer struct {
	IDToken      string         `json:"id_token" format:"uuid"`
	ChargeStatus string         `json:"charge_status" enum:"NONE,PENDING,PAID,OVERDUE,CANCELLED"`
	PaymentURL   string         `json:"payment_url"`
	Charges      []store.Charge `json:"charges"`
}

// generateCharge issues the order's charges through its provider
// (billing.Service.IssueCharges: idempotent, an installment is never
// charged twice) and answers them.
func (s *Server) generateCharge(r *request, q *idRequest) (any, error) {
	if err := s.billing.IssueCharges(r.ctx, r.db, r.unit.ID, q.IDToken); err != nil {
		return nil, err
	}
	return s.chargeState(r, q.IDToken, "Charge generated successfully.")
}

// chargeState answers an order's live charges and its payment page.
func (s *Server) chargeState(r *request, orderToken, message string) (any, error) {
	order, err := r.db.SalesOrder(r.ctx, r.unit.ID, orderToken)
	if err != nil {
		return nil, err
	}
	all, err := r.db.SalesOrderCharges(r.ctx, r.unit.ID, orderToken)
	if err != nil {
		return nil, err
	}
	live := []store.Charge{}
	for _, c := range all {
		if c.Status != store.ChargeCancelled {
			live = append(live, c)
		}
	}
	return withMessage{Message: message, Data: chargeAnswer{IDToken: orderToken, ChargeStatus: order.ChargeStatus,
		PaymentURL: s.links.Payment(order.PublicToken.String), Charges: live}}, nil
}

// cancelCharge cancels the order's unpaid charges; a paid charge cannot be
// cancelled.
func (s *Server) cancelCharge(r *request, q *idRequest) (any, error) {
	if err := r.db.CancelCharges(r.ctx, r.unit.ID, q.IDToken); err != nil {
		return nil, err
	}
	return tokenAnswer{Message: "Charge cancelled successfully.", Token: q.IDToken}, nil
}

// resendCharge e-mails the order's open charge again to notify_email_charge.
func (s *Server) resendCharge(r *request, q *idRequest) (any, error) {
	if err := s.billing.Resend(r.ctx, r.db, r.unit.ID, q.IDToken); err != nil {
		return nil, err
	}
	return tokenAnswer{Message: "Charge sent again.", Token: q.IDToken}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
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
)
