package api

import (
	"fincom/server/web"
)

// paymentMethods handles the routes of payment methods (routes.go).
type paymentMethods struct{ *API }

// listPaymentsMethod answers the payment methods with their payment_key.
func (s paymentMethods) listPaymentsMethod(r *web.Request) (any, error) {
	return r.DB.PaymentMethods(r.Ctx)
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docPaymentMethods = "Payment methods, with keys `BOLETO`, `PIX`, `PIX_AUTOMATICO`, `CREDIT_CARD`, `DEBIT_CARD`, " +
		"`TRANSFER`, `CASH`; tokens are the same in every domain."
)
