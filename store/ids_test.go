package store

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSeededTokensSurviveRestarts: a seeded domain's counter is kept in its
// file, so tokens drawn after reopening never repeat earlier ones, and a
// second data directory with the same seed draws the same sequence.
func TestSeededTokensSurviveRestarts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	run := func(dir string) []string {
		var tokens []string
		for round := 0; round < 2; round++ {
			ds, err := OpenDomains(dir, Options{Schema: testSchema(t), Seeded: true, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			if round == 0 {
				if err := ds.Create(ctx, "acme"); err != nil {
					t.Fatal(err)
				}
			}
			db, release, err := ds.Acquire(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			u, err := db.CreateUnit(ctx, UnitInput{Name: "Loja", CNPJ: "11222333000181", CityIBGE: "3550308"})
			if err != nil {
				t.Fatal(err)
			}
			tokens = append(tokens, u.Token)
			release()
			ds.Close()
		}
		return tokens
	}
	a, b := run(t.TempDir()), run(t.TempDir())
	if a[0] == a[1] {
		t.Fatalf("a token repeated after a restart: %v", a)
	}
	if a[0] != b[0] || a[1] != b[1] {
		t.Fatalf("two directories with one seed differ: %v %v", a, b)
	}
}

// Record tokens are version 7 UUIDs: canonical form, version and variant
// bits, the time in their first 48 bits, so that tokens made later sort
// after (token indexes append), and distinct within one millisecond.
func TestNewUUIDIsTimeOrdered(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	prev := ""
	for i := range 2000 {
		tok := newUUIDAt(at.Add(time.Duration(i/10) * time.Millisecond))
		if len(tok) != 36 || tok[8] != '-' || tok[13] != '-' || tok[18] != '-' || tok[23] != '-' {
			t.Fatalf("not a canonical UUID: %q", tok)
		}
		if tok[14] != '7' || !strings.ContainsRune("89ab", rune(tok[19])) {
			t.Fatalf("version or variant: %q", tok)
		}
		ms, err := strconv.ParseUint(strings.ReplaceAll(tok[:13], "-", ""), 16, 64)
		if err != nil || int64(ms) != at.UnixMilli()+int64(i/10) {
			t.Fatalf("%q: time prefix %d, want %d", tok, ms, at.UnixMilli()+int64(i/10))
		}
		if tok[:13] < prev {
			t.Fatalf("%q sorts before an earlier token's prefix %q", tok, prev)
		}
		if seen[tok] {
			t.Fatalf("drawn twice: %q", tok)
		}
		seen[tok], prev = true, tok[:13]
	}
}
