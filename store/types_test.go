package store

import (
	"testing"

	"github.com/shopspring/decimal"
)

// FuzzMoneyString holds Money's integer formatting to decimal's
// StringFixed(2), the reference, for any coefficient and exponent.
func FuzzMoneyString(f *testing.F) {
	for _, c := range []struct {
		coef int64
		exp  int32
	}{
		{0, 0}, {1250, -2}, {-5, -3}, {-4, -3}, {5, -3}, {12345, -4}, {12350, -4}, {-12350, -4}, {1, 2}, {-9, 0},
		{999999999999999999, -2}, {999999999999999999, 0}, {-999999999999999999, -20}, {1 << 62, -1}, {-1 << 63, 0},
		{99999999999999999, 1}, {7, -18}, {5, -19}, {123, 3},
	} {
		f.Add(c.coef, c.exp)
	}
	f.Fuzz(func(t *testing.T, coef int64, exp int32) {
		if exp < -40 || exp > 40 {
			return
		}
		d := decimal.New(coef, exp)
		if got, want := NewMoney(d).String(), d.StringFixed(2); got != want {
			t.Fatalf("%d e%d: got %s, want %s", coef, exp, got, want)
		}
	})
}

func TestMoneyStringBeyondInt64(t *testing.T) {
	t.Parallel()
	d, _ := decimal.NewFromString("123456789012345678901234.565")
	if got, want := NewMoney(d).String(), d.StringFixed(2); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestMoney(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{`12.5`: `"12.50"`, `"0.1"`: `"0.10"`, `"1234567.891"`: `"1234567.89"`, `0`: `"0.00"`, `-3`: `"-3.00"`} {
		var m Money
		if err := m.UnmarshalJSON([]byte(in)); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if b, _ := m.MarshalJSON(); string(b) != want {
			t.Errorf("%s -> %s, want %s", in, b, want)
		}
	}
	for _, bad := range []string{`"NaN"`, `1e3`, `"Infinity"`, `""`, `"1.2.3"`, `true`, `"12,50"`, `"--1"`} {
		var m Money
		if err := m.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("%s accepted as %s", bad, m)
		}
	}
}
