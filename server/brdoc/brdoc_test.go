package brdoc

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// Published vectors (shared/data/README.md), recomputed by hand.
func TestCPF(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"52998224725", true}, {"11144477735", true}, {"12345678909", true},
		{"11111111111", false}, {"12345678910", false}, {"1234567890", false},
		{"5299822472A", false}, {"", false}, {"00000000000", false},
	} {
		if got := ValidCPF(tc.in); got != tc.want {
			t.Errorf("ValidCPF(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if got := Clean("529.982.247-25"); got != "52998224725" {
		t.Errorf("Clean = %q", got)
	}
}

func TestCNPJ(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"11222333000181", true}, {"11444777000161", true},
		{"12ABC34501DE35", true}, {"AA345678000114", true}, {"1Z000000000039", true},
		{"ABCDEFGHIJKL81", false}, {"11222333000182", false}, {"12ABC34501DE3A", false},
		{"00000000000000", false}, {"1122233300018", false}, {"12abc34501de35", false},
	} {
		if got := ValidCNPJ(tc.in); got != tc.want {
			t.Errorf("ValidCNPJ(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if got := Clean("12.abc.345/01de-35"); got != "12ABC34501DE35" || !ValidCNPJ(got) {
		t.Errorf("Clean alnum = %q", got)
	}
}

func TestMunicipalities(t *testing.T) {
	if n := len(municipalities()); n != 5571 {
		t.Fatalf("municipalities = %d, want 5571", n)
	}
	m, ok := LookupIBGE("3550308")
	if !ok || m.Name != "São Paulo" || m.State != "SP" {
		t.Fatalf("LookupIBGE(3550308) = %+v, %v", m, ok)
	}
	if _, ok := LookupIBGE("3550309"); ok {
		t.Fatal("unknown code found")
	}
}

func FuzzCNPJ(f *testing.F) {
	for _, s := range []string{"11222333000181", "12ABC34501DE35", "12.abc.345/01de-35", "\xff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := Clean(s)
		if ValidCNPJ(c) && len(c) != 14 {
			t.Fatalf("valid CNPJ of length %d", len(c))
		}
		if ValidCPF(c) && len(c) != 11 {
			t.Fatalf("valid CPF of length %d", len(c))
		}
		if Clean(c) != c {
			t.Fatalf("Clean not idempotent on %q", s)
		}
	})
}

func TestBoleto(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	// Published vector (shared/data/README.md): fator 7586 = 2018-07-15.
	b, err := ParseBoleto("00190.00009 01149.718601 68524.522114 6 75860000102656", now)
	if err != nil {
		t.Fatal(err)
	}
	if b.BankCode != "001" || b.Value.StringFixed(2) != "1026.56" || b.DueDate.Format("2006-01-02") != "2018-07-15" || b.Kind != "bank" {
		t.Fatalf("parsed %+v", b)
	}
	if len(b.Barcode) != 44 || b.Barcode[4] != '6' {
		t.Fatalf("barcode %s", b.Barcode)
	}
	// The bar code alone gives the same line back.
	b2, err := ParseBoleto(b.Barcode, now)
	if err != nil || b2.Line != b.Line {
		t.Fatalf("from barcode: %+v %v", b2, err)
	}
	// Any changed digit breaks a check digit.
	line := b.Line
	for i := range line {
		mut := []byte(line)
		mut[i] = '0' + (mut[i]-'0'+1)%10
		if _, err := ParseBoleto(string(mut), now); err == nil {
			t.Errorf("digit %d changed, still valid", i)
		}
	}
	if _, err := ParseBoleto("123", now); err == nil {
		t.Error("short line accepted")
	}
}

func TestFactorDate(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	for factor, want := range map[int]string{7586: "2018-07-15", 1000: "2025-02-22", 9999: "2025-02-21", 1001: "2025-02-23", 1640: "2026-11-24"} {
		if got := FactorDate(factor, now).Format("2006-01-02"); got != want {
			t.Errorf("factor %d = %s, want %s", factor, got, want)
		}
	}
}

func TestAccessKey(t *testing.T) {
	if !ValidAccessKey("35170458716523000119550010000000121000123458") {
		t.Fatal("published key refused")
	}
	for _, bad := range []string{"35170458716523000119550010000000121000123459", "3517045871652300011955001000000012100012345", "3517045871652300011955001000000012100012345A"} {
		if ValidAccessKey(bad) {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestLookupCity(t *testing.T) {
	for _, c := range [][3]string{{"São Paulo", "SP", "3550308"}, {"SAO PAULO", "sp", "3550308"}, {"campinas", "SP", "3509502"}, {"Abadia de Goiás", "GO", "5200050"}} {
		if got, ok := LookupCity(c[0], c[1]); !ok || got != c[2] {
			t.Errorf("LookupCity(%q, %q) = %q %v", c[0], c[1], got, ok)
		}
	}
	if _, ok := LookupCity("São Paulo", "RJ"); ok {
		t.Error("wrong state found")
	}
}

func TestNewBankBoleto(t *testing.T) {
	// Rebuilding the published vector from its parts gives it back.
	b, err := NewBankBoleto("001", time.Date(2018, 7, 15, 0, 0, 0, 0, time.UTC), decimal.RequireFromString("1026.56"), "0000001149718606852452211")
	if err != nil {
		t.Fatal(err)
	}
	if b.Line != "00190000090114971860168524522114675860000102656" {
		t.Fatalf("line %s", b.Line)
	}
	// After the restart: 2025-02-22 is factor 1000.
	b, err = NewBankBoleto("341", time.Date(2025, 2, 22, 0, 0, 0, 0, time.UTC), decimal.RequireFromString("10"), "1234567890123456789012345")
	if err != nil || b.Barcode[5:9] != "1000" {
		t.Fatalf("restart: %v %v", b.Barcode, err)
	}
	if p, err := ParseBoleto(b.Line, time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)); err != nil || p.DueDate.Format("2006-01-02") != "2025-02-22" || p.Value.StringFixed(2) != "10.00" {
		t.Fatalf("round trip: %+v %v", p, err)
	}
	if _, err := NewBankBoleto("341", time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC), decimal.NewFromInt(1), "1234567890123456789012345"); err == nil {
		t.Fatal("date before factor 1000 accepted")
	}
}

// TestValidGTIN: GS1's check digit, on each length.
func TestValidGTIN(t *testing.T) {
	for s, want := range map[string]bool{"7891000315507": true, "7891000315508": false, "96385074": true, "96385075": false,
		"036000291452": true, "17891000315504": true, "789100031550": false, "78910003155A7": false, "": false} {
		if got := ValidGTIN(s); got != want {
			t.Errorf("ValidGTIN(%q) = %v, want %v", s, got, want)
		}
	}
}
