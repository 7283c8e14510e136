package fiscal

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/fiscal/reform"
)

// The tax reform's groups of an NF-e and NFC-e (NT 2025.002-RTC;
// schemas/nfe-4.00/DFeTiposBasicos_v1.00.xsd): IBSCBS on each item, in
// its imposto after COFINS, and IBSCBSTot in the totals.

// IBSCBS is an item's TTribNFe: its situation and classification, and
// unless it is immune the rates and values (gIBSCBS).
type IBSCBS struct {
	CST        string   `xml:"CST"`
	CClassTrib string   `xml:"cClassTrib"`
	G          *GIBSCBS `xml:"gIBSCBS,omitempty"`
}

// GIBSCBS is TCIBS: the base, the state's and the municipality's IBS, the
// CBS and the presumed credits the issuer takes.
type GIBSCBS struct {
	VBC         string        `xml:"vBC"`
	UF          GIBSUF        `xml:"gIBSUF"`
	Mun         GIBSMun       `xml:"gIBSMun"`
	VIBS        string        `xml:"vIBS"`
	CBS         GCBS          `xml:"gCBS"`
	IBSCredPres *GCredPresXML `xml:"gIBSCredPres,omitempty"`
	CBSCredPres *GCredPresXML `xml:"gCBSCredPres,omitempty"`
}

// GIBSUF is the state's IBS.
type GIBSUF struct {
	P   string `xml:"pIBSUF"`
	Dif *GDif  `xml:"gDif,omitempty"`
	Red *GRed  `xml:"gRed,omitempty"`
	V   string `xml:"vIBSUF"`
}

// GIBSMun is the municipality's IBS.
type GIBSMun struct {
	P   string `xml:"pIBSMun"`
	Dif *GDif  `xml:"gDif,omitempty"`
	Red *GRed  `xml:"gRed,omitempty"`
	V   string `xml:"vIBSMun"`
}

// GCBS is the CBS.
type GCBS struct {
	P   string `xml:"pCBS"`
	Dif *GDif  `xml:"gDif,omitempty"`
	Red *GRed  `xml:"gRed,omitempty"`
	V   string `xml:"vCBS"`
}

// GDif is a deferral: its share and the value deferred.
type GDif struct {
	P string `xml:"pDif"`
	V string `xml:"vDif"`
}

// GRed is a rate reduction: its percentage and the rate in effect.
type GRed struct {
	PRedAliq  string `xml:"pRedAliq"`
	PAliqEfet string `xml:"pAliqEfet"`
}

// GCredPresXML is a presumed credit.
type GCredPresXML struct {
	CCredPres string `xml:"cCredPres"`
	PCredPres string `xml:"pCredPres"`
	VCredPres string `xml:"vCredPres"`
}

// IBSCBSTot is TIBSCBSMonoTot without the single-phase group.
type IBSCBSTot struct {
	VBCIBSCBS string `xml:"vBCIBSCBS"`
	GIBS      struct {
		UF struct {
			VDif     string `xml:"vDif"`
			VDevTrib string `xml:"vDevTrib"`
			V        string `xml:"vIBSUF"`
		} `xml:"gIBSUF"`
		Mun struct {
			VDif     string `xml:"vDif"`
			VDevTrib string `xml:"vDevTrib"`
			V        string `xml:"vIBSMun"`
		} `xml:"gIBSMun"`
		VIBS             string `xml:"vIBS"`
		VCredPres        string `xml:"vCredPres"`
		VCredPresCondSus string `xml:"vCredPresCondSus"`
	} `xml:"gIBS"`
	GCBS struct {
		VDif             string `xml:"vDif"`
		VDevTrib         string `xml:"vDevTrib"`
		V                string `xml:"vCBS"`
		VCredPres        string `xml:"vCredPres"`
		VCredPresCondSus string `xml:"vCredPresCondSus"`
	} `xml:"gCBS"`
}

// reformDay is the day, in Brasília's time, whose rates an invoice takes.
func reformDay(t time.Time) string { return t.In(saoPaulo).Format(time.DateOnly) }

// statesReform reports whether the invoice states IBS and CBS: its issuer's
// regime does on its day.
func (inv Invoice) statesReform() bool {
	return inv.Reform != nil && inv.Reform.States(inv.Profile.CRT, reformDay(inv.Issued))
}

// itemClass is an item's classification: its product's, or the default
// (full taxation; on an export, its immunity).
func (inv Invoice) itemClass(it Item) string {
	switch {
	case it.IBSCBSClass != "":
		return it.IBSCBSClass
	case inv.LocalDestino == 3:
		return reform.ExportClass
	}
	return reform.DefaultClass
}

// reformSums are the note's IBS and CBS totals as its items add up.
type reformSums struct {
	base, ibsUF, ibsMun, cbs, difUF, difMun, difCBS, credIBS, credCBS decimal.Decimal
}

// itemIBSCBS is an item's IBSCBS group. Its base is the item's value with
// its freight, less the ICMS, PIS and COFINS it carries (LC 214/2025 art.
// 12 § 2: during the transition, 2026 to 2032, they are not part of it;
// the NT's formula for vBC); each value is the base times the rate in
// effect (less a reduction), rounded to the cent, less what is deferred.
func itemIBSCBS(class reform.Class, cst reform.CST, r reform.Rates, base decimal.Decimal, sums *reformSums) *IBSCBS {
	g := &IBSCBS{CST: class.CST(), CClassTrib: class.Code}
	if !cst.Taxed {
		return g
	}
	hundred := decimal.NewFromInt(100)
	part := func(p, red decimal.Decimal) (pct string, reduced *GRed, dif *GDif, v, deferred decimal.Decimal) {
		eff := p
		if red.IsPositive() {
			eff = p.Mul(hundred.Sub(red)).Div(hundred).Round(4)
			reduced = &GRed{PRedAliq: rate(red), PAliqEfet: rate(eff)}
		}
		v = base.Mul(eff).Div(hundred).Round(2)
		if class.Deferral.IsPositive() {
			deferred = v.Mul(class.Deferral).Div(hundred).Round(2)
			dif = &GDif{P: rate(class.Deferral), V: money(deferred)}
			v = v.Sub(deferred)
		}
		return rate(p), reduced, dif, v, deferred
	}
	pUF, redUF, difUF, vUF, dUF := part(r.IBSUF, class.RedIBS)
	pMun, redMun, difMun, vMun, dMun := part(r.IBSMun, class.RedIBS)
	pCBS, redCBS, difCBS, vCBS, dCBS := part(r.CBS, class.RedCBS)
	g.G = &GIBSCBS{VBC: money(base), UF: GIBSUF{P: pUF, Dif: difUF, Red: redUF, V: money(vUF)},
		Mun: GIBSMun{P: pMun, Dif: difMun, Red: redMun, V: money(vMun)}, VIBS: money(vUF.Add(vMun)),
		CBS: GCBS{P: pCBS, Dif: difCBS, Red: redCBS, V: money(vCBS)}}
	sums.base, sums.ibsUF, sums.ibsMun, sums.cbs = sums.base.Add(base), sums.ibsUF.Add(vUF), sums.ibsMun.Add(vMun), sums.cbs.Add(vCBS)
	sums.difUF, sums.difMun, sums.difCBS = sums.difUF.Add(dUF), sums.difMun.Add(dMun), sums.difCBS.Add(dCBS)
	if c := class.CredPres; c != nil {
		vi, vc := base.Mul(c.IBS).Div(hundred).Round(2), base.Mul(c.CBS).Div(hundred).Round(2)
		g.G.IBSCredPres = &GCredPresXML{CCredPres: c.Code, PCredPres: rate(c.IBS), VCredPres: money(vi)}
		g.G.CBSCredPres = &GCredPresXML{CCredPres: c.Code, PCredPres: rate(c.CBS), VCredPres: money(vc)}
		sums.credIBS, sums.credCBS = sums.credIBS.Add(vi), sums.credCBS.Add(vc)
	}
	return g
}

// total is the note's IBSCBSTot.
func (s reformSums) total() *IBSCBSTot {
	t := &IBSCBSTot{VBCIBSCBS: money(s.base)}
	zero := "0.00"
	t.GIBS.UF.VDif, t.GIBS.UF.VDevTrib, t.GIBS.UF.V = money(s.difUF), zero, money(s.ibsUF)
	t.GIBS.Mun.VDif, t.GIBS.Mun.VDevTrib, t.GIBS.Mun.V = money(s.difMun), zero, money(s.ibsMun)
	t.GIBS.VIBS, t.GIBS.VCredPres, t.GIBS.VCredPresCondSus = money(s.ibsUF.Add(s.ibsMun)), money(s.credIBS), zero
	t.GCBS.VDif, t.GCBS.VDevTrib, t.GCBS.V, t.GCBS.VCredPres, t.GCBS.VCredPresCondSus = money(s.difCBS), zero, money(s.cbs), money(s.credCBS), zero
	return t
}

// reformRates are the rates of the invoice's day, or why there are none.
func (inv Invoice) reformRates() (reform.Rates, error) {
	day := reformDay(inv.Issued)
	r, ok := inv.Reform.RatesOn(day)
	if !ok {
		return r, fmt.Errorf("the IBS and CBS rates of %s are not in fincom's table: give it the published rates (serve --ibscbs-table)", day)
	}
	return r, nil
}
