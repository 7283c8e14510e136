package render

import (
	"github.com/boombuler/barcode/twooffive"
)

// BoletoPDF lays a boleto out as an A4 PDF, for printing or keeping: the
// payer's receipt, then the payment slip (ficha de compensação) with
// every field FEBRABAN's layout has (local de pagamento, beneficiário with
// CNPJ and address, agência/código do beneficiário, datas, número do
// documento, espécie, aceite, nosso número, carteira, instruções, pagador
// with CPF/CNPJ and address), the linha digitável and the 44 digits of
// barcode drawn as Interleaved 2 of 5, 103 mm wide and 13 mm high as
// FEBRABAN asks. A paid boleto shows PAGO instead of the bar code. The
// same content as the boleto page (BoletoPage).
func BoletoPDF(d BoletoPageData, barcode string) ([]byte, error) {
	code, err := twooffive.Encode(barcode, true)
	if err != nil {
		return nil, err
	}
	p := &pdf{}
	p.newPage()
	y := margin
	line := d.Line
	if d.Paid {
		line = ""
	}
	// header draws the bank and the linha digitável above a part.
	header := func(title string) {
		p.text(margin, y+10, 7, true, title)
		y += 14
		p.box(margin, y, contentW, 24)
		p.text(margin+8, y+17, 13, true, d.Bank)
		if d.BankName != "" {
			p.text(margin+60, y+17, 8, false, d.BankName)
		}
		p.text(margin+190, y+17, 11, true, line)
		y += 24
	}
	// row draws labelled cells across the page, widths in parts of the
	// line (0: equal).
	row := func(widths []float64, cells ...[2]string) {
		x := margin
		for i, c := range cells {
			w := contentW / float64(len(cells))
			if widths != nil {
				w = contentW * widths[i]
			}
			p.box(x, y, w, 26)
			p.text(x+4, y+9, 6, true, c[0])
			p.text(x+4, y+21, 8, false, fit(c[1], w-8, 8))
			x += w
		}
		y += 26
	}
	seller := d.Seller
	if d.SellerCNPJ != "" {
		seller += " - CNPJ " + d.SellerCNPJ
	}
	payer := d.Customer
	if d.CustomerDocument != "" {
		payer += " - " + d.CustomerDocument
	}
	side := []float64{0.72, 0.28}

	if d.Simulated {
		p.text(margin, y+8, 8, true, "BOLETO DE TESTE: emitido pelo banco simulado do modo de teste, sem registro em banco algum. Não pague.")
		y += 14
	}
	header("RECIBO DO PAGADOR")
	row(side, [2]string{"BENEFICIÁRIO", seller}, [2]string{"AGÊNCIA / CÓDIGO DO BENEFICIÁRIO", d.AgencyCode})
	row(nil, [2]string{"NOSSO NÚMERO", d.OurNumber}, [2]string{"NÚMERO DO DOCUMENTO", d.DocumentNumber},
		[2]string{"VENCIMENTO", d.DueDate}, [2]string{"VALOR DO DOCUMENTO", d.Amount})
	row(nil, [2]string{"PAGADOR", payer})
	y += 14
	p.text(margin, y, 7, false, "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - -  Corte na linha pontilhada  - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -")
	y += 16

	header("FICHA DE COMPENSAÇÃO")
	row(side, [2]string{"LOCAL DE PAGAMENTO", d.PaymentPlace}, [2]string{"VENCIMENTO", d.DueDate})
	row(side, [2]string{"BENEFICIÁRIO", seller}, [2]string{"AGÊNCIA / CÓDIGO DO BENEFICIÁRIO", d.AgencyCode})
	row(side, [2]string{"ENDEREÇO DO BENEFICIÁRIO", d.SellerAddress}, [2]string{"NOSSO NÚMERO", d.OurNumber})
	row([]float64{0.14, 0.2, 0.1, 0.08, 0.2, 0.28}, [2]string{"DATA DO DOCUMENTO", d.DocumentDate}, [2]string{"Nº DO DOCUMENTO", d.DocumentNumber},
		[2]string{"ESPÉCIE DOC.", d.DocumentKind}, [2]string{"ACEITE", d.Acceptance}, [2]string{"DATA PROCESSAMENTO", d.ProcessingDate},
		[2]string{"(=) VALOR DO DOCUMENTO", d.Amount})
	row([]float64{0.14, 0.2, 0.1, 0.18, 0.1, 0.28}, [2]string{"USO DO BANCO", ""}, [2]string{"CARTEIRA", d.Wallet},
		[2]string{"ESPÉCIE", d.Currency}, [2]string{"QUANTIDADE", ""}, [2]string{"VALOR", ""}, [2]string{"(-) DESCONTO / ABATIMENTO", ""})
	// Instructions: as many lines as there are, beside the amounts.
	// Each instruction is wrapped, never cut: a cut one drops the
	// interest it states (TestBoletoPDF).
	var lines []string
	for _, in := range d.Instructions {
		lines = append(lines, wrap(in, contentW*side[0]-8, 8)...)
	}
	h := 16 + 11*float64(max(len(lines), 3))
	p.box(margin, y, contentW*side[0], h)
	p.text(margin+4, y+9, 6, true, "INSTRUÇÕES (TEXTO DE RESPONSABILIDADE DO BENEFICIÁRIO)")
	for i, in := range lines {
		p.text(margin+4, y+20+11*float64(i), 8, false, in)
	}
	p.box(margin+contentW*side[0], y, contentW*side[1], h/2)
	p.text(margin+contentW*side[0]+4, y+9, 6, true, "(+) MORA / MULTA")
	p.box(margin+contentW*side[0], y+h/2, contentW*side[1], h/2)
	p.text(margin+contentW*side[0]+4, y+h/2+9, 6, true, "(=) VALOR COBRADO")
	y += h
	row(nil, [2]string{"PAGADOR", payer})
	row(nil, [2]string{"ENDEREÇO DO PAGADOR", d.CustomerAddress})

	y += 12
	if d.Paid {
		paid := "PAGO"
		if d.PaidOn != "" {
			paid += " EM " + d.PaidOn
		}
		p.text(margin+12, y+30, 28, true, paid)
		y += 44
	} else {
		// 103 mm by 13 mm, with a quiet zone on either side.
		const barW, barH = 103 / 25.4 * 72, 13 / 25.4 * 72
		p.barcode(code, margin+12, y, barW/float64(code.Bounds().Dx()), barH)
		y += barH + 14
	}
	p.text(margin, y, 7, false, "Autenticação mecânica - Ficha de compensação")
	p.text(margin, pageH-margin+10, 7, false, "Emitido por fincom.")
	return p.bytes(), nil
}
