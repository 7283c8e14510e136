package statement

import (
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestRank: a debit is offered expenses only, the exact amount first,
// then the closest amount, then the closest day.
func TestRank(t *testing.T) {
	day := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	cs := []Candidate{
		{Value: "income", Amount: d("800.00"), Due: day},
		{Value: "far", Amount: d("-39.90"), Due: day.AddDate(0, 0, 20)},
		{Value: "near", Amount: d("-39.90"), Due: day.AddDate(0, 0, 1)},
		{Value: "close", Amount: d("-40.00"), Due: day},
		{Value: "other", Amount: d("-321.00"), Due: day},
	}
	var got []string
	for _, c := range Rank(d("-39.90"), day, cs) {
		got = append(got, c.Value)
	}
	if want := "[near far close other]"; fmt.Sprint(got) != want {
		t.Fatalf("ranked %v, want %s", got, want)
	}
	if n := len(Rank(d("800.00"), day, cs)); n != 1 {
		t.Fatalf("a credit is offered %d candidates", n)
	}
}
