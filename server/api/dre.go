package api

import (
	"cmp"

	"fincom/server/accounting"
	"fincom/server/web"
	"fincom/store"
)

// dre handles the route of the result of a period (routes.go).
type dre struct{ *API }

type dreRequest struct {
	InitialDate string `json:"initial_date" format:"date"`
	FinalDate   string `json:"final_date" format:"date"`
	Basis       string `json:"basis" enum:"accrual,cash"`
	AllUnits    bool   `json:"all_units"`
}

// getDRE answers the result of a period of the unit (or of all the
// domain's units) by the categories' DRE groups, beside the period before.
func (s dre) getDRE(r *web.Request, q *dreRequest) (any, error) {
	first := store.Today(r.DB.Now()).FirstOfMonth()
	last := store.Date{Time: first.AddDate(0, 1, -1)}
	from, to, err := dateRange(q.InitialDate, q.FinalDate, first, last, errInvalidInitial, errInvalidFinal)
	if err != nil {
		return nil, err
	}
	ids := []int64{r.Unit.ID}
	if q.AllUnits {
		units, err := r.DB.Units(r.Ctx)
		if err != nil {
			return nil, err
		}
		ids = ids[:0]
		for _, u := range units {
			ids = append(ids, u.ID)
		}
	}
	return accounting.Compute(r.Ctx, r.DB, ids, from, to, cmp.Or(q.Basis, store.BasisAccrual))
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const docGetDRE = "A fincom route: the Demonstração do Resultado of a period, `initial_date` (default: the first day of the current " +
	"month) to `final_date` (default: its last day), at most 365 days, of the unit or, with `all_units`, of every unit of the " +
	"domain, beside the period before it (as many whole months, or days). `basis` `accrual` (the default) counts the active " +
	"entries by competence date (their due date when they have none), paid or not; `cash` counts the paid ones by payment " +
	"date. Each line is a group of categories (their DRE group), a subtotal, or a movement that is not result (`outside`: " +
	"contributions and loans received, investments, partners' withdrawals, loan payments); `amount` and `previous` are " +
	"signed by their effect on the result (income positive, expenses negative), exact to the cent. Entries without a " +
	"category are lines of their own. Orders and charges count once their payment is an entry."
