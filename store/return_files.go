package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// ReturnEvent is one title's movement in a bank's return file, as package
// bank reads it.
type ReturnEvent struct {
	Line         int
	Event        string // registered, paid, rejected, written_off, other
	Movement     string
	MovementText string
	OurNumber    int64
	Paid         Money
	Fee          Money
	Occurred     string // YYYY-MM-DD
	Credited     string
	Reason       string
}

// ReturnLine is what importing a return file did with one of its lines.
type ReturnLine struct {
	Line      int    `json:"line" doc:"The line's number in the file."`
	OurNumber int64  `json:"our_number" doc:"The boleto's number at its bank (nosso número)."`
	Movement  string `json:"movement" doc:"The bank's movement code."`
	// Outcome: registered, rejected, paid, written_off, already_paid,
	// unknown_charge (no charge has the our-number: reported, not
	// dropped), not_settled (a payment dated after today or not dated),
	// ignored (a movement that changes nothing).
	Outcome     string `json:"outcome" enum:"registered,rejected,paid,written_off,already_paid,unknown_charge,not_settled,ignored" doc:"What the line did: registered, rejected, paid, written_off, already_paid, unknown_charge (no charge has the number: reported, not dropped), not_settled (a payment dated after today or not dated) or ignored."`
	ChargeToken Text   `json:"charge_token" doc:"The charge it is of; null when none."`
	Detail      string `json:"detail" doc:"Its particulars, in words."`
}

// ReturnReport is the outcome of a return file.
type ReturnReport struct {
	Provider string `json:"provider" doc:"The bank the file is of."`
	// Duplicate: the same file was imported before; nothing changed and
	// the first import's report is answered.
	Duplicate bool         `json:"duplicate" doc:"true: the same file was imported before; nothing changed and the first import's report is answered."`
	Lines     []ReturnLine `json:"lines" doc:"Each line's outcome."`
	// Payments are the payments the file confirmed, for the invoices
	// they make due.
	Payments []Payment `json:"-"`
}

// ApplyReturn applies a return file of the unit's agreement in one
// transaction: registrations, rejections (with the bank's reason),
// payments (settled as every confirmed payment is, paid on the bank's
// date with its fee and credit date) and write-offs. The same file (by
// its SHA-256) twice changes nothing. accept sees the agreement first: its
// error refuses the whole file. A payment the bank dates after today, or
// not at all, is reported and not settled.
func (db *DB) ApplyReturn(ctx context.Context, unitID int64, provider, sha, name string, events []ReturnEvent, accept func(Agreement) error) (ReturnReport, error) {
	rep := ReturnReport{Provider: provider, Lines: []ReturnLine{}}
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		a, err := agreementFor(ctx, tx, unitID, provider)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNoAgreement
		}
		if err != nil {
			return err
		}
		if err := accept(a); err != nil {
			return err
		}
		var stored string
		err = tx.QueryRowContext(ctx, `SELECT report FROM return_files WHERE agreement_id = ? AND sha256 = ?`, a.ID, sha).Scan(&stored)
		if err == nil {
			if err := json.Unmarshal([]byte(stored), &rep); err != nil {
				return err
			}
			rep.Duplicate = true
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		for _, e := range events {
			l := ReturnLine{Line: e.Line, OurNumber: e.OurNumber, Movement: e.Movement, Detail: e.MovementText}
			var id int64
			var token, status string
			err := tx.QueryRowContext(ctx, `SELECT id, token, status FROM charges WHERE agreement_id = ? AND our_number = ?`,
				a.ID, e.OurNumber).Scan(&id, &token, &status)
			if errors.Is(err, sql.ErrNoRows) {
				l.Outcome, l.Detail = "unknown_charge", "no charge of this agreement has this our-number; "+e.MovementText
				rep.Lines = append(rep.Lines, l)
				continue
			}
			if err != nil {
				return err
			}
			l.ChargeToken = NewText(token)
			switch e.Event {
			case "registered":
				l.Outcome = "registered"
				_, err = tx.ExecContext(ctx, `UPDATE charges SET registration = 'registered', registration_reason = NULL, updated_at = ?
					WHERE id = ? AND registration IN ('pending', 'sent', 'rejected')`, timestamp(now), id)
			case "rejected":
				l.Outcome, l.Detail = "rejected", e.Reason
				_, err = tx.ExecContext(ctx, `UPDATE charges SET registration = 'rejected', registration_reason = ?, updated_at = ? WHERE id = ?`,
					e.Reason, timestamp(now), id)
			case "paid":
				if status != ChargePending && status != ChargeOverdue {
					l.Outcome = "already_paid"
					if status == ChargeCancelled {
						l.Outcome, l.Detail = "ignored", "paid at the bank after it was cancelled here: refund or re-open it"
					}
					break
				}
				if e.Occurred == "" {
					l.Outcome, l.Detail = "not_settled", "the bank gives no payment date: reported, not settled"
					break
				}
				if e.Occurred > Today(now).ISO() {
					l.Outcome, l.Detail = "not_settled", "the bank dates the payment "+e.Occurred+", after today: reported, not settled"
					break
				}
				fee := e.Fee
				p, serr := db.recordSettlement(ctx, tx, id, Settle{Amount: &e.Paid, Via: PaidReturn, Day: e.Occurred, Fee: &fee, CreditDate: e.Credited}, now)
				if serr != nil {
					return serr
				}
				l.Outcome = "paid"
				rep.Payments = append(rep.Payments, p)
				_, err = tx.ExecContext(ctx, `UPDATE charges SET registration = 'registered' WHERE id = ? AND registration IN ('pending', 'sent')`, id)
			case "written_off":
				l.Outcome = "written_off"
				_, err = tx.ExecContext(ctx, `UPDATE charges SET writeoff = 'done', updated_at = ? WHERE id = ?`, timestamp(now), id)
			default:
				l.Outcome = "ignored"
			}
			if err != nil {
				return err
			}
			rep.Lines = append(rep.Lines, l)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO return_files (agreement_id, sha256, name, report, imported_at) VALUES (?, ?, ?, ?, ?)`,
			a.ID, sha, nullString(name), string(b), timestamp(now))
		return err
	})
	return rep, wrap("apply return", err)
}
