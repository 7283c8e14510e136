package server

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestListPaging: fincom's own list routes that grow with time answer a
// page (100 rows unless asked, at most 500) with the total of every page;
// a page past the last is empty with the same total; a page or size out
// of its range is refused with a text naming the field and the range.
func TestListPaging(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	for i := range 105 {
		post(t, h, "/insert_crm", fmt.Sprintf(`{%s,"description":"Ligação %d","record_date":"2026-11-%02d"}`, auth, i, 1+i%28))
	}
	type page struct {
		Data     []map[string]any `json:"data"`
		Page     int              `json:"page"`
		PageSize int              `json:"page_size"`
		Total    int              `json:"total"`
	}
	for _, c := range []struct {
		name, route, body string
		status            int
		rows, page, size  int
		total             int
		err               string
	}{
		{name: "the first 100 unless asked", route: "/list_crm", body: `{` + auth + `}`, status: 200, rows: 100, page: 1, size: 100, total: 105},
		{name: "the last page", route: "/list_crm", body: `{` + auth + `,"page":2}`, status: 200, rows: 5, page: 2, size: 100, total: 105},
		{name: "a size asked", route: "/list_crm", body: `{` + auth + `,"page":3,"page_size":50}`, status: 200, rows: 5, page: 3, size: 50, total: 105},
		{name: "past the last page", route: "/list_crm", body: `{` + auth + `,"page":9}`, status: 200, rows: 0, page: 9, size: 100, total: 105},
		{name: "with a filter", route: "/list_crm", body: `{` + auth + `,"date_from":"2026-11-28","page_size":1}`, status: 200, rows: 1, page: 1, size: 1, total: 3},
		// Every insert above wrote an entry to the audit log.
		{name: "the audit log", route: "/list_audit", body: `{` + auth + `,"page_size":500}`, status: 200, rows: 105, page: 1, size: 500, total: 105},
		{name: "the audit log searched", route: "/list_audit", body: `{` + auth + `,"search":"INSERT_CRM","page_size":2}`, status: 200, rows: 2, page: 1, size: 2, total: 105},
		{name: "the audit log, a search finding none", route: "/list_audit", body: `{` + auth + `,"search":"update_contact"}`, status: 200, rows: 0, page: 1, size: 100, total: 0},
		{name: "empty lists", route: "/list_statement_lines", body: `{` + auth + `}`, status: 200, rows: 0, page: 1, size: 100, total: 0},
		{name: "too big a page", route: "/list_crm", body: `{` + auth + `,"page_size":501}`, status: 400, err: "Invalid page_size. Use a whole number from 1 to 500."},
		{name: "a page of nothing", route: "/list_audit", body: `{` + auth + `,"page_size":0}`, status: 400, err: "Invalid page_size. Use a whole number from 1 to 500."},
		{name: "page 0", route: "/list_webhook_deliveries", body: `{` + auth + `,"page":0}`, status: 400, err: "Invalid page. Use a whole number from 1 to 1000000000."},
		{name: "a page that is no number", route: "/list_nfes", body: `{` + auth + `,"page":"2"}`, status: 400},
		{name: "the search too long", route: "/list_audit", body: `{` + auth + `,"search":"` + strings.Repeat("a", 256) + `"}`, status: 400, err: "A text field is too long."},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := do(h, http.MethodPost, c.route, expand(c.body))
			if rec.Code != c.status {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			if c.status != 200 {
				var e struct{ Error string }
				json.Unmarshal(rec.Body.Bytes(), &e)
				if c.err != "" && e.Error != c.err {
					t.Fatalf("error %q, want %q", e.Error, c.err)
				}
				return
			}
			var p page
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			if len(p.Data) != c.rows || p.Page != c.page || p.PageSize != c.size || p.Total != c.total {
				t.Fatalf("%d rows, page %d of %d, total %d; want %d rows, page %d of %d, total %d",
					len(p.Data), p.Page, p.PageSize, p.Total, c.rows, c.page, c.size, c.total)
			}
		})
	}
}

// TestPortalPagesStaySmall: Conciliação with 10,000 lines waiting and the
// audit log with 100,000 entries each answer a page under 200 KB, with
// the total and a link to the next page; the audit log's search finds an
// entry among all of them, not only the latest.
func TestPortalPagesStaySmall(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("seeds 110,000 rows")
	}
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	for i := range 30 {
		post(t, h, "/insert_expense", fmt.Sprintf(`{%s,"description":"Conta %d","value":"%d.00","due_date":"2026-11-20"}`, auth, i, 100+i))
	}
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(ds.Dir(), "acme.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	tx, err := raw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10000 {
		if _, err := tx.Exec(`INSERT INTO statement_lines (token, unit_id, bank_account_id, fitid, posted, amount, amount_cents, memo, status,
			created_at, updated_at) VALUES (?, 1, (SELECT id FROM bank_accounts WHERE token = ?), ?, '2026-11-10', ?, ?, ?, 'open',
			'2026-11-10T12:00:00.000Z', '2026-11-10T12:00:00.000Z')`, fmt.Sprintf("line-%05d", i), fx.tokens["account1"], fmt.Sprintf("F%05d", i),
			fmt.Sprintf("-%d.00", 100+i%40), -(100+i%40)*100, fmt.Sprintf("PAGAMENTO BOLETO FORNECEDOR %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 100000 {
		record := fmt.Sprintf("rec-%06d", i)
		if i == 7 {
			record = "registro-antigo-procurado"
		}
		if _, err := tx.Exec(`INSERT INTO audit_log (at, actor, unit_id, route, record, status) VALUES ('2026-11-01T12:00:00.000Z', 'token:1 (fca_…)',
			1, '/update_contact', ?, 200)`, record); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	unit := "?unit=" + fx.tokens["unitA"]
	for _, c := range []struct {
		path  string
		wants []string
	}{
		{"/portal/statement" + unit, []string{"Página 1 de 500 · 10000 itens", "pagina=2"}},
		{"/portal/statement" + unit + "&pagina=500", []string{"Página 500 de 500", "PAGAMENTO BOLETO FORNECEDOR 9999"}},
		{"/portal/audit" + unit, []string{"Página 1 de 2001 · 100030 itens", "pagina=2"}},
		{"/portal/audit" + unit + "&busca=antigo-procurado", []string{"registro-antigo-procurado"}},
	} {
		rec := b.do("GET", c.path, nil)
		if rec.Code != 200 {
			t.Fatalf("%s: %d", c.path, rec.Code)
		}
		page := rec.Body.String()
		if len(page) > 200<<10 {
			t.Errorf("%s: %d KB", c.path, len(page)>>10)
		}
		for _, w := range c.wants {
			if !strings.Contains(page, w) {
				t.Errorf("%s lacks %q", c.path, w)
			}
		}
	}
}
