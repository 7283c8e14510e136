package server

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"fincom/store"
)

// TestAccountantPackage: the accountant's package of a month holds every
// invoice the unit issued in it as its authority's document (the same
// bytes the public XML route serves), its events and its DANFE, the
// month's entries, statement and DRE as spreadsheets, and a manifest whose
// totals are the notes' own and the DRE's; the portal serves the same
// package, and a month in the wrong shape is refused.
func TestAccountantPackage(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	id := post(t, h, "/insert_sales_order", strings.NewReplacer(`"estimated_payment_date":"2026-12-10"`, `"estimated_payment_date":"2026-11-25"`, `"local_destino":2`, `"local_destino":1`).Replace(productOrder))["data"].(map[string]any)["id"].(string)
	nf := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	key := nf["access_key"].(string)
	post(t, h, "/insert_income", `{`+auth+`,"description":"Serviço avulso","value":"800.00","due_date":"2026-11-10","pay_day":"2026-11-10","id_token_bank_account":"{{account1}}"}`)
	rec := do(h, http.MethodPost, "/get_accountant_package", `{`+auth+`,"month":"2026-11"}`)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/zip" {
		t.Fatalf("package = %d %v %.300s", rec.Code, rec.Header(), rec.Body)
	}
	z, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len()))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range z.File {
		r, _ := f.Open()
		files[f.Name], _ = io.ReadAll(r)
		r.Close()
	}
	xmlPublic := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, id), "").Body.Bytes()
	if !bytes.Equal(files["notas-emitidas/nfe/"+key+".xml"], xmlPublic) || !bytes.Contains(xmlPublic, []byte("<nfeProc")) {
		t.Errorf("the NF-e's XML in the package is not its nfeProc (%d bytes)", len(files["notas-emitidas/nfe/"+key+".xml"]))
	}
	if !bytes.HasPrefix(files["notas-emitidas/nfe/"+key+".pdf"], []byte("%PDF")) {
		t.Error("the DANFE is not a PDF")
	}
	for _, name := range []string{"lancamentos-2026-11.xlsx", "extrato-2026-11.xlsx", "dre-competencia-2026-11.xlsx", "dre-caixa-2026-11.xlsx", "manifesto.txt"} {
		if len(files[name]) == 0 {
			t.Errorf("the package lacks %s", name)
		}
	}
	var m struct {
		Issued []struct {
			Kind       string
			Authorized int
			Total      string `json:"authorized_total"`
		}
		Entries struct{ Count int }
		Result  struct{ Accrual, Cash string }
		Files   []string
	}
	if err := json.Unmarshal(files["manifest.json"], &m); err != nil {
		t.Fatal(err)
	}
	// The NF-e's total is its vNF: the products and the freight.
	if len(m.Issued) != 1 || m.Issued[0].Kind != "nfe" || m.Issued[0].Authorized != 1 || m.Issued[0].Total != "47.30" || !bytes.Contains(xmlPublic, []byte("<vNF>47.30</vNF>")) {
		t.Errorf("manifest issued %+v", m.Issued)
	}
	dre := post(t, h, "/get_dre", `{`+auth+`,"initial_date":"2026-11-01","final_date":"2026-11-30","basis":"cash"}`)["data"].(map[string]any)
	for _, l := range dre["lines"].([]any) {
		if l := l.(map[string]any); l["key"] == "resultado_liquido" && l["amount"] != m.Result.Cash {
			t.Errorf("the manifest's cash result %s, the DRE's %s", m.Result.Cash, l["amount"])
		}
	}
	if len(m.Files) != len(files) || !strings.Contains(string(files["manifesto.txt"]), "NF-e: 1 autorizada (total R$ 47,30), 0 canceladas") {
		t.Errorf("manifest lists %d files of %d:\n%s", len(m.Files), len(files), files["manifesto.txt"])
	}
	b := signedIn(t, s, ds)
	if page := b.do("GET", "/portal/units", nil).Body.String(); !strings.Contains(page, "Pacote do contador: <span class=\"muted\">não enviado por e-mail") {
		t.Error("the units page does not say the package is not e-mailed")
	}
	db, release := acquire(t, ds)
	if _, err := db.SetUnitProfile(context.Background(), fx.tokens["unitA"], func(p *store.UnitProfile) error { p.AccountantEmail = "contador@escritorio.com.br"; return nil }); err != nil {
		t.Fatal(err)
	}
	release()
	if page := b.do("GET", "/portal/units", nil).Body.String(); !strings.Contains(page, "Pacote do contador: enviado todo dia 5 para contador@escritorio.com.br") {
		t.Error("the units page does not say where the package goes")
	}
	if rec := b.do("GET", "/portal/accountant?mes=2026-11&unit="+fx.tokens["unitA"], nil); rec.Code != 200 || rec.Header().Get("Content-Type") != "application/zip" {
		t.Errorf("the portal's package = %d", rec.Code)
	}
	if rec := do(h, http.MethodPost, "/get_accountant_package", `{`+auth+`,"month":"2026-13"}`); rec.Code != 422 && rec.Code != 400 {
		t.Errorf("month 13 = %d", rec.Code)
	}
}

// packageSheets reads the spreadsheets of an accountant's package: each
// file's first sheet as rows of raw cell values (money as the number it
// holds).
func packageSheets(t *testing.T, pkg []byte) map[string][][]string {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(pkg), int64(len(pkg)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]string{}
	for _, zf := range z.File {
		if !strings.HasSuffix(zf.Name, ".xlsx") {
			continue
		}
		r, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		f, err := excelize.OpenReader(r, excelize.Options{})
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", zf.Name, err)
		}
		rows, err := f.GetRows(f.GetSheetList()[0], excelize.Options{RawCellValue: true})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", zf.Name, err)
		}
		out[zf.Name] = rows
	}
	return out
}

// excelDate is a day as a spreadsheet's date cell holds it: days since
// 1899-12-30.
func excelDate(day string) string {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		panic(err)
	}
	return strconv.Itoa(int(d.Sub(time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)).Hours() / 24))
}
