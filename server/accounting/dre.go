// Package accounting makes what a firm's accountant receives: the result
// of a period by the categories' DRE groups (the Demonstração do
// Resultado do Exercício).
package accounting

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/billing"
	"fincom/server/fiscal"
	"fincom/store"
)

// Line is a line of the DRE: a group of categories (group), a subtotal
// (total), or a movement that is not result (outside: contributions and
// loans received, investments, withdrawals, loan payments). Its amounts
// are signed by their effect on the result: income positive, expenses
// negative.
type Line struct {
	Key      string      `json:"key" doc:"The line's key."`
	Label    string      `json:"label" doc:"The line's name."`
	Kind     string      `json:"kind" enum:"group,total,outside" doc:"group (a group's sum), total (a subtotal) or outside (money outside the result: contributions and loans received, investments, withdrawals, loan payments)."`
	Amount   store.Money `json:"amount"`
	Previous store.Money `json:"previous"`
}

// DRE is the result of a period and the period before it, of one unit or
// of all the domain's.
type DRE struct {
	From         string `json:"from" format:"date" doc:"The first day of the period, YYYY-MM-DD."`
	To           string `json:"to" format:"date" doc:"The last day, YYYY-MM-DD."`
	PreviousFrom string `json:"previous_from" format:"date" doc:"The first day of the period compared with, YYYY-MM-DD."`
	PreviousTo   string `json:"previous_to" format:"date" doc:"Its last day, YYYY-MM-DD."`
	Basis        string `json:"basis" enum:"accrual,cash" doc:"accrual (by competence date) or cash (by payment day)."`
	Lines        []Line `json:"lines" doc:"The statement's lines, in order."`
}

// step is a line of the DRE's layout: a group (its codes; 0 is entries
// without a group, of the direction dir), or a total of the lines above
// it since the result began.
type step struct {
	key, label, kind string
	groups           []int64
	dir              string // for groups []int64{0}: in or out
}

// layout is the DRE as Brazilian small firms' accountants lay it out
// (Lei 6.404/76 art. 187, simplified), over the seeded category groups.
var layout = []step{
	{"g101", "Receita de vendas de produtos", "group", []int64{101}, ""},
	{"g102", "Receita de prestação de serviços", "group", []int64{102}, ""},
	{"receita_bruta", "Receita operacional bruta", "total", nil, ""},
	{"g201", "(−) Deduções da receita", "group", []int64{201}, ""},
	{"receita_liquida", "Receita operacional líquida", "total", nil, ""},
	{"g202", "(−) Custo das mercadorias vendidas (CMV)", "group", []int64{202}, ""},
	{"g203", "(−) Custo dos serviços prestados (CSP)", "group", []int64{203}, ""},
	{"lucro_bruto", "Lucro bruto", "total", nil, ""},
	{"g204", "(−) Despesas com pessoal", "group", []int64{204}, ""},
	{"g205", "(−) Despesas administrativas", "group", []int64{205}, ""},
	{"g206", "(−) Despesas comerciais", "group", []int64{206}, ""},
	{"g208", "(−) Outras despesas operacionais", "group", []int64{208}, ""},
	{"g104", "(+) Outras receitas operacionais", "group", []int64{104}, ""},
	{"sem_grupo_in", "(+) Entradas sem categoria", "group", []int64{0}, "in"},
	{"sem_grupo_out", "(−) Saídas sem categoria", "group", []int64{0}, "out"},
	{"g103", "(+) Receitas financeiras", "group", []int64{103}, ""},
	{"g207", "(−) Despesas financeiras", "group", []int64{207}, ""},
	{"resultado_operacional", "Resultado operacional", "total", nil, ""},
	{"g105", "(+) Receitas não operacionais", "group", []int64{105}, ""},
	{"resultado_antes_ir", "Resultado antes do IRPJ e da CSLL", "total", nil, ""},
	{"g209", "(−) IRPJ e CSLL", "group", []int64{209}, ""},
	{"resultado_liquido", "Resultado líquido do período", "total", nil, ""},
	{"g106", "Aportes e empréstimos recebidos", "outside", []int64{106}, ""},
	{"g210", "Investimentos", "outside", []int64{210}, ""},
	{"g211", "Retiradas e distribuição de lucros", "outside", []int64{211}, ""},
	{"g212", "Pagamento de empréstimos", "outside", []int64{212}, ""},
}

// Build lays out the DRE of the period's and the previous period's group
// totals. A group the layout does not name (a category group added
// later) counts among the entries without a category of its direction.
func Build(cur, prev []store.GroupTotal) []Line {
	known := map[int64]bool{}
	for _, s := range layout {
		for _, g := range s.groups {
			known[g] = true
		}
	}
	// sum is what the group lines of step s add up to in totals: each
	// entry signed by its direction.
	sum := func(totals []store.GroupTotal, s step) decimal.Decimal {
		var cents int64
		for _, t := range totals {
			code := t.Group.Int64
			if !t.Group.Valid || !known[code] {
				code = 0
			}
			for _, g := range s.groups {
				if g != code || (g == 0 && t.Type != s.dir) {
					continue
				}
				if t.Type == "in" {
					cents += t.Cents
				} else {
					cents -= t.Cents
				}
			}
		}
		return decimal.New(cents, -2)
	}
	var out []Line
	var result, resultPrev decimal.Decimal
	for _, s := range layout {
		l := Line{Key: s.key, Label: s.label, Kind: s.kind}
		switch s.kind {
		case "total":
			l.Amount, l.Previous = store.NewMoney(result), store.NewMoney(resultPrev)
		default:
			a, p := sum(cur, s), sum(prev, s)
			l.Amount, l.Previous = store.NewMoney(a), store.NewMoney(p)
			if s.kind == "group" {
				result, resultPrev = result.Add(a), resultPrev.Add(p)
			}
		}
		out = append(out, l)
	}
	return out
}

// PreviousPeriod is the period just before from..to and as long: as many
// whole months before when from..to is whole months, else as many days.
func PreviousPeriod(from, to time.Time) (time.Time, time.Time) {
	end := from.AddDate(0, 0, -1)
	if from.Day() == 1 && to.AddDate(0, 0, 1).Day() == 1 {
		months := (to.Year()-from.Year())*12 + int(to.Month()-from.Month()) + 1
		return from.AddDate(0, -months, 0), end
	}
	return end.Add(-to.Sub(from)), end
}

// Compute is the DRE of the units (one, or all the domain's) for
// from..to on basis, beside the period before it.
func Compute(ctx context.Context, db *store.DB, unitIDs []int64, from, to store.Date, basis string) (DRE, error) {
	pf, pt := PreviousPeriod(from.Time, to.Time)
	d := DRE{From: from.ISO(), To: to.ISO(), PreviousFrom: store.Date{Time: pf}.ISO(), PreviousTo: store.Date{Time: pt}.ISO(), Basis: basis}
	cur, err := totals(ctx, db, unitIDs, d.From, d.To, basis)
	if err != nil {
		return d, err
	}
	prev, err := totals(ctx, db, unitIDs, d.PreviousFrom, d.PreviousTo, basis)
	if err != nil {
		return d, err
	}
	d.Lines = Build(cur, prev)
	return d, nil
}

// totals are the group totals of the units' period on basis: the
// entries', and on the accrual basis the orders sold in it, each for what
// it bills (billing.Rules.Billed) in its category's group, and the
// deductions of their revenue: the taxes a unit in the regime normal (CRT
// 3) states on its authorized notes (an NF-e's or NFC-e's ICMS, PIS and
// COFINS; a service's ISS), in group 201 (a Simples Nacional unit's
// notes state none: its DAS, booked in group 201 by its competence, is
// the deduction). The reform's IBS and CBS of 2026, a test whose amounts
// are not paid, deduct nothing.
func totals(ctx context.Context, db *store.DB, unitIDs []int64, from, to, basis string) ([]store.GroupTotal, error) {
	out, err := db.GroupTotals(ctx, unitIDs, from, to, basis)
	if err != nil || basis != store.BasisAccrual {
		return out, err
	}
	sold, err := db.SoldOrders(ctx, unitIDs, from, to)
	if err != nil {
		return nil, err
	}
	revenue := map[sql.NullInt64]int64{}
	var deductions int64
	for _, o := range sold {
		revenue[o.Group] += billing.Rules{}.Billed(o.Bill).Cents()
		if o.CRT != 3 || o.Kind == "" {
			continue
		}
		tax, err := StatedTaxes(o)
		if err != nil {
			return nil, err
		}
		deductions += store.NewMoney(tax).Cents()
	}
	for g, cents := range revenue {
		out = append(out, store.GroupTotal{Group: g, Type: "in", Cents: cents})
	}
	if deductions != 0 {
		out = append(out, store.GroupTotal{Group: sql.NullInt64{Int64: 201, Valid: true}, Type: "out", Cents: deductions})
	}
	return out, nil
}

// StatedTaxes is what a sold note states of the taxes on its sale that
// deduct from revenue: an NF-e's or NFC-e's ICMS, PIS and COFINS (its
// ICMSTot), a service note's ISS (its order's, as the note states it).
func StatedTaxes(n store.SoldOrder) (decimal.Decimal, error) {
	switch n.Kind {
	case "nfse", "nfsen":
		return n.Taxes.TaxIssAmount.Decimal, nil
	}
	p, err := fiscal.ReadNFeProc([]byte(n.XML))
	if err != nil {
		return decimal.Zero, fmt.Errorf("a sold note's taxes: %w", err)
	}
	var sum decimal.Decimal
	t := p.NFe.Inf.Total.ICMSTot
	for _, v := range []string{t.VICMS, t.VPIS, t.VCOFINS} {
		if v == "" {
			continue
		}
		d, err := decimal.NewFromString(v)
		if err != nil {
			return decimal.Zero, fmt.Errorf("a sold note's taxes: %q: %w", v, err)
		}
		sum = sum.Add(d)
	}
	return sum, nil
}
