package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// PortalOrder is what the public payment portal shows of an order.
type PortalOrder struct {
	PublicToken string
	OrderToken  string
	CodOrders   string
	Description string
	Value       Money
	UnitName    string
	UnitCNPJ    string
	ContactName string
	Status      string
	NotifyEmail string // notify_email_charge
	Charges     []Charge
}

func portalOrderID(ctx context.Context, tx *sql.Tx, publicToken string) (int64, error) {
	var id int64
	// Only an active order with a live charge is shown: an unknown, disabled
	// or cancelled one is not found.
	err := tx.QueryRowContext(ctx, `SELECT o.id FROM sales_orders o WHERE o.public_token = ? AND o.active = 1
		AND EXISTS (SELECT 1 FROM charges c WHERE c.order_id = o.id AND c.status IN ('PENDING', 'OVERDUE', 'PAID'))`, publicToken).Scan(&id)
	return id, notFound(err)
}

// PortalOrder returns the order of a public token for the portal.
func (db *DB) PortalOrder(ctx context.Context, publicToken string) (PortalOrder, error) {
	var p PortalOrder
	err := db.read(ctx, func(tx *sql.Tx) error {
		id, err := portalOrderID(ctx, tx, publicToken)
		if err != nil {
			return err
		}
		var cnpj, contact, notify sql.NullString
		if err := tx.QueryRowContext(ctx, `
			SELECT o.token, o.cod_orders, o.description, o.value, un.name, un.cnpj, c.display_name, o.charge_status, o.notify_email_charge
			FROM sales_orders o JOIN units un ON un.id = o.unit_id LEFT JOIN contacts c ON c.id = o.contact_id
			WHERE o.id = ?`, id).Scan(&p.OrderToken, &p.CodOrders, &p.Description, &p.Value, &p.UnitName, &cnpj, &contact, &p.Status, &notify); err != nil {
			return err
		}
		p.PublicToken, p.UnitCNPJ, p.ContactName, p.NotifyEmail = publicToken, cnpj.String, contact.String, notify.String
		p.Charges, err = chargesOf(ctx, tx, id, true)
		return err
	})
	return p, wrap("portal order", err)
}

// RecordPortalEvent stores an event of the portal (viewed, copied, ...)
// for the order of a public token.
func (db *DB) RecordPortalEvent(ctx context.Context, publicToken, kind, detail string) error {
	return wrap("record portal event", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		id, err := portalOrderID(ctx, tx, publicToken)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO portal_events (order_id, kind, detail, created_at) VALUES (?, ?, ?, ?)`,
			id, kind, nullString(detail), timestamp(now))
		return err
	}))
}

// PortalEvent is a recorded portal event.
type PortalEvent struct {
	Kind      string `json:"kind" doc:"What the payer did (viewed, copied the PIX code, opened the boleto, a refused payment)."`
	Detail    Text   `json:"detail" doc:"Its particulars; null when none."`
	CreatedAt Stamp  `json:"created_at" doc:"When (RFC 3339)."`
}

// PortalEvents lists an order's portal events, oldest first.
func (db *DB) PortalEvents(ctx context.Context, unitID int64, orderToken string) ([]PortalEvent, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT e.kind, e.detail, e.created_at FROM portal_events e JOIN sales_orders o ON o.id = e.order_id
		WHERE o.unit_id = ? AND o.token = ? ORDER BY e.id`, unitID, orderToken)
	if err != nil {
		return nil, wrap("portal events", err)
	}
	defer rows.Close()
	out := []PortalEvent{}
	for rows.Next() {
		var e PortalEvent
		if err := rows.Scan(&e.Kind, &e.Detail, &e.CreatedAt); err != nil {
			return nil, wrap("portal events", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Payment is what a confirmed payment did.
type Payment struct {
	ChargeToken string `json:"charge_token" doc:"The charge paid."`
	Installment int    `json:"installment" doc:"Its installment."`
	PaidAmount  Money  `json:"paid_amount" doc:"What was paid."`
	// Settlement is how the payment met the charge (Settlement*).
	Settlement  string `json:"settlement" enum:"exact,partial,over,late" doc:"How the payment met the charge: exact, partial, over or late."`
	OrderStatus string `json:"charge_status" enum:"NONE,PENDING,PAID,OVERDUE,CANCELLED" doc:"The order's charge status after the payment."`
	IncomeToken Text   `json:"income_token" doc:"The income entry the payment was booked as (the order's in_automation); null when none."`
	Reconciled  bool   `json:"reconciled" doc:"true: that income entry was marked reconciled on the day paid (the order's conciliation)."`
	InvoiceDue  bool   `json:"invoice_due" doc:"true: the payment made the order's invoice due (its generateNFWebhook)."`
	// InvoiceToken is the invoice issued after the payment, if any.
	InvoiceToken Text `json:"invoice_token" doc:"The invoice issued after the payment; null when none."`
	// OrderToken and UnitID name the order, so that the caller can issue
	// the invoice the payment made due; Via is the channel that confirmed
	// it (Paid*).
	OrderToken string `json:"-"`
	UnitID     int64  `json:"-"`
	Via        string `json:"-"`
	// Part: it paid part of the charge, which stays open.
	Part bool `json:"-"`
}

// NFPendingText is the order's nf_status_text while an invoice that the
// payment made due waits for the fiscal issuer.
const NFPendingText = "Emissão pendente: pagamento confirmado, aguardando o emissor fiscal"

// Who confirmed a payment (charges.paid_via).
const (
	PaidSimulated = "simulated"   // test mode's simulated payer
	PaidReturn    = "bank_return" // the bank's return file
	PaidStatement = "statement"   // a line of the firm's bank statement
	PaidFirm      = "firm"        // the firm, for money received elsewhere
	PaidPSP       = "psp"         // the unit's PSP, which confirmed the Pix
)

// Settle is a payment as it was confirmed: the amount (nil: the charge's),
// by whom, on what day (empty: today), the bank's fee and credit date, the
// account credited (0: the agreement's, else the order's).
type Settle struct {
	Amount        *Money
	Via           string
	Day           string
	Fee           *Money
	CreditDate    string
	BankAccountID int64
	// Part pays part of the charge (Amount, less than it asks): received
	// towards it, which stays open for the rest.
	Part bool
}

// RefusePayment records a refused payment attempt on an open charge of an
// order of the unit (test mode: a card declined, a PIX returned): the
// charge stays open, the portal's events and the unit's webhooks
// (charge.refused) say so.
func (db *DB) RefusePayment(ctx context.Context, unitID int64, orderToken, reason string) error {
	return wrap("refuse payment", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var orderID int64
		var charge string
		err := tx.QueryRowContext(ctx, `SELECT o.id, c.token FROM sales_orders o JOIN charges c ON c.order_id = o.id
			WHERE o.unit_id = ? AND o.token = ? AND c.status IN ('PENDING', 'OVERDUE') ORDER BY c.installment LIMIT 1`, unitID, orderToken).Scan(&orderID, &charge)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNothingToPay
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO portal_events (order_id, kind, detail, created_at) VALUES (?, 'payment_refused', ?, ?)`,
			orderID, nullString(reason), timestamp(now)); err != nil {
			return err
		}
		return db.emitCharge(ctx, tx, unitID, "charge.refused", charge, now)
	}))
}

// BoletoInfo is what a printed boleto shows beside the charge: the
// beneficiary's address, the payer's document and address, the
// agreement the boleto is registered under.
type BoletoInfo struct {
	UnitStreet, UnitNumber, UnitDistrict, UnitZip, UnitCityIBGE string
	PayerName, PayerDocument                                    string
	PayerStreet, PayerNumber, PayerDistrict                     string
	PayerCity, PayerState, PayerZip                             string
	// Agreement is nil for a boleto the firm prints itself (no provider).
	Agreement *Agreement
	// Processed is the day the charge was issued (YYYY-MM-DD).
	Processed string
}

// BoletoInfo answers a boleto charge's printing data, for the order of a
// public token.
func (db *DB) BoletoInfo(ctx context.Context, publicToken, chargeToken string) (BoletoInfo, error) {
	var b BoletoInfo
	err := db.read(ctx, func(tx *sql.Tx) error {
		id, err := portalOrderID(ctx, tx, publicToken)
		if err != nil {
			return err
		}
		var agreement sql.NullInt64
		var f [14]sql.NullString
		err = tx.QueryRowContext(ctx, `
			SELECT un.street, un.number, un.district, un.zip, un.city_ibge, ct.register, ct.address, ct.number, ct.neighborhood,
				ct.city, ct.state, ct.zip_code, substr(c.created_at, 1, 10), `+payerNameSQL+`, c.agreement_id
			FROM charges c JOIN sales_orders o ON o.id = c.order_id JOIN units un ON un.id = o.unit_id
			LEFT JOIN contacts ct ON ct.id = o.contact_id WHERE o.id = ? AND c.token = ?`, id, chargeToken).
			Scan(&f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11], &f[12], &f[13], &agreement)
		if err != nil {
			return notFound(err)
		}
		b = BoletoInfo{UnitStreet: f[0].String, UnitNumber: f[1].String, UnitDistrict: f[2].String, UnitZip: f[3].String,
			UnitCityIBGE: f[4].String, PayerDocument: f[5].String, PayerStreet: f[6].String, PayerNumber: f[7].String,
			PayerDistrict: f[8].String, PayerCity: f[9].String, PayerState: f[10].String, PayerZip: f[11].String, Processed: f[12].String,
			PayerName: f[13].String}
		if agreement.Valid {
			a, err := scanAgreement(tx.QueryRowContext(ctx, agreementSelect+` WHERE a.id = ?`, agreement.Int64))
			if err != nil {
				return err
			}
			b.Agreement = &a
		}
		return nil
	})
	return b, wrap("boleto info", err)
}
