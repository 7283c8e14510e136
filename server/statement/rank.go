package statement

import (
	"sort"
	"time"

	"github.com/shopspring/decimal"
)

// Candidate is what a statement line may be paired with: an open entry
// or charge, its signed amount (an income or a charge positive, an
// expense negative) and its due day.
type Candidate struct {
	Value, Label string
	Amount       decimal.Decimal
	Due          time.Time
}

// Rank answers the candidates a line of amount (signed as the bank
// writes it) posted on day may be paired with, best first: only those of
// its direction (a debit is never offered an income), the exact amount
// first, then the closest amounts, then the closest due days, then by
// label (TestRank).
func Rank(amount decimal.Decimal, day time.Time, cs []Candidate) []Candidate {
	out := make([]Candidate, 0, len(cs))
	for _, c := range cs {
		if c.Amount.Sign() == amount.Sign() && !amount.IsZero() {
			out = append(out, c)
		}
	}
	days := func(t time.Time) float64 {
		d := t.Sub(day).Hours()
		if d < 0 {
			d = -d
		}
		return d
	}
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := out[i].Amount.Sub(amount).Abs(), out[j].Amount.Sub(amount).Abs()
		if c := di.Cmp(dj); c != 0 {
			return c < 0
		}
		if a, b := days(out[i].Due), days(out[j].Due); a != b {
			return a < b
		}
		return out[i].Label < out[j].Label
	})
	return out
}
