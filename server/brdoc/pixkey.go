package brdoc

import (
	"errors"
	"net/mail"
	"regexp"
	"strings"
)

// ErrPixKey is a text that is none of the five kinds of PIX key.
var ErrPixKey = errors.New("not a PIX key")

// PIX key kinds, as the Central Bank's DICT names them.
const (
	PixCPF   = "CPF"
	PixCNPJ  = "CNPJ"
	PixPhone = "PHONE"
	PixEmail = "EMAIL"
	PixEVP   = "EVP" // random key
)

// The shapes of the kinds of key, as text: NormalizePixKey tells the
// kinds apart by them, and PixKeyPattern joins them for the OpenAPI
// document.
const (
	cpfPattern   = `\d{3}\.?\d{3}\.?\d{3}-?\d{2}`
	cnpjPattern  = `[0-9A-Za-z]{2}\.?[0-9A-Za-z]{3}\.?[0-9A-Za-z]{3}/?[0-9A-Za-z]{4}-?\d{2}`
	phonePattern = `\+?[0-9 ().-]+`
	evpPattern   = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`
	// An e-mail's shape here is only an @ and a dotted domain; its syntax
	// is net/mail's, checked beyond it.
	emailKeyPattern = `.*@[^@]*\.[^@]*`
)

// PixKeyPattern is every text NormalizePixKey may take, blank included
// (no key): the check digits, the phone's number, the e-mail's syntax
// and length are checked beyond it (TestPixKeyPattern).
const PixKeyPattern = `^\s*(` + cpfPattern + `|` + cnpjPattern + `|` + phonePattern + `|` + evpPattern + `|` + emailKeyPattern + `)?\s*$`

var (
	cpfShape   = regexp.MustCompile(`^` + cpfPattern + `$`)
	cnpjShape  = regexp.MustCompile(`^` + cnpjPattern + `$`)
	phoneShape = regexp.MustCompile(`^` + phonePattern + `$`)
	evpShape   = regexp.MustCompile(`^` + evpPattern + `$`)
)

// NormalizePixKey answers a PIX key in the one form the DICT registers and
// banking apps accept in a BR Code, with its kind: a CPF or CNPJ as its
// digits (check digits verified; a masked one is unmasked), a phone as
// +55 with the area code and the number, an e-mail in lower case (at most
// 77 characters), a random key as a lower-case UUID. Anything else is
// ErrPixKey. Eleven plain digits are a CPF, as the DICT reads them: a
// phone is written with +55 or with its area code in parentheses or
// separators (TestNormalizePixKey).
func NormalizePixKey(s string) (key, kind string, err error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", "", ErrPixKey
	case cpfShape.MatchString(s):
		if d := Digits(s); ValidCPF(d) {
			return d, PixCPF, nil
		}
		return "", "", ErrPixKey
	case cnpjShape.MatchString(s):
		if c := Clean(s); ValidCNPJ(c) {
			return c, PixCNPJ, nil
		}
		return "", "", ErrPixKey
	case strings.Contains(s, "@"):
		low := strings.ToLower(s)
		a, err := mail.ParseAddress(low)
		if err != nil || a.Address != low || a.Name != "" || len(low) > 77 || !strings.Contains(low[strings.LastIndex(low, "@"):], ".") {
			return "", "", ErrPixKey
		}
		return low, PixEmail, nil
	case evpShape.MatchString(strings.ToLower(s)):
		return strings.ToLower(s), PixEVP, nil
	}
	if phoneShape.MatchString(s) {
		d := Digits(s)
		if strings.HasPrefix(s, "+") {
			if !strings.HasPrefix(d, "55") {
				return "", "", ErrPixKey // only Brazilian numbers hold PIX keys
			}
			d = d[2:]
		} else if len(d) == 13 && strings.HasPrefix(d, "55") {
			d = d[2:]
		}
		if validPhone(d) {
			return "+55" + d, PixPhone, nil
		}
	}
	return "", "", ErrPixKey
}

// validPhone: a Brazilian area code (11 to 99, no zero) and a number of 8
// digits (landline, 2 to 5) or 9 (mobile, starting with 9).
func validPhone(d string) bool {
	if len(d) != 10 && len(d) != 11 {
		return false
	}
	if d[0] == '0' || d[1] == '0' {
		return false
	}
	n := d[2:]
	if len(n) == 9 {
		return n[0] == '9'
	}
	return n[0] >= '2' && n[0] <= '5'
}
