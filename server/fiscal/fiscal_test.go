package fiscal

import (
	"context"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/brdoc"
	"fincom/server/docread"
)

var update = flag.Bool("update", false, "rewrite testdata/fiscal")

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// The published keys (shared/data/README.md) rebuilt from their parts.
func TestKeys(t *testing.T) {
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

func sample(kind string) Invoice {
	inv := Invoice{Kind: kind, Series: 1, Number: 7, Code: "12345678", Issued: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC),
		Emitter: Party{Register: "11222333000181", Name: "Acme Comércio Ltda", IM: "1234", Address: "Rua Vergueiro", Number: "1000",
			Neighborhood: "Paraíso", CityIBGE: "3550308", City: "São Paulo", State: "SP", Zip: "04101000"},
		Recipient: Party{Register: "11444777000161", Name: "Alfa Comércio Ltda", Address: "Av. Paulista", Number: "1500",
			Neighborhood: "Bela Vista", CityIBGE: "3550308", City: "São Paulo", State: "SP", Zip: "01310100"},
		Total: d("35.00"), FreightMode: 9, TipoDocumento: "1", Finalidade: "1", Presenca: "1", ConsumidorFinal: "1", LocalDestino: 1,
		PaymentKey: "PIX"}
	switch kind {
	case NFe, NFCe:
		inv.Items = []Item{{Code: "P1", Description: "Parafuso 10mm", NCM: "73181500", CFOP: "5102", Unit: "UN", Quantity: d("100"),
			UnitValue: d("0.35"), Total: d("35.00")}}
	default:
		inv.Code = "123456789"
		inv.Total = d("1500")
		inv.Service = Service{Code: "01.07", ID: "SRV-0107", Description: "Instalação de rede", Location: "3550308", Gross: d("1500"),
			ISSRate: d("5"), ISSAmount: d("75"), Retentions: d("22.50"), Net: d("1477.50")}
	}
	return inv
}

// TestDocuments builds each kind, compares it with its golden XML, parses
// it with a standard XML parser and reads it back with fincom's reader.
func TestDocuments(t *testing.T) {
	for _, kind := range []string{NFe, NFCe, NFSe, NFSeN} {
		t.Run(kind, func(t *testing.T) {
			inv := sample(kind)
			if ps := Validate(inv); len(ps) != 0 {
				t.Fatalf("problems %v", ps)
			}
			var key string
			var b []byte
			var err error
			auth, _ := Simulated{}.Authorize(context.Background(), inv, "k")
			switch kind {
			case NFe, NFCe:
				key = AccessKey(inv)
				b, err = NFeXML(inv, key, auth)
			case NFSeN:
				key = NationalKey(inv)
				b, err = NationalXML(inv, key, auth)
			case NFSe:
				b, err = MunicipalXML(inv, "AB12CD34", auth)
			}
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("..", "..", "testdata", "fiscal", kind+".xml")
			if *update {
				os.WriteFile(path, b, 0o644)
			} else if want, err := os.ReadFile(path); err != nil || string(want) != string(b) {
				t.Errorf("differs from %s (go test ./server/fiscal -update):\n%s", path, b)
			}
			var any struct{ XMLName xml.Name }
			if err := xml.Unmarshal(b, &any); err != nil {
				t.Fatalf("not well-formed: %v", err)
			}
			r, err := docread.ReadXML(b)
			if err != nil {
				t.Fatal(err)
			}
			f := r.Fields
			if f["supplier_register"].Value != "11222333000181" || f["supplier_name"].Value != "Acme Comércio Ltda" || f["document_number"].Value != "7" {
				t.Errorf("read back %+v", f)
			}
			switch kind {
			case NFe, NFCe:
				if r.Kind != kind || f["access_key"].Value != key || f["value"].Value != "35.00" || len(r.Items) != 1 || r.Items[0].NCM != "73181500" {
					t.Errorf("read back %s %+v %+v", r.Kind, f, r.Items)
				}
			case NFSeN:
				if f["access_key"].Value != key || f["value"].Value != "1477.50" {
					t.Errorf("read back %+v", f)
				}
			case NFSe:
				if f["value"].Value != "1477.50" || f["description"].Value != "Instalação de rede" {
					t.Errorf("read back %+v", f)
				}
			}
			if kind == NFCe && !strings.Contains(string(b), "<qrCode>https://nfce.fincom.invalid/qrcode?p="+key+"|2|2|1|") {
				t.Error("NFC-e without its consumer QR URL")
			}
		})
	}
}

func TestValidate(t *testing.T) {
	inv := sample(NFe)
	inv.Emitter.Register = "11222333000182"
	inv.Recipient.Zip = ""
	inv.Items[0].NCM, inv.Items[0].CFOP = "", "6102"
	inv.TipoDocumento = ""
	got := map[string]bool{}
	for _, p := range Validate(inv) {
		got[p.Field] = true
	}
	for _, f := range []string{"unit.cnpj", "contact.zip_code", "pv.products[0].ncm", "nf.tipo_documento"} {
		if !got[f] {
			t.Errorf("no problem for %s: %v", f, got)
		}
	}
	s := sample(NFSeN)
	s.Service.Net = d("1500")
	s.Service.ISSRate = d("1")
	got = map[string]bool{}
	for _, p := range Validate(s) {
		got[p.Field] = true
	}
	if !got["nf.net_receivable_amount"] || !got["nf.tax_iss_rate_percent"] {
		t.Errorf("service problems %v", got)
	}
	c := sample(NFe)
	c.Items[0].CFOP = "6102"
	if ps := Validate(c); len(ps) != 1 || ps[0].Field != "pv.products[0].cfop" {
		t.Errorf("interstate CFOP on an internal sale: %v", ps)
	}
}
