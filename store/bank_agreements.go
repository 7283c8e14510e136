package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"fincom/server/problem"
)

// Agreement is a unit's collection agreement with a bank, by provider
// (provider_a, provider_b, provider_c). Its fields are checked by the
// bank's rules before they reach the store (package bank).
type Agreement struct {
	ID                         int64
	UnitID                     int64
	Provider, Bank             string
	Agency, AgencyDV           string
	Account, AccountDV, Wallet string
	Code, Variation            string
	NextOurNumber              int64
	RemittanceSeq              int
	BankAccountToken           string
	Simulated                  bool
	// FinePercent and InterestPercent are the late terms its boletos
	// state: a fine once, simple interest a month (2 and 1 unless set);
	// SetAgreement writes them when TermsSet, else keeps them.
	FinePercent, InterestPercent Decimal
	TermsSet                     bool
}

// Errors of agreements.
var (
	// ErrNoAgreement: a charge through a provider the unit has no
	// (production) agreement with.
	ErrNoAgreement = problem.New(problem.Unprocessable, "The unit has no agreement with this provider's bank: boletos it issued would be registered with no bank. The operator sets one with: fincom unit agreement DOMAIN UNIT_TOKEN --provider PROVIDER --agency AGENCY --account ACCOUNT-DIGIT --wallet WALLET.")
	// ErrOurNumberUsed: a next our-number at or below one already issued.
	ErrOurNumberUsed = errors.New("our-numbers up to this one are already used")
)

const agreementSelect = `SELECT a.id, a.unit_id, a.provider, a.bank, a.agency, a.agency_dv, a.account, a.account_dv, a.wallet, a.code,
	a.next_our_number, a.remittance_seq, COALESCE(ba.token, ''), a.simulated, a.fine_percent, a.interest_percent,
	a.variation FROM bank_agreements a LEFT JOIN bank_accounts ba ON ba.id = a.bank_account_id`

func scanAgreement(s scanner) (Agreement, error) {
	var a Agreement
	err := s.Scan(&a.ID, &a.UnitID, &a.Provider, &a.Bank, &a.Agency, &a.AgencyDV, &a.Account, &a.AccountDV, &a.Wallet, &a.Code,
		&a.NextOurNumber, &a.RemittanceSeq, &a.BankAccountToken, &a.Simulated, &a.FinePercent, &a.InterestPercent,
		&a.Variation)
	return a, err
}

func agreementFor(ctx context.Context, tx *sql.Tx, unitID int64, provider string) (Agreement, error) {
	return scanAgreement(tx.QueryRowContext(ctx, agreementSelect+` WHERE a.unit_id = ? AND a.provider = ?`, unitID, provider))
}

// terms is a late term to write: NULL unless TermsSet.
func (a Agreement) terms(d Decimal) sql.NullString {
	return sql.NullString{String: d.String(), Valid: a.TermsSet}
}

// AgreementOpenBoletos counts the open boletos issued under an agreement.
func (db *DB) AgreementOpenBoletos(ctx context.Context, agreementID int64) (int, error) {
	var n int
	err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM charges WHERE agreement_id = ? AND status IN ('ISSUING', 'PENDING', 'OVERDUE')`,
		agreementID).Scan(&n)
	return n, wrap("agreement open boletos", err)
}

// Agreement answers the unit's agreement for a provider (ErrNotFound).
func (db *DB) Agreement(ctx context.Context, unitID int64, provider string) (Agreement, error) {
	a, err := scanAgreement(db.r.QueryRowContext(ctx, agreementSelect+` WHERE a.unit_id = ? AND a.provider = ?`, unitID, provider))
	return a, wrap("agreement", notFound(err))
}

// Agreements lists the unit's agreements, by provider.
func (db *DB) Agreements(ctx context.Context, unitID int64) ([]Agreement, error) {
	rows, err := db.r.QueryContext(ctx, agreementSelect+` WHERE a.unit_id = ? ORDER BY a.provider`, unitID)
	if err != nil {
		return nil, wrap("agreements", err)
	}
	defer rows.Close()
	var out []Agreement
	for rows.Next() {
		a, err := scanAgreement(rows)
		if err != nil {
			return nil, wrap("agreements", err)
		}
		out = append(out, a)
	}
	return out, wrap("agreements", rows.Err())
}

// SetAgreement creates or replaces the unit's agreement for a.Provider
// (a production one replaces a simulated one). Its bank account, which
// its payments are credited to, is a.BankAccountToken when given, else the
// unit's account at that bank, agency and account, opened when the unit
// has none. The our-number sequence only moves forward: a NextOurNumber
// at or below one already issued is ErrOurNumberUsed; 0 keeps it.
func (db *DB) SetAgreement(ctx context.Context, unitID int64, a Agreement) (Agreement, error) {
	var out Agreement
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		accountID, err := agreementAccount(ctx, tx, db, unitID, a, now)
		if err != nil {
			return err
		}
		old, err := agreementFor(ctx, tx, unitID, a.Provider)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if a.NextOurNumber == 0 {
				a.NextOurNumber = 1
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO bank_agreements (unit_id, provider, bank, agency, agency_dv, account, account_dv, wallet,
				code, next_our_number, bank_account_id, simulated, created_at, updated_at, fine_percent, interest_percent, variation)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, COALESCE(?, '2'), COALESCE(?, '1'), ?)`,
				unitID, a.Provider, a.Bank, a.Agency, a.AgencyDV, a.Account, a.AccountDV, a.Wallet, a.Code, a.NextOurNumber, accountID,
				a.Simulated, timestamp(now), timestamp(now), a.terms(a.FinePercent), a.terms(a.InterestPercent), a.Variation)
		case err != nil:
			return err
		default:
			var used sql.NullInt64
			if err := tx.QueryRowContext(ctx, `SELECT MAX(CAST(our_number AS INTEGER)) FROM charges WHERE agreement_id = ?`, old.ID).Scan(&used); err != nil {
				return err
			}
			next := a.NextOurNumber
			if next == 0 {
				next = max(old.NextOurNumber, used.Int64+1)
			}
			if next <= used.Int64 {
				return fmt.Errorf("%w (%d)", ErrOurNumberUsed, used.Int64)
			}
			_, err = tx.ExecContext(ctx, `UPDATE bank_agreements SET bank = ?, agency = ?, agency_dv = ?, account = ?, account_dv = ?, wallet = ?,
				code = ?, next_our_number = ?, bank_account_id = ?, simulated = ?, updated_at = ?, fine_percent = COALESCE(?, fine_percent),
				interest_percent = COALESCE(?, interest_percent), variation = ? WHERE id = ?`,
				a.Bank, a.Agency, a.AgencyDV, a.Account, a.AccountDV, a.Wallet, a.Code, next, accountID, a.Simulated, timestamp(now),
				a.terms(a.FinePercent), a.terms(a.InterestPercent), a.Variation, old.ID)
		}
		if err != nil {
			return err
		}
		out, err = agreementFor(ctx, tx, unitID, a.Provider)
		return err
	})
	return out, wrap("set agreement", err)
}

// agreementAccount finds (or opens) the unit's account the agreement's
// payments are credited to.
func agreementAccount(ctx context.Context, tx *sql.Tx, db *DB, unitID int64, a Agreement, now time.Time) (int64, error) {
	var bankID, id int64
	var bankName string
	if a.BankAccountToken != "" {
		err := tx.QueryRowContext(ctx, `SELECT id FROM bank_accounts WHERE unit_id = ? AND token = ?`, unitID, a.BankAccountToken).Scan(&id)
		return id, notFound(err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT id, name FROM banks WHERE code = ?`, a.Bank).Scan(&bankID, &bankName); err != nil {
		return 0, fmt.Errorf("bank %s: %w", a.Bank, notFound(err))
	}
	err := tx.QueryRowContext(ctx, `SELECT id FROM bank_accounts WHERE unit_id = ? AND bank_id = ? AND active = 1
		AND ltrim(agency, '0') = ltrim(?, '0') AND ltrim(current_account, '0') = ltrim(?, '0') ORDER BY id LIMIT 1`,
		unitID, bankID, a.Agency, a.Account).Scan(&id)
	if err == nil || !errors.Is(err, sql.ErrNoRows) {
		return id, err
	}
	var typeID int64
	if err := tx.QueryRowContext(ctx, `SELECT id FROM bank_types WHERE key = 'CHECKING'`).Scan(&typeID); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO bank_accounts (token, unit_id, bank_id, bank_type_id, agency, dv_agencia, current_account,
		dv_conta, nick_name, observation, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		db.id(), unitID, bankID, typeID, a.Agency, nullString(a.AgencyDV), a.Account, nullString(a.AccountDV),
		firstRunes("Cobrança "+bankName, 60), "Conta do convênio de cobrança", timestamp(now), timestamp(now))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// takeOurNumber gives a new boleto charge the agreement's next our-number.
func takeOurNumber(ctx context.Context, tx *sql.Tx, a Agreement, chargeToken string) error {
	var n int64
	if err := tx.QueryRowContext(ctx, `UPDATE bank_agreements SET next_our_number = next_our_number + 1 WHERE id = ?
		RETURNING next_our_number - 1`, a.ID).Scan(&n); err != nil {
		return err
	}
	reg := "pending"
	if a.Simulated {
		reg = "simulated"
	}
	_, err := tx.ExecContext(ctx, `UPDATE charges SET agreement_id = ?, our_number = ?, registration = ? WHERE token = ?`,
		a.ID, strconv.FormatInt(n, 10), reg, chargeToken)
	return err
}
