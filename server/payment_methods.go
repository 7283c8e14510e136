package server

// listPaymentsMethod answers the payment methods with their payment_key.
func (s *Server) listPaymentsMethod(r *request) (any, error) {
	return r.db.PaymentMethods(r.ctx)
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docPaymentMethods = "Payment methods, with keys `BOLETO`, `PIX`, `PIX_AUTOMATICO`, `CREDIT_CARD`, `DEBIT_CARD`, " +
		"`TRANSFER`, `CASH`; tokens are the same in every domain."
)
