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
	pages := max(1, (len(rows)+pageRows-1)/pageRows)
	n, err := strconv.Atoi(p.r.URL.Query().Get("pagina"))
	if err != nil || n < 1 {
		n = 1
	}
	n = min(n, pages)
	pg := render.Pager{Page: n, Pages: pages, Total: len(rows)}
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
	return rows[(n-1)*pageRows : min(len(rows), n*pageRows)], pg
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
