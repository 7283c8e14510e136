package render

// OrderDocument is a sales order as its customer receives it ("Pedido de
// venda"): the firm, the customer, the lines, the totals, how it is paid
// (each instalment and what pays it).
type OrderDocument struct {
	Code, Date, Description                 string
	Seller, SellerCNPJ, SellerAddress       string
	Customer, CustomerDocument, CustomerAdr string
	Lines                                   []PortalOrderItem
	Freight, Total                          string
	// Terms say how it is paid ("Boleto bancário, 2 parcelas");
	// Instalments each one's due date, amount and what pays it.
	Terms       string
	Instalments []OrderInstalment
}

// OrderInstalment is an instalment as the order's document states it.
type OrderInstalment struct {
	Number, DueDate, Amount string
	// BoletoLine and PixCode are what pays it ("" none).
	BoletoLine, PixCode string
}

// OrderPDF lays an order out as an A4 PDF: the firm and the customer, a
// table of its lines (a new page when it runs out), the freight and the
// total, the payment terms and, for each instalment, its boleto's line or
// its PIX code.
func OrderPDF(d OrderDocument) []byte {
	p := &pdf{}
	p.newPage()
	y := margin
	bottom := pageH - margin
	need := func(h float64) {
		if y+h > bottom {
			p.newPage()
			y = margin
		}
	}
	p.text(margin, y+14, 16, true, "Pedido de venda "+d.Code)
	p.text(margin+360, y+14, 9, false, "Data: "+d.Date)
	y += 28
	party := func(title, name, doc, address string) {
		h := 40.0
		p.box(margin, y, contentW, h)
		p.text(margin+4, y+10, 7, true, title)
		p.text(margin+4, y+22, 9, true, fit(name+withDoc(doc), contentW-8, 9))
		p.text(margin+4, y+34, 8, false, fit(address, contentW-8, 8))
		y += h + 6
	}
	party("VENDEDOR", d.Seller, d.SellerCNPJ, d.SellerAddress)
	party("CLIENTE", d.Customer, d.CustomerDocument, d.CustomerAdr)
	if d.Description != "" {
		p.text(margin, y+10, 9, false, fit(d.Description, contentW, 9))
		y += 16
	}
	cols := []struct {
		title string
		w     float64
		right bool
	}{{"CÓDIGO", 60, false}, {"DESCRIÇÃO", 225, false}, {"QUANT.", 60, true}, {"PREÇO UNIT.", 95, true}, {"TOTAL", contentW - 440, true}}
	cell := func(x, w float64, right bool, size float64, bold bool, s string) {
		s = fit(s, w-8, size)
		if right {
			x += w - 4 - float64(len([]rune(s)))*0.5*size
		} else {
			x += 4
		}
		p.text(x, y+12, size, bold, s)
	}
	head := func() {
		x := margin
		for _, c := range cols {
			p.box(x, y, c.w, 16)
			cell(x, c.w, c.right, 7, true, c.title)
			x += c.w
		}
		y += 16
	}
	head()
	for _, l := range d.Lines {
		if y+16 > bottom {
			p.newPage()
			y = margin
			head()
		}
		x := margin
		qty := l.Quantity
		if l.Unit != "" {
			qty += " " + l.Unit
		}
		for i, v := range []string{l.Code, l.Description, qty, l.UnitValue, l.Total} {
			p.box(x, y, cols[i].w, 16)
			cell(x, cols[i].w, cols[i].right, 8, false, v)
			x += cols[i].w
		}
		y += 16
	}
	need(40)
	y += 6
	if d.Freight != "" {
		p.text(margin+300, y+10, 9, false, "Frete: "+d.Freight)
		y += 14
	}
	p.text(margin+300, y+12, 11, true, "Total do pedido: "+d.Total)
	y += 24
	if d.Terms != "" {
		need(20)
		p.text(margin, y+10, 9, true, "Pagamento: "+fit(d.Terms, contentW-70, 9))
		y += 18
	}
	for _, in := range d.Instalments {
		need(40)
		p.text(margin, y+10, 9, false, "Parcela "+in.Number+" · vence em "+in.DueDate+" · "+in.Amount)
		y += 14
		if in.BoletoLine != "" {
			p.text(margin+10, y+10, 8, false, "Boleto, linha digitável: "+in.BoletoLine)
			y += 14
		}
		if in.PixCode != "" {
			p.text(margin+10, y+10, 8, false, "PIX copia e cola:")
			y += 12
			for _, l := range wrap(in.PixCode, contentW-20, 7) {
				need(12)
				p.text(margin+10, y+10, 7, false, l)
				y += 10
			}
		}
		y += 4
	}
	return p.bytes()
}

// withDoc is a party's document after its name (" · CNPJ …"), "" none.
func withDoc(doc string) string {
	if doc == "" {
		return ""
	}
	return " · " + doc
}
