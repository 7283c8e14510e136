package billing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"fincom/server/brdoc"
	"fincom/server/problem"
	"fincom/server/psp"
	"fincom/store"
)

// Refusals of a Pix Automático request.
var (
	ErrNoPSP = problem.New(problem.Unprocessable,
		"The unit has no PSP: connect one (fincom unit psp) to request PIX automático.")
	ErrRecurrencePeriod = problem.New(problem.Unprocessable,
		"PIX automático needs a recurring contract, monthly or yearly.")
	ErrRecurrencePayer = problem.New(problem.Unprocessable,
		"PIX automático needs the contract's contact to have a CPF or CNPJ.")
	ErrRecurrenceReceiver = problem.New(problem.Unprocessable,
		"A PIX automático charge needs the order's bank account (id_token_bank_account) with its account number, where the PSP receives it.")
)

// periods are the contracts' recurrences as the API Pix names them.
var periods = map[string]string{"monthly": "MENSAL", "yearly": "ANUAL"}

// RequestPixAutomatico asks the unit's PSP for a recurrence of the
// contract (its order PIX_AUTOMATICO): POST /rec for its fixed amount,
// monthly or yearly, the first payment due 30 days after today (the day
// the first charge of an acceptance falls due), until the contract's
// validity end. The payer approves it by its QR Code (its location) or,
// given the payer's account, in the payer's bank app (POST /solicrec).
// A contract with a recurrence waiting or approved answers it.
func (s *Service) RequestPixAutomatico(ctx context.Context, db *store.DB, unitID int64, contractToken string, to *psp.Account) (store.PixRecurrence, error) {
	plan, err := db.ContractRecurrencePlan(ctx, unitID, contractToken)
	if err != nil {
		return store.PixRecurrence{}, err
	}
	if plan.Open != nil {
		return *plan.Open, nil
	}
	period, ok := periods[plan.RecurrenceType]
	if !ok || !plan.IsRecurring {
		return store.PixRecurrence{}, ErrRecurrencePeriod
	}
	debtor, ok := recurrenceDebtor(plan.Payer)
	if !ok {
		return store.PixRecurrence{}, ErrRecurrencePayer
	}
	if s.PSPs == nil {
		return store.PixRecurrence{}, ErrNoPSP
	}
	cl, connected, err := s.PSPs.Client(ctx, db, unitID)
	if err != nil || !connected {
		// A connection that does not open (no secrets key) is no
		// connection either; the log says why.
		if err != nil && s.Log != nil {
			s.Log.Warn("psp: the unit's connection", "err", err)
		}
		return store.PixRecurrence{}, ErrNoPSP
	}
	var r psp.Rec
	r.Vinculo.Contrato = strings.ReplaceAll(contractToken, "-", "")
	r.Vinculo.Devedor, r.Vinculo.Objeto = debtor, clipRunes(plan.ContractName, 35)
	first := todayOf(db.Now()).AddDate(0, 0, 30)
	r.Calendario.DataInicial, r.Calendario.Periodicidade = first.Format(time.DateOnly), period
	if plan.ValidityEnd > r.Calendario.DataInicial {
		r.Calendario.DataFinal = plan.ValidityEnd
	}
	r.Valor.ValorRec, r.PoliticaRetentativa = plan.Value.StringFixed(2), "NAO_PERMITE"
	got, err := cl.PostRec(ctx, r)
	if err != nil {
		return store.PixRecurrence{}, pspFailure(err)
	}
	rec := store.PixRecurrence{IDRec: got.IDRec, Status: got.Status, Location: got.Loc.Location}
	if to != nil {
		id, err := cl.PostSolicRec(ctx, got.IDRec, db.Now().Add(7*24*time.Hour).UTC().Format(time.RFC3339), *to, debtor)
		if err != nil {
			// The recurrence exists: it is kept, approved by its QR Code.
			s.Log.Warn("psp: the recurrence's request to the payer's PSP", "rec", got.IDRec, "err", err)
		}
		rec.RequestID = store.NewText(id)
	}
	return db.AddRecurrence(ctx, unitID, contractToken, rec)
}

// recurrenceDebtor is the payer as a recurrence names it: by CPF, or by
// CNPJ (numeric or alphanumeric).
func recurrenceDebtor(p store.Payer) (psp.Person, bool) {
	d := psp.Person{Nome: clipRunes(p.Name, 140)}
	reg := strings.ToUpper(strings.NewReplacer(".", "", "/", "", "-", "", " ", "").Replace(p.Register))
	switch {
	case len(reg) == 11 && brdoc.Digits(reg) == reg:
		d.CPF = reg
	case len(reg) == 14:
		d.CNPJ = reg
	default:
		return d, false
	}
	return d, d.Nome != ""
}

// pspFailure is the error a call to the PSP answers: its refusal a 422
// with its title and detail, else a 502.
func pspFailure(err error) error {
	var p *psp.Problem
	if errors.As(err, &p) && p.Status < 500 && p.Status != http.StatusUnauthorized {
		return problem.New(problem.Unprocessable, "The PSP refused the request: "+p.Error())
	}
	if errors.Is(err, psp.ErrAnswer) || errors.Is(err, ErrPSPGone) {
		return problem.New(problem.Unavailable, "The PSP's answer is not one: "+err.Error())
	}
	return problem.New(problem.Unavailable, "The PSP did not answer. Try again.")
}

// RecHook applies what a PSP's recurrence webhook names for the unit
// (the API Pix's /rec callback), each recurrence asked of the PSP first
// (GET /rec/{idRec}): an approval accepts the contract's PIX automático
// (its order due in 30 days) and issues its first charge at once, as the
// spec's rule asks of an order with generateChargeOnPixAutomaticAcceptance.
func (s *Service) RecHook(ctx context.Context, db *store.DB, unitID int64, idRecs []string) (int, error) {
	cl, ok, err := s.PSPs.Client(ctx, db, unitID)
	if err != nil || !ok {
		return 0, errors.Join(err, ErrPSPGone)
	}
	changed := 0
	var errs []error
	for _, id := range idRecs {
		n, err := s.followRec(ctx, db, unitID, cl, id)
		changed += n
		errs = append(errs, err)
	}
	return changed, errors.Join(errs...)
}

// followRec records a recurrence's state as the PSP answers it.
func (s *Service) followRec(ctx context.Context, db *store.DB, unitID int64, cl *psp.Client, idRec string) (int, error) {
	got, err := cl.GetRec(ctx, idRec)
	if err != nil {
		return 0, err
	}
	c, changed, err := db.RecordRecurrence(ctx, unitID, idRec, got.Status)
	if err != nil || !changed {
		return 0, err
	}
	if got.Status == psp.RecApproved {
		order, err := db.AcceptPixAutomatico(ctx, unitID, c.Contract)
		if errors.Is(err, store.ErrNoPixAutomatico) {
			return 1, nil // approved; the order charges on its own days
		}
		if err != nil {
			return 1, err
		}
		return 1, s.IssueCharges(ctx, db, unitID, order)
	}
	return 1, nil
}

// issueRecurrent creates a PIX automático installment of an order whose
// contract has an approved recurrence as the cycle's charge at the PSP
// (PUT /cobr/{txid}), in the order's account; the payer's PSP debits it
// on its day, so it has no code to show.
func issueRecurrent(ctx context.Context, c *psp.Client, idRec string, to store.Receiver, order, idempotencyKey, amount string, due time.Time) (string, string, error) {
	if to.Account == "" {
		return "", "", ErrRecurrenceReceiver
	}
	txid := pspTxID(idempotencyKey)
	var b psp.CobR
	b.IDRec, b.InfoAdicional = idRec, clipRunes("Pedido "+order, 140)
	b.Calendario.DataDeVencimento, b.Valor.Original, b.AjusteDiaUtil = due.Format(time.DateOnly), amount, true
	b.Recebedor.Agencia, b.Recebedor.Conta, b.Recebedor.TipoConta = clipRunes(brdoc.Digits(to.Agency), 4), clipRunes(to.Account, 20), "CORRENTE"
	if _, err := c.PutCobR(ctx, txid, b); err != nil {
		return "", "", err
	}
	return pspRefPrefix + psp.Recurrent + ":" + txid, txid, nil
}

// CobRHook applies what a PSP's recurrent-charge webhook names for the
// unit (the API Pix's /cobr callback): each charge is asked of the PSP
// (GET /cobr/{txid}) and the Pix it concluded with applied, as every
// PSP payment is.
func (s *Service) CobRHook(ctx context.Context, db *store.DB, unitID int64, txids []string) ([]store.Payment, error) {
	cl, ok, err := s.PSPs.Client(ctx, db, unitID)
	if err != nil || !ok {
		return nil, errors.Join(err, ErrPSPGone)
	}
	var out []store.Payment
	var errs []error
	for _, txid := range txids {
		ps, err := s.settleCobR(ctx, db, unitID, cl, txid)
		out = append(out, ps...)
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// settleCobR applies the Pix a recurrence's charge concluded with.
func (s *Service) settleCobR(ctx context.Context, db *store.DB, unitID int64, cl *psp.Client, txid string) ([]store.Payment, error) {
	got, err := cl.GetCobR(ctx, txid)
	if err != nil {
		return nil, err
	}
	var out []store.Payment
	for _, px := range got.Pix {
		px.Txid = txid
		p, err := s.applyPix(ctx, db, unitID, cl, px)
		switch {
		case err == nil:
			out = append(out, p)
		case settledOrHeld(err):
		default:
			return out, fmt.Errorf("charge %s: %w", txid, err)
		}
	}
	return out, nil
}
