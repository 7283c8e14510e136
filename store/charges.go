package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Charge statuses. A charge is ISSUING while its provider is being asked
// (a retry asks again with the same idempotency key), then PENDING until it
// is PAID; a PENDING charge past its due date is OVERDUE (daily job); an
// unpaid charge can be CANCELLED. An order without charges shows NONE.
const (
	ChargeIssuing   = "ISSUING"
	ChargePending   = "PENDING"
	ChargePaid      = "PAID"
	ChargeOverdue   = "OVERDUE"
	ChargeCancelled = "CANCELLED"
	ChargeNone      = "NONE"
)

// How a confirmed payment met its charge. A payment the firm or its bank
// confirms is recorded as it came, whatever its amount: the firm sees a
// short or late one and acts (a Pix of another amount than asked is held
// for a person first: psp_payments).
const (
	SettlementExact   = "exact"   // the amount, by the due date
	SettlementPartial = "partial" // less than the amount
	SettlementOver    = "over"    // more than the amount, by the due date
	SettlementLate    = "late"    // after the due date, at least the amount
)

// Charge is one charge of an order installment.
type Charge struct {
	Token            string `json:"token" format:"uuid" doc:"The charge's token."`
	Installment      int    `json:"installment" doc:"Which installment this is, from 1."`
	Installments     int    `json:"installments" doc:"How many installments the order's value is split into."`
	Provider         string `json:"provider" enum:",provider_a,provider_b,provider_c" doc:"The collection provider that issued it (blank for a charge without one)."`
	PaymentKey       string `json:"payment_key" enum:"BOLETO,PIX,PIX_AUTOMATICO,CREDIT_CARD,DEBIT_CARD,TRANSFER,CASH" doc:"How it is paid: BOLETO, PIX, PIX_AUTOMATICO, CREDIT_CARD, DEBIT_CARD, TRANSFER or CASH."`
	Status           string `json:"status" enum:"ISSUING,PENDING,PAID,OVERDUE,CANCELLED" doc:"ISSUING while its provider is asked, then PENDING until PAID; OVERDUE past its due date unpaid; CANCELLED."`
	Amount           Money  `json:"amount" doc:"The installment's amount."`
	DueDate          string `json:"due_date" format:"date" doc:"The day it is due, YYYY-MM-DD."`
	BoletoLine       Text   `json:"boleto_line" doc:"A boleto's linha digitável; null for other kinds."`
	BoletoBarcode    Text   `json:"boleto_barcode" doc:"A boleto's 44-digit bar code; null for other kinds."`
	PixPayload       Text   `json:"pix_payload" doc:"The PIX copia-e-cola code (BR Code); null for other kinds."`
	PixTxID          Text   `json:"pix_txid" doc:"The PIX charge's txid at the PSP; null for other kinds."`
	ProviderRef      Text   `json:"provider_ref" doc:"The provider's own reference of the charge; null when none."`
	CardInstallments *int   `json:"card_installments" doc:"A card charge's installments; null for other kinds."`
	PaidAt           Stamp  `json:"paid_at" doc:"When its payment was confirmed (RFC 3339); null unpaid."`
	PaidAmount       Text   `json:"paid_amount" doc:"What was paid, as a decimal string; null unpaid."`
	CancelledAt      Stamp  `json:"cancelled_at" doc:"When it was cancelled (RFC 3339); null when not."`
	// Settlement is how its payment met it (Settlement*), null unpaid.
	Settlement Text `json:"settlement" enum:"exact,partial,over,late" doc:"How the payment met it: exact, partial (less), over (more, by the due date) or late; null unpaid."`
	// OurNumber is a boleto's number at its bank ("nosso número"), and
	// Registration where the bank's registration of it stands.
	OurNumber    Text `json:"our_number" doc:"A boleto's number at its bank (nosso número); null for other kinds."`
	Registration Text `json:"registration" enum:"simulated,pending,sent,registered,rejected" doc:"Where the bank's registration of a boleto stands: simulated (test mode), pending, sent, registered or rejected; null for other kinds, and for a boleto of no collection provider (registration_reason says so)."`
	// RegistrationReason is the bank's reason of a rejection.
	RegistrationReason Text `json:"registration_reason" doc:"The bank's reason for rejecting the registration, or why a boleto has no registration (no collection provider: the firm prints it itself, and it has no line or our-number); null when none."`
	// RefundedAmount is what the PSP gave back of its payment (absent
	// when nothing was).
	RefundedAmount Text `json:"refunded_amount,omitzero" doc:"What the PSP gave back of its payment; absent when nothing was."`
	// HeldPix are the Pix of another amount than it asked: held for a
	// person's decision, or kept towards it (absent when none).
	HeldPix []HeldPix `json:"held_pix,omitzero" doc:"The PIX paid for it of another amount than it asked that day: held, settling nothing until a person decides in the portal (accept as its payment, keep towards it, refund), or kept towards it while it stays open for the rest; absent when none."`
	// Parts are what statement lines paid of it while it stays open for
	// the rest.
	Parts []ChargePart `json:"paid_parts,omitzero" doc:"fincom: the parts of it statement lines paid while it stays open for the rest (received towards it, each booked as an income); absent when none."`

	idempotencyKey string
	pixKey         string
}

// IdempotencyKey is what the provider is asked with.
func (c Charge) IdempotencyKey() string { return c.idempotencyKey }

// PixKey is the order's PIX key.
func (c Charge) PixKey() string { return c.pixKey }

// ChargePlan is an order's charges after PrepareCharges: the ones still to
// issue (ISSUING) and the merchant data a provider needs.
type ChargePlan struct {
	OrderToken   string
	PublicToken  string
	UnitName     string
	UnitCNPJ     string
	UnitCityIBGE string
	Charges      []Charge
	// Agreements are the unit's agreements the charges go through, by
	// provider.
	Agreements map[string]Agreement
}

// Notice is an e-mail to queue in the outbox with a state change.
type Notice struct {
	Kind, To, Subject, Body string
	Attachments             []Attachment
	// DedupeKey makes the same notice queued twice count once.
	DedupeKey string
	// Sealed is a secret the body carries (a sign-in link's), sealed with
	// the server's key; Body holds SealedMark in its place.
	Sealed []byte
}

// SealedMark stands in a queued body for its sealed secret: the sender
// puts the opened secret in its place, every listing shows the mark.
const SealedMark = "fcl_SEALED"

const chargeSelect = `SELECT c.token, c.installment, c.installments, c.provider, c.payment_key, c.status, c.amount, c.due_date,
	c.boleto_line, c.boleto_barcode, c.pix_payload, c.pix_txid, c.provider_ref, c.card_installments, c.paid_at, c.paid_amount,
	c.cancelled_at, c.settlement, c.our_number, c.registration, c.registration_reason, c.refunded_amount, c.idempotency_key, COALESCE(o.pix_key, '')
	FROM charges c JOIN sales_orders o ON o.id = c.order_id`

func scanCharge(s scanner) (Charge, error) {
	var c Charge
	var card sql.NullInt64
	err := s.Scan(&c.Token, &c.Installment, &c.Installments, &c.Provider, &c.PaymentKey, &c.Status, &c.Amount, &c.DueDate,
		&c.BoletoLine, &c.BoletoBarcode, &c.PixPayload, &c.PixTxID, &c.ProviderRef, &card, &c.PaidAt, &c.PaidAmount,
		&c.CancelledAt, &c.Settlement, &c.OurNumber, &c.Registration, &c.RegistrationReason, &c.RefundedAmount, &c.idempotencyKey, &c.pixKey)
	if card.Valid {
		n := int(card.Int64)
		c.CardInstallments = &n
	}
	return c, err
}

func chargesOf(ctx context.Context, tx *sql.Tx, orderID int64, live bool) ([]Charge, error) {
	q := chargeSelect + ` WHERE c.order_id = ?`
	if live {
		q += ` AND c.status <> 'CANCELLED'`
	}
	rows, err := tx.QueryContext(ctx, q+` ORDER BY c.installment, c.id`, orderID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Charge{}
	for rows.Next() {
		c, err := scanCharge(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// refreshOrder sets an order's charge fields from its charges: charge and
// date_charge once one is issued, cancel_charge when all are cancelled,
// date_payment when all are paid.
func (db *DB) refreshOrder(ctx context.Context, tx *sql.Tx, orderID int64, now time.Time) error {
	rules, err := db.rules()
	if err != nil {
		return err
	}
	all, err := chargesOf(ctx, tx, orderID, false)
	if err != nil {
		return err
	}
	st := rules.OrderStatus(all)
	ts := timestamp(now)
	_, err = tx.ExecContext(ctx, `
		UPDATE sales_orders SET charge_status = ?,
			charge = CASE WHEN ? IN ('PENDING', 'PAID', 'OVERDUE') THEN 1 ELSE charge END,
			date_charge = CASE WHEN ? IN ('PENDING', 'PAID', 'OVERDUE') THEN COALESCE(date_charge, ?) ELSE date_charge END,
			cancel_charge = CASE WHEN ? = 'CANCELLED' THEN 1 ELSE 0 END,
			date_cancel_charge = CASE WHEN ? = 'CANCELLED' THEN ? ELSE NULL END,
			date_payment = CASE WHEN ? = 'PAID' THEN COALESCE(date_payment, ?) ELSE NULL END,
			updated_at = ?
		WHERE id = ?`, st, st, st, ts, st, st, ts, st, ts, ts, orderID)
	return err
}

type orderRow struct {
	id, unitID                              int64
	token, publicToken, paymentKey          string
	provider, pixKey, dueDate, notifyCharge string
	active                                  bool
	value, freight                          Money
	installments, card, freightMode         int
}

func orderForCharge(ctx context.Context, tx *sql.Tx, where string, args ...any) (orderRow, error) {
	var o orderRow
	var public, provider, pixKey, notify sql.NullString
	err := tx.QueryRowContext(ctx, `
		SELECT o.id, o.unit_id, o.token, o.public_token, pm.payment_key, o.provider_bank, o.pix_key, o.estimated_payment_date,
			o.notify_email_charge, o.active, o.value, o.installments, o.installment_credit, o.freight_mode, COALESCE(o.freight_total, '0')
		FROM sales_orders o JOIN payment_methods pm ON pm.id = o.payment_method_id WHERE `+where, args...).
		Scan(&o.id, &o.unitID, &o.token, &public, &o.paymentKey, &provider, &pixKey, &o.dueDate, &notify, &o.active, &o.value,
			&o.installments, &o.card, &o.freightMode, &o.freight)
	o.publicToken, o.provider, o.pixKey, o.notifyCharge = public.String, provider.String, pixKey.String, notify.String
	return o, notFound(err)
}

// PrepareCharges reserves the charges of an order of the unit: one per
// installment (monthly from the estimated payment date) that has no live
// charge, marked ISSUING. It answers every live charge; the caller asks the
// provider for the ISSUING ones and completes them. The order gets its
// public token for the payment portal.
//
// A charge through a provider takes the unit's agreement with its bank,
// and a boleto the agreement's next our-number. With samples (test mode,
// demo) a unit without an agreement gets the sample one, simulated; without
// (production) a missing or simulated agreement is ErrNoAgreement.
func (db *DB) PrepareCharges(ctx context.Context, unitID int64, orderToken string, samples map[string]Agreement) (ChargePlan, error) {
	var plan ChargePlan
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		o, err := orderForCharge(ctx, tx, `o.unit_id = ? AND o.token = ?`, unitID, orderToken)
		if err != nil {
			return err
		}
		if !o.active {
			return ErrOrderDisabled
		}
		if o.publicToken == "" {
			o.publicToken = publicPrefix + db.Name + "_" + db.secret(16)
			if _, err := tx.ExecContext(ctx, `UPDATE sales_orders SET public_token = ? WHERE id = ?`, o.publicToken, o.id); err != nil {
				return err
			}
		}
		live, err := chargesOf(ctx, tx, o.id, true)
		if err != nil {
			return err
		}
		have := map[int]bool{}
		for _, c := range live {
			have[c.Installment] = true
		}
		due, err := ParseDateISO(o.dueDate)
		if err != nil {
			return err
		}
		rules, err := db.rules()
		if err != nil {
			return err
		}
		parts := rules.Installments(OrderBill{Value: o.value, Freight: o.freight, FreightMode: o.freightMode,
			Installments: o.installments, PaymentKey: o.paymentKey})
		n := len(parts)
		for i := 1; i <= n; i++ {
			if have[i] {
				continue
			}
			var gen int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM charges WHERE order_id = ? AND installment = ?`, o.id, i).Scan(&gen); err != nil {
				return err
			}
			var card sql.NullInt64
			if o.paymentKey == "CREDIT_CARD" {
				card = sql.NullInt64{Int64: int64(o.card), Valid: true}
			}
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO charges (token, order_id, installment, installments, idempotency_key, provider, payment_key, status,
					amount, due_date, card_installments, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, 'ISSUING', ?, ?, ?, ?, ?)`,
				db.id(), o.id, i, n, fmt.Sprintf("%s:%d:%d", o.token, i, gen+1), o.provider, o.paymentKey,
				parts[i-1], AddMonths(due, i-1).ISO(), card, timestamp(now), timestamp(now)); err != nil {
				return err
			}
		}
		var u Unit
		if u, err = unitByID(ctx, tx, unitID); err != nil {
			return err
		}
		plan = ChargePlan{OrderToken: o.token, PublicToken: o.publicToken, UnitName: u.Name, UnitCNPJ: u.CNPJ,
			UnitCityIBGE: u.CityIBGE, Agreements: map[string]Agreement{}}
		if o.provider != "" {
			a, err := agreementFor(ctx, tx, unitID, o.provider)
			if errors.Is(err, sql.ErrNoRows) && samples != nil {
				s, ok := samples[o.provider]
				if !ok {
					return ErrNoAgreement
				}
				s.Provider, s.Simulated = o.provider, true
				accountID, aerr := agreementAccount(ctx, tx, db, unitID, s, now)
				if aerr != nil {
					return aerr
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO bank_agreements (unit_id, provider, bank, agency, agency_dv, account, account_dv,
					wallet, code, next_our_number, bank_account_id, simulated, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, 1, ?, ?)`,
					unitID, s.Provider, s.Bank, s.Agency, s.AgencyDV, s.Account, s.AccountDV, s.Wallet, s.Code, accountID,
					timestamp(now), timestamp(now)); err != nil {
					return err
				}
				a, err = agreementFor(ctx, tx, unitID, o.provider)
			}
			if errors.Is(err, sql.ErrNoRows) || (err == nil && a.Simulated && samples == nil) {
				return ErrNoAgreement
			}
			if err != nil {
				return err
			}
			plan.Agreements[o.provider] = a
			rows, err := tx.QueryContext(ctx, `SELECT token FROM charges WHERE order_id = ? AND status = 'ISSUING' AND payment_key = 'BOLETO'
				AND our_number IS NULL ORDER BY installment`, o.id)
			if err != nil {
				return err
			}
			var fresh []string
			for rows.Next() {
				var t string
				if err := rows.Scan(&t); err != nil {
					rows.Close()
					return err
				}
				fresh = append(fresh, t)
			}
			rows.Close()
			if len(fresh) > 0 && !a.Simulated {
				if err := registrablePayer(ctx, tx, rules, o.id); err != nil {
					return err
				}
			}
			for _, t := range fresh {
				if err := takeOurNumber(ctx, tx, a, t); err != nil {
					return err
				}
			}
		}
		plan.Charges, err = chargesOf(ctx, tx, o.id, true)
		if err != nil {
			return err
		}
		return db.refreshOrder(ctx, tx, o.id, now)
	})
	return plan, wrap("prepare charges", err)
}

func unitByID(ctx context.Context, tx *sql.Tx, id int64) (Unit, error) {
	return scanUnit(tx.QueryRowContext(ctx, `SELECT id, token, name, cnpj, city_ibge, im, created_at FROM units WHERE id = ?`, id))
}

// IssuedCharge is a provider's answer, stored by CompleteCharge.
type IssuedCharge struct {
	Ref, BoletoLine, BoletoBarcode, PixPayload, PixTxID string
	// RegistrationReason, when not empty, says why the boleto has no
	// registration (one of no collection provider).
	RegistrationReason string
}

// CompleteCharge stores the provider's answer for an ISSUING charge, makes
// it PENDING and queues the notice. A charge already completed is left as
// it is (a retry).
func (db *DB) CompleteCharge(ctx context.Context, chargeToken string, in IssuedCharge, notice *Notice) error {
	return wrap("complete charge", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var orderID, unitID int64
		err := tx.QueryRowContext(ctx, `SELECT c.order_id, o.unit_id FROM charges c JOIN sales_orders o ON o.id = c.order_id
			WHERE c.token = ? AND c.status = 'ISSUING'`, chargeToken).Scan(&orderID, &unitID)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE charges SET status = 'PENDING', provider_ref = ?, boleto_line = ?, boleto_barcode = ?,
			pix_payload = ?, pix_txid = ?, registration_reason = coalesce(?, registration_reason), updated_at = ? WHERE token = ?`,
			nullString(in.Ref), nullString(in.BoletoLine), nullString(in.BoletoBarcode), nullString(in.PixPayload),
			nullString(in.PixTxID), nullString(in.RegistrationReason), timestamp(now), chargeToken); err != nil {
			return err
		}
		if err := queueNotice(ctx, tx, unitID, orderID, notice, now, db.id); err != nil {
			return err
		}
		if err := db.emitCharge(ctx, tx, unitID, "charge.created", chargeToken, now); err != nil {
			return err
		}
		return db.refreshOrder(ctx, tx, orderID, now)
	}))
}

// emitCharge reports a charge's change to the unit's webhooks.
func (db *DB) emitCharge(ctx context.Context, tx *sql.Tx, unitID int64, typ, chargeToken string, now time.Time) error {
	c, err := scanCharge(tx.QueryRowContext(ctx, chargeSelect+` WHERE c.token = ?`, chargeToken))
	if err != nil {
		return err
	}
	var order string
	if err := tx.QueryRowContext(ctx, `SELECT o.token FROM charges c JOIN sales_orders o ON o.id = c.order_id WHERE c.token = ?`, chargeToken).Scan(&order); err != nil {
		return err
	}
	return db.emit(ctx, tx, unitID, typ, map[string]any{"id_token_sales_order": order, "charge": c}, now)
}

// SalesOrderCharges lists every charge of an order of the unit.
func (db *DB) SalesOrderCharges(ctx context.Context, unitID int64, orderToken string) ([]Charge, error) {
	var out []Charge
	err := db.read(ctx, func(tx *sql.Tx) error {
		id, err := recordID(ctx, tx, tableSalesOrders, unitID, orderToken, false)
		if err != nil {
			return err
		}
		if out, err = chargesOf(ctx, tx, id, false); err != nil {
			return err
		}
		held, err := heldPixOf(ctx, tx, id)
		if err != nil {
			return err
		}
		parts, err := chargePartsOf(ctx, tx, id)
		for i := range out {
			out[i].HeldPix, out[i].Parts = held[out[i].Token], parts[out[i].Token]
		}
		return err
	})
	return out, wrap("sales order charges", err)
}

// ChargePart is a part of a charge a statement line paid.
type ChargePart struct {
	Date   string `json:"date" format:"date" doc:"The statement line's day, YYYY-MM-DD."`
	Amount Money  `json:"amount" doc:"What it paid."`
	Line   string `json:"statement_line_token" format:"uuid" doc:"The statement line."`
}

// chargePartsOf lists the parts statement lines paid of the order's
// charges, by the token of their charge.
func chargePartsOf(ctx context.Context, tx *sql.Tx, orderID int64) (map[string][]ChargePart, error) {
	rows, err := tx.QueryContext(ctx, `SELECT c.token, l.posted, p.amount, l.token FROM charge_parts p JOIN charges c ON c.id = p.charge_id
		JOIN statement_lines l ON l.id = p.line_id WHERE c.order_id = ? ORDER BY l.posted, p.id`, orderID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]ChargePart{}
	for rows.Next() {
		var token string
		var p ChargePart
		if err := rows.Scan(&token, &p.Date, &p.Amount, &p.Line); err != nil {
			return nil, err
		}
		out[token] = append(out[token], p)
	}
	return out, rows.Err()
}

// CancelCharges cancels the unpaid charges of an order of the unit. A paid
// charge stays paid; with nothing unpaid to cancel it answers
// ErrAlreadyPaid (when some are paid) or ErrNothingToCancel.
func (db *DB) CancelCharges(ctx context.Context, unitID int64, orderToken string) error {
	return wrap("cancel charges", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		o, err := orderForCharge(ctx, tx, `o.unit_id = ? AND o.token = ?`, unitID, orderToken)
		if err != nil {
			return err
		}
		open, err := chargesOf(ctx, tx, o.id, true)
		if err != nil {
			return err
		}
		// A boleto the bank registered (or may have: it was sent) is
		// written off at the bank by the next remittance; one never sent
		// is simply not sent.
		res, err := tx.ExecContext(ctx, `UPDATE charges SET status = 'CANCELLED', cancelled_at = ?, updated_at = ?,
				writeoff = CASE WHEN registration IN ('sent', 'registered') THEN 'pending' ELSE writeoff END,
				registration = CASE WHEN registration = 'pending' THEN NULL ELSE registration END
			WHERE order_id = ? AND status IN ('ISSUING', 'PENDING', 'OVERDUE')`, timestamp(now), timestamp(now), o.id)
		if err != nil {
			return err
		}
		for _, c := range open {
			if c.Status != ChargePaid {
				if err := db.emitCharge(ctx, tx, unitID, "charge.cancelled", c.Token, now); err != nil {
					return err
				}
			}
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var paid int
			tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM charges WHERE order_id = ? AND status = 'PAID'`, o.id).Scan(&paid)
			if paid > 0 {
				return ErrAlreadyPaid
			}
			return ErrNothingToCancel
		}
		return db.refreshOrder(ctx, tx, o.id, now)
	}))
}

// QueueChargeNotice queues a notice about an order's open charges (resend);
// ErrNoChargeToResend when it has none.
func (db *DB) QueueChargeNotice(ctx context.Context, unitID int64, orderToken string, n Notice) error {
	return db.queueOrderNotice(ctx, unitID, orderToken, n, true)
}

// QueueOrderNotice queues a notice about an order (a payment's
// confirmation); its dedupe key makes a second one count once.
func (db *DB) QueueOrderNotice(ctx context.Context, unitID int64, orderToken string, n Notice) error {
	return db.queueOrderNotice(ctx, unitID, orderToken, n, false)
}

func (db *DB) queueOrderNotice(ctx context.Context, unitID int64, orderToken string, n Notice, needOpen bool) error {
	return db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		o, err := orderForCharge(ctx, tx, `o.unit_id = ? AND o.token = ?`, unitID, orderToken)
		if err != nil {
			return err
		}
		var open int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM charges WHERE order_id = ? AND status IN ('PENDING', 'OVERDUE')`, o.id).Scan(&open); err != nil {
			return err
		}
		if open == 0 && needOpen {
			return ErrNoChargeToResend
		}
		return queueNotice(ctx, tx, unitID, o.id, &n, now, db.id)
	})
}

// MarkOverdue turns the PENDING charges due before today into OVERDUE,
// queues for each the alert that render writes (to the order's
// notify_email_alert; render may answer nil), and answers how many changed.
func (db *DB) MarkOverdue(ctx context.Context, today Date, render func(NoticeCandidate) (*Notice, error)) (int, error) {
	var n int
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		rows, err := tx.QueryContext(ctx, `
			SELECT c.id, c.token, COALESCE(o.public_token, ''), COALESCE(o.notify_email_alert, ''), un.name,
				COALESCE(ct.display_name, ''), o.cod_orders, o.description, c.due_date, c.amount, o.id, o.unit_id
			FROM charges c JOIN sales_orders o ON o.id = c.order_id JOIN units un ON un.id = o.unit_id
			LEFT JOIN contacts ct ON ct.id = o.contact_id
			WHERE c.status = 'PENDING' AND c.due_date < ?`, today.ISO())
		if err != nil {
			return err
		}
		type row struct {
			id int64
			c  NoticeCandidate
		}
		var due []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.c.ChargeToken, &r.c.PublicToken, &r.c.Email, &r.c.Seller, &r.c.Customer, &r.c.OrderCode,
				&r.c.Description, &r.c.Due, &r.c.Amount, &r.c.orderID, &r.c.unitID); err != nil {
				rows.Close()
				return err
			}
			due = append(due, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		refreshed := map[int64]bool{}
		for _, r := range due {
			if _, err := tx.ExecContext(ctx, `UPDATE charges SET status = 'OVERDUE', updated_at = ? WHERE id = ?`, timestamp(now), r.id); err != nil {
				return err
			}
			if err := db.emitCharge(ctx, tx, r.c.unitID, "charge.overdue", r.c.ChargeToken, now); err != nil {
				return err
			}
			n++
			if render != nil && r.c.Email != "" {
				notice, err := render(r.c)
				if err != nil {
					return err
				}
				if notice != nil {
					notice.DedupeKey = "charge_overdue:" + r.c.ChargeToken
					if err := queueNotice(ctx, tx, r.c.unitID, r.c.orderID, notice, now, db.id); err != nil {
						return err
					}
				}
			}
			if !refreshed[r.c.orderID] {
				refreshed[r.c.orderID] = true
				if err := db.refreshOrder(ctx, tx, r.c.orderID, now); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return n, wrap("mark overdue", err)
}

// ForceOverdue makes an order's PENDING charges OVERDUE now, whatever their
// due date (test mode's simulation of a payer who did not pay).
func (db *DB) ForceOverdue(ctx context.Context, unitID int64, orderToken string) (int, error) {
	var n int64
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		o, err := orderForCharge(ctx, tx, `o.unit_id = ? AND o.token = ?`, unitID, orderToken)
		if err != nil {
			return err
		}
		pending, err := chargesOf(ctx, tx, o.id, true)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE charges SET status = 'OVERDUE', updated_at = ? WHERE order_id = ? AND status = 'PENDING'`, timestamp(now), o.id)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		for _, c := range pending {
			if c.Status == ChargePending {
				if err := db.emitCharge(ctx, tx, unitID, "charge.overdue", c.Token, now); err != nil {
					return err
				}
			}
		}
		return db.refreshOrder(ctx, tx, o.id, now)
	})
	return int(n), wrap("force overdue", err)
}
