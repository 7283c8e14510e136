package store

import (
	"context"
	"testing"
)

// TestResetKeepsRoles: emptying a domain (test mode's reset) keeps its
// users, and with them their roles: a kept user without one could reach
// no unit.
func TestResetKeepsRoles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, u := newUnit(t)
	user, err := db.CreateUserAs(ctx, "Bia", "bia@example.com", RoleFinance, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	token, err := db.CreateUserToken(ctx, user.ID, "erp")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ResetEmpty(ctx); err != nil {
		t.Fatal(err)
	}
	if a, err := db.Authenticate(ctx, token, u.Token); err != nil || a.Role != RoleFinance {
		t.Fatalf("after the reset: %+v %v", a, err)
	}
}
