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
	t.Parallel()
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
	for _, c := range Rank(d("-39.90"), day, "TARIFA", cs) {
		got = append(got, c.Value)
	}
	if want := "[near far close other]"; fmt.Sprint(got) != want {
		t.Fatalf("ranked %v, want %s", got, want)
	}
	if n := len(Rank(d("800.00"), day, "", cs)); n != 1 {
		t.Fatalf("a credit is offered %d candidates", n)
	}
	// Two charges of the amount: the one of the payer the PIX's memo
	// names first, however far its day; case and accents aside.
	two := []Candidate{
		{Value: "maria", Amount: d("500.00"), Due: day, Names: "Maria Souza · Consultoria"},
		{Value: "joao", Amount: d("500.00"), Due: day.AddDate(0, 0, 9), Names: "João Conceição · Consultoria"},
		{Value: "close", Amount: d("499.00"), Due: day, Names: "João Conceição"},
	}
	got = got[:0]
	for _, c := range Rank(d("500.00"), day, "PIX RECEBIDO JOAO CONCEICAO", two) {
		got = append(got, c.Value)
	}
	if want := "[joao maria close]"; fmt.Sprint(got) != want {
		t.Fatalf("ranked %v, want %s", got, want)
	}
}
