package bank

// Bradesco's CNAB 240 collection layout: "Layout de Arquivo Padrão CNAB
// 240 — Cobrança Bradesco", file layout 084 and batch layout 042, FEBRABAN
// positions with Bradesco's identification of the title in segment P
// (product, our-number and its digit) and the agreement code in the
// headers.
var bradescoLayout = layout{
	manual: "Banco Bradesco, Layout de Arquivo Padrão CNAB 240 Cobrança, file layout 084, batch layout 042",
	fileHeader: recordOf(`
bank 1 3 9 237
batch 4 7 9 0000
type 8 8 9 0
- 9 17 X
inscription_kind 18 18 9
inscription 19 32 9
agreement 33 52 X
agency 53 57 9
agency_dv 58 58 X
account 59 70 9
account_dv 71 71 X
- 72 72 X
firm 73 102 X
bank_name 103 132 X BRADESCO
- 133 142 X
direction 143 143 9 1
date 144 151 9
time 152 157 9
sequence 158 163 9
layout 164 166 9 084
density 167 171 9 06250
- 172 191 X
- 192 211 X
- 212 240 X`),
	batchHeader: recordOf(`
bank 1 3 9 237
batch 4 7 9
type 8 8 9 1
operation 9 9 X R
service 10 11 9 01
- 12 13 X
layout 14 16 9 042
- 17 17 X
inscription_kind 18 18 9
inscription 19 33 9
agreement 34 53 X
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
credit_date 200 207 9
- 208 240 X`),
	p: recordOf(`
bank 1 3 9 237
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
wallet 38 40 9
- 41 45 9
our_number 46 56 9
our_dv 57 57 X
portfolio 58 58 9 1
registration 59 59 9 1
doc_kind 60 60 X 1
issuer 61 61 9 2
distribution 62 62 X 2
document 63 77 X
due 78 85 9
amount 86 100 9
collector 101 105 9
collector_dac 106 106 X
` + febrabanPFrom107),
	q: febrabanQ("237"),
	r: recordOf(`
bank 1 3 9 237
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X R
- 15 15 X
movement 16 17 9
discount2_code 18 18 9
discount2_date 19 26 9
discount2 27 41 9
discount3_code 42 42 9
discount3_date 43 50 9
discount3 51 65 9
fine_code 66 66 X
fine_date 67 74 9
fine 75 89 9
- 90 99 X
message 100 139 X
- 140 179 X
- 180 199 X
payer_occurrence 200 207 9
- 208 210 9
- 211 215 9
- 216 216 X
- 217 228 9
- 229 229 X
- 230 230 X
- 231 231 9
- 232 240 X`),
	batchTrailer: febrabanBatchTrailer("237"),
	fileTrailer:  febrabanFileTrailer("237"),
	t: recordOf(`
bank 1 3 9 237
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X T
movement 16 17 9
wallet 38 40 9
our_number 46 56 9
our_dv 57 57 X
document 59 73 X
due 74 81 9
amount 82 96 9
fee 199 213 9
reasons 214 223 X`),
	u:                   febrabanU("237"),
	ourNumberInT:        func(line string) string { return line[45:56] },
	movements:           febrabanMovements,
	rejections:          febrabanRejections,
	registeredMovements: []string{"02"},
	rejectedMovements:   []string{"03", "26", "30"},
	paidMovements:       []string{"06", "17"},
	writeoffMovements:   []string{"09", "25"},
}
