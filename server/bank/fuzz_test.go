package bank

import (
	"errors"
	"os"
	"testing"
)

// FuzzParseReturn: whatever a file holds, the reader answers events or a
// *ParseError with a line and column inside the file, never a panic.
func FuzzParseReturn(f *testing.F) {
	good, _ := os.ReadFile("testdata/laravel-boleto-santander.ret")
	f.Add(good)
	f.Add([]byte("033"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, b := range banks {
			_, err := b.ParseReturn(data)
			var pe *ParseError
			if err != nil && (!errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 || pe.Column > 241) {
				t.Fatalf("%s: %v", b.Name, err)
			}
		}
	})
}
