package fiscal

import (
	"encoding/xml"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// The NF-e/NFC-e layout (version 4.00), in the national schema's element
// names and order.

type nfeProc struct {
	XMLName xml.Name `xml:"http://www.portalfiscal.inf.br/nfe nfeProc"`
	Versao  string   `xml:"versao,attr"`
	NFe     nfeDoc   `xml:"NFe"`
	Prot    protNFe  `xml:"protNFe"`
}

type nfeDoc struct {
	Inf  infNFe   `xml:"infNFe"`
	Supl *nfeSupl `xml:"infNFeSupl,omitempty"`
}

type nfeSupl struct {
	QRCode  string `xml:"qrCode"`
	URLChav string `xml:"urlChave"`
}

type infNFe struct {
	ID     string  `xml:"Id,attr"`
	Versao string  `xml:"versao,attr"`
	Ide    ide     `xml:"ide"`
	Emit   emit    `xml:"emit"`
	Dest   dest    `xml:"dest"`
	Det    []det   `xml:"det"`
	Total  total   `xml:"total"`
	Transp transp  `xml:"transp"`
	Pag    pag     `xml:"pag"`
	InfAdc *infAdc `xml:"infAdic,omitempty"`
}

type ide struct {
	CUF      string `xml:"cUF"`
	CNF      string `xml:"cNF"`
	NatOp    string `xml:"natOp"`
	Mod      string `xml:"mod"`
	Serie    int    `xml:"serie"`
	NNF      int    `xml:"nNF"`
	DhEmi    string `xml:"dhEmi"`
	TpNF     string `xml:"tpNF"`
	IDDest   int    `xml:"idDest"`
	CMunFG   string `xml:"cMunFG"`
	TpImp    string `xml:"tpImp"`
	TpEmis   string `xml:"tpEmis"`
	CDV      string `xml:"cDV"`
	TpAmb    int    `xml:"tpAmb"`
	FinNFe   string `xml:"finNFe"`
	IndFinal string `xml:"indFinal"`
	IndPres  string `xml:"indPres"`
	ProcEmi  string `xml:"procEmi"`
	VerProc  string `xml:"verProc"`
}

type ender struct {
	XLgr    string `xml:"xLgr"`
	Nro     string `xml:"nro"`
	XBairro string `xml:"xBairro"`
	CMun    string `xml:"cMun"`
	XMun    string `xml:"xMun"`
	UF      string `xml:"UF"`
	CEP     string `xml:"CEP,omitempty"`
	CPais   string `xml:"cPais"`
	XPais   string `xml:"xPais"`
}

type emit struct {
	CNPJ  string `xml:"CNPJ"`
	XNome string `xml:"xNome"`
	Ender ender  `xml:"enderEmit"`
	IE    string `xml:"IE"`
	CRT   string `xml:"CRT"`
}

type dest struct {
	CNPJ      string `xml:"CNPJ,omitempty"`
	CPF       string `xml:"CPF,omitempty"`
	XNome     string `xml:"xNome"`
	Ender     *ender `xml:"enderDest,omitempty"`
	IndIEDest string `xml:"indIEDest"`
	Email     string `xml:"email,omitempty"`
}

type det struct {
	NItem   int     `xml:"nItem,attr"`
	Prod    prod    `xml:"prod"`
	Imposto imposto `xml:"imposto"`
}

type prod struct {
	CProd    string `xml:"cProd"`
	CEAN     string `xml:"cEAN"`
	XProd    string `xml:"xProd"`
	NCM      string `xml:"NCM"`
	CFOP     string `xml:"CFOP"`
	UCom     string `xml:"uCom"`
	QCom     string `xml:"qCom"`
	VUnCom   string `xml:"vUnCom"`
	VProd    string `xml:"vProd"`
	CEANTrib string `xml:"cEANTrib"`
	UTrib    string `xml:"uTrib"`
	QTrib    string `xml:"qTrib"`
	VUnTrib  string `xml:"vUnTrib"`
	VFrete   string `xml:"vFrete,omitempty"`
	IndTot   string `xml:"indTot"`
}

// imposto is the Simples Nacional's ICMS without credit (CSOSN 102) and
// PIS/COFINS not taxed on the item (CST 49/99 simplified as 49).
type imposto struct {
	ICMS struct {
		SN102 struct {
			Orig  string `xml:"orig"`
			CSOSN string `xml:"CSOSN"`
		} `xml:"ICMSSN102"`
	} `xml:"ICMS"`
	PIS struct {
		Outr struct {
			CST  string `xml:"CST"`
			VBC  string `xml:"vBC"`
			PPIS string `xml:"pPIS"`
			VPIS string `xml:"vPIS"`
		} `xml:"PISOutr"`
	} `xml:"PIS"`
	COFINS struct {
		Outr struct {
			CST     string `xml:"CST"`
			VBC     string `xml:"vBC"`
			PCOFINS string `xml:"pCOFINS"`
			VCOFINS string `xml:"vCOFINS"`
		} `xml:"COFINSOutr"`
	} `xml:"COFINS"`
}

type total struct {
	ICMSTot struct {
		VBC     string `xml:"vBC"`
		VICMS   string `xml:"vICMS"`
		VBCST   string `xml:"vBCST"`
		VST     string `xml:"vST"`
		VProd   string `xml:"vProd"`
		VFrete  string `xml:"vFrete"`
		VSeg    string `xml:"vSeg"`
		VDesc   string `xml:"vDesc"`
		VII     string `xml:"vII"`
		VIPI    string `xml:"vIPI"`
		VPIS    string `xml:"vPIS"`
		VCOFINS string `xml:"vCOFINS"`
		VOutro  string `xml:"vOutro"`
		VNF     string `xml:"vNF"`
	} `xml:"ICMSTot"`
}

type transp struct {
	ModFrete int `xml:"modFrete"`
}

type pag struct {
	DetPag struct {
		TPag string `xml:"tPag"`
		VPag string `xml:"vPag"`
	} `xml:"detPag"`
}

type infAdc struct {
	InfCpl string `xml:"infCpl"`
}

type protNFe struct {
	Versao string `xml:"versao,attr"`
	Inf    struct {
		TpAmb    int    `xml:"tpAmb"`
		VerAplic string `xml:"verAplic"`
		ChNFe    string `xml:"chNFe"`
		DhRecbto string `xml:"dhRecbto"`
		NProt    string `xml:"nProt"`
		CStat    int    `xml:"cStat"`
		XMotivo  string `xml:"xMotivo"`
	} `xml:"infProt"`
}

// tPag is the NF-e payment means of a payment key.
var tPag = map[string]string{
	"CASH": "01", "CREDIT_CARD": "03", "DEBIT_CARD": "04", "BOLETO": "15", "TRANSFER": "18", "PIX": "17", "PIX_AUTOMATICO": "17",
}

var saoPaulo = func() *time.Location {
	l, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		return time.FixedZone("-03", -3*3600)
	}
	return l
}()

func dh(t time.Time) string { return t.In(saoPaulo).Format("2006-01-02T15:04:05-07:00") }

func money(d decimal.Decimal) string { return d.StringFixed(2) }

func party(p Party) ender {
	return ender{XLgr: p.Address, Nro: p.Number, XBairro: p.Neighborhood, CMun: p.CityIBGE, XMun: p.City, UF: p.State, CEP: p.Zip,
		CPais: "1058", XPais: "BRASIL"}
}

// ConsumerQR is the NFC-e consumer query URL (QR code version 2, on-line
// emission: key|version|environment|CSC id|hash), on the simulated
// authority's host.
func ConsumerQR(key string) string {
	return "https://nfce.fincom.invalid/qrcode?p=" + key + "|2|" + strconv.Itoa(Environment) + "|1|" + digitsOf("csc:"+key, 40)
}

// NFeXML builds the nfeProc document of an authorized NF-e or NFC-e.
func NFeXML(inv Invoice, key string, auth Authorization) ([]byte, error) {
	model := "55"
	if inv.Kind == NFCe {
		model = "65"
	}
	doc := nfeProc{Versao: "4.00"}
	in := &doc.NFe.Inf
	in.ID, in.Versao = "NFe"+key, "4.00"
	in.Ide = ide{CUF: key[:2], CNF: inv.Code, NatOp: "Venda de mercadoria", Mod: model, Serie: inv.Series, NNF: inv.Number,
		DhEmi: dh(inv.Issued), TpNF: inv.TipoDocumento, IDDest: inv.LocalDestino, CMunFG: inv.Emitter.CityIBGE, TpImp: "1",
		TpEmis: "1", CDV: key[43:], TpAmb: Environment, FinNFe: inv.Finalidade, IndFinal: inv.ConsumidorFinal,
		IndPres: inv.Presenca, ProcEmi: "0", VerProc: "fincom"}
	if inv.Kind == NFCe {
		in.Ide.TpImp = "4"
	}
	if inv.TipoDocumento == "0" {
		in.Ide.NatOp = "Devolução de mercadoria"
	}
	in.Emit = emit{CNPJ: inv.Emitter.Register, XNome: inv.Emitter.Name, Ender: party(inv.Emitter), IE: "ISENTO", CRT: "1"}
	in.Dest = dest{XNome: inv.Recipient.Name, IndIEDest: "9", Email: inv.Recipient.Email}
	if len(inv.Recipient.Register) == 11 {
		in.Dest.CPF = inv.Recipient.Register
	} else {
		in.Dest.CNPJ = inv.Recipient.Register
	}
	if inv.Kind == NFe {
		e := party(inv.Recipient)
		in.Dest.Ender = &e
	}
	var products decimal.Decimal
	for _, it := range inv.Items {
		products = products.Add(it.Total)
	}
	for i, it := range inv.Items {
		d := det{NItem: i + 1, Prod: prod{CProd: it.Code, CEAN: "SEM GTIN", XProd: it.Description, NCM: it.NCM, CFOP: it.CFOP,
			UCom: it.Unit, QCom: it.Quantity.StringFixed(4), VUnCom: it.UnitValue.StringFixed(10), VProd: money(it.Total),
			CEANTrib: "SEM GTIN", UTrib: it.Unit, QTrib: it.Quantity.StringFixed(4), VUnTrib: it.UnitValue.StringFixed(10), IndTot: "1"}}
		if inv.Freight.IsPositive() && products.IsPositive() {
			// Freight is apportioned over the items by value.
			d.Prod.VFrete = money(inv.Freight.Mul(it.Total).Div(products).Round(2))
		}
		d.Imposto.ICMS.SN102.Orig, d.Imposto.ICMS.SN102.CSOSN = "0", "102"
		d.Imposto.PIS.Outr.CST, d.Imposto.PIS.Outr.VBC, d.Imposto.PIS.Outr.PPIS, d.Imposto.PIS.Outr.VPIS = "49", "0.00", "0.0000", "0.00"
		d.Imposto.COFINS.Outr.CST, d.Imposto.COFINS.Outr.VBC, d.Imposto.COFINS.Outr.PCOFINS, d.Imposto.COFINS.Outr.VCOFINS = "49", "0.00", "0.0000", "0.00"
		in.Det = append(in.Det, d)
	}
	t := &in.Total.ICMSTot
	zero := "0.00"
	t.VBC, t.VICMS, t.VBCST, t.VST, t.VSeg, t.VDesc, t.VII, t.VIPI, t.VPIS, t.VCOFINS, t.VOutro = zero, zero, zero, zero, zero, zero, zero, zero, zero, zero, zero
	t.VProd, t.VFrete, t.VNF = money(products), money(inv.Freight), money(products.Add(inv.Freight))
	in.Transp.ModFrete = inv.FreightMode
	in.Pag.DetPag.TPag = tPag[inv.PaymentKey]
	if in.Pag.DetPag.TPag == "" {
		in.Pag.DetPag.TPag = "99"
	}
	in.Pag.DetPag.VPag = t.VNF
	in.InfAdc = &infAdc{InfCpl: "Documento emitido em ambiente de homologação pelo fincom: sem valor fiscal."}
	if inv.Kind == NFCe {
		doc.NFe.Supl = &nfeSupl{QRCode: ConsumerQR(key), URLChav: "https://nfce.fincom.invalid/consulta"}
	}
	p := &doc.Prot
	p.Versao = "4.00"
	p.Inf.TpAmb, p.Inf.VerAplic, p.Inf.ChNFe, p.Inf.DhRecbto = Environment, "fincom-sim", key, dh(auth.At)
	p.Inf.NProt, p.Inf.CStat, p.Inf.XMotivo = auth.Protocol, auth.Status, auth.Message
	return marshal(doc)
}

func marshal(v any) ([]byte, error) {
	b, err := xml.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), b...), nil
}

// The national NFS-e layout (Sistema Nacional NFS-e, version 1.00).
type nfseNac struct {
	XMLName xml.Name `xml:"http://www.sped.fazenda.gov.br/nfse NFSe"`
	Versao  string   `xml:"versao,attr"`
	Inf     struct {
		ID            string `xml:"Id,attr"`
		XLocEmi       string `xml:"xLocEmi"`
		XLocPrestacao string `xml:"xLocPrestacao"`
		NNFSe         int    `xml:"nNFSe"`
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
			CNPJ  string `xml:"CNPJ,omitempty"`
			CPF   string `xml:"CPF,omitempty"`
			IM    string `xml:"IM,omitempty"`
			XNome string `xml:"xNome"`
		} `xml:"emit"`
		Valores struct {
			VBC        string `xml:"vBC"`
			PAliqAplic string `xml:"pAliqAplic"`
			VISSQN     string `xml:"vISSQN"`
			VTotalRet  string `xml:"vTotalRet"`
			VLiq       string `xml:"vLiq"`
		} `xml:"valores"`
		DPS struct {
			Versao string `xml:"versao,attr"`
			Inf    struct {
				ID      string `xml:"Id,attr"`
				TpAmb   int    `xml:"tpAmb"`
				DhEmi   string `xml:"dhEmi"`
				Serie   int    `xml:"serie"`
				NDPS    int    `xml:"nDPS"`
				DCompet string `xml:"dCompet"`
				TpEmit  int    `xml:"tpEmit"`
				CLocEmi string `xml:"cLocEmi"`
				Prest   struct {
					CNPJ string `xml:"CNPJ"`
				} `xml:"prest"`
				Toma struct {
					CNPJ  string `xml:"CNPJ,omitempty"`
					CPF   string `xml:"CPF,omitempty"`
					XNome string `xml:"xNome"`
				} `xml:"toma"`
				Serv struct {
					CLocPrestacao string `xml:"locPrest>cLocPrestacao"`
					CTribNac      string `xml:"cServ>cTribNac"`
					XDescServ     string `xml:"cServ>xDescServ"`
				} `xml:"serv"`
				VServ string `xml:"valores>vServPrest>vServ"`
			} `xml:"infDPS"`
		} `xml:"DPS"`
	} `xml:"infNFSe"`
}

// NationalXML builds the national NFS-e document.
func NationalXML(inv Invoice, key string, auth Authorization) ([]byte, error) {
	var d nfseNac
	d.Versao = "1.00"
	in := &d.Inf
	in.ID = "NFS" + key
	in.XLocEmi, in.XLocPrestacao, in.NNFSe = inv.Emitter.City, inv.Emitter.City, inv.Number
	in.CLocIncid, in.XLocIncid = inv.Emitter.CityIBGE, inv.Emitter.City
	in.XTribNac, in.VerAplic, in.AmbGer, in.TpEmis, in.ProcEmi, in.CStat = inv.Service.Description, "fincom-sim", Environment, 1, 1, 100
	in.DhProc, in.NDFSe = dh(auth.At), auth.Protocol
	if len(inv.Emitter.Register) == 11 {
		in.Emit.CPF = inv.Emitter.Register
	} else {
		in.Emit.CNPJ = inv.Emitter.Register
	}
	in.Emit.IM, in.Emit.XNome = inv.Emitter.IM, inv.Emitter.Name
	s := inv.Service
	base := s.Gross.Sub(s.Deductions)
	in.Valores.VBC, in.Valores.PAliqAplic, in.Valores.VISSQN = money(base), money(s.ISSRate), money(base.Mul(s.ISSRate).Div(decimal.NewFromInt(100)).Round(2))
	in.Valores.VTotalRet, in.Valores.VLiq = money(s.Retentions), money(s.Net)
	dps := &in.DPS
	dps.Versao = "1.00"
	dps.Inf.ID = "DPS" + inv.Emitter.CityIBGE + "2" + inv.Emitter.Register + pad(inv.Series, 5) + pad(inv.Number, 15)
	dps.Inf.TpAmb, dps.Inf.DhEmi, dps.Inf.Serie, dps.Inf.NDPS = Environment, dh(inv.Issued), inv.Series, inv.Number
	dps.Inf.DCompet, dps.Inf.TpEmit, dps.Inf.CLocEmi = inv.Issued.In(saoPaulo).Format(time.DateOnly), 1, inv.Emitter.CityIBGE
	dps.Inf.Prest.CNPJ = inv.Emitter.Register
	if len(inv.Recipient.Register) == 11 {
		dps.Inf.Toma.CPF = inv.Recipient.Register
	} else {
		dps.Inf.Toma.CNPJ = inv.Recipient.Register
	}
	dps.Inf.Toma.XNome = inv.Recipient.Name
	dps.Inf.Serv.CLocPrestacao, dps.Inf.Serv.CTribNac, dps.Inf.Serv.XDescServ = firstOf(s.Location, inv.Emitter.CityIBGE), s.Code, s.Description
	dps.Inf.VServ = money(s.Gross)
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

// MunicipalXML builds the municipal NFS-e document.
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
	return marshal(d)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
