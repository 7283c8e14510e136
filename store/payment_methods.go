package store

import (
	"context"
	"database/sql"
	"errors"
)

// PaymentMethod is a way to pay as /list_payments_method returns it. Its
// token is the `payment_type` of a sales order's charge.
type PaymentMethod struct {
	Token      string `json:"token" format:"uuid" doc:"The payment method's token, sent as a sales order's payment_type."`
	Name       string `json:"name" doc:"Its name."`
	PaymentKey string `json:"payment_key" enum:"BOLETO,PIX,PIX_AUTOMATICO,CREDIT_CARD,DEBIT_CARD,TRANSFER,CASH" doc:"Its kind: BOLETO, PIX, PIX_AUTOMATICO, CREDIT_CARD, DEBIT_CARD, TRANSFER or CASH."`
}

// PaymentMethods lists the active payment methods.
func (db *DB) PaymentMethods(ctx context.Context) ([]PaymentMethod, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT token, name, payment_key FROM payment_methods WHERE active = 1 ORDER BY id`)
	if err != nil {
		return nil, wrap("payment methods", err)
	}
	defer rows.Close()
	out := []PaymentMethod{}
	for rows.Next() {
		var p PaymentMethod
		if err := rows.Scan(&p.Token, &p.Name, &p.PaymentKey); err != nil {
			return nil, wrap("payment methods", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PaymentKey answers the payment_key of an active payment method's token,
// "" when the token names none (the order's validation then says what is
// missing).
func (db *DB) PaymentKey(ctx context.Context, token string) (string, error) {
	if token == "" {
		return "", nil
	}
	var key string
	err := db.r.QueryRowContext(ctx, `SELECT payment_key FROM payment_methods WHERE token = ? AND active = 1`, token).Scan(&key)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return key, wrap("payment key", err)
}
