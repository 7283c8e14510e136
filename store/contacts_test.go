package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// newUnit is a fresh domain "acme" with one unit, held for the test.
func newUnit(t *testing.T) (*DB, Unit) {
	t.Helper()
	ctx := context.Background()
	ds := newDomains(t)
	if err := ds.Create(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	u, err := db.CreateUnit(ctx, UnitInput{Name: "Matriz"})
	if err != nil {
		t.Fatal(err)
	}
	return db, u
}

// TestContactSearch proves that the trigram index only narrows the search:
// what a search finds is what LIKE '%text%' found before the index, for
// short texts (no index), quotes, wildcards and accents, and after renames,
// disabling and deletion.
func TestContactSearch(t *testing.T) {
	ctx := context.Background()
	db, u := newUnit(t)
	tokens := map[string]string{}
	for i, c := range []ContactFields{
		{Type: "natural_person", Register: "52998224725", FullName: "Ana Maria d'Ávila"},
		{Type: "legal", Register: "11444777000161", SocialReason: "Padaria 100% Pão Ltda", FantasyName: "Pão_Quente"},
		{Type: "natural_person", Register: "11144477735", FullName: `João "Jota" Silva`},
		{Type: "legal", Register: "11222333000181", SocialReason: "ÉDEN Comércio", FantasyName: "eden"},
	} {
		tok, err := db.InsertContact(ctx, u.ID, c)
		if err != nil {
			t.Fatal(i, err)
		}
		tokens[c.Register] = tok
	}
	find := func(search string) []string {
		t.Helper()
		cs, err := db.Contacts(ctx, u.ID, ContactFilter{Search: search})
		if err != nil {
			t.Fatalf("%q: %v", search, err)
		}
		var regs []string
		for _, c := range cs {
			regs = append(regs, c.Register)
		}
		slices.Sort(regs)
		return regs
	}
	for _, c := range []struct {
		search string
		want   []string
	}{
		{"an", []string{"52998224725"}},      // two letters: no index
		{"MARIA", []string{"52998224725"}},   // ASCII case folds
		{"D'ÁV", []string{"52998224725"}},    // quote, accent, ASCII case
		{"d'áv", nil},                        // LIKE folds ASCII only
		{"100%", []string{"11444777000161"}}, // % is a letter
		{"0% P", []string{"11444777000161"}},
		{"o_q", []string{"11444777000161"}}, // _ is a letter
		{"o%q", nil},
		{`"Jota"`, []string{"11144477735"}}, // double quotes
		{`"jota" silva`, []string{"11144477735"}},
		{"eden", []string{"11222333000181"}}, // the fantasy name
		{"éden", nil},                        // É is not é for LIKE
		{"ria\nPad", nil},                    // names do not run together
		{"Silva\x00", nil},                   // a NUL finds nothing
		{"zzz", nil},
	} {
		if got := find(c.search); !slices.Equal(got, c.want) {
			t.Errorf("search %q = %v, want %v", c.search, got, c.want)
		}
	}
	if err := db.UpdateContact(ctx, u.ID, tokens["11144477735"], func(f *ContactFields) error {
		f.FullName = "João Souza"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := find("Silva"); got != nil {
		t.Errorf("old name still found: %v", got)
	}
	if got := find("Souza"); !slices.Equal(got, []string{"11144477735"}) {
		t.Errorf("new name = %v", got)
	}
	if err := db.SetContactActive(ctx, u.ID, tokens["52998224725"], false); err != nil {
		t.Fatal(err)
	}
	if got := find("Maria"); got != nil {
		t.Errorf("disabled contact found: %v", got)
	}
	if err := db.CompactSearch(ctx); err != nil {
		t.Fatal(err)
	}
	if got := find("Souza"); !slices.Equal(got, []string{"11144477735"}) {
		t.Errorf("after compacting = %v", got)
	}
	// Nothing changed since: the next compaction writes nothing.
	var before, after int64
	db.w.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before)
	if err := db.CompactSearch(ctx); err != nil {
		t.Fatal(err)
	}
	db.w.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after)
	if after != before {
		t.Errorf("an idle compaction wrote %d rows", after-before)
	}
	if err := db.ResetEmpty(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM contacts_fts WHERE contacts_fts MATCH '"Souza"'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("index after reset: %d %v", n, err)
	}
}

// TestSearchMergesWhenIdle: after a run of inserts, each indexed in its own
// commit, the writer merges the search index while no write waits, and
// stops once a step finds nothing to merge.
func TestSearchMergesWhenIdle(t *testing.T) {
	db, u := newUnit(t)
	ctx := context.Background()
	for i := 0; i < 300; i++ {
		if _, err := db.InsertContact(ctx, u.ID, ContactFields{Type: "legal", Register: fmt.Sprintf("T%013d", i), FullName: fmt.Sprintf("Cliente %03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	waitMerged(t, db)
	// Any two segments of a level merge: 300 one-contact segments end in
	// a handful, one per level at most.
	if n := searchSegments(t, db); n > 3 {
		t.Errorf("%d segments after idle merging", n)
	}
	if got, err := db.Contacts(ctx, u.ID, ContactFilter{Search: "nte 12"}); err != nil || len(got) != 10 {
		t.Errorf("search after merging: %d contacts, %v", len(got), err)
	}
}
