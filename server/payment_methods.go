package server

// listPaymentsMethod answers the payment methods with their payment_key.
func (s *Server) listPaymentsMethod(r *request) (any, error) {
	return r.db.PaymentMethods(r.ctx)
}
