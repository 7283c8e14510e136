package access

import (
	"testing"

	"fincom/store"
)

func TestMay(t *testing.T) {
	for _, tc := range []struct {
		role store.Role
		may  []Area
	}{
		{store.RoleOwner, []Area{Finance, Sales, Charges, Invoices, Registers, Admin}},
		{store.RoleFinance, []Area{Finance, Charges, Invoices, Registers}},
		{store.RoleSales, []Area{Sales, Charges, Registers}},
		{store.RoleAccountant, nil},
		{"", nil},
	} {
		for _, a := range []Area{Finance, Sales, Charges, Invoices, Registers, Admin} {
			want := false
			for _, m := range tc.may {
				want = want || m == a
			}
			if got := May(tc.role, a); got != want {
				t.Errorf("May(%q, %s) = %v, want %v", tc.role, a, got, want)
			}
		}
	}
}
