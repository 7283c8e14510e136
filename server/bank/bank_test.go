package bank

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestManualVectors: each bank's our-number digit and free field give the
// examples its boleto manual prints.
func TestManualVectors(t *testing.T) {
	// Itaú, Anexo 2: agency 0057, account 12345-7, wallet 110, our-number
	// 12345678-8, 123.45 on 2002-05-01 → 34196166700000123451101234567880057123457000.
	a := Agreement{Agency: "0057", Account: "12345", AccountDV: "7", Wallet: "110"}
	if err := itau.Check(&a); err != nil {
		t.Fatal(err)
	}
	o, _ := itau.OurNumber(a, 12345678)
	if o.DV != "8" {
		t.Errorf("Itaú our-number DAC %s, want 8", o.DV)
	}
	b, err := itau.Boleto(a, o, time.Date(2002, 5, 1, 0, 0, 0, 0, time.UTC), decimal.RequireFromString("123.45"))
	if err != nil || b.Barcode != "34196166700000123451101234567880057123457000" {
		t.Errorf("Itaú bar code %s %v", b.Barcode, err)
	}
	// Bradesco: wallet 19, our-number 00000000002 → digit 8.
	if d := bradesco.ourDV(Agreement{Wallet: "19"}, "00000000002"); d != "8" {
		t.Errorf("Bradesco digit %s, want 8", d)
	}
	// Santander: our-number 566612457800 → digit 2.
	if d := santander.ourDV(Agreement{}, "566612457800"); d != "2" {
		t.Errorf("Santander digit %s, want 2", d)
	}
	// Bradesco account digits (module 11, weights 2 to 7) of real accounts.
	for acc, dv := range map[string]string{"0506511": "9", "0620688": "3", "0003748": "6"} {
		if d := bradescoDV(acc, 7); d != dv {
			t.Errorf("Bradesco account %s digit %s, want %s", acc, d, dv)
		}
	}
}

func TestAgreementChecks(t *testing.T) {
	for _, c := range []struct {
		b     *Bank
		a     Agreement
		field string
	}{
		{itau, Agreement{Agency: "0057", Account: "12345", AccountDV: "6", Wallet: "109"}, "account"},
		{itau, Agreement{Agency: "57A", Account: "12345", AccountDV: "7", Wallet: "109"}, "agency"},
		{itau, Agreement{Agency: "0057", Account: "12345", AccountDV: "7", Wallet: "999"}, "wallet"},
		{bradesco, Agreement{Agency: "1234", AgencyDV: "3", Account: "506511", AccountDV: "8", Wallet: "09", Code: "123"}, "account"},
		{bradesco, Agreement{Agency: "1234", AgencyDV: "3", Account: "506511", AccountDV: "9", Wallet: "09"}, "agreement"},
		{bradesco, Agreement{Agency: "1234", Account: "506511", AccountDV: "9", Wallet: "09", Code: "1"}, "agency"},
		{bradesco, Agreement{Agency: "1234", AgencyDV: "0", Account: "506511", AccountDV: "9", Wallet: "09", Code: "1"}, "agency"},
		{bradesco, Agreement{Agency: "1234", AgencyDV: "5", Account: "506511", AccountDV: "9", Wallet: "09", Code: "1"}, "agency"},
		{santander, Agreement{Agency: "3270", Account: "13000123", AccountDV: "4", Wallet: "101", Code: "12345678"}, "agreement"},
		{santander, Agreement{Agency: "3270", Account: "13000123", Wallet: "101", Code: "1234567"}, "account"},
	} {
		var fe *FieldError
		if err := c.b.Check(&c.a); !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s %+v: %v, want an error on %s", c.b.Name, c.a, err, c.field)
		}
	}
	a := Agreement{Agency: "1234", AgencyDV: "3", Account: "506511", AccountDV: "9", Wallet: "09", Code: "4321"}
	if err := bradesco.Check(&a); err != nil || a.Account != "0506511" || a.Code != "00000000000000004321" {
		t.Errorf("Bradesco normalized %+v %v", a, err)
	}
}

// TestLayoutsCoverEveryColumn: each remittance record declares columns 1
// to 240 once, in order, and its control fields are where FEBRABAN puts
// them.
func TestLayoutsCoverEveryColumn(t *testing.T) {
	for _, b := range banks {
		for name, r := range b.records() {
			next := 1
			for _, f := range r.fields {
				if f.start != next {
					t.Errorf("%s %s: field %s starts at %d, want %d", b.Name, name, f.name, f.start, next)
				}
				next = f.end + 1
			}
			if next != 241 {
				t.Errorf("%s %s ends at %d", b.Name, name, next-1)
			}
			if f := r.byName["bank"]; f.start != 1 || f.end != 3 || f.def != b.Code {
				t.Errorf("%s %s: bank field %+v", b.Name, name, f)
			}
		}
	}
}

func sampleAgreements() map[string]Agreement {
	return map[string]Agreement{
		"341": {Agency: "0057", Account: "12345", AccountDV: "7", Wallet: "109", Name: "Acme Serviços Ltda", CNPJ: "11222333000181"},
		"237": {Agency: "1234", AgencyDV: "3", Account: "506511", AccountDV: "9", Wallet: "09", Code: "4321", Name: "Acme Serviços Ltda", CNPJ: "11222333000181"},
		"033": {Agency: "3270", AgencyDV: "0", Account: "13000123", AccountDV: "4", Wallet: "101", Code: "1234567", Name: "Acme Serviços Ltda", CNPJ: "11222333000181"},
	}
}

// TestRemittanceShape: a remittance is 240 columns a record with CRLF,
// header, batch, P Q R per title, trailers counting them.
func TestRemittanceShape(t *testing.T) {
	for code, a := range sampleAgreements() {
		b := map[string]*Bank{"341": itau, "237": bradesco, "033": santander}[code]
		if err := b.Check(&a); err != nil {
			t.Fatal(err)
		}
		o, _ := b.OurNumber(a, 7)
		due := time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC)
		f, err := b.Remittance(Remittance{Agreement: a, Sequence: 3, Created: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC),
			Titles: []Title{{Movement: MoveEntry, Our: o, Document: "PV-000001/1", Issued: due.AddDate(0, 0, -17), Due: due,
				Amount: decimal.RequireFromString("1500.00"), FinePercent: decimal.NewFromInt(2), InterestDay: decimal.RequireFromString("0.50"),
				Payer: Payer{Name: "Alfa Comércio Ltda", Document: "11.444.777/0001-61", Street: "Rua das Flores, 100", District: "Centro",
					Zip: "01001-000", City: "São Paulo", State: "SP"}}}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(f), "\r\n") {
			t.Errorf("%s: no final CRLF", b.Name)
		}
		lines := strings.Split(strings.TrimSuffix(string(f), "\r\n"), "\r\n")
		if len(lines) != 7 {
			t.Fatalf("%s: %d records", b.Name, len(lines))
		}
		for i, l := range lines {
			if len(l) != 240 {
				t.Errorf("%s record %d: %d columns", b.Name, i+1, len(l))
			}
		}
		segs := ""
		for _, l := range lines {
			segs += string(l[7])
			if l[7] == '3' {
				segs += string(l[13])
			}
		}
		if segs != "013P3Q3R59" {
			t.Errorf("%s records %s", b.Name, segs)
		}
		if p := lines[2]; b.layout.p.get(p, "amount") != "000000000150000" || b.layout.p.get(p, "due") != "10122026" {
			t.Errorf("%s P: %s", b.Name, p)
		}
		if q := lines[3]; b.layout.q.get(q, "payer") != "ALFA COMERCIO LTDA" || b.layout.q.get(q, "city") != "SAO PAULO" {
			t.Errorf("%s Q: %s", b.Name, q)
		}
		if tr := lines[5]; b.layout.batchTrailer.get(tr, "records") != "000005" {
			t.Errorf("%s batch trailer counts %s", b.Name, tr[17:23])
		}
		if tr := lines[6]; b.layout.fileTrailer.get(tr, "records") != "000007" {
			t.Errorf("%s file trailer counts %s", b.Name, tr[23:29])
		}
	}
}

// TestForeignReturn: a Santander return file written by another library
// (laravel-boleto's test fixture, MIT) is read as the bank wrote it.
func TestForeignReturn(t *testing.T) {
	data, err := os.ReadFile("testdata/laravel-boleto-santander.ret")
	if err != nil {
		t.Fatal(err)
	}
	r, err := santander.ParseReturn(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Events) != 1 {
		t.Fatalf("events %+v", r.Events)
	}
	e := r.Events[0]
	if e.Movement != "17" || e.Event != EventPaid || e.OurNumber != "000000000104" || !e.Paid.Equal(decimal.RequireFromString("11.00")) || !e.Amount.Equal(decimal.RequireFromString("10.00")) || !e.Fee.Equal(decimal.RequireFromString("3.24")) ||
		e.Occurred != "2014-06-04" || e.Credited != "2014-06-05" {
		t.Errorf("event %+v", e)
	}
	if santander.ourDV(Agreement{}, e.OurNumber) != "0" {
		t.Errorf("the fixture's our-number digit")
	}
}

// TestMalformedReturn: a file that is not a return is refused whole, at
// the line and column at fault.
func TestMalformedReturn(t *testing.T) {
	good, _ := os.ReadFile("testdata/laravel-boleto-santander.ret")
	lines := strings.Split(strings.TrimRight(string(good), "\r\n"), "\r\n")
	set := func(i, col int, s string) string {
		c := append([]string(nil), lines...)
		c[i] = c[i][:col-1] + s + c[i][col-1+len(s):]
		return strings.Join(c, "\r\n")
	}
	for _, c := range []struct {
		name      string
		file      string
		line, col int
	}{
		{"short line", strings.Replace(string(good), lines[2], lines[2][:200], 1), 3, 201},
		{"other bank", set(0, 1, "341"), 1, 1},
		{"remittance", set(0, 143, "1"), 1, 143},
		{"letters in amount", set(2, 80, "X"), 3, 80},
		{"bad date", set(3, 138, "32"), 4, 138},
		{"T without U", strings.Join(append(append([]string{}, lines[:3]...), lines[4:]...), "\r\n"), 3, 14},
		{"no trailer", strings.Join(lines[:5], "\r\n"), 5, 8},
	} {
		_, err := santander.ParseReturn([]byte(c.file))
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != c.line || pe.Column != c.col {
			t.Errorf("%s: %v, want line %d column %d", c.name, err, c.line, c.col)
		}
	}
}

// TestReturnRoundTrip: what the simulated bank writes, each bank's reader
// reads back: movements, our-numbers, amounts, dates, reasons.
func TestReturnRoundTrip(t *testing.T) {
	for code, a := range sampleAgreements() {
		b := map[string]*Bank{"341": itau, "237": bradesco, "033": santander}[code]
		if err := b.Check(&a); err != nil {
			t.Fatal(err)
		}
		o, _ := b.OurNumber(a, 42)
		day := time.Date(2026, 12, 9, 0, 0, 0, 0, time.UTC)
		f, err := b.ReturnFile(a, 5, day, []ReturnItem{
			{Movement: "02", Our: o, Document: "PV-1/1", Due: day, Amount: decimal.NewFromInt(100)},
			{Movement: "06", Our: o, Document: "PV-1/1", Due: day, Amount: decimal.NewFromInt(100), Paid: decimal.RequireFromString("100.00"),
				Fee: decimal.RequireFromString("2.50"), Occurred: day, Credited: day.AddDate(0, 0, 1)},
			{Movement: "03", Our: o, Reasons: "0816"},
		})
		if err != nil {
			t.Fatal(err)
		}
		r, err := b.ParseReturn(f)
		if err != nil {
			t.Fatal(b.Name, err)
		}
		if len(r.Events) != 3 || r.Sequence != "5" {
			t.Fatalf("%s: %+v", b.Name, r)
		}
		if e := r.Events[0]; e.Event != EventRegistered || e.OurNumber != o.Number {
			t.Errorf("%s registered %+v", b.Name, e)
		}
		if e := r.Events[1]; e.Event != EventPaid || !e.Paid.Equal(decimal.NewFromInt(100)) || !e.Fee.Equal(decimal.RequireFromString("2.5")) ||
			e.Occurred != "2026-12-09" || e.Credited != "2026-12-10" {
			t.Errorf("%s paid %+v", b.Name, e)
		}
		if e := r.Events[2]; e.Event != EventRejected || len(e.Reasons) != 2 || e.Reasons[0].Code != "08" || e.Reasons[0].Text == "" {
			t.Errorf("%s rejected %+v", b.Name, e)
		}
	}
}
