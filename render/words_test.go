package render

import (
	"testing"

	"github.com/shopspring/decimal"
)

// TestAmountInWords holds the words contracts print (valor_extenso) to
// published examples: the cheque-writing rule of Brazilian grammars ("e"
// between hundreds, tens and units; between classes only before a last
// class below a hundred or a round hundred; "de reais" after whole
// millions and billions) and the pt_BR currency cases of num2words'
// test suite, written without its commas between classes.
func TestAmountInWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"0", "zero real"},
		{"0.01", "um centavo"},
		{"0.50", "cinquenta centavos"},
		{"1", "um real"},
		{"1.01", "um real e um centavo"},
		{"1.35", "um real e trinta e cinco centavos"},
		{"3.14", "três reais e catorze centavos"},
		{"14", "catorze reais"},
		{"16", "dezesseis reais"},
		{"21", "vinte e um reais"},
		{"99", "noventa e nove reais"},
		{"100", "cem reais"},
		{"101", "cento e um reais"},
		{"101.22", "cento e um reais e vinte e dois centavos"},
		{"128", "cento e vinte e oito reais"},
		{"315", "trezentos e quinze reais"},
		{"713", "setecentos e treze reais"},
		{"1000", "mil reais"},
		{"1001", "mil e um reais"},
		{"1100", "mil e cem reais"},
		{"1111", "mil cento e onze reais"},
		{"1234.56", "mil duzentos e trinta e quatro reais e cinquenta e seis centavos"},
		{"2114", "dois mil cento e catorze reais"},
		{"2345.75", "dois mil trezentos e quarenta e cinco reais e setenta e cinco centavos"},
		{"73421", "setenta e três mil quatrocentos e vinte e um reais"},
		{"100000", "cem mil reais"},
		{"250050", "duzentos e cinquenta mil e cinquenta reais"},
		{"1000000", "um milhão de reais"},
		{"1000000.50", "um milhão de reais e cinquenta centavos"},
		{"1000100", "um milhão e cem reais"},
		{"1001000", "um milhão e mil reais"},
		{"1100000", "um milhão e cem mil reais"},
		{"1230000", "um milhão duzentos e trinta mil reais"},
		{"1234567", "um milhão duzentos e trinta e quatro mil quinhentos e sessenta e sete reais"},
		{"1500000", "um milhão e quinhentos mil reais"},
		{"1500000.10", "um milhão e quinhentos mil reais e dez centavos"},
		{"2000001", "dois milhões e um reais"},
		{"2500300", "dois milhões quinhentos mil e trezentos reais"},
		{"6000000", "seis milhões de reais"},
		{"100000000", "cem milhões de reais"},
		{"1000000000", "um bilhão de reais"},
		{"1500000000", "um bilhão e quinhentos milhões de reais"},
		{"2000000001", "dois bilhões e um reais"},
		{"19000000000", "dezenove bilhões de reais"},
		{"145000000002", "cento e quarenta e cinco bilhões e dois reais"},
		{"9999999999.99", "nove bilhões novecentos e noventa e nove milhões novecentos e noventa e nove mil novecentos e noventa e nove reais e noventa e nove centavos"},
	} {
		if got := AmountInWords(decimal.RequireFromString(c.in)); got != c.want {
			t.Errorf("%s: %q, want %q", c.in, got, c.want)
		}
	}
}
