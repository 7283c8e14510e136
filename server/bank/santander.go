package bank

// Santander's CNAB 240 collection layout: "Layout de Arquivos CNAB 240
// posições — Cobrança" (H7815, version 2.9), file layout 040 and batch
// layout 030, with the transmission code in the headers.
var santanderLayout = layout{
	manual: "Banco Santander, Layout de Arquivos CNAB 240 Cobrança H7815 version 2.9, file layout 040, batch layout 030",
	fileHeader: recordOf(`
bank 1 3 9 033
batch 4 7 9 0000
type 8 8 9 0
- 9 16 X
inscription_kind 17 17 9
inscription 18 32 9
transmission 33 47 9
- 48 72 X
firm 73 102 X
bank_name 103 132 X BANCO SANTANDER
- 133 142 X
direction 143 143 9 1
date 144 151 9
- 152 157 X
sequence 158 163 9
layout 164 166 9 040
- 167 240 X`),
	batchHeader: recordOf(`
bank 1 3 9 033
batch 4 7 9
type 8 8 9 1
operation 9 9 X R
service 10 11 9 01
- 12 13 X
layout 14 16 9 030
- 17 17 X
inscription_kind 18 18 9
inscription 19 33 9
- 34 53 X
transmission 54 68 9
- 69 73 X
firm 74 103 X
- 104 143 X
- 144 183 X
sequence 184 191 9
date 192 199 9
- 200 240 X`),
	p: recordOf(`
bank 1 3 9 033
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X P
- 15 15 X
movement 16 17 9
agency 18 21 9
agency_dv 22 22 9
account 23 31 9
account_dv 32 32 9
collection_account 33 41 9
collection_account_dv 42 42 9
- 43 44 X
our_number 45 57 9
portfolio 58 58 X 5
registration 59 59 9 1
doc_kind 60 60 9 1
- 61 61 X
- 62 62 X
document 63 77 X
due 78 85 9
amount 86 100 9
collector 101 104 9
collector_dv 105 105 9
- 106 106 X
kind 107 108 9
accept 109 109 X
issued 110 117 9
interest_code 118 118 9
interest_date 119 126 9
interest 127 141 9
discount_code 142 142 9
discount_date 143 150 9
discount 151 165 9
iof 166 180 9
rebate 181 195 9
firm_use 196 220 X
protest 221 221 9
protest_days 222 223 9
writeoff 224 224 9
- 225 225 9
writeoff_days 226 227 9
currency 228 229 9 00
- 230 240 X`),
	q: recordOf(`
bank 1 3 9 033
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X Q
- 15 15 X
movement 16 17 9
payer_kind 18 18 9
payer_id 19 33 9
payer 34 73 X
street 74 113 X
district 114 128 X
zip 129 133 9
zip_suffix 134 136 9
city 137 151 X
state 152 153 X
guarantor_kind 154 154 9
guarantor_id 155 169 9
guarantor 170 209 X
- 210 212 9
- 213 215 9
- 216 218 9
- 219 221 9
- 222 240 X`),
	r: recordOf(`
bank 1 3 9 033
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X R
- 15 15 X
movement 16 17 9
discount2_code 18 18 9
discount2_date 19 26 9
discount2 27 41 9
- 42 65 X
fine_code 66 66 9
fine_date 67 74 9
fine 75 89 9
- 90 99 X
message 100 139 X
- 140 179 X
- 180 240 X`),
	batchTrailer: recordOf(`
bank 1 3 9 033
batch 4 7 9
type 8 8 9 5
- 9 17 X
records 18 23 9
- 24 240 X`),
	fileTrailer: recordOf(`
bank 1 3 9 033
batch 4 7 9 9999
type 8 8 9 9
- 9 17 X
batches 18 23 9
records 24 29 9
- 30 240 X`),
	t: recordOf(`
bank 1 3 9 033
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X T
movement 16 17 9
our_number 41 53 9
document 55 69 X
due 70 77 9
amount 78 92 9
fee 194 208 9
reasons 209 218 X`),
	u:            febrabanU("033"),
	ourNumberInT: func(line string) string { return line[40:52] },
	// Santander's note 41 (return movements) and 41-A (rejections).
	movements:           febrabanMovements,
	rejections:          febrabanRejections,
	registeredMovements: []string{"02"},
	rejectedMovements:   []string{"03", "26", "30"},
	paidMovements:       []string{"06", "17"},
	writeoffMovements:   []string{"09"},
}
