package billing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/bank"
	"fincom/server/problem"
	"fincom/server/statement"
	"fincom/store"
)

// ErrUnknownBank is a provider that is none of the banks'.
var ErrUnknownBank = problem.New(problem.Invalid, "Unknown provider: use provider_a, provider_b or provider_c.")

// The late-payment terms a boleto or a PIX with due date carries unless
// its agreement states others: a 2% fine the day after the due date and
// 1% a month of interest, in percent (lateParts).
var (
	finePercent     = decimal.NewFromInt(2)
	interestMonthly = decimal.NewFromInt(1)
)

// termsOf are the late terms of a charge: its agreement's for a
// registered boleto, else the usual ones.
func termsOf(c store.ChargeDue) (fine, monthly decimal.Decimal) {
	if c.Registered && c.TermsSet {
		return c.FinePercent.Decimal, c.InterestPercent.Decimal
	}
	return finePercent, interestMonthly
}

// agreementTerms are an agreement's late terms.
func agreementTerms(a store.Agreement) (fine, monthly decimal.Decimal) {
	return a.FinePercent.Decimal, a.InterestPercent.Decimal
}

// agreementBank is the bank of the unit's agreement in the provider's
// slot (the slot's own bank when it has none yet: nothing to write, or a
// file of it to refuse); ErrUnknownBank for no slot.
func agreementBank(ctx context.Context, db *store.DB, unitID int64, provider string) (*bank.Bank, error) {
	code := ""
	if a, err := db.Agreement(ctx, unitID, provider); err == nil {
		code = a.Bank
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if _, ok := bank.ByProvider(provider); !ok {
		return nil, ErrUnknownBank
	}
	b, ok := bank.Of(code, provider)
	if !ok {
		return nil, ErrUnknownBank
	}
	return b, nil
}

// ExportRemittance writes the unit's next CNAB 240 remittance for the
// provider's bank (store.ErrNothingToRemit when nothing is to be sent).
func (s *Service) ExportRemittance(ctx context.Context, db *store.DB, unit store.Unit, provider string) (store.Remittance, error) {
	b, err := agreementBank(ctx, db, unit.ID, provider)
	if err != nil {
		return store.Remittance{}, err
	}
	// The files name the firm by its CNPJ in a numeric field: a unit
	// without one in digits has no agreement a bank would take (the
	// agreement command refuses it).
	if !bank.NumericCNPJ(unit.CNPJ) {
		return store.Remittance{}, store.ErrNoAgreement
	}
	return db.ExportRemittance(ctx, unit.ID, provider, func(a store.Agreement, seq int, created time.Time, titles []store.RemittanceTitle) ([]byte, error) {
		ba := BankAgreement(a, unit.Name, unit.CNPJ)
		rm := bank.Remittance{Agreement: ba, Sequence: seq, Created: created}
		fineRate, monthly := agreementTerms(a)
		for _, t := range titles {
			// The terms the agreement states, a day past the due date.
			fine := fineRate
			_, perDay := lateParts(t.Amount.Decimal, 1, fineRate, monthly)
			o, err := b.OurNumber(ba, t.OurNumber)
			if err != nil {
				return nil, err
			}
			due, _ := time.Parse(time.DateOnly, t.Due)
			issued, _ := time.Parse(time.DateOnly, t.Issued)
			rm.Titles = append(rm.Titles, bank.Title{Movement: t.Movement, Our: o, Document: fmt.Sprintf("%s/%d", t.OrderCode, t.Installment),
				Issued: issued, Due: due, Amount: t.Amount.Decimal, FinePercent: fine, InterestDay: perDay, FirmUse: t.ChargeToken,
				Payer: bank.Payer{Name: t.PayerName, Document: t.PayerDocument, Street: t.Street, District: t.District, Zip: t.Zip,
					City: t.City, State: t.State}})
		}
		data, err := b.Remittance(rm)
		if err != nil {
			return nil, err
		}
		// The file is read back as the bank reads it before it is kept:
		// each title, in order, with its movement and our-number, or the
		// file is not handed out (TestBankChannels exports one per bank).
		moves, ours := b.Remitted(data)
		if len(ours) != len(rm.Titles) {
			return nil, fmt.Errorf("remittance reads back %d titles, %d were written", len(ours), len(rm.Titles))
		}
		for i, t := range rm.Titles {
			if ours[i] != t.Our || moves[i] != t.Movement {
				return nil, fmt.Errorf("remittance title %d reads back as %s %v, written as %s %v", i+1, moves[i], ours[i], t.Movement, t.Our)
			}
		}
		return data, nil
	})
}

// ForeignReturnError is a return file whose header names another
// beneficiary than the unit's agreement: Fields are the header fields
// that differ. Nothing of it is applied.
type ForeignReturnError struct{ Fields []string }

func (e *ForeignReturnError) Error() string {
	return "the return file is of another beneficiary: its header's " + strings.Join(e.Fields, ", ") + " differ from the agreement's"
}

// slotOfReturn is the unit's provider slot a return file is of: the one
// whose agreement is with the bank the file names (its first three
// columns) and, of several with that bank, the one its header names.
// store.ErrNoAgreement when no slot's agreement is with that bank; a
// *bank.ParseError when the file names no bank fincom knows.
func slotOfReturn(ctx context.Context, db *store.DB, unit store.Unit, data []byte) (string, error) {
	code := string(data[:min(3, len(data))])
	b, ok := bank.ByCode(code)
	if !ok {
		return "", &bank.ParseError{Line: 1, Column: 1, Msg: fmt.Sprintf("bank %q: not a bank fincom collects through", code)}
	}
	var candidates []string
	var agreements []store.Agreement
	for _, slot := range bank.Slots() {
		a, err := db.Agreement(ctx, unit.ID, slot)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return "", err
		}
		if of, ok := bank.Of(a.Bank, slot); ok && of == b {
			candidates, agreements = append(candidates, slot), append(agreements, a)
		}
	}
	switch len(candidates) {
	case 0:
		return "", store.ErrNoAgreement
	case 1:
		return candidates[0], nil
	}
	// Several slots with that bank: the one the file's header names.
	r, err := b.ParseReturn(data)
	if err != nil {
		return candidates[0], nil
	}
	for i, a := range agreements {
		if len(b.Foreign(r, BankAgreement(a, unit.Name, unit.CNPJ))) == 0 {
			return candidates[i], nil
		}
	}
	return candidates[0], nil
}

// ImportReturn applies a bank's CNAB 240 return file of the unit's
// agreement in the provider's slot ("": the slot whose agreement is with
// the bank the file names) (a *bank.ParseError when it is malformed, a
// *ForeignReturnError when its header names another company, agency,
// account or agreement: nothing is applied) and issues the invoices its
// payments make due.
func (s *Service) ImportReturn(ctx context.Context, db *store.DB, unit store.Unit, provider, name string, data []byte) (store.ReturnReport, error) {
	if provider == "" {
		slot, err := slotOfReturn(ctx, db, unit, data)
		if err != nil {
			return store.ReturnReport{}, err
		}
		provider = slot
	}
	b, err := agreementBank(ctx, db, unit.ID, provider)
	if err != nil {
		return store.ReturnReport{}, err
	}
	r, err := b.ParseReturn(data)
	if err != nil {
		return store.ReturnReport{}, err
	}
	sum := sha256.Sum256(data)
	var rep store.ReturnReport
	rep.Payments, err = s.ApplyPayments(ctx, db, func() ([]store.Payment, error) {
		rep, err = applyReturn(ctx, db, unit.ID, provider, hex.EncodeToString(sum[:]), name, func(a store.Agreement) ([]store.ReturnEvent, error) {
			ba := BankAgreement(a, unit.Name, unit.CNPJ)
			if f := b.Foreign(r, ba); len(f) > 0 {
				return nil, &ForeignReturnError{Fields: f}
			}
			return returnEvents(b, ba, r), nil
		})
		return rep.Payments, err
	})
	return rep, err
}

// returnEvents are a return's events as the agreement's: each title by
// its sequence number (0, no charge, for an our-number not of the
// agreement's), the reasons of a refusal in words.
func returnEvents(b *bank.Bank, a bank.Agreement, r bank.Return) []store.ReturnEvent {
	var events []store.ReturnEvent
	for _, e := range r.Events {
		n, _ := b.Sequence(a, e.OurNumber)
		ev := store.ReturnEvent{Line: e.Line, Event: e.Event, Movement: e.Movement, MovementText: e.MovementText, OurNumber: n,
			Paid: store.Money{Decimal: e.Paid}, Fee: store.Money{Decimal: e.Fee}, Occurred: e.Occurred, Credited: e.Credited}
		for i, rs := range e.Reasons {
			if i > 0 {
				ev.Reason += "; "
			}
			ev.Reason += rs.Code + " " + rs.Text
		}
		events = append(events, ev)
	}
	return events
}

// SettleReceived records a payment the firm received outside fincom's channels,
// with a confirmed payment's effects.
func (s *Service) SettleReceived(ctx context.Context, db *store.DB, unitID int64, orderToken string, installment int, amount *store.Money, day, account string) (store.Payment, error) {
	ps, err := s.ApplyPayments(ctx, db, func() ([]store.Payment, error) {
		p, err := settleFirm(ctx, db, unitID, orderToken, installment, amount, day, account)
		return []store.Payment{p}, err
	})
	if err != nil {
		return store.Payment{}, err
	}
	return ps[0], nil
}

// ApplyPayments is the one way a payment is applied, whatever its channel
// (a bank return, a statement line, the firm's word, the unit's PSP, test
// mode's payer): record writes the channel's payments in one write, each
// charge settled by Settle (the amount, the day, the account, the income
// entry, its reconciliation, the invoice made due, the charge.paid
// webhook); then each payment
// is logged ("payment applied", with its channel), its e-mail goes to
// notify_email_charge (once per charge: its dedupe key) and the invoice it
// made due is issued. A failure of those two is logged, never
// the payment's: the money is received.
func (s *Service) ApplyPayments(ctx context.Context, db *store.DB, record func() ([]store.Payment, error)) ([]store.Payment, error) {
	ps, err := record()
	if err != nil {
		return ps, err
	}
	for i := range ps {
		// The operator's record of each payment and the channel that
		// confirmed it: a payment that never reached here is not logged.
		s.Log.Info("payment applied", "order", ps[i].OrderToken, "charge", ps[i].ChargeToken, "installment", ps[i].Installment,
			"amount", ps[i].PaidAmount.StringFixed(2), "settlement", ps[i].Settlement, "via", ps[i].Via)
		if ps[i].Part {
			continue
		}
		if err := s.paymentMail(ctx, db, ps[i]); err != nil {
			s.Log.Warn("payment e-mail not queued", "order", ps[i].OrderToken, "via", ps[i].Via, "err", err)
		}
		if !ps[i].InvoiceDue {
			continue
		}
		inv, err := s.Invoices.Issue(ctx, db, ps[i].UnitID, ps[i].OrderToken)
		if err != nil {
			s.Log.Warn("invoice after payment not issued", "order", ps[i].OrderToken, "via", ps[i].Via, "err", err)
			continue
		}
		ps[i].InvoiceToken = store.NewText(inv.Token)
	}
	return ps, nil
}

// ImportStatement imports the OFX statement of a bank account (a
// statement.ErrNotOFX error when the file is none; a
// *statement.OtherAccountError or statement.ErrCurrency when it holds no
// statement of this account in reais) and matches its lines, issuing the
// invoices the payments it settles make due.
func (s *Service) ImportStatement(ctx context.Context, db *store.DB, unitID int64, accountToken string, data []byte) (store.StatementReport, error) {
	sts, err := statement.Parse(data)
	if err != nil {
		return store.StatementReport{}, err
	}
	acct, err := db.BankAccount(ctx, unitID, accountToken)
	if errors.Is(err, store.ErrNotFound) {
		return store.StatementReport{}, store.ErrInvalidReference
	}
	if err != nil {
		return store.StatementReport{}, err
	}
	// Only the chosen account's statement, in reais, may settle its
	// charges: a file of another account or currency is refused whole.
	st, err := statement.Account{Bank: acct.CodeBank, Agency: acct.Agency.String, AgencyDV: acct.DvAgencia.String,
		Number: acct.CurrentAccount.String, NumberDV: acct.DvConta.String}.For(sts)
	if err != nil {
		return store.StatementReport{}, err
	}
	in := make([]store.StatementLineIn, 0, len(st.Lines))
	for _, l := range st.Lines {
		in = append(in, store.StatementLineIn{FITID: l.FITID, Posted: l.Posted, Amount: store.Money{Decimal: l.Amount}, Memo: l.Memo})
	}
	var rep store.StatementReport
	rep.Payments, err = s.ApplyPayments(ctx, db, func() ([]store.Payment, error) {
		rep, err = db.ImportStatement(ctx, unitID, accountToken, in, Settle)
		return rep.Payments, err
	})
	return rep, err
}

// Reconcile applies a person's decision on an open statement line.
func (s *Service) Reconcile(ctx context.Context, db *store.DB, unitID int64, r store.Reconciliation) (store.StatementLine, error) {
	var l store.StatementLine
	_, err := s.ApplyPayments(ctx, db, func() (ps []store.Payment, err error) {
		l, ps, err = db.ReconcileStatementLine(ctx, unitID, r, Settle)
		return ps, err
	})
	return l, err
}

// UndoReconciliation reopens a resolved statement line of the unit,
// undoing what reconciling it did, a charge's payment included
// (Unsettle).
func (s *Service) UndoReconciliation(ctx context.Context, db *store.DB, unitID int64, lineToken string) (store.StatementLine, error) {
	return db.UndoReconciliation(ctx, unitID, lineToken, Unsettle)
}

// paymentMail queues the payment confirmation of a payment.
func (s *Service) paymentMail(ctx context.Context, db *store.DB, p store.Payment) error {
	o, err := db.SalesOrder(ctx, p.UnitID, p.OrderToken)
	if err != nil || o.NotifyEmailCharge.String == "" {
		return err
	}
	all, err := db.SalesOrderCharges(ctx, p.UnitID, p.OrderToken)
	if err != nil {
		return err
	}
	for _, c := range all {
		if c.Token != p.ChargeToken {
			continue
		}
		c.Amount = p.PaidAmount
		n, err := s.Render.Notice("payment_confirmed", o.NotifyEmailCharge.String, "payment_confirmed:"+c.Token,
			s.MailData(o.UnitName, o.ContactName.String, o.CodOrders, o.Description, o.PublicToken.String, c))
		if err != nil || n == nil {
			return err
		}
		return db.QueueOrderNotice(ctx, p.UnitID, p.OrderToken, *n)
	}
	return nil
}
