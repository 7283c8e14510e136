package server

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestPortalRegistersBill: a person registers a bill from the portal with
// its attachment, by the rules /insert_expense holds it to: a value above
// zero, a due date, a category of its direction, the spec's file rules;
// a refusal is said in Portuguese beside its field; the bill is then
// listed, and the API sees it with its file.
func TestPortalRegistersBill(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	page := b.do("GET", "/portal/transactions", nil).Body.String()
	if !strings.Contains(page, "Nova conta a pagar ou a receber") {
		t.Fatalf("no form:\n%s", page)
	}
	token := csrf(t, page)
	path := "/portal/transactions?unit=" + fx.tokens["unitA"]
	key := regexp.MustCompile(`name="form_key" value="([0-9a-f]{32})"`).FindStringSubmatch(page)
	if key == nil {
		t.Fatalf("the form has no one-time key:\n%s", page)
	}
	fields := map[string]string{"csrf": token, "type": "out", "description": "Aluguel de dezembro", "value": "3.200,00", "due_date": "2026-12-05",
		"category": fx.tokens["category1"], "form_key": key[1]}
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
	// The same form sent again (back and resend, a double click) makes
	// no second bill.
	if again := b.upload(path, fields, "aluguel.pdf", pdf); again.Code != 303 || !strings.Contains(again.Header().Get("Location"), "feito=repetido") {
		t.Fatalf("the same form again = %d %s", again.Code, again.Header().Get("Location"))
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

// TestPortalEditsEntry: an entry's page shows its form filled (its value
// as people write it) and its attachments; a change is saved by the rules
// /update_expense holds a bill to, a refusal said beside its field, an
// attachment added; its payment is kept; another unit's entry is not
// found.
func TestPortalEditsEntry(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	b := signedIn(t, s, ds)
	bill := post(t, h, "/insert_expense", `{`+auth+`,"description":"Conta de luz","value":"1321.50","due_date":"2026-11-20","pay_day":"2026-11-19","id_token_bank_account":"{{account1}}"}`)["token"].(string)
	path := "/portal/transactions/" + bill + "?unit=" + fx.tokens["unitA"]
	page := b.do("GET", path, nil).Body.String()
	for _, want := range []string{`value="Conta de luz"`, `value="1.321,50"`, `value="2026-11-20"`, "Pago em 19/11/2026", "Editar despesa"} {
		if !strings.Contains(page, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
	if list := b.do("GET", "/portal/transactions?mes=2026-11", nil).Body.String(); !strings.Contains(list, `href="/portal/transactions/`+bill+`?unit=`) {
		t.Error("the list does not link the entry's page")
	}
	fields := map[string]string{"csrf": csrf(t, page), "description": "Energia elétrica", "value": "1.400", "due_date": "2026-11-25", "barcode": "123"}
	if rec := b.upload(path, fields, "", nil); rec.Code != 400 || !strings.Contains(rec.Body.String(), `id="erro-barcode">linha digitável inválida`) ||
		!strings.Contains(rec.Body.String(), `value="Energia elétrica"`) {
		t.Fatalf("a wrong boleto line = %d\n%s", rec.Code, rec.Body)
	}
	fields["barcode"] = ""
	rec := b.upload(path, fields, "conta.pdf", testFile(t, "boleto.pdf"))
	if rec.Code != 303 || !strings.Contains(b.do("GET", rec.Header().Get("Location"), nil).Body.String(), "Lançamento alterado.") {
		t.Fatalf("save = %d\n%s", rec.Code, rec.Body)
	}
	db, release := acquire(t, ds)
	f, err := db.EntryByToken(context.Background(), 1, bill)
	files, _ := db.EntryFiles(context.Background(), 1, "out", bill)
	release()
	if err != nil || f.Description != "Energia elétrica" || f.Value.StringFixed(2) != "1400.00" || f.DueDate != "2026-11-25" || f.PayDay != "2026-11-19" || len(files) != 1 {
		t.Errorf("saved %+v, %d files (%v)", f, len(files), err)
	}
	if page := b.do("GET", path, nil).Body.String(); !strings.Contains(page, "conta.pdf") {
		t.Error("the page does not list the attachment")
	}
	if rec := b.do("GET", "/portal/transactions/"+bill+"?unit="+fx.tokens["unitB"], nil); rec.Code != 404 {
		t.Errorf("under another unit = %d", rec.Code)
	}
}
