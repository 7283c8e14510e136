package bank

// Itaú's CNAB 240 collection layout: "Cobrança Itaú — CNAB 240", layout
// 040 (file) and 030 (batch), Itaú Unibanco, January 2017. Every position
// below is the manual's.
var itauLayout = layout{
	manual: "Itaú Unibanco, Cobrança CNAB 240, file layout 040, batch layout 030 (January 2017)",
	fileHeader: recordOf(`
bank 1 3 9 341
batch 4 7 9 0000
type 8 8 9 0
- 9 17 X
inscription_kind 18 18 9
inscription 19 32 9
- 33 52 X
- 53 53 9
agency 54 57 9
- 58 58 X
- 59 65 9
account 66 70 9
- 71 71 X
account_dac 72 72 9
firm 73 102 X
bank_name 103 132 X BANCO ITAU SA
- 133 142 X
direction 143 143 9 1
date 144 151 9
time 152 157 9
sequence 158 163 9
layout 164 166 9 040
- 167 171 9
- 172 225 X
- 226 228 9
- 229 240 X`),
	batchHeader: recordOf(`
bank 1 3 9 341
batch 4 7 9
type 8 8 9 1
operation 9 9 X R
service 10 11 9 01
- 12 13 9
layout 14 16 9 030
- 17 17 X
inscription_kind 18 18 9
inscription 19 33 9
- 34 53 X
- 54 54 9
agency 55 58 9
- 59 59 X
- 60 66 9
account 67 71 9
- 72 72 X
account_dac 73 73 9
firm 74 103 X
- 104 183 X
sequence 184 191 9
date 192 199 9
credit_date 200 207 9
- 208 240 X`),
	p: recordOf(`
bank 1 3 9 341
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X P
- 15 15 X
movement 16 17 9
- 18 18 9
agency 19 22 9
- 23 23 X
- 24 30 9
account 31 35 9
- 36 36 X
account_dac 37 37 9
wallet 38 40 9
our_number 41 48 9
our_dv 49 49 9
- 50 57 X
- 58 62 9
document 63 72 X
- 73 77 X
due 78 85 9
amount 86 100 9
collector 101 105 9
collector_dac 106 106 9
kind 107 108 9
accept 109 109 X
issued 110 117 9
- 118 118 9
interest_date 119 126 9
interest 127 141 9
- 142 142 9
discount_date 143 150 9
discount 151 165 9
iof 166 180 9
rebate 181 195 9
firm_use 196 220 X
protest 221 221 9
protest_days 222 223 9
writeoff 224 224 9
writeoff_days 225 226 9
- 227 239 9
- 240 240 X`),
	q: recordOf(`
bank 1 3 9 341
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X Q
- 15 15 X
movement 16 17 9
payer_kind 18 18 9
payer_id 19 33 9
payer 34 63 X
- 64 73 X
street 74 113 X
district 114 128 X
zip 129 133 9
zip_suffix 134 136 9
city 137 151 X
state 152 153 X
guarantor_kind 154 154 9
guarantor_id 155 169 9
guarantor 170 199 X
- 200 209 X
- 210 212 9
- 213 240 X`),
	r: recordOf(`
bank 1 3 9 341
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X R
- 15 15 X
movement 16 17 9
- 18 18 9
discount2_date 19 26 9
discount2 27 41 9
- 42 42 9
discount3_date 43 50 9
discount3 51 65 9
fine_code 66 66 9
fine_date 67 74 9
fine 75 89 9
- 90 99 X
message 100 139 X
- 140 199 X
payer_occurrence 200 207 9
- 208 215 9
- 216 216 X
- 217 228 9
- 229 230 X
- 231 231 9
- 232 240 X`),
	batchTrailer: recordOf(`
bank 1 3 9 341
batch 4 7 9
type 8 8 9 5
- 9 17 X
records 18 23 9
simple_count 24 29 9
simple_total 30 46 9
bound_count 47 52 9
bound_total 53 69 9
- 70 115 9
notice 116 123 X
- 124 240 X`),
	fileTrailer: recordOf(`
bank 1 3 9 341
batch 4 7 9 9999
type 8 8 9 9
- 9 17 X
batches 18 23 9
records 24 29 9
- 30 35 9
- 36 240 X`),
	t: recordOf(`
bank 1 3 9 341
batch 4 7 9
type 8 8 9 3
seq 9 13 9
segment 14 14 X T
movement 16 17 9
wallet 38 40 9
our_number 41 48 9
our_dv 49 49 9
document 59 68 X
due 74 81 9
amount 82 96 9
fee 199 213 9
reasons 214 221 X
liquidation 222 223 X`),
	u: recordOf(`
bank 1 3 9 341
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
credited 146 153 9`),
	ourNumberInT: func(line string) string { return line[40:48] },
	// Itaú's note 22 (return movement codes).
	movements: map[string]string{
		"02": "entrada confirmada", "03": "entrada rejeitada", "04": "alteração de dados - nova entrada ou alteração/exclusão de dados acatada",
		"06": "liquidação normal", "08": "liquidação em cartório", "09": "baixa simples", "10": "baixa por ter sido liquidado",
		"14": "abatimento concedido", "17": "liquidação após baixa ou título não registrado", "23": "título enviado a cartório",
		"25": "abatimento cancelado", "32": "baixa rejeitada", "33": "alteração de dados rejeitada",
	},
	registeredMovements: []string{"02"},
	rejectedMovements:   []string{"03", "32", "33"},
	paidMovements:       []string{"06", "08", "10", "17"},
	writeoffMovements:   []string{"09"},
	// Itaú's table 1 (reasons an entry is rejected), the codes fincom can
	// cause.
	rejections: map[string]string{
		"03": "AG. COBRADORA - não foi possível atribuir a agência pelo CEP ou CEP inválido",
		"04": "ESTADO - sigla do estado inválida", "05": "DATA VENCIMENTO - prazo da operação menor que prazo mínimo ou maior que o máximo",
		"07": "VALOR DO TÍTULO - valor do título maior que 10.000.000,00", "08": "NOME DO PAGADOR - não informado ou deslocado",
		"09": "AGENCIA/CONTA - agência encerrada", "10": "LOGRADOURO - não informado ou deslocado",
		"11": "CEP - CEP não numérico ou CEP inválido", "13": "ESTADO/CEP - CEP incompatível com a sigla do estado",
		"14": "NOSSO NÚMERO - nosso número já registrado no cadastro do banco ou fora da faixa",
		"15": "NOSSO NÚMERO - nosso número em duplicidade no mesmo movimento", "18": "DATA DE ENTRADA - data de entrada inválida para operar com esta carteira",
		"19": "OCORRÊNCIA - ocorrência inválida", "21": "AG. COBRADORA - carteira não aceita depositária correspondente",
		"22": "CARTEIRA - carteira não permitida (necessário cadastrar faixa livre)", "27": "CNPJ INAPTO - CNPJ do beneficiário inapto",
		"35": "VALOR DO IOF - IOF maior que 5%", "36": "QTDADE DE MOEDA - quantidade de moeda incompatível com valor do título",
		"37": "CNPJ/CPF DO PAGADOR - não numérico ou igual a zeros", "42": "NOSSO NÚMERO - nosso número fora de faixa",
		"52": "AG. COBRADORA - empresa não aceita banco correspondente", "57": "VALOR DO TÍTULO - valor inválido",
		"62": "CÓDIGO DA MULTA - código inválido", "63": "DATA DA MULTA - data inválida",
	},
}
