package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// PixRecurrence is a contract's Pix Automático recurrence at its unit's
// PSP.
type PixRecurrence struct {
	IDRec string `json:"id_rec" doc:"The recurrence's id at the PSP (idRec)."`
	// Status is the PSP's: CRIADA (waiting for the payer), APROVADA,
	// REJEITADA, EXPIRADA or CANCELADA.
	Status string `json:"status" enum:"CRIADA,APROVADA,REJEITADA,EXPIRADA,CANCELADA" doc:"The PSP's: CRIADA (waiting for the payer), APROVADA, REJEITADA, EXPIRADA or CANCELADA."`
	// Location is where the payer's app reads it (its QR Code's).
	Location string `json:"location" doc:"Where the payer's app reads it (its QR code's)."`
	// RequestID is the request sent to the payer's PSP, if one was.
	RequestID Text   `json:"request_id" doc:"The request sent to the payer's PSP; null when none."`
	Contract  string `json:"id_token_contract" format:"uuid" doc:"The contract it bills."`
	Created   string `json:"created_at" doc:"When it was created (RFC 3339)."`
}

// RecurrencePlan is what a contract's recurrence is asked for with: the
// contract, its order and payer, and the recurrence it has waiting or
// approved, if any.
type RecurrencePlan struct {
	ContractName, RecurrenceType, ValidityEnd string
	IsRecurring                               bool
	OrderToken, PaymentMode                   string
	Value                                     Money
	Payer                                     Payer
	Open                                      *PixRecurrence
}

const recurrenceSelect = `SELECT r.id_rec, r.status, r.location, r.request_id, k.token, r.created_at FROM pix_recurrences r JOIN contracts k ON k.id = r.contract_id`

func scanRecurrence(s scanner) (PixRecurrence, error) {
	var r PixRecurrence
	err := s.Scan(&r.IDRec, &r.Status, &r.Location, &r.RequestID, &r.Contract, &r.Created)
	return r, err
}

// ContractRecurrencePlan answers what the unit's active contract would
// ask its PSP for: ErrNotFound for no such contract, ErrNoPixAutomatico
// when its order is not PIX_AUTOMATICO.
func (db *DB) ContractRecurrencePlan(ctx context.Context, unitID int64, contractToken string) (RecurrencePlan, error) {
	var p RecurrencePlan
	err := db.read(ctx, func(tx *sql.Tx) error {
		var kid int64
		var mode, recType, end sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT k.id, k.contract_name, k.recurrence_type, k.validity_end, k.is_recurring, o.token, o.requested_payment_mode, o.value,
				COALESCE(NULLIF(c.social_reason, ''), NULLIF(c.full_name, ''), c.display_name), c.register
			FROM contracts k JOIN sales_orders o ON o.id = k.sales_order_id JOIN contacts c ON c.id = k.contact_id
			WHERE k.unit_id = ? AND k.token = ? AND k.active = 1`, unitID, contractToken).
			Scan(&kid, &p.ContractName, &recType, &end, &p.IsRecurring, &p.OrderToken, &mode, &p.Value, &p.Payer.Name, &p.Payer.Register)
		if err != nil {
			return notFound(err)
		}
		p.RecurrenceType, p.ValidityEnd, p.PaymentMode, p.Payer.HasContact = recType.String, end.String, mode.String, true
		if p.PaymentMode != "PIX_AUTOMATICO" {
			return ErrNoPixAutomatico
		}
		r, err := scanRecurrence(tx.QueryRowContext(ctx, recurrenceSelect+` WHERE r.contract_id = ? AND r.status IN ('CRIADA', 'APROVADA')
			ORDER BY r.created_at DESC LIMIT 1`, kid))
		if err == nil {
			p.Open = &r
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return nil
	})
	return p, wrap("contract recurrence plan", err)
}

// Recurrence answers one recurrence of the unit's contracts.
func (db *DB) Recurrence(ctx context.Context, unitID int64, idRec string) (PixRecurrence, error) {
	r, err := scanRecurrence(db.r.QueryRowContext(ctx, recurrenceSelect+` WHERE r.id_rec = ? AND k.unit_id = ?`, idRec, unitID))
	return r, wrap("recurrence", notFound(err))
}

// AddRecurrence records the recurrence the PSP created for the unit's
// contract.
func (db *DB) AddRecurrence(ctx context.Context, unitID int64, contractToken string, r PixRecurrence) (PixRecurrence, error) {
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		id, err := recordID(ctx, tx, tableContracts, unitID, contractToken, false)
		if err != nil {
			return err
		}
		r.Contract, r.Created = contractToken, timestamp(now)
		_, err = tx.ExecContext(ctx, `INSERT INTO pix_recurrences (id_rec, contract_id, status, location, request_id, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, r.IDRec, id, r.Status, r.Location, r.RequestID, r.Created, r.Created)
		return err
	})
	return r, wrap("add recurrence", err)
}

// RecurrenceChange is a recurrence whose state changed: its unit, its
// contract, and the state it came to.
type RecurrenceChange struct {
	UnitID   int64
	Contract string
	Status   string
}

// RecordRecurrence records the state the PSP answered for a recurrence
// of the unit; changed is false when it was already in it (or is not the
// unit's: ErrNotFound).
func (db *DB) RecordRecurrence(ctx context.Context, unitID int64, idRec, status string) (RecurrenceChange, bool, error) {
	var c RecurrenceChange
	changed := false
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var was string
		err := tx.QueryRowContext(ctx, `SELECT r.status, k.token, k.unit_id FROM pix_recurrences r JOIN contracts k ON k.id = r.contract_id
			WHERE r.id_rec = ? AND k.unit_id = ?`, idRec, unitID).Scan(&was, &c.Contract, &c.UnitID)
		if err != nil {
			return notFound(err)
		}
		c.Status = status
		if was == status {
			return nil
		}
		changed = true
		_, err = tx.ExecContext(ctx, `UPDATE pix_recurrences SET status = ?, updated_at = ? WHERE id_rec = ?`, status, timestamp(now), idRec)
		return err
	})
	return c, changed, wrap("record recurrence", err)
}

// WaitingRecurrences lists the unit's recurrences waiting for the payer.
func (db *DB) WaitingRecurrences(ctx context.Context, unitID int64) ([]string, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT r.id_rec FROM pix_recurrences r JOIN contracts k ON k.id = r.contract_id
		WHERE k.unit_id = ? AND r.status = 'CRIADA' ORDER BY r.created_at`, unitID)
	if err != nil {
		return nil, wrap("waiting recurrences", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, wrap("waiting recurrences", err)
		}
		out = append(out, id)
	}
	return out, wrap("waiting recurrences", rows.Err())
}

// Receiver is the account an order is received in: its agency and number
// (with its check digit).
type Receiver struct {
	Agency, Account string
}

// OrderRecurrence answers the approved recurrence of the contract an
// order of the unit bills (its own order or one it billed), and the
// account the order is received in; "" when it has none.
func (db *DB) OrderRecurrence(ctx context.Context, unitID int64, orderToken string) (string, Receiver, error) {
	var idRec string
	var r Receiver
	err := db.read(ctx, func(tx *sql.Tx) error {
		var agency, account, dv sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT r.id_rec FROM pix_recurrences r JOIN contracts k ON k.id = r.contract_id
				WHERE r.status = 'APROVADA' AND k.unit_id = o.unit_id AND (k.sales_order_id = o.id
					OR EXISTS (SELECT 1 FROM contract_billing b WHERE b.contract_id = k.id AND b.order_id = o.id))
				ORDER BY r.created_at DESC LIMIT 1), ''), a.agency, a.current_account, a.dv_conta
			FROM sales_orders o LEFT JOIN bank_accounts a ON a.id = o.bank_account_id WHERE o.unit_id = ? AND o.token = ?`, unitID, orderToken).
			Scan(&idRec, &agency, &account, &dv)
		if err != nil {
			return notFound(err)
		}
		r.Agency, r.Account = agency.String, account.String+dv.String
		return nil
	})
	return idRec, r, wrap("order recurrence", err)
}
