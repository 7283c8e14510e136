package billing

import (
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/store"
)

func money(s string) store.Money { return store.NewMoney(decimal.RequireFromString(s)) }

// TestInstallments: the parts add up to what the order bills, whole cents,
// the remainder on the first; freight is billed unless the mode is 9; a
// card is one charge whatever its installments.
func TestInstallments(t *testing.T) {
	for _, c := range []struct {
		bill store.OrderBill
		want []string
	}{
		{store.OrderBill{Value: money("100.00"), FreightMode: 9, Installments: 3}, []string{"33.34", "33.33", "33.33"}},
		{store.OrderBill{Value: money("100.00"), Freight: money("20.00"), FreightMode: 0, Installments: 2}, []string{"60", "60"}},
		{store.OrderBill{Value: money("100.00"), Freight: money("20.00"), FreightMode: 9, Installments: 1}, []string{"100"}},
		{store.OrderBill{Value: money("0.05"), FreightMode: 9, Installments: 3}, []string{"0.03", "0.01", "0.01"}},
		{store.OrderBill{Value: money("99.99"), FreightMode: 9, Installments: 6, PaymentKey: "CREDIT_CARD"}, []string{"99.99"}},
	} {
		got := Rules{}.Installments(c.bill)
		if len(got) != len(c.want) {
			t.Fatalf("%+v: %v", c.bill, got)
		}
		for i := range got {
			if !got[i].Equal(decimal.RequireFromString(c.want[i])) {
				t.Errorf("%+v: part %d = %s, want %s", c.bill, i+1, got[i], c.want[i])
			}
		}
	}
}

// TestApplyPayment: how a payment meets its charge, whatever the channel.
func TestApplyPayment(t *testing.T) {
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	due := store.ChargeDue{Amount: money("100.00"), DueDate: "2026-11-20", AgreementAccount: 7, OrderAccount: 3,
		InAutomation: true, Conciliation: true}
	amt := func(s string) *store.Money { m := money(s); return &m }
	for _, c := range []struct {
		name string
		in   store.Settle
		kind string
		day  string
		acct int64
		err  error
	}{
		{"exact", store.Settle{}, store.SettlementExact, "2026-11-20", 7, nil},
		{"partial late", store.Settle{Amount: amt("50"), Day: "2026-11-25"}, store.SettlementPartial, "2026-11-25", 7, nil},
		{"late with fees", store.Settle{Amount: amt("102.50"), Day: "2026-11-21"}, store.SettlementLate, "2026-11-21", 7, nil},
		{"over", store.Settle{Amount: amt("101")}, store.SettlementOver, "2026-11-20", 7, nil},
		{"statement's account", store.Settle{BankAccountID: 9}, store.SettlementExact, "2026-11-20", 9, nil},
		{"zero", store.Settle{Amount: amt("0")}, "", "", 0, store.ErrMoneyRange},
		{"negative fee", store.Settle{Fee: amt("-1")}, "", "", 0, store.ErrMoneyRange},
		{"past the bound", store.Settle{Amount: amt("10000000000")}, "", "", 0, store.ErrMoneyRange},
	} {
		s, err := Rules{}.ApplyPayment(due, c.in, now)
		if !errors.Is(err, c.err) {
			t.Errorf("%s: err %v, want %v", c.name, err, c.err)
			continue
		}
		if err != nil {
			continue
		}
		if s.Kind != c.kind || s.Day != c.day || s.Account != c.acct || !s.BookIncome || !s.Reconcile {
			t.Errorf("%s: %+v", c.name, s)
		}
	}
	noAccount := store.ChargeDue{Amount: money("10"), DueDate: "2026-11-20", InAutomation: true, Conciliation: true}
	if s, _ := (Rules{}).ApplyPayment(noAccount, store.Settle{}, now); s.Reconcile || s.Account != 0 {
		t.Errorf("reconciled without an account: %+v", s)
	}
}

// TestContractPeriods: a period is billable once it has started, within
// the validity or with auto-extension.
func TestContractPeriods(t *testing.T) {
	d := func(s string) store.Date { v, _ := store.ParseDateISO(s); return v }
	term := store.ContractTerm{Start: d("2026-01-10"), Due: d("2026-01-15"), End: "2026-04-30", Recurrence: "monthly"}
	got := Rules{}.ContractPeriods(term, d("2026-12-01"))
	if len(got) != 3 || got[2].K != 3 || got[2].Due.ISO() != "2026-04-15" {
		t.Fatalf("monthly to April: %+v", got)
	}
	term.AutoExtend = true
	if got := (Rules{}).ContractPeriods(term, d("2026-12-01")); len(got) != 10 {
		t.Fatalf("auto-extended: %d periods", len(got))
	}
	term.Recurrence = "weekly"
	if got := (Rules{}).ContractPeriods(term, d("2026-12-01")); got != nil {
		t.Fatalf("unknown recurrence: %+v", got)
	}
}

// TestMatchStatementLine: the same day wins, else the single nearest within
// the window; a tie or nothing near enough leaves the line for a person.
func TestMatchStatementLine(t *testing.T) {
	charge := func(id int64, day string) store.StatementCandidate {
		return store.StatementCandidate{Charge: id, Day: day}
	}
	entry := func(id int64, day string) store.StatementCandidate {
		return store.StatementCandidate{Entry: id, Day: day}
	}
	for _, c := range []struct {
		name  string
		found []store.StatementCandidate
		want  store.StatementCandidate
		how   string
	}{
		{"nothing", nil, store.StatementCandidate{}, ""},
		{"same day", []store.StatementCandidate{entry(1, "2026-11-18"), charge(2, "2026-11-20")}, charge(2, "2026-11-20"), "exact"},
		{"nearest in the window", []store.StatementCandidate{entry(1, "2026-11-15"), entry(2, "2026-11-23")}, entry(2, "2026-11-23"), "window"},
		{"two equally near", []store.StatementCandidate{entry(1, "2026-11-18"), entry(2, "2026-11-22")}, store.StatementCandidate{}, ""},
		{"the edge of the window", []store.StatementCandidate{charge(3, "2026-11-25")}, charge(3, "2026-11-25"), "window"},
		{"past the window", []store.StatementCandidate{charge(3, "2026-11-26")}, store.StatementCandidate{}, ""},
		{"an undated candidate", []store.StatementCandidate{entry(1, ""), entry(2, "2026-11-21")}, entry(2, "2026-11-21"), "window"},
	} {
		got, how := Rules{}.MatchStatementLine("2026-11-20", c.found)
		if got != c.want || how != c.how {
			t.Errorf("%s: %+v %q, want %+v %q", c.name, got, how, c.want, c.how)
		}
	}
}

// TestRefunds: a refund is taken from the payments in the order they came,
// each at most what it has left; all of it by default; nothing left or
// more than is left is refused.
func TestRefunds(t *testing.T) {
	pay := func(paid string, given ...string) store.Refundable {
		r := store.Refundable{Paid: money(paid)}
		for _, g := range given {
			r.Given = append(r.Given, money(g))
		}
		return r
	}
	amt := func(s string) *store.Money { m := money(s); return &m }
	for _, c := range []struct {
		name     string
		payments []store.Refundable
		amount   *store.Money
		want     []string
		err      error
	}{
		{"all of it", []store.Refundable{pay("30.00", "10.00"), pay("47.30")}, nil, []string{"20", "47.3"}, nil},
		{"from the first", []store.Refundable{pay("30.00"), pay("47.30")}, amt("25.00"), []string{"25", "0"}, nil},
		{"across two", []store.Refundable{pay("30.00", "30.00"), pay("47.30"), pay("10.00")}, amt("50.00"), []string{"0", "47.3", "2.7"}, nil},
		{"nothing left", []store.Refundable{pay("30.00", "30.00")}, nil, nil, store.ErrNothingToRefund},
		{"no payment", nil, amt("1.00"), nil, store.ErrNothingToRefund},
		{"too much", []store.Refundable{pay("30.00", "10.00")}, amt("20.01"), nil, store.ErrRefundTooLarge},
	} {
		got, err := Rules{}.Refunds(c.payments, c.amount)
		if !errors.Is(err, c.err) || len(got) != len(c.want) {
			t.Errorf("%s: %v %v, want %v %v", c.name, got, err, c.want, c.err)
			continue
		}
		for i := range got {
			if !got[i].Equal(decimal.RequireFromString(c.want[i])) {
				t.Errorf("%s: part %d = %s, want %s", c.name, i+1, got[i], c.want[i])
			}
		}
	}
}

// TestOwed: what a charge asks on a day, by its own terms: a registered
// boleto or a PIX with due date adds, after its due date, a 2 % fine once
// and 1/30 % a day of interest on the amount (R$ 1.000,00: 1.020,00 and
// 1,00 at 3 days, 3,33 at 10); other charges ask their amount; Pix kept
// towards it are deducted; a late payment's excess is split into the
// fine first and the rest interest.
func TestOwed(t *testing.T) {
	boleto := store.ChargeDue{Amount: money("1000.00"), DueDate: "2026-11-11", Registered: true}
	cobv := store.ChargeDue{Amount: money("1000.00"), DueDate: "2026-11-11", Ref: "psp:cobv:abc", Received: money("100.00")}
	cob := store.ChargeDue{Amount: money("1000.00"), DueDate: "2026-11-11", Ref: "psp:cob:abc"}
	for _, c := range []struct {
		name                             string
		due                              store.ChargeDue
		day                              string
		principal, fine, interest, total string
	}{
		{"on the day", boleto, "2026-11-11", "1000", "0", "0", "1000"},
		{"3 days", boleto, "2026-11-14", "1000", "20", "1", "1021"},
		{"10 days", boleto, "2026-11-21", "1000", "20", "3.33", "1023.33"},
		{"cobv with a kept Pix", cobv, "2026-11-21", "900", "20", "3.33", "923.33"},
		{"immediate PIX", cob, "2026-11-21", "1000", "0", "0", "1000"},
		{"no day", boleto, "", "1000", "0", "0", "1000"},
	} {
		o := Rules{}.Owed(c.due, c.day)
		for _, v := range []struct {
			got  store.Money
			want string
		}{{o.Principal, c.principal}, {o.Fine, c.fine}, {o.Interest, c.interest}, {o.Total(), c.total}} {
			if !v.got.Equal(decimal.RequireFromString(v.want)) {
				t.Errorf("%s: %+v (total %s), want %s %s %s %s", c.name, o, o.Total(), c.principal, c.fine, c.interest, c.total)
				break
			}
		}
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		paid, fine, interest string
	}{{"1023.33", "20", "3.33"}, {"1023.30", "20", "3.30"}, {"1010.00", "10", "0"}, {"1000.00", "0", "0"}} {
		m := money(c.paid)
		s, err := Rules{}.ApplyPayment(boleto, store.Settle{Amount: &m, Day: "2026-11-21"}, now)
		if err != nil || !s.Fine.Equal(decimal.RequireFromString(c.fine)) || !s.Interest.Equal(decimal.RequireFromString(c.interest)) {
			t.Errorf("paid %s: fine %s interest %s (%v)", c.paid, s.Fine, s.Interest, err)
		}
	}
	m := money("1023.33")
	if s, _ := (Rules{}).ApplyPayment(cob, store.Settle{Amount: &m, Day: "2026-11-21"}, now); !s.Fine.IsZero() || !s.Interest.IsZero() {
		t.Errorf("an immediate PIX has no late terms: %+v", s)
	}
}
