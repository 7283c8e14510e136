package store

import (
	"context"
	"errors"
	"testing"
)

// A token a user makes carries the user's role on each unit: the unit's
// own grant before the every-unit one, none on a unit not given, nothing
// once the user is deactivated or loses the role.
func TestUserTokensCarryRoles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds := newDomains(t)
	ds.Create(ctx, "acme")
	db, release, _ := ds.Acquire(ctx, "acme")
	defer release()
	a, _ := db.CreateUnit(ctx, UnitInput{Name: "A"})
	b, _ := db.CreateUnit(ctx, UnitInput{Name: "B"})
	owner, err := db.CreateUser(ctx, "Olga", "olga@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	acc, err := db.CreateUserAs(ctx, "Caio", "caio@acme.test", RoleAccountant, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	accID := acc.ID
	tok, err := db.CreateUserToken(ctx, accID, "planilhas")
	if err != nil {
		t.Fatal(err)
	}
	role := func(unit Unit) (Role, error) {
		x, err := db.Authenticate(ctx, tok, unit.Token)
		return x.Role, err
	}
	if r, err := role(a); err != nil || r != RoleAccountant {
		t.Fatalf("on A: %q %v", r, err)
	}
	if _, err := role(b); !errors.Is(err, ErrUnitNotFound) {
		t.Fatalf("on B, not given: %v", err)
	}
	// Finance on every unit; A keeps its own grant.
	if err := db.SetUserRole(ctx, accID, 0, RoleFinance); err != nil {
		t.Fatal(err)
	}
	if err := db.SetUserRole(ctx, accID, a.ID, RoleAccountant); err != nil {
		t.Fatal(err)
	}
	if r, _ := role(a); r != RoleAccountant {
		t.Fatalf("on A: %q", r)
	}
	if r, _ := role(b); r != RoleFinance {
		t.Fatalf("on B: %q", r)
	}
	gs, err := db.UserGrants(ctx, accID)
	if err != nil || len(gs) != 2 || !gs[0].AllUnits() || gs[1].Unit.Token != a.Token || gs.OwnerOfAll() {
		t.Fatalf("grants %+v %v", gs, err)
	}
	// The operator's tokens are owners; the list says whose each is.
	op, _ := db.CreateAccessToken(ctx)
	if x, err := db.Authenticate(ctx, op, b.Token); err != nil || x.Role != RoleOwner || x.UserID != 0 {
		t.Fatalf("operator token: %+v %v", x, err)
	}
	mine, _ := db.AccessTokens(ctx, accID)
	if len(mine) != 1 || mine[0].Label != "planilhas" || mine[0].User != "Caio <caio@acme.test>" {
		t.Fatalf("the user's tokens: %+v", mine)
	}
	// A user revokes only its own tokens.
	all, _ := db.AccessTokens(ctx, 0)
	if len(all) != 2 {
		t.Fatalf("all tokens: %+v", all)
	}
	if err := db.RevokeUserToken(ctx, accID, op); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoked another's token: %v", err)
	}
	// Held back from B, which its every-unit role would reach.
	if err := db.SetUserRole(ctx, accID, b.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := role(b); !errors.Is(err, ErrUnitNotFound) {
		t.Fatalf("on B, held back: %v", err)
	}
	if gs, _ := db.UserGrants(ctx, accID); gs.On(b.ID) != "" || gs.On(a.ID) != RoleAccountant {
		t.Fatalf("grants held back: %+v", gs)
	}
	// The last owner cannot lose the domain.
	ownerID := owner.ID
	if err := db.SetUserRole(ctx, ownerID, 0, RoleSales); !errors.Is(err, ErrLastOwner) {
		t.Fatalf("last owner demoted: %v", err)
	}
	if err := db.SetUserRole(ctx, ownerID, b.ID, RoleSales); !errors.Is(err, ErrLastOwner) {
		t.Fatalf("last owner held back from a unit: %v", err)
	}
	// Deactivated, the user's tokens stop.
	if _, err := db.w.Exec(`UPDATE users SET active = 0 WHERE id = ?`, accID); err != nil {
		t.Fatal(err)
	}
	if _, err := role(a); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("deactivated user's token: %v", err)
	}
	if _, err := db.CheckAccessToken(ctx, tok); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("deactivated user's token, domain-wide: %v", err)
	}
}
