package portal

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"

	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/server/web"
	"fincom/store"
)

// portalRoutes mounts the portal's pages.
func (s *Portal) Routes(r *httprouter.Router) {
	r.GET("/portal/login", s.portalLoginForm)
	r.POST("/portal/login", s.portalLogin)
	r.GET("/portal/link", s.portalLinkForm)
	r.POST("/portal/link", s.portalLink)
	r.GET("/portal/assets/:name", s.portalAsset)
	r.GET("/portal/", s.withSession(s.portalHome))
	r.GET("/portal/units", s.withSession(s.portalUnits))
	r.GET("/portal/profile", s.withSession(s.portalProfile))
	r.GET("/portal/settings/remittance", s.withSession(func(p *portalRequest) {
		// A remittance made before, again: making one is a POST.
		if _, err := strconv.Atoi(p.r.URL.Query().Get("seq")); err != nil || p.role != store.RoleOwner {
			s.settingsPage(p, http.StatusForbidden, nil, "", "", "", "")
			return
		}
		s.portalRemittance(p)
	}))
	r.GET("/portal/settings", s.withSession(func(p *portalRequest) {
		s.settingsPage(p, http.StatusOK, nil, "", "", "", settingsDone[p.r.URL.Query().Get("feito")])
	}))
	r.GET("/portal/users", s.withSession(s.usersPage))
	r.GET("/portal/orders", s.withSession(s.portalOrders))
	r.GET("/portal/orders/:token", func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		s.withSession(func(p *portalRequest) {
			done := r.URL.Query().Get("feito")
			failed := ""
			if f, ok := portalOrderFailed[done]; ok {
				// The reason once; a reload says only which step failed.
				failed = cmp.Or(s.takeNotice(p, ps.ByName("token")), strings.TrimSuffix(f, ":")+".")
			}
			s.portalOrderPage(p, ps.ByName("token"), portalOrderDone[done], failed, http.StatusOK)
		})(w, r, ps)
	})
	r.GET("/portal/overdue", s.withSession(func(p *portalRequest) {
		q, notice, errText := p.r.URL.Query(), "", ""
		switch n, err := strconv.Atoi(q.Get("lembretes")); {
		case q.Get("enviado") == "1":
			notice = "Cobrança reenviada."
		case q.Get("feito") == "repetido":
			notice = "Este formulário já tinha sido enviado: nenhum lembrete foi enviado de novo."
		case err == nil && n >= 0:
			notice = fmt.Sprintf("%d lembrete(s) enviado(s).", n)
			errText = s.takeNotice(p, "overdue")
		}
		s.overduePage(p, http.StatusOK, notice, errText)
	}))
	r.GET("/portal/contacts", s.withSession(func(p *portalRequest) {
		notice := map[string]string{"1": "Contato cadastrado.", "repetido": formSentAgain, "2": "Contato alterado."}[p.r.URL.Query().Get("criado")]
		s.contactsPage(p, http.StatusOK, render.PortalContactForm{}, "", "", notice)
	}))
	r.GET("/portal/cep", s.withSession(s.portalCEP))
	r.GET("/portal/contacts/:token", s.withToken(func(p *portalRequest, token string) { s.contactPage(p, token, http.StatusOK, nil, "", "") }))
	r.GET("/portal/products", s.withSession(func(p *portalRequest) {
		notice := map[string]string{"1": "Produto ou serviço cadastrado.", "repetido": formSentAgain, "2": "Produto ou serviço alterado."}[p.r.URL.Query().Get("criado")]
		s.productsPage(p, http.StatusOK, render.PortalProductForm{}, "", "", notice)
	}))
	r.GET("/portal/products/:token", s.withToken(func(p *portalRequest, token string) { s.productPage(p, token, http.StatusOK, nil, "", "") }))
	r.GET("/portal/contracts", s.withSession(func(p *portalRequest) {
		notice := map[string]string{"1": "Contrato criado como rascunho.", "repetido": formSentAgain, "active": "Contrato em vigor.", "cancelled": "Contrato cancelado.",
			"alterado": "Contrato alterado."}[p.r.URL.Query().Get("criado")]
		s.contractsPage(p, http.StatusOK, render.PortalContractForm{}, "", "", notice)
	}))
	r.GET("/portal/contracts/:token/document", s.withToken(s.portalContractDocument))
	r.GET("/portal/contracts/:token", s.withToken(func(p *portalRequest, token string) { s.contractPage(p, token, http.StatusOK, nil, "", "") }))
	r.GET("/portal/new-order", s.withSession(func(p *portalRequest) {
		form := render.PortalOrderForm{}
		if from := p.r.URL.Query().Get("copiar"); from != "" {
			// "Duplicar pedido": the form filled with that order's fields.
			var err error
			if form, err = s.orderCopy(p, from); errors.Is(err, store.ErrNotFound) {
				s.portalMissing(p, "Pedido", "orders")
				return
			} else if err != nil {
				s.portalFailed(p, err)
				return
			}
		}
		s.newOrderPage(p, http.StatusOK, form, "", "")
	}))
	r.GET("/portal/orders/:token/pedido.pdf", func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		s.withSession(func(p *portalRequest) { s.portalOrderPDF(p, ps.ByName("token")) })(w, r, ps)
	})
	r.GET("/portal/import", s.withSession(func(p *portalRequest) { s.importPage(p, http.StatusOK, nil, "") }))
	r.GET("/portal/transactions", s.withSession(func(p *portalRequest) {
		notice := ""
		switch p.r.URL.Query().Get("feito") {
		case "pago":
			notice = "Lançamento marcado como pago."
		case "criado":
			notice = "Lançamento cadastrado."
		case "repetido":
			notice = "Este formulário já tinha sido enviado: o lançamento foi cadastrado uma vez só."
		case "alterado":
			notice = "Lançamento alterado."
		}
		s.transactionsPage(p, http.StatusOK, notice, "")
	}))
	r.GET("/portal/transactions/:token/files/:file", s.withEntry("", s.portalEntryFile))
	r.GET("/portal/transactions/:token", s.withToken(func(p *portalRequest, token string) { s.entryPage(p, token, http.StatusOK, nil, "", "") }))
	r.GET("/portal/statement", s.withSession(func(p *portalRequest) {
		notice := ""
		switch p.r.URL.Query().Get("feito") {
		case "":
		case "desfeito":
			notice = "Conciliação desfeita: a linha voltou a aguardar."
		default:
			notice = "Linha do extrato resolvida."
		}
		s.statementPage(p, http.StatusOK, notice, "")
	}))
	r.GET("/portal/dre", s.withSession(s.drePage))
	r.GET("/portal/accountant", s.withSession(s.portalAccountantPackage))
	r.GET("/portal/inbox", s.withSession(s.inboxPage))
	r.GET("/portal/outbox", s.withSession(s.outboxPage))
	r.GET("/portal/webhooks", s.withSession(s.webhooksPage))
	r.GET("/portal/audit", s.withSession(s.auditPage))
	s.registerForms(r)
}

// portalHome: GET /portal/, a month at a glance of one unit (?mes=YYYY-MM,
// the current one by default, with links to the month before and after):
// its cash flow (the numbers /cash_flow answers, drawn as SVG and listed),
// what is to receive and to pay by its end, and the latest orders.
func (s *Portal) portalHome(p *portalRequest) {
	if p.unit.ID == 0 {
		p.page(s, http.StatusOK, "units", "Unidades", "units", []render.PortalUnit{}, "", "")
		return
	}
	today := store.Today(p.db.Now())
	first := today.FirstOfMonth()
	if m, err := time.Parse("2006-01", p.r.URL.Query().Get("mes")); err == nil && m.Year() >= 2000 && m.Year() <= 2100 {
		first = store.Date{Time: m}
	}
	last := store.Date{Time: first.AddDate(0, 1, -1)}
	cf, err := p.db.CashFlow(p.ctx, p.unit.ID, first, last)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	// What is still open and due by the month's end: due before the
	// pivot is late by then (before today, or the whole of a past month),
	// from it on is to come within the month (from today, or from the
	// first day of a month to come).
	pivot := today
	switch {
	case pivot.Before(first.Time):
		pivot = first
	case pivot.After(last.Time):
		pivot = store.Date{Time: last.AddDate(0, 0, 1)}
	}
	open, err := p.db.OpenEntryTotals(p.ctx, p.unit.ID, pivot, last)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	due, err := p.db.OpenReceivables(p.ctx, p.unit.ID, pivot, last)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	orders, err := p.db.LatestOrders(p.ctx, p.unit.ID, 10)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	brl := func(m store.Money) string { return render.BRL(m.StringFixed(2)) }
	month := render.MonthBR(first.Year(), int(first.Month()))
	h := render.PortalHome{Month: strings.ToUpper(month[:1]) + month[1:], Opening: brl(cf.OpeningBalance), In: brl(cf.Totals.In), Out: brl(cf.Totals.Out),
		Closing: brl(cf.Totals.ClosingBalance), ReceivableDue: brl(open.ReceivableDue), ReceivableOverdue: brl(open.ReceivableOverdue),
		PayableDue: brl(open.PayableDue), PayableOverdue: brl(open.PayableOverdue),
		ChargesDue: brl(due.ChargesDue), ChargesOverdue: brl(due.ChargesOverdue), OrdersDue: brl(due.OrdersDue), OrdersOverdue: brl(due.OrdersOverdue)}
	expected := open.ReceivableDue.Add(open.ReceivableOverdue.Decimal).Add(due.ChargesDue.Decimal).Add(due.ChargesOverdue.Decimal).
		Add(due.OrdersDue.Decimal).Add(due.OrdersOverdue.Decimal)
	payable := open.PayableDue.Add(open.PayableOverdue.Decimal)
	h.Expected = render.BRL(expected.StringFixed(2))
	// The headline forecasts what the page's totals count: every open
	// entry, charge and uncharged order due by the month's end, each once.
	h.ForecastIn, h.ForecastOut = h.Expected, render.BRL(payable.StringFixed(2))
	h.ForecastClosing = render.BRL(cf.Totals.ClosingBalance.Add(expected).Sub(payable).StringFixed(2))
	if h.Owner = p.role == store.RoleOwner; h.Owner {
		if h.Steps, err = s.firstSteps(p); err != nil {
			s.portalFailed(p, err)
			return
		}
	}
	h.MonthParam = first.Format("2006-01")
	h.PrevMonth, h.NextMonth = first.AddDate(0, -1, 0).Format("2006-01"), first.AddDate(0, 1, 0).Format("2006-01")
	var days []render.ChartDay
	for i, d := range cf.Days {
		h.Days = append(h.Days, render.PortalDay{Date: render.DateBR(d.Date), In: brl(d.In), Out: brl(d.Out), Balance: brl(d.Balance),
			ForecastIn: brl(d.ForecastIn), ForecastOut: brl(d.ForecastOut), ForecastBalance: brl(d.ForecastBalance)})
		days = append(days, render.ChartDay{Day: i + 1, In: d.In.Decimal, Out: d.Out.Decimal, ForecastIn: d.ForecastIn.Decimal,
			ForecastOut: d.ForecastOut.Decimal, Balance: d.Balance.Decimal, ForecastBalance: d.ForecastBalance.Decimal, Realized: d.Date <= today.ISO()})
	}
	h.Chart, h.Phone = render.NewCashChart(month, days, 720), render.NewCashChart(month, days, 360)
	for _, o := range orders {
		h.Orders = append(h.Orders, portalOrderRow(o))
	}
	p.page(s, http.StatusOK, "home", "Visão do mês", "home", h, "", "")
}

// chargeSummary says in Portuguese where an order's charges stand.
func chargeSummary(byStatus map[string]int) string {
	if len(byStatus) == 0 {
		return "Sem cobrança"
	}
	var parts []string
	for _, st := range []struct{ key, one, many string }{
		{"PAID", "paga", "pagas"}, {"PENDING", "em aberto", "em aberto"}, {"OVERDUE", "vencida", "vencidas"},
		{"ISSUING", "em emissão", "em emissão"}, {"CANCELLED", "cancelada", "canceladas"},
	} {
		switch n := byStatus[st.key]; {
		case n == 1:
			parts = append(parts, "1 "+st.one)
		case n > 1:
			parts = append(parts, strconv.Itoa(n)+" "+st.many)
		}
	}
	return strings.Join(parts, ", ")
}

// portalFailed answers a page that could not be read.
func (s *Portal) portalFailed(p *portalRequest, err error) {
	s.Log.Error("portal", "path", web.RedactTokens(p.r.URL.EscapedPath()), "err", err)
	p.page(s, http.StatusInternalServerError, "units", "Erro", "", []render.PortalUnit{}, "", "Algo deu errado. Tente de novo em instantes.")
}

// NotFound answers an address under /portal/ that is no page of the
// portal: the portal's own page saying so (signed out: the sign-in), not
// the API's JSON.
func (s *Portal) NotFound(w http.ResponseWriter, r *http.Request) {
	if _, err := r.Cookie(SessionCookie); err != nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		// Signed out, or not a page asked for: a short page of its own.
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", render.PortalCSP)
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`<!doctype html><html lang="pt-BR"><meta charset="utf-8"><title>Página não encontrada</title>` +
			`<p>Página não encontrada. <a href="/portal/login">Entrar no portal</a></p></html>`))
		return
	}
	s.withSession(func(p *portalRequest) {
		p.page(s, http.StatusNotFound, "units", "Página não encontrada", "", []render.PortalUnit{}, "",
			"Esta página não existe no portal: confira o endereço ou use o menu.")
	})(w, r, nil)
}

// portalMissing answers a page of a record (what: "Pedido", "Contato")
// the unit does not have.
func (s *Portal) portalMissing(p *portalRequest, what, nav string) {
	p.page(s, http.StatusNotFound, "units", what+" não encontrado", nav, []render.PortalUnit{}, "", what+" não encontrado nesta unidade.")
}

// withToken is withSession for a page of a record, named by the path's
// token.
func (s *Portal) withToken(h func(p *portalRequest, token string)) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		s.withSession(func(p *portalRequest) { h(p, ps.ByName("token")) })(w, r, ps)
	}
}

// readFailed answers the page of a record that could not be read: not
// found in the unit (what, as portalMissing), or failed; reports whether
// it answered.
func (s *Portal) readFailed(p *portalRequest, err error, what, nav string) bool {
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.portalMissing(p, what, nav)
	case err != nil:
		s.portalFailed(p, err)
	default:
		return false
	}
	return true
}

// unsaved is the page's error when a record's form was refused: why.
func unsaved(fieldErr string) string {
	if fieldErr == "" {
		return ""
	}
	return "A alteração não foi salva: " + fieldErr
}

// portalProfile: GET /portal/profile, the user's roles and access tokens.
func (s *Portal) portalProfile(p *portalRequest) { s.profilePage(p, http.StatusOK, "", "", "") }

// tokensOf is whose tokens the user lists and revokes: its own, or (0)
// every one of the domain's for an owner of every unit.
func (p *portalRequest) tokensOf() int64 {
	if p.grants.OwnerOfAll() {
		return 0
	}
	return p.session.UserID
}

func (s *Portal) profilePage(p *portalRequest, status int, newToken, notice, errText string) {
	tokens, err := p.db.AccessTokens(p.ctx, p.tokensOf())
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	body := render.PortalProfile{NewToken: newToken, Roles: grantNames(p.grants), All: p.tokensOf() == 0, FormKey: store.NewSecret(16)}
	for i := len(tokens) - 1; i >= 0; i-- { // newest first
		t := tokens[i]
		pt := render.PortalToken{ID: t.ID, Hint: t.Hint, Label: t.Label, User: t.User, Created: render.DateTimeBR(t.CreatedAt)}
		if pt.User == "" {
			pt.User = "Operador (fincom token create)"
		}
		if t.RevokedAt != nil {
			pt.Revoked = render.DateTimeBR(*t.RevokedAt)
		}
		body.Tokens = append(body.Tokens, pt)
	}
	p.page(s, status, "profile", "Perfil e tokens de acesso", "profile", body, notice, errText)
}

// grantNames are a user's roles in Portuguese, one per line.
func grantNames(gs store.Grants) []string {
	var out []string
	for _, g := range gs {
		where := "todas as unidades"
		if !g.AllUnits() {
			where = "unidade " + g.Unit.Name
		}
		out = append(out, roleName(g.Role)+" · "+where)
	}
	return out
}

// maxTokenLabel bounds a token's label.
const maxTokenLabel = 80

// portalCreateToken: POST /portal/profile/tokens makes an access token
// that carries the user's roles, with the label the form gives, and
// shows it once.
func (s *Portal) portalCreateToken(p *portalRequest) {
	label := strings.TrimSpace(p.r.PostFormValue("label"))
	if label == "" || utf8.RuneCountInString(label) > maxTokenLabel {
		s.profilePage(p, http.StatusBadRequest, "", "", "Dê ao token um nome de 1 a 80 caracteres (para que serve, quem usa): nenhum token foi criado.")
		return
	}
	if fresh, err := s.spendFormKey(p, "access token"); err != nil || !fresh {
		if err != nil {
			s.portalFailed(p, err)
			return
		}
		// The secret was shown once, to the first send; it is not shown
		// again, and no second token is made.
		s.profilePage(p, http.StatusOK, "", "Este formulário já tinha sido enviado: o token foi criado e mostrado então; nenhum outro foi criado.", "")
		return
	}
	token, err := p.db.CreateUserToken(p.ctx, p.session.UserID, label)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	s.profilePage(p, http.StatusOK, token, "Token criado. Copie-o agora: ele não será exibido de novo.", "")
}

// portalRevokeToken: POST /portal/profile/tokens/revoke, of the user's
// own tokens (any of the domain's for an owner of every unit).
func (s *Portal) portalRevokeToken(p *portalRequest) {
	id := p.r.PostFormValue("id")
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		s.profilePage(p, http.StatusOK, "", "", "")
		return
	}
	if err := p.db.RevokeUserToken(p.ctx, p.tokensOf(), id); err != nil {
		s.profilePage(p, http.StatusOK, "", "O token já estava revogado ou não existe.", "")
		return
	}
	s.profilePage(p, http.StatusOK, "", "Token revogado: ele não autentica mais.", "")
}

// portalUnits: GET /portal/units, each unit with its Token API.
func (s *Portal) portalUnits(p *portalRequest) {
	var units []render.PortalUnit
	held, err := p.db.HeldTransmissions(p.ctx)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, u := range p.units {
		pu := render.PortalUnit{Token: u.Token, Name: u.Name, CNPJ: brdoc.FormatRegister(brdoc.Digits(u.CNPJ)), City: u.CityIBGE, IM: u.IM, Environment: "Homologação",
			Owner: p.grants.On(u.ID) == store.RoleOwner}
		if m, ok := brdoc.LookupIBGE(u.CityIBGE); ok {
			pu.City = m.Name + "/" + m.State
		}
		if prof, err := p.db.UnitProfile(p.ctx, u.ID); err == nil {
			pu.Profile, pu.Accountant = profileSummary(prof), prof.AccountantEmail
			if prof.FiscalEnvironment == store.Producao {
				pu.Environment, pu.Production = "Produção", true
			}
			switch prof.FiscalContingency {
			case "svc":
				pu.Environment += " · NF-e em contingência SVC desde " + eventDate(prof.FiscalContingencySince)
			case "epec":
				pu.Environment += " · NF-e em contingência EPEC desde " + eventDate(prof.FiscalContingencySince)
			}
			if prof.NFSeIssuer == store.NFSeMunicipal {
				pu.Environment += " · NFS-e pelo sistema do município"
			}
		}
		if last, err := p.db.LastAuthorization(p.ctx, u.ID); err == nil {
			pu.LastAnswer = fmt.Sprintf("%s nº %d, protocolo %s, emitida em %s", render.InvoiceKindName(last.Kind), last.Number, last.Protocol,
				render.DateTimeBR(last.IssuedTime()))
		}
		if last, err := p.db.LastVerdict(p.ctx, u.ID); err == nil && (last.Status == store.InvoiceRejected || last.Status == store.InvoiceDenied) {
			pu.LastRefusal = fmt.Sprintf("%s nº %d, %s", render.InvoiceKindName(last.Kind), last.Number, last.StatusText.String)
		}
		for _, h := range held {
			if h.UnitID == u.ID {
				pu.Waiting = append(pu.Waiting, fmt.Sprintf("Pedido %s: %s nº %d, %d tentativa(s); último erro: %s",
					h.OrderCode, render.InvoiceKindName(h.Kind), h.Number, h.Attempts, h.LastError))
			}
		}
		if c, err := p.db.Certificate(p.ctx, u.ID); err == nil {
			pu.Certificate = certificateOf(c, p.db.Now())
			if cert := pu.Certificate; !cert.Test && cert.Ending {
				pu.CertificateEnds, pu.Expired = cert.Until, cert.Expired
			}
		}
		units = append(units, pu)
	}
	p.page(s, http.StatusOK, "units", "Unidades", "units", units, "", "")
}

// profileSummary is a unit's fiscal profile in one line, or "".
func profileSummary(p store.UnitProfile) string {
	// The regime as the accountant reads it, its code beside.
	regime := map[int]string{1: "Simples Nacional", 2: "Simples Nacional, excesso de sublimite", 3: "regime normal", 4: "MEI"}
	var parts []string
	if p.CRT != 0 {
		parts = append(parts, cmp.Or(regime[p.CRT], "regime")+" (CRT "+strconv.Itoa(p.CRT)+")")
	}
	if p.IE != "" {
		parts = append(parts, "IE "+p.IE)
	}
	if p.CNAE != "" {
		parts = append(parts, "CNAE "+p.CNAE)
	}
	if p.Street != "" {
		parts = append(parts, strings.TrimSpace(p.Street+", "+p.Number+" "+p.Complement)+" – "+p.District+" – CEP "+formatCEP(p.Zip))
	}
	if p.PixKey != "" {
		parts = append(parts, "chave PIX "+p.PixKey)
	}
	return strings.Join(parts, " · ")
}
