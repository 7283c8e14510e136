// Package billing issues an order's charges through its collection
// provider, tells the customer (charge, reminder, overdue and payment
// e-mails) and settles confirmed payments with their effects. It knows
// nothing of HTTP; the server's routes, the scheduler (contract billing,
// reminders) and test mode's simulated payer call it alike.
package billing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/shopspring/decimal"

	"fincom/render"
	"fincom/render/pix"
	"fincom/server/bank"
	"fincom/server/brdoc"
	"fincom/server/invoicing"
	"fincom/server/problem"
	"fincom/server/provider"
	"fincom/server/psp"
	"fincom/server/psp/apipix"
	"fincom/store"
)

// Refusals of IssueCharges and Resend besides the store's (ErrNotFound for
// an unknown order, ErrOrderDisabled, ErrNoChargeToResend).
var (
	ErrUnknownProvider = problem.New(problem.Unprocessable, "Unknown collection provider.")
	// ErrProviderRefused: the provider will not issue the charge; the
	// installment may be charged again once the order is fixed.
	ErrProviderRefused = problem.New(problem.Unprocessable, "The collection provider refused the charge.")
	// ErrProviderDown: the provider did not answer; the charge stays
	// ISSUING and a retry asks with the same idempotency key.
	ErrProviderDown = problem.New(problem.Unavailable, "The collection provider did not answer. Try again: the charge will not be issued twice.")
	// ErrProviderAnswer: the provider answered, with an error of its own
	// or an answer outside its protocol; its status and reason go in
	// details (answerDetails). Only a timeout or a refused connection is
	// ErrProviderDown.
	ErrProviderAnswer = problem.New(problem.Unavailable, "The collection provider answered something fincom cannot accept: see details. Try again: the charge will not be issued twice.")
	ErrNoChargeEmail  = problem.New(problem.Invalid, "The sales order has no notify_email_charge.")
)

// Service issues and settles charges.
type Service struct {
	Providers map[string]provider.Provider
	Render    *render.Renderer
	Links     render.Links
	// Invoices issues the invoice a payment makes due (generateNFWebhook).
	Invoices *invoicing.Service
	Log      *slog.Logger
	// PSPs are the units' PSP connections: a PIX charge of a unit with one
	// is created at its PSP. Nil: none is used.
	PSPs *PSPs
	// SimulatedBanks gives a unit without an agreement the sample one,
	// simulated (test mode and demo only): a production server issues
	// boletos only by the agreements the operator set.
	SimulatedBanks bool
}

// Close stops test mode's local PSPs and authorities, if any.
func (s *Service) Close() error {
	var err error
	if s.PSPs != nil && s.PSPs.Rehearsal != nil {
		err = s.PSPs.Rehearsal.Close()
	}
	if s.Invoices != nil {
		err = errors.Join(err, s.Invoices.Close())
	}
	return err
}

// NoAgreementError is a charge through a provider the unit has no
// agreement with: the operator sets one (fincom unit agreement).
type NoAgreementError struct{ Provider string }

func (e *NoAgreementError) Error() string {
	return "the unit has no agreement with " + e.Provider + "'s bank"
}

// Unwrap is store.ErrNoAgreement, the refusal the API answers.
func (e *NoAgreementError) Unwrap() error { return store.ErrNoAgreement }

// samples are the sample agreements in the store's terms.
func samples() map[string]store.Agreement {
	out := map[string]store.Agreement{}
	for p, a := range bank.Samples() {
		out[p] = store.Agreement{Provider: p, Bank: a.Bank, Agency: a.Agency, AgencyDV: a.AgencyDV, Account: a.Account,
			AccountDV: a.AccountDV, Wallet: a.Wallet, Code: a.Code}
	}
	return out
}

// BankAgreement is a stored agreement in the bank's terms, with the
// unit's name and CNPJ.
func BankAgreement(a store.Agreement, name, cnpj string) bank.Agreement {
	return bank.Agreement{Provider: a.Provider, Bank: a.Bank, Agency: a.Agency, AgencyDV: a.AgencyDV, Account: a.Account,
		AccountDV: a.AccountDV, Wallet: a.Wallet, Code: a.Code, Variation: a.Variation, Name: name, CNPJ: cnpj}
}

// MailData is what an e-mail says of an order's charge.
func (s *Service) MailData(seller, customer, code, description, publicToken string, c store.Charge) render.MailData {
	return render.MailData{Seller: seller, Customer: customer, OrderCode: code, Description: description,
		Amount: render.BRL(c.Amount.String()), DueDate: render.DateBR(c.DueDate), PaymentURL: s.Links.Payment(publicToken)}
}

// IssueCharges issues an order's charges through its provider: one per
// installment, each asked with an idempotency key, outside any database
// transaction. A retry (after a timeout, or a crash between the
// provider's answer and the write) asks again with the same key and gets
// the same charge: an installment is never charged twice. An order whose
// charges are issued is left as it is.
func (s *Service) IssueCharges(ctx context.Context, db *store.DB, unitID int64, orderToken string) error {
	var sample map[string]store.Agreement
	if s.SimulatedBanks {
		sample = samples()
	}
	plan, err := db.PrepareCharges(ctx, unitID, orderToken, sample)
	if errors.Is(err, store.ErrNoAgreement) {
		o, oerr := db.SalesOrder(ctx, unitID, orderToken)
		if oerr != nil {
			return err
		}
		return &NoAgreementError{Provider: o.ChargeConfig.ProviderBank.String}
	}
	if err != nil {
		return err
	}
	order, err := db.SalesOrder(ctx, unitID, orderToken)
	if err != nil {
		return err
	}
	city := "BRASIL"
	if m, ok := brdoc.LookupIBGE(plan.UnitCityIBGE); ok {
		city = m.Name
	}
	// refused cancels what was prepared: a refused charge is no charge.
	refused := func(cause error) error {
		if cerr := db.CancelCharges(ctx, unitID, orderToken); cerr != nil && !errors.Is(cerr, store.ErrNothingToCancel) {
			return errors.Join(cause, fmt.Errorf("cancel the refused charges: %w", cerr))
		}
		return cause
	}
	for _, c := range plan.Charges {
		if c.Status != store.ChargeIssuing {
			continue
		}
		p, ok := s.Providers[c.Provider]
		if !ok {
			return refused(ErrUnknownProvider)
		}
		due, _ := store.ParseDateISO(c.DueDate)
		card := 1
		if c.CardInstallments != nil {
			card = *c.CardInstallments
		}
		req := provider.Request{IdempotencyKey: c.IdempotencyKey(), PaymentKey: c.PaymentKey,
			Amount: c.Amount.Decimal, DueDate: due.Time, PixKey: c.PixKey(), MerchantName: plan.UnitName, MerchantCity: city,
			CardInstallments: card}
		if a, ok := plan.Agreements[c.Provider]; ok {
			ba := BankAgreement(a, plan.UnitName, plan.UnitCNPJ)
			req.Agreement, req.Simulated = &ba, a.Simulated
			req.OurNumber, _ = strconv.ParseInt(c.OurNumber.String, 10, 64)
		}
		issued, viaPSP, err := s.issueAtUnitPSP(ctx, db, unitID, orderToken, order.CodOrders, c, due.Time, plan.UnitName, city)
		var problem *psp.Problem
		switch {
		case errors.Is(err, store.ErrNotFound):
			return err
		case errors.As(err, &problem) && problem.Status < 500, errors.Is(err, apipix.ErrMessage), errors.Is(err, ErrRecurrenceReceiver):
			return refused(fmt.Errorf("%w: %v", ErrProviderRefused, err))
		case pspAnswered(err):
			s.Log.Warn("PSP answer refused", "err", err)
			return ErrProviderAnswer.With(answerDetails(err))
		case err != nil:
			s.Log.Warn("PSP call failed", "err", err)
			return fmt.Errorf("%w: %v", ErrProviderDown, err)
		}
		if !viaPSP {
			issued, err = p.Issue(ctx, req)
		}
		if errors.Is(err, provider.ErrRefused) {
			return refused(fmt.Errorf("%w: %v", ErrProviderRefused, err))
		}
		if err != nil {
			s.Log.Warn("provider call failed", "provider", p.Name(), "err", err)
			return fmt.Errorf("%w: %v", ErrProviderDown, err)
		}
		// A provider's answer is input like any other: a PIX charge whose
		// code is no valid BR Code would be shown to a payer whose bank
		// refuses it (TestProviderAnswersChecked).
		if issued.PixPayload != "" && !pix.Valid(issued.PixPayload) {
			s.Log.Warn("provider answered an invalid BR Code", "provider", p.Name())
			return ErrProviderAnswer.With(map[string]any{"status": 0, "detail": "the provider's PIX code is not a valid BR Code"})
		}
		notice, err := s.Render.Notice("charge_created", order.NotifyEmailCharge.String, "charge_created:"+c.Token,
			s.MailData(order.UnitName, order.ContactName.String, order.CodOrders, order.Description, plan.PublicToken, c))
		if err != nil {
			return err
		}
		if notice != nil {
			if notice.Attachments, err = s.orderPDFAttachment(ctx, db, unitID, orderToken, c, issued); err != nil {
				return err
			}
		}
		done := store.IssuedCharge{Ref: issued.Ref, BoletoLine: issued.BoletoLine,
			BoletoBarcode: issued.BoletoBarcode, PixPayload: issued.PixPayload, PixTxID: issued.PixTxID}
		if c.PaymentKey == "BOLETO" && c.Provider == "" {
			// A boleto of no collection provider is the firm's own to
			// print: the charge says so, rather than showing no line
			// for no reason.
			done.RegistrationReason = ManualBoleto
		}
		if err := db.CompleteCharge(ctx, c.Token, done, notice); err != nil {
			return err
		}
	}
	return nil
}

// ManualBoleto is why a boleto of no collection provider has no line: the
// charge's registration_reason.
const ManualBoleto = "No collection provider (provider_bank null): the firm prints this boleto itself; fincom has no line or our-number of it."

// Resend e-mails the order's open charge again to notify_email_charge
// (through the outbox).
func (s *Service) Resend(ctx context.Context, db *store.DB, unitID int64, orderToken string) error {
	order, err := db.SalesOrder(ctx, unitID, orderToken)
	if err != nil {
		return err
	}
	if order.NotifyEmailCharge.String == "" {
		return ErrNoChargeEmail
	}
	today := store.Today(db.Now())
	c, err := db.OrderReminderCandidate(ctx, unitID, orderToken, today)
	if err != nil {
		return err
	}
	// The same reminder the schedule sends, with what the charge asks
	// today.
	_, err = s.remind(ctx, db, c, nil, today)
	return err
}

// Pay is a payer's payment as the party that received it confirms it
// (test mode's simulated payer): the order's open charge (or the given
// installment) becomes PAID for amount (nil: the charge's amount), with
// its effects (income entry with in_automation, reconciliation with
// conciliation), the payment e-mail, and the invoice when the payment
// makes it due (generateNFWebhook; incomplete fiscal data leaves the
// order's nf_status_text saying it is due, and the payment stands).
func (s *Service) Pay(ctx context.Context, db *store.DB, publicToken string, installment int, amount *store.Money) (store.Payment, error) {
	ps, err := s.ApplyPayments(ctx, db, func() ([]store.Payment, error) {
		var p store.Payment
		err := db.Write(ctx, func(tx *store.Tx) error {
			id, err := tx.OpenChargeOfPublicOrder(publicToken, installment)
			if err != nil {
				return err
			}
			p, err = Settle(tx, id, store.Settle{Amount: amount, Via: store.PaidSimulated})
			return err
		})
		return []store.Payment{p}, err
	})
	if err != nil {
		return store.Payment{}, err
	}
	return ps[0], nil
}

// LateAmount is what a late payer pays under the usual terms of Brazilian
// boletos: a 2% fine and 1% a month of interest, pro rata by day
// (lateParts).
func LateAmount(amount decimal.Decimal, due, paid store.Date) decimal.Decimal {
	fine, interest := lateParts(amount, int(paid.Sub(due.Time).Hours()/24), finePercent, interestMonthly)
	return amount.Add(fine).Add(interest)
}

// lateParts are the fine and interest of an amount paid days after its
// due date, each in whole cents: the fine (fine percent) once from the
// day after, the interest simple, monthly percent a month of 30 days, by
// calendar day on the amount (R$ 1.000,00 ten days late at 2 % and 1 %:
// 20,00 and 3,33).
func lateParts(amount decimal.Decimal, days int, fine, monthly decimal.Decimal) (decimal.Decimal, decimal.Decimal) {
	if days <= 0 {
		return decimal.Zero, decimal.Zero
	}
	hundred := decimal.NewFromInt(100)
	return amount.Mul(fine).Div(hundred).Round(2), amount.Mul(monthly).Div(hundred).Mul(decimal.NewFromInt(int64(days))).Div(decimal.NewFromInt(30)).Round(2)
}

// OverdueAlert renders the alert of a charge that became overdue, for the
// order's notify_email_alert.
func (s *Service) OverdueAlert(c store.NoticeCandidate) (*store.Notice, error) {
	return s.candidateNotice("charge_overdue", c)
}

func (s *Service) candidateNotice(kind string, c store.NoticeCandidate) (*store.Notice, error) {
	return s.Render.Notice(kind, c.Email, "", render.MailData{Seller: c.Seller, Customer: c.Customer, OrderCode: c.OrderCode,
		Description: c.Description, Amount: render.BRL(c.Amount.String()), DueDate: render.DateBR(c.Due),
		PaymentURL: s.Links.Payment(c.PublicToken), Days: c.Days})
}
