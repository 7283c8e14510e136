package api

import (
	"fincom/server/web"
)

// banks handles the routes of the bank register (routes.go).
type banks struct{ *API }

// getBanksRequest is the body of /get_banks.
type getBanksRequest struct {
	GroupBank string `json:"group_bank" required:"true" doc:"CB banks and credit cooperatives, AC payment institutions and credit companies, CV brokers and distributors."`
}

// getBanks answers the catalogue's banks of one group by name.
func (s banks) getBanks(r *web.Request, q *getBanksRequest) (any, error) {
	return r.DB.Banks(r.Ctx, q.GroupBank)
}

// getTypeBanks answers the kinds of bank account.
func (s banks) getTypeBanks(r *web.Request) (any, error) {
	return r.DB.BankTypes(r.Ctx)
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docGetBanks = "Brazilian banks and payment institutions of a `group_bank` (required), by name: `CB` banks and " +
		"credit cooperatives, `AC` payment institutions and credit companies, `CV` brokers and distributors. " +
		"Bank tokens are the same in every domain (derived from the COMPE code)."
	docGetTypeBanks = "Bank account types: checking, savings, payment, investment, cash, credit card."
)
