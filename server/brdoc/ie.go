package brdoc

import (
	"strings"
)

// Exempt is the state registration of a contributor exempt from one
// (contribuinte isento de inscrição), as invoices write it.
const Exempt = "ISENTO"

// NormalizeIE answers a state registration (inscrição estadual) as the
// NF-e writes it: digits only ("P" and digits for São Paulo's rural
// producers), or Exempt for "isento" in any case; ok is false when it is
// not a valid registration of the state by the state's own rule (the
// algorithms SINTEGRA publishes for each state; TestValidIE).
func NormalizeIE(state, ie string) (string, bool) {
	s := strings.ToUpper(strings.TrimSpace(ie))
	if s == Exempt {
		return Exempt, true
	}
	rural := strings.HasPrefix(s, "P")
	d := Digits(s)
	if d == "" || len(d) > 14 {
		return "", false
	}
	if rural {
		return "P" + d, state == "SP" && spRural(d)
	}
	check, ok := ieRules[state]
	if !ok || allSame(d) {
		return "", false
	}
	return d, check(d)
}

// weighted sums the digits of s times the weights, left to right.
func weighted(s string, weights ...int) int {
	sum := 0
	for i, w := range weights {
		sum += int(s[i]-'0') * w
	}
	return sum
}

// desc is the weights from n down to 2.
func desc(n int) []int {
	var w []int
	for ; n >= 2; n-- {
		w = append(w, n)
	}
	return w
}

// dv11 is the usual module 11 digit: 11 less the remainder, 0 when that
// is 10 or 11.
func dv11(sum int) int {
	if d := 11 - sum%11; d < 10 {
		return d
	}
	return 0
}

// dv11Low is module 11 where a remainder of 0 or 1 gives 0.
func dv11Low(sum int) int {
	if r := sum % 11; r > 1 {
		return 11 - r
	}
	return 0
}

func digitAt(s string, i int) int { return int(s[i] - '0') }

// simple9 is the rule of several states: 9 digits, a module 11 digit over
// the first 8 with weights 9 to 2, dv computing it from the sum.
func simple9(prefix string, dv func(int) int) func(string) bool {
	return func(d string) bool {
		return len(d) == 9 && strings.HasPrefix(d, prefix) && digitAt(d, 8) == dv(weighted(d, desc(9)...))
	}
}

var ieRules = map[string]func(string) bool{
	"AC": func(d string) bool {
		return len(d) == 13 && strings.HasPrefix(d, "01") &&
			digitAt(d, 11) == dv11(weighted(d, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)) &&
			digitAt(d, 12) == dv11(weighted(d, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2))
	},
	"AL": func(d string) bool {
		if len(d) != 9 || !strings.HasPrefix(d, "24") {
			return false
		}
		dv := weighted(d, desc(9)...) * 10 % 11
		if dv == 10 {
			dv = 0
		}
		return digitAt(d, 8) == dv
	},
	"AP": func(d string) bool {
		if len(d) != 9 || !strings.HasPrefix(d, "03") {
			return false
		}
		n := 0
		for _, c := range d[:8] {
			n = n*10 + int(c-'0')
		}
		p, low := 0, 0
		switch {
		case n <= 3017000:
			p, low = 5, 0
		case n <= 3019022:
			p, low = 9, 1
		}
		dv := 11 - (p+weighted(d, desc(9)...))%11
		switch dv {
		case 10:
			dv = 0
		case 11:
			dv = low
		}
		return digitAt(d, 8) == dv
	},
	"AM": func(d string) bool {
		if len(d) != 9 {
			return false
		}
		sum, dv := weighted(d, desc(9)...), 0
		if sum < 11 {
			dv = 11 - sum
		} else {
			dv = dv11Low(sum)
		}
		return digitAt(d, 8) == dv
	},
	"BA": validBA,
	"CE": simple9("", dv11),
	"DF": func(d string) bool {
		return len(d) == 13 && strings.HasPrefix(d, "07") &&
			digitAt(d, 11) == dv11(weighted(d, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)) &&
			digitAt(d, 12) == dv11(weighted(d, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2))
	},
	"ES": simple9("", dv11Low),
	"GO": func(d string) bool {
		if len(d) != 9 || !(strings.HasPrefix(d, "10") || strings.HasPrefix(d, "11") || strings.HasPrefix(d, "15") || d[0] == '2') {
			return false
		}
		r, dv := weighted(d, desc(9)...)%11, 0
		switch {
		case r == 1 && d[:8] >= "10103105" && d[:8] <= "10119997":
			dv = 1
		case r > 1:
			dv = 11 - r
		}
		return digitAt(d, 8) == dv
	},
	"MA": simple9("12", dv11Low),
	"MT": func(d string) bool {
		if len(d) > 11 || len(d) < 9 {
			return false
		}
		d = strings.Repeat("0", 11-len(d)) + d
		return digitAt(d, 10) == dv11Low(weighted(d, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2))
	},
	"MS": func(d string) bool {
		return len(d) == 9 && (strings.HasPrefix(d, "28") || strings.HasPrefix(d, "50")) && digitAt(d, 8) == dv11(weighted(d, desc(9)...))
	},
	"MG": validMG,
	"PA": simple9("15", dv11Low),
	"PB": simple9("", dv11),
	"PR": func(d string) bool {
		return len(d) == 10 && digitAt(d, 8) == dv11Low(weighted(d, 3, 2, 7, 6, 5, 4, 3, 2)) &&
			digitAt(d, 9) == dv11Low(weighted(d, 4, 3, 2, 7, 6, 5, 4, 3, 2))
	},
	"PE": func(d string) bool {
		switch len(d) {
		case 9: // e-Fisco
			return digitAt(d, 7) == dv11Low(weighted(d, desc(8)...)) && digitAt(d, 8) == dv11Low(weighted(d, desc(9)...))
		case 14: // the former CACEPE number
			dv := 11 - weighted(d, 5, 4, 3, 2, 1, 9, 8, 7, 6, 5, 4, 3, 2)%11
			if dv > 9 {
				dv -= 10
			}
			return digitAt(d, 13) == dv
		}
		return false
	},
	"PI": simple9("", dv11),
	"RJ": func(d string) bool {
		return len(d) == 8 && digitAt(d, 7) == dv11Low(weighted(d, 2, 7, 6, 5, 4, 3, 2))
	},
	"RN": func(d string) bool {
		if (len(d) != 9 && len(d) != 10) || !strings.HasPrefix(d, "20") {
			return false
		}
		dv := weighted(d, desc(len(d))...) * 10 % 11
		if dv == 10 {
			dv = 0
		}
		return digitAt(d, len(d)-1) == dv
	},
	"RS": func(d string) bool {
		return len(d) == 10 && digitAt(d, 9) == dv11(weighted(d, 2, 9, 8, 7, 6, 5, 4, 3, 2))
	},
	"RO": func(d string) bool {
		var dv int
		switch len(d) {
		case 14:
			dv = 11 - weighted(d, 6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)%11
		case 9: // the former number: municipality (3), company (5), digit
			dv = 11 - weighted(d[3:], 6, 5, 4, 3, 2)%11
		default:
			return false
		}
		if dv >= 10 {
			dv -= 10
		}
		return digitAt(d, len(d)-1) == dv
	},
	"RR": func(d string) bool {
		return len(d) == 9 && strings.HasPrefix(d, "24") && digitAt(d, 8) == weighted(d, 1, 2, 3, 4, 5, 6, 7, 8)%9
	},
	"SC": simple9("", dv11Low),
	"SP": func(d string) bool {
		return len(d) == 12 && digitAt(d, 8) == weighted(d, 1, 3, 4, 5, 6, 7, 8, 10)%11%10 &&
			digitAt(d, 11) == weighted(d, 3, 2, 10, 9, 8, 7, 6, 5, 4, 3, 2)%11%10
	},
	"SE": simple9("", dv11),
	"TO": func(d string) bool {
		if len(d) == 11 {
			// The former number: its 3rd and 4th digits are the kind
			// (01, 02, 03 or 99) and take no part in the digit.
			if k := d[2:4]; k != "01" && k != "02" && k != "03" && k != "99" {
				return false
			}
			d = d[:2] + d[4:]
		}
		return len(d) == 9 && digitAt(d, 8) == dv11Low(weighted(d, desc(9)...))
	},
}

// spRural is São Paulo's rural producer number: P, 8 digits, a digit, 3
// digits.
func spRural(d string) bool {
	return len(d) == 12 && digitAt(d, 8) == weighted(d, 1, 3, 4, 5, 6, 7, 8, 10)%11%10
}

// validBA: Bahia's 8- or 9-digit numbers; the digit before last decides
// the module (10 for 0-5 and 8, else 11), and the second digit is
// computed first.
func validBA(d string) bool {
	if len(d) != 8 && len(d) != 9 {
		return false
	}
	n := len(d) - 2 // the base's length
	test := d[0]
	if len(d) == 9 {
		test = d[1]
	}
	mod10 := strings.IndexByte("0123458", test) >= 0
	digit := func(sum int) int {
		if mod10 {
			if r := sum % 10; r != 0 {
				return 10 - r
			}
			return 0
		}
		return dv11Low(sum)
	}
	second := digit(weighted(d, desc(n+1)...))
	first := digit(weighted(d[:n]+string(rune('0'+second)), desc(n+2)...))
	return digitAt(d, n) == first && digitAt(d, n+1) == second
}

// validMG: Minas Gerais' 13 digits; the first digit sums the digits of
// the products (weights 1 and 2 in turn) of the number with a 0 after
// the municipality's 3 digits; the second is module 11.
func validMG(d string) bool {
	if len(d) != 13 {
		return false
	}
	base := d[:3] + "0" + d[3:11]
	sum := 0
	for i, c := range base {
		p := int(c-'0') * (1 + i%2)
		sum += p/10 + p%10
	}
	first := (10 - sum%10) % 10
	if digitAt(d, 11) != first {
		return false
	}
	return digitAt(d, 12) == dv11Low(weighted(d, 3, 2, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2))
}
