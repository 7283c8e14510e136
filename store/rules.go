package store

import (
	"errors"
	"strings"

	"time"

	"github.com/shopspring/decimal"
)

// Rules are the business decisions a write takes inside its transaction.
// The billing package holds them (billing.Rules); the store asks them with
// plain data read in the transaction and applies the answer, so a payment,
// a charge plan or a contract period is decided in one place and written
// in one transaction. Options.Rules sets them.
type Rules interface {
	// OrderStatus is an order's charge status (Charge*) from its charges.
	OrderStatus(charges []Charge) string
	// Installments are the amounts of an order's charges, one per charge.
	Installments(o OrderBill) []Money
	// Payer refuses an order whose payer its bank would not register a
	// boleto for (nil: registrable).
	Payer(p Payer) error
	// ContractPeriods are a recurring contract's periods that have started
	// by today and may be billed, in order.
	ContractPeriods(c ContractTerm, today Date) []ContractPeriod
	// MatchStatementLine picks what a statement line of that posting day
	// settles among what it may (how: "exact" or "window"; "" for none,
	// when the line waits for a person).
	MatchStatementLine(posted string, found []StatementCandidate) (StatementCandidate, string)
	// Owed is what an open charge asks on day (YYYY-MM-DD): the rest of
	// its principal and, past its due date under its late terms, its fine
	// and interest.
	Owed(c ChargeDue, day string) Owed
	// Refunds splits a refund of amount (nil: all that is left) over an
	// order's Pix payments, one part per payment (zero: none of it), or
	// refuses it (ErrNothingToRefund, ErrRefundTooLarge).
	Refunds(payments []Refundable, amount *Money) ([]Money, error)
}

// errNoRules is a write that needs the business rules on a store opened
// without them: a wiring mistake of the program, not of the request.
var errNoRules = errors.New("store opened without business rules (Options.Rules)")

// rules answers the domain's business rules.
func (db *DB) rules() (Rules, error) {
	if db.rulebook == nil {
		return nil, errNoRules
	}
	return db.rulebook, nil
}

// OrderBill is what an order bills, for its charge plan.
type OrderBill struct {
	Value, Freight Money
	// FreightMode is the NF-e's modFrete (9: no freight).
	FreightMode  int
	Installments int
	PaymentKey   string
}

// Payer is an order's payer as a bank would register a boleto for it: the
// contact as stored (register and zip code normalized). Order is the
// order's code; HasContact is false for an order without a contact.
type Payer struct {
	Order                                     string
	HasContact                                bool
	Name, Register, Address, City, State, Zip string
}

// ChargeDue is the open charge a payment meets, with its order's settings.
type ChargeDue struct {
	Amount  Money
	DueDate string // YYYY-MM-DD
	// AgreementAccount is the bank account of the charge's agreement (0:
	// none), OrderAccount the order's.
	AgreementAccount, OrderAccount int64
	// The order's in_automation (book the income), conciliation (mark it
	// reconciled) and generateNFWebhook (the invoice becomes due).
	InAutomation, Conciliation, InvoiceOnPayment bool
	// Received is what Pix kept towards the charge and the parts
	// statement lines paid of it add up to: part of its payment already;
	// Booked, of it, what was booked as incomes as it came (the parts).
	Received, Booked Money
	// Registered: a boleto of a bank agreement (the bank registers it
	// with its late terms). Ref is its provider's reference (a PSP's:
	// psp:KIND:TXID).
	Registered bool
	Ref        string
	// FrozenLate is the fine and interest a PIX with due date issued anew
	// past its validity froze on FrozenOn ("" none): from that day the
	// charge asks its principal and them.
	FrozenLate Money
	FrozenOn   string
	// FinePercent and InterestPercent are a registered boleto's late
	// terms, its agreement's (TermsSet: read).
	FinePercent, InterestPercent Decimal
	TermsSet                     bool
}

// receivedSelect reads what was received towards a charge (c: its id)
// as amounts apart by spaces: the Pix kept and the parts statement lines
// paid, for ChargeDue.readReceived (Tx.ReceivedTowards in a write).
const receivedSelect = `COALESCE((SELECT group_concat(amount, ' ') FROM (SELECT amount FROM psp_payments WHERE charge_id = c.id AND status = 'kept'
	UNION ALL SELECT amount FROM charge_parts WHERE charge_id = c.id)), '')`

// readReceived adds up what receivedSelect read.
func (d *ChargeDue) readReceived(s string) error {
	for _, r := range strings.Fields(s) {
		m, err := ParseMoney(r)
		if err != nil {
			return err
		}
		d.Received = NewMoney(d.Received.Add(m.Decimal))
	}
	return nil
}

// termsSelect reads a charge's agreement's (a) late terms as "FINE
// INTEREST" ("" none), for ChargeDue.readTerms.
const termsSelect = `COALESCE(a.fine_percent || ' ' || a.interest_percent, '')`

// readTerms sets the terms termsSelect read.
func (d *ChargeDue) readTerms(s string) error {
	fine, interest, ok := strings.Cut(s, " ")
	if !ok {
		return nil
	}
	f, err1 := decimal.NewFromString(fine)
	i, err2 := decimal.NewFromString(interest)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	d.FinePercent, d.InterestPercent, d.TermsSet = Decimal{f}, Decimal{i}, true
	return nil
}

// frozenSelect reads a charge's (c) last reissue as "LATE DAY" ("" none),
// for ChargeDue.readFrozen.
const frozenSelect = `COALESCE((SELECT r.late || ' ' || r.day FROM charge_reissues r WHERE r.charge_id = c.id ORDER BY r.id DESC LIMIT 1), '')`

// readFrozen sets the reissue frozenSelect read.
func (d *ChargeDue) readFrozen(s string) error {
	late, day, ok := strings.Cut(s, " ")
	if !ok {
		return nil
	}
	m, err := ParseMoney(late)
	if err != nil {
		return err
	}
	d.FrozenLate, d.FrozenOn = m, day
	return nil
}

// Owed is what a charge asks on a day, in its parts.
type Owed struct {
	Principal, Fine, Interest Money
}

// Total is the whole amount asked.
func (o Owed) Total() Money { return NewMoney(o.Principal.Add(o.Fine.Decimal).Add(o.Interest.Decimal)) }

// Settlement is what a confirmed payment does to its charge.
type Settlement struct {
	Paid   Money
	Day    string    // the day it was paid, YYYY-MM-DD
	PaidAt time.Time // its instant (paid_at)
	Kind   string    // Settlement*
	Fee    *Money    // the bank's fee, if any
	// Fine and Interest are the parts of Paid that a late payment brought
	// under the charge's late terms: booked apart from the principal, in
	// their categories (0: none).
	Fine, Interest                 Money
	FineCategory, InterestCategory int64
	// Account is the bank account credited (0: none).
	Account int64
	// BookIncome records the income entry; Reconcile marks it reconciled
	// on Day; InvoiceDue makes the order's invoice due.
	BookIncome, Reconcile, InvoiceDue bool
}

// ContractTerm is a recurring contract's validity, for its periods.
type ContractTerm struct {
	Start, Due Date   // validity_start; the original order's due date
	End        string // validity_end, YYYY-MM-DD; "" open-ended
	AutoExtend bool
	Recurrence string // monthly or yearly
}

// ContractPeriod is one period of a contract (K from 1) and the due date
// of its order.
type ContractPeriod struct {
	K   int
	Due Date
}
