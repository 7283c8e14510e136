package server

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"fincom/store"
)

// TestPortalEntryAttachments: an entry's attachment opens in the browser
// and downloads (its name, no-store, no script), for a reader of the
// unit's entries too; one who may change entries removes it, an
// accountant may not; a user of another unit cannot fetch it.
func TestPortalEntryAttachments(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	pdf := []byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")
	db, release := acquire(t, ds)
	entry, err := db.InsertEntry(context.Background(), 1, store.EntryFields{Type: "out", Description: "Aluguel", Value: store.NewMoney(decimal.RequireFromString("2500")),
		DueDate: "2026-12-05", Active: true}, []store.NewFile{{Name: "boleto-aluguel.pdf", ContentType: "application/pdf", Data: pdf}}, "")
	release()
	if err != nil {
		t.Fatal(err)
	}
	owner := signedIn(t, s, ds)
	unit := "?unit=" + fx.tokens["unitA"]
	page := owner.do("GET", "/portal/transactions/"+entry+unit, nil).Body.String()
	m := regexp.MustCompile(`<a href="(/portal/transactions/` + entry + `/files/[^"?]+)\?unit=[^"]+" target="_blank" rel="noopener">boleto-aluguel.pdf</a>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the entry's page does not link its attachment:\n%s", page)
	}
	file := m[1]
	rec := owner.do("GET", file+unit, nil)
	if rec.Code != 200 || rec.Body.String() != string(pdf) || rec.Header().Get("Content-Type") != "application/pdf" ||
		rec.Header().Get("Content-Disposition") != `inline; filename=boleto-aluguel.pdf` || rec.Header().Get("Cache-Control") != "no-store" ||
		!strings.HasPrefix(rec.Header().Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("the attachment = %d %v", rec.Code, rec.Header())
	}
	if rec := owner.do("GET", file+unit+"&baixar=1", nil); rec.Header().Get("Content-Disposition") != `attachment; filename=boleto-aluguel.pdf` {
		t.Fatalf("the download = %v", rec.Header())
	}
	accountant := signedInAs(t, s, ds, "Caio Contador", "caio@contabil.com.br", store.RoleAccountant, fx.tokens["unitA"])
	if rec := accountant.do("GET", file+unit, nil); rec.Code != 200 {
		t.Fatalf("the accountant's read = %d", rec.Code)
	}
	other := signedInAs(t, s, ds, "Bruno Filial", "bruno@acme.com.br", store.RoleOwner, fx.tokens["unitB"])
	for _, u := range []string{"", "?unit=" + fx.tokens["unitB"], unit} {
		if rec := other.do("GET", file+u, nil); rec.Code != http.StatusNotFound || rec.Body.String() == string(pdf) {
			t.Fatalf("a user of another unit (%q) = %d", u, rec.Code)
		}
	}
	session := csrf(t, accountant.do("GET", "/portal/profile", nil).Body.String())
	if rec := accountant.do("POST", file+"/remove"+unit, url.Values{"csrf": {session}}); rec.Code != http.StatusForbidden {
		t.Fatalf("the accountant's removal = %d", rec.Code)
	}
	session = csrf(t, page)
	if rec := owner.do("POST", file+"/remove"+unit, url.Values{"csrf": {session}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("the removal = %d\n%s", rec.Code, rec.Body)
	}
	if rec := owner.do("GET", file+unit, nil); rec.Code != http.StatusNotFound {
		t.Fatalf("the removed attachment = %d", rec.Code)
	}
	if page := owner.do("GET", "/portal/transactions/"+entry+unit, nil).Body.String(); strings.Contains(page, "boleto-aluguel.pdf") {
		t.Fatal("the removed attachment is still listed")
	}
}
