package billing

import (
	"errors"
	"fmt"
	"strings"

	"fincom/store"
)

// ErrPayerIncomplete is a boleto its bank would refuse to register
// (PayerError).
var ErrPayerIncomplete = errors.New("the payer lacks what the bank needs to register a boleto")

// PayerError is a boleto its bank would refuse to register: the segment Q
// of FEBRABAN's CNAB 240 names the payer by name, CPF or CNPJ (digits:
// the inscription is a numeric field, columns 19-33, so an alphanumeric
// CNPJ does not fit the layouts fincom writes) and postal address with an
// 8-digit CEP. Missing lists the order's contact fields to complete (the
// spec's names), or "id_token_contact" for an order without a contact.
// TestBoletoPayerComplete holds it.
type PayerError struct {
	Order   string   `json:"cod_orders"`
	Missing []string `json:"missing"`
}

func (e *PayerError) Error() string {
	return fmt.Sprintf("order %s: the payer lacks %s", e.Order, strings.Join(e.Missing, ", "))
}

func (e *PayerError) Is(target error) bool { return target == ErrPayerIncomplete }

// Payer refuses, with a PayerError, a payer its bank would not register a
// boleto for.
func (Rules) Payer(p store.Payer) error {
	if !p.HasContact {
		return &PayerError{Order: p.Order, Missing: []string{"id_token_contact"}}
	}
	if gaps := payerGaps(p); len(gaps) > 0 {
		return &PayerError{Order: p.Order, Missing: gaps}
	}
	return nil
}

// payerGaps lists what a contact, as stored (register and zip code
// normalized), lacks for a registered boleto.
func payerGaps(p store.Payer) []string {
	digits := func(s string, n int) bool {
		if len(s) != n {
			return false
		}
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	var out []string
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"name", strings.TrimSpace(p.Name) != ""},
		{"register", digits(p.Register, 11) || digits(p.Register, 14)},
		{"address", strings.TrimSpace(p.Address) != ""},
		{"city", strings.TrimSpace(p.City) != ""},
		{"state", len(p.State) == 2},
		{"zip_code", digits(p.Zip, 8)},
	} {
		if !f.ok {
			out = append(out, f.name)
		}
	}
	return out
}
