// Package ledger is a firm's bills and incomes beyond one entry: split in
// instalments. The portal and the API make them through here, under the
// same rules.
package ledger

import (
	"context"
	"strconv"

	"github.com/shopspring/decimal"

	"fincom/server/problem"
	"fincom/store"
)

// The bounds of a split.
const (
	MinInstalments = 2
	MaxInstalments = 48
)

// Refusals of a split.
var (
	ErrInstalments = problem.New(problem.Unprocessable, "installments: from 2 to 48")
	ErrDates       = problem.New(problem.Unprocessable, "installment_dates: one date (YYYY-MM-DD) per instalment, each after the one before")
	ErrTooSmall    = problem.New(problem.Unprocessable, "value: each instalment is at least R$ 0,01")
)

// Split is a total in n parts that add up to it to the cent: each the
// total divided by n, rounded down to the cent, the remainder on the last.
func Split(total decimal.Decimal, n int) []decimal.Decimal {
	part := total.Div(decimal.NewFromInt(int64(n))).RoundDown(2)
	out := make([]decimal.Decimal, n)
	for i := range n - 1 {
		out[i] = part
	}
	out[n-1] = total.Sub(part.Mul(decimal.NewFromInt(int64(n - 1))))
	return out
}

// Instalments are f split in n: the value by Split, due monthly from f's
// due date (the same day, or the month's last) or on the dates given,
// each described "description i/n"; they share f's competence (the
// purchase's or sale's day: an accountant books it once).
func Instalments(f store.EntryFields, n int, dates []string) ([]store.EntryFields, error) {
	if n < MinInstalments || n > MaxInstalments {
		return nil, ErrInstalments
	}
	first, err := store.ParseDateISO(f.DueDate)
	if err != nil {
		return nil, ErrDates
	}
	if len(dates) > 0 && len(dates) != n {
		return nil, ErrDates
	}
	parts := Split(f.Value.Decimal, n)
	if !parts[0].IsPositive() {
		return nil, ErrTooSmall
	}
	if f.CompetenceDate == "" {
		f.CompetenceDate = f.DueDate
	}
	out := make([]store.EntryFields, n)
	prev := ""
	for i := range n {
		e := f
		e.Value = store.NewMoney(parts[i])
		e.Description = f.Description + " " + strconv.Itoa(i+1) + "/" + strconv.Itoa(n)
		e.DueDate = store.AddMonths(first, i).ISO()
		if len(dates) > 0 {
			d, err := store.ParseDateISO(dates[i])
			if err != nil || d.ISO() <= prev {
				return nil, ErrDates
			}
			e.DueDate = d.ISO()
		}
		prev = e.DueDate
		out[i] = e
	}
	return out, nil
}

// CreateInstalments makes f's instalments in one transaction, the first
// with the attachments, with a form's one-time key (as
// store.InsertEntryOnce); it answers the group's token.
func CreateInstalments(ctx context.Context, db *store.DB, unitID int64, formKey string, f store.EntryFields, n int, dates []string,
	files []store.NewFile) (string, bool, error) {
	group, err := Instalments(f, n, dates)
	if err != nil {
		return "", false, err
	}
	return db.InsertEntryGroupOnce(ctx, unitID, formKey, group, files)
}
