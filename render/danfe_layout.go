package render

import (
	"fmt"
	"image"
	"math"
	"strings"

	"github.com/boombuler/barcode/code128"
	"github.com/boombuler/barcode/qr"
)

// DANFEPDF lays the printable invoice out as a PDF: the A4 DANFE of an
// NF-e, the consumer's 80 mm receipt of an NFC-e, the A4 note of an NFS-e.
func DANFEPDF(d DANFEData) ([]byte, error) {
	switch d.Kind {
	case "nfce":
		return consumerDANFE(d)
	case "nfse", "nfsen":
		return serviceNote(d)
	}
	return productDANFE(d)
}

// field draws a box of the DANFE: a small label at its top, the value
// below it (cut to fit), right-aligned when right is set.
func (p *pdf) field(x, y, w, h float64, label, value string, size float64, right bool) {
	p.box(x, y, w, h)
	p.text(x+2, y+7, 5.5, false, fit(label, w-4, 5.5))
	v := fit(value, w-4, size)
	vx := x + 2
	if right {
		vx = x + w - 2 - textWidth(v, size)
	}
	p.text(vx, y+h-4, size, false, v)
}

// textWidth estimates a text's width in Helvetica (the average letter).
func textWidth(s string, size float64) float64 {
	return float64(len([]rune(s))) * 0.5 * size
}

// section writes a section title above the next row of boxes.
func (p *pdf) section(y float64, title string) float64 {
	p.text(margin, y+7, 6.5, true, title)
	return y + 9
}

// watermark writes the test environment's notice across the page, light
// grey, under the content.
func (p *pdf) watermark(w, h float64) {
	c, s := math.Cos(math.Pi/5), math.Sin(math.Pi/5)
	fmt.Fprintf(p.page, "q 0.82 g BT /F2 %.1f Tf %.4f %.4f %.4f %.4f %.2f %.2f Tm (%s) Tj ET Q\n", w/9.5, c, s, -s, c, w*0.12, h*0.25,
		pdfString("SEM VALOR FISCAL"))
}

// homologation writes the notice every page of a test-environment
// document carries, at y.
func (p *pdf) homologation(x, y, w float64) {
	msg := "EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO - SEM VALOR FISCAL"
	p.text(x+(w-textWidth(msg, 8)*1.05)/2, y, 8, true, msg)
}

var freightNames = map[string]string{"0": "0-Por conta do Emit", "1": "1-Por conta do Dest", "2": "2-Por conta de Terceiros",
	"3": "3-Próprio por conta do Rem", "4": "4-Próprio por conta do Dest", "9": "9-Sem Transporte"}

// FreightName is the DANFE's text of a freight mode (modFrete).
func FreightName(mode string) string { return freightNames[mode] }

// productDANFE is the NF-e's A4 DANFE.
func productDANFE(d DANFEData) ([]byte, error) {
	p := &pdf{}
	key := strings.ReplaceAll(d.Key, " ", "")
	code, err := code128.Encode(key)
	if err != nil {
		return nil, fmt.Errorf("danfe bar code: %w", err)
	}
	cols := []struct {
		title string
		w     float64
		right bool
	}{{"CÓDIGO", 40, false}, {"DESCRIÇÃO DO PRODUTO / SERVIÇO", 130, false}, {"NCM/SH", 38, false}, {"O/CST", 24, false}, {"CFOP", 22, false},
		{"UN", 18, false}, {"QUANT.", 38, true}, {"VALOR UNIT.", 44, true}, {"VALOR TOTAL", 46, true}, {"B.CÁLC ICMS", 44, true},
		{"VALOR ICMS", 40, true}, {"ALÍQ. ICMS", 55, true}}

	// header draws what every page repeats: the receipt stub (first page
	// only), the emitter, DANFE and key boxes.
	header := func(first bool, pageNo, pages int) float64 {
		p.newPage()
		if d.Homologation {
			p.watermark(pageW, pageH)
		}
		y := margin
		if first {
			p.box(margin, y, contentW-95, 16)
			p.text(margin+2, y+7, 5.5, false, fit("RECEBEMOS DE "+strings.ToUpper(d.Emitter.Name)+" OS PRODUTOS E/OU SERVIÇOS CONSTANTES DA NOTA FISCAL ELETRÔNICA INDICADA AO LADO", contentW-99, 5.5))
			p.field(margin, y+16, 110, 20, "DATA DE RECEBIMENTO", "", 8, false)
			p.field(margin+110, y+16, contentW-205, 20, "IDENTIFICAÇÃO E ASSINATURA DO RECEBEDOR", "", 8, false)
			p.box(margin+contentW-95, y, 95, 36)
			p.text(margin+contentW-88, y+12, 10, true, "NF-e")
			p.text(margin+contentW-88, y+22, 8, false, "Nº "+danfeNumber(d.Number))
			p.text(margin+contentW-88, y+31, 8, false, fmt.Sprintf("SÉRIE %03d", d.Series))
			y += 42
			fmt.Fprintf(p.page, "[2 2] 0 d %.2f %.2f m %.2f %.2f l S [] 0 d\n", margin, pageH-y+3, margin+contentW, pageH-y+3)
		}
		// Emitter identification, DANFE box, key box.
		const hh = 112.0
		p.box(margin, y, 200, hh)
		p.text(margin+4, y+9, 5.5, false, "IDENTIFICAÇÃO DO EMITENTE")
		ty := y + 24
		for _, l := range wrap(strings.ToUpper(d.Emitter.Name), 190, 10) {
			p.text(margin+6, ty, 10, true, l)
			ty += 12
		}
		for _, l := range []string{d.Emitter.Address, d.Emitter.District + " - " + d.Emitter.Zip, d.Emitter.City + " - " + d.Emitter.State,
			"Fone: " + d.Emitter.Phone} {
			p.text(margin+6, ty+4, 7.5, false, fit(l, 190, 7.5))
			ty += 10
		}
		bx := margin + 200
		p.box(bx, y, 95, hh)
		p.text(bx+27, y+18, 14, true, "DANFE")
		p.text(bx+6, y+28, 6, false, "Documento Auxiliar da")
		p.text(bx+6, y+35, 6, false, "Nota Fiscal Eletrônica")
		p.text(bx+6, y+50, 7, false, "0 - ENTRADA")
		p.text(bx+6, y+59, 7, false, "1 - SAÍDA")
		p.box(bx+62, y+44, 18, 18)
		p.text(bx+68, y+57, 11, true, d.Direction)
		p.text(bx+6, y+78, 9, true, "Nº "+danfeNumber(d.Number))
		p.text(bx+6, y+90, 9, true, fmt.Sprintf("SÉRIE %03d", d.Series))
		p.text(bx+6, y+103, 8, false, fmt.Sprintf("FOLHA %d/%d", pageNo, pages))
		kx, kw := margin+295, contentW-295
		p.box(kx, y, kw, hh)
		// Ten modules of quiet zone each side, as Code 128 readers need.
		module := (kw - 2) / float64(code.Bounds().Dx()+20)
		p.barcode(code, kx+1+10*module, y+6, module, 34)
		p.field(kx, y+44, kw, 22, "CHAVE DE ACESSO", d.Key, 7.5, false)
		consult := wrap("Consulta de autenticidade no portal nacional da NF-e www.nfe.fazenda.gov.br/portal ou no site da Sefaz Autorizadora", kw-8, 7)
		for i, l := range consult {
			p.text(kx+4, y+78+9*float64(i), 7, false, l)
		}
		return y + hh
	}

	// Lay the items out first to know how many pages there are.
	const rowH = 11.0
	firstRows := 22 // items on the first page, under every block
	nextRows := 52
	pages := 1
	if n := len(d.Items); n > firstRows {
		pages += (n - firstRows + nextRows - 1) / nextRows
	}
	y := header(true, 1, pages)
	if d.Homologation {
		p.homologation(margin, y+9, contentW)
		y += 11
	}
	p.field(margin, y, contentW-244, 20, "NATUREZA DA OPERAÇÃO", d.Operation, 8, false)
	if d.Protocol != "" {
		p.field(margin+contentW-244, y, 244, 20, "PROTOCOLO DE AUTORIZAÇÃO DE USO", d.Protocol+" - "+d.AuthorizedAt, 8, false)
	} else {
		p.field(margin+contentW-244, y, 244, 20, "PROTOCOLO DE AUTORIZAÇÃO DE USO", d.Contingency, 6, true)
	}
	y += 20
	third := contentW / 3
	p.field(margin, y, third, 20, "INSCRIÇÃO ESTADUAL", d.Emitter.IE, 8, false)
	p.field(margin+third, y, third, 20, "INSC. ESTADUAL DO SUBST. TRIBUT.", "", 8, false)
	p.field(margin+2*third, y, third, 20, "CNPJ", d.Emitter.Register, 8, false)
	y += 22

	y = p.section(y, "DESTINATÁRIO / REMETENTE")
	r := d.Recipient
	p.field(margin, y, 300, 20, "NOME / RAZÃO SOCIAL", r.Name, 8, false)
	p.field(margin+300, y, 149, 20, "CNPJ / CPF", r.Register, 8, false)
	p.field(margin+449, y, 90, 20, "DATA DA EMISSÃO", strings.SplitN(d.IssuedAt, " ", 2)[0], 8, false)
	y += 20
	p.field(margin, y, 250, 20, "ENDEREÇO", r.Address, 8, false)
	p.field(margin+250, y, 129, 20, "BAIRRO / DISTRITO", r.District, 8, false)
	p.field(margin+379, y, 70, 20, "CEP", r.Zip, 8, false)
	p.field(margin+449, y, 90, 20, "DATA DA SAÍDA/ENTRADA", "", 8, false)
	y += 20
	p.field(margin, y, 200, 20, "MUNICÍPIO", r.City, 8, false)
	p.field(margin+200, y, 110, 20, "FONE / FAX", r.Phone, 8, false)
	p.field(margin+310, y, 30, 20, "UF", r.State, 8, false)
	p.field(margin+340, y, 109, 20, "INSCRIÇÃO ESTADUAL", r.IE, 8, false)
	p.field(margin+449, y, 90, 20, "HORA DA SAÍDA/ENTRADA", "", 8, false)
	y += 22

	if len(d.Payments) > 0 {
		y = p.section(y, "PAGAMENTO")
		w := contentW / float64(max(len(d.Payments), 4))
		for i, pay := range d.Payments {
			p.field(margin+w*float64(i), y, w, 20, pay.Label, pay.Value, 8, true)
		}
		y += 22
	}

	y = p.section(y, "CÁLCULO DO IMPOSTO")
	perRow := (len(d.Taxes) + 1) / 2
	for i, t := range d.Taxes {
		row, col := i/perRow, i%perRow
		w := contentW / float64(perRow)
		p.field(margin+w*float64(col), y+20*float64(row), w, 20, t.Label, t.Value, 8, true)
	}
	y += 20 * 2
	if len(d.Reform) > 0 {
		// The tax reform's totals, a row of their own (IBSCBSTot).
		w := contentW / float64(len(d.Reform))
		for i, t := range d.Reform {
			p.field(margin+w*float64(i), y, w, 20, t.Label, t.Value, 8, true)
		}
		y += 20
	}
	y += 2

	y = p.section(y, "TRANSPORTADOR / VOLUMES TRANSPORTADOS")
	p.field(margin, y, 190, 20, "RAZÃO SOCIAL", "", 8, false)
	p.field(margin+190, y, 110, 20, "FRETE POR CONTA", d.Freight, 8, false)
	p.field(margin+300, y, 60, 20, "CÓDIGO ANTT", "", 8, false)
	p.field(margin+360, y, 60, 20, "PLACA DO VEÍCULO", "", 8, false)
	p.field(margin+420, y, 20, 20, "UF", "", 8, false)
	p.field(margin+440, y, 99, 20, "CNPJ / CPF", "", 8, false)
	y += 22

	items := func(y float64, rows []DocumentLine) float64 {
		y = p.section(y, "DADOS DOS PRODUTOS / SERVIÇOS")
		x := margin
		for _, c := range cols {
			p.box(x, y, c.w, 14)
			for i, l := range wrap(c.title, c.w-3, 5) {
				p.text(x+1.5, y+6+5.5*float64(i), 5, false, l)
			}
			x += c.w
		}
		y += 14
		top := y
		for _, it := range rows {
			cells := []string{it.Code, it.Description, it.NCM, it.CST, it.CFOP, it.Unit, it.Quantity, it.UnitValue, it.Total, it.BaseICMS, it.ICMS, it.RateICMS}
			x = margin
			for i, c := range cols {
				v := fit(cells[i], c.w-3, 6.5)
				vx := x + 1.5
				if c.right {
					vx = x + c.w - 1.5 - textWidth(v, 6.5)
				}
				p.text(vx, y+8, 6.5, false, v)
				x += c.w
			}
			y += rowH
		}
		// The columns' rules down to the last row.
		x = margin
		for _, c := range cols {
			p.box(x, top, c.w, y-top)
			x += c.w
		}
		return y + 2
	}
	n := min(firstRows, len(d.Items))
	y = items(y, d.Items[:n])

	y = p.section(y, "DADOS ADICIONAIS")
	info := d.AdditionalInfo
	if d.Cancelled {
		info = "DOCUMENTO CANCELADO em " + d.CancelledAt + ". " + info
	}
	p.box(margin, y, 360, 60)
	p.text(margin+2, y+7, 5.5, false, "INFORMAÇÕES COMPLEMENTARES")
	for i, l := range wrap(info, 354, 7) {
		if i > 5 {
			break
		}
		p.text(margin+3, y+17+8*float64(i), 7, false, l)
	}
	p.field(margin+360, y, contentW-360, 60, "RESERVADO AO FISCO", "", 8, false)
	if d.Cancelled {
		fmt.Fprintf(p.page, "0.75 0 0 rg\n")
		p.text(margin+120, margin+330, 26, true, "DOCUMENTO CANCELADO")
		fmt.Fprintf(p.page, "0 0 0 rg\n")
	}

	// Further pages: the header again and the remaining items.
	rest := d.Items[n:]
	for pg := 2; len(rest) > 0; pg++ {
		y := header(false, pg, pages)
		if d.Homologation {
			p.homologation(margin, y+9, contentW)
			y += 11
		}
		k := min(nextRows, len(rest))
		items(y, rest[:k])
		rest = rest[k:]
	}
	for i, page := range p.pages {
		p.page = page
		p.text(margin, pageH-margin+12, 6, false, fmt.Sprintf("Emitido por fincom. Página %d de %d.", i+1, len(p.pages)))
	}
	return p.bytes(), nil
}

// receiptW is the consumer receipt's width: 80 mm paper.
const receiptW = 226.0

// consumerDANFE is the NFC-e's DANFE: the 80 mm receipt the consumer
// takes, with the QR code that looks the sale up.
func consumerDANFE(d DANFEData) ([]byte, error) {
	code, err := qr.Encode(d.QR, qr.M, qr.Auto)
	if err != nil {
		return nil, fmt.Errorf("nfc-e qr code: %w", err)
	}
	const m = 8.0
	w := receiptW - 2*m
	// Lay out lines into a list first, to size the page.
	type line struct {
		text   string
		size   float64
		bold   bool
		right  string
		rule   bool
		center bool
	}
	var lines []line
	// Bold letters are wider: a bold line wraps shorter.
	width := func(bold bool) float64 {
		if bold {
			return w * 0.88
		}
		return w
	}
	add := func(text string, size float64, bold bool) {
		for _, l := range wrap(text, width(bold), size) {
			lines = append(lines, line{text: l, size: size, bold: bold})
		}
	}
	center := func(text string, size float64, bold bool) {
		for _, l := range wrap(text, width(bold), size) {
			lines = append(lines, line{text: l, size: size, bold: bold, center: true})
		}
	}
	pair := func(left, right string, size float64, bold bool) {
		lines = append(lines, line{text: fit(left, w-textWidth(right, size)-6, size), right: right, size: size, bold: bold})
	}
	rule := func() { lines = append(lines, line{rule: true, size: 4}) }

	center(d.Emitter.Name, 8, true)
	center("CNPJ: "+d.Emitter.Register+"  IE: "+d.Emitter.IE, 6.5, false)
	center(d.Emitter.Address+", "+d.Emitter.District+", "+d.Emitter.City+" - "+d.Emitter.State, 6.5, false)
	rule()
	center("Documento Auxiliar da Nota Fiscal de Consumidor Eletrônica", 7, true)
	if d.Homologation {
		rule()
		center("EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO", 7.5, true)
		center("SEM VALOR FISCAL", 9, true)
	}
	rule()
	lines = append(lines, line{text: "# Código Descrição", size: 6, bold: true, right: "Qtde Un Vl Unit Vl Total"})
	for _, it := range d.Items {
		add(fmt.Sprintf("%d %s %s", it.Item, it.Code, it.Description), 6.5, false)
		lines = append(lines, line{text: "", size: 6.5, right: fmt.Sprintf("%s %s x %s = %s", it.Quantity, it.Unit, it.UnitValue, it.Total)})
	}
	rule()
	for _, t := range d.Totals {
		pair(t.Label, t.Value, 7.5, true)
	}
	pair("FORMA DE PAGAMENTO", "VALOR PAGO R$", 6.5, true)
	for _, pay := range d.Payments {
		pair(pay.Label, pay.Value, 7, false)
	}
	rule()
	center("Consulte pela Chave de Acesso em", 6.5, true)
	center(d.ConsultURL, 6.5, false)
	center(d.Key, 6.5, false)
	rule()
	if d.Recipient.Register != "" {
		center("CONSUMIDOR - CPF/CNPJ: "+d.Recipient.Register, 6.5, true)
	} else {
		center("CONSUMIDOR NÃO IDENTIFICADO", 6.5, true)
	}
	rule()
	center(fmt.Sprintf("NFC-e nº %d Série %03d %s", d.Number, d.Series, d.IssuedAt), 7, true)
	if d.Contingency != "" {
		center(d.Contingency, 8, true)
	}
	if d.Protocol != "" {
		center("Protocolo de autorização: "+d.Protocol, 6.5, false)
		center("Data de autorização: "+d.AuthorizedAt, 6.5, false)
	}
	if d.Cancelled {
		rule()
		center("DOCUMENTO CANCELADO em "+d.CancelledAt, 8, true)
	}
	// The QR code: two points a module (about 5.6 pixels at 200 dpi),
	// with its quiet zone.
	module := 2.0
	qrSide := module * float64(code.Bounds().Dx())
	height := m*2 + qrSide + 30
	for _, l := range lines {
		height += l.size + 3
	}
	p := &pdf{width: receiptW, height: height}
	p.newPage()
	y := m
	for _, l := range lines {
		y += l.size + 3
		if l.rule {
			fmt.Fprintf(p.page, "[1 1] 0 d 0.4 w %.2f %.2f m %.2f %.2f l S [] 0 d\n", m, height-y+l.size/2, receiptW-m, height-y+l.size/2)
			continue
		}
		k := 1.05
		if l.bold {
			k = 1.2
		}
		x := m
		if l.center {
			x = m + max(0, (w-textWidth(l.text, l.size)*k)/2)
		}
		p.text(x, y, l.size, l.bold, l.text)
		if l.right != "" {
			p.text(receiptW-m-textWidth(l.right, l.size)*k, y, l.size, l.bold, l.right)
		}
	}
	y += 12
	p.qr(code, (receiptW-qrSide)/2, y, module)
	return p.bytes(), nil
}

// qr draws a QR code's dark modules, each module points wide, its top
// left corner at (x, y from the top): one rectangle per run of dark
// modules of a row.
func (p *pdf) qr(code image.Image, x, y, module float64) {
	b := code.Bounds()
	for row := b.Min.Y; row < b.Max.Y; row++ {
		for col := b.Min.X; col < b.Max.X; {
			if !isDark(code.At(col, row)) {
				col++
				continue
			}
			run := 1
			for col+run < b.Max.X && isDark(code.At(col+run, row)) {
				run++
			}
			p.bar(x+module*float64(col-b.Min.X), y+module*float64(row-b.Min.Y), module*float64(run), module)
			col += run
		}
	}
}

// serviceNote is the NFS-e's A4 note.
func serviceNote(d DANFEData) ([]byte, error) {
	p := &pdf{}
	p.newPage()
	if d.Homologation {
		p.watermark(pageW, pageH)
	}
	y := margin
	p.box(margin, y, contentW, 46)
	p.text(margin+8, y+20, 16, true, d.Title)
	p.text(margin+8, y+36, 8, false, "Nota Fiscal de Serviço Eletrônica")
	p.text(margin+contentW-150, y+20, 11, true, "Nº "+fmt.Sprint(d.Number))
	p.text(margin+contentW-150, y+36, 9, false, "Emitida em "+d.IssuedAt)
	y += 46
	if d.Homologation {
		p.homologation(margin, y+10, contentW)
		y += 14
	}
	party := func(role string, q DANFEParty) {
		p.box(margin, y, contentW, 48)
		p.text(margin+6, y+10, 6, true, role)
		p.text(margin+6, y+23, 10, true, fit(q.Name, contentW-12, 10))
		p.text(margin+6, y+34, 8, false, fit("CPF/CNPJ "+q.Register+"   "+q.Address+" "+q.District+" "+q.City+" "+q.State, contentW-12, 8))
		p.text(margin+6, y+44, 8, false, fit("CEP "+q.Zip+"   "+q.Phone, contentW-12, 8))
		y += 48
	}
	party("PRESTADOR DO SERVIÇO", d.Emitter)
	if d.Key != "" {
		p.field(margin, y, contentW, 22, "CHAVE DE ACESSO DA NFS-e", d.Key, 9, false)
		y += 22
	}
	half := contentW / 2
	if d.Verification != "" {
		p.field(margin, y, half, 22, "CÓDIGO DE VERIFICAÇÃO", d.Verification, 9, false)
	} else {
		p.box(margin, y, half, 22)
	}
	p.field(margin+half, y, half, 22, "PROTOCOLO / NÚMERO DO DFS-e", d.Protocol+" - "+d.AuthorizedAt, 9, false)
	y += 22
	party("TOMADOR DO SERVIÇO", d.Recipient)
	y += 6
	lines := wrap(d.Service, contentW-16, 9)
	h := 18 + 12*float64(len(lines))
	p.box(margin, y, contentW, h)
	p.text(margin+8, y+11, 7, true, "DISCRIMINAÇÃO DO SERVIÇO")
	for i, l := range lines {
		p.text(margin+8, y+24+12*float64(i), 9, false, l)
	}
	y += h + 6
	if len(d.Totals) > 0 {
		w := contentW / float64(len(d.Totals))
		for i, t := range d.Totals {
			p.field(margin+w*float64(i), y, w, 26, strings.ToUpper(t.Label), t.Value, 10, true)
		}
		y += 26
	}
	if d.Cancelled {
		fmt.Fprintf(p.page, "0.75 0 0 rg\n")
		p.text(margin+8, y+28, 18, true, "DOCUMENTO CANCELADO")
		if d.CancelledAt != "" {
			p.text(margin+8, y+44, 9, true, "Cancelado em "+d.CancelledAt)
		}
		fmt.Fprintf(p.page, "0 0 0 rg\n")
	}
	p.text(margin, pageH-margin+12, 6, false, "Emitido por fincom. Página 1 de 1.")
	return p.bytes(), nil
}
