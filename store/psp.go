package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

// UnitPSP is a unit's connection to its PSP, its secrets sealed.
type UnitPSP struct {
	BaseURL      string `json:"base_url"`
	TokenURL     string `json:"token_url"`
	ClientID     string `json:"client_id"`
	SecretSealed []byte `json:"-"`
	Cert         []byte `json:"-"` // DER
	KeySealed    []byte `json:"-"`
	PixKey       string `json:"pix_key"`
	// WebhookSecret is the secret path part of the unit's webhook address.
	WebhookSecret string `json:"-"`
	UpdatedAt     string `json:"updated_at"`
}

// SetUnitPSP connects a unit to its PSP, or replaces its connection.
func (db *DB) SetUnitPSP(ctx context.Context, unitID int64, p UnitPSP) error {
	return wrap("set unit psp", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		// The webhook's secret stays the unit's across reconnections.
		_, err := tx.ExecContext(ctx, `INSERT INTO unit_psp (unit_id, base_url, token_url, client_id, secret_sealed, cert, key_sealed, pix_key,
			webhook_secret, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (unit_id) DO UPDATE SET base_url = excluded.base_url, token_url = excluded.token_url,
			client_id = excluded.client_id, secret_sealed = excluded.secret_sealed, cert = excluded.cert, key_sealed = excluded.key_sealed,
			pix_key = excluded.pix_key, updated_at = excluded.updated_at`,
			unitID, p.BaseURL, p.TokenURL, p.ClientID, p.SecretSealed, p.Cert, p.KeySealed, p.PixKey, webhookPrefix+db.Name+"_"+db.secret(16), timestamp(now))
		return err
	}))
}

// UnitPSP reads a unit's PSP connection: ErrNotFound when it has none.
func (db *DB) UnitPSP(ctx context.Context, unitID int64) (UnitPSP, error) {
	var p UnitPSP
	err := db.r.QueryRowContext(ctx, `SELECT base_url, token_url, client_id, secret_sealed, cert, key_sealed, pix_key, webhook_secret, updated_at
		FROM unit_psp WHERE unit_id = ?`, unitID).Scan(&p.BaseURL, &p.TokenURL, &p.ClientID, &p.SecretSealed, &p.Cert, &p.KeySealed, &p.PixKey,
		&p.WebhookSecret, &p.UpdatedAt)
	return p, wrap("unit psp", notFound(err))
}

// RemoveUnitPSP disconnects a unit from its PSP: ErrNotFound when it had
// none.
func (db *DB) RemoveUnitPSP(ctx context.Context, unitID int64) error {
	return wrap("remove unit psp", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM unit_psp WHERE unit_id = ?`, unitID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return ErrNotFound
		}
		return nil
	}))
}

// OrderPayer is the payer of the unit's order: its contact's name (legal
// name for a firm) and CPF or CNPJ.
func (db *DB) OrderPayer(ctx context.Context, unitID int64, orderToken string) (Payer, error) {
	p := Payer{HasContact: true}
	err := db.r.QueryRowContext(ctx, `SELECT o.cod_orders, COALESCE(NULLIF(c.social_reason, ''), NULLIF(c.full_name, ''), c.display_name), c.register
		FROM sales_orders o JOIN contacts c ON c.id = o.contact_id WHERE o.unit_id = ? AND o.token = ?`, unitID, orderToken).
		Scan(&p.Order, &p.Name, &p.Register)
	return p, wrap("order payer", notFound(err))
}

// PSPUnitByWebhook answers the unit whose webhook secret is secret:
// ErrNotFound when none.
func (db *DB) PSPUnitByWebhook(ctx context.Context, secret string) (int64, error) {
	var id int64
	err := db.r.QueryRowContext(ctx, `SELECT unit_id FROM unit_psp WHERE webhook_secret = ?`, secret).Scan(&id)
	return id, wrap("psp unit by webhook", notFound(err))
}

// OpenPSPCharges lists the provider references of the unit's open
// charges created at its PSP.
func (db *DB) OpenPSPCharges(ctx context.Context, unitID int64) ([]string, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT c.provider_ref FROM charges c JOIN sales_orders o ON o.id = c.order_id
		WHERE o.unit_id = ? AND c.status IN ('PENDING', 'OVERDUE') AND c.provider_ref LIKE 'psp:%' ORDER BY c.id`, unitID)
	if err != nil {
		return nil, wrap("open psp charges", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, wrap("open psp charges", err)
		}
		out = append(out, t)
	}
	return out, wrap("open psp charges", rows.Err())
}

// ErrPixApplied is a Pix already applied (by its end-to-end id).
var ErrPixApplied = errors.New("the Pix was applied already")

// PSPCharge is an open charge created at a PSP: its provider reference
// and amount.
type PSPCharge struct {
	Ref    string
	Amount Money
}

// OpenPSPChargesOfDomain lists the open charges of every unit of the
// domain created at a PSP.
func (db *DB) OpenPSPChargesOfDomain(ctx context.Context) ([]PSPCharge, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT provider_ref, amount FROM charges WHERE status IN ('PENDING', 'OVERDUE') AND provider_ref LIKE 'psp:%' ORDER BY id`)
	if err != nil {
		return nil, wrap("open psp charges", err)
	}
	defer rows.Close()
	var out []PSPCharge
	for rows.Next() {
		var c PSPCharge
		if err := rows.Scan(&c.Ref, &c.Amount); err != nil {
			return nil, wrap("open psp charges", err)
		}
		out = append(out, c)
	}
	return out, wrap("open psp charges", rows.Err())
}

// PixReceived is a Pix a PSP confirmed and fincom applied.
type PixReceived struct {
	EndToEndID, Txid, PaidAt string
	Amount                   Money
}

// PixReceivedOfDomain lists the Pix applied to the domain's charges.
func (db *DB) PixReceivedOfDomain(ctx context.Context) ([]PixReceived, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT p.end_to_end_id, c.pix_txid, p.amount, p.paid_at FROM psp_payments p JOIN charges c ON c.id = p.charge_id
		ORDER BY p.created_at, p.end_to_end_id`)
	if err != nil {
		return nil, wrap("pix received", err)
	}
	defer rows.Close()
	var out []PixReceived
	for rows.Next() {
		var p PixReceived
		if err := rows.Scan(&p.EndToEndID, &p.Txid, &p.Amount, &p.PaidAt); err != nil {
			return nil, wrap("pix received", err)
		}
		out = append(out, p)
	}
	return out, wrap("pix received", rows.Err())
}

// PSPUnit is a unit connected to its PSP, with its webhook's secret.
type PSPUnit struct {
	UnitID        int64
	WebhookSecret string
}

// PSPUnits lists the domain's units connected to a PSP.
func (db *DB) PSPUnits(ctx context.Context) ([]PSPUnit, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT unit_id, webhook_secret FROM unit_psp ORDER BY unit_id`)
	if err != nil {
		return nil, wrap("psp units", err)
	}
	defer rows.Close()
	var out []PSPUnit
	for rows.Next() {
		var u PSPUnit
		if err := rows.Scan(&u.UnitID, &u.WebhookSecret); err != nil {
			return nil, wrap("psp units", err)
		}
		out = append(out, u)
	}
	return out, wrap("psp units", rows.Err())
}

// WebhookDomain is the domain a PSP webhook's secret names.
func WebhookDomain(secret string) (string, bool) {
	if !strings.HasPrefix(secret, webhookPrefix) {
		return "", false
	}
	return TokenDomain(secret)
}
