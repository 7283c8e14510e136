// Package brdoc validates Brazilian documents and codes: CPF, CNPJ (the
// numeric and the alphanumeric form in force since July 2026), IBGE
// municipality codes and state abbreviations.
package brdoc

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"strings"
	"sync"
)

// Clean strips a document's mask (dots, slashes, hyphens, spaces and any
// other punctuation) and upper-cases letters, which the alphanumeric CNPJ
// keeps.
func Clean(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9', c >= 'A' && c <= 'Z':
			b.WriteRune(c)
		case c >= 'a' && c <= 'z':
			b.WriteRune(c - 'a' + 'A')
		}
	}
	return b.String()
}

// Digits keeps only the ASCII digits of s (phones, zip codes).
func Digits(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

func allSame(s string) bool { return strings.Count(s, s[:1]) == len(s) }

// ValidCPF reports whether s (already cleaned) is a CPF with correct check
// digits. Repeated-digit numbers such as 11111111111 pass the arithmetic but
// are not issued, so they are refused.
func ValidCPF(s string) bool {
	if len(s) != 11 || allSame(s) {
		return false
	}
	for i := 0; i < 11; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	for n := 9; n <= 10; n++ {
		sum := 0
		for i := 0; i < n; i++ {
			sum += int(s[i]-'0') * (n + 1 - i)
		}
		d := sum * 10 % 11 % 10
		if d != int(s[n]-'0') {
			return false
		}
	}
	return true
}

// ValidCNPJ reports whether s (already cleaned) is a CNPJ with correct
// check digits. The first 12 positions may hold letters A-Z, each worth its
// ASCII code minus 48 (so digits keep their value); the last two are digits.
func ValidCNPJ(s string) bool {
	if len(s) != 14 || allSame(s) {
		return false
	}
	for i := 0; i < 14; i++ {
		c := s[i]
		digit := c >= '0' && c <= '9'
		if !digit && (i >= 12 || c < 'A' || c > 'Z') {
			return false
		}
	}
	for n := 12; n <= 13; n++ {
		sum := 0
		for i := 0; i < n; i++ {
			// weights 2..9 from the right, cycling: 5,4,3,2,9,...,2
			sum += int(s[i]-'0') * ((n-1-i)%8 + 2)
		}
		r := sum % 11
		d := 0
		if r >= 2 {
			d = 11 - r
		}
		if d != int(s[n]-'0') {
			return false
		}
	}
	return true
}

var states = map[string]bool{
	"AC": true, "AL": true, "AP": true, "AM": true, "BA": true, "CE": true, "DF": true, "ES": true, "GO": true,
	"MA": true, "MT": true, "MS": true, "MG": true, "PA": true, "PB": true, "PR": true, "PE": true, "PI": true,
	"RJ": true, "RN": true, "RS": true, "RO": true, "RR": true, "SC": true, "SP": true, "SE": true, "TO": true,
}

// ValidState reports whether s is one of the 27 state abbreviations
// (upper case).
func ValidState(s string) bool { return states[s] }

// Municipality is an IBGE municipality.
type Municipality struct {
	Code  string
	Name  string
	State string
}

//go:embed municipalities.csv
var municipalitiesCSV []byte

// municipalities parses the embedded IBGE table once; it is read-only after.
var municipalities = sync.OnceValue(func() map[string]Municipality {
	rows, err := csv.NewReader(bytes.NewReader(municipalitiesCSV)).ReadAll()
	if err != nil {
		// Cannot happen with the embedded file; a test reads it whole.
		return map[string]Municipality{}
	}
	m := make(map[string]Municipality, len(rows))
	for _, r := range rows[1:] {
		m[r[0]] = Municipality{Code: r[0], Name: r[1], State: r[2]}
	}
	return m
})

// fold lower-cases s and drops Portuguese diacritics, so that "SAO PAULO"
// and "São Paulo" name one city.
func fold(s string) string {
	r := strings.NewReplacer("á", "a", "à", "a", "â", "a", "ã", "a", "é", "e", "ê", "e", "í", "i", "ó", "o", "ô", "o", "õ", "o", "ú", "u", "ü", "u", "ç", "c", "'", "", "-", " ")
	return strings.Join(strings.Fields(r.Replace(strings.ToLower(s))), " ")
}

// citiesByName indexes the municipalities by folded name and state.
var citiesByName = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for code, mu := range municipalities() {
		m[fold(mu.Name)+"/"+mu.State] = code
	}
	return m
})

// LookupCity returns the IBGE code of a municipality by name (case and
// accents ignored) and state abbreviation.
func LookupCity(name, state string) (string, bool) {
	code, ok := citiesByName()[fold(name)+"/"+strings.ToUpper(state)]
	return code, ok
}

// LookupIBGE returns the municipality with a 7-digit IBGE code.
func LookupIBGE(code string) (Municipality, bool) {
	m, ok := municipalities()[code]
	return m, ok
}

// ValidAccessKey reports whether s is a 44-digit NF-e/NFC-e/CT-e access key
// with a correct module 11 check digit (weights 2..9 from the right; a
// remainder of 0 or 1 gives 0).
func ValidAccessKey(s string) bool {
	if len(s) != 44 {
		return false
	}
	for i := 0; i < 44; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	sum, w := 0, 2
	for i := 42; i >= 0; i-- {
		sum += int(s[i]-'0') * w
		if w++; w > 9 {
			w = 2
		}
	}
	d := 11 - sum%11
	if d >= 10 {
		d = 0
	}
	return int(s[43]-'0') == d
}

// FormatCNPJ masks a cleaned 14-character CNPJ as 11.222.333/0001-81;
// anything else is returned as it is.
func FormatCNPJ(s string) string {
	if len(s) != 14 {
		return s
	}
	return s[0:2] + "." + s[2:5] + "." + s[5:8] + "/" + s[8:12] + "-" + s[12:14]
}

// FormatPhone writes a Brazilian phone of 10 or 11 digits with its area
// code, as people read it: (11) 3333-4444, (11) 98888-7777; anything else
// as it is.
func FormatPhone(d string) string {
	switch len(d) {
	case 10:
		return "(" + d[:2] + ") " + d[2:6] + "-" + d[6:]
	case 11:
		return "(" + d[:2] + ") " + d[2:7] + "-" + d[7:]
	}
	return d
}

// FormatRegister masks a cleaned CPF or CNPJ as people read it, by its
// length; anything else as it is.
func FormatRegister(r string) string {
	switch len(r) {
	case 11:
		return FormatCPF(r)
	case 14:
		return FormatCNPJ(r)
	}
	return r
}

// FormatCPF masks a cleaned 11-digit CPF as 529.982.247-25.
func FormatCPF(s string) string {
	if len(s) != 11 {
		return s
	}
	return s[0:3] + "." + s[3:6] + "." + s[6:9] + "-" + s[9:11]
}
