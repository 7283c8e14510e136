package portal

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"
	"github.com/shopspring/decimal"

	"fincom/render"
	"fincom/server/accounting"
	"fincom/server/billing"
	"fincom/server/statement"
	"fincom/server/web"
	"fincom/store"
)

// The portal's bank reconciliation and its read-only lists: the outbox,
// the webhook deliveries and the audit log.

// statementPage: GET /portal/statement, the unit's open statement lines,
// each to pair with an open entry or dismiss.
func (s *Portal) statementPage(p *portalRequest, status int, notice, errText string) {
	if s.exportable(p, "", "esta lista", "extrato", func() (render.Table, error) {
		all, _, err := p.db.StatementLines(p.ctx, p.unit.ID, "", "", store.Page{})
		if err != nil {
			return render.Table{}, err
		}
		accounts, err := accounting.UnitAccounts(p.ctx, p.db, p.unit.ID)
		return accounting.StatementTable("Extrato", all, accounts), err
	}) {
		return
	}
	var body render.PortalStatement
	lines, pager, err := pageFromStore(p, statementRows, func(pg store.Page) ([]store.StatementLine, int, error) {
		return p.db.StatementLines(p.ctx, p.unit.ID, "", "open", pg)
	})
	body.Pager = pager
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	today := store.Today(p.db.Now())
	open, err := p.db.EntrySummaries(p.ctx, p.unit.ID, today.AddDate(-1, 0, 0).Format("2006-01-02"), today.AddDate(1, 0, 0).Format("2006-01-02"), "", 2000)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	// What a line may be paired with: the open entries (an expense
	// negative) and charges, ranked for each line (statement.Rank).
	var candidates []statement.Candidate
	for _, e := range open {
		if e.PayDay != "" {
			continue
		}
		amount, sign := e.Value.Decimal, ""
		if e.Type == "out" {
			amount, sign = amount.Neg(), "-"
		}
		due, _ := store.ParseDateISO(e.DueDate)
		candidates = append(candidates, statement.Candidate{Value: "entry:" + e.Token, Amount: amount, Due: due.Time, Names: e.Contact + " " + e.Description,
			Contact: e.Contact, Label: sign + render.BRL(e.Value.StringFixed(2)) + " · " + render.DateBR(e.DueDate) + " · " + e.Description + " (lançamento)"})
	}
	charges, err := p.db.OpenCharges(p.ctx, p.unit.ID, 500)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, c := range charges {
		due, _ := store.ParseDateISO(c.DueDate)
		// What the charge asks on a line's day: what is left of it, with
		// a late payment's fine and interest by its own terms.
		owed := func(day time.Time) decimal.Decimal {
			return billing.Rules{}.Owed(c.Due, day.Format(time.DateOnly)).Total().Decimal
		}
		rest := billing.Rules{}.Owed(c.Due, "").Principal
		// What tells options apart first, on a phone's narrow select: the
		// amount, then the day.
		label := render.BRL(c.Amount.StringFixed(2)) + " · " + render.DateBR(c.DueDate) + " · " + c.Customer + " · " + c.Code + " parcela " +
			strconv.Itoa(c.Installment) + " (cobrança)"
		if !rest.Equal(c.Amount.Decimal) {
			label = render.BRL(rest.StringFixed(2)) + " restantes de " + label
		}
		candidates = append(candidates, statement.Candidate{Value: "charge:" + c.OrderToken + ":" + strconv.Itoa(c.Installment), Amount: rest.Decimal,
			Due: due.Time, Names: c.Customer, Contact: c.Customer, Owed: owed, Label: label})
	}
	if body.InCategories, body.OutCategories, err = categoryOptions(p); err != nil {
		s.portalFailed(p, err)
		return
	}
	kindCategory, err := lineKindCategories(p)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, l := range lines {
		pl := render.PortalLine{Token: l.Token, Date: render.DateBR(l.Date), Amount: render.BRL(l.Amount.StringFixed(2)),
			Memo: l.Memo.String, Credit: l.Amount.IsPositive()}
		posted, _ := store.ParseDateISO(l.Date)
		ranked := statement.Rank(l.Amount.Decimal, posted.Time, l.Memo.String, candidates)
		for _, c := range ranked[:min(len(ranked), pairOptions)] {
			pl.Options = append(pl.Options, render.PortalOption{Value: c.Value, Label: pairLabel(c)})
		}
		for _, c := range ranked {
			if len(pl.Items) == lineItemsShown {
				break
			}
			if c.Items == nil {
				pl.Items = append(pl.Items, render.PortalOption{Value: c.Value, Label: pairLabel(c)})
			}
		}
		// Only a pairing Conciliar accepts as it is (the line's own
		// amount, the amount due with fine and interest, an exact sum) is
		// preselected.
		pl.Exact = len(ranked) > 0 && ranked[0].Accepted
		if !pl.Exact {
			pl.Category = kindCategory[statement.Kind(l.Memo.String, pl.Credit)]
		}
		body.Lines = append(body.Lines, pl)
	}
	resolved, err := p.db.ResolvedStatementLines(p.ctx, p.unit.ID, 30)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	for _, l := range resolved {
		r := render.PortalResolved{Token: l.Token, Date: render.DateBR(l.Date), Amount: render.BRL(l.Amount.StringFixed(2)), Memo: l.Memo.String,
			Credit: l.Amount.IsPositive(), How: map[string]string{"exact": "automática", "window": "automática", "person": "manual"}[l.MatchedBy.String]}
		switch {
		case l.Status == "dismissed":
			r.What, r.Undo = "Descartada", true
		case l.ChargeToken.Valid:
			r.What, r.Undo = "Pagou a cobrança do pedido "+l.OrderCode.String, true
		case l.EntryToken.Valid:
			r.What = map[string]string{"booked": "Lançada como ", "paid": "Pagou o lançamento ", "reconciled": "Conciliou o lançamento "}[l.Effect.String]
			if r.What == "" {
				r.What = "Conciliou o lançamento "
			}
			r.What += "“" + l.EntryDescription.String + "”"
			r.Undo = l.Effect.Valid
		}
		body.Resolved = append(body.Resolved, r)
	}
	p.page(s, status, "statement", "Conciliação bancária", "statement", body, notice, errText)
}

// A reconciliation page shows statementRows lines, each with its
// pairOptions likeliest pairs and lineItemsShown items to tick: a person
// works down a page, and a page stays small however many lines wait
// (TestPortalPagesStaySmall).
const (
	statementRows  = 20
	pairOptions    = 15
	lineItemsShown = 8
)

// pairLabel is how a pairing is offered: a sum names its items, a late
// charge what it asks on the line's day with its fine and interest.
func pairLabel(r statement.Ranked) string {
	if r.Items != nil {
		parts := make([]string, len(r.Items))
		for i, it := range r.Items {
			parts[i] = it.Label
		}
		return render.BRL(r.Asks.StringFixed(2)) + " · soma de " + strconv.Itoa(len(r.Items)) + " itens de " + r.Contact + ": " + strings.Join(parts, " + ")
	}
	if !r.Asks.Equal(r.Amount) {
		return render.BRL(r.Asks.StringFixed(2)) + " com multa e juros no dia · " + r.Label
	}
	return r.Label
}

// lineItems are the pairings a reconciliation names as the values the
// page posts ("entry:TOKEN", "charge:ORDER:N"), each once.
func lineItems(values []string) []store.LineItem {
	var out []store.LineItem
	for _, v := range values {
		kind, what, _ := strings.Cut(v, ":")
		switch kind {
		case "entry":
			out = append(out, store.LineItem{EntryToken: what})
		case "charge":
			order, n, _ := strings.Cut(what, ":")
			i, _ := strconv.Atoi(n)
			out = append(out, store.LineItem{OrderToken: order, Installment: i})
		}
	}
	return out
}

// portalReconcile: POST /portal/statement/:token pairs a line with an
// entry or dismisses it, as /reconcile_statement_line does, with its texts.
func (s *Portal) portalReconcile(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	s.withSession(func(p *portalRequest) {
		rc := store.Reconciliation{LineToken: ps.ByName("token"), Dismiss: p.r.PostFormValue("action") == "dismiss"}
		if p.r.PostFormValue("action") == "book" {
			rc.Book = &store.Booking{CategoryToken: p.r.PostFormValue("category"), Description: p.r.PostFormValue("description")}
		} else if !rc.Dismiss {
			rc.Partial = p.r.PostFormValue("partial") == "1"
			if c := p.r.PostFormValue("difference"); c != "" && !rc.Partial {
				rc.Difference = &store.Booking{CategoryToken: c}
			}
			kind, what, _ := strings.Cut(p.r.PostFormValue("pair"), ":")
			switch {
			case len(p.r.PostForm["item"]) > 0:
				// The items ticked, in place of the pair chosen, as
				// /reconcile_statement_line's items.
				rc.Items = lineItems(p.r.PostForm["item"])
			case kind == "items":
				rc.Items = lineItems(strings.Split(what, ","))
			case kind == "entry":
				rc.EntryToken = what
			case kind == "charge":
				order, n, _ := strings.Cut(what, ":")
				rc.OrderToken = order
				rc.Installment, _ = strconv.Atoi(n)
			}
		}
		var err error
		if p.r.PostFormValue("action") == "undo" {
			if _, err := s.Billing.UndoReconciliation(p.ctx, p.db, p.unit.ID, rc.LineToken); err != nil {
				_, words := portalWords.find(err)
				if words == "" {
					s.portalFailed(p, err)
					return
				}
				s.statementPage(p, http.StatusConflict, "", words)
				return
			}
			http.Redirect(p.w, p.r, "/portal/statement?unit="+url.QueryEscape(p.unit.Token)+"&feito=desfeito", http.StatusSeeOther)
			return
		}
		if !rc.Dismiss && rc.Book == nil && rc.EntryToken == "" && rc.OrderToken == "" && len(rc.Items) == 0 {
			err = web.ErrReconcileWhat
		} else if len(rc.Items) > store.MaxLineItems {
			err = store.ErrLineItemsMany
		} else if rc.Book != nil && utf8.RuneCountInString(rc.Book.Description) > web.MaxShortText {
			// Bounded as /reconcile_statement_line bounds it.
			err = web.ErrTooLong
		} else {
			_, err = s.Billing.Reconcile(p.ctx, p.db, p.unit.ID, rc)
		}
		if err != nil {
			status, text := s.routeError("/reconcile_statement_line", err)
			s.statementPage(p, status, "", text)
			return
		}
		http.Redirect(p.w, p.r, "/portal/statement?unit="+url.QueryEscape(p.unit.Token)+"&feito=1", http.StatusSeeOther)
	})(w, r, ps)
}

// inboxPage: GET /portal/inbox, the NF-e issued to the unit: a summary
// said as such until its full note comes, the note's situation at its
// authority, and where each manifestation stands at the national
// environment, with its reply.
func (s *Portal) inboxPage(p *portalRequest) {
	notes, _, err := p.db.InboxNFes(p.ctx, p.unit.ID, store.Page{Number: 1, Size: logShown})
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	situation := map[string]string{"authorized": "Autorizada", "denied": "Denegada", "cancelled": "Cancelada"}
	manifestation := map[string]string{"ciencia": "Ciência", "confirmacao": "Confirmação", "desconhecimento": "Desconhecimento",
		"nao_realizada": "Operação não realizada"}
	sent := map[string]string{"pending": "aguardando o envio", "registered": "registrada", "refused": "recusada"}
	body := render.PortalLog{Heading: "NF-e recebidas", Intro: "As notas emitidas para a unidade (as últimas 2.000), como o ambiente nacional as distribuiu ou como foram importadas.",
		Columns: []string{"Emitente", "Emissão", "Valor", "Chave", "Documento", "Situação", "Manifestação"}}
	for _, n := range notes {
		doc := "Nota completa"
		if n.Summary {
			doc = "Resumo: a nota completa vem após a ciência"
		}
		m := ""
		if n.Manifestation.Valid {
			m = manifestation[n.Manifestation.String] + " · " + sent[n.ManifestationStatus.String]
			if n.ManifestationReply.String != "" {
				m += " (" + n.ManifestationReply.String + ")"
			}
		}
		body.Rows = append(body.Rows, []string{n.SupplierName + " · " + n.SupplierCNPJ, render.DateBR(n.IssueDate.String), render.BRL(n.TotalValue.StringFixed(2)),
			n.AccessKey, doc, situation[n.Situation.String], m})
	}
	s.logPage(p, "nfe-recebidas", "NF-e recebidas", "inbox", body)
}

// outboxPage: GET /portal/outbox, the unit's latest e-mails.
func (s *Portal) outboxPage(p *portalRequest) {
	mails, err := p.db.Outbox(p.ctx, p.unit.ID, logShown)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	status := map[string]string{"pending": "Na fila", "sent": "Enviado", "failed": "Falhou"}
	body := render.PortalLog{Heading: "E-mails enviados", Intro: "As últimas mensagens da unidade (até 2.000) e se cada uma foi enviada.",
		Columns: []string{"Criado em", "Para", "Assunto", "Situação", "Tentativas"}}
	for _, m := range mails {
		body.Rows = append(body.Rows, []string{stampBR(m.CreatedAt), m.To, m.Subject, status[m.Status] + errSuffix(m.LastError.String), strconv.Itoa(m.Attempts)})
	}
	s.logPage(p, "emails", "E-mails", "outbox", body)
}

// webhooksPage: GET /portal/webhooks, the unit's latest deliveries.
func (s *Portal) webhooksPage(p *portalRequest) {
	ds, _, err := p.db.Deliveries(p.ctx, p.unit.ID, store.Page{Number: 1, Size: logShown})
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	status := map[string]string{"pending": "Na fila", "sent": "Entregue", "failed": "Falhou"}
	body := render.PortalLog{Heading: "Avisos enviados a outros sistemas (webhooks)", Intro: "As últimas entregas de eventos da unidade aos endereços cadastrados (até 2.000).",
		Columns: []string{"Criado em", "Evento", "Situação", "Tentativas", "Última resposta"}}
	for _, d := range ds {
		last := ""
		if d.LastStatus != nil {
			last = "HTTP " + strconv.Itoa(*d.LastStatus)
		}
		body.Rows = append(body.Rows, []string{stampBR(d.CreatedAt), d.EventType, status[d.Status] + errSuffix(d.LastError.String), strconv.Itoa(d.Attempts), last})
	}
	s.logPage(p, "webhooks", "Avisos a sistemas", "webhooks", body)
}

// auditPage: GET /portal/audit, who changed what in the unit, and when:
// searched and paged in the store, since the log only grows.
func (s *Portal) auditPage(p *portalRequest) {
	body := render.PortalLog{Heading: "Registro de alterações", Intro: "Quem alterou o quê na unidade, e quando: tokens de acesso, usuários do portal, a linha de comando e o agendador.",
		Columns: []string{"Quando", "Quem", "O quê", "Registro"}, Search: strings.TrimSpace(p.r.URL.Query().Get("busca"))}
	rows := func(entries []store.AuditEntry) [][]string {
		out := make([][]string, 0, len(entries))
		for _, e := range entries {
			out = append(out, []string{stampBR(e.At), actorWords(e.Actor), routeWords(e.Route), e.Record.String})
		}
		return out
	}
	if s.exportable(p, "", "esta lista", "registro", func() (render.Table, error) {
		entries, _, err := p.db.AuditLog(p.ctx, p.unit.ID, body.Search, store.Page{})
		return logTable(body, rows(entries)), err
	}) {
		return
	}
	entries, pager, err := pageFromStore(p, pageRows, func(pg store.Page) ([]store.AuditEntry, int, error) {
		return p.db.AuditLog(p.ctx, p.unit.ID, body.Search, pg)
	})
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	body.Rows, body.Pager = rows(entries), pager
	p.page(s, http.StatusOK, "log", "Registro de alterações", "audit", body, "", "")
}

// actorWords says who made a change as a person reads it, the audit log's
// own name of it in parentheses where it is a code.
func actorWords(actor string) string {
	switch {
	case strings.HasPrefix(actor, "token:"):
		id, hint, _ := strings.Cut(strings.TrimPrefix(actor, "token:"), " ")
		return "Token de acesso nº " + id + " " + hint
	case strings.HasPrefix(actor, "user:"):
		return strings.TrimPrefix(actor, "user:")
	case actor == "cli":
		return "Linha de comando (cli)"
	case actor == "scheduler":
		return "Agendador (scheduler)"
	case actor == "portal":
		return "Portal"
	}
	return actor
}

// routeWords says through what a change was made: the portal's page or
// the API's route, its path in parentheses.
func routeWords(route string) string {
	switch {
	case strings.HasPrefix(route, "portal:"):
		return "Portal (" + strings.TrimPrefix(route, "portal:") + ")"
	case strings.HasPrefix(route, "cli:"):
		return "Comando " + strings.TrimPrefix(route, "cli:")
	case strings.HasPrefix(route, "/"):
		w, _ := APIWords(route)
		return w
	}
	return route
}

// logShown is how many of its latest records a log page reads; a search
// looks among them.
const logShown = 2000

// logPage writes a log page: the rows holding the request's search
// (?busca=, in any column), paged, or their export, named file.
func (s *Portal) logPage(p *portalRequest, file, title, nav string, body render.PortalLog) {
	body.Search = strings.TrimSpace(p.r.URL.Query().Get("busca"))
	var found [][]string
	for _, r := range body.Rows {
		if matches(body.Search, r...) {
			found = append(found, r)
		}
	}
	if s.exportable(p, "", "esta lista", file, func() (render.Table, error) {
		return logTable(body, found), nil
	}) {
		return
	}
	body.Rows, body.Pager = paginate(p, found)
	p.page(s, http.StatusOK, "log", title, nav, body, "", "")
}

// logTable is a log page's rows as an export.
func logTable(body render.PortalLog, rows [][]string) render.Table {
	t := render.Table{Name: body.Heading, Rows: rows}
	for _, c := range body.Columns {
		t.Columns = append(t.Columns, render.Column{Title: c, Kind: render.ColText})
	}
	return t
}

func stampBR(s store.Stamp) string {
	if !s.Valid {
		return ""
	}
	return render.DateTimeBR(s.Time())
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return " (" + e + ")"
}

// lineKindCategories are the categories a line's booking preselects by
// what its memo says it is (statement.Kind): a tariff the first expense
// category of the financial expenses named for tariffs (else the first of
// them), a yield the first income of the financial incomes named for
// yields (else the first of them).
func lineKindCategories(p *portalRequest) (map[string]string, error) {
	out := map[string]string{}
	for _, k := range []struct {
		kind, typ, prefix string
		group             int64
	}{{statement.KindFee, "out", "tarifa", 207}, {statement.KindYield, "in", "rendimento", 103}} {
		cats, err := p.db.Categories(p.ctx, p.unit.ID, k.typ, "")
		if err != nil {
			return nil, err
		}
		for _, c := range cats {
			if c.Group() != k.group {
				continue
			}
			if out[k.kind] == "" || strings.HasPrefix(store.Fold(c.Category), k.prefix) && !strings.HasPrefix(store.Fold(catName(cats, out[k.kind])), k.prefix) {
				out[k.kind] = c.Token
			}
		}
	}
	return out, nil
}

// catName is the name of the category of token among cats.
func catName(cats []store.Category, token string) string {
	for _, c := range cats {
		if c.Token == token {
			return c.Category
		}
	}
	return ""
}
