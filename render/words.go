package render

import (
	"strings"

	"github.com/shopspring/decimal"
)

var (
	units    = []string{"zero", "um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove", "dez", "onze", "doze", "treze", "catorze", "quinze", "dezesseis", "dezessete", "dezoito", "dezenove"}
	tens     = []string{"", "", "vinte", "trinta", "quarenta", "cinquenta", "sessenta", "setenta", "oitenta", "noventa"}
	hundreds = []string{"", "cento", "duzentos", "trezentos", "quatrocentos", "quinhentos", "seiscentos", "setecentos", "oitocentos", "novecentos"}
)

// below1000 writes 0 < n < 1000 in Portuguese words.
func below1000(n int) string {
	if n == 100 {
		return "cem"
	}
	var parts []string
	if n >= 100 {
		parts = append(parts, hundreds[n/100])
		n %= 100
	}
	if n >= 20 {
		parts = append(parts, tens[n/10])
		n %= 10
	}
	if n > 0 {
		parts = append(parts, units[n])
	}
	return strings.Join(parts, " e ")
}

var scales = []struct{ one, many string }{{"", ""}, {"mil", "mil"}, {"milhão", "milhões"}, {"bilhão", "bilhões"}, {"trilhão", "trilhões"}}

// intWords writes a non-negative integer in Portuguese words.
func intWords(n int64) string {
	if n == 0 {
		return "zero"
	}
	var groups []int
	for n > 0 {
		groups = append(groups, int(n%1000))
		n /= 1000
	}
	var parts []string
	for i := len(groups) - 1; i >= 0; i-- {
		g := groups[i]
		if g == 0 {
			continue
		}
		var w string
		switch {
		case i == 1 && g == 1:
			w = "mil"
		case i == 0:
			w = below1000(g)
		case g == 1:
			w = "um " + scales[i].one
		default:
			w = below1000(g) + " " + scales[i].many
		}
		parts = append(parts, w)
	}
	// Portuguese joins the last class with "e" when it is below a hundred
	// or a round hundred, whichever class it is: "mil e um", "um milhão e
	// quinhentos mil", "dois milhões quinhentos mil e trezentos", but "um
	// milhão duzentos e trinta mil" (TestAmountInWords).
	last := 0
	for groups[last] == 0 {
		last++
	}
	out := parts[0]
	for i := 1; i < len(parts); i++ {
		if i == len(parts)-1 && (groups[last] < 100 || groups[last]%100 == 0) {
			out += " e " + parts[i]
		} else {
			out += " " + parts[i]
		}
	}
	return out
}

// AmountInWords writes an amount of reais in Portuguese words, as
// contracts and receipts print it: "mil duzentos e trinta e quatro reais e
// cinquenta centavos".
func AmountInWords(v decimal.Decimal) string {
	v = v.Abs().Round(2)
	whole := v.IntPart()
	cents := v.Sub(decimal.NewFromInt(whole)).Shift(2).IntPart()
	var parts []string
	if whole > 0 {
		unit := "reais"
		if whole == 1 {
			unit = "real"
		}
		w := intWords(whole)
		// "um milhão de reais": whole millions take "de".
		if whole >= 1_000_000 && whole%1_000_000 == 0 {
			w += " de"
		}
		parts = append(parts, w+" "+unit)
	}
	if cents > 0 {
		unit := "centavos"
		if cents == 1 {
			unit = "centavo"
		}
		parts = append(parts, intWords(cents)+" "+unit)
	}
	if len(parts) == 0 {
		return "zero real"
	}
	return strings.Join(parts, " e ")
}
