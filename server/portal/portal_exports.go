package portal

import (
	"bytes"
	"net/http"
	"net/url"

	"fincom/render"
)

// exportable answers a list's export when the request asks for it
// (?formato=csv or xlsx, and ?lista=list; "" is the page's own list):
// table(), the whole list as filtered, not only its page, as a download
// named name; reports whether it answered. Otherwise the page will link
// both exports of the list, under label.
func (s *Portal) exportable(p *portalRequest, list, label, name string, table func() (render.Table, error)) bool {
	p.exports = append(p.exports, render.ExportLinks{Label: label, CSV: exportLink(p.r, p.unit.Token, list, "csv"), XLSX: exportLink(p.r, p.unit.Token, list, "xlsx")})
	q := p.r.URL.Query()
	format := q.Get("formato")
	if (format != "csv" && format != "xlsx") || q.Get("lista") != list {
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
	download(p, kind, `attachment; filename="`+name+`.`+format+`"; filename*=UTF-8''`+url.PathEscape(name)+"."+format, buf.Bytes())
	return true
}

// exportLink is the address of a list's export: the page's own with the
// list and the format asked, of the unit shown (not of a unit the address
// named that the user has no role on).
func exportLink(r *http.Request, unit, list, format string) string {
	q := r.URL.Query()
	if q.Has("unit") {
		q.Set("unit", unit)
	}
	q.Del("pagina")
	q.Del("lista")
	if list != "" {
		q.Set("lista", list)
	}
	q.Set("formato", format)
	return r.URL.Path + "?" + q.Encode()
}

// download answers a file of the portal: its type and disposition, never
// kept by a cache, never read as another type.
func download(p *portalRequest, contentType, disposition string, data []byte) {
	h := p.w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", disposition)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	p.w.WriteHeader(http.StatusOK)
	p.w.Write(data)
}
