package settings

import (
	"errors"
	"testing"
	"time"

	"fincom/server/certs"
	"fincom/server/invoicing"
	"fincom/store"
)

func ptr[T any](v T) *T { return &v }

// TestApply: each field is checked as `unit set` and Configurações check
// it, and a refusal names its field; what is given is set, normalized,
// and the rest stays.
func TestApply(t *testing.T) {
	t.Parallel()
	keys, err := certs.NewKeyring(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		unit   store.Unit
		change Profile
		keys   *certs.Keyring
		field  string
		err    error
		check  func(t *testing.T, u store.Unit, p store.UnitProfile)
	}{
		{name: "address, CEP and city", change: Profile{Street: ptr(" Av. Paulista "), Number: ptr("1500"), District: ptr("Bela Vista"), Zip: ptr("01310-100"),
			City: ptr("São Paulo"), State: ptr("sp")},
			check: func(t *testing.T, u store.Unit, p store.UnitProfile) {
				if p.Street != "Av. Paulista" || p.Zip != "01310100" || u.CityIBGE != "3550308" {
					t.Errorf("%+v %+v", u, p)
				}
			}},
		{name: "city found by the CEP's state", change: Profile{Zip: ptr("20040-002"), City: ptr("Rio de Janeiro")},
			check: func(t *testing.T, u store.Unit, _ store.UnitProfile) {
				if u.CityIBGE != "3304557" {
					t.Errorf("city %q", u.CityIBGE)
				}
			}},
		{name: "CEP of another state", change: Profile{Zip: ptr("20040-002"), City: ptr("São Paulo"), State: ptr("SP")}, field: "zip", err: ErrZipState},
		{name: "no such city", change: Profile{City: ptr("Gotham"), State: ptr("SP")}, field: "city", err: ErrCity},
		{name: "short CEP", change: Profile{Zip: ptr("0131")}, field: "zip", err: ErrZip},
		{name: "short street", change: Profile{Street: ptr("R")}, field: "street", err: ErrLength},
		{name: "IE exempt", change: Profile{IE: ptr("isento")}, check: func(t *testing.T, _ store.Unit, p store.UnitProfile) {
			if p.IE != "ISENTO" {
				t.Errorf("IE %q", p.IE)
			}
		}},
		{name: "IE with letters", change: Profile{IE: ptr("12A")}, field: "ie", err: ErrIE},
		{name: "CRT 5", change: Profile{CRT: ptr(5)}, field: "crt", err: ErrCRT},
		{name: "rates with commas", change: Profile{CRT: ptr(3), ICMSRate: ptr("18"), PISRate: ptr("0,65"), COFINSRate: ptr("3")},
			check: func(t *testing.T, _ store.Unit, p store.UnitProfile) {
				if p.CRT != 3 || p.ICMSRate != "18" || p.PISRate != "0.65" {
					t.Errorf("%+v", p)
				}
			}},
		{name: "rate over 100", change: Profile{ICMSRate: ptr("101")}, field: "icms-rate", err: ErrRate},
		{name: "CNAE", change: Profile{CNAE: ptr("12")}, field: "cnae", err: ErrCNAE},
		{name: "PIX key normalized", change: Profile{PixKey: ptr("529.982.247-25")}, check: func(t *testing.T, _ store.Unit, p store.UnitProfile) {
			if p.PixKey != "52998224725" {
				t.Errorf("key %q", p.PixKey)
			}
		}},
		{name: "not a PIX key", change: Profile{PixKey: ptr("529.982.247-26")}, field: "pix-key", err: ErrPixKey},
		{name: "CSC sealed", change: Profile{CSCID: ptr("000001"), CSC: ptr("0123456789ABCDEF0123")}, keys: keys,
			check: func(t *testing.T, _ store.Unit, p store.UnitProfile) {
				if got, err := keys.Open(p.CSCSealed); err != nil || string(got) != "0123456789ABCDEF0123" || p.CSCID != "000001" {
					t.Errorf("CSC %q %v", got, err)
				}
			}},
		{name: "CSC without keys", change: Profile{CSC: ptr("0123456789ABCDEF0123")}, field: "csc", err: invoicing.ErrNoSecretsKey},
		{name: "short CSC", change: Profile{CSC: ptr("0123")}, keys: keys, field: "csc", err: ErrCSC},
		{name: "CNPJ of a bare unit", change: Profile{CNPJ: ptr("11.222.333/0001-81")}, check: func(t *testing.T, u store.Unit, _ store.UnitProfile) {
			if u.CNPJ != "11222333000181" {
				t.Errorf("CNPJ %q", u.CNPJ)
			}
		}},
		{name: "CNPJ check digits", change: Profile{CNPJ: ptr("11.222.333/0001-82")}, field: "cnpj", err: ErrCNPJ},
		{name: "CNPJ kept", unit: store.Unit{CNPJ: "11222333000181"}, change: Profile{CNPJ: ptr("11222333000181")}},
		{name: "CNPJ changed", unit: store.Unit{CNPJ: "11222333000181"}, change: Profile{CNPJ: ptr("11444777000161")}, field: "cnpj", err: ErrCNPJSet},
		{name: "municipal registration", change: Profile{IM: ptr("12.345")}, field: "im", err: ErrIM},
		{name: "contingency", change: Profile{Contingency: ptr("svc")}, check: func(t *testing.T, _ store.Unit, p store.UnitProfile) {
			if p.FiscalContingency != "svc" || p.FiscalContingencySince != "2026-11-22T12:00:00Z" {
				t.Errorf("%+v", p)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			u, p := c.unit, store.UnitProfile{Street: "Rua Antiga", CRT: 1}
			err := c.change.Apply(&u, &p, c.keys, now)
			var fe FieldError
			switch {
			case c.err == nil && err != nil:
				t.Fatalf("refused: %v", err)
			case c.err != nil && (!errors.As(err, &fe) || fe.Field != c.field || !errors.Is(err, c.err)):
				t.Fatalf("got %v, want %s: %v", err, c.field, c.err)
			case c.err == nil && c.change.Street == nil && p.Street != "Rua Antiga":
				t.Errorf("the street changed: %q", p.Street)
			}
			if c.check != nil {
				c.check(t, u, p)
			}
		})
	}
}
