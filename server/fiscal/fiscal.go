// Package fiscal builds Brazilian fiscal invoices (NF-e, NFC-e, municipal
// NFS-e and national NFS-e) as the official schemas define them
// (schemas/, validated by package xsd), signs them with the issuer's
// certificate as the manuals require, and hands them to an Authority:
// SEFAZ (package sefaz) and the national NFS-e system (package nfsen) on
// a production server, Simulated in test mode and the demo, which checks
// what they check (schema, signature, the certificate's CNPJ,
// duplicates). A unit issues in homologação (tpAmb 2, no legal value)
// until its operator chooses production.
package fiscal

import (
	"crypto/sha256"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"fincom/server/brdoc"
	"fincom/server/fiscal/reform"
)

// Kinds of invoice.
const (
	NFe   = "nfe"   // model 55
	NFCe  = "nfce"  // model 65, consumer
	NFSe  = "nfse"  // municipal service invoice (ABRASF layout)
	NFSeN = "nfsen" // national service invoice (Sistema Nacional NFS-e)
)

// Contingency is a note issued while its state's authorizer is down:
// tpEmis 6 (SVC-AN) or 7 (SVC-RS), 4 (EPEC) for an NF-e, 9 (offline) for
// an NFC-e, since when, and why (15 to 256 characters).
type Contingency struct {
	TpEmis int
	Since  time.Time
	Reason string
}

// tpEmis is the note's emission type: 1 normal, or its contingency's.
func (inv Invoice) tpEmis() int {
	if inv.Contingency != nil {
		return inv.Contingency.TpEmis
	}
	return 1
}

// Homologation is tpAmb 2, homologação: documents for testing, without
// legal value; production is 1 (Invoice.Production).
const Homologation = 2

// tpAmb is the invoice's environment: 1 production, 2 homologação.
func (inv Invoice) tpAmb() int {
	if inv.Production {
		return 1
	}
	return Homologation
}

// Party is an issuer or a recipient.
type Party struct {
	Register     string // CNPJ (also alphanumeric) or CPF, cleaned
	Name         string
	IM           string
	Address      string
	Number       string
	Complement   string
	Neighborhood string
	CityIBGE     string
	City         string
	State        string
	Zip          string
	Phone        string
	Email        string
	IE           string // the state registration, or ISENTO
	CNAE         string
	// Contributor is a recipient's indIEDest as its contact says (1, 2 or
	// 9); empty is derived from IE (Party.IndIEDest).
	Contributor string
}

// IndIEDest is the NF-e's indicator of the recipient's state registration
// (NT 2011.004): 1 contributor of ICMS with its registration, 2 exempt
// from registration, 9 not a contributor. An NFC-e's recipient is always
// 9 (rule 791: it informs no registration).
func (p Party) IndIEDest(kind string) string {
	switch {
	case kind == NFCe:
		return "9"
	case p.Contributor != "":
		return p.Contributor
	case p.IE == brdoc.Exempt:
		return "2"
	case p.IE != "":
		return "1"
	}
	return "9"
}

// Tax regimes (CRT, the NF-e's code of the issuer's regime).
const (
	SimplesNacional       = 1
	SimplesExcessoReceita = 2
	RegimeNormal          = 3
	MEI                   = 4
)

// Profile is what an issuer's fiscal profile adds to its party: its tax
// regime, the rates of the normal regime and the NFC-e's CSC.
type Profile struct {
	CRT        int
	ICMSRate   decimal.Decimal // internal rate, percent (normal regime)
	PISRate    decimal.Decimal // percent (normal regime)
	COFINSRate decimal.Decimal // percent (normal regime)
	CSCID      string          // the CSC's id at the state (NFC-e)
	CSC        string          // the code of the NFC-e's QR code hash
}

// simples reports a regime whose ICMS is stated with a CSOSN (Simples
// Nacional and MEI); the others state a CST.
func (p Profile) simples() bool { return p.CRT == SimplesNacional || p.CRT == MEI }

// Item is one product line.
type Item struct {
	Code        string
	Description string
	NCM         string
	CFOP        string
	Unit        string
	Quantity    decimal.Decimal
	UnitValue   decimal.Decimal
	Total       decimal.Decimal
	// IBSCBSClass is the product's cClassTrib (its CST is the first three
	// digits); empty takes the default (Invoice.itemClass).
	IBSCBSClass string
	// GTIN is the product's bar code number, its cEAN and cEANTrib ("":
	// SEM GTIN).
	GTIN string
}

// Service is what a service invoice carries.
type Service struct {
	Code        string // municipal or national service code (service_cod)
	ID          string // service_id_token
	Description string
	Location    string // IBGE code of where the service is rendered
	Gross       decimal.Decimal
	Deductions  decimal.Decimal
	Base        decimal.Decimal
	ISSRate     decimal.Decimal
	ISSAmount   decimal.Decimal
	Retentions  decimal.Decimal
	Net         decimal.Decimal
	// Withheld itemizes Retentions: the national DPS states each federal
	// withholding, from which the national system derives its totals.
	Withheld Withholdings
	// IBSCBSClass and IBSCBSOperation are the service's cClassTrib (""
	// the default) and operation indicator (cIndOp), which a national
	// NFS-e of layout 1.01 states.
	IBSCBSClass, IBSCBSOperation string
}

// Withholdings are the taxes the customer withholds from a service's
// price (the order's ret_* fields): PIS and COFINS with their rates,
// CSLL, IRRF, the social security contribution (CP, the order's INSS) and
// any other.
type Withholdings struct {
	PIS, COFINS, CSLL, IRRF, CP, Other decimal.Decimal
	PISRate, COFINSRate                decimal.Decimal
}

// Sum is every withholding together.
func (w Withholdings) Sum() decimal.Decimal {
	return w.PIS.Add(w.COFINS).Add(w.CSLL).Add(w.IRRF).Add(w.CP).Add(w.Other)
}

// Invoice is a document to issue.
type Invoice struct {
	Kind string
	// Contingency, when set, issues an NF-e in contingency (SVC: tpEmis 6
	// or 7, with when it began and why).
	Contingency *Contingency
	// Production issues in the production environment (tpAmb 1): the
	// unit's choice (unit set --fiscal-environment producao).
	Production      bool
	Series, Number  int
	Issued          time.Time
	Emitter         Party
	Profile         Profile
	Recipient       Party
	Items           []Item
	Service         Service
	Total           decimal.Decimal // the order's value
	Freight         decimal.Decimal
	FreightMode     int
	TipoDocumento   string
	Finalidade      string
	Presenca        string
	ConsumidorFinal string
	LocalDestino    int
	PaymentKey      string
	// Charged is what the order's charges bill (zero without charges).
	Charged decimal.Decimal
	// Code is the random code of the key (cNF for NF-e, 8 digits; 9 for the
	// national NFS-e), derived from the order so that a retry gives the
	// same document.
	Code string
	// Replaces, on a national NFS-e, is the valid note it replaces (the
	// DPS's subst): the national system cancels that one itself.
	Replaces *Replacement
	// Reform is the tax reform's table: with it an issuer whose regime
	// states IBS and CBS on the invoice's day does (nil states none).
	Reform *reform.Table
}

// Replacement is the note a national NFS-e replaces, with why: Code one of
// TSCodJustSubst (01 to 05, 99 other), Reason 15 to 255 characters.
type Replacement struct {
	Key, Code, Reason string
}

// Problem is one reason an invoice cannot be issued.
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Validate lists every problem of the invoice's fiscal data, so the caller
// can fix them all at once.
func Validate(inv Invoice) []Problem {
	var ps []Problem
	add := func(field, msg string) { ps = append(ps, Problem{field, msg}) }
	if !brdoc.ValidCNPJ(inv.Emitter.Register) {
		add("unit.cnpj", "the issuing unit needs a valid CNPJ")
	}
	if _, ok := brdoc.LookupIBGE(inv.Emitter.CityIBGE); !ok {
		add("unit.city_ibge", "the issuing unit needs its city's IBGE code")
	}
	if inv.Kind != NFSe {
		validateProfile(inv, add)
	}
	if inv.Production && inv.Kind == NFSe {
		// fincom transmits NF-e and NFC-e to SEFAZ and national NFS-e to
		// the national system; the municipal systems are not connected.
		add("unit.fiscal_environment", "a municipal NFS-e is not issued in production; set the unit to homologacao, or issue national NFS-e (nf_kind nfsen)")
	}
	if rp := inv.Replaces; rp != nil {
		switch n := utf8.RuneCountInString(rp.Reason); {
		case inv.Kind != NFSeN:
			add("replaces", "only a national NFS-e is replaced by another")
		case !ValidNationalKey(rp.Key):
			add("replaces.key", "the note replaced needs its 50-digit key")
		case !slices.Contains([]string{"01", "02", "03", "04", "05", "99"}, rp.Code):
			add("reason_code", "the replacement's reason code is 01 to 05 or 99")
		case n < 15 || n > 255:
			add("reason", "the replacement's reason needs 15 to 255 characters")
		}
	}
	r := inv.Recipient
	if !brdoc.ValidCNPJ(r.Register) && !brdoc.ValidCPF(r.Register) {
		add("contact.register", "the customer needs a valid CPF or CNPJ")
	}
	needsAddress := inv.Kind == NFe || inv.Kind == NFSe || inv.Kind == NFSeN
	if needsAddress {
		if r.Address == "" || r.Number == "" {
			add("contact.address", "the customer's street and number are required")
		}
		if n := len([]rune(r.Neighborhood)); n < 2 {
			// The NF-e's and the NFS-e's xBairro: 2 to 60 characters.
			add("contact.neighborhood", "the customer's district (bairro) is required (2 to 60 characters)")
		}
		if _, ok := brdoc.LookupIBGE(r.CityIBGE); !ok {
			add("contact.city", "the customer's city (IBGE code) is required")
		}
		if len(r.Zip) != 8 {
			add("contact.zip_code", "the customer's zip code (8 digits) is required")
		}
	}
	switch inv.Kind {
	case NFe, NFCe:
		if len(inv.Items) == 0 {
			add("pv.products", "a product invoice needs products")
		}
		// The invoice bills what the order sold: its lines must add up to
		// the order's value, or the document and the charge disagree.
		var lines decimal.Decimal
		for _, it := range inv.Items {
			lines = lines.Add(it.Total)
		}
		if len(inv.Items) > 0 && !lines.Equal(inv.Total) {
			add("pv.value", "the order's lines add up to "+lines.StringFixed(2)+" but its value is "+inv.Total.StringFixed(2)+
				" (a difference of "+inv.Total.Sub(lines).StringFixed(2)+")")
		}
		for i, it := range inv.Items {
			f := fmt.Sprintf("pv.products[%d]", i)
			if len(it.NCM) != 8 {
				add(f+".ncm", "product "+it.Description+" needs its NCM (8 digits)")
			}
			if len(it.CFOP) != 4 {
				add(f+".cfop", "product "+it.Description+" needs its CFOP (4 digits)")
			} else if want := cfopFirst(inv.TipoDocumento, inv.LocalDestino); want != 0 && it.CFOP[0] != want {
				add(f+".cfop", "CFOP "+it.CFOP+" does not fit tipo_documento "+inv.TipoDocumento+" and local_destino "+strconv.Itoa(inv.LocalDestino)+
					" (it must start with "+string(want)+")")
			}
			if it.Unit == "" {
				add(f+".unit", "product "+it.Description+" needs its commercial unit")
			}
			if inv.Reform != nil && it.IBSCBSClass != "" {
				if c, _, ok := inv.Reform.Class(it.IBSCBSClass); !ok || !slices.Contains(c.Documents, inv.Kind) {
					add(f+".ibs_cbs_class", "product "+it.Description+": cClassTrib "+it.IBSCBSClass+" does not apply to an "+map[string]string{NFe: "NF-e", NFCe: "NFC-e"}[inv.Kind])
				}
			}
		}
		if inv.statesReform() {
			if _, err := inv.reformRates(); err != nil {
				add("ibscbs", err.Error())
			}
		}
		if inv.TipoDocumento == "" {
			add("nf.tipo_documento", "tipo_documento is required (0 entry, 1 exit)")
		}
		if inv.Finalidade == "" {
			add("nf.finalidade_emissao", "finalidade_emissao is required (1 to 4)")
		}
		if inv.Presenca == "" {
			add("nf.presenca_comprador", "presenca_comprador is required")
		}
		if inv.ConsumidorFinal == "" {
			add("nf.consumidor_final", "consumidor_final is required (0 or 1)")
		}
		// SEFAZ rule 696: a sale to whom is not a contributor of ICMS is a
		// sale to a final consumer.
		if inv.Kind == NFe && inv.ConsumidorFinal == "0" && r.IndIEDest(inv.Kind) == "9" {
			add("nf.consumidor_final", "the customer is not a contributor of ICMS (contact icms_contributor 9, or no state_registration): "+
				"the sale is to a final consumer, consumidor_final 1 (SEFAZ rule 696)")
		}
		if inv.Kind == NFe && r.IndIEDest(inv.Kind) == "1" && (r.IE == "" || r.IE == brdoc.Exempt) {
			add("contact.state_registration", "a contributor of ICMS (icms_contributor 1) needs its state registration")
		}
		if inv.Kind == NFCe && (inv.LocalDestino != 1 || inv.ConsumidorFinal == "0") {
			add("nf.local_destino", "an NFC-e is an internal sale to a final consumer")
		}
		if inv.Kind == NFCe && inv.Presenca != "1" && inv.Presenca != "4" {
			add("nf.presenca_comprador", "an NFC-e is a sale in person (1) or delivered at home (4)")
		}
		if inv.Kind == NFCe && inv.FreightMode != 9 {
			add("nf.freight_mode", "an NFC-e carries no freight (freight_mode 9)")
		}
		if inv.FreightMode != 9 && inv.Freight.IsZero() && inv.FreightMode != 0 {
			add("nf.freight_total", "a freight mode other than 9 (no freight) needs freight_total")
		}
		if inv.FreightMode == 9 && !inv.Freight.IsZero() {
			add("nf.freight_mode", "freight_total needs a freight mode other than 9")
		}
		// The note states what was charged (detPag): its total, products
		// and freight, must be what the order's charges bill.
		if total := inv.Total.Add(inv.Freight); inv.Charged.IsPositive() && !inv.Charged.Equal(total) {
			add("charge", "the order's charges bill "+inv.Charged.StringFixed(2)+" but the invoice totals "+total.StringFixed(2)+
				" (value and freight): cancel the charges and charge the order again")
		}
	case NFSe, NFSeN:
		s := inv.Service
		if s.Code == "" {
			add("nf.service_cod", "a service invoice needs the service code")
		} else if n := len(brdoc.Digits(s.Code)); inv.Kind == NFSeN && n != 4 && n != 6 {
			add("nf.service_cod", "the national NFS-e takes the service code of the national list: item and subitem (01.07) or with its unfolding (01.07.01)")
		}
		if s.ID == "" {
			add("nf.service_id_token", "a service invoice needs service_id_token")
		}
		if inv.Kind == NFSe && inv.Emitter.IM == "" {
			add("unit.im", "the issuing unit needs its municipal registration (inscrição municipal)")
		}
		if !s.ISSRate.IsPositive() || s.ISSRate.GreaterThan(decimal.NewFromInt(5)) || s.ISSRate.LessThan(decimal.NewFromInt(2)) {
			add("nf.tax_iss_rate_percent", "the ISS rate must be between 2% and 5%")
		}
		base := s.Gross.Sub(s.Deductions)
		if !s.Base.IsZero() && !s.Base.Equal(base) {
			add("nf.tax_service_base_amount", "the base must be the gross amount less deductions ("+base.StringFixed(2)+")")
		}
		if !s.ISSAmount.IsZero() && !s.ISSAmount.Equal(base.Mul(s.ISSRate).Div(decimal.NewFromInt(100)).Round(2)) {
			add("nf.tax_iss_amount", "the ISS amount must be the base times the rate ("+base.Mul(s.ISSRate).Div(decimal.NewFromInt(100)).StringFixed(2)+")")
		}
		if !s.Net.Equal(inv.Total.Sub(s.Retentions)) {
			add("nf.net_receivable_amount", "net_receivable_amount must be value - ret_total_amount ("+inv.Total.Sub(s.Retentions).StringFixed(2)+")")
		}
		// The note's amounts are the order's: the service's gross value is
		// what the order sells, and the withholdings add up to their total.
		if !s.Gross.Equal(inv.Total) {
			add("nf.tax_service_gross_amount", "tax_service_gross_amount ("+s.Gross.StringFixed(2)+") must be the order's value ("+inv.Total.StringFixed(2)+")")
		}
		if w := s.Withheld.Sum(); !w.Equal(s.Retentions) {
			add("nf.ret_total_amount", "ret_total_amount ("+s.Retentions.StringFixed(2)+") must be the sum of the withholdings it totals "+
				"(ret_pis_amount, ret_cofins_amount, ret_csll_amount, ret_ir_amount, ret_inss_amount, ret_other_amount: "+w.StringFixed(2)+")")
		}
		if inv.Kind == NFSeN && inv.statesReform() {
			if s.IBSCBSOperation == "" {
				add("service.ibs_cbs_operation", "the service sold (pv.id_token_stock_item) needs its ibs_cbs_operation, the operation indicator (cIndOp) "+
					"its national NFS-e states under the tax reform (/update_product_or_service)")
			}
			if c, _, ok := inv.Reform.Class(inv.serviceClass()); !ok || !slices.Contains(c.Documents, NFSe) {
				add("service.ibs_cbs_class", "cClassTrib "+inv.serviceClass()+" does not apply to a service")
			}
			if _, err := inv.reformRates(); err != nil {
				add("ibscbs", err.Error())
			}
		}
		if inv.Kind == NFSeN && s.Withheld.Other.IsPositive() {
			add("nf.ret_other_amount", "the national NFS-e states PIS, COFINS, CSLL, IRRF and social security withholdings only: ret_other_amount has no place in it")
		}
	default:
		add("nf.nf_kind", "unknown invoice kind")
	}
	return ps
}

// validateProfile lists what the issuer's fiscal profile lacks for this
// kind of invoice, each field named as `fincom unit set` names it.
func validateProfile(inv Invoice, add func(field, msg string)) {
	e, p := inv.Emitter, inv.Profile
	if n := len([]rune(e.Address)); n < 2 || n > 60 {
		add("unit.street", "the issuing unit's street is required (2 to 60 characters; fincom unit set --street)")
	}
	if e.Number == "" {
		add("unit.number", "the issuing unit's street number is required (fincom unit set --number)")
	}
	if n := len([]rune(e.Neighborhood)); n < 2 || n > 60 {
		add("unit.district", "the issuing unit's district is required (2 to 60 characters; fincom unit set --district)")
	}
	if len(e.Zip) != 8 {
		add("unit.zip", "the issuing unit's CEP is required (8 digits; fincom unit set --zip)")
	}
	if inv.Kind == NFSeN {
		return
	}
	if !ValidIE(e.IE) {
		add("unit.ie", "the issuing unit's state registration (IE, or ISENTO) is required (fincom unit set --ie)")
	}
	if p.CRT < 1 || p.CRT > 4 {
		add("unit.crt", "the issuing unit's tax regime (CRT 1 to 4) is required (fincom unit set --crt)")
	}
	if !p.simples() && p.CRT != 0 {
		if !p.ICMSRate.IsPositive() {
			add("unit.icms_rate", "the normal regime needs the internal ICMS rate (fincom unit set --icms-rate)")
		}
		if p.PISRate.IsNegative() || p.COFINSRate.IsNegative() || p.PISRate.IsZero() && p.COFINSRate.IsZero() {
			add("unit.pis_rate", "the normal regime needs the PIS and COFINS rates (fincom unit set --pis-rate --cofins-rate)")
		}
	}
	if inv.Kind == NFCe && (p.CSCID == "" || p.CSC == "") {
		add("unit.csc", "an NFC-e needs the unit's CSC and its id (fincom unit set --csc-id --csc)")
	}
}

// ValidIE reports a state registration as the NF-e takes it: 2 to 14
// digits, or ISENTO.
func ValidIE(ie string) bool {
	if ie == "ISENTO" {
		return true
	}
	return len(ie) >= 2 && len(ie) <= 14 && brdoc.Digits(ie) == ie
}

// cfopFirst is the first digit a CFOP must have: exits are 5 (internal), 6
// (interstate), 7 (foreign); entries 1, 2, 3. 0 when unknown.
func cfopFirst(tipo string, destino int) byte {
	if destino < 1 || destino > 3 {
		return 0
	}
	switch tipo {
	case "1":
		return byte('4' + destino)
	case "0":
		return byte('0' + destino)
	}
	return 0
}

// digitsOf derives n digits from a seed.
func digitsOf(seed string, n int) string {
	h := sha256.Sum256([]byte(seed))
	s := new(big.Int).SetBytes(h[:]).String()
	for len(s) < n {
		s += s
	}
	return s[:n]
}

// RandomCode derives the key's random code from the order and the
// attempt, so that issuing again after a failure gives the same key.
func RandomCode(seed string, n int) string { return digitsOf("fincom:nf:"+seed, n) }

func mod11(s string) int {
	sum, w := 0, 2
	for i := len(s) - 1; i >= 0; i-- {
		sum += int(s[i]-'0') * w
		if w++; w > 9 {
			w = 2
		}
	}
	d := 11 - sum%11
	if d >= 10 {
		return 0
	}
	return d
}

// stateCode is the IBGE code of a state: the first two digits of its
// cities' codes.
func stateCode(cityIBGE string) string {
	if len(cityIBGE) >= 2 {
		return cityIBGE[:2]
	}
	return "00"
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	return strings.Repeat("0", max(0, width-len(s))) + s
}

// AccessKey is the NF-e/NFC-e key: cUF (2), AAMM (4), CNPJ (14), model (2),
// series (3), number (9), emission type (1), random code (8) and the
// module 11 check digit.
func AccessKey(inv Invoice) string {
	model := "55"
	if inv.Kind == NFCe {
		model = "65"
	}
	k := stateCode(inv.Emitter.CityIBGE) + inv.Issued.Format("0601") + inv.Emitter.Register + model + pad(inv.Series, 3) +
		pad(inv.Number, 9) + strconv.Itoa(inv.tpEmis()) + inv.Code
	return k + strconv.Itoa(mod11(k))
}

// NationalKey is the national NFS-e's 50-character key: city IBGE (7),
// environment (1), registration type (1: CPF, 2: CNPJ), registration (14),
// NFS-e number (13), AAMM (4), random code (9), module 11 check digit.
func NationalKey(inv Invoice) string {
	return NationalKeyOf(inv.Emitter.CityIBGE, inv.tpAmb(), inv.Emitter.Register, inv.Number, inv.Issued, inv.Code)
}

// NationalKeyOf is the national NFS-e's key of the note number n of the
// provider register (CNPJ or CPF) in city, issued at, with its 9-digit
// random code: what the national system gives the notes it numbers.
func NationalKeyOf(city string, amb int, register string, n int, at time.Time, code string) string {
	kind := "2"
	if len(register) == 11 {
		kind, register = "1", "000"+register
	}
	k := city + strconv.Itoa(amb) + kind + register + pad(n, 13) + at.Format("0601") + code
	return k + strconv.Itoa(mod11(k))
}

// ValidNationalKey checks a national NFS-e key: 50 digits, the last the
// module 11 check digit of the others.
func ValidNationalKey(k string) bool {
	if len(k) != 50 || brdoc.Digits(k) != k {
		return false
	}
	return mod11(k[:49]) == int(k[49]-'0')
}
