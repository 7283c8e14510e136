package store

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"
)

// TestTaxesReadStored holds the direct reading of the stored taxes to
// encoding/json's, for what json.Marshal writes and for other forms.
func TestTaxesReadStored(t *testing.T) {
	var full Taxes
	for i, a := range full.amounts() {
		a.Decimal = decimal.New(int64(i*137), -2)
	}
	stored, _ := json.Marshal(full)
	for _, s := range []string{string(stored), `{}`, `{"ret_ir_amount":"1.5"}`, `{"ret_ir_amount":2.25, "tax_iss_amount":"3"}`,
		`{"tax_service_gross_amount":"0.00","tax_service_deduction_amount":"1"}`} {
		var got, want Taxes
		if err := got.readStored(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatal(err)
		}
		if g, w, _ := marshalBoth(got, want); g != w {
			t.Errorf("%s:\n got %s\nwant %s", s, g, w)
		}
	}
	if got := new(Taxes); got.readStored(`{"tax_service_gross_amount":"x"`) == nil {
		t.Error("broken column decoded")
	}
	if !reflect.DeepEqual(len(taxKeys), reflect.TypeFor[Taxes]().NumField()) {
		t.Error("taxKeys and Taxes differ in length")
	}
}

func marshalBoth(a, b Taxes) (string, string, error) {
	x, err := json.Marshal(a)
	if err != nil {
		return "", "", err
	}
	y, err := json.Marshal(b)
	return string(x), string(y), err
}
