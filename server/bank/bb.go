package bank

import (
	"strconv"
	"strings"
)

// bbDV is Banco do Brasil's module 11 (weights 2 to 9 from the right, 11
// less the remainder): 10 is X, 11 is 0. The agency's digit (4 digits),
// the account's (8) and the our-number's (11) are all computed so: BB's
// manual states it as weights 9 to 2 and the remainder, the same digit.
func bbDV(s string) string {
	switch d := 11 - mod11(s, 9)%11; d {
	case 10:
		return "X"
	case 11:
		return "0"
	default:
		return strconv.Itoa(d)
	}
}

// bbSeqDigits: BB composes the our-number of the convênio and a
// sequence, 17 digits without a check digit for a 7-digit convênio, 11
// with one for a 4- or 6-digit convênio ("nosso número" in BB's CNAB 240
// manual, segment P, field 38-57).
func bbSeqDigits(a Agreement) int {
	switch len(a.Code) {
	case 4:
		return 7
	case 6:
		return 5
	}
	return 10
}

var bancoDoBrasil = &Bank{
	Code: "001", Name: "Banco do Brasil", OurDigits: 10,
	// The simple collection wallets whose boletos the firm prints: 17
	// (the usual one), 11 and 12. Wallets 16 and 18 with a 17-digit
	// "nosso número livre", and the pledged or discounted ones (31, 51),
	// are not offered.
	wallets: []string{"11", "12", "17"},
	check: func(a *Agreement) error {
		if err := fixed("agency", &a.Agency, 4); err != nil {
			return err
		}
		a.AgencyDV = strings.ToUpper(a.AgencyDV)
		if a.AgencyDV == "" {
			return &FieldError{"agency", "give the agency with its digit (AGENCY-D)"}
		}
		if want := bbDV(a.Agency); a.AgencyDV != want {
			return &FieldError{"agency", "the agency's digit (module 11) is " + want}
		}
		if err := fixed("account", &a.Account, 8); err != nil {
			return err
		}
		a.AccountDV = strings.ToUpper(a.AccountDV)
		if want := bbDV(a.Account); a.AccountDV != want {
			return &FieldError{"account", "the account's digit (module 11) is " + want}
		}
		// The convênio's length decides the our-number's shape: 4 digits
		// (0001-9999), 6 (010000-999999) or 7 (from 1000000).
		c := a.Code
		if !digitsOnly.MatchString(c) || !(len(c) == 4 && c != "0000" || len(c) == 6 && c >= "010000" || len(c) == 7 && c[0] != '0') {
			return &FieldError{"agreement", "Banco do Brasil's convênio has 4 digits (0001 to 9999), 6 (010000 to 999999) or 7 (from 1000000): required"}
		}
		if a.Variation == "" {
			return &FieldError{"variation", "Banco do Brasil gives the wallet a variation (variação da carteira, 3 digits, 019 for instance): required"}
		}
		return fixed("variation", &a.Variation, 3)
	},
	seqDigits: bbSeqDigits,
	compose:   func(a Agreement, seq string) string { return a.Code + seq },
	// A 7-digit convênio's our-number has no check digit.
	ourDV: func(a Agreement, num string) string {
		if len(num) == 17 {
			return ""
		}
		return bbDV(num)
	},
	sequence: func(a Agreement, num string) (int64, bool) {
		rest, ok := strings.CutPrefix(num, a.Code)
		if !ok || len(rest) != bbSeqDigits(a) {
			return 0, false
		}
		n, err := strconv.ParseInt(rest, 10, 64)
		return n, err == nil && n > 0
	},
	inFile: func(o OurNumber) string { return o.Number + o.DV },
	fromFile: func(s string) OurNumber {
		if len(s) == 12 {
			return OurNumber{Number: s[:11], DV: s[11:]}
		}
		return OurNumber{Number: s}
	},
	// BB's boleto manual, "campo livre": for a 7-digit convênio six zeros,
	// the our-number (17) and the wallet (2); for 4 or 6 digits the
	// our-number (11, without its digit), agency (4), account (8) and
	// wallet.
	free: func(a Agreement, num, _ string) string {
		if len(num) == 17 {
			return "000000" + num + a.Wallet
		}
		return num + a.Agency + a.Account + a.Wallet
	},
	layout: bbLayout,
}

// Banco do Brasil's CNAB 240 collection layout: "Layout de Arquivo
// Padrão CNAB 240 — Cobrança" (BB, CbrVer04BB), file layout 084 and batch
// layout 043: FEBRABAN's positions with BB's convênio, wallet and
// variation in the headers and its 20-column our-number in segment P.
var bbLayout = layout{
	manual: "Banco do Brasil, Layout de Arquivo Padrão CNAB 240 Cobrança (CbrVer04BB), file layout 084, batch layout 043",
	fileHeader: recordOf(`
bank 1 3 9 001
batch 4 7 9 0000
type 8 8 9 0
- 9 17 X
inscription_kind 18 18 9
inscription 19 32 9
agreement 33 41 9
collection 42 45 9 0014
wallet 46 47 9
variation 48 50 9
- 51 52 X
agency 53 57 9
agency_dv 58 58 X
account 59 70 9
account_dv 71 71 X
- 72 72 X
firm 73 102 X
bank_name 103 132 X BANCO DO BRASIL S.A.
- 133 142 X
direction 143 143 9 1
date 144 151 9
time 152 157 9
sequence 158 163 9
layout 164 166 9 084
density 167 171 9 00000
- 172 191 X
- 192 211 X
- 212 222 X
- 223 225 X
- 226 228 X
- 229 230 X
- 231 240 X`),
	batchHeader: recordOf(`
bank 1 3 9 001
batch 4 7 9
type 8 8 9 1
operation 9 9 X R
service 10 11 9 01
- 12 13 X
layout 14 16 9 043
- 17 17 X
inscription_kind 18 18 9
inscription 19 33 9
agreement 34 42 9
collection 43 46 9 0014
wallet 47 48 9
variation 49 51 9
- 52 53 X
agency 54 58 9
agency_dv 59 59 X
account 60 71 9
account_dv 72 72 X
- 73 73 X
firm 74 103 X
- 104 143 X
- 144 183 X
sequence 184 191 9
date 192 199 9
- 200 207 9
- 208 240 X`),
	p: recordOf(`
bank 1 3 9 001
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X P
- 15 15 X
movement 16 17 9
agency 18 22 9
agency_dv 23 23 X
account 24 35 9
account_dv 36 36 X
- 37 37 X
our_number 38 57 X
portfolio 58 58 9
registration 59 59 9 1
doc_kind 60 60 X 1
emission 61 61 9 2
distribution 62 62 X 2
document 63 77 X
due 78 85 9
amount 86 100 9
collector 101 105 9
- 106 106 X
` + febrabanPFrom107),
	q: febrabanQ("001"),
	r: febrabanR("001"),
	batchTrailer: recordOf(`
bank 1 3 9 001
batch 4 7 9
type 8 8 9 5
- 9 17 X
records 18 23 9
- 24 240 X`),
	fileTrailer: febrabanFileTrailer("001"),
	t: recordOf(`
bank 1 3 9 001
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X T
movement 16 17 9
our_number 38 57 X
document 59 73 X
due 74 81 9
amount 82 96 9
fee 199 213 9
reasons 214 223 X`),
	u: febrabanU("001"),
	// The our-number without BB's check digit (a 4- or 6-digit convênio's
	// has one, as the twelfth column).
	ourNumberInT: func(line string) string {
		s := strings.TrimSpace(line[37:57])
		if len(s) == 12 {
			return s[:11]
		}
		return s
	},
	// BB follows FEBRABAN's C044 and C047-A.
	movements:           febrabanMovements,
	rejections:          febrabanRejections,
	registeredMovements: []string{"02"},
	rejectedMovements:   []string{"03", "26", "30"},
	paidMovements:       []string{"06", "17"},
	writeoffMovements:   []string{"09"},
}
