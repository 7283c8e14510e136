package web

import (
	"net/http"

	"fincom/store"
)

// Page is an HTML answer of a public route.
type Page struct {
	status int
	body   []byte
	csp    string // render.Renderer.PageCSP
}

// HtmlPage is an HTML answer under csp, the pages' Content-Security-Policy
// (render.Renderer.PageCSP).
func HtmlPage(status int, body []byte, csp string) Page {
	return Page{status: status, body: body, csp: csp}
}

func (p Page) Write(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", p.csp)
	h.Set("X-Frame-Options", "DENY") // browsers that predate frame-ancestors
	w.WriteHeader(p.status)
	w.Write(p.body)
}

// PngImage is an image answer.
type PngImage []byte

func (b PngImage) Write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

// StatusNames are the charges' statuses as the pages show them.
var StatusNames = map[string]string{
	store.ChargePending: "Em aberto", store.ChargeOverdue: "Vencido", store.ChargePaid: "Pago", store.ChargeIssuing: "Em emissão",
}
