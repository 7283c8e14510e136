package portal

import (
	"bytes"
	"net/http"
	"net/url"

	"fincom/render"
)

// exportable answers the list page's export when the request asks for
// one (?formato=csv or xlsx): table(), the whole list as filtered, not
// only its page, as a download named name; reports whether it answered.
// Otherwise the page will link both exports of what it shows.
func (s *Portal) exportable(p *portalRequest, name string, table func() (render.Table, error)) bool {
	p.exports = true
	format := p.r.URL.Query().Get("formato")
	if format != "csv" && format != "xlsx" {
		return false
	}
	t, err := table()
	if err != nil {
		s.portalFailed(p, err)
		return true
	}
	var buf bytes.Buffer
	kind := "text/csv; charset=utf-8"
	if format == "csv" {
		err = t.WriteCSV(&buf)
	} else {
		kind = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
		err = t.WriteXLSX(&buf)
	}
	if err != nil {
		s.portalFailed(p, err)
		return true
	}
	h := p.w.Header()
	h.Set("Content-Type", kind)
	h.Set("Content-Disposition", `attachment; filename="`+name+`.`+format+`"; filename*=UTF-8''`+url.PathEscape(name)+"."+format)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	p.w.WriteHeader(http.StatusOK)
	p.w.Write(buf.Bytes())
	return true
}

// exportLinks are the links to a list page's exports: its own address
// with the format asked.
func exportLinks(r *http.Request) *render.ExportLinks {
	link := func(format string) string {
		q := r.URL.Query()
		q.Del("pagina")
		q.Set("formato", format)
		return r.URL.Path + "?" + q.Encode()
	}
	return &render.ExportLinks{CSV: link("csv"), XLSX: link("xlsx")}
}
