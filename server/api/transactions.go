package api

import (
	"net/http"
	"time"

	"fincom/server/web"
	"fincom/store"
)

// transactions handles the routes of the transaction listing (routes.go).
type transactions struct{ *API }

var (
	errDateRange       = web.NewError(http.StatusBadRequest, "The interval between the dates must be at most 365 days.")
	errDateOrder       = web.NewError(http.StatusBadRequest, "The start date must not be after the end date.")
	errInvalidFromDate = web.NewError(http.StatusBadRequest, "Invalid from_date. Use YYYY-MM-DD.")
	errInvalidToDate   = web.NewError(http.StatusBadRequest, "Invalid to_date. Use YYYY-MM-DD.")
	errInvalidInitial  = web.NewError(http.StatusBadRequest, "Invalid initial_date. Use YYYY-MM-DD.")
	errInvalidFinal    = web.NewError(http.StatusBadRequest, "Invalid final_date. Use YYYY-MM-DD.")
)

// maxRangeDays is the spec's limit on a listing's interval (Limits).
const maxRangeDays = 365

// dateRange parses an optional interval with defaults, and checks order and
// length.
func dateRange(from, to string, defFrom, defTo store.Date, badFrom, badTo *web.Error) (store.Date, store.Date, error) {
	parse := func(s string, def store.Date, bad *web.Error) (store.Date, error) {
		if s == "" {
			return def, nil
		}
		d, err := store.ParseDateISO(s)
		if err != nil {
			return d, bad
		}
		return d, nil
	}
	f, err := parse(from, defFrom, badFrom)
	if err != nil {
		return f, f, err
	}
	t, err := parse(to, defTo, badTo)
	if err != nil {
		return f, t, err
	}
	if f.After(t.Time) {
		return f, t, errDateOrder
	}
	if t.Sub(f.Time) > maxRangeDays*24*time.Hour {
		return f, t, errDateRange
	}
	return f, t, nil
}

type transactionsRequest struct {
	FromDate  string `json:"from_date" format:"date" doc:"Entries due on or after this day (default: the first of the current month)."`
	ToDate    string `json:"to_date" format:"date" doc:"Entries due on or before this day (default: today); at most 365 days after from_date."`
	Type      string `json:"type" enum:"in,out" doc:"in (income) or out (expense); absent: both."`
	UserToken string `json:"user_token" doc:"Only entries recorded by this user."`
}

// transactions lists the expenses and income of one unit (unit_token) or
// of several units of the domain (unit_tokens), due between from_date
// (default: the first day of the current month) and to_date (default:
// today), at most 365 days apart, ordered by due date.
func (s transactions) transactions(r *web.Request, q *transactionsRequest) (any, error) {
	today := store.Today(r.DB.Now())
	from, to, err := dateRange(q.FromDate, q.ToDate, today.FirstOfMonth(), today, errInvalidFromDate, errInvalidToDate)
	if err != nil {
		return nil, err
	}
	return r.DB.Transactions(r.Ctx, r.Units, store.TransactionFilter{From: from.ISO(), To: to.ISO(), Type: q.Type, UserToken: q.UserToken}), nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docTransactions = "Lists expenses and income (spec: Transactions) of `unit_token`, or of `unit_tokens` (several units " +
		"of the access token's domain; any other answers 403 `Invalid data`), by due date. `from_date` " +
		"defaults to the first day of the current month, `to_date` to today; at most 365 days apart (400 " +
		"`The interval between the dates must be at most 365 days.`, `The start date must not be after the " +
		"end date.`, `Invalid from_date. Use YYYY-MM-DD.`). Optional `type` (`in`, `out`) and `user_token` " +
		"(entries recorded by one user). Cancelled entries are listed with `active: false`.\n\nFields: `id` " +
		"(entry token), `id_user`, `access_key`, `user_name`, `company_name` (the unit), `entity_name` (the " +
		"counterparty: the contact's company name, else its name), `created_date` (ISO 8601 in São Paulo " +
		"time), `description`, `barcode` (digits), `due_date`, `pay_day`, `competence_date` (`YYYY-MM-DD` or " +
		"null), `value` (decimal string), `type`, `category`, `note`, `active`, `data_bank`, `private`, " +
		"`id_token_unit`, `action_status` and `status` (as `/get_status` derives them), `nick_name_bank`, " +
		"`wallet` (the payment method's key), `active_remittances` (always false: fincom's CNAB remittances carry orders' charges, not " +
		"entries), `id_ofx` and `conciliation_date` (set by reconciliation), `contact_name`, " +
		"`key_method_credor`. Absent values are null."
)
