package render

import (
	"strings"

	"github.com/shopspring/decimal"
)

// PortalDRE is the DRE page's body: the period (a month, or From..To),
// the basis (Cash, else accrual), whether of all units, its lines beside
// the period before and their change, and the chart of its subtotals.
type PortalDRE struct {
	Month, From, To  string
	MonthName        string // the month as people say it: novembro de 2026
	Cash, AllUnits   bool
	Period, Previous string
	Lines            []PortalDRELine
	Chart            DREChart
}

// PortalDRELine is a line of the DRE as the page shows it.
type PortalDRELine struct {
	Label, Kind, Amount, Previous, Change string
	Negative                              bool
}

// DREBar is a subtotal of the DRE the chart draws: its amount and the
// previous period's.
type DREBar struct {
	Label            string
	Amount, Previous decimal.Decimal
}

// DREChart draws the DRE's subtotals as horizontal bars, the period's and
// the previous one's, from a zero line (results may be negative): each
// row's label above its bars, so that it reads on a phone as on a desk.
type DREChart struct {
	Width, Height, Zero int
	Rows                []DRERow
}

// DRERow is a subtotal's row of the chart.
type DRERow struct {
	Label, Title, PrevTitle string
	Y, X, W, PrevX, PrevW   int
}

// NewDREChart lays out bars (360 units wide, 40 a row).
func NewDREChart(bars []DREBar) DREChart {
	c := DREChart{Width: 360, Height: 40*len(bars) + 8}
	left, right := 4, 356
	lo, hi := decimal.Zero, decimal.Zero
	for _, b := range bars {
		for _, v := range []decimal.Decimal{b.Amount, b.Previous} {
			lo, hi = decimal.Min(lo, v), decimal.Max(hi, v)
		}
	}
	if hi.Equal(lo) {
		hi = lo.Add(decimal.NewFromInt(1))
	}
	x := func(v decimal.Decimal) int {
		f := v.Sub(lo).Div(hi.Sub(lo)).InexactFloat64() // a position on screen, not money
		return left + int(f*float64(right-left)+0.5)
	}
	c.Zero = x(decimal.Zero)
	span := func(v decimal.Decimal) (int, int) {
		a, b := c.Zero, x(v)
		return min(a, b), max(abs(b-a), 1)
	}
	for i, b := range bars {
		r := DRERow{Label: b.Label, Y: 40*i + 4, Title: b.Label + ": " + BRL(b.Amount.StringFixed(2)),
			PrevTitle: b.Label + ", período anterior: " + BRL(b.Previous.StringFixed(2))}
		r.X, r.W = span(b.Amount)
		r.PrevX, r.PrevW = span(b.Previous)
		c.Rows = append(c.Rows, r)
	}
	return c
}

// Percent writes a change in percent as Brazilians read it: +12,5 %.
func Percent(v decimal.Decimal) string {
	sign := ""
	if v.IsPositive() {
		sign = "+"
	}
	return sign + strings.Replace(v.StringFixed(1), ".", ",", 1) + " %"
}
