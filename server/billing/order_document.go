package billing

import (
	"cmp"
	"context"
	"strconv"
	"strings"

	"fincom/render"
	"fincom/server/provider"
	"fincom/store"
)

// OrderDocument is the unit's order as its customer receives it ("Pedido
// de venda"): the firm and the customer with their documents and
// addresses, the lines as sold (a service order: its service), the
// freight and what the order bills, how it is paid, and each live
// instalment with what pays it (its boleto's line, its PIX code).
func OrderDocument(ctx context.Context, db *store.DB, unit store.Unit, orderToken string) (render.OrderDocument, error) {
	o, err := db.SalesOrder(ctx, unit.ID, orderToken)
	if err != nil {
		return render.OrderDocument{}, err
	}
	prof, err := db.UnitProfile(ctx, unit.ID)
	if err != nil {
		return render.OrderDocument{}, err
	}
	d := render.OrderDocument{Code: o.CodOrders, Date: strings.SplitN(o.CreatedDateHours, " ", 2)[0], Description: o.Description,
		Seller: unit.Name, SellerCNPJ: formatDocument(unit.CNPJ),
		SellerAddress: address(prof.Street, prof.Number, prof.District, "", "", prof.Zip, unit.CityIBGE), Customer: o.ContactName.String}
	if o.IDContact.Valid {
		if c, err := db.ContactByToken(ctx, unit.ID, o.IDContact.String); err == nil {
			d.CustomerDocument = formatDocument(c.Register)
			d.CustomerAdr = address(c.Address, c.Number, c.Neighborhood, c.City, c.State, c.ZipCode, "")
		}
	}
	d.Lines, d.Freight, d.Total = OrderLines(o)
	charges, err := db.SalesOrderCharges(ctx, unit.ID, orderToken)
	if err != nil {
		return render.OrderDocument{}, err
	}
	live := 0
	for _, c := range charges {
		if c.Status == store.ChargeCancelled {
			continue
		}
		live++
		in := render.OrderInstalment{Number: strconv.Itoa(c.Installment), DueDate: render.DateBR(c.DueDate), Amount: render.BRL(c.Amount.StringFixed(2))}
		if c.Status != store.ChargePaid {
			in.BoletoLine, in.PixCode = render.FormatLine(c.BoletoLine.String), c.PixPayload.String
			if c.Registration.String == "pending" || c.Registration.String == "sent" || c.Registration.String == "rejected" {
				in.BoletoLine = "" // not yet payable: the bank has not registered it
			}
		} else {
			in.Amount += " (paga)"
		}
		d.Instalments = append(d.Instalments, in)
	}
	if method := paymentWords[o.PaymentKey]; method != "" {
		d.Terms = method
		if live > 1 {
			d.Terms += ", " + strconv.Itoa(live) + " parcelas"
		}
	}
	return d, nil
}

// OrderLines are what an order's customer bought, as its page and its
// document show it: each product line as sold (a service order: its
// service), the freight it charges ("" none) and what it bills with it.
func OrderLines(o store.SalesOrderDetail) (lines []render.PortalOrderItem, freight, total string) {
	if o.Products != nil {
		for _, l := range *o.Products {
			lines = append(lines, render.PortalOrderItem{Code: l.Code, Description: l.Description, Quantity: render.BRNumber(l.Quantity.String()),
				Unit: l.Unit.String, UnitValue: render.BRL(l.UnitValue.StringFixed(2)), Total: render.BRL(l.Total.StringFixed(2))})
		}
	} else {
		lines = append(lines, render.PortalOrderItem{Description: cmp.Or(strings.TrimSpace(o.StockItemName.String), o.Description),
			Quantity: render.BRNumber(o.Quantity.String()), Total: render.BRL(o.Value.StringFixed(2))})
	}
	if o.FreightMode != 9 && o.FreightTotal.IsPositive() {
		freight = render.BRL(o.FreightTotal.StringFixed(2))
	}
	return lines, freight, render.BRL(billed(store.OrderBill{Value: o.Value, Freight: o.FreightTotal, FreightMode: o.FreightMode}).StringFixed(2))
}

// paymentWords name an order's means of payment on its document.
var paymentWords = map[string]string{"BOLETO": "Boleto bancário", "PIX": "PIX", "PIX_AUTOMATICO": "PIX Automático", "CREDIT_CARD": "Cartão de crédito",
	"DEBIT_CARD": "Cartão de débito", "TRANSFER": "Transferência bancária", "CASH": "Dinheiro"}

// orderPDFAttachment is the order's "Pedido de venda" PDF for the e-mail
// of its charge c, when the unit asks for it (none otherwise), with what
// the provider just issued for c (its boleto's line, its PIX code).
func (s *Service) orderPDFAttachment(ctx context.Context, db *store.DB, unitID int64, orderToken string, c store.Charge,
	issued provider.Issued) ([]store.Attachment, error) {
	on, err := db.OrderPDFInMail(ctx, unitID)
	if err != nil || !on {
		return nil, err
	}
	unit, err := db.UnitByID(ctx, unitID)
	if err != nil {
		return nil, err
	}
	d, err := OrderDocument(ctx, db, unit, orderToken)
	if err != nil {
		return nil, err
	}
	for i := range d.Instalments {
		if d.Instalments[i].Number == strconv.Itoa(c.Installment) {
			// A boleto's line is payable once its bank registered it (a
			// simulated one at once); until then the payment page shows it.
			d.Instalments[i].PixCode = issued.PixPayload
			if issued.BoletoLine != "" && c.Registration.String == "simulated" {
				d.Instalments[i].BoletoLine = render.FormatLine(issued.BoletoLine)
			}
		}
	}
	return []store.Attachment{{Name: "pedido-" + d.Code + ".pdf", ContentType: "application/pdf", Data: render.OrderPDF(d)}}, nil
}
