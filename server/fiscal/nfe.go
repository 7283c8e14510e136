package fiscal

import (
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/fiscal/reform"
)

// The NF-e and NFC-e layout 4.00 (schemas/nfe-4.00/leiauteNFe_v4.00.xsd),
// in the schema's element names and order. Optional elements fincom never
// fills are left out.

const nfeNS = "http://www.portalfiscal.inf.br/nfe"

// NFeDoc is the document an issuer signs and sends: infNFe, the NFC-e's
// infNFeSupl, then the Signature (added by Sign).
type NFeDoc struct {
	XMLName xml.Name `xml:"http://www.portalfiscal.inf.br/nfe NFe"`
	Inf     InfNFe   `xml:"infNFe"`
	Supl    *NFeSupl `xml:"infNFeSupl,omitempty"`
}

// NFeSupl is the NFC-e's consumer QR code and the URL to look it up.
type NFeSupl struct {
	QRCode   string `xml:"qrCode"`
	URLChave string `xml:"urlChave"`
}

// InfNFe is the signed part of an NF-e.
type InfNFe struct {
	Versao  string  `xml:"versao,attr"`
	ID      string  `xml:"Id,attr"`
	Ide     Ide     `xml:"ide"`
	Emit    Emit    `xml:"emit"`
	Dest    *Dest   `xml:"dest,omitempty"`
	Det     []Det   `xml:"det"`
	Total   Total   `xml:"total"`
	Transp  Transp  `xml:"transp"`
	Pag     Pag     `xml:"pag"`
	InfAdic *InfAdc `xml:"infAdic,omitempty"`
}

// Ide identifies the document.
type Ide struct {
	CUF         string `xml:"cUF"`
	CNF         string `xml:"cNF"`
	NatOp       string `xml:"natOp"`
	Mod         string `xml:"mod"`
	Serie       int    `xml:"serie"`
	NNF         int    `xml:"nNF"`
	DhEmi       string `xml:"dhEmi"`
	TpNF        string `xml:"tpNF"`
	IDDest      int    `xml:"idDest"`
	CMunFG      string `xml:"cMunFG"`
	TpImp       string `xml:"tpImp"`
	TpEmis      string `xml:"tpEmis"`
	CDV         string `xml:"cDV"`
	TpAmb       int    `xml:"tpAmb"`
	FinNFe      string `xml:"finNFe"`
	IndFinal    string `xml:"indFinal"`
	IndPres     string `xml:"indPres"`
	IndIntermed string `xml:"indIntermed,omitempty"`
	ProcEmi     string `xml:"procEmi"`
	VerProc     string `xml:"verProc"`
	DhCont      string `xml:"dhCont,omitempty"`
	XJust       string `xml:"xJust,omitempty"`
}

// Ender is an address (TEnderEmi and TEndereco share their first fields).
type Ender struct {
	XLgr    string `xml:"xLgr"`
	Nro     string `xml:"nro"`
	XCpl    string `xml:"xCpl,omitempty"`
	XBairro string `xml:"xBairro"`
	CMun    string `xml:"cMun"`
	XMun    string `xml:"xMun"`
	UF      string `xml:"UF"`
	CEP     string `xml:"CEP,omitempty"`
	CPais   string `xml:"cPais,omitempty"`
	XPais   string `xml:"xPais,omitempty"`
	Fone    string `xml:"fone,omitempty"`
}

// Emit is the issuer.
type Emit struct {
	CNPJ  string `xml:"CNPJ"`
	XNome string `xml:"xNome"`
	Ender Ender  `xml:"enderEmit"`
	IE    string `xml:"IE"`
	IM    string `xml:"IM,omitempty"`
	CNAE  string `xml:"CNAE,omitempty"`
	CRT   int    `xml:"CRT"`
}

// Dest is the recipient.
type Dest struct {
	CNPJ      string `xml:"CNPJ,omitempty"`
	CPF       string `xml:"CPF,omitempty"`
	XNome     string `xml:"xNome,omitempty"`
	Ender     *Ender `xml:"enderDest,omitempty"`
	IndIEDest string `xml:"indIEDest"`
	IE        string `xml:"IE,omitempty"`
	Email     string `xml:"email,omitempty"`
}

// Det is one item.
type Det struct {
	NItem   int     `xml:"nItem,attr"`
	Prod    Prod    `xml:"prod"`
	Imposto Imposto `xml:"imposto"`
}

// Prod is an item's product.
type Prod struct {
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

// Imposto is an item's taxes: ICMS by the issuer's regime, PIS, COFINS,
// and IBS and CBS when its issuer states them.
type Imposto struct {
	ICMS   ICMS    `xml:"ICMS"`
	PIS    PIS     `xml:"PIS"`
	COFINS COFINS  `xml:"COFINS"`
	IBSCBS *IBSCBS `xml:"IBSCBS,omitempty"`
}

// ICMS holds one of its groups: CSOSN 102 under the Simples Nacional,
// CST 00 under the normal regime, CST 41 on an export.
type ICMS struct {
	ICMS00    *ICMS00    `xml:"ICMS00,omitempty"`
	ICMS40    *ICMS40    `xml:"ICMS40,omitempty"`
	ICMSSN102 *ICMSSN102 `xml:"ICMSSN102,omitempty"`
}

// ICMS00 is ICMS charged in full.
type ICMS00 struct {
	Orig  string `xml:"orig"`
	CST   string `xml:"CST"`
	ModBC string `xml:"modBC"`
	VBC   string `xml:"vBC"`
	PICMS string `xml:"pICMS"`
	VICMS string `xml:"vICMS"`
}

// ICMS40 is ICMS not charged (CST 41 on an export).
type ICMS40 struct {
	Orig string `xml:"orig"`
	CST  string `xml:"CST"`
}

// ICMSSN102 is the Simples Nacional's ICMS without credit.
type ICMSSN102 struct {
	Orig  string `xml:"orig"`
	CSOSN string `xml:"CSOSN"`
}

// PIS holds its group: a rate (CST 01) or other operations (CST 49).
type PIS struct {
	Aliq *PISAliq `xml:"PISAliq,omitempty"`
	Outr *PISOutr `xml:"PISOutr,omitempty"`
}

// PISAliq is PIS at a rate.
type PISAliq struct {
	CST  string `xml:"CST"`
	VBC  string `xml:"vBC"`
	PPIS string `xml:"pPIS"`
	VPIS string `xml:"vPIS"`
}

// PISOutr is PIS on other operations.
type PISOutr struct {
	CST  string `xml:"CST"`
	VBC  string `xml:"vBC"`
	PPIS string `xml:"pPIS"`
	VPIS string `xml:"vPIS"`
}

// COFINS holds its group, as PIS.
type COFINS struct {
	Aliq *COFINSAliq `xml:"COFINSAliq,omitempty"`
	Outr *COFINSOutr `xml:"COFINSOutr,omitempty"`
}

// COFINSAliq is COFINS at a rate.
type COFINSAliq struct {
	CST     string `xml:"CST"`
	VBC     string `xml:"vBC"`
	PCOFINS string `xml:"pCOFINS"`
	VCOFINS string `xml:"vCOFINS"`
}

// COFINSOutr is COFINS on other operations.
type COFINSOutr struct {
	CST     string `xml:"CST"`
	VBC     string `xml:"vBC"`
	PCOFINS string `xml:"pCOFINS"`
	VCOFINS string `xml:"vCOFINS"`
}

// Total is the document's totals, every field ICMSTot requires.
type Total struct {
	ICMSTot struct {
		VBC        string `xml:"vBC"`
		VICMS      string `xml:"vICMS"`
		VICMSDeson string `xml:"vICMSDeson"`
		VFCP       string `xml:"vFCP"`
		VBCST      string `xml:"vBCST"`
		VST        string `xml:"vST"`
		VFCPST     string `xml:"vFCPST"`
		VFCPSTRet  string `xml:"vFCPSTRet"`
		VProd      string `xml:"vProd"`
		VFrete     string `xml:"vFrete"`
		VSeg       string `xml:"vSeg"`
		VDesc      string `xml:"vDesc"`
		VII        string `xml:"vII"`
		VIPI       string `xml:"vIPI"`
		VIPIDevol  string `xml:"vIPIDevol"`
		VPIS       string `xml:"vPIS"`
		VCOFINS    string `xml:"vCOFINS"`
		VOutro     string `xml:"vOutro"`
		VNF        string `xml:"vNF"`
	} `xml:"ICMSTot"`
	IBSCBSTot *IBSCBSTot `xml:"IBSCBSTot,omitempty"`
}

// Transp is the freight mode.
type Transp struct {
	ModFrete int `xml:"modFrete"`
}

// Pag is how the buyer pays.
type Pag struct {
	DetPag []DetPag `xml:"detPag"`
}

// DetPag is one means of payment.
type DetPag struct {
	TPag string `xml:"tPag"`
	XPag string `xml:"xPag,omitempty"`
	VPag string `xml:"vPag"`
}

// InfAdc is the additional information.
type InfAdc struct {
	InfCpl string `xml:"infCpl"`
}

// NFeProc is an authorized NF-e: the signed document and the authority's
// protocol.
type NFeProc struct {
	XMLName xml.Name `xml:"http://www.portalfiscal.inf.br/nfe nfeProc"`
	Versao  string   `xml:"versao,attr"`
	NFe     struct {
		Inf  InfNFe   `xml:"infNFe"`
		Supl *NFeSupl `xml:"infNFeSupl"`
	} `xml:"NFe"`
	Prot ProtNFe `xml:"protNFe"`
}

// ProtNFe is the authority's protocol of an NF-e.
type ProtNFe struct {
	XMLName xml.Name `xml:"protNFe"`
	Versao  string   `xml:"versao,attr"`
	Inf     struct {
		TpAmb    int    `xml:"tpAmb"`
		VerAplic string `xml:"verAplic"`
		ChNFe    string `xml:"chNFe"`
		DhRecbto string `xml:"dhRecbto"`
		NProt    string `xml:"nProt"`
		DigVal   string `xml:"digVal,omitempty"`
		CStat    int    `xml:"cStat"`
		XMotivo  string `xml:"xMotivo"`
	} `xml:"infProt"`
}

// ReadNFeProc reads an authorized NF-e or NFC-e (the DANFE is drawn from
// it).
// A note issued offline and not yet authorized (an NFe without the
// authority's protNFe) is read too, its Prot empty.
func ReadNFeProc(doc []byte) (NFeProc, error) {
	var p NFeProc
	if !bytes.Contains(doc, []byte("<nfeProc")) {
		doc = Proc(doc, nil)
	}
	err := xml.Unmarshal(doc, &p)
	return p, err
}

// OfflineReason is the justification (xJust) of an NFC-e issued offline.
const OfflineReason = "Sem comunicação com a SEFAZ: NFC-e emitida em contingência off-line pelo fincom"

// OfflineQR gives a signed NFC-e issued offline (tpEmis 9) its QR code,
// version 2 for off-line issue (NT 2015.002 v1.50): the state's QR code
// URL of the environment, then p=key|2|tpAmb|day of issue|vNF|the note's
// DigestValue (its base64 text) in hex|CSC id|SHA-1 of those followed by
// the CSC, in capital hex. It goes in infNFeSupl, outside the signed infNFe, so it is
// written once the note is signed.
func OfflineQR(signed []byte, inv Invoice, key string) ([]byte, error) {
	digest := digestValue(signed)
	if len(digest) != 28 {
		return nil, fmt.Errorf("offline QR code: the note has no SHA-1 digest")
	}
	id := strings.TrimLeft(inv.Profile.CSCID, "0")
	if id == "" {
		id = "0"
	}
	var vnf struct {
		V string `xml:"NFe>infNFe>total>ICMSTot>vNF"`
	}
	if err := xml.Unmarshal(Proc(signed, nil), &vnf); err != nil || vnf.V == "" {
		return nil, fmt.Errorf("offline QR code: the note has no vNF")
	}
	params := key + "|2|" + strconv.Itoa(inv.tpAmb()) + "|" + inv.Issued.In(saoPaulo).Format("02") + "|" + vnf.V + "|" +
		strings.ToUpper(hex.EncodeToString([]byte(digest))) + "|" + id
	sum := sha1.Sum([]byte(params + inv.Profile.CSC))
	qr := QRCodeURL(inv.Emitter.State, inv.Production) + "?p=" + params + "|" + strings.ToUpper(hex.EncodeToString(sum[:]))
	start, end := bytes.Index(signed, []byte("<qrCode>")), bytes.Index(signed, []byte("</qrCode>"))
	if start < 0 || end < start {
		return nil, fmt.Errorf("offline QR code: the note has no qrCode")
	}
	var b bytes.Buffer
	b.Write(signed[:start+len("<qrCode>")])
	xml.EscapeText(&b, []byte(qr))
	b.Write(signed[end:])
	return b.Bytes(), nil
}

// PaymentNames are the DANFE's names of the NF-e's means of payment.
var PaymentNames = map[string]string{"01": "Dinheiro", "03": "Cartão de Crédito", "04": "Cartão de Débito", "15": "Boleto Bancário",
	"17": "Pagamento Instantâneo (PIX) – Dinâmico", "18": "Transferência bancária", "20": "Pagamento Instantâneo (PIX) – Estático",
	"90": "Sem pagamento", "99": "Outros"}

// tPag is the NF-e payment means of a payment key (NT 2023.004): a PIX
// paid by a static BR Code (the order's key) is 20; one the unit's PSP
// charges with a dynamic code (PIX_DINAMICO), and the recurrences of Pix
// Automático, 17.
var tPag = map[string]string{
	"CASH": "01", "CREDIT_CARD": "03", "DEBIT_CARD": "04", "BOLETO": "15", "TRANSFER": "18", "PIX": "20", "PIX_AUTOMATICO": "17",
	"PIX_DINAMICO": "17",
}

// In the test environment the authorities require these texts where the
// recipient's name and, on an NFC-e, the first item's description go
// (SEFAZ's rejections 598 and 373): no one mistakes the document for a
// sale.
const (
	HomologacaoDest = "NF-E EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL"
	HomologacaoItem = "NOTA FISCAL EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL"
)

var saoPaulo = func() *time.Location {
	l, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		return time.FixedZone("-03", -3*3600)
	}
	return l
}()

func dh(t time.Time) string { return t.In(saoPaulo).Format("2006-01-02T15:04:05-07:00") }

func money(d decimal.Decimal) string { return d.StringFixed(2) }

func rate(d decimal.Decimal) string { return d.StringFixed(4) }

// clip cuts a text to the schema's maximum length, in characters.
func clip(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}

// interstateRate is the ICMS rate between states (Resolução do Senado
// 22/1989): 7% from the South and Southeast (but Espírito Santo) to the
// North, Northeast, Center-West and Espírito Santo, 12% otherwise.
func interstateRate(from, to string) decimal.Decimal {
	south := map[string]bool{"SP": true, "RJ": true, "MG": true, "PR": true, "SC": true, "RS": true}
	if south[from] && !south[to] {
		return decimal.NewFromInt(7)
	}
	return decimal.NewFromInt(12)
}

// BuildNFe builds the NF-e or NFC-e to sign (Sign, with Id "NFe"+key).
func BuildNFe(inv Invoice, key string) ([]byte, error) {
	model := "55"
	if inv.Kind == NFCe {
		model = "65"
	}
	doc := NFeDoc{}
	in := &doc.Inf
	in.ID, in.Versao = "NFe"+key, "4.00"
	in.Ide = Ide{CUF: key[:2], CNF: inv.Code, NatOp: "Venda de mercadoria", Mod: model, Serie: inv.Series, NNF: inv.Number,
		DhEmi: dh(inv.Issued), TpNF: inv.TipoDocumento, IDDest: inv.LocalDestino, CMunFG: inv.Emitter.CityIBGE, TpImp: "1",
		TpEmis: strconv.Itoa(inv.tpEmis()), CDV: key[43:], TpAmb: inv.tpAmb(), FinNFe: inv.Finalidade, IndFinal: inv.ConsumidorFinal,
		IndPres: inv.Presenca, ProcEmi: "0", VerProc: "fincom"}
	if c := inv.Contingency; c != nil {
		in.Ide.DhCont, in.Ide.XJust = dh(c.Since), clip(c.Reason, 256)
	}
	switch inv.Presenca {
	case "2", "3", "4", "9":
		// A sale not in person says whether a marketplace took it.
		in.Ide.IndIntermed = "0"
	}
	if inv.Kind == NFCe {
		in.Ide.TpImp = "4"
	}
	switch {
	case inv.TipoDocumento == "0":
		in.Ide.NatOp = "Devolução de mercadoria"
	case inv.Finalidade == "4":
		in.Ide.NatOp = "Devolução de mercadoria"
	}
	e := inv.Emitter
	in.Emit = Emit{CNPJ: e.Register, XNome: clip(e.Name, 60), IE: e.IE, CRT: inv.Profile.CRT,
		Ender: Ender{XLgr: clip(e.Address, 60), Nro: clip(e.Number, 60), XCpl: clip(e.Complement, 60), XBairro: clip(e.Neighborhood, 60),
			CMun: e.CityIBGE, XMun: e.City, UF: e.State, CEP: e.Zip, CPais: "1058", XPais: "Brasil", Fone: phone(e.Phone)}}
	if e.IM != "" {
		in.Emit.IM, in.Emit.CNAE = clip(e.IM, 15), e.CNAE
	}
	r := inv.Recipient
	dest := &Dest{XNome: clip(r.Name, 60), IndIEDest: r.IndIEDest(inv.Kind), Email: clip(r.Email, 60)}
	if dest.IndIEDest == "1" {
		// The schema's TIeDestNaoIsento is digits: São Paulo's rural
		// producers go without their P.
		dest.IE = strings.TrimPrefix(r.IE, "P")
	}
	if !inv.Production {
		dest.XNome = HomologacaoDest
	}
	if len(r.Register) == 11 {
		dest.CPF = r.Register
	} else {
		dest.CNPJ = r.Register
	}
	if inv.Kind == NFe {
		dest.Ender = &Ender{XLgr: clip(r.Address, 60), Nro: clip(r.Number, 60), XCpl: clip(r.Complement, 60), XBairro: clip(r.Neighborhood, 60),
			CMun: r.CityIBGE, XMun: r.City, UF: r.State, CEP: r.Zip, CPais: "1058", XPais: "Brasil", Fone: phone(r.Phone)}
	}
	if r.Register != "" {
		in.Dest = dest
	}
	var products, bcTotal, icmsTotal, pisTotal, cofinsTotal decimal.Decimal
	var sums reformSums
	var rates reform.Rates
	states := inv.statesReform()
	if states {
		var err error
		if rates, err = inv.reformRates(); err != nil {
			return nil, err
		}
	}
	for _, it := range inv.Items {
		products = products.Add(it.Total)
	}
	p := inv.Profile
	hundred := decimal.NewFromInt(100)
	for i, it := range inv.Items {
		desc := clip(it.Description, 120)
		if inv.Kind == NFCe && i == 0 && !inv.Production {
			desc = HomologacaoItem
		}
		gtin := cmp.Or(it.GTIN, "SEM GTIN")
		d := Det{NItem: i + 1, Prod: Prod{CProd: clip(it.Code, 60), CEAN: gtin, XProd: desc, NCM: it.NCM, CFOP: it.CFOP,
			UCom: clip(it.Unit, 6), QCom: it.Quantity.StringFixed(4), VUnCom: it.UnitValue.StringFixed(10), VProd: money(it.Total),
			CEANTrib: gtin, UTrib: clip(it.Unit, 6), QTrib: it.Quantity.StringFixed(4), VUnTrib: it.UnitValue.StringFixed(10), IndTot: "1"}}
		freight := decimal.Zero
		if inv.Freight.IsPositive() && products.IsPositive() {
			// Freight is apportioned over the items by value; the last
			// item takes the cents the rounding leaves.
			freight = inv.Freight.Mul(it.Total).Div(products).Round(2)
			if i == len(inv.Items)-1 {
				var given decimal.Decimal
				for _, prev := range in.Det {
					v, _ := decimal.NewFromString(prev.Prod.VFrete)
					given = given.Add(v)
				}
				freight = inv.Freight.Sub(given)
			}
			d.Prod.VFrete = money(freight)
		}
		base := it.Total.Add(freight)
		var icms, vp, vc decimal.Decimal
		switch {
		case p.simples():
			d.Imposto.ICMS.ICMSSN102 = &ICMSSN102{Orig: "0", CSOSN: "102"}
		case inv.LocalDestino == 3:
			d.Imposto.ICMS.ICMS40 = &ICMS40{Orig: "0", CST: "41"}
		default:
			r := p.ICMSRate
			if inv.LocalDestino == 2 {
				r = interstateRate(e.State, inv.Recipient.State)
			}
			icms = base.Mul(r).Div(hundred).Round(2)
			d.Imposto.ICMS.ICMS00 = &ICMS00{Orig: "0", CST: "00", ModBC: "3", VBC: money(base), PICMS: rate(r), VICMS: money(icms)}
			bcTotal, icmsTotal = bcTotal.Add(base), icmsTotal.Add(icms)
		}
		if p.simples() {
			d.Imposto.PIS.Outr = &PISOutr{CST: "49", VBC: "0.00", PPIS: "0.0000", VPIS: "0.00"}
			d.Imposto.COFINS.Outr = &COFINSOutr{CST: "49", VBC: "0.00", PCOFINS: "0.0000", VCOFINS: "0.00"}
		} else {
			vp, vc = it.Total.Mul(p.PISRate).Div(hundred).Round(2), it.Total.Mul(p.COFINSRate).Div(hundred).Round(2)
			d.Imposto.PIS.Aliq = &PISAliq{CST: "01", VBC: money(it.Total), PPIS: rate(p.PISRate), VPIS: money(vp)}
			d.Imposto.COFINS.Aliq = &COFINSAliq{CST: "01", VBC: money(it.Total), PCOFINS: rate(p.COFINSRate), VCOFINS: money(vc)}
			pisTotal, cofinsTotal = pisTotal.Add(vp), cofinsTotal.Add(vc)
		}
		if states {
			class, cst, ok := inv.Reform.Class(inv.itemClass(it))
			if !ok {
				return nil, fmt.Errorf("item %d: cClassTrib %s is not in fincom's table", i+1, inv.itemClass(it))
			}
			d.Imposto.IBSCBS = itemIBSCBS(class, cst, rates, base.Sub(icms).Sub(vp).Sub(vc), &sums)
		}
		in.Det = append(in.Det, d)
	}
	t := &in.Total.ICMSTot
	zero := "0.00"
	t.VBC, t.VICMS, t.VICMSDeson, t.VFCP, t.VBCST, t.VST, t.VFCPST, t.VFCPSTRet = money(bcTotal), money(icmsTotal), zero, zero, zero, zero, zero, zero
	t.VProd, t.VFrete, t.VSeg, t.VDesc, t.VII, t.VIPI, t.VIPIDevol = money(products), money(inv.Freight), zero, zero, zero, zero, zero
	t.VPIS, t.VCOFINS, t.VOutro, t.VNF = money(pisTotal), money(cofinsTotal), zero, money(products.Add(inv.Freight))
	if states {
		in.Total.IBSCBSTot = sums.total()
	}
	in.Transp.ModFrete = inv.FreightMode
	// The payment group states what the order's charges bill, which
	// Validate holds equal to the note's total when there are charges.
	dp := DetPag{TPag: tPag[inv.PaymentKey], VPag: t.VNF}
	if inv.Charged.IsPositive() {
		dp.VPag = money(inv.Charged)
	}
	if dp.TPag == "" {
		dp.TPag, dp.XPag = "99", "Outros"
	}
	if inv.Finalidade == "3" || inv.Finalidade == "4" {
		// An adjustment or a return moves no money (tPag 90).
		dp = DetPag{TPag: "90", VPag: "0.00"}
	}
	in.Pag.DetPag = []DetPag{dp}
	if !inv.Production {
		// Only a test note says it has no value (TestProductionNotes).
		in.InfAdic = &InfAdc{InfCpl: "Documento emitido em ambiente de homologação pelo fincom: sem valor fiscal."}
	}
	if inv.Kind == NFCe {
		doc.Supl = &NFeSupl{QRCode: ConsumerQR(key, e.State, p.CSCID, p.CSC, inv.Production), URLChave: ConsultaURL(e.State, inv.Production)}
	}
	return marshal(doc)
}

// phone keeps a phone's digits when the schema takes them (6 to 14).
func phone(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	if b.Len() < 6 || b.Len() > 14 {
		return ""
	}
	return b.String()
}

// ConsumerQR is the NFC-e's QR code, version 2 for on-line issue (NT
// 2015.002 v1.50): the state's QR code URL of the environment, then
// p=key|2|tpAmb|CSC id|SHA-1 of "key|2|tpAmb|CSC id" followed by the CSC,
// in capital hex.
func ConsumerQR(key, state, cscID, csc string, production bool) string {
	id := strings.TrimLeft(cscID, "0")
	if id == "" {
		id = "0"
	}
	tpAmb := Homologation
	if production {
		tpAmb = 1
	}
	params := key + "|2|" + strconv.Itoa(tpAmb) + "|" + id
	sum := sha1.Sum([]byte(params + csc))
	return QRCodeURL(state, production) + "?p=" + params + "|" + strings.ToUpper(hex.EncodeToString(sum[:]))
}

// Authorized wraps a signed NF-e and the authority's answer into the
// nfeProc the issuer keeps and sends to its customer.
func Authorized(signed []byte, key string, a Authorization) ([]byte, error) {
	var prot ProtNFe
	prot.Versao = "4.00"
	prot.Inf.TpAmb, prot.Inf.VerAplic, prot.Inf.ChNFe, prot.Inf.DhRecbto = Homologation, "fincom-sim", key, dh(a.At)
	prot.Inf.NProt, prot.Inf.CStat, prot.Inf.XMotivo, prot.Inf.DigVal = a.Protocol, a.Status, a.Message, digestValue(signed)
	p, err := xml.Marshal(prot)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<nfeProc xmlns="` + nfeNS + `" versao="4.00">`)
	b.Write(stripHeader(signed))
	b.Write(p)
	b.WriteString(`</nfeProc>`)
	return b.Bytes(), nil
}

// Proc is the nfeProc of a signed note and the protocol its authority
// answered (protNFe, kept as the authority wrote it): the note as the
// issuer keeps it and sends its customer.
func Proc(signed, protNFe []byte) []byte { return kept("nfeProc", "4.00", signed, protNFe) }

// kept is a document as its issuer keeps it: the signed document and the
// authority's answer in root.
func kept(root, version string, signed, answer []byte) []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<` + root + ` xmlns="` + nfeNS + `" versao="` + version + `">`)
	b.Write(stripHeader(signed))
	b.Write(stripHeader(answer))
	b.WriteString(`</` + root + `>`)
	return b.Bytes()
}

// ProcEvento is an event as its issuer keeps it (procEventoNFe): the
// signed event and the authority's retEvento.
func ProcEvento(signed, retEvento []byte) []byte {
	return kept("procEventoNFe", "1.00", signed, retEvento)
}

// digestValue is the DigestValue of a signed document (the protocol's
// digVal).
func digestValue(signed []byte) string {
	_, rest, ok := bytes.Cut(signed, []byte("<DigestValue>"))
	if !ok {
		return ""
	}
	v, _, _ := bytes.Cut(rest, []byte("</DigestValue>"))
	return string(v)
}

// stripHeader drops a document's XML declaration, to nest it.
func stripHeader(doc []byte) []byte {
	doc = bytes.TrimSpace(doc)
	if bytes.HasPrefix(doc, []byte("<?xml")) {
		if i := bytes.Index(doc, []byte("?>")); i >= 0 {
			doc = bytes.TrimSpace(doc[i+2:])
		}
	}
	return doc
}

func marshal(v any) ([]byte, error) {
	b, err := xml.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), b...), nil
}
