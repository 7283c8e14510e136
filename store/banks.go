package store

import "context"

// Bank is a bank of the catalogue as /get_banks returns it.
type Bank struct {
	CodeBank  string `json:"code_bank" doc:"The bank's COMPE code."`
	Name      string `json:"name" doc:"The bank's name."`
	Token     string `json:"token" format:"uuid" doc:"The bank's token."`
	GroupBank string `json:"group_bank" doc:"Its group: CB banks and credit cooperatives, AC payment institutions and credit companies, CV brokers and distributors."`
}

// BankType is a kind of bank account as /get_type_banks returns it.
type BankType struct {
	Token string `json:"token" format:"uuid" doc:"The account type's token."`
	Name  string `json:"name" doc:"The account type's name."`
	Key   string `json:"key" doc:"The account type's key."`
}

// Banks lists the catalogue's banks of a group by name.
func (db *DB) Banks(ctx context.Context, group string) ([]Bank, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT code, name, token, group_bank FROM banks WHERE group_bank = ? ORDER BY sort_key, code`, group)
	if err != nil {
		return nil, wrap("banks", err)
	}
	defer rows.Close()
	out := []Bank{}
	for rows.Next() {
		var b Bank
		if err := rows.Scan(&b.CodeBank, &b.Name, &b.Token, &b.GroupBank); err != nil {
			return nil, wrap("banks", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// BankTypes lists the kinds of bank account.
func (db *DB) BankTypes(ctx context.Context) ([]BankType, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT token, name, key FROM bank_types ORDER BY id`)
	if err != nil {
		return nil, wrap("bank types", err)
	}
	defer rows.Close()
	out := []BankType{}
	for rows.Next() {
		var b BankType
		if err := rows.Scan(&b.Token, &b.Name, &b.Key); err != nil {
			return nil, wrap("bank types", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}
