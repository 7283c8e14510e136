package billing

import (
	"context"

	"fincom/store"
)

// settle is how a confirmed payment settles an open charge, whatever its
// channel: in the channel's write, it reads the charge (tx.ChargeToSettle:
// not open is store.ErrNothingToPay), decides with the rules beside it
// (Rules.ApplyPayment: the amount against what is due, the day, the
// account credited, whether the income is booked and reconciled and the
// invoice made due), and writes what they decided: the charge paid, the
// income entry, the order's status and its invoice due, charge.paid for
// the webhooks. The effects after the commit (the e-mail, the invoice) are
// ApplyPayments'.
func settle(tx *store.Tx, chargeID int64, in store.Settle) (store.Payment, error) {
	c, err := tx.ChargeToSettle(chargeID)
	if err != nil {
		return store.Payment{}, err
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
// when the charge is not open.
func settlePix(ctx context.Context, db *store.DB, unitID int64, txid, e2e string, amount store.Money, day string) (store.Payment, error) {
	var p store.Payment
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
		if err := tx.RecordPix(e2e, id, amount, day); err != nil {
			return err
		}
		p, err = settle(tx, id, store.Settle{Amount: &amount, Via: store.PaidPSP, Day: day})
		return err
	})
	return p, err
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
		p, err = settle(tx, id, store.Settle{Amount: amount, Via: store.PaidFirm, Day: day, BankAccountID: account})
		return err
	})
	return p, err
}
