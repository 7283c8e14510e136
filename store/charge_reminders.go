package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"
)

// ReminderCandidate is an open charge a reminder may be due for on a day:
// what the reminder says and attaches, the facts what it asks is decided
// by (Due), its order's notice before the due date (NotifyDays), its
// unit's schedule (Steps: "0,3,10"), the steps sent, and whether one was
// sent that day.
type ReminderCandidate struct {
	ChargeToken, OrderToken, PublicToken, Email      string
	Seller, Customer, OrderCode, Description         string
	PaymentKey, BoletoLine, PixPayload, Registration string
	Installment, NotifyDays                          int
	Due                                              ChargeDue
	Steps, UnitCityIBGE                              string
	Sent                                             []int
	SentToday                                        bool
	UnitID                                           int64
}

// reminderSelect reads ReminderCandidates; its first argument is the day
// a reminder may have been sent on.
const reminderSelect = `
		SELECT c.token, o.token, o.public_token, o.notify_email_charge, un.name, COALESCE(ct.display_name, ''), o.cod_orders, o.description,
			c.payment_key, COALESCE(c.boleto_line, ''), COALESCE(c.pix_payload, ''), COALESCE(c.registration, ''), c.installment,
			o.notify_days_charge, c.amount, c.due_date, c.agreement_id IS NOT NULL, COALESCE(c.provider_ref, ''),
			` + receivedSelect + `,
			un.reminder_days, COALESCE((SELECT group_concat(step) FROM charge_reminders r WHERE r.charge_id = c.id AND r.due_date = c.due_date AND r.step IS NOT NULL), ''),
			EXISTS (SELECT 1 FROM charge_reminders r WHERE r.charge_id = c.id AND r.day = ?), o.unit_id, ` + frozenSelect + `,
			COALESCE(un.city_ibge, ''), ` + termsSelect + `
		FROM charges c JOIN sales_orders o ON o.id = c.order_id JOIN units un ON un.id = o.unit_id
		LEFT JOIN bank_agreements a ON a.id = c.agreement_id
		LEFT JOIN contacts ct ON ct.id = o.contact_id
		WHERE c.status IN ('PENDING', 'OVERDUE') AND o.active = 1 AND o.public_token IS NOT NULL`

// ReminderCandidates answers the open charges of active orders with an
// address for their charge and a payment page whose first reminder's day
// (notify_days_charge before the due date, else the due date) is day or
// before.
func (db *DB) ReminderCandidates(ctx context.Context, day Date) ([]ReminderCandidate, error) {
	out, err := db.reminderCandidates(ctx, reminderSelect+` AND o.notify_email_charge IS NOT NULL
			AND date(c.due_date, '-' || max(o.notify_days_charge, 0) || ' days') <= ? ORDER BY c.due_date, c.id`, day.ISO(), day.ISO())
	return out, wrap("reminder candidates", err)
}

// OrderReminderCandidate answers the first open charge of the unit's
// order as a reminder of it on day reads it; ErrNoChargeToResend when it
// has none.
func (db *DB) OrderReminderCandidate(ctx context.Context, unitID int64, orderToken string, day Date) (ReminderCandidate, error) {
	out, err := db.reminderCandidates(ctx, reminderSelect+` AND o.unit_id = ? AND o.token = ? ORDER BY c.installment, c.id LIMIT 1`,
		day.ISO(), unitID, orderToken)
	if err == nil && len(out) == 0 {
		err = ErrNoChargeToResend
	}
	if err != nil {
		return ReminderCandidate{}, wrap("order reminder", err)
	}
	return out[0], nil
}

func (db *DB) reminderCandidates(ctx context.Context, q string, args ...any) ([]ReminderCandidate, error) {
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ReminderCandidate
	for rows.Next() {
		var c ReminderCandidate
		var received, sent, frozen, terms string
		var email sql.NullString
		if err := rows.Scan(&c.ChargeToken, &c.OrderToken, &c.PublicToken, &email, &c.Seller, &c.Customer, &c.OrderCode, &c.Description,
			&c.PaymentKey, &c.BoletoLine, &c.PixPayload, &c.Registration, &c.Installment, &c.NotifyDays, &c.Due.Amount, &c.Due.DueDate,
			&c.Due.Registered, &c.Due.Ref, &received, &c.Steps, &sent, &c.SentToday, &c.UnitID, &frozen, &c.UnitCityIBGE, &terms); err != nil {
			return nil, err
		}
		if err := errors.Join(c.Due.readFrozen(frozen), c.Due.readTerms(terms)); err != nil {
			return nil, err
		}
		c.Email = email.String
		if err := c.Due.readReceived(received); err != nil {
			return nil, err
		}
		for _, s := range strings.Split(sent, ",") {
			if n, err := strconv.Atoi(s); err == nil {
				c.Sent = append(c.Sent, n)
			}
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Reminder is a reminder of a charge to record as sent: its step (nil a
// person's resend), the day, what the charge asked that day and its
// parts, the channel; Notice the e-mail queued with it.
type Reminder struct {
	ChargeToken               string
	Step                      *int
	Day                       string
	AmountDue, Fine, Interest Money
	Channel                   string
}

// RecordReminder records, in one write, a reminder of the unit's open
// charge: the reminder itself (a step once: sent false when it was
// before, or when the charge is no longer open), its e-mail queued, the
// order's history (portal_events: reminder_sent) and charge.reminder_sent
// for the webhooks, with the step, the amount due and the channel.
func (db *DB) RecordReminder(ctx context.Context, unitID int64, r Reminder, n *Notice) (sent bool, err error) {
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var chargeID, orderID int64
		var order string
		err := tx.QueryRowContext(ctx, `SELECT c.id, o.id, o.token FROM charges c JOIN sales_orders o ON o.id = c.order_id
			WHERE o.unit_id = ? AND c.token = ? AND c.status IN ('PENDING', 'OVERDUE')`, unitID, r.ChargeToken).Scan(&chargeID, &orderID, &order)
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return err
		}
		var step sql.NullInt64
		if r.Step != nil {
			step = sql.NullInt64{Int64: int64(*r.Step), Valid: true}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO charge_reminders (charge_id, due_date, step, day, amount_due, channel, created_at)
			SELECT ?, due_date, ?, ?, ?, ?, ? FROM charges WHERE id = ? ON CONFLICT DO NOTHING`,
			chargeID, step, r.Day, r.AmountDue.StringFixed(2), r.Channel, timestamp(now), chargeID)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return nil
		}
		if err := queueNotice(ctx, tx, unitID, orderID, n, now, db.id); err != nil {
			return err
		}
		detail := "lembrete pedido por uma pessoa"
		if r.Step != nil {
			detail = "lembrete da régua de cobrança (" + stepWords(*r.Step) + ")"
		}
		detail += ": " + r.AmountDue.StringFixed(2) + " por " + r.Channel
		if _, err := tx.ExecContext(ctx, `INSERT INTO portal_events (order_id, kind, detail, created_at) VALUES (?, 'reminder_sent', ?, ?)`,
			orderID, detail, timestamp(now)); err != nil {
			return err
		}
		c, err := scanCharge(tx.QueryRowContext(ctx, chargeSelect+` WHERE c.id = ?`, chargeID))
		if err != nil {
			return err
		}
		trigger := "resend"
		if r.Step != nil {
			trigger = "schedule"
		}
		sent = true
		return db.emit(ctx, tx, unitID, "charge.reminder_sent", map[string]any{"id_token_sales_order": order, "charge": c, "step": r.Step,
			"trigger": trigger, "day": r.Day, "amount_due": r.AmountDue, "fine": r.Fine, "interest": r.Interest, "channel": r.Channel}, now)
	})
	return sent, wrap("record reminder", err)
}

// stepWords says a step in the order's history: "3 dias após o
// vencimento", "no vencimento", "2 dias antes do vencimento".
func stepWords(step int) string {
	switch {
	case step == 0:
		return "no vencimento"
	case step == 1:
		return "1 dia após o vencimento"
	case step == -1:
		return "1 dia antes do vencimento"
	case step < 0:
		return strconv.Itoa(-step) + " dias antes do vencimento"
	}
	return strconv.Itoa(step) + " dias após o vencimento"
}

// ReminderDays answers the unit's collection schedule ("0,3,10"; ""
// none).
func (db *DB) ReminderDays(ctx context.Context, unitID int64) (string, error) {
	var days string
	err := db.r.QueryRowContext(ctx, `SELECT reminder_days FROM units WHERE id = ?`, unitID).Scan(&days)
	return days, wrap("reminder days", notFound(err))
}

// SetReminderDays sets the unit's collection schedule to days (the
// rules' reading of it) through check, which sees the schedule before
// and answers the record the audit log keeps of the change.
func (db *DB) SetReminderDays(ctx context.Context, unitID int64, days string, check func(was string) (string, error)) error {
	return wrap("set reminder days", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var was string
		if err := tx.QueryRowContext(ctx, `SELECT reminder_days FROM units WHERE id = ?`, unitID).Scan(&was); err != nil {
			return notFound(err)
		}
		record, err := check(was)
		if err != nil {
			return err
		}
		setAuditRecord(ctx, record)
		_, err = tx.ExecContext(ctx, `UPDATE units SET reminder_days = ? WHERE id = ?`, days, unitID)
		return err
	}))
}

// ReissueCharge records that the unit's open charge was issued anew at its
// PSP on day (a PIX with due date past its validity): the fine and
// interest it froze (late), and its new reference, txid and PIX code.
func (db *DB) ReissueCharge(ctx context.Context, unitID int64, chargeToken, day string, late Money, ref, txid, payload string) error {
	return wrap("reissue charge", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT c.id FROM charges c JOIN sales_orders o ON o.id = c.order_id WHERE o.unit_id = ? AND c.token = ?
			AND c.status IN ('PENDING', 'OVERDUE')`, unitID, chargeToken).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNothingToPay
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO charge_reissues (charge_id, day, late, txid, created_at) VALUES (?, ?, ?, ?, ?)`,
			id, day, late.StringFixed(2), txid, timestamp(now)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE charges SET provider_ref = ?, pix_txid = ?, pix_payload = ?, updated_at = ? WHERE id = ?`,
			ref, txid, payload, timestamp(now), id)
		return err
	}))
}

// OrderPDFInMail reports whether the unit's charge e-mails carry the
// order's PDF.
func (db *DB) OrderPDFInMail(ctx context.Context, unitID int64) (bool, error) {
	var on bool
	err := db.r.QueryRowContext(ctx, `SELECT order_pdf_mail FROM units WHERE id = ?`, unitID).Scan(&on)
	return on, wrap("order pdf in mail", notFound(err))
}

// SetOrderPDFInMail sets whether the unit's charge e-mails carry the
// order's PDF, audited before and after.
func (db *DB) SetOrderPDFInMail(ctx context.Context, unitID int64, on bool) error {
	return wrap("set order pdf in mail", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var was bool
		if err := tx.QueryRowContext(ctx, `SELECT order_pdf_mail FROM units WHERE id = ?`, unitID).Scan(&was); err != nil {
			return notFound(err)
		}
		setAuditRecord(ctx, "order-pdf-mail: "+strconv.FormatBool(was)+" → "+strconv.FormatBool(on))
		_, err := tx.ExecContext(ctx, `UPDATE units SET order_pdf_mail = ? WHERE id = ?`, on, unitID)
		return err
	}))
}
