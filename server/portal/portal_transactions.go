package portal

import (
	"net/http"
	"net/url"

	"github.com/julienschmidt/httprouter"

	"fincom/render"
	"fincom/server/web"
	"fincom/store"
)

// transactionsPage: GET /portal/transactions, a month's entries by due
// date; an open one can be marked paid into one of the unit's accounts.
func (s *Portal) transactionsPage(p *portalRequest, status int, notice, errText string) {
	month, first, last := portalMonth(p)
	typ := p.r.URL.Query().Get("tipo")
	if typ != "in" && typ != "out" {
		typ = ""
	}
	entries, err := p.db.EntrySummaries(p.ctx, p.unit.ID, first.ISO(), last.ISO(), typ, 1000)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	accounts, err := p.db.BankAccounts(p.ctx, p.unit.ID, true)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	body := render.PortalTransactions{Month: month, Type: typ, Today: store.Today(p.db.Now()).ISO()}
	if q := p.r.URL.Query(); q.Get("de") != "" {
		body.From, body.To = first.ISO(), last.ISO()
	}
	for _, a := range accounts {
		body.Accounts = append(body.Accounts, render.PortalAccount{Token: a.Token, Name: accountName(a)})
	}
	for _, e := range entries {
		pe := render.PortalEntry{Token: e.Token, Type: e.Type, Description: e.Description, DueDate: render.DateBR(e.DueDate),
			Contact: e.Contact, Account: e.Account, Value: render.BRL(e.Value.StringFixed(2))}
		if e.PayDay != "" {
			pe.PayDay = render.DateBR(e.PayDay)
		}
		body.Entries = append(body.Entries, pe)
	}
	p.page(s, status, "transactions", "Lançamentos", "transactions", body, notice, errText)
}

// portalPayEntry: POST /portal/transactions/:token/pay marks an entry paid
// on a day into an account, as /update_expense and /update_income do with
// pay_day and id_token_bank_account, with their texts.
func (s *Portal) portalPayEntry(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	s.withSession(func(p *portalRequest) {
		typ, api := p.r.PostFormValue("type"), "/update_income"
		if typ == "out" {
			api = "/update_expense"
		} else if typ != "in" {
			typ = "in"
		}
		day, account := p.r.PostFormValue("pay_day"), p.r.PostFormValue("account")
		var err error
		if _, perr := store.ParseDateISO(day); perr != nil {
			err = web.ErrInvalidPayDay
		} else {
			err = p.db.UpdateEntry(p.ctx, p.unit.ID, typ, ps.ByName("token"), func(f *store.EntryFields) error {
				f.PayDay, f.BankAccountToken = day, account
				return nil
			}, nil)
		}
		if err != nil {
			status, text := s.routeError(api, err)
			s.transactionsPage(p, status, "", text)
			return
		}
		http.Redirect(p.w, p.r, "/portal/transactions?unit="+url.QueryEscape(p.unit.Token)+"&mes="+url.QueryEscape(p.r.URL.Query().Get("mes"))+"&feito=pago", http.StatusSeeOther)
	})(w, r, ps)
}
