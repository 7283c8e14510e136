package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"fincom/server/problem"
)

// RemittanceTitle is a charge a remittance carries: a boleto to register
// (Movement "01"), a cancelled one to write off ("02") or a registered
// one given a new due date ("06").
type RemittanceTitle struct {
	ChargeToken                        string
	Movement                           string
	OurNumber                          int64
	OrderCode                          string
	Installment                        int
	Amount                             Money
	Due, Issued                        string // YYYY-MM-DD
	PayerName, PayerDocument           string
	Street, District, Zip, City, State string
}

// Remittance is a remittance file as kept.
type Remittance struct {
	Provider string `json:"provider"`
	Sequence int    `json:"sequence"`
	Titles   int    `json:"titles"`
	Created  Stamp  `json:"created_at"`
	Content  []byte `json:"-"`
}

// ErrNothingToRemit: no boleto was issued or cancelled since the last
// remittance of the agreement.
var ErrNothingToRemit = problem.New(problem.Conflict, "Nothing to remit: no boleto was issued or cancelled since the last remittance of this agreement.")

// ExportRemittance writes the agreement's next remittance in one
// transaction: the boletos issued since the last file (registration
// pending) and the registered ones cancelled since (write-off pending),
// numbered in sequence, kept, and marked sent. build writes the file
// (package bank); it must not do I/O. A simulated agreement has nothing
// to remit: its boletos are registered by the simulated bank.
func (db *DB) ExportRemittance(ctx context.Context, unitID int64, provider string,
	build func(a Agreement, seq int, created time.Time, titles []RemittanceTitle) ([]byte, error)) (Remittance, error) {
	var out Remittance
	rules, err := db.rules()
	if err != nil {
		return out, err
	}
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		a, err := agreementFor(ctx, tx, unitID, provider)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && a.Simulated) {
			return ErrNoAgreement
		}
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `
			SELECT c.id, c.token, CASE WHEN c.status = 'CANCELLED' THEN '02' WHEN c.registration = 'pending' THEN '01' ELSE '06' END,
				CAST(c.our_number AS INTEGER), o.cod_orders,
				c.installment, c.amount, c.due_date, substr(c.created_at, 1, 10), `+payerNameSQL+`, COALESCE(ct.register, ''),
				TRIM(COALESCE(ct.address, '') || ' ' || COALESCE(ct.number, '')), COALESCE(ct.neighborhood, ''), COALESCE(ct.zip_code, ''), COALESCE(ct.city, ''), COALESCE(ct.state, '')
			FROM charges c JOIN sales_orders o ON o.id = c.order_id LEFT JOIN contacts ct ON ct.id = o.contact_id
			WHERE c.agreement_id = ? AND ((c.registration = 'pending' AND c.status IN ('PENDING', 'OVERDUE')) OR c.writeoff = 'pending'
				OR (c.due_change = 'pending' AND c.status IN ('PENDING', 'OVERDUE')))
			ORDER BY c.id`, a.ID)
		if err != nil {
			return err
		}
		var titles []RemittanceTitle
		var ids []int64
		for rows.Next() {
			var t RemittanceTitle
			var id int64
			if err := rows.Scan(&id, &t.ChargeToken, &t.Movement, &t.OurNumber, &t.OrderCode, &t.Installment, &t.Amount, &t.Due, &t.Issued,
				&t.PayerName, &t.PayerDocument, &t.Street, &t.District, &t.Zip, &t.City, &t.State); err != nil {
				rows.Close()
				return err
			}
			titles, ids = append(titles, t), append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(titles) == 0 {
			return ErrNothingToRemit
		}
		// A contact changed since its boleto was issued: the bank would
		// reject the entry, so the file waits for the contact.
		for _, t := range titles {
			if t.Movement != "01" {
				continue
			}
			if err := rules.Payer(Payer{Order: t.OrderCode, HasContact: true, Name: t.PayerName, Register: t.PayerDocument,
				Address: t.Street, City: t.City, State: t.State, Zip: t.Zip}); err != nil {
				return err
			}
		}
		seq := a.RemittanceSeq + 1
		content, err := build(a, seq, now, titles)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO remittances (agreement_id, sequence, content, titles, created_at) VALUES (?, ?, ?, ?, ?)`,
			a.ID, seq, content, len(titles), timestamp(now))
		if err != nil {
			return err
		}
		rid, _ := res.LastInsertId()
		if _, err := tx.ExecContext(ctx, `UPDATE bank_agreements SET remittance_seq = ? WHERE id = ?`, seq, a.ID); err != nil {
			return err
		}
		for i, id := range ids {
			q := `UPDATE charges SET registration = 'sent', remittance_id = ? WHERE id = ?`
			switch titles[i].Movement {
			case "02":
				q = `UPDATE charges SET writeoff = 'sent', writeoff_remittance_id = ? WHERE id = ?`
			case "06":
				q = `UPDATE charges SET due_change = 'sent', due_change_remittance_id = ? WHERE id = ?`
			}
			if _, err := tx.ExecContext(ctx, q, rid, id); err != nil {
				return err
			}
		}
		out = Remittance{Provider: provider, Sequence: seq, Titles: len(titles), Created: stampOf(now), Content: content}
		return nil
	})
	return out, wrap("export remittance", err)
}

// Remittances lists the unit's remittances, newest first, without their
// files.
func (db *DB) Remittances(ctx context.Context, unitID int64) ([]Remittance, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT a.provider, r.sequence, r.titles, r.created_at FROM remittances r
		JOIN bank_agreements a ON a.id = r.agreement_id WHERE a.unit_id = ? ORDER BY r.created_at DESC, r.id DESC`, unitID)
	if err != nil {
		return nil, wrap("remittances", err)
	}
	defer rows.Close()
	var out []Remittance
	for rows.Next() {
		var r Remittance
		if err := rows.Scan(&r.Provider, &r.Sequence, &r.Titles, &r.Created); err != nil {
			return nil, wrap("remittances", err)
		}
		out = append(out, r)
	}
	return out, wrap("remittances", rows.Err())
}

// RemittanceFile answers a kept remittance of the unit's agreement by its
// sequence number (ErrNotFound).
func (db *DB) RemittanceFile(ctx context.Context, unitID int64, provider string, seq int) (Remittance, error) {
	out := Remittance{Provider: provider, Sequence: seq}
	err := db.r.QueryRowContext(ctx, `SELECT r.content, r.titles, r.created_at FROM remittances r JOIN bank_agreements a ON a.id = r.agreement_id
		WHERE a.unit_id = ? AND a.provider = ? AND r.sequence = ?`, unitID, provider, seq).Scan(&out.Content, &out.Titles, &out.Created)
	return out, wrap("remittance file", notFound(err))
}

// payerNameSQL is the name a boleto and its remittance give the payer
// (contacts ct): a company's legal name (razão social), which its CNPJ is
// registered under, else the contact's name (TestBoletoPayerLegalName).
const payerNameSQL = `COALESCE(NULLIF(ct.social_reason, ''), ct.display_name, '')`

// registrablePayer asks the rules whether the order's payer is one its
// bank registers a boleto for.
func registrablePayer(ctx context.Context, tx *sql.Tx, rules Rules, orderID int64) error {
	var p Payer
	var contact sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT o.cod_orders, ct.id, `+payerNameSQL+`, COALESCE(ct.register, ''),
		COALESCE(ct.address, ''), COALESCE(ct.city, ''), COALESCE(ct.state, ''), COALESCE(ct.zip_code, '')
		FROM sales_orders o LEFT JOIN contacts ct ON ct.id = o.contact_id WHERE o.id = ?`, orderID).
		Scan(&p.Order, &contact, &p.Name, &p.Register, &p.Address, &p.City, &p.State, &p.Zip); err != nil {
		return err
	}
	p.HasContact = contact.Valid
	return rules.Payer(p)
}
