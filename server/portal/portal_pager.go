package portal

import (
	"strconv"
	"strings"

	"fincom/render"
	"fincom/store"
)

// pageRows is how many rows a portal list shows a page.
const pageRows = 50

// paginate is the page of rows the request asks for (?pagina=, from 1; a
// page past the last is the last) and the links to its neighbours, which
// keep the request's other query parameters (its filters).
func paginate[T any](p *portalRequest, rows []T) ([]T, render.Pager) {
	pg := pager(p, min(askedPage(p), pagesOf(len(rows), pageRows)), len(rows), pageRows)
	n := pg.Page
	return rows[(n-1)*pageRows : min(len(rows), n*pageRows)], pg
}

// pageFromStore reads the page of a listing the request asks for, size
// rows (a page past the last is the last), from the store, which reads
// only those rows and counts the rest: for lists that grow with time (the
// statement's lines, the audit log).
func pageFromStore[T any](p *portalRequest, size int, read func(store.Page) ([]T, int, error)) ([]T, render.Pager, error) {
	n := askedPage(p)
	rows, total, err := read(store.Page{Number: n, Size: size})
	if err == nil && n > pagesOf(total, size) {
		n = pagesOf(total, size)
		rows, total, err = read(store.Page{Number: n, Size: size})
	}
	return rows, pager(p, n, total, size), err
}

func askedPage(p *portalRequest) int {
	n, err := strconv.Atoi(p.r.URL.Query().Get("pagina"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func pagesOf(total, size int) int { return max(1, (total+size-1)/size) }

// pager is page n's pager of a list of total rows, size a page.
func pager(p *portalRequest, n, total, size int) render.Pager {
	pages := pagesOf(total, size)
	pg := render.Pager{Page: n, Pages: pages, Total: total}
	link := func(to int) string {
		q := p.r.URL.Query()
		q.Set("pagina", strconv.Itoa(to))
		return p.r.URL.Path + "?" + q.Encode()
	}
	if n > 1 {
		pg.Prev = link(n - 1)
	}
	if n < pages {
		pg.Next = link(n + 1)
	}
	return pg
}

// matches reports whether any of the texts holds the search, folded
// (case and accents aside) as the store's searches compare; an empty
// search matches all.
func matches(search string, texts ...string) bool {
	if search == "" {
		return true
	}
	want := store.Fold(search)
	for _, t := range texts {
		if strings.Contains(store.Fold(t), want) {
			return true
		}
	}
	return false
}
