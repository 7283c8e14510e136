// Package provider holds the collection providers that issue a sales
// order's charges. fincom cannot reach the real ones, so the built-in
// provider_a, provider_b and provider_c are faithful simulations: they
// issue what the real ones issue (a registered boleto with valid check
// digits, a PIX BR Code with a correct CRC, a card authorization) and, like
// the real ones, answer a retried request with the same charge.
package provider

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"fincom/render/pix"
	"fincom/server/brdoc"
)

// Request asks a provider for one charge.
type Request struct {
	// IdempotencyKey names the order installment: the same key always gets
	// the same charge back, so a retried call never issues twice.
	IdempotencyKey   string
	PaymentKey       string // BOLETO, PIX, PIX_AUTOMATICO, CREDIT_CARD, DEBIT_CARD, TRANSFER, CASH
	Amount           decimal.Decimal
	DueDate          time.Time
	PixKey           string
	MerchantName     string
	MerchantCity     string
	CardInstallments int
}

// Issued is what the provider answers.
type Issued struct {
	Ref           string
	BoletoLine    string
	BoletoBarcode string
	PixPayload    string
	PixTxID       string
}

// Provider issues charges.
type Provider interface {
	Name() string
	Issue(ctx context.Context, r Request) (Issued, error)
}

// ErrRefused is a provider's refusal of a request it cannot issue.
var ErrRefused = errors.New("provider refused the charge")

// Simulated is a built-in provider. Bank is the COMPE code its boletos are
// registered with.
type Simulated struct {
	name, bank string
}

// Builtin returns the providers by the names the spec uses; "" is the
// manual charge (no integration): it issues only what needs no provider, a
// static PIX code for the order's key.
func Builtin() map[string]Provider {
	return map[string]Provider{
		"provider_a": Simulated{"provider_a", "341"},
		"provider_b": Simulated{"provider_b", "237"},
		"provider_c": Simulated{"provider_c", "033"},
		"":           Simulated{"manual", ""},
	}
}

// Name returns the provider's name.
func (s Simulated) Name() string { return s.name }

// digits derives n decimal digits from the key: the same key always gives
// the same number, so a retry is answered with the same charge.
func digits(key string, n int) string {
	h := sha256.Sum256([]byte(key))
	v := new(big.Int).SetBytes(h[:])
	s := v.String()
	for len(s) < n {
		s += s
	}
	return s[:n]
}

// Issue issues the charge.
func (s Simulated) Issue(_ context.Context, r Request) (Issued, error) {
	if !r.Amount.IsPositive() {
		return Issued{}, fmt.Errorf("%w: amount must be positive", ErrRefused)
	}
	h := sha256.Sum256([]byte(r.IdempotencyKey))
	out := Issued{Ref: fmt.Sprintf("%s_%x", s.name, h[:8])}
	switch r.PaymentKey {
	case "BOLETO":
		if s.bank == "" {
			return out, nil // a manual boleto is printed by the firm itself
		}
		// Free field: agency (4), wallet (2), our number (11), account (7), 0.
		free := "1234" + "09" + digits(r.IdempotencyKey, 11) + "0012345" + "0"
		b, err := brdoc.NewBankBoleto(s.bank, r.DueDate, r.Amount, free)
		if err != nil {
			return Issued{}, fmt.Errorf("%w: %v", ErrRefused, err)
		}
		out.BoletoLine, out.BoletoBarcode = b.Line, b.Barcode
	case "PIX", "PIX_AUTOMATICO":
		// A key stored before keys were normalized is normalized here:
		// banking apps refuse a BR Code with a masked key.
		key, _, err := brdoc.NormalizePixKey(r.PixKey)
		if err != nil {
			return Issued{}, fmt.Errorf("%w: the order's PIX key %q is not a key", ErrRefused, r.PixKey)
		}
		r.PixKey = key
		out.PixTxID = strings.ToUpper(fmt.Sprintf("%x", h[:12]))
		code := pix.Code{Key: r.PixKey, Amount: r.Amount, Name: r.MerchantName, City: r.MerchantCity, TxID: out.PixTxID}
		if s.bank != "" {
			// Providers register a dynamic charge and answer its location.
			code = pix.Code{URL: fmt.Sprintf("pix.%s.example/qr/v2/%s", strings.ReplaceAll(s.name, "_", "-"), strings.ToLower(out.PixTxID)),
				Amount: r.Amount, Name: r.MerchantName, City: r.MerchantCity, TxID: out.PixTxID}
		}
		p, err := code.Payload()
		if err != nil {
			return Issued{}, fmt.Errorf("%w: %v", ErrRefused, err)
		}
		out.PixPayload = p
	case "CREDIT_CARD":
		if r.CardInstallments < 1 {
			return Issued{}, fmt.Errorf("%w: installments must be at least 1", ErrRefused)
		}
	}
	return out, nil
}
