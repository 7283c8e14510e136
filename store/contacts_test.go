package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
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
// what a search finds is each name containing the text, case and accents
// folded (fold), for short texts (no index), quotes, wildcards and
// accents, and after renames, disabling and deletion.
func TestContactSearch(t *testing.T) {
	t.Parallel()
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
		{"d'áv", []string{"52998224725"}},    // case folds beyond ASCII
		{"D'AVILA", []string{"52998224725"}}, // accents fold too
		{"joao", []string{"11144477735"}},
		{"JOÃO", []string{"11144477735"}},
		{"PAO_Q", []string{"11444777000161"}},
		{"100%", []string{"11444777000161"}}, // % is a letter
		{"0% P", []string{"11444777000161"}},
		{"o_q", []string{"11444777000161"}}, // _ is a letter
		{"o%q", nil},
		{`"Jota"`, []string{"11144477735"}}, // double quotes
		{`"jota" silva`, []string{"11144477735"}},
		{"eden", []string{"11222333000181"}}, // the fantasy name
		{"éden", []string{"11222333000181"}}, // ÉDEN and eden alike
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
	t.Parallel()
	db, u := newUnit(t)
	ctx := context.Background()
	for i := 0; i < 300; i++ {
		if _, err := db.InsertContact(ctx, u.ID, ContactFields{Type: "legal", Register: fmt.Sprintf("T%013d", i), FullName: fmt.Sprintf("Cliente %03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	// Any two segments of a level merge: 300 one-contact segments end in
	// a handful, one per level at most. The merging waits for the writer
	// to be idle, which other tests running beside this one delay: it is
	// waited for, up to 20 s.
	n := searchSegments(t, db)
	for deadline := time.Now().Add(20 * time.Second); n > 3 && time.Now().Before(deadline); n = searchSegments(t, db) {
		time.Sleep(20 * time.Millisecond)
	}
	if n > 3 {
		t.Errorf("%d segments after idle merging", n)
	}
	if got, err := db.Contacts(ctx, u.ID, ContactFilter{Search: "nte 12"}); err != nil || len(got) != 10 {
		t.Errorf("search after merging: %d contacts, %v", len(got), err)
	}
}

// TestSearchFoldsCaseAndAccents: whatever the alphabet, a contact whose
// name holds a text is found by it typed in another case or without its
// accents; the index (names folded when indexed, migration 24) never
// drops a contact the exact test keeps. Every letter from U+00C0 to
// U+1FFF, each between ASCII letters so the index serves the search.
func TestSearchFoldsCaseAndAccents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, u := newUnit(t)
	var words []string
	for r := rune(0xC0); r < 0x2000; r++ {
		if unicode.IsLetter(r) {
			words = append(words, "q"+string(r)+"zw")
		}
	}
	const perName = 60
	for i := 0; i*perName < len(words); i++ {
		name := strings.Join(words[i*perName:min((i+1)*perName, len(words))], " ")
		if _, err := db.InsertContact(ctx, u.ID, ContactFields{Type: "legal", Register: fmt.Sprintf("T%013d", i), SocialReason: name}); err != nil {
			t.Fatal(err)
		}
	}
	missed := 0
	for i, w := range words {
		for _, search := range []string{w, strings.ToUpper(w), fold(w)} {
			cs, err := db.Contacts(ctx, u.ID, ContactFilter{Search: search})
			if err != nil {
				t.Fatal(err)
			}
			// Letters folding alike find each other's contacts too.
			if !slices.ContainsFunc(cs, func(c Contact) bool { return c.Register == fmt.Sprintf("T%013d", i/perName) }) {
				if missed++; missed <= 10 {
					t.Errorf("search %q (%U) missed its contact among %d", search, []rune(w)[1], len(cs))
				}
			}
		}
	}
	// The searches of the other lists fold alike.
	if _, err := db.InsertProduct(ctx, u.ID, ProductFields{Description: "Pão de Açúcar", Type: "product", Unit: "UN"}); err != nil {
		t.Fatal(err)
	}
	ps, err := db.Products(ctx, u.ID, "PAO DE ACU", "")
	if err != nil || len(ps) != 1 {
		t.Errorf("products found %d, %v", len(ps), err)
	}
}

// TestSearchIndexOfExistingContacts: a file indexed before names were
// folded (version 23) is indexed again, folded, by migration 24.
func TestSearchIndexOfExistingContacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, u := newUnit(t)
	if _, err := db.InsertContact(ctx, u.ID, ContactFields{Type: "natural_person", Register: "52998224725", FullName: "João Conceição"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.w.ExecContext(ctx, `INSERT INTO contacts_fts (contacts_fts) VALUES ('delete-all');
		INSERT INTO contacts_fts (rowid, names) SELECT id, coalesce(full_name, '') || char(10) || coalesce(social_reason, '') || char(10) || coalesce(fantasy_name, '') FROM contacts`); err != nil {
		t.Fatal(err)
	}
	rewind(t, db, 23)
	find := func() int {
		cs, err := db.Contacts(ctx, u.ID, ContactFilter{Search: "JOAO CONCEICAO"})
		if err != nil {
			t.Fatal(err)
		}
		return len(cs)
	}
	// At version 23 the contacts have none of the later columns: the
	// index is asked directly.
	var n int
	if err := db.w.QueryRowContext(ctx, `SELECT count(*) FROM contacts_fts WHERE contacts_fts MATCH ?`, coveringTrigrams(fold("JOAO CONCEICAO"))).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the unfolded index found %d (%v)", n, err)
	}
	if _, err := migrate(ctx, db.w, "", time.Now()); err != nil {
		t.Fatal(err)
	}
	if n := find(); n != 1 {
		t.Errorf("after migrating found %d", n)
	}
}
