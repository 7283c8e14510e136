package bank

import "strconv"

// caixaDV is Caixa's module 11 (weights 2 to 9 from the right, 11 less
// the remainder; above 9 is 0): the beneficiary code's digit, the
// our-number's and the free field's.
func caixaDV(s string) string {
	if d := 11 - mod11(s, 9)%11; d <= 9 {
		return strconv.Itoa(d)
	}
	return "0"
}

// caixaModality is the our-number's kind and issuer as SIGCB composes
// it: 1, registered; 4, issued by the beneficiary (the firm prints its
// boletos).
const caixaModality = "14"

var caixa = &Bank{
	Code: "104", Name: "Caixa Econômica Federal", OurDigits: 15,
	// SIGCB's registered collection ("RG"), the boletos issued by the firm.
	wallets: []string{"RG"},
	check: func(a *Agreement) error {
		if err := fixed("agency", &a.Agency, 4); err != nil {
			return err
		}
		// Caixa publishes no agency digit; the files carry 0.
		if a.AgencyDV == "" {
			a.AgencyDV = "0"
		}
		if !digitsOnly.MatchString(a.AgencyDV) || len(a.AgencyDV) != 1 {
			return &FieldError{"agency", "the agency's digit is one digit"}
		}
		// The account (operation and number) is where the money lands;
		// the files name the firm by its beneficiary code.
		if err := fixed("account", &a.Account, 12); err != nil {
			return err
		}
		if len(a.AccountDV) != 1 || !digitsOnly.MatchString(a.AccountDV) {
			return &FieldError{"account", "give the account with its digit (ACCOUNT-D)"}
		}
		if a.Code == "" {
			return &FieldError{"agreement", "Caixa gives the beneficiary a code (código do beneficiário, 6 digits): required"}
		}
		return fixed("agreement", &a.Code, 6)
	},
	// Module 11 over the modality and the 15-digit number (SIGCB's manual,
	// "Nosso Número").
	ourDV:    func(_ Agreement, num string) string { return caixaDV(caixaModality + num) },
	fromFile: func(s string) OurNumber { return OurNumber{Number: s, DV: caixaDV(caixaModality + s)} },
	// Beneficiary code (6) and its digit, the number's digits 1-3, 1
	// (registered), digits 4-6, 4 (issued by the beneficiary), digits
	// 7-15, and the free field's own digit (SIGCB's bar code
	// specification).
	free: func(a Agreement, num, _ string) string {
		f := a.Code + caixaDV(a.Code) + num[0:3] + caixaModality[:1] + num[3:6] + caixaModality[1:] + num[6:15]
		return f + caixaDV(f)
	},
	layout: caixaLayout,
}

// Caixa's CNAB 240 collection layout: "Leiaute de Arquivo Eletrônico
// Padrão CNAB 240 — Cobrança Bancária CAIXA (SIGCB)", file layout 050 and
// batch layout 030: FEBRABAN's positions with the beneficiary code in
// place of the account and the 15-digit our-number after its modality.
var caixaLayout = layout{
	manual: "Caixa Econômica Federal, Leiaute de Arquivo Eletrônico Padrão CNAB 240 Cobrança Bancária SIGCB, file layout 050, batch layout 030",
	fileHeader: recordOf(`
bank 1 3 9 104
batch 4 7 9 0000
type 8 8 9 0
- 9 17 X
inscription_kind 18 18 9
inscription 19 32 9
- 33 52 9
agency 53 57 9
agency_dv 58 58 9
agreement 59 64 9
- 65 71 9
- 72 72 9
firm 73 102 X
bank_name 103 132 X CAIXA ECONOMICA FEDERAL
- 133 142 X
direction 143 143 9 1
date 144 151 9
time 152 157 9
sequence 158 163 9
layout 164 166 9 050
density 167 171 9 00000
- 172 191 X
firm_reserved 192 211 X REMESSA-PRODUCAO
- 212 215 X
- 216 240 X`),
	batchHeader: recordOf(`
bank 1 3 9 104
batch 4 7 9
type 8 8 9 1
operation 9 9 X R
service 10 11 9 01
- 12 13 9
layout 14 16 9 030
- 17 17 X
inscription_kind 18 18 9
inscription 19 33 9
agreement 34 39 9
- 40 53 9
agency 54 58 9
agency_dv 59 59 9
agreement 60 65 9
- 66 72 9
- 73 73 9
firm 74 103 X
- 104 143 X
- 144 183 X
sequence 184 191 9
date 192 199 9
- 200 207 9
- 208 240 X`),
	p: recordOf(`
bank 1 3 9 104
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X P
- 15 15 X
movement 16 17 9
agency 18 22 9
agency_dv 23 23 9
agreement 24 29 9
- 30 37 9
- 38 40 9
modality 41 42 9 14
our_number 43 57 9
portfolio 58 58 9 1
registration 59 59 9 1
doc_kind 60 60 9 2
emission 61 61 9 2
distribution 62 62 9 0
document 63 73 X
- 74 77 X
due 78 85 9
amount 86 100 9
collector 101 105 9
collector_dv 106 106 9
` + febrabanPFrom107),
	q: febrabanQ("104"),
	r: recordOf(`
bank 1 3 9 104
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X R
- 15 15 X
movement 16 17 9
- 18 65 9
fine_code 66 66 9
fine_date 67 74 9
fine 75 89 9
- 90 99 X
message 100 139 X
- 140 179 X
- 180 229 X
- 230 240 X`),
	batchTrailer: recordOf(`
bank 1 3 9 104
batch 4 7 9
type 8 8 9 5
- 9 17 X
records 18 23 9
simple_count 24 29 9
simple_total 30 46 9
bound_count 47 52 9
bound_total 53 69 9
- 70 75 9
- 76 92 9
- 93 123 X
- 124 240 X`),
	fileTrailer: febrabanFileTrailer("104"),
	t: recordOf(`
bank 1 3 9 104
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X T
movement 16 17 9
agreement 24 29 9
modality 40 41 9 14
our_number 42 56 9
document 59 69 X
due 74 81 9
amount 82 96 9
fee 199 213 9
reasons 214 223 X`),
	u:            febrabanU("104"),
	ourNumberInT: func(line string) string { return line[41:56] },
	// SIGCB's return movements and rejection reasons are FEBRABAN's C044
	// and C047-A.
	movements:           febrabanMovements,
	rejections:          febrabanRejections,
	registeredMovements: []string{"02"},
	rejectedMovements:   []string{"03", "26", "30"},
	paidMovements:       []string{"06", "17"},
	writeoffMovements:   []string{"09"},
}
