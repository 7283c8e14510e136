package ledger

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"fincom/store"
)

// TestInstalments: a split adds up to the total to the cent, the
// remainder on the last; the dues run monthly from the first (the month's
// last day when shorter) or on the dates given, in order; each is
// described i/n and shares the whole's competence.
func TestInstalments(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, total, due string
		n                int
		dates            []string
		values, dues     string
		err              error
	}{
		{name: "a thousand in three", total: "1000.00", due: "2026-12-10", n: 3, values: "333.33 333.33 333.34", dues: "2026-12-10 2027-01-10 2027-02-10"},
		{name: "from a month's end", total: "100.00", due: "2027-01-31", n: 4, values: "25.00 25.00 25.00 25.00", dues: "2027-01-31 2027-02-28 2027-03-31 2027-04-30"},
		{name: "seven parts of a hundred", total: "100.00", due: "2026-12-01", n: 7, values: "14.28 14.28 14.28 14.28 14.28 14.28 14.32"},
		{name: "dates given", total: "90.00", due: "2026-12-01", n: 2, dates: []string{"2026-12-15", "2027-01-05"}, values: "45.00 45.00", dues: "2026-12-15 2027-01-05"},
		{name: "dates out of order", total: "90.00", due: "2026-12-01", n: 2, dates: []string{"2027-01-05", "2026-12-15"}, err: ErrDates},
		{name: "dates short", total: "90.00", due: "2026-12-01", n: 3, dates: []string{"2026-12-15"}, err: ErrDates},
		{name: "one", total: "90.00", due: "2026-12-01", n: 1, err: ErrInstalments},
		{name: "forty-nine", total: "90.00", due: "2026-12-01", n: 49, err: ErrInstalments},
		{name: "a cent in two", total: "0.01", due: "2026-12-01", n: 2, err: ErrTooSmall},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := store.EntryFields{Type: "out", Description: "Compra", Value: store.NewMoney(decimal.RequireFromString(c.total)), DueDate: c.due}
			got, err := Instalments(f, c.n, c.dates)
			if c.err != nil || err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err %v, want %v", err, c.err)
				}
				return
			}
			var values, dues []string
			sum := decimal.Zero
			for i, e := range got {
				values, dues = append(values, e.Value.StringFixed(2)), append(dues, e.DueDate)
				sum = sum.Add(e.Value.Decimal)
				if want := "Compra " + string(rune('1'+i)) + "/" + map[int]string{2: "2", 3: "3", 4: "4", 7: "7"}[c.n]; e.Description != want || e.CompetenceDate != c.due {
					t.Errorf("instalment %d: %q competence %s", i+1, e.Description, e.CompetenceDate)
				}
			}
			if strings.Join(values, " ") != c.values || (c.dues != "" && strings.Join(dues, " ") != c.dues) || !sum.Equal(decimal.RequireFromString(c.total)) {
				t.Fatalf("values %v dues %v (sum %s)", values, dues, sum)
			}
		})
	}
}

// TestNext: a recurrence's next due date, from its first on the same day
// of month (the month's last when shorter), until its count or its end
// date, none once stopped.
func TestNext(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		r    store.RecurrenceState
		want string
	}{
		{store.RecurrenceState{Recurrence: store.Recurrence{EveryMonths: 1, Times: 12}, AnchorDue: "2026-12-05", Made: 1}, "2027-01-05"},
		{store.RecurrenceState{Recurrence: store.Recurrence{EveryMonths: 1, Times: 12}, AnchorDue: "2026-12-05", Made: 12}, ""},
		{store.RecurrenceState{Recurrence: store.Recurrence{EveryMonths: 3, Until: "2027-06-30"}, AnchorDue: "2026-12-31", Made: 1}, "2027-03-31"},
		{store.RecurrenceState{Recurrence: store.Recurrence{EveryMonths: 1, Until: "2027-03-01"}, AnchorDue: "2027-01-31", Made: 1}, "2027-02-28"},
		{store.RecurrenceState{Recurrence: store.Recurrence{EveryMonths: 1, Until: "2027-03-01"}, AnchorDue: "2027-01-31", Made: 2}, ""},
		{store.RecurrenceState{Recurrence: store.Recurrence{EveryMonths: 1, Times: 12}, AnchorDue: "2026-12-05", Made: 2, Stopped: true}, ""},
	} {
		if got, ok := next(c.r); got != c.want || ok != (c.want != "") {
			t.Errorf("next(%+v) = %q %v, want %q", c.r, got, ok, c.want)
		}
	}
}
