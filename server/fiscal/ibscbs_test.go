package fiscal

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/certs"
	"fincom/server/fiscal/reform"
)

func reformTable(t *testing.T) *reform.Table {
	t.Helper()
	tb, err := reform.Load()
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// reformSample is sample with two items, one of them reduced (foods of
// Annex VII, 60 %), and freight shared between them.
func reformSample(t *testing.T, kind string, crt int) Invoice {
	inv := sample(kind, crt)
	inv.Reform = reformTable(t)
	inv.Items = append(inv.Items, Item{Code: "2", Description: "Feijão carioca 1 kg", NCM: "07133319", CFOP: "5102", Unit: "UN",
		Quantity: d("3"), UnitValue: d("8.99"), Total: d("26.97"), IBSCBSClass: "200034"})
	inv.Total = d("61.97")
	if kind == NFe {
		inv.Freight, inv.FreightMode = d("10.00"), 0
	}
	return inv
}

// TestIBSCBSOnEveryItem: a CRT 3 unit's NF-e and NFC-e carry IBSCBS on
// every item, with 2026's rates and values equal to base times rate, and
// IBSCBSTot equal to the items' sums; they validate against the RTC
// layout (xmllint, and the simulated authority's own check).
func TestIBSCBSOnEveryItem(t *testing.T) {
	t.Parallel()
	c, err := certs.TestCertificate("Acme Comércio Ltda", "11222333000181", issued)
	if err != nil {
		t.Fatal(err)
	}
	hundred := decimal.NewFromInt(100)
	for _, kind := range []string{NFe, NFCe} {
		t.Run(kind, func(t *testing.T) {
			inv := reformSample(t, kind, RegimeNormal)
			if ps := Validate(inv); len(ps) != 0 {
				t.Fatalf("problems %v", ps)
			}
			_, a, signed := issue(t, inv, c)
			xmllint(t, "nfe-4.00/nfe_v4.00.xsd", signed)
			xmllint(t, "nfe-4.00/procNFe_v4.00.xsd", a.XML)
			p, err := ReadNFeProc(a.XML)
			if err != nil {
				t.Fatal(err)
			}
			var base, uf, mun, cbs decimal.Decimal
			for i, det := range p.NFe.Inf.Det {
				g := det.Imposto.IBSCBS
				want := map[int]string{0: "000001", 1: "200034"}[i]
				if g == nil || g.G == nil || g.CClassTrib != want || g.CST != want[:3] {
					t.Fatalf("item %d: IBSCBS %+v", i+1, g)
				}
				// The base: the item with its freight, less its ICMS, PIS
				// and COFINS.
				vb := d(det.Prod.VProd)
				if det.Prod.VFrete != "" {
					vb = vb.Add(d(det.Prod.VFrete))
				}
				vb = vb.Sub(d(det.Imposto.ICMS.ICMS00.VICMS)).Sub(d(det.Imposto.PIS.Aliq.VPIS)).Sub(d(det.Imposto.COFINS.Aliq.VCOFINS))
				if g.G.VBC != vb.StringFixed(2) {
					t.Errorf("item %d: vBC %s, want %s", i+1, g.G.VBC, vb.StringFixed(2))
				}
				if g.G.UF.P != "0.1000" || g.G.Mun.P != "0.0000" || g.G.CBS.P != "0.9000" {
					t.Errorf("item %d: rates %s %s %s", i+1, g.G.UF.P, g.G.Mun.P, g.G.CBS.P)
				}
				// The rate in effect: the full one, or less the class's
				// reduction (gRed).
				eff := func(p string, red *GRed) decimal.Decimal {
					if red == nil {
						return d(p)
					}
					if red.PRedAliq != "60.0000" || !d(red.PAliqEfet).Equal(d(p).Mul(d("0.4"))) {
						t.Errorf("item %d: gRed %+v of %s", i+1, red, p)
					}
					return d(red.PAliqEfet)
				}
				if (i == 1) != (g.G.CBS.Red != nil) || (i == 1) != (g.G.UF.Red != nil) {
					t.Errorf("item %d: gRed %+v", i+1, g.G.CBS.Red)
				}
				for _, v := range []struct{ p, value string }{{eff(g.G.UF.P, g.G.UF.Red).String(), g.G.UF.V},
					{eff(g.G.Mun.P, g.G.Mun.Red).String(), g.G.Mun.V}, {eff(g.G.CBS.P, g.G.CBS.Red).String(), g.G.CBS.V}} {
					if want := vb.Mul(d(v.p)).Div(hundred).Round(2).StringFixed(2); v.value != want {
						t.Errorf("item %d: value %s at %s%%, want %s", i+1, v.value, v.p, want)
					}
				}
				if !d(g.G.VIBS).Equal(d(g.G.UF.V).Add(d(g.G.Mun.V))) {
					t.Errorf("item %d: vIBS %s", i+1, g.G.VIBS)
				}
				base, uf, mun, cbs = base.Add(vb), uf.Add(d(g.G.UF.V)), mun.Add(d(g.G.Mun.V)), cbs.Add(d(g.G.CBS.V))
			}
			tot := p.NFe.Inf.Total.IBSCBSTot
			if tot == nil || tot.VBCIBSCBS != base.StringFixed(2) || tot.GIBS.UF.V != uf.StringFixed(2) || tot.GIBS.Mun.V != mun.StringFixed(2) ||
				tot.GIBS.VIBS != uf.Add(mun).StringFixed(2) || tot.GCBS.V != cbs.StringFixed(2) {
				t.Fatalf("IBSCBSTot %+v, want base %s IBS %s+%s CBS %s", tot, base, uf, mun, cbs)
			}
			if !cbs.IsPositive() || !uf.IsPositive() {
				t.Errorf("no tax stated: CBS %s, IBS %s", cbs, uf)
			}
			// IBS and CBS are outside the note's value in the test year.
			if p.NFe.Inf.Total.ICMSTot.VNF != inv.Total.Add(inv.Freight).StringFixed(2) {
				t.Errorf("vNF %s", p.NFe.Inf.Total.ICMSTot.VNF)
			}
		})
	}
}

// TestWhoStatesIBSCBS: the Simples Nacional's note of 2026 carries none
// and validates as it did; from 2027 (a year whose rates an operator's
// file gives) it carries them; an export takes its immunity, without
// values; a day without rates is a problem to fix, not a note without
// them.
func TestWhoStatesIBSCBS(t *testing.T) {
	t.Parallel()
	c, err := certs.TestCertificate("Acme Comércio Ltda", "11222333000181", issued)
	if err != nil {
		t.Fatal(err)
	}
	inv := reformSample(t, NFe, SimplesNacional)
	if ps := Validate(inv); len(ps) != 0 {
		t.Fatalf("problems %v", ps)
	}
	_, a, signed := issue(t, inv, c)
	if strings.Contains(string(signed), "IBSCBS") {
		t.Fatal("a Simples Nacional note of 2026 states IBS and CBS")
	}
	xmllint(t, "nfe-4.00/procNFe_v4.00.xsd", a.XML)

	inv.Issued = time.Date(2027, 1, 4, 12, 0, 0, 0, time.UTC)
	ps := Validate(inv)
	if len(ps) != 1 || ps[0].Field != "ibscbs" || !strings.Contains(ps[0].Message, "2027-01-04") || !strings.Contains(ps[0].Message, "--ibscbs-table") {
		t.Fatalf("2027 without its rates: %v", ps)
	}
	if _, err := BuildNFe(inv, AccessKey(inv)); err == nil {
		t.Fatal("built a note of 2027 without its rates")
	}
	if err := inv.Reform.Override([]byte(`{"rates": [{"from": "2027-01-01", "until": "2027-12-31", "cbs": "8.7", "ibs_uf": "0.05", "ibs_mun": "0.05"}]}`)); err != nil {
		t.Fatal(err)
	}
	if ps := Validate(inv); len(ps) != 0 {
		t.Fatalf("problems %v", ps)
	}
	c27, err := certs.TestCertificate("Acme Comércio Ltda", "11222333000181", inv.Issued)
	if err != nil {
		t.Fatal(err)
	}
	_, a, _ = issue(t, inv, c27)
	xmllint(t, "nfe-4.00/procNFe_v4.00.xsd", a.XML)
	p, _ := ReadNFeProc(a.XML)
	if g := p.NFe.Inf.Det[0].Imposto.IBSCBS; g == nil || g.G == nil || g.G.CBS.P != "8.7000" || g.G.Mun.P != "0.0500" {
		t.Fatalf("2027's Simples Nacional note: %+v", g)
	}
	// The Simples states no ICMS, PIS or COFINS of its own: the base is
	// the item with its freight.
	if g := p.NFe.Inf.Det[0].Imposto.IBSCBS.G; g.VBC != d(p.NFe.Inf.Det[0].Prod.VProd).Add(d(p.NFe.Inf.Det[0].Prod.VFrete)).StringFixed(2) {
		t.Errorf("vBC %s", g.VBC)
	}

	exp := reformSample(t, NFe, RegimeNormal)
	exp.Items = exp.Items[:1]
	exp.Total = exp.Items[0].Total
	exp.LocalDestino, exp.Items[0].CFOP = 3, "7102"
	exp.Recipient.CityIBGE, exp.Recipient.State = "9999999", "EX"
	_, _, signed = issue(t, exp, c)
	p, _ = ReadNFeProc(signed)
	if g := p.NFe.Inf.Det[0].Imposto.IBSCBS; g == nil || g.CClassTrib != "410004" || g.CST != "410" || g.G != nil {
		t.Fatalf("export: %+v", g)
	}
	if tot := p.NFe.Inf.Total.IBSCBSTot; tot == nil || tot.VBCIBSCBS != "0.00" {
		t.Fatalf("export totals %+v", tot)
	}
	xmllint(t, "nfe-4.00/nfe_v4.00.xsd", signed)

	wrong := reformSample(t, NFe, RegimeNormal)
	wrong.Items[1].IBSCBSClass = "200028" // education: a service's
	if ps := Validate(wrong); len(ps) != 1 || ps[0].Field != "pv.products[1].ibs_cbs_class" {
		t.Fatalf("a service's class on a product: %v", ps)
	}
}

// TestDPSOfTheReform: a CRT 3 provider's DPS goes in layout 1.01 with its
// IBSCBS group (the service's class and operation) and validates against
// that layout, as the note the national system makes of it; a Simples
// Nacional provider's stays in 1.00; a CRT 3 service without its
// operation indicator is a problem to fix.
func TestDPSOfTheReform(t *testing.T) {
	t.Parallel()
	c, err := certs.TestCertificate("Acme Comércio Ltda", "11222333000181", issued)
	if err != nil {
		t.Fatal(err)
	}
	inv := sample(NFSeN, RegimeNormal)
	inv.Reform = reformTable(t)
	inv.Service.IBSCBSClass, inv.Service.IBSCBSOperation = "200052", "100301"
	if ps := Validate(inv); len(ps) != 0 {
		t.Fatalf("problems %v", ps)
	}
	_, a, signed := issue(t, inv, c)
	xmllint(t, "nfse-nacional-1.01/DPS_v1.01.xsd", signed)
	xmllint(t, "nfse-nacional-1.01/NFSe_v1.01.xsd", a.XML)
	xmlsec(t, signed, "/*/*[local-name()='Signature']")
	for _, want := range []string{`<DPS xmlns="http://www.sped.fazenda.gov.br/nfse" versao="1.01">`, `<NFSe xmlns="http://www.sped.fazenda.gov.br/nfse" versao="1.01">`,
		"<IBSCBS><finNFSe>0</finNFSe><indFinal>0</indFinal><cIndOp>100301</cIndOp><indDest>0</indDest><valores><trib><gIBSCBS><CST>200</CST><cClassTrib>200052</cClassTrib></gIBSCBS>"} {
		if !strings.Contains(string(a.XML), want) {
			t.Errorf("the note lacks %s:\n%s", want, a.XML)
		}
	}

	simples := sample(NFSeN, SimplesNacional)
	simples.Reform = inv.Reform
	_, _, signed = issue(t, simples, c)
	if !strings.Contains(string(signed), `versao="1.00"`) || strings.Contains(string(signed), "IBSCBS") {
		t.Errorf("a Simples Nacional DPS of 2026:\n%s", signed)
	}
	xmllint(t, "nfse-nacional-1.00/DPS_v1.00.xsd", signed)

	inv.Service.IBSCBSOperation, inv.Service.IBSCBSClass = "", "200034"
	ps := Validate(inv)
	if len(ps) != 2 || ps[0].Field != "service.ibs_cbs_operation" || ps[1].Field != "service.ibs_cbs_class" {
		t.Fatalf("problems %v", ps)
	}
}

// TestDeferralAndPresumedCredit: a class an operator's table gives with a
// deferral states gDif (the value stated is what is not deferred), one
// with a presumed credit its gIBSCredPres and gCBSCredPres; the totals
// carry both, and the note validates.
func TestDeferralAndPresumedCredit(t *testing.T) {
	t.Parallel()
	c, err := certs.TestCertificate("Acme Comércio Ltda", "11222333000181", issued)
	if err != nil {
		t.Fatal(err)
	}
	inv := reformSample(t, NFe, RegimeNormal)
	if err := inv.Reform.Override([]byte(`{"csts": {"510": {"name": "Diferimento", "taxed": true}},
		"classes": [{"code": "510001", "name": "Diferimento de teste", "deferral": "50", "documents": ["nfe"]},
			{"code": "000099", "name": "Crédito presumido de teste", "cred_pres": {"code": "01", "ibs": "1", "cbs": "2"}, "documents": ["nfe"]}]}`)); err != nil {
		t.Fatal(err)
	}
	inv.Items[0].IBSCBSClass, inv.Items[1].IBSCBSClass = "510001", "000099"
	_, _, signed := issue(t, inv, c)
	xmllint(t, "nfe-4.00/nfe_v4.00.xsd", signed)
	p, _ := ReadNFeProc(signed)
	dif := p.NFe.Inf.Det[0].Imposto.IBSCBS.G
	full := d(dif.VBC).Mul(d("0.9")).Div(decimal.NewFromInt(100)).Round(2)
	half := full.Mul(d("0.5")).Round(2)
	if dif.CBS.Dif == nil || dif.CBS.Dif.P != "50.0000" || dif.CBS.Dif.V != half.StringFixed(2) || dif.CBS.V != full.Sub(half).StringFixed(2) {
		t.Errorf("deferral: %+v %+v (full %s)", dif.CBS, dif.CBS.Dif, full)
	}
	cp := p.NFe.Inf.Det[1].Imposto.IBSCBS.G
	wantCBS := d(cp.VBC).Mul(d("2")).Div(decimal.NewFromInt(100)).Round(2).StringFixed(2)
	if cp.CBSCredPres == nil || cp.CBSCredPres.CCredPres != "01" || cp.CBSCredPres.VCredPres != wantCBS || cp.IBSCredPres == nil {
		t.Errorf("presumed credit: %+v %+v", cp.IBSCredPres, cp.CBSCredPres)
	}
	tot := p.NFe.Inf.Total.IBSCBSTot
	if tot.GCBS.VDif != dif.CBS.Dif.V || tot.GCBS.VCredPres != wantCBS {
		t.Errorf("totals %+v", tot.GCBS)
	}
}
