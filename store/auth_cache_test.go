package store

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"
)

// TestKeptAccessFollowsChanges: the access Authenticate keeps in memory
// is dropped by the commit of any change to what it was read from, before
// that change is answered: a token revoked, a role taken away, a user
// deactivated or a unit changed holds from the next request, as does a
// change another process writes to the file (the CLI while serving).
func TestKeptAccessFollowsChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, u := newUnit(t)
	other, err := db.CreateUnit(ctx, UnitInput{Name: "Filial"})
	if err != nil {
		t.Fatal(err)
	}
	user, err := db.CreateUserAs(ctx, "Bia", "bia@example.com", RoleFinance, 0)
	if err != nil {
		t.Fatal(err)
	}
	token, err := db.CreateUserToken(ctx, user.ID, "erp")
	if err != nil {
		t.Fatal(err)
	}
	auth := func(unit Unit) (Access, error) {
		t.Helper()
		// Twice: the second answer is the kept one.
		if _, err := db.Authenticate(ctx, token, unit.Token); err != nil {
			return Access{}, err
		}
		return db.Authenticate(ctx, token, unit.Token)
	}
	if a, err := auth(u); err != nil || a.Role != RoleFinance || a.Unit.Name != "Matriz" {
		t.Fatalf("first: %+v %v", a, err)
	}
	if _, err := auth(other); err != nil {
		t.Fatal(err)
	}

	// A role changed on one unit.
	if err := db.SetUserRole(ctx, user.ID, other.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Authenticate(ctx, token, other.Token); !errors.Is(err, ErrUnitNotFound) {
		t.Fatalf("after the role was taken away: %v", err)
	}
	if err := db.SetUserRole(ctx, user.ID, u.ID, RoleAccountant); err != nil {
		t.Fatal(err)
	}
	if a, err := db.Authenticate(ctx, token, u.Token); err != nil || a.Role != RoleAccountant {
		t.Fatalf("after the role changed: %+v %v", a, err)
	}

	// The unit renamed.
	if _, err := auth(u); err != nil {
		t.Fatal(err)
	}
	if err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `UPDATE units SET name = 'Matriz Centro' WHERE id = ?`, u.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if a, err := db.Authenticate(ctx, token, u.Token); err != nil || a.Unit.Name != "Matriz Centro" {
		t.Fatalf("after the rename: %+v %v", a, err)
	}

	// The token revoked.
	if err := db.RevokeUserToken(ctx, user.ID, token); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Authenticate(ctx, token, u.Token); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("after the revocation: %v", err)
	}

	// Another process (the CLI) revokes a token on the same file.
	cli, err := db.CreateAccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Authenticate(ctx, cli, u.Token); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", fileURI(db.path, "_pragma=busy_timeout(10000)"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE access_tokens SET revoked_at = '2026-11-27T12:00:00.000Z' WHERE hash = ?`, hashToken(cli)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Authenticate(ctx, cli, u.Token); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("at once after another process revoked the token: %v", err)
	}
	// And a role another process takes away.
	if token, err = db.CreateUserToken(ctx, user.ID, "erp 2"); err != nil {
		t.Fatal(err)
	}
	if _, err := auth(u); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DELETE FROM user_roles WHERE user_id = ?`, user.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Authenticate(ctx, token, u.Token); err == nil {
		t.Fatal("a role another process took away still answers")
	}
}
