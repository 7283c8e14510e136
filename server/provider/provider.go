// Package provider holds the collection providers that issue a sales
// order's charges: provider_a, provider_b and provider_c (by default
// Itaú, Bradesco and Santander; Banco do Brasil or Caixa behind any slot
// whose agreement names them) issue boletos by the unit's agreement with
// the bank (our-number, check digits and free field as package bank defines
// them; the bank registers them from the remittance file) and PIX codes of
// the firm's key. With a simulated agreement (test mode, demo) the
// provider's PSP is simulated too. A retried request gets the same charge.
package provider

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"fincom/render/pix"
	"fincom/server/bank"
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
	// Agreement is the unit's agreement with the provider's bank, and
	// OurNumber the boleto's number in it; Simulated says the agreement is
	// test mode's (the provider's simulated PSP registers PIX charges).
	Agreement *bank.Agreement
	OurNumber int64
	Simulated bool
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
		if r.Agreement == nil {
			return Issued{}, fmt.Errorf("%w: a boleto needs the unit's agreement with the bank", ErrRefused)
		}
		bk, ok := bank.Of(r.Agreement.Bank, s.name)
		if !ok {
			return Issued{}, fmt.Errorf("%w: a boleto needs the unit's agreement with the bank", ErrRefused)
		}
		o, err := bk.OurNumber(*r.Agreement, r.OurNumber)
		if err != nil {
			return Issued{}, fmt.Errorf("%w: %v", ErrRefused, err)
		}
		b, err := bk.Boleto(*r.Agreement, o, r.DueDate, r.Amount)
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
		if s.bank != "" && r.Simulated {
			// Test mode's simulated PSP registers a dynamic charge and
			// answers its location; a real agreement's PIX charge is the
			// static code of the firm's key with the charge's txid.
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
