package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Transaction is an expense or income as POST /transactions returns it.
// Dates are YYYY-MM-DD; created_date is an ISO 8601 timestamp in São Paulo
// time; value is a decimal string; booleans are JSON booleans.
type Transaction struct {
	ID                string `json:"id" doc:"The entry's token."`
	IDUser            Text   `json:"id_user" doc:"The token of the user who recorded the entry; null when recorded by a token of no user."`
	AccessKey         Text   `json:"access_key" pattern:"^[0-9]{44}$" doc:"The 44-digit access key of the NF-e the entry refers to; null when none."`
	UserName          Text   `json:"user_name" doc:"The name of the user who recorded the entry; null when none."`
	CompanyName       string `json:"company_name" doc:"The unit's name."`
	EntityName        Text   `json:"entity_name" doc:"The counterparty: the contact's company name, else its name; null without a contact."`
	CreatedDate       string `json:"created_date" format:"date-time" doc:"When the entry was recorded, ISO 8601 in São Paulo time."`
	Description       string `json:"description" doc:"What the entry is for."`
	Barcode           Text   `json:"barcode" doc:"The boleto's bar code or line, as digits; null when none."`
	DueDate           string `json:"due_date" format:"date" doc:"The day it is due, YYYY-MM-DD."`
	PayDay            Text   `json:"pay_day" format:"date" doc:"The day it was paid, YYYY-MM-DD; null unpaid."`
	CompetenceDate    Text   `json:"competence_date" format:"date" doc:"The month it belongs to in the books (accrual), YYYY-MM-DD; null when not given."`
	Value             Money  `json:"value" doc:"The entry's amount, positive for both types."`
	Type              string `json:"type" enum:"in,out" doc:"in for an income (receivable), out for an expense (payable)."`
	Category          Text   `json:"category" doc:"The category's name; null without one."`
	Note              Text   `json:"note" doc:"Free notes; null when none."`
	Active            bool   `json:"active" doc:"false for a cancelled (disabled) entry, which is listed too."`
	DataBank          Text   `json:"data_bank" doc:"The contact's bank details, as free text; null when none."`
	Private           bool   `json:"private" doc:"The entry's private mark, as sent (the listing shows it like any other)."`
	IDTokenUnit       string `json:"id_token_unit" doc:"The unit's token."`
	ActionStatus      string `json:"action_status" enum:"to_pay,to_receive,paid,received,cancelled" doc:"What the entry asks: to_pay, to_receive, or nothing more (paid, received, cancelled)."`
	Status            string `json:"status" enum:"open,paid,overdue,cancelled" doc:"open, paid, overdue (open past its due date) or cancelled."`
	NickNameBank      Text   `json:"nick_name_bank" doc:"The nickname of the bank account it is paid from or into; null when none."`
	Wallet            Text   `json:"wallet" doc:"The payment method's key (BOLETO, PIX, …); null when none."`
	ActiveRemittances bool   `json:"active_remittances" doc:"Always false in fincom: its CNAB remittances carry sales orders' charges, not entries (the spec's field, kept for its clients)."`
	IDOfx             Text   `json:"id_ofx" doc:"The bank statement line (OFX FITID) the entry was reconciled with; null before."`
	ConciliationDate  Text   `json:"conciliation_date" doc:"The posting day of the bank statement line the entry was reconciled with, YYYY-MM-DD; null before."`
	ContactName       Text   `json:"contact_name" doc:"The contact's name; null without a contact."`
	KeyMethodCredor   Text   `json:"key_method_credor" doc:"The creditor's PIX key or payment details, as sent; null when none."`
}

// TransactionFilter narrows POST /transactions. From and To are inclusive
// due dates (YYYY-MM-DD).
type TransactionFilter struct {
	From, To  string
	Type      string // in, out or "" for both
	UserToken string
}

// Transactions lists the entries of the units (all of this domain) due in
// the period, ordered by due date. Cancelled entries are included with
// active false. The units' names and tokens come from the caller, which
// has resolved them: joining units again cost a seek and two text columns
// per row.
func (db *DB) Transactions(ctx context.Context, units []Unit, f TransactionFilter) Listing[*Transaction] {
	byID := make(map[int64]*Unit, len(units))
	where := []string{"e.unit_id IN (" + strings.TrimSuffix(strings.Repeat("?,", len(units)), ",") + ")", "e.due_date BETWEEN ? AND ?"}
	args := make([]any, 0, len(units)+4)
	for i := range units {
		byID[units[i].ID] = &units[i]
		args = append(args, units[i].ID)
	}
	args = append(args, f.From, f.To)
	if f.Type != "" {
		where = append(where, "e.type = ?")
		args = append(args, f.Type)
	}
	if f.UserToken != "" {
		where = append(where, "e.user_id = (SELECT id FROM users WHERE token = ?)")
		args = append(args, f.UserToken)
	}
	query := `
		SELECT e.token, us.token, e.access_key, us.name, e.unit_id, COALESCE(c.social_reason, c.display_name), e.created_at,
			e.description, e.barcode, e.due_date, e.pay_day, e.competence_date, e.value, e.type, cat.name, e.note, e.active,
			c.data_bank, e.private, ba.nick_name, pm.payment_key, e.id_ofx, e.conciliation_date, c.display_name,
			e.key_method_credor
		FROM entries e
		LEFT JOIN users us ON us.id = e.user_id
		LEFT JOIN contacts c ON c.id = e.contact_id
		LEFT JOIN categories cat ON cat.id = e.category_id
		LEFT JOIN bank_accounts ba ON ba.id = e.bank_account_id
		LEFT JOIN payment_methods pm ON pm.id = e.payment_method_id
		WHERE ` + strings.Join(where, " AND ") + `
		ORDER BY e.due_date, e.id`
	return Listing[*Transaction]{func(yield func(*Transaction) error) error {
		rows, err := db.cachedQuery(ctx, nil, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		today := Today(db.now()).ISO()
		shown := memo{}
		for rows.Next() {
			// A new value per row: the JSON writer may still hold the
			// last ones.
			t := new(Transaction)
			var created string
			var unitID int64
			if err := rows.Scan(&t.ID, &t.IDUser, &t.AccessKey, &t.UserName, &unitID, &t.EntityName, &created,
				&t.Description, &t.Barcode, &t.DueDate, &t.PayDay, &t.CompetenceDate, &t.Value, &t.Type, &t.Category, &t.Note,
				&t.Active, &t.DataBank, &t.Private, &t.NickNameBank, &t.Wallet, &t.IDOfx, &t.ConciliationDate,
				&t.ContactName, &t.KeyMethodCredor); err != nil {
				return err
			}
			u := byID[unitID]
			if u == nil {
				return fmt.Errorf("entry %s: unit %d was not asked for", t.ID, unitID)
			}
			t.CompanyName, t.IDTokenUnit = u.Name, u.Token
			t.CreatedDate = shown.get(created, displayTimestamp)
			t.Status = entryStatus(t.Active, t.PayDay.NullString, t.DueDate, today)
			t.ActionStatus = actionStatus(t.Type, t.Status)
			if err := yield(t); err != nil {
				return err
			}
		}
		return rows.Err()
	}}
}

// displayTimestamp turns a stored UTC timestamp into ISO 8601 in São Paulo
// time, e.g. 2026-11-22T09:00:00-03:00.
func displayTimestamp(stored string) string {
	t, err := time.Parse(time.RFC3339, stored)
	if err != nil {
		return stored
	}
	return t.In(saoPaulo).Format(time.RFC3339)
}

// UnitsByTokens resolves unit tokens of this domain; any unknown token is
// ErrUnitNotFound.
func (db *DB) UnitsByTokens(ctx context.Context, tokens []string) ([]Unit, error) {
	out := make([]Unit, 0, len(tokens))
	err := db.read(ctx, func(tx *sql.Tx) error {
		for _, tok := range tokens {
			u, err := unitByToken(ctx, tx, tok)
			if err != nil {
				return err
			}
			out = append(out, u)
		}
		return nil
	})
	return out, wrap("units by tokens", err)
}
