package billing

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/psp"
	"fincom/store"
)

// Rules are the charge rules the store's writes take in their transaction
// (store.Options.Rules): an order's status, its installments, a boleto's
// payer, a payment's settlement, a contract's periods.
type Rules struct{}

var _ store.Rules = Rules{}

// OrderStatus aggregates the live charges of an order: all paid is PAID,
// any overdue is OVERDUE, any pending or issuing is PENDING; with only
// cancelled ones it is CANCELLED; with none, NONE.
func (Rules) OrderStatus(all []store.Charge) string {
	live, paid, overdue, cancelled := 0, 0, 0, 0
	for _, c := range all {
		switch c.Status {
		case store.ChargeCancelled:
			cancelled++
			continue
		case store.ChargePaid:
			paid++
		case store.ChargeOverdue:
			overdue++
		}
		live++
	}
	switch {
	case live == 0 && cancelled > 0:
		return store.ChargeCancelled
	case live == 0:
		return store.ChargeNone
	case paid == live:
		return store.ChargePaid
	case overdue > 0:
		return store.ChargeOverdue
	}
	return store.ChargePending
}

// Installments are the amounts of an order's charges: what it bills split
// into its installments (a card's are the card issuer's: one charge).
func (Rules) Installments(o store.OrderBill) []store.Money {
	n := o.Installments
	if o.PaymentKey == "CREDIT_CARD" {
		n = 1
	}
	return splitAmount(billed(o), max(n, 1))
}

// Billed is what an order's charges and invoice bill (billed): the
// accrual basis counts it as the sale's revenue.
func (Rules) Billed(o store.OrderBill) store.Money { return billed(o) }

// billed is what an order's charges bill: its value and, when it carries
// freight (any freight mode but 9, no freight), the freight, which the
// invoice adds to its total too (vNF): the invoice and the charges agree
// (TestFreightChargedAsInvoiced).
func billed(o store.OrderBill) store.Money {
	if o.FreightMode == 9 {
		return o.Value
	}
	return store.NewMoney(o.Value.Add(o.Freight.Decimal))
}

// splitAmount divides a value into n installments of whole cents, the
// remainder going to the first, so the parts add up exactly.
func splitAmount(v store.Money, n int) []store.Money {
	cents := v.Cents()
	each, rest := cents/int64(n), cents%int64(n)
	out := make([]store.Money, n)
	for i := range out {
		c := each
		if i == 0 {
			c += rest
		}
		out[i] = store.NewMoney(decimal.New(c, -2))
	}
	return out
}

// maxPeriods bounds how many periods one contract is billed for in a run.
const maxPeriods = 1200

// ContractPeriods are the periods (a month or a year from validity_start)
// of a recurring contract that have started by today, while the period
// starts within the validity or the contract auto-extends; each period's
// order is due that many periods after the original's due date.
func (Rules) ContractPeriods(c store.ContractTerm, today store.Date) []store.ContractPeriod {
	months := map[string]int{"monthly": 1, "yearly": 12}[c.Recurrence]
	if months == 0 {
		return nil
	}
	var out []store.ContractPeriod
	for k := 1; k <= maxPeriods; k++ {
		start := store.AddMonths(c.Start, k*months)
		if start.After(today.Time) || (c.End != "" && start.ISO() > c.End && !c.AutoExtend) {
			break
		}
		out = append(out, store.ContractPeriod{K: k, Due: store.AddMonths(c.Due, k*months)})
	}
	return out
}

// ApplyPayment decides what a confirmed payment does to its charge, from
// whatever channel it comes (the simulated payer, a bank return, a
// statement line, the firm): it is a positive amount fincom can keep
// (else store.ErrMoneyRange), paid on the channel's day (the bank's, not
// the day it was learnt: TestReturnOfAnotherCompany) or today; a short
// payment is partial even when late, and a late one is late even with
// fees on top. The account credited is the channel's, else the charge's
// agreement's, else the order's; the order's in_automation books the
// income, reconciled with its conciliation when an account is known, and
// its generateNFWebhook makes the invoice due.
func (Rules) ApplyPayment(c store.ChargeDue, in store.Settle, now time.Time) (store.Settlement, error) {
	s := store.Settlement{Paid: c.Amount, Day: store.Today(now).ISO(), PaidAt: now}
	if in.Amount != nil {
		if !in.Amount.IsPositive() || !store.InMoneyRange(in.Amount.Decimal) {
			return s, store.ErrMoneyRange
		}
		// What Pix kept towards the charge received is part of its
		// payment: this one pays the rest.
		s.Paid = store.NewMoney(in.Amount.Add(c.Received.Decimal))
	}
	if !s.Paid.IsPositive() || !store.InMoneyRange(s.Paid.Decimal) {
		return s, store.ErrMoneyRange
	}
	if in.Day != "" && in.Day != s.Day {
		t, err := store.DayStart(in.Day)
		if err != nil {
			return s, fmt.Errorf("payment day %q: %w", in.Day, err)
		}
		s.Day, s.PaidAt = in.Day, t
	}
	s.Kind = settlementOf(c.Amount.Decimal, s.Paid.Decimal, c.DueDate, s.Day)
	if s.Kind == store.SettlementLate && lateTerms(c) {
		// What a late payment brings over the principal is, under the
		// charge's own terms, its fine first and the rest interest
		// (a bank may count the interest a cent apart): booked apart.
		over := s.Paid.Sub(c.Amount.Decimal)
		if over.IsPositive() {
			fineRate, monthly := termsOf(c)
			fine, _ := lateParts(c.Amount.Decimal, daysLate(c.DueDate, s.Day), fineRate, monthly)
			fine = decimal.Min(fine, over)
			s.Fine, s.Interest = store.NewMoney(fine), store.NewMoney(over.Sub(fine))
		}
	}
	if in.Fee != nil {
		// A bank's fee field holds 13 integer digits; fincom keeps what
		// it can sum (TestReturnFileAmountsBounded).
		if in.Fee.IsNegative() || !store.InMoneyRange(in.Fee.Decimal) {
			return s, store.ErrMoneyRange
		}
		s.Fee = in.Fee
	}
	switch {
	case in.BankAccountID != 0:
		s.Account = in.BankAccountID
	case c.AgreementAccount != 0:
		s.Account = c.AgreementAccount
	default:
		s.Account = c.OrderAccount
	}
	s.BookIncome = c.InAutomation
	s.Reconcile = c.InAutomation && c.Conciliation && s.Account != 0
	s.InvoiceDue = c.InvoiceOnPayment
	return s, nil
}

// Owed is what an open charge asks on day (YYYY-MM-DD): the rest of its
// principal (what Pix kept towards it aside) and, past its due date under
// its late terms (lateTerms), the fine and interest on its amount
// (lateParts), or, from the day a PIX with due date was issued anew past
// its validity, the fine and interest it froze.
func (Rules) Owed(c store.ChargeDue, day string) store.Owed {
	o := store.Owed{Principal: store.NewMoney(c.Amount.Sub(c.Received.Decimal))}
	if lateTerms(c) && c.FrozenOn != "" && day >= c.FrozenOn {
		// Issued anew past its validity: what it asked then holds.
		fineRate, monthly := termsOf(c)
		fine, _ := lateParts(c.Amount.Decimal, daysLate(c.DueDate, c.FrozenOn), fineRate, monthly)
		fine = decimal.Min(fine, c.FrozenLate.Decimal)
		o.Fine, o.Interest = store.NewMoney(fine), store.NewMoney(c.FrozenLate.Sub(fine))
		return o
	}
	if lateTerms(c) {
		fineRate, monthly := termsOf(c)
		fine, interest := lateParts(c.Amount.Decimal, daysLate(c.DueDate, day), fineRate, monthly)
		o.Fine, o.Interest = store.NewMoney(fine), store.NewMoney(interest)
	}
	return o
}

// lateTerms: the charge's own rule states a fine and interest after its
// due date: a boleto registered with a bank (ExportRemittance writes
// them), a PIX with due date (its multa and juros, pspCharge).
func lateTerms(c store.ChargeDue) bool {
	return c.Registered || strings.HasPrefix(c.Ref, pspRefPrefix+psp.WithDue+":")
}

// daysLate is how many calendar days day comes after due (YYYY-MM-DD
// both; 0 when not after, or either is no date).
func daysLate(due, day string) int {
	d, err1 := time.Parse(time.DateOnly, due)
	p, err2 := time.Parse(time.DateOnly, day)
	if err1 != nil || err2 != nil || !p.After(d) {
		return 0
	}
	return int(p.Sub(d).Hours() / 24)
}

// settlementOf classifies a payment of paid on day for a charge of amount
// due on due (YYYY-MM-DD).
func settlementOf(amount, paid decimal.Decimal, due, day string) string {
	switch {
	case paid.LessThan(amount):
		return store.SettlementPartial
	case day > due:
		return store.SettlementLate
	case paid.GreaterThan(amount):
		return store.SettlementOver
	}
	return store.SettlementExact
}

// MatchWindow is how many days apart a statement line and an entry's due
// date may be and still match by amount (when exactly one entry is the
// nearest).
const MatchWindow = 5

// MatchStatementLine matches a line to the candidate of its amount dated
// its posting day ("exact"), else to the single nearest within
// MatchWindow days ("window"); two equally near, or none near enough,
// leave it for a person ("").
func (Rules) MatchStatementLine(posted string, found []store.StatementCandidate) (store.StatementCandidate, string) {
	best, bestDays, ties := store.StatementCandidate{}, -1, 0
	for _, c := range found {
		d, ok := daysApart(c.Day, posted)
		switch {
		case !ok:
		case bestDays < 0 || d < bestDays:
			best, bestDays, ties = c, d, 1
		case d == bestDays:
			ties++
		}
	}
	switch {
	case ties != 1 || bestDays > MatchWindow:
		return store.StatementCandidate{}, ""
	case bestDays == 0:
		return best, "exact"
	}
	return best, "window"
}

// daysApart is how many whole days lie between two dates (ok false when
// either is no date).
func daysApart(a, b string) (int, bool) {
	ta, err1 := time.Parse(time.DateOnly, a)
	tb, err2 := time.Parse(time.DateOnly, b)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	d := int(ta.Sub(tb).Hours() / 24)
	if d < 0 {
		d = -d
	}
	return d, true
}

// Refunds takes a refund (nil: everything left) from an order's Pix
// payments in the order they came, each given back at most what it
// brought less its refunds not refused: ErrNothingToRefund when nothing
// is left, ErrRefundTooLarge for more than is left.
func (Rules) Refunds(payments []store.Refundable, amount *store.Money) ([]store.Money, error) {
	left := make([]decimal.Decimal, len(payments))
	total := decimal.Zero
	for i, p := range payments {
		left[i] = p.Paid.Decimal
		for _, g := range p.Given {
			left[i] = left[i].Sub(g.Decimal)
		}
		if left[i].IsPositive() {
			total = total.Add(left[i])
		}
	}
	want := total
	if amount != nil {
		want = amount.Decimal
	}
	switch {
	case total.IsZero():
		return nil, store.ErrNothingToRefund
	case want.GreaterThan(total):
		return nil, store.ErrRefundTooLarge
	}
	parts := make([]store.Money, len(payments))
	for i := range payments {
		part := decimal.Max(decimal.Zero, decimal.Min(want, left[i]))
		parts[i] = store.NewMoney(part)
		want = want.Sub(part)
	}
	return parts, nil
}
