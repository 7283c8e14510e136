package billing

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"fincom/store"
)

// settleDay is the tests' clock: the charges fall due on 2026-12-10.
var settleDay = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// settleFixture is a domain of two units on a real SQLite file, A with a
// customer and an income category, and answers an order of
// A's of value with one open charge (no provider: the firm's own).
type settleFixture struct {
	db     *store.DB
	a, b   store.Unit
	boleto string // the payment method of a boleto
	// order makes an order of value, its one charge answered by its
	// provider as issued says (none: the firm's own charge).
	order func(value string, conf func(*store.SalesOrderFields), issued ...store.IssuedCharge) string
}

func newSettleFixture(t *testing.T) settleFixture {
	t.Helper()
	ctx := context.Background()
	schema, err := os.ReadFile("../../schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := store.OpenDomains(t.TempDir(), store.Options{Rules: Rules{}, Schema: string(schema), Now: func() time.Time { return settleDay }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	if err := ds.Create(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	f := settleFixture{db: db}
	if f.a, err = db.CreateUnit(ctx, store.UnitInput{Name: "Matriz"}); err != nil {
		t.Fatal(err)
	}
	if f.b, err = db.CreateUnit(ctx, store.UnitInput{Name: "Filial"}); err != nil {
		t.Fatal(err)
	}
	contact, err := db.InsertContact(ctx, f.a.ID, store.ContactFields{Type: "legal", Register: "11444777000161", SocialReason: "Cliente SA",
		Address: "Avenida Paulista", Number: "1000", Neighborhood: "Bela Vista", City: "São Paulo", State: "SP", ZipCode: "01310100"})
	if err != nil {
		t.Fatal(err)
	}
	category, err := db.InsertCategory(ctx, f.a.ID, store.CategoryFields{ModuleType: "in", Name: "Vendas"})
	if err != nil {
		t.Fatal(err)
	}
	methods, err := db.PaymentMethods(ctx)
	if err != nil {
		t.Fatal(err)
	}
	transfer := ""
	for _, m := range methods {
		switch m.PaymentKey {
		case "TRANSFER":
			transfer = m.Token
		case "BOLETO":
			f.boleto = m.Token
		}
	}
	f.order = func(value string, conf func(*store.SalesOrderFields), issued ...store.IssuedCharge) string {
		t.Helper()
		o := store.SalesOrderFields{ContactToken: contact, CategoryToken: category, PaymentTypeToken: transfer, Description: "Consultoria",
			Value: money(value), EstimatedPaymentDate: "2026-12-10", Installments: 1}
		if conf != nil {
			conf(&o)
		}
		token, _, err := db.InsertSalesOrder(ctx, f.a.ID, o)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := db.PrepareCharges(ctx, f.a.ID, token, nil)
		if err != nil {
			t.Fatal(err)
		}
		answer := store.IssuedCharge{Ref: "manual"}
		if len(issued) > 0 {
			answer = issued[0]
		}
		for _, c := range plan.Charges {
			if err := db.CompleteCharge(ctx, c.Token, answer, nil); err != nil {
				t.Fatal(err)
			}
		}
		return token
	}
	return f
}

// TestSettleFirm: the firm's word settles an order's open charge as the
// rules decide (exact, partial, over, on the day said) and books the
// income when the order says so; a charge already paid, cancelled or of another unit, an amount
// out of range and another unit's account are refused and write nothing.
func TestSettleFirm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newSettleFixture(t)
	amount := func(s string) *store.Money { m := money(s); return &m }
	paid := f.order("100.00", nil)
	if _, err := settleFirm(ctx, f.db, f.a.ID, paid, 0, nil, "", ""); err != nil {
		t.Fatal(err)
	}
	cancelled := f.order("100.00", nil)
	if err := f.db.CancelCharges(ctx, f.a.ID, cancelled); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		value   string
		conf    func(*store.SalesOrderFields)
		order   string // an order made before; "" a new one of value
		unit    int64
		amount  *store.Money
		day     string
		account string
		err     error
		kind    string
		paid    string
		status  string
		income  bool
		concil  bool
	}{
		{name: "exact", value: "100.00", kind: store.SettlementExact, paid: "100.00", status: "PAID"},
		{name: "partial", value: "100.00", amount: amount("60.00"), kind: store.SettlementPartial, paid: "60.00", status: "PAID"},
		{name: "over", value: "100.00", amount: amount("120.00"), kind: store.SettlementOver, paid: "120.00", status: "PAID"},
		// Reconciled needs an account credited: none here.
		{name: "booked on the day said", value: "250.00", conf: func(o *store.SalesOrderFields) { o.InAutomation, o.Conciliation = true, true },
			day: "2026-11-20", kind: store.SettlementExact, paid: "250.00", status: "PAID", income: true},
		{name: "already paid", order: paid, err: store.ErrNothingToPay},
		{name: "cancelled", order: cancelled, err: store.ErrNothingToPay},
		{name: "another unit's charge", value: "100.00", unit: f.b.ID, err: store.ErrNothingToPay},
		{name: "another unit's account", value: "100.00", account: "00000000-0000-4000-8000-000000000000", err: store.ErrInvalidReference},
		{name: "no amount", value: "100.00", amount: amount("0"), err: store.ErrMoneyRange},
	} {
		t.Run(c.name, func(t *testing.T) {
			order := c.order
			if order == "" {
				order = f.order(c.value, c.conf)
			}
			unit := f.a.ID
			if c.unit != 0 {
				unit = c.unit
			}
			before, _ := f.db.SalesOrder(ctx, f.a.ID, order)
			p, err := settleFirm(ctx, f.db, unit, order, 0, c.amount, c.day, c.account)
			if c.err != nil {
				after, _ := f.db.SalesOrder(ctx, f.a.ID, order)
				if !errors.Is(err, c.err) || after.ChargeStatus != before.ChargeStatus {
					t.Fatalf("err %v (want %v); the order's charges went from %s to %s", err, c.err, before.ChargeStatus, after.ChargeStatus)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Settlement != c.kind || p.PaidAmount.String() != c.paid || p.OrderStatus != c.status || p.Via != store.PaidFirm ||
				p.IncomeToken.Valid != c.income || p.Reconciled != c.concil || p.OrderToken != order {
				t.Fatalf("payment %+v", p)
			}
			if c.income {
				e, err := f.db.EntryByToken(ctx, f.a.ID, p.IncomeToken.String)
				if err != nil || e.Value.String() != c.paid || e.PayDay != c.day {
					t.Fatalf("income %+v %v", e, err)
				}
			}
		})
	}
}

// TestSettleByPublicToken: test mode's payer pays through the order's
// public token: an unknown token is not found, the open charge is settled
// once, and paid again there is nothing to pay.
func TestSettleByPublicToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newSettleFixture(t)
	order := f.order("80.00", nil)
	o, err := f.db.SalesOrder(ctx, f.a.ID, order)
	if err != nil || !o.PublicToken.Valid {
		t.Fatalf("the order's public token: %v %v", o.PublicToken, err)
	}
	pay := func(token string) (store.Payment, error) {
		var p store.Payment
		err := f.db.Write(ctx, func(tx *store.Tx) error {
			id, err := tx.OpenChargeOfPublicOrder(token, 0)
			if err != nil {
				return err
			}
			p, err = Settle(tx, id, store.Settle{Via: store.PaidSimulated})
			return err
		})
		return p, err
	}
	if _, err := pay("fcp_acme_nenhum"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown token: %v", err)
	}
	if p, err := pay(o.PublicToken.String); err != nil || p.PaidAmount.String() != "80.00" || p.Via != store.PaidSimulated || p.OrderStatus != "PAID" {
		t.Fatalf("paid: %+v %v", p, err)
	}
	if _, err := pay(o.PublicToken.String); !errors.Is(err, store.ErrNothingToPay) {
		t.Fatalf("paid again: %v", err)
	}
}

// TestSettlePix: a Pix the PSP confirmed settles the unit's open charge of
// its txid once: the same Pix again is store.ErrPixApplied, another Pix
// on the paid charge, or one for another unit, finds nothing to pay; the
// amount and day are the Pix's.
func TestSettlePix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newSettleFixture(t)
	// Due on 2026-11-10, paid on the 21st: 150.00, its 2% fine (3.00) and
	// eleven days of 1% a month (0.55), as the PSP added them.
	f.order("150.00", func(o *store.SalesOrderFields) { o.EstimatedPaymentDate = "2026-11-10" }, store.IssuedCharge{Ref: "psp:cobv:FC01", PixTxID: "FC01"})
	f.order("150.00", nil, store.IssuedCharge{Ref: "psp:cobv:FC02", PixTxID: "FC02"})
	for _, c := range []struct {
		name        string
		unit        int64
		txid, e2e   string
		amount, day string
		err         error
	}{
		{name: "another unit's", unit: f.b.ID, txid: "FC01", e2e: "E1", amount: "150.00", day: "2026-11-21", err: store.ErrNothingToPay},
		{name: "paid late with fine and interest", txid: "FC01", e2e: "E1", amount: "153.55", day: "2026-11-21"},
		{name: "the same Pix again", txid: "FC01", e2e: "E1", amount: "153.55", day: "2026-11-21", err: store.ErrPixApplied},
		{name: "another Pix on the paid charge", txid: "FC01", e2e: "E2", amount: "150.00", day: "2026-11-21", err: store.ErrNothingToPay},
		{name: "no such txid", txid: "FC99", e2e: "E3", amount: "150.00", day: "2026-11-21", err: store.ErrNothingToPay},
		{name: "the other charge", txid: "FC02", e2e: "E4", amount: "150.00", day: "2026-11-22"},
	} {
		unit := f.a.ID
		if c.unit != 0 {
			unit = c.unit
		}
		p, err := settlePix(ctx, f.db, unit, c.txid, c.e2e, money(c.amount), c.day)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%s: %v, want %v", c.name, err, c.err)
			}
			continue
		}
		if err != nil || p.PaidAmount.String() != money(c.amount).String() || p.Via != store.PaidPSP || p.OrderStatus != "PAID" {
			t.Errorf("%s: %+v %v", c.name, p, err)
		}
	}
}

// TestApplyReturn: a bank's return file of the unit's agreement settles,
// registers, refuses and writes off each line's charge by its our-number,
// as the bank says; a payment of a charge paid here, or dated after today
// or not at all, is reported and not settled; an our-number no charge has
// is reported; the same file twice changes nothing; another unit, without
// an agreement, is refused.
func TestApplyReturn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newSettleFixture(t)
	if _, err := f.db.SetAgreement(ctx, f.a.ID, store.Agreement{Provider: "provider_a", Bank: "341", Agency: "1234", Account: "56789", AccountDV: "0",
		Wallet: "109", NextOurNumber: 1}); err != nil {
		t.Fatal(err)
	}
	boleto := func(o *store.SalesOrderFields) { o.PaymentTypeToken, o.ProviderBank = f.boleto, "provider_a" }
	for range 5 {
		f.order("100.00", boleto) // our-numbers 1 to 5
	}
	events := []store.ReturnEvent{
		{Line: 1, OurNumber: 1, Event: "registered", Movement: "02"},
		{Line: 2, OurNumber: 2, Event: "rejected", Movement: "03", Reason: "CEP inválido"},
		{Line: 3, OurNumber: 3, Event: "paid", Movement: "06", Paid: money("101.50"), Fee: money("2.10"), Occurred: "2026-11-21", Credited: "2026-11-22"},
		{Line: 4, OurNumber: 3, Event: "paid", Movement: "06", Paid: money("101.50"), Occurred: "2026-11-21"},
		{Line: 5, OurNumber: 4, Event: "paid", Movement: "06", Paid: money("100.00"), Occurred: "2026-11-30"},
		{Line: 6, OurNumber: 4, Event: "paid", Movement: "06", Paid: money("100.00")},
		{Line: 7, OurNumber: 5, Event: "written_off", Movement: "09"},
		{Line: 8, OurNumber: 77, Event: "paid", Movement: "06", Paid: money("10.00"), Occurred: "2026-11-21"},
		{Line: 9, OurNumber: 1, Event: "other", Movement: "99"},
	}
	accept := func(store.Agreement) ([]store.ReturnEvent, error) { return events, nil }
	rep, err := applyReturn(ctx, f.db, f.a.ID, "provider_a", "sha-1", "RET.txt", accept)
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []string
	for _, l := range rep.Lines {
		outcomes = append(outcomes, l.Outcome)
	}
	want := "registered rejected paid already_paid not_settled not_settled written_off unknown_charge ignored"
	if got := strings.Join(outcomes, " "); got != want || len(rep.Payments) != 1 || rep.Duplicate {
		t.Fatalf("outcomes %s, want %s; %d payments", got, want, len(rep.Payments))
	}
	if p := rep.Payments[0]; !p.PaidAmount.Equal(money("101.50").Decimal) || p.Via != store.PaidReturn || p.OrderStatus != "PAID" {
		t.Fatalf("the payment %+v", p)
	}
	again, err := applyReturn(ctx, f.db, f.a.ID, "provider_a", "sha-1", "RET.txt", accept)
	if err != nil || !again.Duplicate || len(again.Payments) != 0 || len(again.Lines) != len(rep.Lines) {
		t.Fatalf("the same file again: %+v %v", again, err)
	}
	if _, err := applyReturn(ctx, f.db, f.b.ID, "provider_a", "sha-2", "RET.txt", accept); !errors.Is(err, store.ErrNoAgreement) {
		t.Fatalf("a unit without the agreement: %v", err)
	}
	refused := errors.New("another beneficiary")
	if _, err := applyReturn(ctx, f.db, f.a.ID, "provider_a", "sha-3", "RET.txt", func(store.Agreement) ([]store.ReturnEvent, error) { return nil, refused }); !errors.Is(err, refused) {
		t.Fatalf("a file the agreement refuses: %v", err)
	}
}

// TestStatementSettles: a statement line that paid a charge settles it
// through Settle: matched on import when its amount and account are the
// charge's, or paired by a person; the line of a charge paid before has
// nothing to settle and waits for a person.
func TestStatementSettles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newSettleFixture(t)
	a, err := f.db.SetAgreement(ctx, f.a.ID, store.Agreement{Provider: "provider_a", Bank: "341", Agency: "1234", Account: "56789", AccountDV: "0",
		Wallet: "109", NextOurNumber: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Due the day the statement's lines are posted: matched within the
	// rules' window.
	boleto := func(o *store.SalesOrderFields) {
		o.PaymentTypeToken, o.ProviderBank, o.EstimatedPaymentDate = f.boleto, "provider_a", "2026-11-21"
	}
	f.order("120.00", boleto)
	paired := f.order("75.00", boleto)
	rep, err := f.db.ImportStatement(ctx, f.a.ID, a.BankAccountToken, []store.StatementLineIn{
		{FITID: "1", Posted: "2026-11-21", Amount: money("120.00"), Memo: "PIX RECEBIDO CLIENTE SA"},
		{FITID: "2", Posted: "2026-11-21", Amount: money("75.50"), Memo: "TED CLIENTE SA"},
	}, Settle)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Matched != 1 || rep.Open != 1 || len(rep.Payments) != 1 || rep.Payments[0].Via != store.PaidStatement || rep.Payments[0].OrderStatus != "PAID" {
		t.Fatalf("import: %+v", rep)
	}
	// A person pairs the other line with the other order: refused for
	// another amount than the charge asks, paid with the difference
	// booked apart.
	rc := store.Reconciliation{LineToken: rep.Lines[1].Token, OrderToken: paired}
	if _, _, err := f.db.ReconcileStatementLine(ctx, f.a.ID, rc, Settle); !errors.Is(err, store.ErrAmountMismatch) {
		t.Fatalf("another amount: %v", err)
	}
	cats, err := f.db.Categories(ctx, f.a.ID, "in", "")
	if err != nil {
		t.Fatal(err)
	}
	rc.Difference = &store.Booking{CategoryToken: cats[0].Token}
	line, ps, err := f.db.ReconcileStatementLine(ctx, f.a.ID, rc, Settle)
	if err != nil || len(ps) != 1 || !ps[0].PaidAmount.Equal(money("75.00").Decimal) || ps[0].Settlement != store.SettlementExact || line.Status != "matched" {
		t.Fatalf("paired: %+v %+v %v", line, ps, err)
	}
	// Its charge paid, a line paired with that order again settles nothing.
	more, err := f.db.ImportStatement(ctx, f.a.ID, a.BankAccountToken, []store.StatementLineIn{{FITID: "3", Posted: "2026-11-22", Amount: money("75.00")}}, Settle)
	if err != nil || more.Open != 1 {
		t.Fatalf("a third line: %+v %v", more, err)
	}
	if _, _, err := f.db.ReconcileStatementLine(ctx, f.a.ID, store.Reconciliation{LineToken: more.Lines[0].Token, OrderToken: paired}, Settle); !errors.Is(err, store.ErrNothingToPay) {
		t.Fatalf("paired with a paid order: %v", err)
	}
}

// TestHeldPix: a Pix of another amount than its charge asks that day (a
// PIX with due date: with its fine and interest) settles nothing and is
// held, shown on the charge with the difference, until a person decides:
// kept towards the charge (only one of less), whose next Pix then owes
// the rest; accepted as the payment, as it came; a decided Pix, or
// another unit's, cannot be decided again.
func TestHeldPix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newSettleFixture(t)
	cob := f.order("100.00", nil, store.IssuedCharge{Ref: "psp:cob:FH01", PixTxID: "FH01"})
	late := f.order("150.00", func(o *store.SalesOrderFields) { o.EstimatedPaymentDate = "2026-11-10" }, store.IssuedCharge{Ref: "psp:cobv:FH02", PixTxID: "FH02"})
	over := f.order("100.00", nil, store.IssuedCharge{Ref: "psp:cob:FH03", PixTxID: "FH03"})
	s := &Service{Log: slog.New(slog.DiscardHandler)}
	charge := func(order string) store.Charge {
		t.Helper()
		cs, err := f.db.SalesOrderCharges(ctx, f.a.ID, order)
		if err != nil || len(cs) != 1 {
			t.Fatalf("charges: %v %v", cs, err)
		}
		return cs[0]
	}
	held := func(c store.Charge) string {
		var out []string
		for _, h := range c.HeldPix {
			out = append(out, h.EndToEndID+" "+h.Status+" "+h.Amount.StringFixed(2)+"/"+h.Asked.StringFixed(2)+" "+h.Difference.StringFixed(2)+" "+h.PaidDate)
		}
		return strings.Join(out, "; ")
	}
	for _, c := range []struct {
		name                  string
		order                 string
		pix                   string // txid e2e amount day, or a decision: unit e2e decision
		err                   error
		status, paid, showing string
	}{
		{name: "a cent for a hundred", order: cob, pix: "FH01 E01 0.01 2026-11-21", err: store.ErrPixHeld,
			status: "PENDING", showing: "E01 held 0.01/100.00 -99.99 2026-11-21"},
		{name: "the same Pix again", order: cob, pix: "FH01 E01 0.01 2026-11-21", err: store.ErrPixApplied,
			status: "PENDING", showing: "E01 held 0.01/100.00 -99.99 2026-11-21"},
		{name: "another unit decides", order: cob, pix: "b E01 keep", err: store.ErrNotFound,
			status: "PENDING", showing: "E01 held 0.01/100.00 -99.99 2026-11-21"},
		{name: "kept towards the charge", order: cob, pix: "a E01 keep",
			status: "PENDING", showing: "E01 kept 0.01/100.00 -99.99 2026-11-21"},
		{name: "decided already", order: cob, pix: "a E01 accept", err: store.ErrPixDecided,
			status: "PENDING", showing: "E01 kept 0.01/100.00 -99.99 2026-11-21"},
		{name: "the whole again is more than the rest", order: cob, pix: "FH01 E02 100.00 2026-11-22", err: store.ErrPixHeld,
			status: "PENDING", showing: "E01 kept 0.01/100.00 -99.99 2026-11-21; E02 held 100.00/99.99 0.01 2026-11-22"},
		{name: "the rest settles", order: cob, pix: "FH01 E03 99.99 2026-11-22",
			status: "PAID", paid: "100.00", showing: "E01 kept 0.01/100.00 -99.99 2026-11-21; E02 held 100.00/99.99 0.01 2026-11-22"},
		{name: "the late charge's amount without its fine and interest", order: late, pix: "FH02 E04 150.00 2026-11-21", err: store.ErrPixHeld,
			status: "OVERDUE", showing: "E04 held 150.00/153.55 -3.55 2026-11-21"},
		{name: "accepted as it came", order: late, pix: "a E04 accept",
			status: "PAID", paid: "150.00"},
		{name: "more than asked", order: over, pix: "FH03 E05 200.00 2026-11-22", err: store.ErrPixHeld,
			status: "PENDING", showing: "E05 held 200.00/100.00 100.00 2026-11-22"},
		{name: "more is not kept", order: over, pix: "a E05 keep", err: store.ErrPixKeepOver,
			status: "PENDING", showing: "E05 held 200.00/100.00 100.00 2026-11-22"},
		{name: "no such decision", order: over, pix: "a E05 forget", err: store.ErrInvalidValue,
			status: "PENDING", showing: "E05 held 200.00/100.00 100.00 2026-11-22"},
	} {
		w := strings.Fields(c.pix)
		var err error
		if len(w) == 4 {
			_, err = settlePix(ctx, f.db, f.a.ID, w[0], w[1], money(w[2]), w[3])
		} else {
			unit := f.a.ID
			if w[0] == "b" {
				unit = f.b.ID
			}
			err = s.DecidePix(ctx, f.db, unit, c.order, w[1], w[2], "")
		}
		if c.err == nil && err != nil || c.err != nil && !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
		ch := charge(c.order)
		if ch.Status != c.status && !(c.status == "OVERDUE" && ch.Status == "PENDING") || ch.PaidAmount.String != c.paid || held(ch) != c.showing {
			t.Errorf("%s: the charge is %s, paid %q, showing %q; want %s, %q, %q", c.name, ch.Status, ch.PaidAmount.String, held(ch), c.status, c.paid, c.showing)
		}
	}
}
