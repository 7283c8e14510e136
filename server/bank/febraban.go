package bank

// FEBRABAN's CNAB 240 (version 10.x) records that Bradesco and Santander
// keep as FEBRABAN lays them out, and FEBRABAN's tables of return
// movements (C044) and rejection reasons (C047-A).

// febrabanPFrom107 is segment P from column 107 (species, acceptance,
// issue date, interest, discount, IOF, rebate, the firm's use, protest,
// write-off, currency) as FEBRABAN lays it out and Bradesco, Banco do
// Brasil and Caixa keep it.
const febrabanPFrom107 = `kind 107 108 9
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
writeoff_days 225 227 9
currency 228 229 9 09
- 230 239 9
- 240 240 X`

// febrabanQ is segment Q (payer) for the bank of code.
func febrabanQ(code string) record {
	return recordOf(`
bank 1 3 9 ` + code + `
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
- 213 232 X
- 233 240 X`)
}

func febrabanBatchTrailer(code string) record {
	return recordOf(`
bank 1 3 9 ` + code + `
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
- 93 98 9
- 99 115 9
notice 116 123 X
- 124 240 X`)
}

func febrabanFileTrailer(code string) record {
	return recordOf(`
bank 1 3 9 ` + code + `
batch 4 7 9 9999
type 8 8 9 9
- 9 17 X
batches 18 23 9
records 24 29 9
- 30 35 9
- 36 240 X`)
}

// febrabanU is segment U as FEBRABAN lays it out (all three banks agree).
func febrabanU(code string) record {
	return recordOf(`
bank 1 3 9 ` + code + `
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X U
movement 16 17 9
charges 18 32 9
discount 33 47 9
rebate 48 62 9
paid 78 92 9
net 93 107 9
occurred 138 145 9
credited 146 153 9`)
}

// febrabanMovements is FEBRABAN's C044 (return movement codes).
var febrabanMovements = map[string]string{
	"02": "entrada confirmada", "03": "entrada rejeitada", "04": "transferência de carteira/entrada",
	"05": "transferência de carteira/baixa", "06": "liquidação", "09": "baixa", "11": "títulos em carteira (em ser)",
	"12": "confirmação recebimento instrução de abatimento", "13": "confirmação recebimento instrução de cancelamento abatimento",
	"14": "confirmação recebimento instrução alteração de vencimento", "17": "liquidação após baixa ou liquidação título não registrado",
	"19": "confirmação recebimento instrução de protesto", "23": "remessa a cartório", "25": "protestado e baixado",
	"26": "instrução rejeitada", "27": "confirmação do pedido de alteração de outros dados", "28": "débito de tarifas/custas",
	"30": "alteração de dados rejeitada",
}

// febrabanRejections is FEBRABAN's C047-A (reasons of a rejected entry).
var febrabanRejections = map[string]string{
	"01": "código do banco inválido", "02": "código do registro detalhe inválido", "03": "código do segmento inválido",
	"04": "código de movimento não permitido para carteira", "05": "código de movimento inválido",
	"06": "tipo/número de inscrição do beneficiário inválidos", "07": "agência/conta/DV inválido", "08": "nosso número inválido",
	"09": "nosso número duplicado", "10": "carteira inválida", "11": "forma de cadastramento do título inválido",
	"12": "tipo de documento inválido", "16": "data de vencimento inválida", "17": "data de vencimento anterior a data de emissão",
	"20": "valor do título inválido", "21": "espécie do título inválida", "23": "aceite inválido", "24": "data da emissão inválida",
	"27": "valor/taxa de juros mora inválido", "45": "nome do pagador não informado", "46": "tipo/número de inscrição do pagador inválidos",
	"47": "endereço do pagador não informado", "48": "CEP inválido", "52": "unidade da federação inválida",
	"63": "entrada para título já cadastrado",
}

// febrabanR is segment R (fine, further discounts, messages) as FEBRABAN
// lays it out, for a bank that keeps it so.
func febrabanR(code string) record {
	return recordOf(`
bank 1 3 9 ` + code + `
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
fine_code 66 66 9
fine_date 67 74 9
fine 75 89 9
- 90 99 X
message 100 139 X
- 140 179 X
- 180 199 X
- 200 207 9
- 208 210 9
- 211 215 9
- 216 216 X
- 217 228 9
- 229 229 X
- 230 230 X
- 231 231 9
- 232 240 X`)
}
