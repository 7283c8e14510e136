package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/server/provider"
	"fincom/store"
)

var (
	errOrderDisabled   = newError(http.StatusConflict, textOrderDisabled)
	errChargePaid      = newError(http.StatusConflict, textChargePaid)
	errNothingToCancel = newError(http.StatusConflict, textNothingToCancel)
	errNothingToResend = newError(http.StatusConflict, textNothingToResend)
	errNoChargeEmail   = newError(http.StatusBadRequest, textNoChargeEmail)
	errProviderRefused = newError(http.StatusUnprocessableEntity, textProviderRefused)
	errProviderDown    = newError(http.StatusBadGateway, textProviderDown)
	errUnknownProvider = newError(http.StatusUnprocessableEntity, textUnknownProvider)
	errNothingToPay    = newError(http.StatusConflict, textNothingToPay)
	errOnlinePayment   = newError(http.StatusConflict, textOnlinePayment)
	// errAmountRange: a confirmed amount (with a late payment's fees) past
	// the money range.
	errAmountRange      = newError(http.StatusBadRequest, fmt.Sprintf(textMoneyRange, "amount"))
	errPortalNotFound   = newError(http.StatusNotFound, textPortalNotFound)
	errTooManyRequests  = newError(http.StatusTooManyRequests, textTooManyRequests)
	errUnknownEventKind = newError(http.StatusBadRequest, textUnknownEvent)
)

// paymentURL is the portal page of an order's public token.
func (s *Server) paymentURL(publicToken string) string {
	return s.cfg.PublicURL + Prefix + "/sales_orders/public_payment/" + publicToken
}

// notice renders an e-mail for the outbox; none when there is no address.
func (s *Server) notice(kind, to, dedupe string, md render.MailData) (*store.Notice, error) {
	if to == "" {
		return nil, nil
	}
	subject, body, err := s.render.Mail(kind, md)
	if err != nil {
		return nil, err
	}
	return &store.Notice{Kind: kind, To: to, Subject: subject, Body: body, DedupeKey: dedupe}, nil
}

// mailData is what an e-mail says of an order's charge.
func (s *Server) mailData(seller, customer, code, description, publicToken string, c store.Charge) render.MailData {
	return render.MailData{Seller: seller, Customer: customer, OrderCode: code, Description: description,
		Amount: render.BRL(c.Amount.String()), DueDate: render.DateBR(c.DueDate), PaymentURL: s.paymentURL(publicToken)}
}

// chargeAnswer is the data of /generate_charge.
type chargeAnswer struct {
	IDToken      string         `json:"id_token"`
	ChargeStatus string         `json:"charge_status"`
	PaymentURL   string         `json:"payment_url"`
	Charges      []store.Charge `json:"charges"`
}

// generateCharge issues the order's charges through its provider: one per
// installment, each asked with an idempotency key, outside any database
// transaction. A retry (after a timeout, or a crash between the provider's
// answer and the write) asks again with the same key and gets the same
// charge: an installment is never charged twice. An order already charged
// answers its charges.
func (s *Server) generateCharge(r *request) (any, error) {
	var q idRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	if err := s.IssueCharges(r.ctx, r.db, r.unit.ID, q.IDToken); err != nil {
		return nil, err
	}
	return s.chargeState(r, q.IDToken, "Charge generated successfully.")
}

// IssueCharges issues an order's charges (see generateCharge); the
// scheduler's contract billing calls it too.
func (s *Server) IssueCharges(ctx context.Context, db *store.DB, unitID int64, orderToken string) error {
	plan, err := db.PrepareCharges(ctx, unitID, orderToken)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errSalesOrderNotFound
	case errors.Is(err, store.ErrOrderDisabled):
		return errOrderDisabled
	case err != nil:
		return err
	}
	order, err := db.SalesOrder(ctx, unitID, orderToken)
	if err != nil {
		return err
	}
	city := "BRASIL"
	if m, ok := brdoc.LookupIBGE(plan.UnitCityIBGE); ok {
		city = m.Name
	}
	for _, c := range plan.Charges {
		if c.Status != store.ChargeIssuing {
			continue
		}
		p, ok := s.cfg.Providers[c.Provider]
		if !ok {
			db.CancelCharges(ctx, unitID, orderToken)
			return errUnknownProvider
		}
		due, _ := store.ParseDateISO(c.DueDate)
		card := 1
		if c.CardInstallments != nil {
			card = *c.CardInstallments
		}
		issued, err := p.Issue(ctx, provider.Request{IdempotencyKey: c.IdempotencyKey(), PaymentKey: c.PaymentKey,
			Amount: c.Amount.Decimal, DueDate: due.Time, PixKey: c.PixKey(), MerchantName: plan.UnitName, MerchantCity: city,
			CardInstallments: card})
		if errors.Is(err, provider.ErrRefused) {
			// A refused charge is no charge: the installment may be charged
			// again once the order is fixed.
			if cerr := db.CancelCharges(ctx, unitID, orderToken); cerr != nil && !errors.Is(cerr, store.ErrNothingToCancel) {
				return cerr
			}
			return errProviderRefused
		}
		if err != nil {
			s.log.Warn("provider call failed", "provider", p.Name(), "err", err)
			return errProviderDown // the charge stays ISSUING; a retry is safe
		}
		notice, err := s.notice("charge_created", order.NotifyEmailCharge.String, "charge_created:"+c.Token,
			s.mailData(order.UnitName, order.ContactName.String, order.CodOrders, order.Description, plan.PublicToken, c))
		if err != nil {
			return err
		}
		if err := db.CompleteCharge(ctx, c.Token, store.IssuedCharge{Ref: issued.Ref, BoletoLine: issued.BoletoLine,
			BoletoBarcode: issued.BoletoBarcode, PixPayload: issued.PixPayload, PixTxID: issued.PixTxID}, notice); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) chargeState(r *request, orderToken, message string) (any, error) {
	order, err := r.db.SalesOrder(r.ctx, r.unit.ID, orderToken)
	if err != nil {
		return nil, err
	}
	all, err := r.db.SalesOrderCharges(r.ctx, r.unit.ID, orderToken)
	if err != nil {
		return nil, err
	}
	live := []store.Charge{}
	for _, c := range all {
		if c.Status != store.ChargeCancelled {
			live = append(live, c)
		}
	}
	return withMessage{Message: message, Data: chargeAnswer{IDToken: orderToken, ChargeStatus: order.ChargeStatus,
		PaymentURL: s.paymentURL(order.PublicToken.String), Charges: live}}, nil
}

// cancelCharge cancels the order's unpaid charges; a paid charge cannot be
// cancelled.
func (s *Server) cancelCharge(r *request) (any, error) {
	var q idRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	err := r.db.CancelCharges(r.ctx, r.unit.ID, q.IDToken)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, errSalesOrderNotFound
	case errors.Is(err, store.ErrAlreadyPaid):
		return nil, errChargePaid
	case errors.Is(err, store.ErrNothingToCancel):
		return nil, errNothingToCancel
	case err != nil:
		return nil, err
	}
	return created{Message: "Charge cancelled successfully.", Token: q.IDToken}, nil
}

// resendCharge e-mails the order's open charge again to notify_email_charge
// (through the outbox).
func (s *Server) resendCharge(r *request) (any, error) {
	var q idRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	order, err := r.db.SalesOrder(r.ctx, r.unit.ID, q.IDToken)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errSalesOrderNotFound
	}
	if err != nil {
		return nil, err
	}
	if order.NotifyEmailCharge.String == "" {
		return nil, errNoChargeEmail
	}
	all, err := r.db.SalesOrderCharges(r.ctx, r.unit.ID, q.IDToken)
	if err != nil {
		return nil, err
	}
	var open *store.Charge
	for i := range all {
		if all[i].Status == store.ChargePending || all[i].Status == store.ChargeOverdue {
			open = &all[i]
			break
		}
	}
	if open == nil {
		return nil, errNothingToResend
	}
	notice, err := s.notice("charge_resent", order.NotifyEmailCharge.String, "",
		s.mailData(order.UnitName, order.ContactName.String, order.CodOrders, order.Description, order.PublicToken.String, *open))
	if err != nil {
		return nil, err
	}
	if err := r.db.QueueChargeNotice(r.ctx, r.unit.ID, q.IDToken, *notice); err != nil {
		if errors.Is(err, store.ErrNoChargeToResend) {
			return nil, errNothingToResend
		}
		return nil, err
	}
	return created{Message: "Charge sent again.", Token: q.IDToken}, nil
}
