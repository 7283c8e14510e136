package brdoc

import (
	"sort"
	"strconv"
)

// cepRanges are the Correios' CEP ranges of each state, by the CEP's first
// five digits (its region, sub-region, sector and sub-sector): every CEP
// of a state falls in one of its ranges, and no two states share one.
// Rondônia's former 78900–78999 went to 76800–76999 in 2008 and is
// no state's now.
var cepRanges = []struct {
	from, to int
	state    string
}{
	{1000, 19999, "SP"}, {20000, 28999, "RJ"}, {29000, 29999, "ES"}, {30000, 39999, "MG"},
	{40000, 48999, "BA"}, {49000, 49999, "SE"}, {50000, 56999, "PE"}, {57000, 57999, "AL"},
	{58000, 58999, "PB"}, {59000, 59999, "RN"}, {60000, 63999, "CE"}, {64000, 64999, "PI"},
	{65000, 65999, "MA"}, {66000, 68899, "PA"}, {68900, 68999, "AP"}, {69000, 69299, "AM"},
	{69300, 69399, "RR"}, {69400, 69899, "AM"}, {69900, 69999, "AC"}, {70000, 72799, "DF"},
	{72800, 72999, "GO"}, {73000, 73699, "DF"}, {73700, 76799, "GO"}, {76800, 76999, "RO"},
	{77000, 77999, "TO"}, {78000, 78899, "MT"}, {79000, 79999, "MS"},
	{80000, 87999, "PR"}, {88000, 89999, "SC"}, {90000, 99999, "RS"},
}

// StateOfCEP is the state a CEP (8 digits, masked or not) belongs to, by
// the Correios' ranges; false for what is not a CEP of any.
func StateOfCEP(cep string) (string, bool) {
	d := Digits(cep)
	if len(d) != 8 {
		return "", false
	}
	n, _ := strconv.Atoi(d[:5])
	for _, r := range cepRanges {
		if n >= r.from && n <= r.to {
			return r.state, true
		}
	}
	return "", false
}

// CitiesOf are the names of a state's municipalities, in alphabetical
// order (accents aside).
func CitiesOf(state string) []string {
	var out []string
	for _, m := range municipalities() {
		if m.State == state {
			out = append(out, m.Name)
		}
	}
	sort.Slice(out, func(i, j int) bool { return fold(out[i]) < fold(out[j]) })
	return out
}
