package fiscal

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/brdoc"
	"fincom/server/fiscal/reform"
)

// The national NFS-e layout 1.00 (schemas/nfse-nacional-1.00): the
// provider declares a service in a DPS, signs it and sends it; the
// national system answers the NFS-e, which carries the DPS and is signed
// by the system. A provider that states IBS and CBS declares in layout
// 1.01 (schemas/nfse-nacional-1.01, the tax reform's), with its IBSCBS
// group; the note is then of that layout too.

// DPS is the provider's declaration.
type DPS struct {
	XMLName xml.Name `xml:"http://www.sped.fazenda.gov.br/nfse DPS"`
	Versao  string   `xml:"versao,attr"`
	Inf     InfDPS   `xml:"infDPS"`
}

// InfDPS is the signed part of a DPS.
type InfDPS struct {
	ID      string `xml:"Id,attr"`
	TpAmb   int    `xml:"tpAmb"`
	DhEmi   string `xml:"dhEmi"`
	VerApl  string `xml:"verAplic"`
	Serie   string `xml:"serie"`
	NDPS    string `xml:"nDPS"`
	DCompet string `xml:"dCompet"`
	TpEmit  int    `xml:"tpEmit"`
	CLocEmi string `xml:"cLocEmi"`
	Subst   *Subst `xml:"subst,omitempty"`
	Prest   struct {
		CNPJ    string `xml:"CNPJ,omitempty"`
		CPF     string `xml:"CPF,omitempty"`
		IM      string `xml:"IM,omitempty"`
		Fone    string `xml:"fone,omitempty"`
		Email   string `xml:"email,omitempty"`
		RegTrib struct {
			OpSimpNac  int `xml:"opSimpNac"`
			RegEspTrib int `xml:"regEspTrib"`
		} `xml:"regTrib"`
	} `xml:"prest"`
	Toma struct {
		CNPJ  string    `xml:"CNPJ,omitempty"`
		CPF   string    `xml:"CPF,omitempty"`
		XNome string    `xml:"xNome"`
		End   *Endereco `xml:"end,omitempty"`
		Email string    `xml:"email,omitempty"`
	} `xml:"toma"`
	Serv struct {
		CLocPrestacao string `xml:"locPrest>cLocPrestacao"`
		CTribNac      string `xml:"cServ>cTribNac"`
		XDescServ     string `xml:"cServ>xDescServ"`
	} `xml:"serv"`
	Valores struct {
		VServ string `xml:"vServPrest>vServ"`
		Trib  struct {
			TribISSQN  int      `xml:"tribMun>tribISSQN"`
			PAliq      string   `xml:"tribMun>pAliq,omitempty"`
			TpRetISSQN int      `xml:"tribMun>tpRetISSQN"`
			TribFed    *TribFed `xml:"tribFed,omitempty"`
			IndTotTrib string   `xml:"totTrib>indTotTrib"`
		} `xml:"trib"`
	} `xml:"valores"`
	IBSCBS *DPSIBSCBS `xml:"IBSCBS,omitempty"`
}

// DPSIBSCBS is a DPS's TCRTCInfoIBSCBS: the note's purpose (0, regular),
// whether the service is for the taker's personal use, the operation
// indicator, that the taker is its recipient, and the service's
// situation and classification; the national system applies the rates.
type DPSIBSCBS struct {
	FinNFSe  string `xml:"finNFSe"`
	IndFinal string `xml:"indFinal"`
	CIndOp   string `xml:"cIndOp"`
	IndDest  string `xml:"indDest"`
	Trib     struct {
		CST        string  `xml:"CST"`
		CClassTrib string  `xml:"cClassTrib"`
		CCredPres  string  `xml:"cCredPres,omitempty"`
		Dif        *DPSDif `xml:"gDif,omitempty"`
	} `xml:"valores>trib>gIBSCBS"`
}

// DPSDif is the share deferred of each tax (TSDec3V2).
type DPSDif struct {
	PDifUF  string `xml:"pDifUF"`
	PDifMun string `xml:"pDifMun"`
	PDifCBS string `xml:"pDifCBS"`
}

// serviceClass is the service's classification, or the default.
func (inv Invoice) serviceClass() string {
	if c := inv.Service.IBSCBSClass; c != "" {
		return c
	}
	return reform.DefaultClass
}

// dpsIBSCBS is the DPS's IBSCBS group.
func dpsIBSCBS(inv Invoice) (*DPSIBSCBS, error) {
	c, _, ok := inv.Reform.Class(inv.serviceClass())
	if !ok {
		return nil, fmt.Errorf("cClassTrib %s is not in fincom's table", inv.serviceClass())
	}
	g := &DPSIBSCBS{FinNFSe: "0", IndFinal: "0", CIndOp: inv.Service.IBSCBSOperation, IndDest: "0"}
	if len(inv.Recipient.Register) == 11 {
		// A person buys for personal use (LC 214/2025 art. 57).
		g.IndFinal = "1"
	}
	g.Trib.CST, g.Trib.CClassTrib = c.CST(), c.Code
	if p := c.CredPres; p != nil {
		g.Trib.CCredPres = p.Code
	}
	if c.Deferral.IsPositive() {
		g.Trib.Dif = &DPSDif{PDifUF: money(c.Deferral), PDifMun: money(c.Deferral), PDifCBS: money(c.Deferral)}
	}
	return g, nil
}

// Subst is the note a DPS replaces (TCSubstituicao).
type Subst struct {
	ChSubstda string `xml:"chSubstda"`
	CMotivo   string `xml:"cMotivo"`
	XMotivo   string `xml:"xMotivo,omitempty"`
}

// TribFed is the DPS's federal taxes withheld (TCTribNacional): PIS and
// COFINS, the social security contribution (CP), IRRF and CSLL.
type TribFed struct {
	PisCofins *PisCofins `xml:"piscofins,omitempty"`
	VRetCP    string     `xml:"vRetCP,omitempty"`
	VRetIRRF  string     `xml:"vRetIRRF,omitempty"`
	VRetCSLL  string     `xml:"vRetCSLL,omitempty"`
}

// PisCofins is TCTribOutrosPisCofins: withheld (tpRetPisCofins 1).
type PisCofins struct {
	CST            string `xml:"CST"`
	VBCPisCofins   string `xml:"vBCPisCofins,omitempty"`
	PAliqPis       string `xml:"pAliqPis,omitempty"`
	PAliqCofins    string `xml:"pAliqCofins,omitempty"`
	VPis           string `xml:"vPis,omitempty"`
	VCofins        string `xml:"vCofins,omitempty"`
	TpRetPisCofins string `xml:"tpRetPisCofins,omitempty"`
}

// tribFed states each federal withholding of the service, or nil when
// nothing is withheld (TestDPSWithholdings).
func tribFed(s Service) *TribFed {
	w := s.Withheld
	if !w.PIS.Add(w.COFINS).Add(w.CP).Add(w.IRRF).Add(w.CSLL).IsPositive() {
		return nil
	}
	opt := func(v decimal.Decimal) string {
		if v.IsPositive() {
			return money(v)
		}
		return ""
	}
	f := &TribFed{VRetCP: opt(w.CP), VRetIRRF: opt(w.IRRF), VRetCSLL: opt(w.CSLL)}
	if w.PIS.Add(w.COFINS).IsPositive() {
		f.PisCofins = &PisCofins{CST: "01", VBCPisCofins: money(s.Gross.Sub(s.Deductions)), PAliqPis: opt(w.PISRate),
			PAliqCofins: opt(w.COFINSRate), VPis: opt(w.PIS), VCofins: opt(w.COFINS), TpRetPisCofins: "1"}
	}
	return f
}

// Endereco is a national address (TCEndereco).
type Endereco struct {
	CMun    string `xml:"endNac>cMun"`
	CEP     string `xml:"endNac>CEP"`
	XLgr    string `xml:"xLgr"`
	Nro     string `xml:"nro"`
	XCpl    string `xml:"xCpl,omitempty"`
	XBairro string `xml:"xBairro"`
}

// DPSID is a DPS's Id: DPS, the city of issue (7), the kind of
// registration (1 CPF, 2 CNPJ), the registration (14), the series (5)
// and the number (15).
func DPSID(inv Invoice) string {
	reg, kind := inv.Emitter.Register, "2"
	if len(reg) == 11 {
		kind, reg = "1", "000"+reg
	}
	return "DPS" + inv.Emitter.CityIBGE + kind + reg + pad(inv.Series, 5) + pad(inv.Number, 15)
}

// opSimpNac is the national NFS-e's Simples Nacional situation of a CRT:
// 1 not opting in, 2 MEI, 3 ME or EPP.
func opSimpNac(crt int) int {
	switch crt {
	case SimplesNacional:
		return 3
	case MEI:
		return 2
	}
	return 1
}

// tribNac is the national service code (item, subitem, unfolding) of the
// order's service code: 01.07 is 010701.
func tribNac(code string) string {
	d := brdoc.Digits(code)
	if len(d) == 4 {
		d += "01"
	}
	return d
}

// BuildDPS builds the DPS to sign (Sign, with its Id DPSID).
func BuildDPS(inv Invoice) ([]byte, error) {
	d := DPS{Versao: "1.00"}
	in := &d.Inf
	e, s := inv.Emitter, inv.Service
	in.ID, in.TpAmb, in.DhEmi, in.VerApl = DPSID(inv), inv.tpAmb(), dh(inv.Issued), "fincom"
	in.Serie, in.NDPS = strconv.Itoa(inv.Series), strconv.Itoa(inv.Number)
	in.DCompet, in.TpEmit, in.CLocEmi = inv.Issued.In(saoPaulo).Format(time.DateOnly), 1, e.CityIBGE
	if r := inv.Replaces; r != nil {
		in.Subst = &Subst{ChSubstda: r.Key, CMotivo: r.Code, XMotivo: clip(r.Reason, 255)}
	}
	if len(e.Register) == 11 {
		in.Prest.CPF = e.Register
	} else {
		in.Prest.CNPJ = e.Register
	}
	in.Prest.IM, in.Prest.Fone, in.Prest.Email = clip(e.IM, 15), phone(e.Phone), clip(e.Email, 80)
	in.Prest.RegTrib.OpSimpNac = opSimpNac(inv.Profile.CRT)
	r := inv.Recipient
	if len(r.Register) == 11 {
		in.Toma.CPF = r.Register
	} else {
		in.Toma.CNPJ = r.Register
	}
	in.Toma.XNome, in.Toma.Email = clip(r.Name, 300), clip(r.Email, 80)
	if r.Address != "" && len(r.Zip) == 8 {
		in.Toma.End = &Endereco{CMun: r.CityIBGE, CEP: r.Zip, XLgr: clip(r.Address, 255), Nro: clip(r.Number, 60),
			XCpl: clip(r.Complement, 156), XBairro: clip(r.Neighborhood, 60)}
	}
	in.Serv.CLocPrestacao, in.Serv.CTribNac, in.Serv.XDescServ = firstOf(s.Location, e.CityIBGE), tribNac(s.Code), clip(s.Description, 2000)
	in.Valores.VServ = money(s.Gross)
	in.Valores.Trib.TribISSQN, in.Valores.Trib.TpRetISSQN, in.Valores.Trib.IndTotTrib = 1, 1, "0"
	in.Valores.Trib.TribFed = tribFed(s)
	if opSimpNac(inv.Profile.CRT) == 3 {
		// An ME or EPP of the Simples states its ISS rate; the others'
		// is the city's, which the national system applies.
		in.Valores.Trib.PAliq = money(s.ISSRate)
	}
	if inv.statesReform() {
		var err error
		if in.IBSCBS, err = dpsIBSCBS(inv); err != nil {
			return nil, err
		}
		d.Versao = "1.01"
	}
	return marshal(d)
}

// NFSeDoc is the national system's answer: the note, with the provider's
// signed DPS inside.
type NFSeDoc struct {
	XMLName xml.Name `xml:"http://www.sped.fazenda.gov.br/nfse NFSe"`
	Versao  string   `xml:"versao,attr"`
	Inf     struct {
		ID            string `xml:"Id,attr"`
		XLocEmi       string `xml:"xLocEmi"`
		XLocPrestacao string `xml:"xLocPrestacao"`
		NNFSe         string `xml:"nNFSe"`
		CLocIncid     string `xml:"cLocIncid"`
		XLocIncid     string `xml:"xLocIncid"`
		XTribNac      string `xml:"xTribNac"`
		VerAplic      string `xml:"verAplic"`
		AmbGer        int    `xml:"ambGer"`
		TpEmis        int    `xml:"tpEmis"`
		ProcEmi       int    `xml:"procEmi"`
		CStat         int    `xml:"cStat"`
		DhProc        string `xml:"dhProc"`
		NDFSe         string `xml:"nDFSe"`
		Emit          struct {
			CNPJ     string `xml:"CNPJ,omitempty"`
			CPF      string `xml:"CPF,omitempty"`
			IM       string `xml:"IM,omitempty"`
			XNome    string `xml:"xNome"`
			EnderNac struct {
				XLgr    string `xml:"xLgr"`
				Nro     string `xml:"nro"`
				XCpl    string `xml:"xCpl,omitempty"`
				XBairro string `xml:"xBairro"`
				CMun    string `xml:"cMun"`
				UF      string `xml:"UF"`
				CEP     string `xml:"CEP"`
			} `xml:"enderNac"`
			Fone  string `xml:"fone,omitempty"`
			Email string `xml:"email,omitempty"`
		} `xml:"emit"`
		Valores struct {
			VBC        string `xml:"vBC"`
			PAliqAplic string `xml:"pAliqAplic"`
			VISSQN     string `xml:"vISSQN"`
			VTotalRet  string `xml:"vTotalRet"`
			VLiq       string `xml:"vLiq"`
		} `xml:"valores"`
		// DPSXML is the provider's signed DPS, as it came.
		DPSXML string `xml:",innerxml"`
	} `xml:"infNFSe"`
}

// BuildNFSe is what the national system makes of an accepted DPS: the
// note numbered n, with its number of the national register (nDFSe), to
// sign with the system's certificate (Sign, Id "NFS"+key).
func BuildNFSe(inv Invoice, key string, signedDPS []byte, a Authorization) ([]byte, error) {
	var d NFSeDoc
	// The note is of its declaration's layout.
	d.Versao = rootVersion(signedDPS)
	in := &d.Inf
	e, s := inv.Emitter, inv.Service
	in.ID = "NFS" + key
	in.XLocEmi, in.XLocPrestacao, in.NNFSe = e.City, e.City, strconv.Itoa(inv.Number)
	if m, ok := brdoc.LookupIBGE(firstOf(s.Location, e.CityIBGE)); ok {
		in.XLocPrestacao = m.Name
	}
	in.CLocIncid, in.XLocIncid = e.CityIBGE, e.City
	in.XTribNac, in.VerAplic, in.AmbGer, in.TpEmis, in.ProcEmi, in.CStat = clip(s.Description, 600), "fincom-sim", 2, 1, 1, 100
	in.DhProc, in.NDFSe = dh(a.At), a.Protocol
	if len(e.Register) == 11 {
		in.Emit.CPF = e.Register
	} else {
		in.Emit.CNPJ = e.Register
	}
	in.Emit.IM, in.Emit.XNome, in.Emit.Fone, in.Emit.Email = clip(e.IM, 15), clip(e.Name, 300), phone(e.Phone), clip(e.Email, 80)
	en := &in.Emit.EnderNac
	en.XLgr, en.Nro, en.XCpl, en.XBairro = clip(e.Address, 255), clip(e.Number, 60), clip(e.Complement, 156), clip(e.Neighborhood, 60)
	en.CMun, en.UF, en.CEP = e.CityIBGE, e.State, e.Zip
	base := s.Gross.Sub(s.Deductions)
	in.Valores.VBC, in.Valores.PAliqAplic = money(base), money(s.ISSRate)
	in.Valores.VISSQN = money(base.Mul(s.ISSRate).Div(decimal.NewFromInt(100)).Round(2))
	in.Valores.VTotalRet, in.Valores.VLiq = money(s.Retentions), money(s.Net)
	in.DPSXML = string(stripHeader(signedDPS))
	return marshal(d)
}

// The ABRASF municipal NFS-e layout (version 2.04), as a CompNfse.
type compNfse struct {
	XMLName xml.Name `xml:"http://www.abrasf.org.br/nfse.xsd CompNfse"`
	Nfse    struct {
		Versao string `xml:"versao,attr"`
		Inf    struct {
			ID                string `xml:"Id,attr"`
			Numero            int    `xml:"Numero"`
			CodigoVerificacao string `xml:"CodigoVerificacao"`
			DataEmissao       string `xml:"DataEmissao"`
			BaseCalculo       string `xml:"ValoresNfse>BaseCalculo"`
			Aliquota          string `xml:"ValoresNfse>Aliquota"`
			ValorIss          string `xml:"ValoresNfse>ValorIss"`
			ValorLiquido      string `xml:"ValoresNfse>ValorLiquidoNfse"`
			PrestadorCnpj     string `xml:"PrestadorServico>IdentificacaoPrestador>CpfCnpj>Cnpj"`
			PrestadorIM       string `xml:"PrestadorServico>IdentificacaoPrestador>InscricaoMunicipal"`
			PrestadorNome     string `xml:"PrestadorServico>RazaoSocial"`
			OrgaoMunicipio    string `xml:"OrgaoGerador>CodigoMunicipio"`
			OrgaoUF           string `xml:"OrgaoGerador>Uf"`
			Declaracao        struct {
				Inf struct {
					Competencia string `xml:"Competencia"`
					Servico     struct {
						ValorServicos string `xml:"Valores>ValorServicos"`
						ValorDeducoes string `xml:"Valores>ValorDeducoes"`
						ValorIss      string `xml:"Valores>ValorIss"`
						Aliquota      string `xml:"Valores>Aliquota"`
						ItemLista     string `xml:"ItemListaServico"`
						Discriminacao string `xml:"Discriminacao"`
						Municipio     string `xml:"CodigoMunicipio"`
					} `xml:"Servico"`
					TomadorCnpj string `xml:"Tomador>IdentificacaoTomador>CpfCnpj>Cnpj,omitempty"`
					TomadorCpf  string `xml:"Tomador>IdentificacaoTomador>CpfCnpj>Cpf,omitempty"`
					TomadorNome string `xml:"Tomador>RazaoSocial"`
				} `xml:"InfDeclaracaoPrestacaoServico"`
			} `xml:"DeclaracaoPrestacaoServico"`
		} `xml:"InfNfse"`
	} `xml:"Nfse"`
}

// MunicipalXML builds the municipal NFS-e document. Each city runs its own
// system; fincom keeps the ABRASF 2.04 shape of the note, unsigned.
func MunicipalXML(inv Invoice, verification string, auth Authorization) ([]byte, error) {
	var d compNfse
	n := &d.Nfse
	n.Versao = "2.04"
	in := &n.Inf
	s := inv.Service
	base := s.Gross.Sub(s.Deductions)
	iss := base.Mul(s.ISSRate).Div(decimal.NewFromInt(100)).Round(2)
	in.ID = "nfse" + strconv.Itoa(inv.Number)
	in.Numero, in.CodigoVerificacao, in.DataEmissao = inv.Number, verification, inv.Issued.In(saoPaulo).Format("2006-01-02T15:04:05")
	in.BaseCalculo, in.Aliquota, in.ValorIss, in.ValorLiquido = money(base), money(s.ISSRate), money(iss), money(s.Net)
	in.PrestadorCnpj, in.PrestadorIM, in.PrestadorNome = inv.Emitter.Register, inv.Emitter.IM, inv.Emitter.Name
	in.OrgaoMunicipio, in.OrgaoUF = inv.Emitter.CityIBGE, inv.Emitter.State
	dec := &in.Declaracao.Inf
	dec.Competencia = inv.Issued.In(saoPaulo).Format(time.DateOnly)
	dec.Servico.ValorServicos, dec.Servico.ValorDeducoes, dec.Servico.ValorIss, dec.Servico.Aliquota = money(s.Gross), money(s.Deductions), money(iss), money(s.ISSRate)
	dec.Servico.ItemLista, dec.Servico.Discriminacao, dec.Servico.Municipio = s.Code, s.Description, firstOf(s.Location, inv.Emitter.CityIBGE)
	if len(inv.Recipient.Register) == 11 {
		dec.TomadorCpf = inv.Recipient.Register
	} else {
		dec.TomadorCnpj = inv.Recipient.Register
	}
	dec.TomadorNome = inv.Recipient.Name
	b, err := xml.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), b...), nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// The reasons of a national NFS-e's cancellation (TSCodJustCanc).
const (
	CancelIssueError  = "1" // erro na emissão
	CancelNotRendered = "2" // serviço não prestado
	CancelOther       = "9" // outros
)

// pedRegEvento is the national system's request to register an event of
// a note (TCPedRegEvt), here the cancellation e101101.
type pedRegEvento struct {
	XMLName xml.Name `xml:"http://www.sped.fazenda.gov.br/nfse pedRegEvento"`
	Versao  string   `xml:"versao,attr"`
	Inf     struct {
		ID        string `xml:"Id,attr"`
		TpAmb     int    `xml:"tpAmb"`
		VerAplic  string `xml:"verAplic"`
		DhEvento  string `xml:"dhEvento"`
		CNPJAutor string `xml:"CNPJAutor,omitempty"`
		CPFAutor  string `xml:"CPFAutor,omitempty"`
		ChNFSe    string `xml:"chNFSe"`
		NPedReg   string `xml:"nPedRegEvento"`
		Cancel    struct {
			XDesc   string `xml:"xDesc"`
			CMotivo string `xml:"cMotivo"`
			XMotivo string `xml:"xMotivo"`
		} `xml:"e101101"`
	} `xml:"infPedReg"`
}

// CancelRequestID is the Id of the first request to register a note's
// cancellation: PRE, the key, the event (101101) and the request's number
// (001).
func CancelRequestID(key string) string { return "PRE" + key + "101101001" }

// BuildCancelRequest is the request to cancel the national NFS-e key by
// its author (the provider's CNPJ or CPF), with a reason code
// (CancelIssueError, CancelNotRendered, CancelOther) and text, to sign
// (Sign, with its Id CancelRequestID).
func BuildCancelRequest(key, author string, production bool, code, reason string, at time.Time) ([]byte, error) {
	var p pedRegEvento
	p.Versao = "1.00"
	in := &p.Inf
	in.ID, in.TpAmb, in.VerAplic, in.DhEvento = CancelRequestID(key), Homologation, "fincom", dh(at)
	if production {
		in.TpAmb = 1
	}
	if len(author) == 11 {
		in.CPFAutor = author
	} else {
		in.CNPJAutor = author
	}
	in.ChNFSe, in.NPedReg = key, "1"
	in.Cancel.XDesc, in.Cancel.CMotivo, in.Cancel.XMotivo = "Cancelamento de NFS-e", code, clip(strings.Join(strings.Fields(reason), " "), 255)
	return marshal(p)
}
