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
	// Banco do Brasil: agency 0001 (Brasília) is 0001-9; a 4- or 6-digit
	// convênio's our-number carries a module-11 digit, a 7-digit one's
	// none; the free field is the our-number and wallet after six zeros
	// (7 digits) or the our-number, agency, account and wallet.
	if d := bbDV("0001"); d != "9" {
		t.Errorf("BB agency 0001 digit %s, want 9", d)
	}
	if d := bbDV("12340000001"); d != "X" && d != bbDV("12340000001") {
		t.Errorf("BB digit %s", d)
	}
	bb7 := Agreement{Agency: "1234", AgencyDV: "3", Account: "00123456", AccountDV: "0", Wallet: "17", Variation: "19", Code: "1234567"}
	if err := bancoDoBrasil.Check(&bb7); err != nil || bb7.Variation != "019" {
		t.Fatal(bb7, err)
	}
	o7, _ := bancoDoBrasil.OurNumber(bb7, 42)
	if o7.Number != "12345670000000042" || o7.DV != "" || bancoDoBrasil.free(bb7, o7.Number, o7.DV) != "000000"+"12345670000000042"+"17" {
		t.Errorf("BB 7-digit our-number %+v", o7)
	}
	bb4 := bb7
	bb4.Code = "1234"
	o4, _ := bancoDoBrasil.OurNumber(bb4, 42)
	if o4.Number != "12340000042" || o4.DV != bbDV("12340000042") || bancoDoBrasil.free(bb4, o4.Number, o4.DV) != "12340000042"+"1234"+"00123456"+"17" {
		t.Errorf("BB 4-digit our-number %+v", o4)
	}
	bb6 := bb7
	bb6.Code = "123456"
	if o6, _ := bancoDoBrasil.OurNumber(bb6, 42); o6.Number != "12345600042" || len(o6.DV) != 1 {
		t.Errorf("BB 6-digit our-number %+v", o6)
	}
	if _, err := bancoDoBrasil.OurNumber(bb6, 100000); err == nil {
		t.Errorf("a 6-digit convênio's sequence has 5 digits")
	}
	for num, want := range map[string]int64{"12345670000000042": 42, "76543210000000042": 0, "1234567000000004": 0} {
		if n, ok := bancoDoBrasil.Sequence(bb7, num); n != want || ok != (want > 0) {
			t.Errorf("BB sequence of %s: %d %v, want %d", num, n, ok, want)
		}
	}
	// Caixa (SIGCB): beneficiary 005507 is 005507-7 (the manual's
	// example); the our-number's digit covers its modality 14; the free
	// field interleaves the number with the modality's digits and ends
	// with its own digit.
	if d := caixaDV("005507"); d != "7" {
		t.Errorf("Caixa beneficiary digit %s, want 7", d)
	}
	cx := Agreement{Agency: "1234", Account: "000300001234", AccountDV: "5", Wallet: "rg", Code: "5507"}
	if err := caixa.Check(&cx); err != nil || cx.Code != "005507" || cx.AgencyDV != "0" || cx.Wallet != "RG" {
		t.Fatal(cx, err)
	}
	oc, _ := caixa.OurNumber(cx, 123456789)
	free := caixa.free(cx, oc.Number, oc.DV)
	if oc.Number != "000000123456789" || oc.DV != caixaDV("14000000123456789") || free[:24] != "0055077"+"000"+"1"+"000"+"4"+"123456789" ||
		free[24:] != caixaDV(free[:24]) || caixa.Printed(cx, oc) != "14/000000123456789-"+oc.DV {
		t.Errorf("Caixa our-number %+v, free field %s", oc, free)
	}
	for _, c := range []struct {
		b *Bank
		a Agreement
		o OurNumber
	}{{bancoDoBrasil, bb7, o7}, {bancoDoBrasil, bb4, o4}, {caixa, cx, oc}} {
		bo, err := c.b.Boleto(c.a, c.o, time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC), decimal.RequireFromString("150.00"))
		if err != nil || len(bo.Barcode) != 44 || bo.Barcode[:3] != c.b.Code || bo.Barcode[19:] != c.b.free(c.a, c.o.Number, c.o.DV) {
			t.Errorf("%s boleto %+v %v", c.b.Name, bo, err)
		}
	}
	// The codes as boletos print them.
	for code, want := range map[string]string{"001": "001-9", "033": "033-7", "104": "104-0", "237": "237-2", "341": "341-7", "748": "748-X", "756": "756-0", "041": "041-8"} {
		if got := CodeWithDigit(code); got != want {
			t.Errorf("bank %s printed %s, want %s", code, got, want)
		}
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
		{bancoDoBrasil, Agreement{Agency: "1234", AgencyDV: "4", Account: "123456", AccountDV: "0", Wallet: "17", Variation: "019", Code: "1234567"}, "agency"},
		{bancoDoBrasil, Agreement{Agency: "1234", AgencyDV: "3", Account: "123456", AccountDV: "1", Wallet: "17", Variation: "019", Code: "1234567"}, "account"},
		{bancoDoBrasil, Agreement{Agency: "1234", AgencyDV: "3", Account: "123456", AccountDV: "0", Wallet: "17", Variation: "019", Code: "12345"}, "agreement"},
		{bancoDoBrasil, Agreement{Agency: "1234", AgencyDV: "3", Account: "123456", AccountDV: "0", Wallet: "17", Variation: "019", Code: "0123456"}, "agreement"},
		{bancoDoBrasil, Agreement{Agency: "1234", AgencyDV: "3", Account: "123456", AccountDV: "0", Wallet: "17", Variation: "019", Code: "009999"}, "agreement"},
		{bancoDoBrasil, Agreement{Agency: "1234", AgencyDV: "3", Account: "123456", AccountDV: "0", Wallet: "17", Code: "1234567"}, "variation"},
		{bancoDoBrasil, Agreement{Agency: "1234", AgencyDV: "3", Account: "123456", AccountDV: "0", Wallet: "18", Variation: "019", Code: "1234567"}, "wallet"},
		{caixa, Agreement{Agency: "1234", Account: "300001234", AccountDV: "5", Wallet: "RG"}, "agreement"},
		{caixa, Agreement{Agency: "1234", Account: "300001234", AccountDV: "5", Wallet: "RG", Code: "1234567"}, "agreement"},
		{caixa, Agreement{Agency: "1234", Account: "300001234", Wallet: "RG", Code: "5507"}, "account"},
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
	for _, b := range all() {
		for name, r := range map[string]record{"T": b.layout.t, "U": b.layout.u} {
			if r.err != nil {
				t.Errorf("%s %s: %v", b.Name, name, r.err)
			}
		}
		for name, r := range b.records() {
			if r.err != nil {
				t.Errorf("%s %s: %v", b.Name, name, r.err)
			}
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

// TestBadDeclaration: a record declared wrong writes no file.
func TestBadDeclaration(t *testing.T) {
	for _, spec := range []string{"bank 1 3", "bank 3 1 9", "bank 1 3 Z", "bank a 3 9"} {
		r := recordOf(spec)
		if _, err := r.format(nil); r.err == nil || err == nil {
			t.Errorf("%q: %v", spec, err)
		}
	}
}

func sampleAgreements() map[string]Agreement {
	return map[string]Agreement{
		"341": {Agency: "0057", Account: "12345", AccountDV: "7", Wallet: "109", Name: "Acme Serviços Ltda", CNPJ: "11222333000181"},
		"237": {Agency: "1234", AgencyDV: "3", Account: "506511", AccountDV: "9", Wallet: "09", Code: "4321", Name: "Acme Serviços Ltda", CNPJ: "11222333000181"},
		"033": {Agency: "3270", AgencyDV: "0", Account: "13000123", AccountDV: "4", Wallet: "101", Code: "1234567", Name: "Acme Serviços Ltda", CNPJ: "11222333000181"},
		"001": {Agency: "1234", AgencyDV: "3", Account: "123456", AccountDV: "0", Wallet: "17", Variation: "019", Code: "1234567", Name: "Acme Serviços Ltda", CNPJ: "11222333000181"},
		"104": {Agency: "1234", Account: "300001234", AccountDV: "5", Wallet: "RG", Code: "005507", Name: "Acme Serviços Ltda", CNPJ: "11222333000181"},
	}
}

// TestRemittanceShape: a remittance is 240 columns a record with CRLF,
// header, batch, P Q R per title, trailers counting them.
func TestRemittanceShape(t *testing.T) {
	for code, a := range sampleAgreements() {
		b, _ := ByCode(code)
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
		b, _ := ByCode(code)
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
