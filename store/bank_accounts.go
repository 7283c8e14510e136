package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// BankAccountFields are a bank account's writable fields.
type BankAccountFields struct {
	BankToken          string
	BankTypeToken      string
	CodeBank           string // when set, must be the bank's COMPE code; not stored
	Agency             string
	DvAgencia          string
	CurrentAccount     string
	DvConta            string
	NickName           string
	Observation        string
	OpeningBalance     Number
	OpeningBalanceDate string // YYYY-MM-DD or empty
}

// BankAccount is a bank account as /get_bank_account returns it.
type BankAccount struct {
	Token              string  `json:"token" format:"uuid" doc:"The account's token."`
	IDTokenBank        string  `json:"id_token_bank" doc:"The bank's token (/get_banks)."`
	CodeBank           string  `json:"code_bank" doc:"The bank's COMPE code."`
	BankName           string  `json:"bank_name" doc:"The bank's name."`
	IDTokenBankType    string  `json:"id_token_bank_type" doc:"The account type's token (/get_type_banks)."`
	BankType           string  `json:"bank_type" doc:"The account type's name."`
	Agency             Text    `json:"agency" doc:"The branch (agência); null when none."`
	DvAgencia          Text    `json:"dv_agencia" doc:"The branch's check digit; null when none."`
	CurrentAccount     Text    `json:"current_account" doc:"The account number; null when none."`
	DvConta            Text    `json:"dv_conta" doc:"The account's check digit; null when none."`
	NickName           Text    `json:"nick_name" doc:"The account's nickname; null when none."`
	Observation        Text    `json:"observation" doc:"Free notes; null when none."`
	OpeningBalance     Number  `json:"opening_balance" doc:"The balance on opening_balance_date."`
	OpeningBalanceDate *DateBR `json:"opening_balance_date" doc:"The day of the opening balance, DD/MM/YYYY; null when none."`
	// Balance is the opening balance plus the paid income less the paid
	// expenses of the account (active entries).
	Balance Money `json:"balance" doc:"The opening balance plus the paid income less the paid expenses of the account (active entries)."`
	Active  bool  `json:"active" doc:"false once disabled (/disable_bank_account)."`
}

func bankAccountRefs(ctx context.Context, tx *sql.Tx, f BankAccountFields) (bankID, typeID int64, err error) {
	err = tx.QueryRowContext(ctx, `SELECT b.id, t.id FROM banks b, bank_types t
		WHERE b.token = ? AND t.token = ? AND (? = '' OR b.code = ?)`,
		f.BankToken, f.BankTypeToken, f.CodeBank, f.CodeBank).Scan(&bankID, &typeID)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrInvalidReference
	}
	return bankID, typeID, err
}

func (f BankAccountFields) values() []any {
	date := sql.NullString{String: f.OpeningBalanceDate, Valid: f.OpeningBalanceDate != ""}
	return []any{nullString(f.Agency), nullString(f.DvAgencia), nullString(f.CurrentAccount), nullString(f.DvConta),
		nullString(f.NickName), nullString(f.Observation), f.OpeningBalance, date}
}

// InsertBankAccount creates an active account. An unknown bank or bank type,
// or a code_bank that is not the bank's, is ErrInvalidReference.
func (db *DB) InsertBankAccount(ctx context.Context, unitID int64, f BankAccountFields) (string, error) {
	token := db.newToken(ctx)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		bankID, typeID, err := bankAccountRefs(ctx, tx, f)
		if err != nil {
			return err
		}
		args := append([]any{token, unitID, bankID, typeID}, f.values()...)
		_, err = tx.ExecContext(ctx, `
			INSERT INTO bank_accounts (token, unit_id, bank_id, bank_type_id, agency, dv_agencia, current_account, dv_conta,
				nick_name, observation, opening_balance, opening_balance_date, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append(args, timestamp(now), timestamp(now))...)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("insert bank account: %w", err)
	}
	return token, nil
}

// UpdateBankAccount reads, changes (apply) and writes an account of the unit
// in one transaction.
func (db *DB) UpdateBankAccount(ctx context.Context, unitID int64, token string, apply func(*BankAccountFields) error) error {
	return wrap("update bank account", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var f BankAccountFields
		var t [6]sql.NullString
		var date sql.NullString
		err := tx.QueryRowContext(ctx, `
			SELECT b.token, bt.token, a.agency, a.dv_agencia, a.current_account, a.dv_conta, a.nick_name, a.observation,
				a.opening_balance, a.opening_balance_date
			FROM bank_accounts a JOIN banks b ON b.id = a.bank_id JOIN bank_types bt ON bt.id = a.bank_type_id
			WHERE a.unit_id = ? AND a.token = ?`, unitID, token).
			Scan(&f.BankToken, &f.BankTypeToken, &t[0], &t[1], &t[2], &t[3], &t[4], &t[5], &f.OpeningBalance, &date)
		if err != nil {
			return notFound(err)
		}
		f.Agency, f.DvAgencia, f.CurrentAccount, f.DvConta, f.NickName, f.Observation =
			t[0].String, t[1].String, t[2].String, t[3].String, t[4].String, t[5].String
		f.OpeningBalanceDate = date.String
		if err := apply(&f); err != nil {
			return err
		}
		bankID, typeID, err := bankAccountRefs(ctx, tx, f)
		if err != nil {
			return err
		}
		args := append([]any{bankID, typeID}, f.values()...)
		_, err = tx.ExecContext(ctx, `
			UPDATE bank_accounts SET bank_id = ?, bank_type_id = ?, agency = ?, dv_agencia = ?, current_account = ?,
				dv_conta = ?, nick_name = ?, observation = ?, opening_balance = ?, opening_balance_date = ?, updated_at = ?
			WHERE unit_id = ? AND token = ?`, append(args, timestamp(now), unitID, token)...)
		return err
	}))
}

// SetBankAccountActive enables or disables an account of the unit.
func (db *DB) SetBankAccountActive(ctx context.Context, unitID int64, token string, active bool) error {
	return db.setActive(ctx, "bank_accounts", unitID, token, active)
}

const bankAccountSelect = `
	SELECT a.token, b.token, b.code, b.name, bt.token, bt.name, a.agency, a.dv_agencia, a.current_account, a.dv_conta,
		a.nick_name, a.observation, a.opening_balance, a.opening_balance_date, a.active,
		(SELECT COALESCE(SUM(CASE e.type WHEN 'in' THEN e.value_cents ELSE -e.value_cents END), 0)
			FROM entries e WHERE e.bank_account_id = a.id AND e.pay_day IS NOT NULL AND e.active = 1)
	FROM bank_accounts a JOIN banks b ON b.id = a.bank_id JOIN bank_types bt ON bt.id = a.bank_type_id`

func scanBankAccount(s scanner) (BankAccount, error) {
	var a BankAccount
	var date sql.NullString
	var moved int64
	err := s.Scan(&a.Token, &a.IDTokenBank, &a.CodeBank, &a.BankName, &a.IDTokenBankType, &a.BankType, &a.Agency,
		&a.DvAgencia, &a.CurrentAccount, &a.DvConta, &a.NickName, &a.Observation, &a.OpeningBalance, &date, &a.Active, &moved)
	a.Balance = Money{a.OpeningBalance.Add(cents(moved).Decimal)}
	if err == nil && date.Valid {
		a.OpeningBalanceDate = &DateBR{}
		err = a.OpeningBalanceDate.Scan(date.String)
	}
	return a, err
}

// BankAccount returns one account of the unit, active or not.
func (db *DB) BankAccount(ctx context.Context, unitID int64, token string) (BankAccount, error) {
	a, err := scanBankAccount(db.r.QueryRowContext(ctx, bankAccountSelect+` WHERE a.unit_id = ? AND a.token = ?`, unitID, token))
	return a, wrap("bank account", notFound(err))
}

// BankAccounts lists the unit's accounts with the given active flag by nick
// name.
func (db *DB) BankAccounts(ctx context.Context, unitID int64, active bool) ([]BankAccount, error) {
	rows, err := db.r.QueryContext(ctx, bankAccountSelect+` WHERE a.unit_id = ? AND a.active = ? ORDER BY a.nick_name, a.id`, unitID, boolInt(active))
	if err != nil {
		return nil, wrap("bank accounts", err)
	}
	defer rows.Close()
	out := []BankAccount{}
	for rows.Next() {
		a, err := scanBankAccount(rows)
		if err != nil {
			return nil, wrap("bank accounts", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
