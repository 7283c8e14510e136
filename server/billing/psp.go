package billing

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/problem"
	"fincom/server/provider"
	"fincom/server/psp"
	"fincom/server/psp/rehearsal"
	"fincom/store"
)

// PSPs opens the units' PSP connections (fincom unit psp), one client per
// unit kept while its connection is unchanged, so that its access token
// is reused until it expires.
type PSPs struct {
	Keyring *certs.Keyring
	Roots   *x509.CertPool
	// Rehearsal is test mode's and the demo's PSPs: a unit without a
	// connection of its own is connected to its domain's. Nil in
	// production.
	Rehearsal *rehearsal.PSPs

	mu      sync.Mutex
	clients map[string]pspClient // domain/unit
}

type pspClient struct {
	updated string
	client  *psp.Client
}

// Client answers the unit's PSP client, or false when the unit has no
// PSP connection.
func (p *PSPs) Client(ctx context.Context, db *store.DB, unitID int64) (*psp.Client, bool, error) {
	conn, err := db.UnitPSP(ctx, unitID)
	if errors.Is(err, store.ErrNotFound) && p.Rehearsal != nil {
		return p.rehearsal(ctx, db)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	id := fmt.Sprintf("%s/%d", db.Name, unitID)
	p.mu.Lock()
	defer p.mu.Unlock()
	// Kept while the connection is unchanged: its time, and its
	// addresses (two changes within one second share a time).
	if c, ok := p.clients[id]; ok && c.updated == conn.UpdatedAt && c.client.BaseURL == conn.BaseURL && c.client.TokenURL == conn.TokenURL &&
		c.client.ClientID == conn.ClientID {
		return c.client, true, nil
	}
	if p.Keyring == nil {
		return nil, false, errors.New("the unit's PSP connection is sealed: start the server with --secrets-key-file")
	}
	secret, err := p.Keyring.Open(conn.SecretSealed)
	if err != nil {
		return nil, false, fmt.Errorf("the unit's PSP secret: %w", err)
	}
	cert, err := p.Keyring.OpenCertificate(conn.Cert, nil, conn.KeySealed)
	if err != nil {
		return nil, false, fmt.Errorf("the unit's PSP certificate: %w", err)
	}
	c := &psp.Client{BaseURL: conn.BaseURL, TokenURL: conn.TokenURL, ClientID: conn.ClientID, Secret: string(secret), Cert: cert,
		Roots: p.Roots, PixKey: conn.PixKey}
	if p.clients == nil {
		p.clients = map[string]pspClient{}
	}
	p.clients[id] = pspClient{updated: conn.UpdatedAt, client: c}
	return c, true, nil
}

// rehearsal answers the client of the domain's test PSP; a fresh one
// holds the domain's open charges and the Pix it received (a domain
// reset to a snapshot, or a server started again, meets a PSP that
// agrees with it).
func (p *PSPs) rehearsal(ctx context.Context, db *store.DB) (*psp.Client, bool, error) {
	c, lp, fresh, err := p.Rehearsal.Client(db.Name)
	if err != nil || !fresh {
		return c, err == nil, err
	}
	open, err := db.OpenPSPChargesOfDomain(ctx)
	if err != nil {
		p.Rehearsal.Forget(db.Name)
		return nil, false, err
	}
	for _, o := range open {
		if kind, txid, ok := pspRef(o.Ref); ok && kind != psp.Recurrent {
			lp.Know(kind, txid, o.Amount.StringFixed(2), c.PixKey)
		}
	}
	received, err := db.PixReceivedOfDomain(ctx)
	if err != nil {
		p.Rehearsal.Forget(db.Name)
		return nil, false, err
	}
	for _, r := range received {
		lp.KnowPix(r.EndToEndID, r.Txid, r.Amount.StringFixed(2), c.PixKey, r.PaidAt)
	}
	return c, true, nil
}

// ErrPSPGone: an order's charge was created at a PSP the unit is no longer
// connected to; reconnect it to cancel the charge there.
var ErrPSPGone = problem.New(problem.Unprocessable,
	"The charge was created at the unit's PSP, to which it is no longer connected: connect it again (fincom unit psp) to cancel it there.")

// ErrPSPDown: the PSP did not remove a charge it holds; nothing was
// cancelled.
var ErrPSPDown = problem.New(problem.Unavailable, "The PSP did not answer: the charge is still open there and was not cancelled. Try again.")

// ErrPSPAnswer: the PSP answered the removal of a charge with what fincom
// cannot take as removed (the charge still ATIVA, an error of its own, an
// answer outside the API Pix); its status and reason go in details, and
// nothing was cancelled.
var ErrPSPAnswer = problem.New(problem.Unavailable, "The PSP answered something fincom cannot accept: see details. The charge is still open there and was not cancelled.")

// pspAnswered reports whether a failed call got an answer from the PSP
// (an error of its own, or one outside the API Pix), not silence (a
// timeout, a refused connection).
func pspAnswered(err error) bool {
	var p *psp.Problem
	return errors.As(err, &p) || errors.Is(err, psp.ErrAnswer)
}

// answerDetails are the details of a PSP's answer fincom could not take:
// its HTTP status (0: an answer that broke the API Pix) and the reason,
// without control characters and at most 300 characters.
func answerDetails(err error) map[string]any {
	status := 0
	var p *psp.Problem
	if errors.As(err, &p) {
		status = p.Status
	}
	reason := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, err.Error())
	return map[string]any{"status": status, "detail": clipRunes(reason, 300)}
}

// issueAtUnitPSP creates an installment at the unit's PSP when it goes
// there (false otherwise): a PIX charge of a unit with a PSP
// (TestChargeAtPSP), or a PIX automático charge of an order whose
// contract has an approved recurrence (TestPixAutomatico).
func (s *Service) issueAtUnitPSP(ctx context.Context, db *store.DB, unitID int64, orderToken, code string, c store.Charge, due time.Time, merchant, city string) (provider.Issued, bool, error) {
	if s.PSPs == nil || (c.PaymentKey != "PIX" && c.PaymentKey != "PIX_AUTOMATICO") {
		return provider.Issued{}, false, nil
	}
	var idRec string
	var to store.Receiver
	if c.PaymentKey == "PIX_AUTOMATICO" {
		var err error
		if idRec, to, err = db.OrderRecurrence(ctx, unitID, orderToken); err != nil || idRec == "" {
			return provider.Issued{}, false, err
		}
	}
	cl, ok, err := s.PSPs.Client(ctx, db, unitID)
	if err != nil || !ok {
		return provider.Issued{}, false, err
	}
	amount := c.Amount.Decimal.StringFixed(2)
	if idRec != "" {
		ref, txid, err := issueRecurrent(ctx, cl, idRec, to, code, c.IdempotencyKey(), amount, due)
		return provider.Issued{Ref: ref, PixTxID: txid}, true, err
	}
	payer, err := db.OrderPayer(ctx, unitID, orderToken)
	if err != nil {
		return provider.Issued{}, true, err
	}
	issued, err := issueAtPSP(ctx, cl, payer, code, c.IdempotencyKey(), amount, due, todayOf(db.Now()), merchant, city)
	return issued, true, err
}

// pspTxID is the txid of an installment's charge at the PSP: derived from
// its idempotency key, so a retry is the same PUT (26 to 35 letters and
// digits).
func pspTxID(idempotencyKey string) string {
	h := sha256.Sum256([]byte("fincom:psp:" + idempotencyKey))
	return "FC" + strings.ToUpper(hex.EncodeToString(h[:15]))
}

// cobvValidity is how many days after its due date a PIX with due date
// stays payable (validadeAposVencimento).
const cobvValidity = 30

// pspRefPrefix marks a charge created at the unit's PSP: its provider
// reference is the prefix, its kind (cob, cobv) and its txid.
const pspRefPrefix = "psp:"

// pspRef reads a charge's provider reference: its kind and txid at the
// PSP, or false when it was not created there.
func pspRef(ref string) (kind, txid string, ok bool) {
	rest, ok := strings.CutPrefix(ref, pspRefPrefix)
	if !ok {
		return "", "", false
	}
	kind, txid, ok = strings.Cut(rest, ":")
	return kind, txid, ok && (kind == psp.Immediate || kind == psp.WithDue || kind == psp.Recurrent)
}

// issueAtPSP creates a PIX installment at the unit's PSP: an immediate
// charge, valid for a day, when it is due today or before (PUT
// /cob/{txid}); else a charge with a due date, payable 30 days past it
// (PUT /cobv/{txid}) with the fine and interest of a late payment; the
// payer named, the unit's key at the PSP; its BR Code is the PSP's, or
// the one of the location it answered, with the unit (merchant, city) as
// the receiver.
func issueAtPSP(ctx context.Context, c *psp.Client, payer store.Payer, order, idempotencyKey, amount string, due, today time.Time, merchant, city string) (provider.Issued, error) {
	return putAtPSP(ctx, c, payer, order, pspTxID(idempotencyKey), amount, due, today, merchant, city, false)
}

// putAtPSP creates a charge at the PSP as issueAtPSP says; frozen, it is
// a PIX with due date on due whatever today is, of an amount that holds
// the fine and interest already (none added after it): a reissue.
func putAtPSP(ctx context.Context, c *psp.Client, payer store.Payer, order, txid, amount string, due, today time.Time, merchant, city string,
	frozen bool) (provider.Issued, error) {
	reg := brdoc.Digits(payer.Register)
	var cpf, cnpj string
	if len(reg) == 11 {
		cpf = reg
	} else {
		cnpj = payer.Register
	}
	name, note := clipRunes(payer.Name, 200), clipRunes("Pedido "+order, 140)
	var cob psp.Cob
	var err error
	kind := psp.WithDue
	if !due.After(today) && !frozen {
		kind = psp.Immediate
		var b psp.CobI
		b.Calendario.Expiracao = 86400
		b.Devedor = &struct {
			CPF  string `json:"cpf,omitempty"`
			CNPJ string `json:"cnpj,omitempty"`
			Nome string `json:"nome"`
		}{cpf, cnpj, name}
		b.Valor.Original, b.Chave, b.SolicitacaoPagador = amount, c.PixKey, note
		cob, err = c.PutCob(ctx, txid, b)
	} else {
		var b psp.CobV
		b.Calendario.DataDeVencimento, b.Calendario.ValidadeAposVencimento = due.Format(time.DateOnly), cobvValidity
		b.Devedor.CPF, b.Devedor.CNPJ, b.Devedor.Nome = cpf, cnpj, name
		b.Valor.Original, b.Chave, b.SolicitacaoPagador = amount, c.PixKey, note
		// The late-payment terms a boleto carries (LateAmount), which the
		// PSP adds to what the payer owes after the due date: fine as a
		// percentage (modality 2), interest as a percentage a month of
		// calendar days (modality 3). Orders carry no discount.
		if !frozen {
			b.Valor.Multa = &psp.Modality{Modalidade: 2, ValorPerc: finePercent.StringFixed(2)}
			b.Valor.Juros = &psp.Modality{Modalidade: 3, ValorPerc: interestMonthly.StringFixed(2)}
		}
		cob, err = c.PutCobV(ctx, txid, b)
	}
	if err != nil {
		return provider.Issued{}, err
	}
	code, err := cob.BRCode(merchant, city)
	if err != nil {
		return provider.Issued{}, err
	}
	return provider.Issued{Ref: pspRefPrefix + kind + ":" + txid, PixPayload: code, PixTxID: txid}, nil
}

func clipRunes(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}

// CancelCharges cancels the order's unpaid charges: those created at the
// unit's PSP are removed there first (REMOVIDA_PELO_USUARIO_RECEBEDOR),
// so that no payer can still pay them; a PSP that cannot be reached
// leaves everything as it was.
func (s *Service) CancelCharges(ctx context.Context, db *store.DB, unitID int64, orderToken string) error {
	if s.PSPs != nil {
		charges, err := db.SalesOrderCharges(ctx, unitID, orderToken)
		if err != nil {
			return err
		}
		for _, c := range charges {
			kind, txid, ok := pspRef(c.ProviderRef.String)
			if !ok || (c.Status != store.ChargePending && c.Status != store.ChargeOverdue) {
				continue
			}
			cl, connected, err := s.PSPs.Client(ctx, db, unitID)
			if err != nil {
				return err
			}
			if !connected {
				return ErrPSPGone
			}
			if err := removeAtPSP(ctx, cl, kind, txid); err != nil {
				if pspAnswered(err) {
					return ErrPSPAnswer.With(answerDetails(err))
				}
				return fmt.Errorf("%w: %v", ErrPSPDown, err)
			}
		}
	}
	return db.CancelCharges(ctx, unitID, orderToken)
}

// removeAtPSP has the PSP remove a charge (a recurrence's: cancel it),
// or finds it removed already.
func removeAtPSP(ctx context.Context, cl *psp.Client, kind, txid string) error {
	if kind == psp.Recurrent {
		_, err := cl.CancelCobR(ctx, txid)
		if err != nil {
			if held, gerr := cl.GetCobR(ctx, txid); gerr == nil && held.Status == "CANCELADA" {
				return nil
			}
		}
		return err
	}
	_, err := cl.Remove(ctx, kind, txid)
	if err != nil {
		if held, gerr := cl.Get(ctx, kind, txid); gerr == nil && held.Status == psp.Removed {
			return nil
		}
	}
	return err
}

// ConfirmPix applies a Pix the unit's PSP told of (its webhook) once the
// PSP itself confirms it (GET /pix/{e2eid}): to the unit's key, for an
// open charge of the unit created there, the amount and day the PSP
// says. A webhook naming a Pix the PSP does not know settles nothing; a
// Pix applied before is not applied again (ErrPixApplied).
func (s *Service) ConfirmPix(ctx context.Context, db *store.DB, unitID int64, endToEndID string) (store.Payment, error) {
	cl, ok, err := s.PSPs.Client(ctx, db, unitID)
	if err != nil || !ok {
		return store.Payment{}, errors.Join(err, ErrPSPGone)
	}
	px, err := cl.GetPix(ctx, endToEndID)
	if err != nil {
		return store.Payment{}, err
	}
	return s.applyPix(ctx, db, unitID, cl, px)
}

// applyPix applies a Pix the PSP answered.
func (s *Service) applyPix(ctx context.Context, db *store.DB, unitID int64, cl *psp.Client, px psp.Pix) (store.Payment, error) {
	amount, err := decimal.NewFromString(px.Valor)
	if err != nil || !amount.IsPositive() || px.Txid == "" || (px.Chave != "" && px.Chave != cl.PixKey) {
		return store.Payment{}, fmt.Errorf("%w: the Pix %s is not one of the unit's charges", psp.ErrAnswer, px.EndToEndID)
	}
	at, err := time.Parse(time.RFC3339, px.Horario)
	if err != nil {
		return store.Payment{}, fmt.Errorf("%w: the Pix's time %q", psp.ErrAnswer, px.Horario)
	}
	ps, err := s.ApplyPayments(ctx, db, func() ([]store.Payment, error) {
		p, err := settlePix(ctx, db, unitID, px.Txid, px.EndToEndID, store.NewMoney(amount), at.In(saoPaulo).Format(time.DateOnly))
		return []store.Payment{p}, err
	})
	if errors.Is(err, store.ErrPixHeld) {
		// The operator's record too: a person decides it in the portal.
		s.Log.Warn("pix held: its amount is not what its charge asks", "unit", unitID, "txid", px.Txid, "amount", px.Valor)
	}
	if err != nil {
		return store.Payment{}, err
	}
	return ps[0], nil
}

// settledOrHeld says a Pix the PSP told of needs nothing more of the
// poll or the webhook: applied before, for a charge no longer open, or
// held for a person.
func settledOrHeld(err error) bool {
	return errors.Is(err, store.ErrPixApplied) || errors.Is(err, store.ErrNothingToPay) || errors.Is(err, store.ErrPixHeld)
}

// saoPaulo is the time zone a Pix's day is counted in.
var saoPaulo = func() *time.Location {
	if l, err := time.LoadLocation("America/Sao_Paulo"); err == nil {
		return l
	}
	return time.FixedZone("-03", -3*3600)
}()

// PollPSPs asks each connected unit's PSP about its open charges there
// (GET /cobv/{txid}) and applies the Pix a charge concluded with: a
// payment whose webhook never came still settles. It registers the unit's
// webhooks (PUT /webhook/{chave}, /webhookrec, /webhookcobr) when the PSP
// has none, under publicURL, follows the unit's refunds until settled or
// refused and its recurrences until the payer decides.
func (s *Service) PollPSPs(ctx context.Context, db *store.DB, publicURL string) error {
	if s.PSPs == nil {
		return nil
	}
	units, err := db.PSPUnits(ctx)
	if err != nil {
		return err
	}
	if s.PSPs.Rehearsal != nil {
		// Test mode: every other unit is at the domain's test PSP, which
		// needs no webhook registered.
		all, err := db.Units(ctx)
		if err != nil {
			return err
		}
		connected := map[int64]bool{}
		for _, u := range units {
			connected[u.UnitID] = true
		}
		for _, u := range all {
			if !connected[u.ID] {
				units = append(units, store.PSPUnit{UnitID: u.ID})
			}
		}
	}
	var errs []error
	for _, u := range units {
		cl, ok, err := s.PSPs.Client(ctx, db, u.UnitID)
		if err != nil || !ok {
			errs = append(errs, err)
			continue
		}
		if publicURL != "" && u.WebhookSecret != "" {
			want := strings.TrimRight(publicURL, "/") + "/api/v1/psp/" + u.WebhookSecret
			if got, err := cl.Webhook(ctx, cl.PixKey); err == nil && got != want {
				errs = append(errs, cl.PutWebhook(ctx, cl.PixKey, want))
			}
			if got, err := cl.RecHook(ctx); err == nil && got != want {
				errs = append(errs, cl.PutRecHooks(ctx, want))
			}
		}
		errs = append(errs, s.followRefunds(ctx, db, u.UnitID, cl))
		waiting, err := db.WaitingRecurrences(ctx, u.UnitID)
		errs = append(errs, err)
		for _, id := range waiting {
			if _, err := s.followRec(ctx, db, u.UnitID, cl, id); err != nil {
				errs = append(errs, err)
			}
		}
		refs, err := db.OpenPSPCharges(ctx, u.UnitID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, ref := range refs {
			kind, txid, ok := pspRef(ref)
			if !ok {
				continue
			}
			if kind == psp.Recurrent {
				if _, err := s.settleCobR(ctx, db, u.UnitID, cl, txid); err != nil {
					errs = append(errs, err)
				}
				continue
			}
			cob, err := cl.Get(ctx, kind, txid)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			for _, px := range cob.Pix {
				px.Txid = txid
				if _, err := s.applyPix(ctx, db, u.UnitID, cl, px); err != nil && !settledOrHeld(err) {
					errs = append(errs, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// todayOf is the São Paulo date of t, as due dates are read
// (store.ParseDateISO).
func todayOf(t time.Time) time.Time {
	d, _ := store.ParseDateISO(t.In(saoPaulo).Format(time.DateOnly))
	return d.Time
}

// PixHook applies the Pix a PSP's webhook names for the unit (the API
// Pix's callback), each only as the PSP confirms it (ConfirmPix): the
// payments applied, and what went wrong with the others (a Pix applied
// before, or to a charge no longer open, is not an error).
func (s *Service) PixHook(ctx context.Context, db *store.DB, unitID int64, endToEndIDs []string) ([]store.Payment, error) {
	var applied []store.Payment
	var errs []error
	for _, id := range endToEndIDs {
		p, err := s.ConfirmPix(ctx, db, unitID, id)
		switch {
		case err == nil:
			applied = append(applied, p)
		case settledOrHeld(err):
		default:
			errs = append(errs, err)
		}
	}
	return applied, errors.Join(errs...)
}
