package api

import (
	"net/http"
	"strings"

	"fincom/server/web"
	"fincom/store"
)

// bankAccounts handles the routes of bank accounts (routes.go).
type bankAccounts struct{ *API }

var (
	errBankAccountNotFound       = web.NewError(http.StatusNotFound, "Bank account not found or not updated")
	errBankAccountNoFieldsUpdate = web.NewError(http.StatusBadRequest, web.TextNoFieldsToUpdate)
	errInvalidDateBR             = web.NewError(http.StatusBadRequest, "Invalid opening_balance_date. Use DD/MM/YYYY.")
)

// bankAccountRequest is the body of /insert_bank_account and
// /update_bank_account (spec, Bank account). Optional fields may be omitted
// or null.
type bankAccountRequest struct {
	IDToken            string        `json:"id_token" alias:"token" doc:"The bank account's token (an update's)."`
	IDTokenBank        *string       `json:"id_token_bank" max:"short"`
	IDTokenBankType    *string       `json:"id_token_bank_type" max:"short"`
	Agency             *string       `json:"agency" max:"20" doc:"The branch number (agência), without its check digit."`
	CurrentAccount     *string       `json:"current_account" max:"30" doc:"The account number, without its check digit."`
	Observation        *string       `json:"observation" text:"multiline" max:"long" doc:"Free notes about the account (several lines)."`
	CodeBank           *string       `json:"code_bank" doc:"The bank's three-digit COMPE code, instead of id_token_bank."`
	DvAgencia          *string       `json:"dv_agencia" max:"2" doc:"The branch's check digit."`
	DvConta            *string       `json:"dv_conta" max:"2" doc:"The account's check digit."`
	NickName           *string       `json:"nick_name" max:"short" doc:"The name the account is shown by (BB Principal)."`
	OpeningBalance     *store.Number `json:"opening_balance" doc:"The balance on opening_balance_date, as a decimal."`
	OpeningBalanceDate *string       `json:"opening_balance_date" doc:"The day of the opening balance, DD/MM/YYYY."`
}

func (q *bankAccountRequest) fieldCount() int {
	return web.Sent(q.IDTokenBank, q.IDTokenBankType, q.Agency, q.CurrentAccount, q.Observation, q.CodeBank, q.DvAgencia,
		q.DvConta, q.NickName, q.OpeningBalance, q.OpeningBalanceDate)
}

func (q *bankAccountRequest) Apply(f *store.BankAccountFields) error {
	for _, t := range []struct {
		dst, src *string
	}{
		{&f.BankToken, q.IDTokenBank}, {&f.BankTypeToken, q.IDTokenBankType},
		{&f.Agency, q.Agency}, {&f.DvAgencia, q.DvAgencia}, {&f.CurrentAccount, q.CurrentAccount},
		{&f.DvConta, q.DvConta}, {&f.NickName, q.NickName}, {&f.Observation, q.Observation},
	} {
		web.SetText(t.dst, t.src)
	}
	if q.CodeBank != nil {
		// COMPE codes have three digits; "1" means "001".
		if c := strings.TrimSpace(*q.CodeBank); c != "" {
			if len(c) < 3 {
				c = strings.Repeat("0", 3-len(c)) + c
			}
			f.CodeBank = c
		}
	}
	if q.OpeningBalance != nil {
		f.OpeningBalance = *q.OpeningBalance
	}
	if q.OpeningBalanceDate != nil {
		f.OpeningBalanceDate = ""
		if v := strings.TrimSpace(*q.OpeningBalanceDate); v != "" {
			d, err := store.ParseDateBR(v)
			if err != nil {
				return errInvalidDateBR
			}
			f.OpeningBalanceDate = d.ISO()
		}
	}
	if f.BankToken == "" || f.BankTypeToken == "" {
		return web.ErrMissing
	}
	return nil
}

// insertBankAccount creates an active account in one transaction.
func (s bankAccounts) insertBankAccount(r *web.Request, q *bankAccountRequest) (any, error) {
	var f store.BankAccountFields
	if err := q.Apply(&f); err != nil {
		return nil, err
	}
	token, err := r.DB.InsertBankAccount(r.Ctx, r.Unit.ID, f)
	if err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Bank account created successfully.", Token: token}, nil
}

// tokenData is the data of /update_bank_account's answer.
type tokenData struct {
	Token string `json:"token" format:"uuid" doc:"The new record's token."`
}

// updateBankAccount changes the sent fields of an account in one
// transaction; it answers {success, message, data: {token}} (spec).
func (s bankAccounts) updateBankAccount(r *web.Request, q *bankAccountRequest) (any, error) {
	if q.fieldCount() == 0 {
		return nil, errBankAccountNoFieldsUpdate
	}
	if err := r.DB.UpdateBankAccount(r.Ctx, r.Unit.ID, q.IDToken, q.Apply); err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Bank account updated successfully.", Data: tokenData{q.IDToken}}, nil
}

// getBankAccountRequest is the body of /get_bank_account.
type getBankAccountRequest struct {
	IDToken string `json:"id_token" alias:"token" doc:"One account's token; absent: all of the unit's."`
	Active  *bool  `json:"active" doc:"true or false: only accounts in that state; absent: all."`
}

// getBankAccount answers one account ({data: {...}}) when `id_token` is
// sent, else the unit's accounts ({data: [...]}), active ones unless
// `active` is false.
func (s bankAccounts) getBankAccount(r *web.Request, q *getBankAccountRequest) (any, error) {
	if q.IDToken != "" {
		return r.DB.BankAccount(r.Ctx, r.Unit.ID, q.IDToken)
	}
	return r.DB.BankAccounts(r.Ctx, r.Unit.ID, q.Active == nil || *q.Active)
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docInsertBankAccount = "Creates an active bank account in one transaction (spec): `id_token_bank`, `id_token_bank_type` " +
		"required; `agency`, `dv_agencia`, `current_account`, `dv_conta`, `code_bank` (when sent, the bank's " +
		"COMPE code), `nick_name`, `observation`, `opening_balance` (a number), `opening_balance_date` " +
		"(`DD/MM/YYYY`). Unknown bank or type tokens answer 403 `Invalid data`."
	docUpdateBankAccount = "Changes the sent fields of an account (`id_token`) in one transaction; answers `{success, message, " +
		"data: {token}}` (spec). 400 `Missing required parameters`, `No fields provided to update`; 404 " +
		"`Bank account not found or not updated`."
	docGetBankAccount = "With `id_token`, that account (active or not); without, the unit's active accounts (`active: false` " +
		"lists the disabled ones). `balance` is the opening balance plus paid income minus paid expenses " +
		"(active entries)."
	docSetBankAccountActive = "Enables or disables a bank account (`id_token`); idempotent."
)
