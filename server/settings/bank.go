package settings

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"fincom/server/bank"
	"fincom/server/problem"
	"fincom/store"
)

// The refusals of a bank agreement, beside their fields; the bank's own
// rule in the details.
var (
	ErrProvider      = problem.New(problem.Unprocessable, "use provider_a, provider_b or provider_c (the slots of the unit's bank agreements)")
	ErrAgency        = problem.New(problem.Unprocessable, "not an agency of this bank (its rule in details)")
	ErrAccount       = problem.New(problem.Unprocessable, "not an account of this bank, or its check digit is wrong (its rule in details)")
	ErrWallet        = problem.New(problem.Unprocessable, "not a wallet of this bank (its wallets in details)")
	ErrAgreementCode = problem.New(problem.Unprocessable, "not an agreement code of this bank (its rule in details)")
	ErrNextOurNumber = problem.New(problem.Unprocessable, "the next our-number is a number from 1 to the bank's largest, past the ones issued")
	ErrBankCNPJ      = problem.New(problem.Unprocessable, "a bank agreement needs the unit's CNPJ in digits (the beneficiary in the bank's files)")
	ErrLateTerms     = problem.New(problem.Unprocessable, "a late term is a percentage from 0 to 10 (the fine once; the interest a month)")
	ErrBank          = problem.New(problem.Unprocessable, "not a bank fincom registers boletos with: use 001 (Banco do Brasil), 033 (Santander), 104 (Caixa), 237 (Bradesco) or 341 (Itaú)")
	ErrVariation     = problem.New(problem.Unprocessable, "not a wallet variation of this bank (its rule in details)")
	ErrBankChange    = problem.New(problem.Conflict, "this slot's agreement has open boletos of its bank: settle or cancel them before putting another bank behind it")
	ErrCodeChange    = problem.New(problem.Conflict, "this agreement's open boletos have our-numbers made of its convênio: settle or cancel them before changing it")
	ErrBankAccount   = problem.New(problem.Unprocessable, "not a bank account of the unit")
)

// AgreementInput is a unit's collection agreement with a bank as typed:
// its provider slot, the agency and account each with its digit where
// the bank has one ("1234-5"), the wallet, the bank's agreement code,
// the next our-number ("" keeps the sequence) and the bank account its
// payments are credited to ("": the unit's account at that agency).
type AgreementInput struct {
	Provider, Agency, Account, Wallet, Code, NextOurNumber, BankAccount string
	// Bank is the COMPE code of the bank behind the slot ("": the slot's
	// own, or the one it has).
	Bank string
	// Variation is Banco do Brasil's wallet variation ("019"); the other
	// banks have none.
	Variation string
	// Simulated marks a sample agreement the demo sets: its boletos go to
	// the simulated bank, never to a real one.
	Simulated bool
	// FinePercent and InterestPercent are the late terms its boletos
	// state ("2", "1,5"; "" keeps them, 2 and 1 for a new agreement).
	FinePercent, InterestPercent string
}

// SetAgreement checks an agreement as its bank defines it and sets it as
// the unit's for the provider, as `fincom unit agreement` does.
func SetAgreement(ctx context.Context, db *store.DB, u store.Unit, in AgreementInput) (store.Agreement, error) {
	if _, ok := bank.ByProvider(in.Provider); !ok {
		return store.Agreement{}, refuse("provider", ErrProvider)
	}
	// Any bank behind any slot: the one asked, else the one the slot has,
	// else the slot's own.
	code := strings.TrimSpace(in.Bank)
	was, err := db.Agreement(ctx, u.ID, in.Provider)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.Agreement{}, err
	}
	if code == "" {
		code = was.Bank
	}
	b, ok := bank.Of(code, in.Provider)
	if !ok {
		return store.Agreement{}, refuse("bank", ErrBank)
	}
	if was.ID != 0 && was.Bank != "" && was.Bank != b.Code {
		open, err := db.AgreementOpenBoletos(ctx, was.ID)
		if err != nil {
			return store.Agreement{}, err
		}
		if open > 0 {
			return store.Agreement{}, refuse("bank", ErrBankChange)
		}
	}
	ag := bank.Agreement{Wallet: in.Wallet, Code: strings.TrimSpace(in.Code), Variation: strings.TrimSpace(in.Variation)}
	ag.Agency, ag.AgencyDV = bank.SplitDigit(in.Agency)
	ag.Account, ag.AccountDV = bank.SplitDigit(in.Account)
	if err := b.Check(&ag); err != nil {
		var fe *bank.FieldError
		if !errors.As(err, &fe) {
			return store.Agreement{}, err
		}
		p := map[string]*problem.Problem{"agency": ErrAgency, "account": ErrAccount, "wallet": ErrWallet, "agreement": ErrAgreementCode,
			"variation": ErrVariation}[fe.Field]
		if p == nil {
			return store.Agreement{}, err
		}
		return store.Agreement{}, refuse(fe.Field, p.With(b.Name+": "+fe.Reason))
	}
	var next int64
	if v := strings.TrimSpace(in.NextOurNumber); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || len(strconv.FormatInt(n, 10)) > b.SeqDigits(ag) {
			return store.Agreement{}, refuse("next-our-number", ErrNextOurNumber)
		}
		next = n
	}
	// Banco do Brasil makes the our-number of the convênio: the returns of
	// boletos issued under another would name no charge.
	if was.ID != 0 && was.Bank == b.Code && b.OurNumberOfCode() && was.Code != ag.Code {
		open, err := db.AgreementOpenBoletos(ctx, was.ID)
		if err != nil {
			return store.Agreement{}, err
		}
		if open > 0 {
			return store.Agreement{}, refuse("agreement", ErrCodeChange)
		}
	}
	// The bank's files name the beneficiary by CNPJ in a numeric field
	// (CNAB 240 header, columns 19-32): an agreement of a unit without
	// one, or with an alphanumeric one, would write files the bank
	// rejects (TestUnitAgreementAndCNAB).
	if !bank.NumericCNPJ(u.CNPJ) {
		return store.Agreement{}, refuse("agency", ErrBankCNPJ)
	}
	record := "agreement " + in.Provider + ": " + b.Name + " agency " + ag.Agency + " account " + ag.Account + "-" + ag.AccountDV + " wallet " + ag.Wallet
	if was.ID != 0 {
		record = "agreement " + in.Provider + ": agency " + was.Agency + " account " + was.Account + "-" + was.AccountDV + " wallet " + was.Wallet +
			" → " + strings.TrimPrefix(record, "agreement "+in.Provider+": "+b.Name+" ")
	}
	fine, interest, set, err := lateTerms(in.FinePercent, in.InterestPercent, was)
	if err != nil {
		return store.Agreement{}, err
	}
	if set {
		record += " late terms " + fine.String() + "% + " + interest.String() + "% a month"
	}
	store.SetAuditRecord(ctx, record)
	a, err := db.SetAgreement(ctx, u.ID, store.Agreement{FinePercent: store.Decimal{Decimal: fine}, InterestPercent: store.Decimal{Decimal: interest}, TermsSet: set,
		Provider: in.Provider, Bank: b.Code, Agency: ag.Agency, AgencyDV: ag.AgencyDV,
		Account: ag.Account, AccountDV: ag.AccountDV, Wallet: ag.Wallet, Code: ag.Code, Variation: ag.Variation, NextOurNumber: next,
		BankAccountToken: in.BankAccount, Simulated: in.Simulated})
	switch {
	case errors.Is(err, store.ErrNotFound) && in.BankAccount != "":
		return a, refuse("bank-account", ErrBankAccount)
	case errors.Is(err, store.ErrOurNumberUsed):
		return a, refuse("next-our-number", ErrNextOurNumber)
	}
	return a, err
}

// maxLateTerm bounds a late term, in percent.
var maxLateTerm = decimal.NewFromInt(10)

// lateTerms reads an agreement's late terms as typed ("2", "1,5"): each
// given replaces the one it had (2 and 1 for a new agreement); set false
// when none is given.
func lateTerms(fineText, interestText string, was store.Agreement) (fine, interest decimal.Decimal, set bool, err error) {
	fine, interest = decimal.NewFromInt(2), decimal.NewFromInt(1)
	if was.ID != 0 {
		fine, interest = was.FinePercent.Decimal, was.InterestPercent.Decimal
	}
	for _, t := range []struct {
		text, field string
		dst         *decimal.Decimal
	}{{fineText, "fine-percent", &fine}, {interestText, "interest-percent", &interest}} {
		v := strings.TrimSpace(t.text)
		if v == "" {
			continue
		}
		d, perr := decimal.NewFromString(strings.ReplaceAll(v, ",", "."))
		if perr != nil || d.IsNegative() || d.GreaterThan(maxLateTerm) || d.Exponent() < -4 {
			return fine, interest, false, refuse(t.field, ErrLateTerms)
		}
		*t.dst, set = d, true
	}
	return fine, interest, set, nil
}
