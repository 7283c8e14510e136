package billing

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"fincom/store"
)

// Settle is how a confirmed payment settles an open charge, whatever its
// channel: in the channel's write, it reads the charge (tx.ChargeToSettle:
// not open is store.ErrNothingToPay), decides with the rules beside it
// (Rules.ApplyPayment: the amount against what is due, the day, the
// account credited, whether the income is booked and reconciled and the
// invoice made due), and writes what they decided: the charge paid, the
// income entry, the order's status and its invoice due, charge.paid for
// the webhooks. The effects after the commit (the e-mail, the invoice) are
// ApplyPayments'.
func Settle(tx *store.Tx, chargeID int64, in store.Settle) (store.Payment, error) {
	c, err := tx.ChargeToSettle(chargeID)
	if err != nil {
		return store.Payment{}, err
	}
	if in.Part {
		return settlePart(tx, c, in)
	}
	s, err := Rules{}.ApplyPayment(c.Due, in, tx.Now())
	if err != nil {
		return store.Payment{}, err
	}
	p := store.Payment{ChargeToken: c.Token, Installment: c.Installment, PaidAmount: s.Paid, Settlement: s.Kind, UnitID: c.UnitID, Via: in.Via}
	if err := tx.MarkChargePaid(c.ID, s, in.Via, in.CreditDate); err != nil {
		return p, err
	}
	if s.BookIncome {
		if s.Fine.IsPositive() || s.Interest.IsPositive() {
			if s.FineCategory, s.InterestCategory, err = lateCategories(tx, c.UnitID); err != nil {
				return store.Payment{}, err
			}
		}
		tok, err := tx.BookChargeIncome(c, s)
		if err != nil {
			return p, err
		}
		p.IncomeToken, p.Reconciled = store.NewText(tok), s.Reconcile
	}
	if err := tx.RefreshOrder(c.OrderID); err != nil {
		return p, err
	}
	if s.InvoiceDue {
		p.InvoiceDue = true
		if err := tx.MarkInvoiceDue(c.OrderID); err != nil {
			return p, err
		}
	}
	if p.OrderStatus, p.OrderToken, err = tx.OrderChargeStatus(c.OrderID); err != nil {
		return p, err
	}
	return p, tx.EmitCharge(c.UnitID, "charge.paid", c.Token)
}

// settlePix applies a Pix the unit's PSP confirmed to its open charge of
// txid, once per end-to-end id, on the day it was paid (YYYY-MM-DD):
// store.ErrPixApplied for a Pix applied before, store.ErrNothingToPay
// when the charge is not open. A Pix of another amount than the charge
// asks that day (pixAsks) is recorded held and settles nothing
// (store.ErrPixHeld) until a person decides (DecidePix): a R$ 0,01 Pix
// never pays a R$ 100,00 charge.
func settlePix(ctx context.Context, db *store.DB, unitID int64, txid, e2e string, amount store.Money, day string) (store.Payment, error) {
	var p store.Payment
	held := false
	err := db.Write(ctx, func(tx *store.Tx) error {
		if applied, err := tx.PixApplied(e2e); err != nil || applied {
			if err == nil {
				err = store.ErrPixApplied
			}
			return err
		}
		id, err := tx.OpenPSPCharge(unitID, txid)
		if err != nil {
			return err
		}
		c, err := tx.ChargeToSettle(id)
		if err != nil {
			return err
		}
		if asked := pixAsks(c, day); !amount.Equal(asked.Decimal) {
			held = true
			return tx.HoldPix(e2e, id, amount, asked, day)
		}
		if err := tx.RecordPix(e2e, id, amount, day); err != nil {
			return err
		}
		p, err = Settle(tx, id, store.Settle{Amount: &amount, Via: store.PaidPSP, Day: day})
		return err
	})
	if err == nil && held {
		err = store.ErrPixHeld
	}
	return p, err
}

// settlePart receives part of an open charge (a statement line smaller
// than what the charge asks): less than its principal's rest, else
// store.ErrAmountMismatch; booked as an income of its own as the charge's
// payment would be (the order's in_automation), the charge open for the
// rest (Owed deducts it). No e-mail or invoice follows a part.
func settlePart(tx *store.Tx, c store.ChargeToSettle, in store.Settle) (store.Payment, error) {
	if in.Amount == nil || !in.Amount.IsPositive() || !in.Amount.LessThan(Rules{}.Owed(c.Due, in.Day).Principal.Decimal) {
		return store.Payment{}, store.ErrAmountMismatch
	}
	s, err := Rules{}.ApplyPayment(c.Due, in, tx.Now())
	if err != nil {
		return store.Payment{}, err
	}
	s.Paid, s.Kind, s.Fine, s.Interest = *in.Amount, store.SettlementPartial, store.Money{}, store.Money{}
	p := store.Payment{ChargeToken: c.Token, Installment: c.Installment, PaidAmount: s.Paid, Settlement: s.Kind, UnitID: c.UnitID, Via: in.Via, Part: true}
	if s.BookIncome {
		c.Due.Booked = store.Money{}
		tok, err := tx.BookChargeIncome(c, s)
		if err != nil {
			return p, err
		}
		p.IncomeToken, p.Reconciled = store.NewText(tok), s.Reconcile
	}
	p.OrderStatus, p.OrderToken, err = tx.OrderChargeStatus(c.OrderID)
	return p, err
}

// Unsettle undoes the payment of a paid charge that a statement line
// made, as undoing the line asks (store.UnsettleFunc): the charge is open
// again (overdue when its due date has passed), the income entries its
// payment booked (entry, the line's, among them) are disabled, an invoice
// the payment made due and not issued is no longer due, and
// charge.reopened tells the webhooks. An invoice issued stands: it is the
// sale's, not the payment's.
func Unsettle(tx *store.Tx, chargeID, entry int64) error {
	c, err := tx.PaidChargeOf(chargeID)
	if err != nil {
		return err
	}
	status := store.ChargePending
	if c.DueDate < store.Today(tx.Now()).ISO() {
		status = store.ChargeOverdue
	}
	if err := tx.ReopenCharge(chargeID, status); err != nil {
		return err
	}
	if err := tx.DisableChargeIncome(chargeID, entry, c.OrderID); err != nil {
		return err
	}
	if err := tx.RefreshOrder(c.OrderID); err != nil {
		return err
	}
	if err := tx.UnmarkInvoiceDue(c.OrderID); err != nil {
		return err
	}
	return tx.EmitCharge(c.UnitID, "charge.reopened", c.Token)
}

// financialIncomes is the DRE group of financial incomes (interest and
// fines received, discounts obtained).
const financialIncomes = 103

// lateCategories are the unit's categories of a late payment's fine and
// interest among its financial incomes: the one named for fines ("Multas
// recebidas"), else for interest, and the one named for interest ("Juros
// recebidos"), else the group's first; 0 when the group has none.
func lateCategories(tx *store.Tx, unitID int64) (fine, interest int64, err error) {
	cats, err := tx.GroupCategories(unitID, financialIncomes)
	if err != nil || len(cats) == 0 {
		return 0, 0, err
	}
	named := func(prefix string) int64 {
		for _, c := range cats {
			if strings.HasPrefix(store.Fold(c.Name), prefix) {
				return c.ID
			}
		}
		return 0
	}
	interest = cmp.Or(named("juros"), cats[0].ID)
	return cmp.Or(named("multa"), interest), interest, nil
}

// pixAsks is what a Pix paid on day (YYYY-MM-DD) must bring to settle the
// charge: what it owes that day (Rules.Owed: a PIX with due date's fine
// and interest after it; orders carry no discount), less what Pix kept
// towards it brought.
func pixAsks(c store.ChargeToSettle, day string) store.Money {
	return Rules{}.Owed(c.Due, day).Total()
}

// Decisions on a held Pix (DecidePix).
const (
	PixAccept = "accept" // the charge's payment, as it came
	PixKeep   = "keep"   // towards the charge, open for the rest
	PixRefund = "refund" // back to its payer, whole
)

// DecidePix carries out a person's decision on a held Pix of the unit's
// order (PixAccept, PixKeep or PixRefund), in one write that records it
// (audited): accepted, it settles its charge as any payment does (its
// e-mail, its invoice when due), the amount as it came; kept, it counts
// towards the charge, which stays open for the rest, and only a Pix of
// less than the charge asks is kept (store.ErrPixKeepOver); refunded,
// its whole amount is asked back of the PSP as every refund is. A Pix not
// held is store.ErrPixDecided; accepting or keeping one whose charge is
// no longer open is store.ErrNothingToPay (it can still be refunded).
func (s *Service) DecidePix(ctx context.Context, db *store.DB, unitID int64, orderToken, e2e, decision, reason string) error {
	switch decision {
	case PixAccept:
		_, err := s.ApplyPayments(ctx, db, func() ([]store.Payment, error) {
			var p store.Payment
			err := db.Write(ctx, func(tx *store.Tx) error {
				h, chargeID, err := heldPix(tx, unitID, orderToken, e2e)
				if err != nil {
					return err
				}
				if p, err = Settle(tx, chargeID, store.Settle{Amount: &h.Amount, Via: store.PaidPSP, Day: h.PaidDate}); err != nil {
					return err
				}
				return tx.DecidePix(e2e, store.PixAccepted)
			})
			return []store.Payment{p}, err
		})
		return err
	case PixKeep:
		return db.Write(ctx, func(tx *store.Tx) error {
			h, chargeID, err := heldPix(tx, unitID, orderToken, e2e)
			if err != nil {
				return err
			}
			c, err := tx.ChargeToSettle(chargeID)
			if err != nil {
				return err
			}
			if !h.Amount.LessThan(pixAsks(c, h.PaidDate).Decimal) {
				return store.ErrPixKeepOver
			}
			return tx.DecidePix(e2e, store.PixKept)
		})
	case PixRefund:
		if s.PSPs == nil {
			return ErrPSPGone
		}
		cl, ok, err := s.PSPs.Client(ctx, db, unitID)
		if err != nil || !ok {
			return errors.Join(err, ErrPSPGone)
		}
		var f store.PSPRefund
		err = db.Write(ctx, func(tx *store.Tx) error {
			h, _, err := heldPix(tx, unitID, orderToken, e2e)
			if err != nil {
				return err
			}
			if f, err = tx.RequestHeldRefund(unitID, h, reason); err != nil {
				return err
			}
			return tx.DecidePix(e2e, store.PixRefunded)
		})
		if err != nil {
			return err
		}
		_, err = s.askRefund(ctx, db, cl, f)
		return err
	}
	return fmt.Errorf("%w: a held PIX is accepted, kept or refunded", store.ErrInvalidValue)
}

// heldPix is the order's Pix of e2e, held for a decision.
func heldPix(tx *store.Tx, unitID int64, orderToken, e2e string) (store.HeldPix, int64, error) {
	h, chargeID, err := tx.PixOfOrder(unitID, orderToken, e2e)
	if err == nil && h.Status != store.PixHeld {
		err = store.ErrPixDecided
	}
	return h, chargeID, err
}

// settleFirm settles the order's open charge of installment n (0: the
// first open one) with a payment the firm received outside fincom's
// channels (cash, a transfer it saw at its bank), day "" today, into the
// unit's account of token accountToken when given.
func settleFirm(ctx context.Context, db *store.DB, unitID int64, orderToken string, n int, amount *store.Money, day, accountToken string) (store.Payment, error) {
	var p store.Payment
	err := db.Write(ctx, func(tx *store.Tx) error {
		id, err := tx.OpenChargeOfOrder(unitID, orderToken, n)
		if err != nil {
			return err
		}
		var account int64
		if accountToken != "" {
			if account, err = tx.ActiveAccount(unitID, accountToken); err != nil {
				return err
			}
		}
		p, err = Settle(tx, id, store.Settle{Amount: amount, Via: store.PaidFirm, Day: day, BankAccountID: account})
		return err
	})
	return p, err
}

// applyReturn applies a return file of the unit's agreement with the
// provider's bank in one write: registrations, rejections (with the
// bank's reason), payments (settled as every confirmed payment is, paid
// on the bank's date with its fee and credit date) and write-offs. The
// same file (by its SHA-256) twice changes nothing and answers the first
// import's report. read has the file's events as the agreement's (its
// error refuses the whole file). A payment the bank dates after today, or not at all, is
// reported and not settled; one for a charge paid or cancelled here is
// reported as such.
func applyReturn(ctx context.Context, db *store.DB, unitID int64, provider, sha, name string,
	read func(store.Agreement) ([]store.ReturnEvent, error)) (store.ReturnReport, error) {
	var rep store.ReturnReport
	err := db.Write(ctx, func(tx *store.Tx) error {
		rep = store.ReturnReport{Provider: provider, Lines: []store.ReturnLine{}}
		a, err := tx.AgreementOf(unitID, provider)
		if err != nil {
			return err
		}
		events, err := read(a)
		if err != nil {
			return err
		}
		if stored, found, err := tx.ReturnFileReport(a.ID, sha); err != nil || found {
			if err == nil {
				err = json.Unmarshal([]byte(stored), &rep)
				rep.Duplicate = true
			}
			return err
		}
		today := store.Today(tx.Now()).ISO()
		for _, e := range events {
			l := store.ReturnLine{Line: e.Line, OurNumber: e.OurNumber, Movement: e.Movement, Detail: e.MovementText}
			id, token, status, found, err := tx.ChargeOfOurNumber(a.ID, e.OurNumber)
			if err != nil {
				return err
			}
			if !found {
				l.Outcome, l.Detail = "unknown_charge", "no charge of this agreement has this our-number; "+e.MovementText
				rep.Lines = append(rep.Lines, l)
				continue
			}
			l.ChargeToken = store.NewText(token)
			switch e.Event {
			case "registered":
				l.Outcome = "registered"
				err = tx.MarkRegistered(id)
			case "rejected":
				l.Outcome, l.Detail = "rejected", e.Reason
				err = tx.MarkRejected(id, e.Reason)
			case "paid":
				switch {
				case status == store.ChargeCancelled:
					l.Outcome, l.Detail = "ignored", "paid at the bank after it was cancelled here: refund or re-open it"
				case status != store.ChargePending && status != store.ChargeOverdue:
					l.Outcome = "already_paid"
				case e.Occurred == "":
					l.Outcome, l.Detail = "not_settled", "the bank gives no payment date: reported, not settled"
				case e.Occurred > today:
					l.Outcome, l.Detail = "not_settled", "the bank dates the payment "+e.Occurred+", after today: reported, not settled"
				default:
					fee := e.Fee
					p, serr := Settle(tx, id, store.Settle{Amount: &e.Paid, Via: store.PaidReturn, Day: e.Occurred, Fee: &fee, CreditDate: e.Credited})
					if serr != nil {
						return serr
					}
					l.Outcome = "paid"
					rep.Payments = append(rep.Payments, p)
					err = tx.MarkRegisteredByPayment(id)
				}
			case "written_off":
				l.Outcome = "written_off"
				err = tx.MarkWrittenOff(id)
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
		return tx.KeepReturnFile(a.ID, sha, name, string(b))
	})
	return rep, err
}
