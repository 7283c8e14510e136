package bank

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// FuzzParseReturn: whatever a file holds, the reader answers events or a
// *ParseError with a line and column inside the file, never a panic.
func FuzzParseReturn(f *testing.F) {
	good, _ := os.ReadFile("testdata/laravel-boleto-santander.ret")
	f.Add(good)
	f.Add([]byte("033"))
	f.Add([]byte{})
	// Each bank's own return, as the simulated bank writes it.
	for code, a := range sampleAgreements() {
		b, _ := ByCode(code)
		if err := b.Check(&a); err != nil {
			f.Fatal(err)
		}
		o, _ := b.OurNumber(a, 42)
		if r, err := b.ReturnFile(a, 1, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), []ReturnItem{{Movement: "06", Our: o, Paid: decimal.NewFromInt(10)}}); err == nil {
			f.Add(r)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, b := range all() {
			_, err := b.ParseReturn(data)
			var pe *ParseError
			if err != nil && (!errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 || pe.Column > 241) {
				t.Fatalf("%s: %v", b.Name, err)
			}
		}
	})
}
