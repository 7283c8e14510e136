// Package bank holds what fincom knows of the banks a firm collects
// through: the fields of a collection agreement as each bank defines them,
// its our-number with its check digit, the boleto's free field, and the
// CNAB 240 files (remittance and return) in the positions FEBRABAN and
// each bank's own manual publish. It knows nothing of HTTP or SQL.
//
// provider_a is Itaú (341), provider_b Bradesco (237), provider_c
// Santander (033).
package bank

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/brdoc"
)

// Agreement is a unit's collection agreement with one bank ("convênio de
// cobrança"): where its boletos are registered and paid into.
type Agreement struct {
	Provider  string `json:"provider"`
	Bank      string `json:"bank"`
	Agency    string `json:"agency"`
	AgencyDV  string `json:"agency_dv,omitempty"`
	Account   string `json:"account"`
	AccountDV string `json:"account_dv"`
	Wallet    string `json:"wallet"`
	// Code is the bank's code of the agreement: Bradesco's and Banco do
	// Brasil's "código do convênio", Santander's and Caixa's "código do
	// beneficiário" (Itaú has none).
	Code string `json:"agreement,omitempty"`
	// Variation is Banco do Brasil's "variação da carteira" (3 digits);
	// the other banks have none.
	Variation string `json:"variation,omitempty"`
	// Beneficiary is the firm: its name and CNPJ, as files carry them.
	Name string `json:"-"`
	CNPJ string `json:"-"`
}

// FieldError is an agreement field the bank would not accept.
type FieldError struct{ Field, Reason string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// Bank is one bank's rules.
type Bank struct {
	Code, Name, Provider string
	// OurDigits is how many digits the bank's our-number has (without its
	// check digit): the sequence's upper bound.
	OurDigits int
	wallets   []string
	check     func(a *Agreement) error
	ourDV     func(a Agreement, num string) string
	free      func(a Agreement, num, dv string) string
	layout    layout
	// The hooks of a bank whose our-number depends on the agreement
	// (Banco do Brasil's starts with the convênio, its length by the
	// convênio's): nil for a bank whose our-number is its sequence.
	seqDigits func(a Agreement) int
	compose   func(a Agreement, seq string) string
	sequence  func(a Agreement, num string) (int64, bool)
	// inFile is the our-number as the bank's segments P and T carry it
	// (nil: the number, its digit in a field of its own); fromFile reads
	// it back.
	inFile   func(o OurNumber) string
	fromFile func(s string) OurNumber
}

// Banks are the banks fincom collects through, by provider name.
var banks = map[string]*Bank{
	"provider_a": itau,
	"provider_b": bradesco,
	"provider_c": santander,
}

// others are the banks no slot has by default: an agreement names them
// (`--bank`) behind any slot.
var others = []*Bank{bancoDoBrasil, caixa}

// all are every bank fincom collects through.
func all() []*Bank {
	out := []*Bank{itau, bradesco, santander}
	return append(out, others...)
}

// Slots are the provider slots an order names, in order.
func Slots() []string {
	var out []string
	for p := range banks {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// ByProvider answers the bank of a provider name.
func ByProvider(provider string) (*Bank, bool) {
	b, ok := banks[provider]
	return b, ok
}

// Of answers the bank of an agreement: the bank it names (its COMPE
// code), else the provider slot's own (an agreement made before slots
// named their bank).
func Of(bankCode, provider string) (*Bank, bool) {
	if bankCode != "" {
		return ByCode(bankCode)
	}
	return ByProvider(provider)
}

// Codes are the COMPE codes of the banks fincom collects through, in
// order.
func Codes() []string {
	var out []string
	for _, b := range all() {
		out = append(out, b.Code)
	}
	slices.Sort(out)
	return out
}

// ByCode answers the bank of a COMPE code (a file's first three columns).
func ByCode(code string) (*Bank, bool) {
	for _, b := range all() {
		if b.Code == code {
			return b, true
		}
	}
	return nil, false
}

var (
	digitsOnly   = regexp.MustCompile(`^[0-9]+$`)
	withDigit    = regexp.MustCompile(`^([0-9]+)-([0-9A-Za-z])$`)
	errNotDigits = "digits only"
)

// SplitDigit reads "12345-6" as number and check digit; a text without a
// hyphen is a number without one.
func SplitDigit(s string) (num, dv string) {
	s = strings.TrimSpace(s)
	if m := withDigit.FindStringSubmatch(s); m != nil {
		return m[1], strings.ToUpper(m[2])
	}
	return s, ""
}

func pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

// fixed checks a numeric field of at most n digits and pads it to n.
func fixed(field string, v *string, n int) error {
	if !digitsOnly.MatchString(*v) {
		return &FieldError{field, errNotDigits}
	}
	s := strings.TrimLeft(*v, "0")
	if len(s) > n {
		return &FieldError{field, fmt.Sprintf("at most %d digits", n)}
	}
	if strings.Trim(*v, "0") == "" {
		return &FieldError{field, "may not be zero"}
	}
	*v = pad(s, n)
	return nil
}

// Wallets are the agreement wallets (carteiras) the bank takes.
func (b *Bank) Wallets() []string { return slices.Clone(b.wallets) }

// Check checks and normalizes an agreement's fields as the bank defines
// them (padded to the bank's widths, check digits verified where the
// bank publishes how).
func (b *Bank) Check(a *Agreement) error {
	a.Bank = b.Code
	if a.Provider == "" {
		a.Provider = b.Provider
	}
	a.Wallet = strings.ToUpper(strings.TrimSpace(a.Wallet))
	// Only Banco do Brasil's wallets have a variation.
	if b != bancoDoBrasil {
		a.Variation = ""
	}
	if !slices.Contains(b.wallets, a.Wallet) {
		return &FieldError{"wallet", "use one of " + strings.Join(b.wallets, ", ")}
	}
	return b.check(a)
}

// mod11 sums s's digits with weights 2..top from the right, cycling.
func mod11(s string, top int) int {
	sum, w := 0, 2
	for i := len(s) - 1; i >= 0; i-- {
		sum += int(s[i]-'0') * w
		if w++; w > top {
			w = 2
		}
	}
	return sum
}

// OurNumber is an our-number as the bank prints it, and its parts.
type OurNumber struct {
	Number string // the sequence, padded to the bank's width
	DV     string
}

// SeqDigits is how many digits the agreement's our-number sequence has:
// its upper bound.
func (b *Bank) SeqDigits(a Agreement) int {
	if b.seqDigits != nil {
		return b.seqDigits(a)
	}
	return b.OurDigits
}

// OurNumber answers the n-th our-number of the agreement.
func (b *Bank) OurNumber(a Agreement, n int64) (OurNumber, error) {
	if n < 1 {
		return OurNumber{}, errors.New("our-number must be positive")
	}
	num, digits := strconv.FormatInt(n, 10), b.SeqDigits(a)
	if len(num) > digits {
		return OurNumber{}, fmt.Errorf("the agreement's our-numbers are used up (%d digits)", digits)
	}
	num = pad(num, digits)
	if b.compose != nil {
		num = b.compose(a, num)
	}
	return OurNumber{Number: num, DV: b.ourDV(a, num)}, nil
}

// OurNumberOfCode says the bank makes its our-numbers of the agreement's
// code (Banco do Brasil's of the convênio): a new code is a new space.
func (b *Bank) OurNumberOfCode() bool { return b.compose != nil }

// Sequence is the agreement's sequence number of an our-number as a
// return file carries it; false when it is not one of the agreement's.
func (b *Bank) Sequence(a Agreement, num string) (int64, bool) {
	if b.sequence != nil {
		return b.sequence(a, num)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	return n, err == nil && n > 0
}

// ourInFile is the our-number as segments P and T carry it.
func (b *Bank) ourInFile(o OurNumber) string {
	if b.inFile != nil {
		return b.inFile(o)
	}
	return o.Number
}

// CodeWithDigit is a bank's code as its boletos print it, with its
// digit ("341-7"): module 11 of the code, weights 4, 3 and 2, 10 as X
// and 11 as 0 (Sicredi's 748-X), except where the bank prints its own
// (Caixa's 104-0).
func CodeWithDigit(code string) string {
	if code == caixa.Code {
		return code + "-0"
	}
	if len(code) != 3 || !digitsOnly.MatchString(code) {
		return code
	}
	sum := 0
	for i, w := range []int{4, 3, 2} {
		sum += int(code[i]-'0') * w
	}
	switch d := 11 - sum%11; d {
	case 10:
		return code + "-X"
	case 11:
		return code + "-0"
	default:
		return code + "-" + strconv.Itoa(d)
	}
}

// Printed is the our-number as the boleto shows it.
func (b *Bank) Printed(a Agreement, o OurNumber) string {
	switch b.Code {
	case "341":
		return a.Wallet + "/" + o.Number + "-" + o.DV
	case "237":
		return a.Wallet + "/" + o.Number + "-" + o.DV
	case "104":
		return "14/" + o.Number + "-" + o.DV
	}
	if o.DV == "" {
		return o.Number
	}
	return o.Number + "-" + o.DV
}

// Beneficiary is the "agência/código do beneficiário" box of the boleto.
func (b *Bank) Beneficiary(a Agreement) string {
	switch b.Code {
	case "033":
		return a.Agency + " / " + a.Code
	case "237", "001":
		return a.Agency + "-" + a.AgencyDV + " / " + a.Account + "-" + a.AccountDV
	case "104":
		return a.Agency + " / " + a.Code + "-" + caixaDV(a.Code)
	}
	return a.Agency + " / " + a.Account + "-" + a.AccountDV
}

// Boleto builds the boleto of an our-number: the bar code and typeable
// line with the bank's free field.
func (b *Bank) Boleto(a Agreement, o OurNumber, due time.Time, value decimal.Decimal) (brdoc.Boleto, error) {
	return brdoc.NewBankBoleto(b.Code, due, value, b.free(a, o.Number, o.DV))
}

var itau = &Bank{
	Code: "341", Name: "Itaú Unibanco", Provider: "provider_a", OurDigits: 8,
	// Registered wallets whose our-number DAC covers agency, account,
	// wallet and number (Itaú's boleto manual, Anexo 4); 126, 131, 145,
	// 150 and 168 compute it otherwise and are not offered.
	wallets: []string{"109", "110", "111", "112", "115", "121", "180", "188"},
	check: func(a *Agreement) error {
		a.AgencyDV = ""
		if err := fixed("agency", &a.Agency, 4); err != nil {
			return err
		}
		if err := fixed("account", &a.Account, 5); err != nil {
			return err
		}
		if want := strconv.Itoa(brdoc.Mod10(a.Agency + a.Account)); a.AccountDV != want {
			return &FieldError{"account", "the account's DAC (module 10 of agency and account) is " + want}
		}
		a.Code = ""
		return nil
	},
	ourDV: func(a Agreement, num string) string {
		return strconv.Itoa(brdoc.Mod10(a.Agency + a.Account + a.Wallet + num))
	},
	// Itaú's boleto manual: wallet (3), our-number (8), its DAC, agency
	// (4), account (5), the DAC of agency and account, 000.
	free: func(a Agreement, num, dv string) string {
		return a.Wallet + num + dv + a.Agency + a.Account + strconv.Itoa(brdoc.Mod10(a.Agency+a.Account)) + "000"
	},
	layout: itauLayout,
}

// bradescoDV is Bradesco's module 11 with weights 2..top: 10 is P, 11 is 0.
func bradescoDV(s string, top int) string {
	switch d := 11 - mod11(s, top)%11; d {
	case 10:
		return "P"
	case 11:
		return "0"
	default:
		return strconv.Itoa(d)
	}
}

var bradesco = &Bank{
	Code: "237", Name: "Banco Bradesco", Provider: "provider_b", OurDigits: 11,
	wallets: []string{"02", "04", "06", "09", "19", "21", "26"},
	check: func(a *Agreement) error {
		if err := fixed("agency", &a.Agency, 4); err != nil {
			return err
		}
		if a.AgencyDV == "" {
			return &FieldError{"agency", "give the agency with its digit (AGENCY-D)"}
		}
		// The agency's digit is module 11 too, weights 2 to 5 (1234-3):
		// a wrong one names another agency, and the bank refuses the file.
		if want := bradescoDV(a.Agency, 5); a.AgencyDV != want {
			return &FieldError{"agency", "the agency's digit (module 11, weights 2 to 5) is " + want}
		}
		if err := fixed("account", &a.Account, 7); err != nil {
			return err
		}
		if want := bradescoDV(a.Account, 7); a.AccountDV != want {
			return &FieldError{"account", "the account's digit (module 11, weights 2 to 7) is " + want}
		}
		if a.Code == "" {
			return &FieldError{"agreement", "Bradesco gives the agreement a code (código do convênio): required"}
		}
		return fixed("agreement", &a.Code, 20)
	},
	// Module 11 base 7 over wallet and number; remainder 1 is P (Bradesco's
	// boleto manual, "dígito de auto-conferência").
	ourDV: func(a Agreement, num string) string {
		switch r := mod11(a.Wallet+num, 7) % 11; r {
		case 0:
			return "0"
		case 1:
			return "P"
		default:
			return strconv.Itoa(11 - r)
		}
	},
	// Agency (4), wallet (2), our-number (11), account (7), 0.
	free: func(a Agreement, num, _ string) string {
		return a.Agency + a.Wallet + num + a.Account + "0"
	},
	layout: bradescoLayout,
}

var santander = &Bank{
	Code: "033", Name: "Banco Santander", Provider: "provider_c", OurDigits: 12,
	wallets: []string{"101", "102", "104", "201"},
	check: func(a *Agreement) error {
		if err := fixed("agency", &a.Agency, 4); err != nil {
			return err
		}
		if err := fixed("account", &a.Account, 9); err != nil {
			return err
		}
		if a.AccountDV == "" || !digitsOnly.MatchString(a.AccountDV) {
			return &FieldError{"account", "give the account with its digit (ACCOUNT-D)"}
		}
		if a.Code == "" {
			return &FieldError{"agreement", "Santander gives the beneficiary a code (código do beneficiário, 7 digits): required"}
		}
		return fixed("agreement", &a.Code, 7)
	},
	// Module 11, weights 2..9: remainder 10 is 1, 0 and 1 are 0
	// (Santander's boleto manual, "Nosso Número").
	ourDV: func(a Agreement, num string) string {
		switch r := mod11(num, 9) % 11; r {
		case 0, 1:
			return "0"
		case 10:
			return "1"
		default:
			return strconv.Itoa(11 - r)
		}
	},
	// 9, beneficiary code (7), our-number with its digit (13), IOF 0,
	// wallet (3).
	free: func(a Agreement, num, dv string) string {
		return "9" + a.Code + num + dv + "0" + a.Wallet
	},
	// The our-number and its digit are one field in segments P and T.
	inFile:   func(o OurNumber) string { return o.Number + o.DV },
	fromFile: func(s string) OurNumber { return OurNumber{Number: s[:len(s)-1], DV: s[len(s)-1:]} },
	layout:   santanderLayout,
}

// SampleOf is a sample agreement with the bank of code, valid by its
// rules (the demo's and the tests' agreement with a bank no slot has by
// default); false for a bank fincom does not collect through.
func SampleOf(code string) (Agreement, bool) {
	for _, a := range Samples() {
		if a.Bank == code {
			return a, true
		}
	}
	switch code {
	case "001":
		return Agreement{Bank: "001", Agency: "1234", AgencyDV: "3", Account: "00123456", AccountDV: "0", Wallet: "17", Variation: "019",
			Code: "1234567"}, true
	case "104":
		return Agreement{Bank: "104", Agency: "1234", AgencyDV: "0", Account: "000300001234", AccountDV: "5", Wallet: "RG", Code: "005507"}, true
	}
	return Agreement{}, false
}

// Samples are the agreements test mode and the demo give a unit that has
// none: valid by each bank's rules (Itaú's manual example account), marked
// simulated, so that a production server never uses them.
func Samples() map[string]Agreement {
	return map[string]Agreement{
		"provider_a": {Provider: "provider_a", Bank: "341", Agency: "0057", Account: "12345", AccountDV: "7", Wallet: "109"},
		"provider_b": {Provider: "provider_b", Bank: "237", Agency: "1234", AgencyDV: "3", Account: "0506511", AccountDV: "9", Wallet: "09",
			Code: "00000000000000004321"},
		"provider_c": {Provider: "provider_c", Bank: "033", Agency: "3270", AgencyDV: "0", Account: "013000123", AccountDV: "4", Wallet: "101",
			Code: "1234567"},
	}
}
