package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Tx is one write's transaction as a business package's use case holds it
// (Write): the row-level functions below read and write what it asks and
// decide nothing; the use case decides, between them.
type Tx struct {
	ctx context.Context
	tx  *sql.Tx
	db  *DB
	now time.Time
}

// Write runs fn as one write of the domain, with the group-commit writer's
// semantics: fn runs in its own savepoint of the writer's transaction,
// every row it touches carries the same time (tx.Now), a failing fn rolls
// back alone, and Write returns once the commit that holds it is durable.
// fn may run once only; what it decided is known to the caller when Write
// returns nil.
func (db *DB) Write(ctx context.Context, fn func(tx *Tx) error) error {
	return db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		return fn(&Tx{ctx: ctx, tx: tx, db: db, now: now})
	})
}

// Now is the write's time, which every row it touches carries.
func (t *Tx) Now() time.Time { return t.now }

// ChargeToSettle is an open charge as settling it reads it: the facts the
// rules decide by (Due) and what the income entry it may book takes from
// its order.
type ChargeToSettle struct {
	ID, OrderID, UnitID int64
	Token               string
	Installment         int
	Due                 ChargeDue
	// The order's category, contact (0: none) and description, which its
	// income entry takes.
	Category, Contact int64
	Description       string
}

// OpenChargeOfOrder answers the id of the order's open charge (PENDING or
// OVERDUE) of installment n (0: the first open one) in the unit;
// ErrNothingToPay when it has none.
func (t *Tx) OpenChargeOfOrder(unitID int64, orderToken string, n int) (int64, error) {
	var id int64
	err := t.tx.QueryRowContext(t.ctx, `SELECT c.id FROM charges c JOIN sales_orders o ON o.id = c.order_id WHERE o.unit_id = ? AND o.token = ?
		AND c.status IN ('PENDING', 'OVERDUE') AND (? = 0 OR c.installment = ?) ORDER BY c.installment LIMIT 1`,
		unitID, orderToken, n, n).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNothingToPay
	}
	return id, err
}

// OpenChargeOfPublicOrder answers the id of the open charge of
// installment n (0: the first open one) of the order of a public token
// (the payment page's): ErrNotFound when no active order with a live
// charge has it, ErrNothingToPay when it has no open charge.
func (t *Tx) OpenChargeOfPublicOrder(publicToken string, n int) (int64, error) {
	orderID, err := portalOrderID(t.ctx, t.tx, publicToken)
	if err != nil {
		return 0, err
	}
	var id int64
	err = t.tx.QueryRowContext(t.ctx, `SELECT id FROM charges WHERE order_id = ? AND status IN ('PENDING', 'OVERDUE') AND (? = 0 OR installment = ?)
		ORDER BY installment LIMIT 1`, orderID, n, n).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNothingToPay
	}
	return id, err
}

// PixApplied reports whether the Pix of end-to-end id e2e was applied
// before (psp_payments).
func (t *Tx) PixApplied(e2e string) (bool, error) {
	var one int
	err := t.tx.QueryRowContext(t.ctx, `SELECT 1 FROM psp_payments WHERE end_to_end_id = ?`, e2e).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// OpenPSPCharge answers the id of the unit's open charge issued at its
// PSP under txid; ErrNothingToPay when it has none open.
func (t *Tx) OpenPSPCharge(unitID int64, txid string) (int64, error) {
	var id int64
	err := t.tx.QueryRowContext(t.ctx, `SELECT c.id FROM charges c JOIN sales_orders o ON o.id = c.order_id WHERE o.unit_id = ? AND c.pix_txid = ?
		AND c.provider_ref LIKE 'psp:%' AND c.status IN ('PENDING', 'OVERDUE')`, unitID, txid).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNothingToPay
	}
	return id, err
}

// RecordPix keeps the Pix of end-to-end id e2e, received for the charge
// of id on day (YYYY-MM-DD): it is applied once.
func (t *Tx) RecordPix(e2e string, chargeID int64, amount Money, day string) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO psp_payments (end_to_end_id, charge_id, amount, paid_at, created_at) VALUES (?, ?, ?, ?, ?)`,
		e2e, chargeID, amount.StringFixed(2), day, timestamp(t.now))
	return err
}

// AgreementOf answers the unit's agreement with the provider's bank;
// ErrNoAgreement when it has none.
func (t *Tx) AgreementOf(unitID int64, provider string) (Agreement, error) {
	a, err := agreementFor(t.ctx, t.tx, unitID, provider)
	if errors.Is(err, sql.ErrNoRows) {
		return a, ErrNoAgreement
	}
	return a, err
}

// ReturnFileReport answers the report kept of the agreement's return file
// of that SHA-256, if it was imported before.
func (t *Tx) ReturnFileReport(agreementID int64, sha string) (report string, found bool, err error) {
	err = t.tx.QueryRowContext(t.ctx, `SELECT report FROM return_files WHERE agreement_id = ? AND sha256 = ?`, agreementID, sha).Scan(&report)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return report, err == nil, err
}

// KeepReturnFile records the agreement's return file and its report.
func (t *Tx) KeepReturnFile(agreementID int64, sha, name, report string) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO return_files (agreement_id, sha256, name, report, imported_at) VALUES (?, ?, ?, ?, ?)`,
		agreementID, sha, nullString(name), report, timestamp(t.now))
	return err
}

// ChargeOfOurNumber answers the agreement's charge of an our-number: its
// id, token and status; found false when none has it.
func (t *Tx) ChargeOfOurNumber(agreementID, ourNumber int64) (id int64, token, status string, found bool, err error) {
	err = t.tx.QueryRowContext(t.ctx, `SELECT id, token, status FROM charges WHERE agreement_id = ? AND our_number = ?`,
		agreementID, ourNumber).Scan(&id, &token, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", "", false, nil
	}
	return id, token, status, err == nil, err
}

// MarkRegistered records the bank's registration of the charge's boleto
// (one pending, sent or rejected before).
func (t *Tx) MarkRegistered(id int64) error {
	_, err := t.tx.ExecContext(t.ctx, `UPDATE charges SET registration = 'registered', registration_reason = NULL, updated_at = ?
		WHERE id = ? AND registration IN ('pending', 'sent', 'rejected')`, timestamp(t.now), id)
	return err
}

// MarkRegisteredByPayment records a boleto the bank was paid for as
// registered, if it was pending or sent.
func (t *Tx) MarkRegisteredByPayment(id int64) error {
	_, err := t.tx.ExecContext(t.ctx, `UPDATE charges SET registration = 'registered' WHERE id = ? AND registration IN ('pending', 'sent')`, id)
	return err
}

// MarkRejected records the bank's refusal to register the charge's
// boleto, with its reason.
func (t *Tx) MarkRejected(id int64, reason string) error {
	_, err := t.tx.ExecContext(t.ctx, `UPDATE charges SET registration = 'rejected', registration_reason = ?, updated_at = ? WHERE id = ?`,
		reason, timestamp(t.now), id)
	return err
}

// MarkWrittenOff records the bank's write-off of the charge's boleto.
func (t *Tx) MarkWrittenOff(id int64) error {
	_, err := t.tx.ExecContext(t.ctx, `UPDATE charges SET writeoff = 'done', updated_at = ? WHERE id = ?`, timestamp(t.now), id)
	return err
}

// ActiveAccount answers the id of the unit's active bank account of token;
// ErrInvalidReference when it has none such.
func (t *Tx) ActiveAccount(unitID int64, token string) (int64, error) {
	var id int64
	err := t.tx.QueryRowContext(t.ctx, `SELECT id FROM bank_accounts WHERE unit_id = ? AND token = ? AND active = 1`, unitID, token).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrInvalidReference
	}
	return id, err
}

// ChargeToSettle reads the open charge of id; ErrNothingToPay when it is
// not open (paid, cancelled, being issued) or does not exist.
func (t *Tx) ChargeToSettle(id int64) (ChargeToSettle, error) {
	c := ChargeToSettle{ID: id}
	var agreementAccount, orderAccount, category, contact sql.NullInt64
	var ref sql.NullString
	var frozen, terms string
	err := t.tx.QueryRowContext(t.ctx, `SELECT c.order_id, c.token, c.installment, c.amount, c.due_date, a.bank_account_id,
			o.unit_id, o.in_automation, o.conciliation, o.generate_nf_webhook, o.bank_account_id, o.category_id, o.contact_id, o.description,
			c.provider_ref, c.agreement_id IS NOT NULL, `+frozenSelect+`, `+termsSelect+`
		FROM charges c JOIN sales_orders o ON o.id = c.order_id LEFT JOIN bank_agreements a ON a.id = c.agreement_id
		WHERE c.id = ? AND c.status IN ('PENDING', 'OVERDUE')`, id).
		Scan(&c.OrderID, &c.Token, &c.Installment, &c.Due.Amount, &c.Due.DueDate, &agreementAccount,
			&c.UnitID, &c.Due.InAutomation, &c.Due.Conciliation, &c.Due.InvoiceOnPayment, &orderAccount, &category, &contact, &c.Description,
			&ref, &c.Due.Registered, &frozen, &terms)
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNothingToPay
	}
	if err != nil {
		return c, err
	}
	c.Due.AgreementAccount, c.Due.OrderAccount = agreementAccount.Int64, orderAccount.Int64
	c.Category, c.Contact, c.Due.Ref = category.Int64, contact.Int64, ref.String
	if err := errors.Join(c.Due.readFrozen(frozen), c.Due.readTerms(terms)); err != nil {
		return c, err
	}
	c.Due.Received, c.Due.Booked, err = t.ReceivedTowards(id)
	return c, err
}

// ChargeDueOf reads the facts what the unit's open charge of token asks
// is decided by (Rules.Owed), outside a write; ErrNothingToPay when it is
// not open.
func (db *DB) ChargeDueOf(ctx context.Context, unitID int64, chargeToken string) (ChargeDue, error) {
	var d ChargeDue
	err := db.read(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT c.id FROM charges c JOIN sales_orders o ON o.id = c.order_id WHERE o.unit_id = ? AND c.token = ?`,
			unitID, chargeToken).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNothingToPay
		}
		if err != nil {
			return err
		}
		c, err := (&Tx{ctx: ctx, tx: tx, db: db, now: db.now()}).ChargeToSettle(id)
		d = c.Due
		return err
	})
	return d, wrap("charge due", err)
}

// MarkChargePaid records the charge of id paid as s says, through the
// channel via, the bank's credit day creditDate ("" none).
func (t *Tx) MarkChargePaid(id int64, s Settlement, via, creditDate string) error {
	var fee any
	if s.Fee != nil {
		fee = *s.Fee
	}
	_, err := t.tx.ExecContext(t.ctx, `UPDATE charges SET status = 'PAID', paid_at = ?, paid_amount = ?, settlement = ?, updated_at = ?,
		paid_via = ?, fee = ?, credit_date = ? WHERE id = ?`, timestamp(s.PaidAt), s.Paid, s.Kind, timestamp(t.now),
		via, fee, nullString(creditDate), id)
	return err
}

// BookChargeIncome inserts the income entries of the charge's payment as
// s says (its amount, day, account, and reconciliation when s.Reconcile):
// the principal in the order's category, and a late payment's fine and
// interest each apart in theirs; marks the order's revenue booked, and
// answers the principal's token.
func (t *Tx) BookChargeIncome(c ChargeToSettle, s Settlement) (string, error) {
	var concil any
	if s.Reconcile {
		concil = s.Day
	}
	// Parts statement lines paid were booked as they came.
	principal := NewMoney(s.Paid.Sub(s.Fine.Decimal).Sub(s.Interest.Decimal).Sub(c.Due.Booked.Decimal))
	var first string
	// The fine and interest are financial incomes of the day paid, not
	// the sale's revenue: the accrual basis counts them apart from the
	// order (no sales_order_id), on that day.
	for _, e := range []struct {
		amount     Money
		desc       string
		category   int64
		competence string
		order      sql.NullInt64
	}{{principal, c.Description, c.Category, c.Due.DueDate, nullID(c.OrderID)}, {s.Fine, "Multa: " + c.Description, s.FineCategory, s.Day, sql.NullInt64{}},
		{s.Interest, "Juros: " + c.Description, s.InterestCategory, s.Day, sql.NullInt64{}}} {
		if !e.amount.IsPositive() {
			continue
		}
		tok := t.db.id()
		if first == "" {
			first = tok
		}
		if _, err := t.tx.ExecContext(t.ctx, `
			INSERT INTO entries (token, unit_id, type, description, value, value_cents, due_date, pay_day, competence_date,
				category_id, contact_id, bank_account_id, conciliation_date, active, created_at, updated_at, sales_order_id, charge_id)
			VALUES (?, ?, 'in', substr(?, 1, 255), ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
			tok, c.UnitID, e.desc, e.amount, e.amount.Cents(), c.Due.DueDate, s.Day, e.competence, nullID(e.category), nullID(c.Contact),
			nullID(s.Account), concil, timestamp(t.now), timestamp(t.now), e.order, c.ID); err != nil {
			return "", err
		}
	}
	_, err := t.tx.ExecContext(t.ctx, `UPDATE sales_orders SET revenue = 1, date_revenue = COALESCE(date_revenue, ?) WHERE id = ?`,
		timestamp(t.now), c.OrderID)
	return first, err
}

// GroupCategory is a category of a DRE group.
type GroupCategory struct {
	ID   int64
	Name string
}

// GroupCategories answers the unit's active categories of the DRE group
// of code, by name.
func (t *Tx) GroupCategories(unitID, code int64) ([]GroupCategory, error) {
	rows, err := t.tx.QueryContext(t.ctx, `SELECT id, name FROM categories WHERE unit_id = ? AND group_code = ? AND active = 1 ORDER BY sort_key, id`,
		unitID, code)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GroupCategory
	for rows.Next() {
		var g GroupCategory
		if err := rows.Scan(&g.ID, &g.Name); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// RecordChargePart records the part of the open charge of id that the
// statement line of lineToken paid (entry: the income it was booked as,
// "" none): received towards the charge, which stays open for the rest.
func (t *Tx) RecordChargePart(id int64, lineToken string, amount Money, entry string) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO charge_parts (charge_id, line_id, amount, entry_id, created_at)
		SELECT ?, l.id, ?, (SELECT id FROM entries WHERE token = ?), ? FROM statement_lines l WHERE l.token = ?`,
		id, amount.StringFixed(2), entry, timestamp(t.now), lineToken)
	return err
}

// PaidCharge is a paid charge as undoing its payment reads it.
type PaidCharge struct {
	ID, OrderID, UnitID int64
	Token, DueDate      string
}

// PaidChargeOf reads the paid charge of id; ErrNothingToPay when it is
// not paid.
func (t *Tx) PaidChargeOf(id int64) (PaidCharge, error) {
	c := PaidCharge{ID: id}
	err := t.tx.QueryRowContext(t.ctx, `SELECT c.order_id, o.unit_id, c.token, c.due_date FROM charges c JOIN sales_orders o ON o.id = c.order_id
		WHERE c.id = ? AND c.status = 'PAID'`, id).Scan(&c.OrderID, &c.UnitID, &c.Token, &c.DueDate)
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNothingToPay
	}
	return c, err
}

// ReopenCharge records the charge of id open again (status PENDING or
// OVERDUE), its payment forgotten.
func (t *Tx) ReopenCharge(id int64, status string) error {
	_, err := t.tx.ExecContext(t.ctx, `UPDATE charges SET status = ?, paid_at = NULL, paid_amount = NULL, settlement = NULL, paid_via = NULL, fee = NULL,
		credit_date = NULL, updated_at = ? WHERE id = ?`, status, timestamp(t.now), id)
	return err
}

// DisableChargeIncome disables the income entries the charge's payment
// booked (the principal, a fine, interest; entry too, booked before
// entries named their charge), the parts statement lines paid aside, and
// marks the order's revenue unbooked when no income of it is left.
func (t *Tx) DisableChargeIncome(chargeID, entry, orderID int64) error {
	if _, err := t.tx.ExecContext(t.ctx, `UPDATE entries SET active = 0, updated_at = ? WHERE active = 1 AND (id = ? OR (charge_id = ?
		AND id NOT IN (SELECT entry_id FROM charge_parts WHERE entry_id IS NOT NULL)))`, timestamp(t.now), entry, chargeID); err != nil {
		return err
	}
	_, err := t.tx.ExecContext(t.ctx, `UPDATE sales_orders SET revenue = EXISTS (SELECT 1 FROM entries WHERE sales_order_id = ? AND active = 1),
		date_revenue = CASE WHEN EXISTS (SELECT 1 FROM entries WHERE sales_order_id = ? AND active = 1) THEN date_revenue END WHERE id = ?`,
		orderID, orderID, orderID)
	return err
}

// UnmarkInvoiceDue withdraws the invoice a payment made due, while it is
// not issued and no charge of the order is paid.
func (t *Tx) UnmarkInvoiceDue(orderID int64) error {
	_, err := t.tx.ExecContext(t.ctx, `UPDATE sales_orders SET nf_status_text = NULL WHERE id = ? AND nf = 0 AND nf_status_text = ?
		AND NOT EXISTS (SELECT 1 FROM charges WHERE order_id = ? AND status = 'PAID')`, orderID, NFPendingText, orderID)
	return err
}

// RefreshOrder recomputes the order's charge status from its charges.
func (t *Tx) RefreshOrder(orderID int64) error { return t.db.refreshOrder(t.ctx, t.tx, orderID, t.now) }

// MarkInvoiceDue says on the order, while it has no invoice, that one is
// due for issuing (NFPendingText).
func (t *Tx) MarkInvoiceDue(orderID int64) error {
	_, err := t.tx.ExecContext(t.ctx, `UPDATE sales_orders SET nf_status_text = ? WHERE id = ? AND nf = 0`, NFPendingText, orderID)
	return err
}

// OrderChargeStatus answers the order's charge status and token.
func (t *Tx) OrderChargeStatus(orderID int64) (status, token string, err error) {
	err = t.tx.QueryRowContext(t.ctx, `SELECT charge_status, token FROM sales_orders WHERE id = ?`, orderID).Scan(&status, &token)
	return status, token, err
}

// EmitCharge queues the event typ (charge.paid, …) of the charge for the
// unit's webhooks.
func (t *Tx) EmitCharge(unitID int64, typ, chargeToken string) error {
	return t.db.emitCharge(t.ctx, t.tx, unitID, typ, chargeToken, t.now)
}
