package fiscal

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/docread"
	"fincom/server/needs"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// The published keys (shared/data/README.md) rebuilt from their parts.
func TestKeys(t *testing.T) {
	t.Parallel()
	inv := Invoice{Kind: NFe, Series: 1, Number: 12, Code: "00012345", Issued: time.Date(2017, 4, 10, 12, 0, 0, 0, time.UTC),
		Emitter: Party{Register: "58716523000119", CityIBGE: "3550308"}}
	if got := AccessKey(inv); got != "35170458716523000119550010000000121000123458" || !brdoc.ValidAccessKey(got) {
		t.Fatalf("NF-e key %s", got)
	}
	nat := Invoice{Kind: NFSeN, Number: 12, Code: "135792468", Issued: time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC),
		Emitter: Party{Register: "58716523000119", CityIBGE: "3550308"}}
	if got := NationalKey(nat); got != "35503082258716523000119000000000001226011357924683" || !ValidNationalKey(got) {
		t.Fatalf("national NFS-e key %s", got)
	}
	if ValidNationalKey("35503082258716523000119000000000001226011357924684") {
		t.Fatal("bad check digit accepted")
	}
}

var issued = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func sample(kind string, crt int) Invoice {
	inv := Invoice{Kind: kind, Series: 1, Number: 7, Code: "12345678", Issued: issued,
		Emitter: Party{Register: "11222333000181", Name: "Acme Comércio Ltda", IM: "1234", Address: "Rua Vergueiro", Number: "1000",
			Complement: "Sala 2", Neighborhood: "Paraíso", CityIBGE: "3550308", City: "São Paulo", State: "SP", Zip: "04101000",
			Phone: "(11) 3333-4444", IE: "110042490114", CNAE: "4751201"},
		Profile: Profile{CRT: crt, ICMSRate: d("18"), PISRate: d("0.65"), COFINSRate: d("3"), CSCID: "000001", CSC: "0123456789ABCDEF0123456789ABCDEF"},
		Recipient: Party{Register: "11444777000161", Name: "Alfa Comércio Ltda", Address: "Av. Paulista", Number: "1500",
			Neighborhood: "Bela Vista", CityIBGE: "3550308", City: "São Paulo", State: "SP", Zip: "01310100", Email: "nf@alfa.com.br"},
		Total: d("35.00"), FreightMode: 9, TipoDocumento: "1", Finalidade: "1", Presenca: "1", ConsumidorFinal: "1", LocalDestino: 1,
		PaymentKey: "PIX"}
	switch kind {
	case NFe, NFCe:
		inv.Items = []Item{{Code: "1", Description: "Parafuso 10mm", NCM: "73181500", CFOP: "5102", Unit: "UN", Quantity: d("100"),
			UnitValue: d("0.35"), Total: d("35.00")}}
	default:
		inv.Code = "123456789"
		inv.Total = d("1500")
		inv.Service = Service{Code: "01.07", ID: "SRV-0107", Description: "Instalação de rede", Location: "3550308", Gross: d("1500"),
			ISSRate: d("5"), ISSAmount: d("75"), Retentions: d("22.50"), Net: d("1477.50"), Withheld: Withholdings{IRRF: d("22.50")}}
	}
	return inv
}

// issue builds, signs and has the simulated authority authorize a sample.
func issue(t *testing.T, inv Invoice, c certs.Certificate) (string, Authorization, []byte) {
	t.Helper()
	var key, id string
	var doc []byte
	var err error
	switch inv.Kind {
	case NFe, NFCe:
		key = AccessKey(inv)
		id = "NFe" + key
		doc, err = BuildNFe(inv, key)
	case NFSeN:
		key = NationalKey(inv)
		id = DPSID(inv)
		doc, err = BuildDPS(inv)
	case NFSe:
		key = "AB12CD34"
	}
	if err != nil {
		t.Fatal(err)
	}
	if id != "" {
		if doc, err = Sign(doc, id, c); err != nil {
			t.Fatal(err)
		}
	}
	a, err := (&Simulated{}).Authorize(context.Background(), Request{Invoice: inv, Key: key, Signed: doc})
	if err != nil {
		t.Fatalf("%s: %v", inv.Kind, err)
	}
	return key, a, doc
}

// xmllint validates a document against an official schema, as a user
// would; it fails the test on any message.
func xmllint(t *testing.T, schema string, doc []byte) {
	t.Helper()
	needs.Tool(t, "xmllint", needs.XmllintInstall)
	path := filepath.Join(t.TempDir(), "doc.xml")
	os.WriteFile(path, doc, 0o600)
	out, err := exec.Command("xmllint", "--noout", "--schema", filepath.Join("schemas", schema), path).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != path+" validates" {
		t.Fatalf("xmllint %s: %v\n%s\n%s", schema, err, out, doc)
	}
}

// xmlsec verifies the signature at the XPath node of a document, the
// elements named by an Id attribute being infNFe, infDPS and infNFSe.
func xmlsec(t *testing.T, doc []byte, node string) {
	t.Helper()
	needs.Tool(t, "xmlsec1", needs.Xmlsec1Install)
	path := filepath.Join(t.TempDir(), "doc.xml")
	os.WriteFile(path, doc, 0o600)
	// Test certificates are self-signed: --insecure skips the chain, not
	// the signature.
	out, err := exec.Command("xmlsec1", "--verify", "--insecure", "--id-attr:Id", "infNFe", "--id-attr:Id", "infDPS",
		"--id-attr:Id", "infNFSe", "--node-xpath", node, path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Fatalf("xmlsec1 %s: %v\n%s", node, err, out)
	}
}

// TestDocumentsAreSchemaValid issues each kind under each regime and
// judges it with the tools the authorities' users have: xmllint against
// the official schemas, xmlsec1 for the signatures, and fincom's own
// document reader.
func TestDocumentsAreSchemaValid(t *testing.T) {
	t.Parallel()
	c, err := certs.TestCertificate("Acme Comércio Ltda", "11222333000181", issued)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind string
		crt  int
	}{{NFe, SimplesNacional}, {NFe, RegimeNormal}, {NFCe, SimplesNacional}, {NFCe, RegimeNormal}, {NFSeN, SimplesNacional}, {NFSeN, RegimeNormal}, {NFSe, SimplesNacional}} {
		t.Run(tc.kind+"-"+string(rune('0'+tc.crt)), func(t *testing.T) {
			inv := sample(tc.kind, tc.crt)
			if ps := Validate(inv); len(ps) != 0 {
				t.Fatalf("problems %v", ps)
			}
			_, a, signed := issue(t, inv, c)
			switch tc.kind {
			case NFe, NFCe:
				xmllint(t, "nfe-4.00/nfe_v4.00.xsd", signed)
				xmllint(t, "nfe-4.00/procNFe_v4.00.xsd", a.XML)
				xmlsec(t, a.XML, "//*[local-name()='Signature']")
			case NFSeN:
				xmllint(t, "nfse-nacional-1.00/DPS_v1.00.xsd", signed)
				xmllint(t, "nfse-nacional-1.00/NFSe_v1.00.xsd", a.XML)
				xmlsec(t, signed, "/*/*[local-name()='Signature']")
				xmlsec(t, a.XML, "//*[local-name()='DPS']/*[local-name()='Signature']")
				xmlsec(t, a.XML, "/*/*[local-name()='Signature']")
			}
			r, err := docread.ReadXML(a.XML)
			if err != nil {
				t.Fatal(err)
			}
			f := r.Fields
			if f["supplier_register"].Value != "11222333000181" || f["document_number"].Value != "7" {
				t.Errorf("read back %+v", f)
			}
		})
	}
}

// xmllintVerdict answers whether xmllint finds a document valid.
func xmllintVerdict(t *testing.T, schema string, doc []byte) bool {
	t.Helper()
	path := filepath.Join(t.TempDir(), "doc.xml")
	os.WriteFile(path, doc, 0o600)
	return exec.Command("xmllint", "--noout", "--schema", filepath.Join("schemas", schema), path).Run() == nil
}

// TestAgreesWithXmllint: the schema check inside the binary (package xsd,
// the simulated authority's) gives xmllint's verdict on every issued
// document and on each broken on purpose.
func TestAgreesWithXmllint(t *testing.T) {
	t.Parallel()
	needs.Tool(t, "xmllint", needs.XmllintInstall)
	c, _ := certs.TestCertificate("Acme Comércio Ltda", "11222333000181", issued)
	type doc struct {
		root, schema string
		xml          []byte
	}
	var docs []doc
	for _, kind := range []string{NFe, NFCe, NFSeN} {
		for _, crt := range []int{SimplesNacional, RegimeNormal} {
			_, a, signed := issue(t, sample(kind, crt), c)
			if kind == NFSeN {
				docs = append(docs, doc{"DPS", "nfse-nacional-1.00/DPS_v1.00.xsd", signed}, doc{"NFSe", "nfse-nacional-1.00/NFSe_v1.00.xsd", a.XML})
			} else {
				docs = append(docs, doc{"NFe", "nfe-4.00/nfe_v4.00.xsd", signed}, doc{"nfeProc", "nfe-4.00/procNFe_v4.00.xsd", a.XML})
			}
		}
	}
	breaks := []struct{ name, from, to string }{
		{"as issued", "", ""},
		{"missing required element", "<vICMSDeson>0.00</vICMSDeson>", ""},
		{"element out of order", "<CRT>1</CRT>", ""},
		{"value outside the enumeration", "<tpAmb>2</tpAmb>", "<tpAmb>3</tpAmb>"},
		{"value outside the pattern", "<CEP>04101000</CEP>", "<CEP>0410100</CEP>"},
		{"too long", "<xNome>Acme Comércio Ltda</xNome>", "<xNome>" + strings.Repeat("A", 61) + "</xNome>"},
		{"unknown element", "<verProc>fincom</verProc>", "<verProc>fincom</verProc><extra>1</extra>"},
		{"unknown attribute", `<det nItem="1">`, `<det nItem="1" extra="x">`},
		{"fixed attribute changed", "xmldsig#rsa-sha1", "xmldsig#rsa-sha256"},
		{"text in element content", "<ide>", "<ide>texto"},
		{"signature removed", "<Signature", "<NotSignature"},
		{"national: bad key pattern", "<cTribNac>010701</cTribNac>", "<cTribNac>0107</cTribNac>"},
		{"national: missing regTrib", "<opSimpNac>3</opSimpNac>", ""},
		{"national: date", "<dCompet>2026-11-22</dCompet>", "<dCompet>2026-13-22</dCompet>"},
	}
	checked := 0
	for _, d := range docs {
		for _, b := range breaks {
			x := d.xml
			if b.from != "" {
				if !strings.Contains(string(x), b.from) {
					continue
				}
				x = []byte(strings.Replace(string(x), b.from, b.to, 1))
			}
			want := xmllintVerdict(t, d.schema, x)
			got := ValidateSchema(d.root, x)
			if (got == nil) != want {
				t.Errorf("%s, %s: xmllint says valid=%v, fincom says %v", d.root, b.name, want, got)
			}
			checked++
		}
	}
	if checked < 40 {
		t.Fatalf("only %d cases compared", checked)
	}
}

type fakeRegistry map[int]string

func (r fakeRegistry) Authorized(_ context.Context, _ string, _, number int) (string, bool, error) {
	k, ok := r[number]
	return k, ok, nil
}

// TestAuthorityChecks: the simulated authority refuses what SEFAZ refuses,
// with its code: a document off the schema, a signature that does not
// verify or is missing, a certificate out of date or of another firm, a
// number already used.
func TestAuthorityChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	own, _ := certs.TestCertificate("Acme", "11222333000181", issued)
	other, _ := certs.TestCertificate("Outra", "11444777000161", issued)
	old, _ := certs.TestCertificate("Acme", "11222333000181", issued.AddDate(-6, 0, 0))
	inv := sample(NFe, SimplesNacional)
	key := AccessKey(inv)
	build := func(c certs.Certificate) []byte {
		doc, err := BuildNFe(inv, key)
		if err != nil {
			t.Fatal(err)
		}
		signed, err := Sign(doc, "NFe"+key, c)
		if err != nil {
			t.Fatal(err)
		}
		return signed
	}
	good := build(own)
	unsigned, _ := BuildNFe(inv, key)
	for _, tc := range []struct {
		name     string
		doc      []byte
		registry Registry
		code     int
	}{
		{"authorized", good, fakeRegistry{}, 0},
		{"off the schema", []byte(strings.Replace(string(good), "<CRT>1</CRT>", "<CRT>7</CRT>", 1)), nil, CodeSchema},
		{"unsigned", unsigned, nil, CodeSchema},
		{"changed after signing", []byte(strings.Replace(string(good), "<vProd>35.00</vProd>", "<vProd>36.00</vProd>", 1)), nil, CodeSignature},
		{"signature value altered", []byte(strings.Replace(string(good), "<SignatureValue>", "<SignatureValue>AAAA", 1)), nil, CodeSignature},
		{"another firm's certificate", build(other), nil, CodeCertCNPJ},
		{"expired certificate", build(old), nil, CodeCertDate},
		{"number used by this key", good, fakeRegistry{7: key}, CodeDuplicate},
		{"number used by another key", good, fakeRegistry{7: "35261111222333000181550010000000071999999990"}, CodeDuplicateKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := (&Simulated{}).Authorize(ctx, Request{Invoice: inv, Key: key, Signed: tc.doc, Registry: tc.registry})
			var r *Rejection
			switch {
			case tc.code == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.code != 0 && (!errors.As(err, &r) || r.Code != tc.code):
				t.Fatalf("answer %v, want code %d", err, tc.code)
			}
		})
	}
}

// TestChargedMustBeInvoiced: charges that bill another amount than the
// note's total (value and freight) are a problem named "charge".
func TestChargedMustBeInvoiced(t *testing.T) {
	t.Parallel()
	inv := sample(NFe, 3)
	inv.Freight, inv.FreightMode = decimal.RequireFromString("12.30"), 1
	inv.Charged = inv.Total
	found := false
	for _, p := range Validate(inv) {
		found = found || p.Field == "charge"
	}
	if !found {
		t.Errorf("charges of %s on a note of %s: no problem", inv.Charged, inv.Total.Add(inv.Freight))
	}
	inv.Charged = inv.Total.Add(inv.Freight)
	for _, p := range Validate(inv) {
		if p.Field == "charge" {
			t.Errorf("charges equal to the note: %v", p)
		}
	}
}

// TestDPSWithholdings: the national DPS states every federal withholding
// of the order (PIS and COFINS withheld with their rates, CP, IRRF, CSLL),
// valid by the official schema, from which the national system derives
// vTotalRet and vLiq; withholdings that do not add up to their total, a
// gross amount other than the order's value and an "other" withholding
// the DPS has no place for are problems.
func TestDPSWithholdings(t *testing.T) {
	t.Parallel()
	inv := sample(NFSeN, RegimeNormal)
	w := Withholdings{PIS: d("9.75"), COFINS: d("45.00"), CSLL: d("15.00"), IRRF: d("22.50"), CP: d("165.00"), PISRate: d("0.65"), COFINSRate: d("3")}
	inv.Service.Withheld, inv.Service.Retentions = w, w.Sum()
	inv.Service.Net = inv.Total.Sub(w.Sum())
	if ps := Validate(inv); len(ps) != 0 {
		t.Fatalf("problems %v", ps)
	}
	dps, err := BuildDPS(inv)
	if err != nil {
		t.Fatal(err)
	}
	want := "<tribFed><piscofins><CST>01</CST><vBCPisCofins>1500.00</vBCPisCofins><pAliqPis>0.65</pAliqPis><pAliqCofins>3.00</pAliqCofins>" +
		"<vPis>9.75</vPis><vCofins>45.00</vCofins><tpRetPisCofins>1</tpRetPisCofins></piscofins><vRetCP>165.00</vRetCP>" +
		"<vRetIRRF>22.50</vRetIRRF><vRetCSLL>15.00</vRetCSLL></tribFed>"
	if !strings.Contains(string(dps), want) {
		t.Errorf("the DPS lacks %s:\n%s", want, dps)
	}
	c, err := certs.TestCertificate("Acme Comércio Ltda", "11222333000181", issued)
	if err != nil {
		t.Fatal(err)
	}
	_, _, signed := issue(t, inv, c)
	xmllint(t, "nfse-nacional-1.00/DPS_v1.00.xsd", signed)

	for name, change := range map[string]func(*Invoice){
		"nf.ret_total_amount":         func(i *Invoice) { i.Service.Withheld.IRRF = d("10") },
		"nf.tax_service_gross_amount": func(i *Invoice) { i.Service.Gross = d("3000") },
		"nf.ret_other_amount": func(i *Invoice) {
			i.Service.Withheld.Other, i.Service.Retentions = d("5"), i.Service.Retentions.Add(d("5"))
			i.Service.Net = i.Total.Sub(i.Service.Retentions)
		},
	} {
		bad := inv
		change(&bad)
		found := false
		for _, p := range Validate(bad) {
			found = found || p.Field == name
		}
		if !found {
			t.Errorf("no problem %s: %v", name, Validate(bad))
		}
	}
}

// TestProductionNotes: a production NFC-e's QR code and consultation
// address are the state's production ones with tpAmb 1 in the hashed
// parameters, and neither a production NF-e nor NFC-e says it has no
// value; a homologation note still does. Both are valid by the schema.
func TestProductionNotes(t *testing.T) {
	t.Parallel()
	c, err := certs.TestCertificate("Acme Comércio Ltda", "11222333000181", issued)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{NFe, NFCe} {
		for _, production := range []bool{false, true} {
			inv := sample(kind, SimplesNacional)
			inv.Production = production
			if ps := Validate(inv); len(ps) != 0 {
				t.Fatalf("%s production=%v: %v", kind, production, ps)
			}
			doc, err := BuildNFe(inv, AccessKey(inv))
			if err == nil {
				doc, err = Sign(doc, "NFe"+AccessKey(inv), c)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := ValidateSchema("NFe", doc); err != nil {
				t.Fatalf("%s production=%v: %v", kind, production, err)
			}
			s := string(doc)
			if strings.Contains(s, "sem valor fiscal") == production {
				t.Errorf("%s production=%v: the note's text says %v", kind, production, strings.Contains(s, "sem valor fiscal"))
			}
			if kind != NFCe {
				continue
			}
			qr, urlChave := "https://www.homologacao.nfce.fazenda.sp.gov.br/qrcode?p="+AccessKey(inv)+"|2|2|1|", "<urlChave>https://www.homologacao.nfce.fazenda.sp.gov.br/NFCeConsultaPublica</urlChave>"
			if production {
				qr, urlChave = "https://www.nfce.fazenda.sp.gov.br/qrcode?p="+AccessKey(inv)+"|2|1|1|", "<urlChave>https://www.nfce.fazenda.sp.gov.br/NFCeConsultaPublica</urlChave>"
			}
			if !strings.Contains(s, "<qrCode>"+qr) || !strings.Contains(s, urlChave) {
				t.Errorf("production=%v: the QR code or urlChave is not the environment's:\n%s", production, s[strings.Index(s, "<infNFeSupl>"):])
			}
		}
	}
	if nfse := sample(NFSe, SimplesNacional); true {
		nfse.Production = true
		if ps := Validate(nfse); len(ps) != 1 || ps[0].Field != "unit.fiscal_environment" {
			t.Errorf("a production municipal NFS-e: %v", ps)
		}
	}
}

// TestEverySchemaLoads: each root's embedded schema loads (they load one
// by one, when first needed).
func TestEverySchemaLoads(t *testing.T) {
	t.Parallel()
	for root, load := range schemas {
		if _, err := load(); err != nil {
			t.Errorf("%s: %v", root, err)
		}
	}
}

// TestDPSReplacing: a DPS that replaces a valid note carries subst (the
// replaced key, the reason's code and text) where the schema puts it, and
// stays valid; a reason code not the schema's, or a text out of its 15 to
// 255 characters, is a problem.
func TestDPSReplacing(t *testing.T) {
	t.Parallel()
	inv := sample(NFSeN, RegimeNormal)
	old := "35503082211222333000181000000000000126111406675734"
	inv.Replaces = &Replacement{Key: old, Code: "99", Reason: "Valor do serviço corrigido"}
	if ps := Validate(inv); len(ps) != 0 {
		t.Fatalf("problems %v", ps)
	}
	dps, err := BuildDPS(inv)
	if err != nil {
		t.Fatal(err)
	}
	want := "</cLocEmi><subst><chSubstda>" + old + "</chSubstda><cMotivo>99</cMotivo><xMotivo>Valor do serviço corrigido</xMotivo></subst><prest>"
	if !strings.Contains(string(dps), want) {
		t.Errorf("the DPS lacks %s:\n%s", want, dps)
	}
	c, err := certs.TestCertificate("Acme Comércio Ltda", "11222333000181", issued)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := Sign(dps, DPSID(inv), c)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateSchema("DPS", signed); err != nil {
		t.Errorf("the replacing DPS: %v", err)
	}
	xmllint(t, "nfse-nacional-1.00/DPS_v1.00.xsd", signed)
	for _, r := range []Replacement{{Key: old, Code: "06", Reason: "Valor do serviço corrigido"}, {Key: old, Code: "99", Reason: "curto"},
		{Key: "123", Code: "99", Reason: "Valor do serviço corrigido"}} {
		inv.Replaces = &r
		if ps := Validate(inv); len(ps) == 0 {
			t.Errorf("%+v: no problem", r)
		}
	}
}
