package server

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/bank"
)

// upload posts a portal form with a file, as a browser does.
func (b *browser) upload(path string, fields map[string]string, name string, data []byte) *httptest.ResponseRecorder {
	b.t.Helper()
	if name == "" {
		return b.uploadMany(path, fields)
	}
	return b.uploadMany(path, fields, namedFile{name, data})
}

// namedFile is a file of an upload.
type namedFile struct {
	name string
	data []byte
}

// uploadMany posts a portal form with its files (none, one or many) in
// one "file" field, as a browser's multiple file input does.
func (b *browser) uploadMany(path string, fields map[string]string, files ...namedFile) *httptest.ResponseRecorder {
	b.t.Helper()
	return b.multipart(path, fields, "file", files...)
}

// multipart sends a multipart form: its fields, and its files under
// field.
func (b *browser) multipart(path string, fields map[string]string, field string, files ...namedFile) *httptest.ResponseRecorder {
	b.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for _, f := range files {
		fw, _ := mw.CreateFormFile(field, f.name)
		fw.Write(f.data)
	}
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.RemoteAddr = "127.0.0.1:1234"
	for _, c := range b.cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, req)
	return rec
}

// TestPortalImportsStatement: the portal imports an OFX statement into an
// account, as /import_ofx does: a line that pays an open charge is
// reconciled at once, the others wait; the page says what became of
// each; the same file again adds nothing; a file that is not OFX, or of
// another account, is refused in Portuguese and imports nothing; a form
// without its CSRF token is refused.
func TestPortalImportsStatement(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	order := post(t, h, "/insert_sales_order", serviceOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+order+`"}`)
	b := signedIn(t, s, ds)
	page := b.do("GET", "/portal/import", nil).Body.String()
	if !strings.Contains(page, "Extrato bancário (OFX)") || !strings.Contains(page, `enctype="multipart/form-data"`) {
		t.Fatalf("the import page:\n%s", page)
	}
	token := csrf(t, page)
	account := fx.tokens["account1"]
	url := "/portal/import/statement?unit=" + fx.tokens["unitA"]
	ofx := ofxSGML("P1", "20261128", "1500.00", "PIX ALFA")
	rec := b.upload(url, map[string]string{"csrf": token, "account": account}, "extrato.ofx", ofx)
	body := rec.Body.String()
	if rec.Code != 200 || !strings.Contains(body, "Extrato importado") || !strings.Contains(body, "Conciliadas na hora: <strong>1</strong>") ||
		!strings.Contains(body, "28/11/2026 · R$ 1.500,00") {
		t.Fatalf("import = %d\n%s", rec.Code, body)
	}
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+order+`"}`)["data"].(map[string]any); o["charge_status"] != "PAID" {
		t.Errorf("the statement did not pay the charge: %v", o["charge_status"])
	}
	if rec := b.upload(url, map[string]string{"csrf": token, "account": account}, "extrato.ofx", ofx); !strings.Contains(rec.Body.String(),
		"Já importadas antes (sem mudança): <strong>1</strong>") {
		t.Errorf("the same file again:\n%s", rec.Body)
	}
	for _, c := range []struct {
		data   []byte
		status int
		says   string
	}{
		{[]byte("not an ofx"), 400, "O arquivo não é um extrato OFX: nada foi importado."},
		{[]byte(strings.Replace(string(ofxSGML("P2", "20261128", "10.00", "X")), "<ACCTID>99887-1", "<ACCTID>55555-5", 1)), 422, "O arquivo não traz o extrato desta conta"},
	} {
		rec := b.upload(url, map[string]string{"csrf": token, "account": account}, "x.ofx", c.data)
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.says) {
			t.Errorf("refused %d, want %d %q", rec.Code, c.status, c.says)
		}
	}
	if rec := b.upload(url, map[string]string{"csrf": token, "account": account}, "", nil); rec.Code != 400 || !strings.Contains(rec.Body.String(), "Escolha o arquivo") {
		t.Errorf("no file: %d", rec.Code)
	}
	if rec := b.upload(url, map[string]string{"account": account}, "extrato.ofx", ofx); rec.Code != 403 {
		t.Errorf("without CSRF: %d", rec.Code)
	}
	lines := post(t, h, "/list_statement_lines", `{`+auth+`}`)["data"].([]any)
	if len(lines) != 1 {
		t.Errorf("%d statement lines, want the one imported", len(lines))
	}
}

// TestPortalImportsReturn: the portal applies a CNAB 240 return of the
// bank the file names, as /import_return does, and says what each line
// did; the same file again changes nothing; a file that is not a return
// is refused in Portuguese.
func TestPortalImportsReturn(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	id := post(t, h, "/insert_sales_order", serviceOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	day := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	o := itauOur(t, 1)
	ret := itauReturn(t,
		bank.ReturnItem{Movement: "02", Our: o, Document: "PV-000001/1", Due: day, Amount: decimal.NewFromInt(1500)},
		bank.ReturnItem{Movement: "06", Our: o, Document: "PV-000001/1", Due: day, Amount: decimal.NewFromInt(1500),
			Paid: decimal.NewFromInt(1500), Occurred: day, Credited: day.AddDate(0, 0, 1)},
		bank.ReturnItem{Movement: "06", Our: itauOur(t, 77), Due: day, Amount: decimal.NewFromInt(10), Paid: decimal.NewFromInt(10), Occurred: day},
	)
	b := signedIn(t, s, ds)
	token := csrf(t, b.do("GET", "/portal/import", nil).Body.String())
	url := "/portal/import/return?unit=" + fx.tokens["unitA"]
	rec := b.upload(url, map[string]string{"csrf": token}, "RET.txt", ret)
	body := rec.Body.String()
	for _, want := range []string{"Retorno do Itaú", "Pagamento aplicado: <strong>1</strong>", "Boleto registrado: <strong>1</strong>",
		"Nenhuma cobrança com esse nosso número: <strong>1</strong>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the result lacks %q:\n%s", want, body)
		}
	}
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); o["charge_status"] != "PAID" {
		t.Errorf("the return did not pay the charge: %v", o["charge_status"])
	}
	if rec := b.upload(url, map[string]string{"csrf": token}, "RET.txt", ret); !strings.Contains(rec.Body.String(), "Este retorno já tinha sido aplicado") {
		t.Errorf("the same return again:\n%s", rec.Body)
	}
	if rec := b.upload(url, map[string]string{"csrf": token}, "x.txt", []byte("hello")); rec.Code != 400 || !strings.Contains(rec.Body.String(), "nada foi aplicado") {
		t.Errorf("not a return: %d", rec.Code)
	}
}

// TestPortalImportsNotes: the portal puts received NF-e XMLs in the inbox,
// many in one upload, each as /import_nfe does; the page says what became
// of each file in Portuguese (imported with its supplier and total,
// already there, not an NF-e, issued to another CNPJ); the inbox and the
// API then hold the note once. An upload over the size bound is said to
// be one, not a stale form.
func TestPortalImportsNotes(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	token := csrf(t, b.do("GET", "/portal/import", nil).Body.String())
	nfe := testFile(t, "nfe.xml")
	rec := b.uploadMany("/portal/import/nfe?unit="+fx.tokens["unitA"], map[string]string{"csrf": token},
		namedFile{"compra.xml", nfe}, namedFile{"de-novo.xml", nfe}, namedFile{"foto.xml", []byte("<html>não</html>")})
	body := rec.Body.String()
	if rec.Code != 200 {
		t.Fatalf("import = %d\n%s", rec.Code, body)
	}
	for _, want := range []string{"<td>compra.xml</td><td>Importada</td>", "<td>de-novo.xml</td><td>Já estava na caixa: nada mudou</td>",
		"<td>foto.xml</td><td>Recusada: o arquivo não é um XML de NF-e</td>", "R$ 335,50", purchaseKey, "Importadas: <strong>1</strong>",
		"Não importadas: <strong>2</strong>", `<th scope="col">Arquivo</th>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the result lacks %q", want)
		}
	}
	if got := post(t, h, "/list_nfes", `{`+auth+`}`)["data"].([]any); len(got) != 1 {
		t.Errorf("the inbox holds %d notes", len(got))
	}
	rec = b.uploadMany("/portal/import/nfe?unit="+fx.tokens["unitB"], map[string]string{"csrf": token}, namedFile{"compra.xml", nfe})
	if !strings.Contains(rec.Body.String(), "Recusada: a nota não foi emitida para o CNPJ desta unidade") {
		t.Errorf("another unit's note:\n%s", rec.Body)
	}
	if rec := b.uploadMany("/portal/import/nfe?unit="+fx.tokens["unitA"], map[string]string{"csrf": token}); rec.Code != 400 ||
		!strings.Contains(rec.Body.String(), "Escolha os arquivos a enviar.") {
		t.Errorf("no file = %d", rec.Code)
	}
	big := namedFile{"grande.xml", bytes.Repeat([]byte("a"), 9<<20)}
	if rec := b.uploadMany("/portal/import/nfe?unit="+fx.tokens["unitA"], map[string]string{"csrf": token}, big); rec.Code != http.StatusRequestEntityTooLarge ||
		!strings.Contains(rec.Body.String(), "O envio é grande demais (até 8 MiB de uma vez): nada foi salvo.") {
		t.Errorf("a 9 MiB upload = %d\n%s", rec.Code, rec.Body)
	}
}
