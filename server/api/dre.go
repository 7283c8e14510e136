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
	InitialDate string `json:"initial_date" format:"date" doc:"The first day (default: the first of the current month)."`
	FinalDate   string `json:"final_date" format:"date" doc:"The last day (default: the last of initial_date's month); at most 365 days after initial_date."`
	Basis       string `json:"basis" enum:"accrual,cash" doc:"accrual (default): active entries by competence date; cash: paid entries by payment date."`
	AllUnits    bool   `json:"all_units" doc:"true: every unit of the domain, not only unit_token's."`
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

type packageRequest struct {
	Month string `json:"month" required:"true" pattern:"^[0-9]{4}-(0[1-9]|1[0-2])$" doc:"The month, YYYY-MM."`
}

// accountantPackage answers the accountant's package of the unit's month
// as a ZIP (accounting.Package).
func (s dre) accountantPackage(r *web.Request, q *packageRequest) (any, error) {
	first, err := store.ParseDateISO(q.Month + "-01")
	if err != nil {
		return nil, r.Route.FormatError("month")
	}
	zip, _, err := accounting.Package(r.Ctx, r.DB, s.Invoices, r.Unit, first)
	if err != nil {
		return nil, err
	}
	return web.Download{File: store.File{FileInfo: store.FileInfo{Name: "contador-" + q.Month + ".zip", ContentType: "application/zip",
		Size: int64(len(zip))}, Data: zip}}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docGetDRE = "A fincom route: the Demonstração do Resultado of a period, `initial_date` (default: the first day of the current " +
		"month) to `final_date` (default: its last day), at most 365 days, of the unit or, with `all_units`, of every unit of the " +
		"domain, beside the period before it (as many whole months, or days). `basis` `accrual` (the default, the regime de competência) counts " +
		"each active sales order as revenue of its competence day, paid or not: the emission of its authorized invoice, else the day " +
		"the order was made (never its `estimated_payment_date`), for what it bills (its value, and its freight unless `freight_mode` " +
		"is 9), in its category's DRE group (101 goods, 102 services); an order whose invoice was cancelled (none authorized since) " +
		"or that is disabled counts nothing. The incomes its charges' payments booked (by any channel) are left out, the order " +
		"counting already; every other entry counts by its competence date (its due date when it has none), paid or not. For a unit " +
		"in the regime normal (CRT 3) the taxes its authorized notes state on the sale (an NF-e's or NFC-e's ICMS, PIS and COFINS; a " +
		"service note's ISS; not the IBS and CBS of 2026, a test) are `g201`, Deduções da receita, of the same period; a Simples " +
		"Nacional unit's notes state none, and its DAS booked in group 201 by its competence is the deduction. `cash` counts the paid " +
		"entries by payment date, the payments of orders included. Each line is a group of categories (their DRE group), a subtotal, or a movement that is not result (`outside`: " +
		"contributions and loans received, investments, partners' withdrawals, loan payments); `amount` and `previous` are " +
		"signed by their effect on the result (income positive, expenses negative), exact to the cent. Entries without a " +
		"category are lines of their own."
	docAccountantPackage = "A fincom route: the accountant's package of the unit's `month` (YYYY-MM) as a ZIP: every invoice the " +
		"unit issued in it (São Paulo's days) under `notas-emitidas/<kind>/`, its authority's document (the NF-e's nfeProc, the " +
		"NFS-e's note), its events (cancellation, correction letters) and its DANFE (a national NFS-e's DANFSe); every full NF-e " +
		"of the inbox issued in it under `notas-recebidas/`; `lancamentos-YYYY-MM.xlsx` (entries due in the month), " +
		"`extrato-YYYY-MM.xlsx` (statement lines posted in it), `dre-competencia-YYYY-MM.xlsx` and `dre-caixa-YYYY-MM.xlsx`; " +
		"and `manifest.json` with `manifesto.txt`: counts per kind and status, the authorized notes' totals (each note's vNF, a " +
		"service note's value), the received notes' total, the entries' in and out, and the net result on both bases."
)
