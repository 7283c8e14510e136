package invoicing

import (
	"github.com/shopspring/decimal"

	"fincom/server/fiscal"
	"fincom/store"
)

// StatedTax is a tax an invoice states, and its amount.
type StatedTax struct {
	Name   string
	Amount decimal.Decimal
}

// TaxesStated are the taxes an order's invoice states, those not zero: an
// NF-e's or NFC-e's totals (ICMS, ICMS ST, IPI, PIS, COFINS, and the tax
// reform's IBS and CBS), read from its XML; a service note's ISS and the
// retentions its order states. An XML that cannot be read states none.
func TaxesStated(inv store.Invoice, t store.Taxes) []StatedTax {
	var out []StatedTax
	add := func(name, v string) {
		if d, err := decimal.NewFromString(v); err == nil && !d.IsZero() {
			out = append(out, StatedTax{name, d})
		}
	}
	switch inv.Kind {
	case "nfse", "nfsen":
		for _, x := range []struct {
			name string
			m    store.Money
		}{{"ISS", t.TaxIssAmount}, {"PIS retido", t.RetPisAmount}, {"COFINS retida", t.RetCofinsAmount}, {"CSLL retida", t.RetCsllAmount},
			{"IR retido", t.RetIrAmount}, {"INSS retido", t.RetInssAmount}, {"Outras retenções", t.RetOtherAmount}} {
			add(x.name, x.m.StringFixed(2))
		}
		return out
	}
	p, err := fiscal.ReadNFeProc([]byte(inv.XML))
	if err != nil {
		return nil
	}
	tot := p.NFe.Inf.Total
	for _, x := range [][2]string{{"ICMS", tot.ICMSTot.VICMS}, {"ICMS ST", tot.ICMSTot.VST}, {"IPI", tot.ICMSTot.VIPI}, {"PIS", tot.ICMSTot.VPIS},
		{"COFINS", tot.ICMSTot.VCOFINS}} {
		add(x[0], x[1])
	}
	if r := tot.IBSCBSTot; r != nil {
		add("IBS", r.GIBS.VIBS)
		add("CBS", r.GCBS.V)
	}
	return out
}
