package store

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds := newDomains(t)
	ds.Create(ctx, "acme")
	db, release, _ := ds.Acquire(ctx, "acme")
	defer release()
	u, _ := db.CreateUnit(ctx, UnitInput{Name: "A"})
	tok, err := db.CreateAccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := TokenDomain(tok); !ok || d != "acme" {
		t.Fatalf("TokenDomain(access) = %q %v", d, ok)
	}
	if d, ok := TokenDomain(u.Token); !ok || d != "acme" {
		t.Fatalf("TokenDomain(unit) = %q %v", d, ok)
	}
	for _, bad := range []string{"", "fca_", "fca__x", "fca_ACME_x", "xyz_acme_1", "fca_../x_1"} {
		if _, ok := TokenDomain(bad); ok {
			t.Errorf("TokenDomain(%q) ok", bad)
		}
	}
	if _, err := db.Authenticate(ctx, tok, u.Token); err != nil {
		t.Fatal(err)
	}
	// The clear token is nowhere in the file.
	var n int
	db.r.QueryRow(`SELECT count(*) FROM access_tokens WHERE hash = ? OR hint = ?`, tok, tok).Scan(&n)
	if n != 0 {
		t.Fatal("clear token stored")
	}
	raw, _ := os.ReadFile(db.path)
	if strings.Contains(string(raw), tok[len(tok)-20:]) {
		t.Fatal("clear token in the file")
	}
	if _, err := db.Authenticate(ctx, tok, "fcu_acme_nope"); !errors.Is(err, ErrUnitNotFound) {
		t.Fatalf("unknown unit: %v", err)
	}
	if err := db.RevokeAccessToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Authenticate(ctx, tok, u.Token); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("revoked: %v", err)
	}
	if err := db.RevokeAccessToken(ctx, tok); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second revoke: %v", err)
	}
}
