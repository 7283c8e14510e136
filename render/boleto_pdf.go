package render

import (
	"github.com/boombuler/barcode/twooffive"
)

// BoletoPDF lays a boleto out as an A4 PDF, for printing or keeping: the
// payer's receipt, then the payment slip (ficha de compensação) with the
// linha digitável and the 44 digits of barcode drawn as Interleaved 2 of
// 5, 103 mm wide and 13 mm high as FEBRABAN asks. The same content as the
// boleto page (BoletoPage), in fincom's layout.
func BoletoPDF(d BoletoPageData, barcode string) ([]byte, error) {
	code, err := twooffive.Encode(barcode, true)
	if err != nil {
		return nil, err
	}
	p := &pdf{}
	p.newPage()
	y := margin

	// header draws the bank and the linha digitável above a part.
	header := func(title string) {
		p.text(margin, y+10, 7, true, title)
		y += 14
		p.box(margin, y, contentW, 24)
		p.text(margin+8, y+17, 13, true, d.Bank)
		p.text(margin+80, y+17, 11, true, d.Line)
		y += 24
	}
	// row draws labelled cells across the page.
	row := func(cells ...[2]string) {
		w := contentW / float64(len(cells))
		for i, c := range cells {
			x := margin + w*float64(i)
			p.box(x, y, w, 28)
			p.text(x+6, y+10, 7, true, c[0])
			p.text(x+6, y+22, 9, false, fit(c[1], w-12, 9))
		}
		y += 28
	}
	seller := d.Seller
	if d.SellerCNPJ != "" {
		seller += " (CNPJ " + d.SellerCNPJ + ")"
	}

	header("RECIBO DO PAGADOR")
	row([2]string{"BENEFICIÁRIO", seller}, [2]string{"VENCIMENTO", d.DueDate})
	row([2]string{"PAGADOR", d.Customer}, [2]string{"VALOR DO DOCUMENTO", d.Amount})
	row([2]string{"NÚMERO DO DOCUMENTO", d.OrderCode}, [2]string{"DESCRIÇÃO", d.Description})
	y += 14
	p.text(margin, y, 7, false, "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - -  Corte na linha pontilhada  - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -")
	y += 16

	header("FICHA DE COMPENSAÇÃO")
	row([2]string{"LOCAL DE PAGAMENTO", "Pagável em qualquer banco até o vencimento"}, [2]string{"VENCIMENTO", d.DueDate})
	row([2]string{"BENEFICIÁRIO", seller}, [2]string{"VALOR DO DOCUMENTO", d.Amount})
	row([2]string{"PAGADOR", d.Customer}, [2]string{"NÚMERO DO DOCUMENTO", d.OrderCode})

	// 103 mm by 13 mm, with a quiet zone on either side.
	const barW, barH = 103 / 25.4 * 72, 13 / 25.4 * 72
	y += 12
	p.barcode(code, margin+12, y, barW/float64(code.Bounds().Dx()), barH)
	y += barH + 14
	p.text(margin, y, 7, false, "Autenticação mecânica")
	p.text(margin, pageH-margin+10, 7, false, "Emitido por fincom.")
	return p.bytes(), nil
}
