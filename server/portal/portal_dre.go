package portal

import (
	"net/http"

	"github.com/shopspring/decimal"

	"fincom/render"
	"fincom/server/accounting"
	"fincom/store"
)

// drePage: GET /portal/dre, the result of a month or period (accrual or
// cash, of the unit or of all units) by DRE group, beside the period
// before, as a table and a chart (accounting.Compute, as /get_dre).
func (s *Portal) drePage(p *portalRequest) {
	month, first, last := portalMonth(p)
	q := p.r.URL.Query()
	basis := store.BasisAccrual
	if q.Get("base") == "caixa" {
		basis = store.BasisCash
	}
	ids := []int64{p.unit.ID}
	all := q.Get("todas") == "1"
	if all {
		ids = ids[:0]
		for _, u := range p.units {
			ids = append(ids, u.ID)
		}
	}
	d, err := accounting.Compute(p.ctx, p.db, ids, first, last, basis)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	if s.exportable(p, "", "esta lista", "dre-"+d.From+"-"+d.To, func() (render.Table, error) { return accounting.DRETable(d), nil }) {
		return
	}
	body := render.PortalDRE{Month: month, Cash: basis == store.BasisCash, AllUnits: all,
		Period: render.DateBR(d.From) + " a " + render.DateBR(d.To), Previous: render.DateBR(d.PreviousFrom) + " a " + render.DateBR(d.PreviousTo)}
	body.MonthName = render.MonthBR(first.Year(), int(first.Month()))
	if q.Get("de") != "" {
		body.From, body.To = d.From, d.To
	}
	var bars []render.DREBar
	for _, l := range d.Lines {
		row := render.PortalDRELine{Label: l.Label, Kind: l.Kind, Amount: render.BRL(l.Amount.StringFixed(2)), Previous: render.BRL(l.Previous.StringFixed(2)),
			Negative: l.Amount.IsNegative()}
		if !l.Previous.IsZero() {
			change := l.Amount.Sub(l.Previous.Decimal).Div(l.Previous.Abs()).Mul(decimal.NewFromInt(100)).Round(1)
			row.Change = render.Percent(change)
		}
		body.Lines = append(body.Lines, row)
		if l.Kind == "total" {
			bars = append(bars, render.DREBar{Label: l.Label, Amount: l.Amount.Decimal, Previous: l.Previous.Decimal})
		}
	}
	body.Chart = render.NewDREChart(bars)
	p.page(s, http.StatusOK, "dre", "DRE", "dre", body, "", "")
}

// portalAccountantPackage: GET /portal/accountant?mes=YYYY-MM, the
// accountant's package of the unit's month as a download
// (accounting.Package, as /get_accountant_package).
func (s *Portal) portalAccountantPackage(p *portalRequest) {
	month, first, _ := portalMonth(p)
	zip, _, err := accounting.Package(p.ctx, p.db, s.Invoices, p.unit, first)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	download(p, "application/zip", `attachment; filename="contador-`+month+`.zip"`, zip)
}
