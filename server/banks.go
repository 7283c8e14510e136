package server

// getBanksRequest is the body of /get_banks.
type getBanksRequest struct {
	GroupBank string `json:"group_bank"`
}

func (q *getBanksRequest) validate() error {
	if q.GroupBank == "" {
		return errMissing
	}
	return nil
}

// getBanks answers the catalogue's banks of one group by name.
func (s *Server) getBanks(r *request, q *getBanksRequest) (any, error) {
	return r.db.Banks(r.ctx, q.GroupBank)
}

// getTypeBanks answers the kinds of bank account.
func (s *Server) getTypeBanks(r *request) (any, error) {
	return r.db.BankTypes(r.ctx)
}
