package docread

import (
	"bytes"
	"encoding/xml"
	"strings"

	"github.com/shopspring/decimal"

	"fincom/server/brdoc"
	"fincom/store"
)

// The NF-e layout (national, version 4.00), the parts fincom reads.
type nfeDoc struct {
	XMLName xml.Name
	NFe     *struct {
		Inf nfeInf `xml:"infNFe"`
	} `xml:"NFe"`
	Inf  *nfeInf `xml:"infNFe"` // a bare NFe root
	Prot struct {
		Key string `xml:"infProt>chNFe"`
	} `xml:"protNFe"`
}

type nfeInf struct {
	ID  string `xml:"Id,attr"`
	Ide struct {
		Model  string `xml:"mod"`
		Number string `xml:"nNF"`
		DhEmi  string `xml:"dhEmi"`
		DEmi   string `xml:"dEmi"`
	} `xml:"ide"`
	Emit struct {
		CNPJ  string `xml:"CNPJ"`
		CPF   string `xml:"CPF"`
		Name  string `xml:"xNome"`
		Fancy string `xml:"xFant"`
	} `xml:"emit"`
	Dest struct {
		CNPJ string `xml:"CNPJ"`
		CPF  string `xml:"CPF"`
	} `xml:"dest"`
	Det []struct {
		Tax  string `xml:"imposto>vTotTrib"`
		Prod struct {
			Code        string `xml:"cProd"`
			Description string `xml:"xProd"`
			NCM         string `xml:"NCM"`
			CFOP        string `xml:"CFOP"`
			Unit        string `xml:"uCom"`
			Quantity    string `xml:"qCom"`
			UnitValue   string `xml:"vUnCom"`
			Total       string `xml:"vProd"`
		} `xml:"prod"`
	} `xml:"det"`
	ICMSTot struct {
		VNF     string `xml:"vNF"`
		VICMS   string `xml:"vICMS"`
		VST     string `xml:"vST"`
		VIPI    string `xml:"vIPI"`
		VPIS    string `xml:"vPIS"`
		VCOFINS string `xml:"vCOFINS"`
		VFrete  string `xml:"vFrete"`
		VProd   string `xml:"vProd"`
	} `xml:"total>ICMSTot"`
	Dup []struct {
		Due   string `xml:"dVenc"`
		Value string `xml:"vDup"`
	} `xml:"cobr>dup"`
}

// The national NFS-e layout (Sistema Nacional NFS-e).
type nfseDoc struct {
	Inf struct {
		ID     string `xml:"Id,attr"`
		Number string `xml:"nNFSe"`
		DhProc string `xml:"dhProc"`
		Emit   struct {
			CNPJ string `xml:"CNPJ"`
			CPF  string `xml:"CPF"`
			Name string `xml:"xNome"`
		} `xml:"emit"`
		Net string `xml:"valores>vLiq"`
		DPS struct {
			DhEmi   string `xml:"dhEmi"`
			Compet  string `xml:"dCompet"`
			Desc    string `xml:"serv>cServ>xDescServ"`
			Service string `xml:"valores>vServPrest>vServ"`
		} `xml:"DPS>infDPS"`
	} `xml:"infNFSe"`
}

// The ABRASF NFS-e layout that most municipalities use.
type abrasfDoc struct {
	Inf struct {
		Number    string `xml:"Numero"`
		Issued    string `xml:"DataEmissao"`
		Net       string `xml:"ValoresNfse>ValorLiquidoNfse"`
		CNPJ      string `xml:"PrestadorServico>IdentificacaoPrestador>CpfCnpj>Cnpj"`
		CNPJ2     string `xml:"PrestadorServico>IdentificacaoPrestador>Cnpj"`
		Name      string `xml:"PrestadorServico>RazaoSocial"`
		Service   string `xml:"DeclaracaoPrestacaoServico>InfDeclaracaoPrestacaoServico>Servico>Valores>ValorServicos"`
		Desc      string `xml:"DeclaracaoPrestacaoServico>InfDeclaracaoPrestacaoServico>Servico>Discriminacao"`
		Compet    string `xml:"DeclaracaoPrestacaoServico>InfDeclaracaoPrestacaoServico>Competencia"`
		OldServ   string `xml:"Servico>Valores>ValorServicos"`
		OldDesc   string `xml:"Servico>Discriminacao"`
		OldCompet string `xml:"Competencia"`
	} `xml:"Nfse>InfNfse"`
}

// rootName returns the local name of the document's first element. The
// decoder is strict and knows no entities beyond XML's five, so a document
// that declares others (the "billion laughs" or external entities) is
// unreadable rather than expanded.
func rootName(data []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err != nil {
			return "", ErrUnreadable
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t.Name.Local, nil
		case xml.Directive:
			if bytes.Contains(bytes.ToUpper(t), []byte("ENTITY")) {
				return "", ErrUnreadable
			}
		}
	}
}

func money(s string) string {
	d, err := decimal.NewFromString(strings.TrimSpace(s))
	// An amount no firm could keep (store.MaxMoney) is not read: the field
	// stays empty, as an unreadable one does.
	if err != nil || d.IsNegative() || !store.InMoneyRange(d) {
		return ""
	}
	return d.StringFixed(2)
}

// ReadXML reads an NF-e, NFC-e or NFS-e (national or ABRASF) document.
func ReadXML(data []byte) (Result, error) {
	root, err := rootName(data)
	if err != nil {
		return Result{}, err
	}
	r := Result{Fields: map[string]Field{}, Items: []Item{}}
	switch root {
	case "nfeProc", "NFe":
		var doc nfeDoc
		if err := xml.Unmarshal(data, &doc); err != nil {
			return Result{}, ErrUnreadable
		}
		inf := doc.Inf
		if doc.NFe != nil {
			inf = &doc.NFe.Inf
		}
		if inf == nil {
			return Result{}, ErrUnreadable
		}
		r.Kind = "nfe"
		if inf.Ide.Model == "65" {
			r.Kind = "nfce"
		}
		key := strings.TrimPrefix(inf.ID, "NFe")
		if !brdoc.ValidAccessKey(key) {
			key = doc.Prot.Key
		}
		if brdoc.ValidAccessKey(key) {
			r.set("access_key", key, 1)
		}
		r.set("supplier_register", firstNonEmpty(inf.Emit.CNPJ, inf.Emit.CPF), 1)
		r.set("supplier_name", inf.Emit.Name, 1)
		r.set("document_number", inf.Ide.Number, 1)
		issued := dateOf(firstNonEmpty(inf.Ide.DhEmi, inf.Ide.DEmi))
		r.set("issue_date", issued, 1)
		r.set("competence_date", issued, 1)
		r.set("value", money(inf.ICMSTot.VNF), 1)
		r.set("recipient_register", firstNonEmpty(inf.Dest.CNPJ, inf.Dest.CPF), 1)
		r.set("freight_value", money(inf.ICMSTot.VFrete), 1)
		r.set("items_total", money(inf.ICMSTot.VProd), 1)
		tax := decimal.Zero
		for _, v := range []string{inf.ICMSTot.VICMS, inf.ICMSTot.VST, inf.ICMSTot.VIPI, inf.ICMSTot.VPIS, inf.ICMSTot.VCOFINS} {
			if d, err := decimal.NewFromString(strings.TrimSpace(v)); err == nil {
				tax = tax.Add(d)
			}
		}
		r.set("total_tax", tax.StringFixed(2), 1)
		if len(inf.Dup) > 0 {
			r.set("due_date", dateOf(inf.Dup[0].Due), 1)
		}
		if inf.Ide.Number != "" {
			r.set("description", "NF-e "+inf.Ide.Number+" - "+firstNonEmpty(inf.Emit.Fancy, inf.Emit.Name), 0.8)
		}
		for _, d := range inf.Det {
			p := d.Prod
			r.Items = append(r.Items, Item{Code: p.Code, Description: p.Description, NCM: p.NCM, CFOP: p.CFOP, Unit: p.Unit,
				Quantity: p.Quantity, UnitValue: p.UnitValue, Total: money(p.Total), Tax: money(d.Tax)})
		}
	case "NFSe":
		var doc nfseDoc
		if err := xml.Unmarshal(data, &doc); err != nil {
			return Result{}, ErrUnreadable
		}
		in := doc.Inf
		r.Kind = "nfse"
		if key := strings.TrimPrefix(in.ID, "NFS"); len(key) == 50 {
			r.set("access_key", key, 1)
		}
		r.set("supplier_register", firstNonEmpty(in.Emit.CNPJ, in.Emit.CPF), 1)
		r.set("supplier_name", in.Emit.Name, 1)
		r.set("document_number", in.Number, 1)
		r.set("issue_date", dateOf(firstNonEmpty(in.DPS.DhEmi, in.DhProc)), 1)
		r.set("competence_date", dateOf(in.DPS.Compet), 1)
		r.set("value", money(firstNonEmpty(in.Net, in.DPS.Service)), 1)
		r.set("description", strings.TrimSpace(in.DPS.Desc), 0.8)
	case "CompNfse", "Nfse", "ConsultarNfseResposta", "ListaNfse":
		var doc abrasfDoc
		wrapped := data
		if root == "Nfse" {
			wrapped = append(append([]byte("<CompNfse>"), stripDecl(data)...), []byte("</CompNfse>")...)
		}
		if err := xml.Unmarshal(wrapped, &doc); err != nil {
			return Result{}, ErrUnreadable
		}
		in := doc.Inf
		r.Kind = "nfse_abrasf"
		r.set("supplier_register", firstNonEmpty(in.CNPJ, in.CNPJ2), 1)
		r.set("supplier_name", in.Name, 1)
		r.set("document_number", in.Number, 1)
		r.set("issue_date", dateOf(in.Issued), 1)
		r.set("competence_date", dateOf(firstNonEmpty(in.Compet, in.OldCompet)), 1)
		r.set("value", money(firstNonEmpty(in.Net, in.Service, in.OldServ)), 1)
		r.set("description", strings.TrimSpace(firstNonEmpty(in.Desc, in.OldDesc)), 0.8)
	default:
		return Result{}, ErrUnreadable
	}
	if len(r.Fields) == 0 {
		return Result{}, ErrUnreadable
	}
	return r, nil
}

func stripDecl(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if bytes.HasPrefix(b, []byte("<?xml")) {
		if i := bytes.Index(b, []byte("?>")); i >= 0 {
			return b[i+2:]
		}
	}
	return b
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}
