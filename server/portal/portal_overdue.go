package portal

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"fincom/render"
	"fincom/server/billing"
	"fincom/store"
)

// overdueShown is how many overdue receivables the page lists, the oldest
// first; a search by customer reaches the others.
const overdueShown = 200

// overduePage: GET /portal/overdue, the unit's receivables past their day
// (store.Overdue): who owes, since when, how much and by which channel,
// each open charge with "reenviar cobrança", and a reminder to all.
func (s *Portal) overduePage(p *portalRequest, status int, notice, errText string) {
	search := strings.TrimSpace(p.r.FormValue("cliente"))
	today := store.Today(p.db.Now())
	rows, err := p.db.Overdue(p.ctx, p.unit.ID, today, search, overdueShown+1)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	if s.exportable(p, "", "esta lista", "em-atraso-"+today.ISO(), func() (render.Table, error) {
		t := render.Table{Name: "Em atraso " + today.ISO(), Columns: []render.Column{{Title: "Cliente", Kind: render.ColText}, {Title: "Pedido", Kind: render.ColText},
			{Title: "Parcela", Kind: render.ColInt}, {Title: "Vencimento", Kind: render.ColDate}, {Title: "Dias de atraso", Kind: render.ColInt},
			{Title: "Valor", Kind: render.ColMoney}, {Title: "Cobrança", Kind: render.ColText}}}
		for _, o := range rows[:min(len(rows), overdueShown)] {
			due, _ := store.ParseDateISO(o.DueDate)
			channel := "Sem cobrança"
			if o.Installment > 0 {
				channel = render.PaymentMethodName(o.PaymentKey)
			}
			// An order without a charge has no installment: the cell
			// stays empty (installments count from 1).
			installment := ""
			if o.Installment > 0 {
				installment = strconv.Itoa(o.Installment)
			}
			t.Rows = append(t.Rows, []string{o.Customer, o.Code, installment, o.DueDate, strconv.Itoa(int(today.Sub(due.Time).Hours() / 24)),
				o.Amount.StringFixed(2), channel})
		}
		return t, nil
	}) {
		return
	}
	body := render.PortalOverdue{Search: search, Truncated: len(rows) > overdueShown, FormKey: store.NewSecret(16)}
	if body.Truncated {
		rows = rows[:overdueShown]
	}
	var total store.Money
	reminded := map[string]bool{}
	for _, o := range rows {
		due, _ := store.ParseDateISO(o.DueDate)
		r := render.PortalOverdueRow{Token: o.OrderToken, Code: o.Code, Customer: o.Customer, DueDate: render.DateBR(o.DueDate),
			Amount: render.BRL(o.Amount.StringFixed(2)), Installment: o.Installment, DaysLate: int(today.Sub(due.Time).Hours() / 24),
			Charge: o.Installment > 0, Email: o.Email, Channel: "Sem cobrança"}
		if r.Charge {
			r.Channel = render.PaymentMethodName(o.PaymentKey)
			if o.Email && !reminded[o.OrderToken] {
				reminded[o.OrderToken] = true
				body.Reminders++
			}
		}
		total = store.NewMoney(total.Add(o.Amount.Decimal))
		body.Rows = append(body.Rows, r)
	}
	body.Total = render.BRL(total.StringFixed(2))
	p.page(s, status, "overdue", "Em atraso", "overdue", body, notice, errText)
}

// portalResend: POST /portal/overdue/:token/resend e-mails the order's
// open charge again, as /resend_charge does.
func (s *Portal) portalResend(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	s.withSession(func(p *portalRequest) {
		if err := s.Billing.Resend(p.ctx, p.db, p.unit.ID, ps.ByName("token")); err != nil {
			status, text := resendRefusal(err)
			if status >= 500 {
				s.Log.Error("portal resend", "err", err)
			}
			s.overduePage(p, status, "", text)
			return
		}
		http.Redirect(p.w, p.r, "/portal/overdue?unit="+url.QueryEscape(p.unit.Token)+"&enviado=1", http.StatusSeeOther)
	})(w, r, ps)
}

// portalRemind: POST /portal/overdue e-mails again the open charge
// of every order the page lists (its customer search kept) that has one
// overdue and the address it goes to; the page says how many went and
// which could not.
func (s *Portal) portalRemind(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	s.withSession(func(p *portalRequest) {
		search := strings.TrimSpace(p.r.PostFormValue("cliente"))
		back := "/portal/overdue?unit=" + url.QueryEscape(p.unit.Token) + "&cliente=" + url.QueryEscape(search)
		if fresh, err := s.spendFormKey(p, "reminders"); err != nil || !fresh {
			if err != nil {
				s.portalFailed(p, err)
				return
			}
			http.Redirect(p.w, p.r, back+"&feito=repetido", http.StatusSeeOther)
			return
		}
		rows, err := p.db.Overdue(p.ctx, p.unit.ID, store.Today(p.db.Now()), search, overdueShown)
		if err != nil {
			s.portalFailed(p, err)
			return
		}
		sent, done := 0, map[string]bool{}
		var failed []string
		for _, o := range rows {
			if o.Installment == 0 || !o.Email || done[o.OrderToken] {
				continue
			}
			done[o.OrderToken] = true
			if err := s.Billing.Resend(p.ctx, p.db, p.unit.ID, o.OrderToken); err != nil {
				_, text := resendRefusal(err)
				failed = append(failed, o.Code+": "+text)
				continue
			}
			sent++
		}
		if len(failed) > 0 {
			s.leaveNotice(p, "overdue", "Não enviados: "+strings.Join(failed, "; "))
		}
		// Answered by a redirect: a reload sends nothing again.
		http.Redirect(p.w, p.r, back+"&lembretes="+strconv.Itoa(sent), http.StatusSeeOther)
	})(w, r, ps)
}

// resendRefusal says in Portuguese why a charge was not sent again.
func resendRefusal(err error) (int, string) {
	switch {
	case errors.Is(err, billing.ErrNoChargeEmail):
		return http.StatusBadRequest, "O pedido não tem e-mail de cobrança: informe-o no pedido."
	case errors.Is(err, store.ErrNoChargeToResend):
		return http.StatusConflict, "O pedido não tem cobrança em aberto para reenviar."
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, "Pedido não encontrado."
	}
	return http.StatusInternalServerError, "Algo deu errado. Tente de novo em instantes."
}
