package portal

import "testing"

// TestAmountBR: amounts as Brazilians type them.
func TestAmountBR(t *testing.T) {
	for in, want := range map[string]string{"1.250,00": "1250.00", "1.400": "1400.00", "1.234.567": "1234567.00", "24,9": "24.90",
		"24.90": "24.90", "10.5": "10.50", "R$ 3.200,00": "3200.00", "1400": "1400.00", "0,35": "0.35"} {
		got, err := amountBR(in)
		if err != nil || got == nil || got.StringFixed(2) != want {
			t.Errorf("amountBR(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"1,2,3", "abc", "1.2.3"} {
		if _, err := amountBR(bad); err == nil {
			t.Errorf("amountBR(%q) read", bad)
		}
	}
	if got, err := amountBR("  "); got != nil || err != nil {
		t.Errorf("blank = %v, %v", got, err)
	}
}
