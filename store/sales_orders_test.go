package store

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"
)

// TestTaxesReadStored holds the direct reading of the stored taxes to
// encoding/json's, for what json.Marshal writes and for other forms.
func TestTaxesReadStored(t *testing.T) {
	t.Parallel()
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

// TestVoidInvoiceNumbers: voided numbers are never taken: one given back
// leaves the free pool, and numbers ahead of the series move it past
// them; a range an invoice carries cannot be voided.
func TestVoidInvoiceNumbers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, u := newUnit(t)
	for i := 1; i <= 3; i++ {
		if _, err := db.ReserveInvoiceNumber(ctx, u.ID, "nfe", 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.ReleaseInvoiceNumber(ctx, u.ID, "nfe", 1, 2); err != nil {
		t.Fatal(err)
	}
	// 2 (given back) and 4 to 6 (not reached) are voided.
	if err := db.VoidInvoiceNumbers(ctx, u.ID, "nfe", 1, 2, 2); err != nil {
		t.Fatal(err)
	}
	if err := db.VoidInvoiceNumbers(ctx, u.ID, "nfe", 1, 4, 6); err != nil {
		t.Fatal(err)
	}
	if n, err := db.ReserveInvoiceNumber(ctx, u.ID, "nfe", 1); err != nil || n != 7 {
		t.Fatalf("next number %d %v, want 7", n, err)
	}
	// Another series goes on from its own counter.
	if n, _ := db.ReserveInvoiceNumber(ctx, u.ID, "nfe", 2); n != 1 {
		t.Fatalf("series 2 starts at %d", n)
	}
	if err := db.CheckVoidable(ctx, u.ID, "nfe", 1, 1, 10); err != nil {
		t.Fatalf("no invoice carries a number yet: %v", err)
	}
	// An authorized note carries 7 (stored bare: no order is needed for
	// the rule).
	if _, err := db.w.ExecContext(ctx, `PRAGMA foreign_keys = OFF; INSERT INTO invoices (token, order_id, unit_id, kind, status, series, number,
		protocol, xml, issued_at) VALUES ('i7', 999, ?, 'nfe', 'AUTHORIZED', 1, 7, 'p', '<x/>', '2026-11-26T10:00:00Z'); PRAGMA foreign_keys = ON`, u.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckVoidable(ctx, u.ID, "nfe", 1, 5, 9); !errors.Is(err, ErrNumberUsed) {
		t.Errorf("check: %v", err)
	}
	if err := db.VoidInvoiceNumbers(ctx, u.ID, "nfe", 1, 7, 8); !errors.Is(err, ErrNumberUsed) {
		t.Errorf("void: %v", err)
	}
	// A denied note's number is spent at the authority: not voidable; a
	// rejected note's is the series' again: voidable.
	if _, err := db.w.ExecContext(ctx, `PRAGMA foreign_keys = OFF; INSERT INTO invoices (token, order_id, unit_id, kind, status, series, number,
		protocol, xml, issued_at) VALUES ('i9', 999, ?1, 'nfe', 'DENIED', 1, 9, 'p', '<x/>', '2026-11-26T10:00:00Z'),
		('i10', 999, ?1, 'nfe', 'REJECTED', 1, 10, '', '<x/>', '2026-11-26T10:00:00Z'); PRAGMA foreign_keys = ON`, u.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckVoidable(ctx, u.ID, "nfe", 1, 9, 9); !errors.Is(err, ErrNumberUsed) {
		t.Errorf("a denied number: %v", err)
	}
	if err := db.CheckVoidable(ctx, u.ID, "nfe", 1, 10, 10); err != nil {
		t.Errorf("a rejected number: %v", err)
	}
}
