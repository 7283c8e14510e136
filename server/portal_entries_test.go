package server

import (
	"context"
	"strings"
	"testing"
)

// TestPortalRegistersBill: a person registers a bill from the portal with
// its attachment, by the rules /insert_expense holds it to: a value above
// zero, a due date, a category of its direction, the spec's file rules;
// a refusal is said in Portuguese beside its field; the bill is then
// listed, and the API sees it with its file.
func TestPortalRegistersBill(t *testing.T) {
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	page := b.do("GET", "/portal/transactions", nil).Body.String()
	if !strings.Contains(page, "Nova conta a pagar ou a receber") {
		t.Fatalf("no form:\n%s", page)
	}
	token := csrf(t, page)
	path := "/portal/transactions?unit=" + fx.tokens["unitA"]
	fields := map[string]string{"csrf": token, "type": "out", "description": "Aluguel de dezembro", "value": "3.200,00", "due_date": "2026-12-05",
		"category": fx.tokens["category1"]}
	pdf := testFile(t, "boleto.pdf")
	rec := b.upload(path, fields, "aluguel.pdf", pdf)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-category">escolha uma categoria do tipo do lançamento`) {
		t.Fatalf("an income category on a bill = %d\n%s", rec.Code, rec.Body)
	}
	fields["category"] = ""
	fields["value"] = "0"
	if rec := b.upload(path, fields, "", nil); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-value">valor inválido`) {
		t.Fatalf("a zero value = %d", rec.Code)
	}
	fields["value"] = "3.200,00"
	if rec := b.upload(path, fields, "virus.exe", []byte("MZ\x90\x00 not a document")); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-file">anexo inválido`) {
		t.Fatalf("an executable = %d", rec.Code)
	}
	rec = b.upload(path, fields, "aluguel.pdf", pdf)
	if rec.Code != 303 || !strings.Contains(rec.Header().Get("Location"), "mes=2026-12") {
		t.Fatalf("create = %d %s\n%s", rec.Code, rec.Header().Get("Location"), rec.Body)
	}
	if page := b.do("GET", rec.Header().Get("Location"), nil).Body.String(); !strings.Contains(page, "Lançamento cadastrado.") || !strings.Contains(page, "Aluguel de dezembro") {
		t.Errorf("the month does not list it")
	}
	txs := post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-12-01","to_date":"2026-12-31"}`)["data"].([]any)
	if len(txs) != 1 || txs[0].(map[string]any)["value"] != "3200.00" || txs[0].(map[string]any)["type"] != "out" {
		t.Fatalf("the API sees %v", txs)
	}
	db, release := acquire(t, ds)
	defer release()
	files, err := db.EntryFiles(context.Background(), 1, "out", txs[0].(map[string]any)["id"].(string))
	if err != nil || len(files) != 1 || files[0].ContentType != "application/pdf" {
		t.Errorf("the bill's attachment: %v %v", files, err)
	}
}
