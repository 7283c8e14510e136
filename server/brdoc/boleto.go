package brdoc

import (
	"errors"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// Boleto is what a boleto's digits say.
type Boleto struct {
	// Kind is "bank" (47-digit linha digitável, 44-digit barcode) or
	// "collection" (arrecadação/convênio: 48 digits, starting with 8).
	Kind     string
	Line     string // linha digitável, digits only
	Barcode  string // the 44 digits of the bar code
	BankCode string // COMPE code (bank boletos)
	// Value is the amount; zero when the boleto leaves it open.
	Value decimal.Decimal
	// DueDate is set for bank boletos with a due-date factor.
	DueDate time.Time
}

var errBoleto = errors.New("not a valid boleto")

// Mod10 is FEBRABAN's module 10: weights 2,1,2,1... from the right, the
// digits of each product summed.
func Mod10(s string) int {
	sum, w := 0, 2
	for i := len(s) - 1; i >= 0; i-- {
		p := int(s[i]-'0') * w
		sum += p/10 + p%10
		w = 3 - w
	}
	return (10 - sum%10) % 10
}

// mod11 sums with weights 2..9 from the right, cycling.
func mod11sum(s string) int {
	sum, w := 0, 2
	for i := len(s) - 1; i >= 0; i-- {
		sum += int(s[i]-'0') * w
		if w++; w > 9 {
			w = 2
		}
	}
	return sum
}

// bankDV is the general check digit of a bank boleto's bar code: 0, 10 and
// 11 become 1.
func bankDV(s string) int {
	d := 11 - mod11sum(s)%11
	if d == 0 || d >= 10 {
		return 1
	}
	return d
}

// collectionDV11 is the module 11 of collection boletos: 10 and 11 become 0.
func collectionDV11(s string) int {
	d := 11 - mod11sum(s)%11
	if d >= 10 {
		return 0
	}
	return d
}

// FactorDate turns a due-date factor into a date. Factors count days from
// 1997-10-07 and restarted at 1000 on 2025-02-22, so a factor names two
// dates; the one nearer to now is meant.
func FactorDate(factor int, now time.Time) time.Time {
	old := time.Date(1997, 10, 7, 0, 0, 0, 0, time.UTC).AddDate(0, 0, factor)
	restarted := time.Date(2025, 2, 22, 0, 0, 0, 0, time.UTC).AddDate(0, 0, factor-1000)
	if abs(now.Sub(old)) <= abs(now.Sub(restarted)) {
		return old
	}
	return restarted
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// ParseBoleto reads a linha digitável (47 or 48 digits) or a bar code (44
// digits), with or without separators, and checks every check digit.
func ParseBoleto(s string, now time.Time) (Boleto, error) {
	d := Digits(s)
	switch {
	case len(d) == 47:
		return parseBankLine(d, now)
	case len(d) == 48 && d[0] == '8':
		return parseCollectionLine(d)
	case len(d) == 44 && d[0] == '8':
		return parseCollectionBarcode(d, "")
	case len(d) == 44:
		return parseBankBarcode(d, "", now)
	}
	return Boleto{}, errBoleto
}

func parseBankLine(l string, now time.Time) (Boleto, error) {
	for _, f := range [][2]int{{0, 9}, {10, 20}, {21, 31}} {
		if Mod10(l[f[0]:f[1]]) != int(l[f[1]]-'0') {
			return Boleto{}, errBoleto
		}
	}
	barcode := l[0:4] + l[32:33] + l[33:47] + l[4:9] + l[10:20] + l[21:31]
	return parseBankBarcode(barcode, l, now)
}

func parseBankBarcode(b, line string, now time.Time) (Boleto, error) {
	if bankDV(b[:4]+b[5:]) != int(b[4]-'0') {
		return Boleto{}, errBoleto
	}
	if line == "" {
		f1 := b[0:4] + b[19:24]
		f2 := b[24:34]
		f3 := b[34:44]
		line = f1 + strconv.Itoa(Mod10(f1)) + f2 + strconv.Itoa(Mod10(f2)) + f3 + strconv.Itoa(Mod10(f3)) + b[4:5] + b[5:19]
	}
	bo := Boleto{Kind: "bank", Line: line, Barcode: b, BankCode: b[0:3]}
	cents, _ := strconv.ParseInt(b[9:19], 10, 64)
	bo.Value = decimal.New(cents, -2)
	if factor, _ := strconv.Atoi(b[5:9]); factor >= 1000 {
		bo.DueDate = FactorDate(factor, now)
	}
	return bo, nil
}

func collectionDV(b string, block string) int {
	switch b[2] {
	case '6', '7':
		return Mod10(block)
	case '8', '9':
		return collectionDV11(block)
	}
	return -1
}

func parseCollectionLine(l string) (Boleto, error) {
	var barcode string
	for i := 0; i < 4; i++ {
		block := l[i*12 : i*12+11]
		barcode += block
	}
	for i := 0; i < 4; i++ {
		block := l[i*12 : i*12+11]
		if collectionDV(barcode, block) != int(l[i*12+11]-'0') {
			return Boleto{}, errBoleto
		}
	}
	return parseCollectionBarcode(barcode, l)
}

func parseCollectionBarcode(b, line string) (Boleto, error) {
	if collectionDV(b, b[:3]+b[4:]) != int(b[3]-'0') {
		return Boleto{}, errBoleto
	}
	if line == "" {
		for i := 0; i < 4; i++ {
			block := b[i*11 : i*11+11]
			line += block + strconv.Itoa(collectionDV(b, block))
		}
	}
	bo := Boleto{Kind: "collection", Line: line, Barcode: b}
	// The third digit says whether positions 5-15 hold the value in cents
	// (6 and 8) or a reference (7 and 9).
	if b[2] == '6' || b[2] == '8' {
		cents, _ := strconv.ParseInt(b[4:15], 10, 64)
		bo.Value = decimal.New(cents, -2)
	}
	return bo, nil
}

// ValidBoleto reports whether s is a boleto line or bar code whose check
// digits are all correct.
func ValidBoleto(s string) bool {
	_, err := ParseBoleto(s, time.Time{})
	return err == nil
}

// Factor is a date's due-date factor: days since 1997-10-07, restarting at
// 1000 on 2025-02-22 (FEBRABAN). Dates before 2000-07-03 have none.
func Factor(d time.Time) (int, error) {
	d = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
	restart := time.Date(2025, 2, 22, 0, 0, 0, 0, time.UTC)
	var f int
	if !d.Before(restart) {
		f = 1000 + int(d.Sub(restart).Hours()/24)
	} else {
		f = int(d.Sub(time.Date(1997, 10, 7, 0, 0, 0, 0, time.UTC)).Hours() / 24)
	}
	if f < 1000 || f > 9999 {
		return 0, errors.New("due date out of the factor's range")
	}
	return f, nil
}

// NewBankBoleto builds a bank boleto: the 44-digit bar code (bank, currency
// 9, general check digit, factor, value in cents, the bank's 25-digit free
// field) and its 47-digit linha digitável, every check digit computed.
func NewBankBoleto(bank string, due time.Time, value decimal.Decimal, free string) (Boleto, error) {
	if len(bank) != 3 || len(free) != 25 || Digits(bank+free) != bank+free {
		return Boleto{}, errors.New("bank code or free field malformed")
	}
	factor, err := Factor(due)
	if err != nil {
		return Boleto{}, err
	}
	cents := value.Shift(2).Round(0)
	if cents.IsNegative() || cents.GreaterThan(decimal.New(9999999999, 0)) {
		return Boleto{}, errors.New("value out of range")
	}
	rest := strconv.Itoa(factor) + leftPad(cents.String(), 10) + free
	dv := bankDV(bank + "9" + rest)
	return parseBankBarcode(bank+"9"+strconv.Itoa(dv)+rest, "", due)
}

func leftPad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}
