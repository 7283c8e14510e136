package portal

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"

	"fincom/render"
	"fincom/server/billing"
	"fincom/store"
)

// historyEntry is a step of an order's history with the instant it sorts
// by.
type historyEntry struct {
	at string
	render.PortalHistory
}

// payerEvents say what the payer, or fincom for the firm, did on an
// order (portal_events.kind).
var payerEvents = map[string]string{"viewed": "Abriu a página de pagamento", "opened_boleto": "Abriu o boleto da parcela ",
	"copied_pix": "Copiou o código PIX", "payment_refused": "Pagamento recusado", "reminder_sent": "Lembrete de cobrança enviado"}

// orderHistory is what was done to an order, oldest first: what people
// and tokens changed (the audit log: who, through what), what the payer
// did and the reminders sent (the payment page's events), each payment
// and the invoice's authorization.
func (s *Portal) orderHistory(p *portalRequest, o store.SalesOrderDetail, charges []store.Charge) ([]render.PortalHistory, error) {
	var all []historyEntry
	audit, _, err := p.db.AuditLog(p.ctx, p.unit.ID, o.IDToken, store.Page{Number: 1, Size: 200})
	if err != nil {
		return nil, err
	}
	for _, e := range audit {
		if e.Record.String != o.IDToken {
			continue
		}
		all = append(all, historyEntry{e.At.String, render.PortalHistory{When: stampBR(e.At), Who: actorWords(e.Actor), What: routeWords(e.Route)}})
	}
	events, err := p.db.PortalEvents(p.ctx, p.unit.ID, o.IDToken)
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		what, who := payerEvents[e.Kind], "Cliente"
		switch e.Kind {
		case "reminder_sent":
			who = "fincom (régua de cobrança)"
			what += ": " + e.Detail.String
		case "due_date_changed":
			who, what = "Escritório", "Novo vencimento do boleto: "+e.Detail.String
		case "opened_boleto":
			what += e.Detail.String
		default:
			what = cmp.Or(what, e.Kind)
		}
		all = append(all, historyEntry{e.CreatedAt.String, render.PortalHistory{When: stampBR(e.CreatedAt), Who: who, What: what}})
	}
	for _, c := range charges {
		if c.PaidAt.Valid {
			all = append(all, historyEntry{c.PaidAt.String, render.PortalHistory{When: stampBR(c.PaidAt), Who: "Pagador",
				What: "Parcela " + strconv.Itoa(c.Installment) + " paga: " + render.BRL(c.PaidAmount.String)}})
		}
	}
	slices.SortStableFunc(all, func(a, b historyEntry) int {
		ta, tb := store.Stamp{Text: store.NewText(a.at)}.Time(), store.Stamp{Text: store.NewText(b.at)}.Time()
		return ta.Compare(tb)
	})
	out := make([]render.PortalHistory, len(all))
	for i, e := range all {
		out[i] = e.PortalHistory
	}
	return out, nil
}

// portalOrderPDF: GET /portal/orders/:token/pedido.pdf, the order as its
// customer receives it ("Pedido de venda", billing.OrderDocument), for
// whoever reads the unit's orders.
func (s *Portal) portalOrderPDF(p *portalRequest, token string) {
	d, err := billing.OrderDocument(p.ctx, p.db, p.unit, token)
	if errors.Is(err, store.ErrNotFound) {
		s.portalMissing(p, "Pedido", "orders")
		return
	}
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	download(p, "application/pdf", `inline; filename="pedido-`+d.Code+`.pdf"`, render.OrderPDF(d))
}

// orderCopy is the new order's form filled with the unit's order's
// fields ("Duplicar pedido"): its customer, lines (each its product's
// code and name) and quantities, description, category, means of
// payment, bank, account, instalments, e-mail, invoice and its terms,
// freight; the payment date today, a new form key.
func (s *Portal) orderCopy(p *portalRequest, token string) (render.PortalOrderForm, error) {
	o, err := p.db.SalesOrder(p.ctx, p.unit.ID, token)
	if err != nil {
		return render.PortalOrderForm{}, err
	}
	f := render.PortalOrderForm{Contact: o.IDContact.String, Description: o.Description, Date: store.Today(p.db.Now()).ISO(),
		Category: o.IDTokenCategory, Method: o.PaymentType, Provider: o.ChargeConfig.ProviderBank.String, Account: o.IDBankAccount.String,
		Installments: strconv.Itoa(max(o.ChargeConfig.Installments, 1)), Email: o.NotifyEmailCharge.String, Invoice: o.NFKind,
		Recurrence: o.Recurrence, FreightMode: strconv.Itoa(o.FreightMode), ServiceCode: o.ServiceCod.String, ISSRate: "5"}
	if o.FreightTotal.IsPositive() {
		f.FreightTotal = strings.ReplaceAll(o.FreightTotal.StringFixed(2), ".", ",")
	}
	if o.TaxIssRatePercent.IsPositive() {
		f.ISSRate = strings.ReplaceAll(o.TaxIssRatePercent.String(), ".", ",")
	}
	stock, err := p.db.StockItems(p.ctx, p.unit.ID)
	if err != nil {
		return render.PortalOrderForm{}, err
	}
	text := func(token, fallback string) string {
		for _, it := range stock {
			if it.ID == token {
				return itemText(it)
			}
		}
		return fallback
	}
	if o.Products != nil {
		for _, l := range *o.Products {
			f.Lines = append(f.Lines, render.PortalOrderLine{Item: text(l.Token, l.Description), Quantity: strings.ReplaceAll(l.Quantity.String(), ".", ",")})
		}
	} else if o.IDStockItem.Valid {
		f.Lines = append(f.Lines, render.PortalOrderLine{Item: text(o.IDStockItem.String, ""), Quantity: strings.ReplaceAll(o.Quantity.String(), ".", ",")})
	}
	return f, nil
}
