package server

import (
	"context"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"fincom/store"
)

// TestPortalListsPageAndSearch: a long list is shown 50 rows a page, with
// links to its neighbours that keep its search, and its total; a page
// past the last is the last; the searches fold case and accents; the read-only lists
// (audit, e-mails) are searched in any column.
func TestPortalListsPageAndSearch(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	b := signedIn(t, s, ds)
	db, release := acquire(t, ds)
	for i := range 70 {
		name := fmt.Sprintf("Cliente Série %02d", i)
		if _, err := db.InsertContact(context.Background(), 1, store.ContactFields{Type: "legal", Register: cnpjOf(i), SocialReason: name}); err != nil {
			t.Fatal(err)
		}
	}
	release()
	rows := regexp.MustCompile(`<tr><td><a href="/portal/contacts/`)
	page := b.do("GET", "/portal/contacts?busca=serie", nil).Body.String()
	if n := len(rows.FindAllString(page, -1)); n != 50 || !strings.Contains(page, "Página 1 de 2 · 70 itens") {
		t.Fatalf("page 1 shows %d rows:\n%s", n, page)
	}
	next := regexp.MustCompile(`<a href="([^"]+)" rel="next">`).FindStringSubmatch(page)
	if next == nil || !strings.Contains(next[1], "busca=serie") || !strings.Contains(next[1], "pagina=2") {
		t.Fatalf("the next page's link: %v", next)
	}
	page = b.do("GET", html.UnescapeString(next[1]), nil).Body.String()
	if n := len(rows.FindAllString(page, -1)); n != 20 || !strings.Contains(page, `rel="prev"`) || strings.Contains(page, `rel="next"`) ||
		!strings.Contains(page, "Cliente Série 69") {
		t.Errorf("page 2 shows %d rows", n)
	}
	if page := b.do("GET", "/portal/contacts?busca=SÉRIE&pagina=9", nil).Body.String(); !strings.Contains(page, "Página 2 de 2") {
		t.Error("a page past the last is not the last")
	}
	if page := b.do("GET", "/portal/contacts?busca=alfa", nil).Body.String(); strings.Contains(page, "Página") || len(rows.FindAllString(page, -1)) != 1 {
		t.Error("a short list is paged")
	}
	// A list of one page says how many it holds.
	if page := b.do("GET", "/portal/contacts?busca=serie%200", nil).Body.String(); !strings.Contains(page, ">10 itens<") || strings.Contains(page, "Página") {
		t.Error("a list of one page does not say how many it holds")
	}
	post(t, s.Handler(), "/insert_contact", `{`+auth+`,"type":"natural_person","register":"390.533.447-05","fullName":"Auditada"}`)
	page = b.do("GET", "/portal/audit?busca=INSERT_CONTACT", nil).Body.String()
	if strings.Contains(page, "Nada com esse texto.") {
		t.Errorf("the audit search finds nothing:\n%s", page)
	}
	if page := b.do("GET", "/portal/outbox?busca=nada-disso-aqui", nil).Body.String(); !strings.Contains(page, "Nada com esse texto.") {
		t.Error("the outbox search finds what is not there")
	}
}

// cnpjOf is a valid CNPJ made of n.
func cnpjOf(n int) string {
	base := fmt.Sprintf("%08d0001", 10000000+n)
	for _, weights := range [][]int{{5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}, {6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}} {
		sum := 0
		for i, w := range weights {
			sum += int(base[i]-'0') * w
		}
		d := 11 - sum%11
		if d >= 10 {
			d = 0
		}
		base += string(rune('0' + d))
	}
	return base
}
