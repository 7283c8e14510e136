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

// TestRankLateAndSums: a charge asking the line's amount with its fine
// and interest comes after the exact amount and before sums of one
// contact's items that make the line exactly, which come before close
// amounts; every one of those is accepted as it is, a close amount is
// not; a sum is of one contact's items only, of two to four.
func TestRankLateAndSums(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	late := func(day time.Time) decimal.Decimal { return d("1023.33") }
	cs := []Candidate{
		{Value: "close", Amount: d("1023.00"), Due: day, Contact: "beta"},
		{Value: "late", Amount: d("1000.00"), Due: day.AddDate(0, 0, -10), Owed: late, Contact: "alfa"},
		{Value: "exact", Amount: d("1023.33"), Due: day.AddDate(0, 0, 30), Contact: "gama"},
		{Value: "a1", Amount: d("500.00"), Due: day, Contact: "delta"},
		{Value: "a2", Amount: d("400.00"), Due: day, Contact: "delta"},
		{Value: "a3", Amount: d("123.33"), Due: day, Contact: "delta"},
		{Value: "b1", Amount: d("23.33"), Due: day, Contact: "beta"},
		{Value: "other", Amount: d("900.00"), Due: day, Contact: "omega"},
	}
	var got []string
	accepted := map[string]bool{}
	for _, r := range Rank(d("1023.33"), day, "", cs) {
		got = append(got, r.Value)
		accepted[r.Value] = r.Accepted
	}
	want := "[exact late items:a1,a2,a3 close other a1 a2 a3 b1]"
	if fmt.Sprint(got) != want {
		t.Fatalf("ranked %v, want %s", got, want)
	}
	for v, ok := range map[string]bool{"exact": true, "late": true, "items:a1,a2,a3": true, "close": false, "a1": false} {
		if accepted[v] != ok {
			t.Errorf("%s accepted %v", v, accepted[v])
		}
	}
}
