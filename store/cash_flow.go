package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/shopspring/decimal"
)

// CashFlowDay is one day of the cash flow. In, Out and Balance are realized
// (paid entries by payment date; Balance also counts bank accounts opened
// that day). The forecast adds the open entries by due date.
type CashFlowDay struct {
	Date            string `json:"date" format:"date" doc:"The day, YYYY-MM-DD."`
	In              Money  `json:"in"`
	Out             Money  `json:"out"`
	Balance         Money  `json:"balance"`
	ForecastIn      Money  `json:"forecast_in"`
	ForecastOut     Money  `json:"forecast_out"`
	ForecastBalance Money  `json:"forecast_balance"`
}

// CashFlowMonth sums the days of one month (YYYY-MM); the balances are the
// month's closing ones.
type CashFlowMonth struct {
	Month           string `json:"month" doc:"The month, YYYY-MM."`
	In              Money  `json:"in"`
	Out             Money  `json:"out"`
	Balance         Money  `json:"balance"`
	ForecastIn      Money  `json:"forecast_in"`
	ForecastOut     Money  `json:"forecast_out"`
	ForecastBalance Money  `json:"forecast_balance"`
}

// CashFlowTotals sums the period.
type CashFlowTotals struct {
	In                     Money `json:"in"`
	Out                    Money `json:"out"`
	ForecastIn             Money `json:"forecast_in"`
	ForecastOut            Money `json:"forecast_out"`
	ClosingBalance         Money `json:"closing_balance"`
	ForecastClosingBalance Money `json:"forecast_closing_balance"`
}

// CashFlow is the answer of /cash_flow.
type CashFlow struct {
	InitialDate    string          `json:"initial_date" format:"date" doc:"The first day of the period, YYYY-MM-DD."`
	FinalDate      string          `json:"final_date" format:"date" doc:"The last day of the period, YYYY-MM-DD."`
	OpeningBalance Money           `json:"opening_balance"`
	Days           []CashFlowDay   `json:"days" doc:"Each day of the period, in order."`
	Months         []CashFlowMonth `json:"months" doc:"Each month of the period, in order."`
	Totals         CashFlowTotals  `json:"totals" doc:"The whole period's sums."`
}

func cents(c int64) Money { return Money{decimal.New(c, -2)} }

// CashFlow computes the unit's cash flow between two days (inclusive). The
// opening balance is the bank accounts' opening balances dated before the
// period (or undated) plus everything paid before it. Sums are integer
// cents, so the result is exact.
func (db *DB) CashFlow(ctx context.Context, unitID int64, from, to Date) (CashFlow, error) {
	cf := CashFlow{InitialDate: from.ISO(), FinalDate: to.ISO(), Days: []CashFlowDay{}, Months: []CashFlowMonth{}}
	type sums struct{ in, out, fin, fout, open int64 }
	byDay := map[string]*sums{}
	day := func(d string) *sums {
		if byDay[d] == nil {
			byDay[d] = &sums{}
		}
		return byDay[d]
	}
	var opening int64
	err := db.read(ctx, func(tx *sql.Tx) error {
		// Accounts' opening balances are decimal text: add them in Go.
		rows, err := tx.QueryContext(ctx, `SELECT opening_balance, opening_balance_date FROM bank_accounts WHERE unit_id = ?`, unitID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var bal Number
			var date sql.NullString
			if err := rows.Scan(&bal, &date); err != nil {
				rows.Close()
				return err
			}
			c := Money(bal).Cents()
			switch {
			case !date.Valid || date.String < cf.InitialDate:
				opening += c
			case date.String <= cf.FinalDate:
				day(date.String).open += c
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		var before int64
		if err := tx.QueryRowContext(ctx, `
			SELECT COALESCE(SUM(CASE type WHEN 'in' THEN value_cents ELSE -value_cents END), 0)
			FROM entries WHERE unit_id = ? AND active = 1 AND pay_day IS NOT NULL AND pay_day < ?`,
			unitID, cf.InitialDate).Scan(&before); err != nil {
			return err
		}
		opening += before
		for _, q := range []struct {
			query string
			in    func(*sums) *int64
			out   func(*sums) *int64
		}{
			{`SELECT pay_day, type, SUM(value_cents) FROM entries
				WHERE unit_id = ? AND active = 1 AND pay_day BETWEEN ? AND ? GROUP BY pay_day, type`,
				func(s *sums) *int64 { return &s.in }, func(s *sums) *int64 { return &s.out }},
			{`SELECT due_date, type, SUM(value_cents) FROM entries
				WHERE unit_id = ? AND active = 1 AND pay_day IS NULL AND due_date BETWEEN ? AND ? GROUP BY due_date, type`,
				func(s *sums) *int64 { return &s.fin }, func(s *sums) *int64 { return &s.fout }},
		} {
			rows, err := tx.QueryContext(ctx, q.query, unitID, cf.InitialDate, cf.FinalDate)
			if err != nil {
				return err
			}
			for rows.Next() {
				var d, typ string
				var c int64
				if err := rows.Scan(&d, &typ, &c); err != nil {
					rows.Close()
					return err
				}
				if typ == "in" {
					*q.in(day(d)) += c
				} else {
					*q.out(day(d)) += c
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return CashFlow{}, wrap("cash flow", err)
	}
	cf.OpeningBalance = cents(opening)
	balance, forecast := opening, opening
	var tin, tout, tfin, tfout int64
	var month *CashFlowMonth
	var min, mout, mfin, mfout int64
	for d := from.Time; !d.After(to.Time); d = d.AddDate(0, 0, 1) {
		key := d.Format(time.DateOnly)
		s := byDay[key]
		if s == nil {
			s = &sums{}
		}
		balance += s.in - s.out + s.open
		forecast += s.in - s.out + s.open + s.fin - s.fout
		cf.Days = append(cf.Days, CashFlowDay{Date: key, In: cents(s.in), Out: cents(s.out), Balance: cents(balance),
			ForecastIn: cents(s.fin), ForecastOut: cents(s.fout), ForecastBalance: cents(forecast)})
		if month == nil || month.Month != key[:7] {
			cf.Months = append(cf.Months, CashFlowMonth{Month: key[:7]})
			month = &cf.Months[len(cf.Months)-1]
			min, mout, mfin, mfout = 0, 0, 0, 0
		}
		min, mout, mfin, mfout = min+s.in, mout+s.out, mfin+s.fin, mfout+s.fout
		month.In, month.Out, month.ForecastIn, month.ForecastOut = cents(min), cents(mout), cents(mfin), cents(mfout)
		month.Balance, month.ForecastBalance = cents(balance), cents(forecast)
		tin, tout, tfin, tfout = tin+s.in, tout+s.out, tfin+s.fin, tfout+s.fout
	}
	cf.Totals = CashFlowTotals{In: cents(tin), Out: cents(tout), ForecastIn: cents(tfin), ForecastOut: cents(tfout),
		ClosingBalance: cents(balance), ForecastClosingBalance: cents(forecast)}
	return cf, nil
}
