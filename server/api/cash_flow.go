package api

import (
	"fincom/server/web"
	"fincom/store"
)

// cashFlow handles the routes of the cash flow (routes.go).
type cashFlow struct{ *API }

type cashFlowRequest struct {
	InitialDate string `json:"initial_date" format:"date" doc:"The first day (default: the first of the current month)."`
	FinalDate   string `json:"final_date" format:"date" doc:"The last day (default: the last of initial_date's month); at most 365 days after initial_date."`
}

// cashFlow answers the unit's cash flow between initial_date (default: the
// first day of the current month) and final_date (default: the last day of
// the current month), at most 365 days apart: the opening balance, then per
// day and per month the realized in, out and balance and the forecast of
// open entries, and the totals.
func (s cashFlow) cashFlow(r *web.Request, q *cashFlowRequest) (any, error) {
	first := store.Today(r.DB.Now()).FirstOfMonth()
	last := store.Date{Time: first.AddDate(0, 1, -1)}
	from, to, err := dateRange(q.InitialDate, q.FinalDate, first, last, errInvalidInitial, errInvalidFinal)
	if err != nil {
		return nil, err
	}
	return r.DB.CashFlow(r.Ctx, r.Unit.ID, from, to)
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docCashFlow = "The cash flow of a period: `initial_date` (default: the first day of the current month) to " +
		"`final_date` (default: its last day), at most 365 days. Realized `in` and `out` are paid entries by " +
		"payment date; the forecast is the open entries by due date. The opening balance is the unit's bank " +
		"accounts' opening balances dated before the period (or undated) plus everything paid before it; an " +
		"account opened within the period adds its opening balance on that day. Answers `{initial_date, " +
		"final_date, opening_balance, days: [{date, in, out, balance, forecast_in, forecast_out, " +
		"forecast_balance}], months: [{month, ...}], totals: {in, out, forecast_in, forecast_out, " +
		"closing_balance, forecast_closing_balance}}`; sums are exact (integer cents)."
)
