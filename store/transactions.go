package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// Transaction is an expense or income as POST /transactions returns it.
// Dates are YYYY-MM-DD; created_date is an ISO 8601 timestamp in São Paulo
// time; value is a decimal string; booleans are JSON booleans.
type Transaction struct {
	ID                string `json:"id"`
	IDUser            Text   `json:"id_user"`
	AccessKey         Text   `json:"access_key"`
	UserName          Text   `json:"user_name"`
	CompanyName       string `json:"company_name"`
	EntityName        Text   `json:"entity_name"`
	CreatedDate       string `json:"created_date"`
	Description       string `json:"description"`
	Barcode           Text   `json:"barcode"`
	DueDate           string `json:"due_date"`
	PayDay            Text   `json:"pay_day"`
	CompetenceDate    Text   `json:"competence_date"`
	Value             Money  `json:"value"`
	Type              string `json:"type"`
	Category          Text   `json:"category"`
	Note              Text   `json:"note"`
	Active            bool   `json:"active"`
	DataBank          Text   `json:"data_bank"`
	Private           bool   `json:"private"`
	IDTokenUnit       string `json:"id_token_unit"`
	ActionStatus      string `json:"action_status"`
	Status            string `json:"status"`
	NickNameBank      Text   `json:"nick_name_bank"`
	Wallet            Text   `json:"wallet"`
	ActiveRemittances bool   `json:"active_remittances"`
	IDOfx             Text   `json:"id_ofx"`
	ConciliationDate  Text   `json:"conciliation_date"`
	ContactName       Text   `json:"contact_name"`
	KeyMethodCredor   Text   `json:"key_method_credor"`
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
// active false.
func (db *DB) Transactions(ctx context.Context, unitIDs []int64, f TransactionFilter) ([]*Transaction, error) {
	where := []string{"e.unit_id IN (" + strings.TrimSuffix(strings.Repeat("?,", len(unitIDs)), ",") + ")", "e.due_date BETWEEN ? AND ?"}
	args := make([]any, 0, len(unitIDs)+4)
	for _, id := range unitIDs {
		args = append(args, id)
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
	rows, err := db.cachedQuery(ctx, nil, `
		SELECT e.token, us.token, e.access_key, us.name, un.name, COALESCE(c.social_reason, c.display_name), e.created_at,
			e.description, e.barcode, e.due_date, e.pay_day, e.competence_date, e.value, e.type, cat.name, e.note, e.active,
			c.data_bank, e.private, un.token, ba.nick_name, pm.payment_key, e.id_ofx, e.conciliation_date, c.display_name,
			e.key_method_credor
		FROM entries e
		JOIN units un ON un.id = e.unit_id
		LEFT JOIN users us ON us.id = e.user_id
		LEFT JOIN contacts c ON c.id = e.contact_id
		LEFT JOIN categories cat ON cat.id = e.category_id
		LEFT JOIN bank_accounts ba ON ba.id = e.bank_account_id
		LEFT JOIN payment_methods pm ON pm.id = e.payment_method_id
		WHERE `+strings.Join(where, " AND ")+`
		ORDER BY e.due_date, e.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	today := Today(db.now()).ISO()
	// Pointers, not values: a month is a thousand rows of 600 bytes, and
	// a growing slice of values copied them about four times over (most
	// of the listing's allocation).
	out := []*Transaction{}
	for rows.Next() {
		t := new(Transaction)
		var created string
		if err := rows.Scan(&t.ID, &t.IDUser, &t.AccessKey, &t.UserName, &t.CompanyName, &t.EntityName, &created,
			&t.Description, &t.Barcode, &t.DueDate, &t.PayDay, &t.CompetenceDate, &t.Value, &t.Type, &t.Category, &t.Note,
			&t.Active, &t.DataBank, &t.Private, &t.IDTokenUnit, &t.NickNameBank, &t.Wallet, &t.IDOfx, &t.ConciliationDate,
			&t.ContactName, &t.KeyMethodCredor); err != nil {
			return nil, err
		}
		t.CreatedDate = displayTimestamp(created)
		t.Status = entryStatus(t.Active, t.PayDay.NullString, t.DueDate, today)
		t.ActionStatus = actionStatus(t.Type, t.Status)
		out = append(out, t)
	}
	return out, rows.Err()
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
	return out, err
}
