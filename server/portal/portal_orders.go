package portal

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"

	"fincom/render"
	"fincom/server/accounting"
	"fincom/server/billing"
	"fincom/server/brdoc"
	"fincom/server/fiscal"
	"fincom/server/invoicing"
	"fincom/server/web"
	"fincom/store"
)

// The portal's sales orders: a month's list, an order's page, and its
// actions (generate and cancel the charge, issue and cancel the invoice),
// each calling the same business code as its API route and showing that
// route's error text.

// portalMonth reads the period of a list page: ?de=YYYY-MM-DD&ate=… when
// both are valid and in order (at most 366 days, as the API's ranges),
// else ?mes=YYYY-MM, else this month.
func portalMonth(p *portalRequest) (month string, first, last store.Date) {
	q := p.r.URL.Query()
	first = store.Today(p.db.Now()).FirstOfMonth()
	if m, err := store.ParseDateISO(q.Get("mes") + "-01"); err == nil {
		first = m
	}
	last = store.Date{Time: first.AddDate(0, 1, -1)}
	from, err1 := store.ParseDateISO(q.Get("de"))
	to, err2 := store.ParseDateISO(q.Get("ate"))
	if err1 == nil && err2 == nil && !to.Before(from.Time) && to.Sub(from.Time) <= 366*24*time.Hour {
		return from.Format("2006-01"), from, to
	}
	return first.Format("2006-01"), first, last
}

// portalOrders: GET /portal/orders, a month's orders.
func (s *Portal) portalOrders(p *portalRequest) {
	month, first, last := portalMonth(p)
	f := store.OrderFilter{From: first.ISO(), To: last.ISO(), Code: strings.TrimSpace(p.r.URL.Query().Get("codigo")),
		Customer: strings.TrimSpace(p.r.URL.Query().Get("cliente"))}
	if f.Code != "" { // a code names its order whatever its month
		f.From, f.To = "", ""
	}
	orders, err := p.db.OrderSummaries(p.ctx, p.unit.ID, f, 5000)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	body := render.PortalOrders{Month: month, Code: f.Code, Customer: f.Customer}
	if q := p.r.URL.Query(); q.Get("de") != "" {
		body.From, body.To = first.ISO(), last.ISO()
	}
	if s.exportable(p, "", "esta lista", "pedidos-"+month, func() (render.Table, error) {
		t := render.Table{Name: "Pedidos " + month, Columns: []render.Column{{Title: "Pedido", Kind: render.ColText}, {Title: "Cliente", Kind: render.ColText},
			{Title: "Previsão de pagamento", Kind: render.ColDate}, {Title: "Valor", Kind: render.ColMoney}, {Title: "Cobrança", Kind: render.ColText},
			{Title: "Nota", Kind: render.ColText}}}
		for _, o := range orders {
			t.Rows = append(t.Rows, []string{o.Code, o.Customer, o.Date, o.Total.StringFixed(2), chargeSummary(o.Charges), render.InvoiceStatusName(o.Invoice)})
		}
		return t, nil
	}) {
		return
	}
	if s.exportable(p, "cobrancas", "as cobranças com vencimento no período", "cobrancas-"+month, func() (render.Table, error) {
		charges, err := p.db.PeriodCharges(p.ctx, p.unit.ID, first.ISO(), last.ISO())
		t := render.Table{Name: "Cobranças " + month, Columns: []render.Column{{Title: "Pedido", Kind: render.ColText}, {Title: "Cliente", Kind: render.ColText},
			{Title: "Parcela", Kind: render.ColInt}, {Title: "Vencimento", Kind: render.ColDate}, {Title: "Forma", Kind: render.ColText},
			{Title: "Valor", Kind: render.ColMoney}, {Title: "Situação", Kind: render.ColText}, {Title: "Pago em", Kind: render.ColDate},
			{Title: "Valor pago", Kind: render.ColMoney}, {Title: "Nosso número", Kind: render.ColText}}}
		for _, c := range charges {
			paid := ""
			if c.PaidAt.Valid {
				paid = store.Today(c.PaidAt.Time()).ISO()
			}
			t.Rows = append(t.Rows, []string{c.OrderCode, c.Customer, strconv.Itoa(c.Installment), c.DueDate, render.PaymentMethodName(c.Method),
				c.Amount.StringFixed(2), chargeStatusBR(c.Status), paid, c.PaidAmount.String, c.Ours.String})
		}
		return t, err
	}) {
		return
	}
	if s.exportable(p, "notas", "as notas emitidas no período", "notas-"+month, func() (render.Table, error) {
		notes, err := p.db.IssuedInvoices(p.ctx, p.unit.ID, first, last)
		if err != nil {
			return render.Table{}, err
		}
		return accounting.NotesTable("Notas emitidas "+month, notes)
	}) {
		return
	}
	orders, body.Pager = paginate(p, orders)
	for _, o := range orders {
		body.Orders = append(body.Orders, portalOrderRow(o))
	}
	p.page(s, http.StatusOK, "orders", "Pedidos de venda", "orders", body, "", "")
}

func portalOrderRow(o store.OrderSummary) render.PortalOrder {
	return render.PortalOrder{Token: o.Token, Code: o.Code, Customer: o.Customer, Date: render.DateBR(o.Date),
		Total: render.BRL(o.Total.StringFixed(2)), Charge: chargeSummary(o.Charges), Invoice: render.InvoiceStatusName(o.Invoice)}
}

// portalOrderDone are the notices of an order's actions (?feito=…).
var portalOrderDone = map[string]string{
	"charge":         "Cobrança gerada.",
	"due_date":       "Novo vencimento do boleto salvo: a próxima remessa o informa ao banco.",
	"cancel_charge":  "Cobrança cancelada.",
	"invoice":        "Nota fiscal emitida.",
	"cancel_invoice": "Nota fiscal cancelada.",
	"correct":        "Carta de correção registrada.",
	"substitute":     "NFC-e cancelada por substituição.",
	"refund":         "Devolução solicitada ao PSP.",
	"pix_accept":     "PIX aceito como pagamento da cobrança.",
	"pix_keep":       "PIX guardado para a cobrança, que segue em aberto pelo restante.",
	"pix_refund":     "Devolução do PIX solicitada ao PSP.",
	// A new order, with what was done on saving it.
	"criado":              "Pedido salvo.",
	"repetido":            "Este formulário já tinha sido enviado: o pedido é o que ele salvou, nada foi feito de novo.",
	"criado_cobrado":      "Pedido salvo e cobrança gerada.",
	"criado_nota":         "Pedido salvo e nota fiscal emitida.",
	"criado_cobrado_nota": "Pedido salvo, cobrança gerada e nota fiscal emitida.",
	// Saved, and a step asked with it failed (portalOrderFailed says it).
	"criado_sem_cobranca":     "Pedido salvo.",
	"criado_sem_nota":         "Pedido salvo.",
	"criado_cobrado_sem_nota": "Pedido salvo e cobrança gerada.",
}

// portalOrderFailed say which step asked with a new order failed; the
// first page after the save follows it with the reason (leaveNotice).
var portalOrderFailed = map[string]string{
	"criado_sem_cobranca":     "A cobrança não foi gerada:",
	"criado_sem_nota":         "A nota não foi emitida:",
	"criado_cobrado_sem_nota": "A nota não foi emitida:",
}

// eventNames name the events an authority registers on an invoice.
var eventNames = map[string]string{"110111": "Cancelamento", "110110": "Carta de correção", "e101101": "Cancelamento",
	"110112": "Cancelamento por substituição", "110140": "EPEC",
	"e105102": "Cancelamento por substituição"}

// portalOrderPage: GET /portal/orders/:token, an order with its charges and
// invoice.
func (s *Portal) portalOrderPage(p *portalRequest, token, notice, errText string, status int) {
	o, err := p.db.SalesOrder(p.ctx, p.unit.ID, token)
	if errors.Is(err, store.ErrNotFound) {
		s.portalMissing(p, "Pedido", "orders")
		return
	}
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	charges, err := p.db.SalesOrderCharges(p.ctx, p.unit.ID, token)
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	brl := func(m store.Money) string { return render.BRL(m.StringFixed(2)) }
	customer := ""
	if rows, err := p.db.OrderSummaries(p.ctx, p.unit.ID, store.OrderFilter{Code: o.CodOrders}, 1); err == nil {
		for _, r := range rows {
			if r.Token == token {
				customer = r.Customer
			}
		}
	}
	method := o.PaymentType
	if ms, err := p.db.PaymentMethods(p.ctx); err == nil {
		for _, m := range ms {
			if m.Token == o.PaymentType {
				method = m.Name
			}
		}
	}
	page := render.PortalOrderPage{Token: token, Code: o.CodOrders, Customer: customer, Description: o.Description, Total: brl(o.Value),
		Date: render.DateBR(o.EstimatedPaymentDate), PaymentType: method, ChargeStatus: chargeStatusBR(o.ChargeStatus), NFStatus: o.NFStatusText.String}
	if o.PublicToken.Valid {
		page.PaymentURL = s.Links.Payment(o.PublicToken.String)
	}
	live := false
	for _, c := range charges {
		pc := render.PortalCharge{Installment: c.Installment, Method: paymentKeyBR(c.PaymentKey), DueDate: render.DateBR(c.DueDate),
			Amount: brl(c.Amount), Status: chargeStatusBR(c.Status), Pix: c.PixPayload.String}
		if c.BoletoLine.Valid {
			pc.BoletoLine = render.FormatLine(c.BoletoLine.String)
			if reg := c.Registration.String; o.PublicToken.Valid && reg != "pending" && reg != "sent" && reg != "rejected" && c.Status != store.ChargeCancelled {
				pc.BoletoURL, pc.BoletoPDF = s.Links.Boleto(o.PublicToken.String, c.Installment), s.Links.BoletoPDF(o.PublicToken.String, c.Installment)
			}
		}
		pc.ManualBoleto = c.PaymentKey == "BOLETO" && c.Provider == "" && c.Status != "ISSUING"
		// A boleto of a bank agreement, open: the office may give it a
		// new due date.
		pc.Reschedulable = c.BoletoLine.Valid && c.OurNumber.Valid && c.Registration.String != "rejected" &&
			(c.Status == store.ChargePending || c.Status == store.ChargeOverdue)
		if c.RefundedAmount.Valid {
			pc.Refunded = render.BRL(c.RefundedAmount.String)
		}
		rest := c.Amount.Decimal
		for _, part := range c.Parts {
			pc.Parts = append(pc.Parts, render.DateBR(part.Date)+": "+brl(part.Amount))
			rest = rest.Sub(part.Amount.Decimal)
		}
		if len(c.Parts) > 0 && (c.Status == store.ChargePending || c.Status == store.ChargeOverdue) {
			pc.Rest = render.BRL(rest.StringFixed(2))
		}
		for _, h := range c.HeldPix {
			pc.Held = append(pc.Held, render.PortalHeldPix{EndToEndID: h.EndToEndID, Day: render.DateBR(h.PaidDate), Amount: brl(h.Amount),
				Asked: brl(h.Asked), Difference: brl(h.Difference), Held: h.Status == store.PixHeld,
				Keepable: h.Status == store.PixHeld && h.Difference.IsNegative() && (c.Status == store.ChargePending || c.Status == store.ChargeOverdue)})
		}
		if c.Status == store.ChargePaid && strings.HasPrefix(c.ProviderRef.String, "psp:") && c.RefundedAmount.String != c.PaidAmount.String {
			page.Refundable = true
		}
		if c.Status != store.ChargePaid && c.Status != store.ChargeCancelled {
			page.ChargeCancellable = true
		}
		if c.Status != store.ChargeCancelled {
			live = true
		}
		page.Charges = append(page.Charges, pc)
	}
	page.Chargeable, page.Invoiceable = !live, true
	if inv, err := p.db.OrderInvoice(p.ctx, p.unit.ID, token); err == nil {
		authorized := inv.Status == store.InvoiceAuthorized
		// An NFC-e is cancelled within its window, by substitution past
		// it: the page offers the one that holds.
		withinWindow := inv.Kind != "nfce" || s.Invoices.NFCeCancellable(inv.IssuedTime(), p.db.Now())
		page.InvoiceCancellable = authorized && withinWindow
		// A denied note is never sent again; a pending one is asked for
		// again by issuing.
		page.Invoiceable = !authorized && inv.Status != store.InvoiceDenied && inv.Status != store.InvoiceContingency
		page.Invoice = render.InvoiceKindName(inv.Kind) + " " + strings.ToLower(render.InvoiceStatusName(inv.Status))
		page.InvoiceNumber = strconv.Itoa(inv.Number)
		page.Correctable = inv.Kind == "nfe" && inv.Status == "AUTHORIZED"
		page.Substitutable = inv.Kind == "nfce" && authorized && inv.Protocol != "" && !withinWindow
		if inv.AccessKey.Valid {
			events, err := p.db.InvoiceEvents(p.ctx, p.unit.ID, inv.AccessKey.String)
			if err != nil {
				s.Log.Error("portal order events", "err", err)
			}
			for _, e := range events {
				name := eventNames[e.Type]
				if e.Type == "110110" {
					name += " nº " + strconv.Itoa(e.Sequence)
				}
				pe := render.PortalInvoiceEvent{Name: name, Protocol: e.Protocol, Date: eventDate(e.CreatedAt), Text: invoicing.CorrectionText(e)}
				if kind := invoicing.EventKind(e); kind != "" && o.PublicToken.Valid {
					pe.XMLURL = s.Links.EventXML(o.PublicToken.String, kind, e.Sequence)
				}
				page.Events = append(page.Events, pe)
			}
		}
		if o.PublicToken.Valid && (inv.Status == store.InvoiceAuthorized || inv.Status == store.InvoiceCancelled || inv.Status == store.InvoiceContingency) {
			page.DANFEURL = s.Links.DANFE(o.PublicToken.String)
		}
		if inv.Status == store.InvoiceAuthorized || inv.Status == store.InvoiceContingency {
			for _, t := range invoicing.TaxesStated(inv, o.Taxes) {
				page.Taxes = append(page.Taxes, render.PortalTax{Name: t.Name, Amount: render.BRL(t.Amount.StringFixed(2))})
			}
		}
	}
	page.Lines, page.Freight, page.Billed = billing.OrderLines(o)
	if page.History, err = s.orderHistory(p, o, charges); err != nil {
		s.portalFailed(p, err)
		return
	}
	p.page(s, status, "order", "Pedido "+o.CodOrders, "orders", page, notice, errText)
}

// chargeStatusBR names a charge's (or an order's) charge status as the
// payment page does.
func chargeStatusBR(st string) string {
	switch {
	case web.StatusNames[st] != "":
		return web.StatusNames[st]
	case st == store.ChargeCancelled:
		return "Cancelado"
	}
	return "Sem cobrança"
}

func paymentKeyBR(k string) string {
	if n := render.PaymentMethodName(k); n != "" {
		return n
	}
	return k
}

// portalOrderAction runs an action on an order (POST
// /portal/orders/:token/ACTION) and shows the order again: after success
// by a redirect (reloading does not repeat it), after a refusal with the
// text of the API route of the same action (its form's Act).
func (s *Portal) portalOrderAction(w http.ResponseWriter, r *http.Request, ps httprouter.Params, action string) {
	token := ps.ByName("token")
	s.withSession(func(p *portalRequest) {
		api := p.r.Context().Value(formKey{}).(Form).Act
		var err error
		switch action {
		case "charge":
			err = s.Billing.IssueCharges(p.ctx, p.db, p.unit.ID, token)
		case "cancel_charge":
			err = s.Billing.CancelCharges(p.ctx, p.db, p.unit.ID, token)
		case "due_date":
			n, _ := strconv.Atoi(p.r.PostFormValue("installment"))
			err = s.Billing.ChangeBoletoDue(p.ctx, p.db, p.unit, token, n, dateISO(p.r.PostFormValue("due_date")))
		case "refund":
			var amount *store.Money
			if amount, err = amountBR(p.r.PostFormValue("amount")); err == nil {
				_, err = s.Billing.RefundPix(p.ctx, p.db, p.unit.ID, token, amount, strings.TrimSpace(p.r.PostFormValue("reason")))
			}
		case "pix_accept", "pix_keep", "pix_refund":
			err = s.Billing.DecidePix(p.ctx, p.db, p.unit.ID, token, p.r.PostFormValue("e2e"), strings.TrimPrefix(action, "pix_"),
				strings.TrimSpace(p.r.PostFormValue("reason")))
		case "invoice":
			_, err = s.Invoices.Issue(p.ctx, p.db, p.unit.ID, token)
		case "cancel_invoice":
			reason := strings.TrimSpace(p.r.PostFormValue("reason"))
			if n := utf8.RuneCountInString(reason); n < 15 || n > 255 {
				err = web.ErrCancelReason
			} else {
				err = s.Invoices.Cancel(p.ctx, p.db, p.unit.ID, token, reason, "")
			}
		case "correct":
			_, err = s.Invoices.Correct(p.ctx, p.db, p.unit.ID, token, p.r.PostFormValue("correction"))
		case "substitute":
			reason := strings.TrimSpace(p.r.PostFormValue("reason"))
			if n := utf8.RuneCountInString(reason); n < 15 || n > 255 {
				err = web.ErrCancelReason
			} else {
				err = s.Invoices.CancelBySubstitution(p.ctx, p.db, p.unit.ID, token, brdoc.Digits(p.r.PostFormValue("substitute")), reason)
			}
		}
		if err != nil {
			status, text := s.routeError(api, err)
			if status >= 500 {
				s.Log.Error("portal action", "action", action, "err", err)
			}
			p.w.Header().Set("Cache-Control", "no-store")
			s.portalOrderPage(p, token, "", text, status)
			return
		}
		http.Redirect(p.w, p.r, "/portal/orders/"+url.PathEscape(token)+"?unit="+url.QueryEscape(p.unit.Token)+"&feito="+action, http.StatusSeeOther)
	})(w, r, ps)
}

// dateISO is a day typed as a date field sends it (YYYY-MM-DD) or as
// Brazilians write it (DD/MM/AAAA), as YYYY-MM-DD; anything else as it
// came, for the use case to refuse.
func dateISO(s string) string {
	s = strings.TrimSpace(s)
	if t, err := time.Parse("02/01/2006", s); err == nil {
		return t.Format(time.DateOnly)
	}
	return s
}

// amountBR reads an amount typed as Brazilians write it (1.234,56 or
// 1.400; a point alone before one or two digits is the decimal one:
// 10.50), nil when blank.
func amountBR(s string) (*store.Money, error) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "R$"))
	if s == "" {
		return nil, nil
	}
	// As Brazilians write amounts: a comma before the cents, dots between
	// thousands ("1.250,00", and "1.400" is a thousand and four hundred);
	// a lone dot before one or two digits is the cents' ("24.90").
	if strings.Contains(s, ",") || thousands.MatchString(s) {
		s = strings.ReplaceAll(strings.ReplaceAll(s, ".", ""), ",", ".")
	}
	m, err := store.ParseMoney(s)
	if err != nil {
		return nil, store.ErrMoneyRange
	}
	return &m, nil
}

// thousands is an amount written with dots between its thousands only.
var thousands = regexp.MustCompile(`^-?[0-9]{1,3}(\.[0-9]{3})+$`)

// routeError is the status and text the API route at path answers for err.
func (s *Portal) routeError(path string, err error) (int, string) {
	for i := range s.APIRoutes {
		if s.APIRoutes[i].Path == path {
			var e *web.Error
			if errors.As(s.APIRoutes[i].Answer(err), &e) {
				text := e.Text
				if _, words := portalWords.find(err); words != "" {
					text = words
				}
				// An outside party's own code and text, which the API
				// answers in details, are said on the page.
				if d, ok := e.Details.(map[string]any); ok && d["code"] != nil && d["reason"] != nil {
					return web.StatusOf(e), fmt.Sprintf("%s (%v: %v)", text, d["code"], d["reason"])
				}
				// An invoice's problems, which the API lists in details,
				// are listed on the page: each field and what it lacks.
				if d, ok := e.Details.(map[string]any); ok {
					if ps, ok := d["problems"].([]fiscal.Problem); ok && len(ps) > 0 {
						var b strings.Builder
						b.WriteString("Os dados fiscais do pedido estão incompletos:")
						for _, p := range ps {
							b.WriteString(" " + problemWords(p) + ";")
						}
						return web.StatusOf(e), strings.TrimSuffix(b.String(), ";") + "."
					}
				}
				return web.StatusOf(e), text
			}
			break
		}
	}
	return http.StatusInternalServerError, "Algo deu errado. Tente de novo em instantes."
}

// eventDate is an event's registration time, as the pages write times.
func eventDate(stamp string) string {
	t, err := time.Parse(time.RFC3339, stamp)
	if err != nil {
		return stamp
	}
	return render.DateTimeBR(t)
}
