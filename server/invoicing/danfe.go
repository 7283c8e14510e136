package invoicing

import (
	"context"
	"strconv"
	"strings"
	"time"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/server/fiscal"
	"fincom/store"
)

// DANFEData is what the DANFE shows of an invoice, as a page and as a
// PDF: an NF-e's or NFC-e's is drawn from its authorized XML, as the
// authorities mean it (the document is the XML; the DANFE its image); an
// NFS-e's from the note's data. The bar code and QR images are the page's
// alone (the PDF draws its own).
func DANFEData(inv store.Invoice, fi fiscal.Invoice) render.DANFEData {
	v := render.DANFEData{Kind: inv.Kind, Number: inv.Number, Series: inv.Series, Protocol: inv.Protocol, IssuedAt: render.DateTimeBR(inv.IssuedTime()),
		AuthorizedAt: render.DateTimeBR(inv.IssuedTime()), Verification: inv.Verification.String, Cancelled: inv.Status == "CANCELLED",
		Homologation: !strings.Contains(inv.XML, "<tpAmb>1</tpAmb>")}
	if inv.CancelledAt.Valid {
		v.CancelledAt = render.DateTimeBR(inv.CancelledAt.Time())
	}
	if k := inv.AccessKey.String; k != "" {
		var groups []string
		for i := 0; i < len(k); i += 4 {
			groups = append(groups, k[i:min(i+4, len(k))])
		}
		v.Key = strings.Join(groups, " ")
	}
	proc, err := fiscal.ReadNFeProc([]byte(inv.XML))
	if (inv.Kind == fiscal.NFe || inv.Kind == fiscal.NFCe) && err == nil {
		fromNFe(&v, proc)
		return v
	}
	v.Title = "NFS-e"
	v.Emitter = danfeParty(fi.Emitter)
	v.Recipient = danfeParty(fi.Recipient)
	v.Service = fi.Service.Code + " — " + fi.Service.Description
	v.Totals = []render.Labelled{{Label: "Valor do serviço", Value: render.BRL(fi.Service.Gross.StringFixed(2))},
		{Label: "ISS (" + fi.Service.ISSRate.StringFixed(2) + "%)", Value: render.BRL(fi.Service.ISSAmount.StringFixed(2))},
		{Label: "Retenções", Value: render.BRL(fi.Service.Retentions.StringFixed(2))},
		{Label: "Valor líquido", Value: render.BRL(fi.Service.Net.StringFixed(2))}}
	return v
}

func danfeParty(p fiscal.Party) render.DANFEParty {
	reg := brdoc.FormatCNPJ(p.Register)
	if len(p.Register) == 11 {
		reg = brdoc.FormatCPF(p.Register)
	}
	addr := p.Address
	if p.Number != "" {
		addr += ", " + p.Number
	}
	if p.Complement != "" {
		addr += " " + p.Complement
	}
	return render.DANFEParty{Name: p.Name, Register: reg, IE: p.IE, Address: addr, District: p.Neighborhood, City: p.City, State: p.State,
		Zip: cep(p.Zip), Phone: brdoc.FormatPhone(p.Phone)}
}

func cep(z string) string {
	if len(z) == 8 {
		return z[:5] + "-" + z[5:]
	}
	return z
}

// fromNFe fills the DANFE from an authorized NF-e or NFC-e.
func fromNFe(v *render.DANFEData, p fiscal.NFeProc) {
	in := p.NFe.Inf
	v.Title = "DANFE"
	if in.Ide.Mod == "65" {
		v.Title = "DANFE NFC-e"
	}
	v.Homologation = in.Ide.TpAmb == 2
	switch in.Ide.TpEmis {
	case "9":
		v.Contingency = "EMITIDA EM CONTINGÊNCIA"
	case "4":
		v.Contingency = "DANFE EMITIDO EM CONTINGÊNCIA (EPEC)"
	}
	if v.Contingency != "" && p.Prot.Inf.NProt == "" {
		v.Contingency += " — Pendente de autorização"
	}
	v.Direction, v.Operation = in.Ide.TpNF, in.Ide.NatOp
	v.Protocol, v.AuthorizedAt, v.IssuedAt = p.Prot.Inf.NProt, xmlTime(p.Prot.Inf.DhRecbto), xmlTime(in.Ide.DhEmi)
	e := in.Emit
	v.Emitter = danfeParty(fiscal.Party{Register: e.CNPJ, Name: e.XNome, Address: e.Ender.XLgr, Number: e.Ender.Nro, Complement: e.Ender.XCpl,
		Neighborhood: e.Ender.XBairro, City: e.Ender.XMun, State: e.Ender.UF, Zip: e.Ender.CEP, Phone: e.Ender.Fone, IE: e.IE})
	if d := in.Dest; d != nil {
		q := fiscal.Party{Register: d.CNPJ + d.CPF, Name: d.XNome}
		if a := d.Ender; a != nil {
			q.Address, q.Number, q.Complement, q.Neighborhood, q.City, q.State, q.Zip, q.Phone = a.XLgr, a.Nro, a.XCpl, a.XBairro, a.XMun, a.UF, a.CEP, a.Fone
		}
		v.Recipient = danfeParty(q)
	}
	t := in.Total.ICMSTot
	n := render.BRNumber
	v.Taxes = []render.Labelled{{Label: "BASE DE CÁLC. DO ICMS", Value: n(t.VBC)}, {Label: "VALOR DO ICMS", Value: n(t.VICMS)},
		{Label: "BASE DE CÁLC. ICMS S.T.", Value: n(t.VBCST)}, {Label: "VALOR DO ICMS SUBST.", Value: n(t.VST)},
		{Label: "V. IMP. IMPORTAÇÃO", Value: n(t.VII)}, {Label: "VALOR DO PIS", Value: n(t.VPIS)}, {Label: "V. TOTAL PRODUTOS", Value: n(t.VProd)},
		{Label: "VALOR DO FRETE", Value: n(t.VFrete)}, {Label: "VALOR DO SEGURO", Value: n(t.VSeg)}, {Label: "DESCONTO", Value: n(t.VDesc)},
		{Label: "OUTRAS DESPESAS", Value: n(t.VOutro)}, {Label: "VALOR TOTAL IPI", Value: n(t.VIPI)}, {Label: "VALOR DA COFINS", Value: n(t.VCOFINS)},
		{Label: "V. TOTAL DA NOTA", Value: n(t.VNF)}}
	if r := in.Total.IBSCBSTot; r != nil {
		v.Reform = []render.Labelled{{Label: "BASE DE CÁLC. IBS/CBS", Value: n(r.VBCIBSCBS)}, {Label: "VALOR DO IBS UF", Value: n(r.GIBS.UF.V)},
			{Label: "VALOR DO IBS MUNICÍPIO", Value: n(r.GIBS.Mun.V)}, {Label: "VALOR TOTAL DO IBS", Value: n(r.GIBS.VIBS)},
			{Label: "VALOR DA CBS", Value: n(r.GCBS.V)}}
	}
	v.Freight = render.FreightName(strconv.Itoa(in.Transp.ModFrete))
	for _, d := range in.Det {
		line := render.DocumentLine{Item: d.NItem, Code: d.Prod.CProd, Description: d.Prod.XProd, NCM: d.Prod.NCM, CFOP: d.Prod.CFOP, Unit: d.Prod.UCom,
			Quantity: n(trimZeros(d.Prod.QCom)), UnitValue: n(trimZeros(d.Prod.VUnCom)), Total: n(d.Prod.VProd)}
		switch i := d.Imposto.ICMS; {
		case i.ICMSSN102 != nil:
			line.CST = i.ICMSSN102.Orig + i.ICMSSN102.CSOSN
		case i.ICMS00 != nil:
			line.CST, line.BaseICMS, line.ICMS, line.RateICMS = i.ICMS00.Orig+i.ICMS00.CST, n(i.ICMS00.VBC), n(i.ICMS00.VICMS), n(trimZeros(i.ICMS00.PICMS))
		case i.ICMS40 != nil:
			line.CST = i.ICMS40.Orig + i.ICMS40.CST
		}
		v.Items = append(v.Items, line)
	}
	for _, dp := range in.Pag.DetPag {
		v.Payments = append(v.Payments, render.Labelled{Label: fiscal.PaymentNames[dp.TPag], Value: n(dp.VPag)})
	}
	if in.InfAdic != nil {
		v.AdditionalInfo = in.InfAdic.InfCpl
	}
	if s := p.NFe.Supl; s != nil {
		v.QR, v.ConsultURL = s.QRCode, s.URLChave
		v.Totals = []render.Labelled{{Label: "QTD. TOTAL DE ITENS", Value: strconv.Itoa(len(in.Det))}, {Label: "VALOR TOTAL R$", Value: n(t.VNF)},
			{Label: "VALOR A PAGAR R$", Value: n(t.VNF)}}
		if r := in.Total.IBSCBSTot; r != nil {
			// The consumer's receipt says the reform's taxes the sale
			// carries, outside what is paid in the test year.
			v.Totals = append(v.Totals, render.Labelled{Label: "IBS R$", Value: n(r.GIBS.VIBS)}, render.Labelled{Label: "CBS R$", Value: n(r.GCBS.V)})
		}
	}
}

// trimZeros drops a decimal's trailing zeros past two places (100.0000 is
// 100.00; 0.3500000000 is 0.35).
func trimZeros(s string) string {
	i, f, ok := strings.Cut(s, ".")
	if !ok {
		return s
	}
	f = strings.TrimRight(f, "0")
	for len(f) < 2 {
		f += "0"
	}
	return i + "." + f
}

// xmlTime formats an XML date-time (2026-11-22T09:00:00-03:00) as the
// DANFE prints it, in São Paulo time.
func xmlTime(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return render.DateTimeBR(t)
}

// DANFEPDF is the invoice's printable PDF: a national NFS-e's official
// DANFSe (kept with the invoice, or fetched from the national system and
// kept now), else fincom's rendering of its DANFE.
func (s *Service) DANFEPDF(ctx context.Context, db *store.DB, inv store.Invoice, d store.InvoiceData) ([]byte, error) {
	if inv.Kind == fiscal.NFSeN && inv.Token != "" {
		pdf, ok, err := db.InvoiceDANFSe(ctx, inv.Token)
		if err != nil || ok {
			return pdf, err
		}
		if pdf := s.officialDANFSe(ctx, db, d, inv); pdf != nil {
			return pdf, db.KeepDANFSe(ctx, inv.Token, pdf)
		}
	}
	return DANFEPDF(inv, Document(d))
}

// DANFSeWait is how long issuing waits for the national system's DANFSe,
// and DANFSeRetry how long after it gave none it is asked again: a
// public page asking for the PDF never makes fincom ask the system each
// time (fincom's rendering stands in meanwhile).
const (
	DANFSeWait  = 5 * time.Second
	DANFSeRetry = 10 * time.Minute
)

// officialDANFSe fetches an issued national NFS-e's DANFSe from the
// national system, within DANFSeWait; nil when it is no such note, the
// system gives none, or it was asked less than DANFSeRetry ago.
func (s *Service) officialDANFSe(ctx context.Context, db *store.DB, d store.InvoiceData, inv store.Invoice) []byte {
	src, ok := s.Authority.(fiscal.DANFSeSource)
	if inv.Kind != fiscal.NFSeN || !inv.AccessKey.Valid || inv.Protocol == "" || !ok {
		return nil
	}
	key, now := db.Name+"/"+inv.AccessKey.String, db.Now()
	if last, ok := s.danfseAsked.Load(key); ok && now.Sub(last.(time.Time)) < DANFSeRetry {
		return nil
	}
	cert, err := s.certificate(ctx, db, d, Document(d))
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, DANFSeWait)
	defer cancel()
	pdf, err := src.DANFSe(ctx, fiscal.DANFSeRequest{Key: inv.AccessKey.String, Production: production(inv), Cert: cert, Domain: db.Name,
		Book: book{db}})
	if err != nil {
		s.danfseAsked.Store(key, now)
		return nil
	}
	s.danfseAsked.Delete(key)
	return pdf
}

// DANFEPDF is an invoice's DANFE as a PDF.
func DANFEPDF(inv store.Invoice, fi fiscal.Invoice) ([]byte, error) {
	return render.DANFEPDF(DANFEData(inv, fi))
}
