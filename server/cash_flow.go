package server

import "fincom/store"

type cashFlowRequest struct {
	InitialDate string `json:"initial_date"`
	FinalDate   string `json:"final_date"`
}

// cashFlow answers the unit's cash flow between initial_date (default: the
// first day of the current month) and final_date (default: the last day of
// the current month), at most 365 days apart: the opening balance, then per
// day and per month the realized in, out and balance and the forecast of
// open entries, and the totals.
func (s *Server) cashFlow(r *request, q *cashFlowRequest) (any, error) {
	first := firstOfMonth(store.Today(r.db.Now()))
	last := store.Date{Time: first.AddDate(0, 1, -1)}
	from, to, err := dateRange(q.InitialDate, q.FinalDate, first, last, errInvalidInitial, errInvalidFinal)
	if err != nil {
		return nil, err
	}
	return r.db.CashFlow(r.ctx, r.unit.ID, from, to)
}
