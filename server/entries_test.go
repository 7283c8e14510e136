package server

import (
	"bytes"
	"strings"
	"testing"
)

const (
	boletoLine = "00190.00009 01149.718601 68524.522114 6 75860000102656"
	nfeKey     = "35170458716523000119550010000000121000123458"
	november   = `"from_date":"2026-11-01","to_date":"2026-11-30"`
)

func TestEntries(t *testing.T) {
	t.Parallel()
	pdf := testFile(t, "boleto.pdf")
	full := `{` + auth + `,"description":"Compra de papel","value":"335.5","due_date":"2026-11-10","pay_day":"2026-11-09",
		"id_token_category":"{{category1}}","id_token_contact":"{{contact1}}","id_token_bank_account":"{{account1}}",
		"id_token_project":"{{project1}}","payment_type":"6d2ddf64-ee2f-588d-909e-724066befa2b","user_token":"{{user1}}",
		"barcode":"` + boletoLine + `","access_key":"` + nfeKey + `","key_method_credor":"pix@papelaria.com.br","note":"NF 12","private":true}`
	run(t, []scenario{
		{name: "insert expense answer", path: "/insert_expense", body: `{` + auth + `,"description":"Aluguel","value":2500,"due_date":"2026-11-05"}`, status: 200, golden: "entries/insert_answer"},
		{name: "insert then listed", path: "/transactions", before: []call{
			{"/insert_expense", `{` + auth + `,"description":"Aluguel","value":2500,"due_date":"2026-11-05"}`},
			{"/insert_income", `{` + auth + `,"description":"Venda balcão","value":"99.90","due_date":"2026-11-20","id_token_contact":"{{contact2}}"}`},
		}, body: `{` + auth + `,` + november + `}`, status: 200, golden: "entries/listed"},
		{name: "insert income with every field", path: "/insert_income", body: full, status: 200},
		{name: "every field listed", path: "/transactions", before: []call{{"/insert_income", full}},
			body: `{` + auth + `,` + november + `}`, status: 200, golden: "entries/every_field"},
		{name: "multipart with file", path: "/insert_expense", body: `{` + auth + `,"description":"Boleto papel","value":1026.56,"due_date":"2026-11-15"}`,
			files: map[string][]byte{"boleto.pdf": pdf}, status: 200},
		// Names with folders were once cut to their last element; since
		// issue 10 they are refused.
		{name: "multipart path traversal name", path: "/insert_expense", body: `{` + auth + `,"description":"Boleto papel","value":1026.56,"due_date":"2026-11-15"}`,
			files: map[string][]byte{"../../boleto.pdf": pdf}, status: 400, text: "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."},
		{name: "missing description", path: "/insert_expense", body: `{` + auth + `,"value":10,"due_date":"2026-11-05"}`, status: 400, text: "Missing parameters"},
		{name: "missing due date", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":10}`, status: 400, text: "Missing parameters"},
		{name: "missing value", path: "/insert_expense", body: `{` + auth + `,"description":"X","due_date":"2026-11-05"}`, status: 400, text: "Invalid value. It must be greater than zero."},
		{name: "zero value", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":0,"due_date":"2026-11-05"}`, status: 400, text: "Invalid value. It must be greater than zero."},
		{name: "huge value", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":"99999999999999.99","due_date":"2026-11-05"}`, status: 400, text: "Invalid value. Amounts must be between -9999999999.99 and 9999999999.99."},
		{name: "text value", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":"ten","due_date":"2026-11-05"}`, status: 400, text: "Invalid parameter format"},
		{name: "bad due date", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":1,"due_date":"05/11/2026"}`, status: 400, text: "Invalid due_date. Use YYYY-MM-DD."},
		{name: "bad pay day", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":1,"due_date":"2026-11-05","pay_day":"2026-02-30","id_token_bank_account":"{{account1}}"}`, status: 400, text: "Invalid pay_day. Use YYYY-MM-DD."},
		{name: "paid without account", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":1,"due_date":"2026-11-05","pay_day":"2026-11-05"}`, status: 400, text: "A paid entry needs id_token_bank_account."},
		{name: "bad barcode", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":1,"due_date":"2026-11-05","barcode":"00190000090114971860168524522114675860000102657"}`, status: 400, text: "Invalid barcode. Send a boleto's linha digitável or bar code with valid check digits."},
		{name: "bad access key", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":1,"due_date":"2026-11-05","access_key":"35170458716523000119550010000000121000123459"}`, status: 400, text: "Invalid access_key. Send the 44 digits with a valid check digit."},
		{name: "category of other type", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":1,"due_date":"2026-11-05","id_token_category":"{{category1}}"}`, status: 403, text: "Invalid data"},
		{name: "contact of other unit", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":1,"due_date":"2026-11-05","id_token_contact":"{{contactB}}"}`, status: 403, text: "Invalid data"},
		{name: "inactive contact", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":1,"due_date":"2026-11-05","id_token_contact":"{{contactInactive}}"}`, status: 403, text: "Invalid data"},
		{name: "unknown user", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":1,"due_date":"2026-11-05","user_token":"nobody"}`, status: 403, text: "Invalid data"},
		{name: "text file refused", path: "/insert_expense", body: `{` + auth + `,"description":"X","value":1,"due_date":"2026-11-05"}`,
			files: map[string][]byte{"fake.pdf": []byte("just text pretending to be a PDF")}, status: 415, text: "Unsupported file type. Send PDF, image (PNG, JPEG, GIF, WebP) or XML."},
		{name: "bad token", path: "/insert_expense", body: `{"access_token":"{{revoked}}","unit_token":"{{unitA}}","description":"X"}`, status: 403, text: "Invalid data"},

		{name: "update pays", path: "/get_status", before: []call{
			{"/insert_expense", `{` + auth + `,"description":"Luz","value":180.4,"due_date":"2026-11-01"}`},
			{"/update_expense", `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001","pay_day":"2026-11-02","id_token_bank_account":"{{account1}}"}`},
		}, body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`, status: 200, golden: "entries/status_paid"},
		{name: "update cancels", path: "/get_status", before: []call{
			{"/insert_expense", `{` + auth + `,"description":"Luz","value":180.4,"due_date":"2026-11-01"}`},
			{"/update_expense", `{` + auth + `,"token":"00000000-0000-4000-8001-000000000001","active":false}`},
		}, body: `{` + auth + `,"id_tokens":["00000000-0000-4000-8001-000000000001"]}`, status: 200,
			check: func(t *testing.T, r map[string]any) {
				e := r["data"].(map[string]any)["entries"].([]any)[0].(map[string]any)
				if e["status"] != "cancelled" || e["action_status"] != "cancelled" {
					t.Errorf("entry %v", e)
				}
			}},
		{name: "update overdue then reopened", path: "/get_status", before: []call{
			{"/insert_income", `{` + auth + `,"description":"Mensalidade","value":50,"due_date":"2026-11-01","pay_day":"2026-11-01","id_token_bank_account":"{{account1}}"}`},
			{"/update_income", `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001","pay_day":""}`},
		}, body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`, status: 200,
			check: func(t *testing.T, r map[string]any) {
				e := r["data"].(map[string]any)["entries"].([]any)[0].(map[string]any)
				if e["status"] != "overdue" || e["action_status"] != "to_receive" || e["pay_day"] != nil {
					t.Errorf("entry %v", e)
				}
			}},
		{name: "update no fields", path: "/update_expense", before: []call{{"/insert_expense", `{` + auth + `,"description":"Luz","value":1,"due_date":"2026-11-01"}`}},
			body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`, status: 400, text: "No fields provided to update"},
		{name: "update unknown", path: "/update_expense", body: `{` + auth + `,"id_token":"x","note":"y"}`, status: 404, text: "Expense not found or not updated."},
		{name: "update expense as income", path: "/update_income", before: []call{{"/insert_expense", `{` + auth + `,"description":"Luz","value":1,"due_date":"2026-11-01"}`}},
			body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001","note":"y"}`, status: 404, text: "Income not found or not updated."},
		{name: "update other unit", path: "/update_expense", before: []call{{"/insert_expense", `{` + auth + `,"description":"Luz","value":1,"due_date":"2026-11-01"}`}},
			body: `{"access_token":"{{access}}","unit_token":"{{unitB}}","id_token":"00000000-0000-4000-8001-000000000001","note":"y"}`, status: 404, text: "Expense not found or not updated."},
		{name: "status vocabulary", path: "/get_status", body: `{` + auth + `}`, status: 200, golden: "entries/status_vocabulary"},
		{name: "status unknown", path: "/get_status", body: `{` + auth + `,"id_token":"x"}`, status: 404, text: "Entry not found."},
	})
}

func TestEntryFiles(t *testing.T) {
	t.Parallel()
	pdf := testFile(t, "boleto.pdf")
	xml := testFile(t, "nfe.xml")
	s, _ := newTestServer(t)
	h := s.Handler()
	rec := doMultipart(h, "/insert_expense", `{`+auth+`,"description":"Papel","value":335.5,"due_date":"2026-11-10"}`,
		map[string][]byte{"a nota.xml": xml, "boleto.pdf": pdf})
	if rec.Code != 200 {
		t.Fatalf("insert: %d %s", rec.Code, rec.Body.String())
	}
	entry := "00000000-0000-4000-8001-000000000001"
	out := post(t, h, "/list_expense_files", `{`+auth+`,"id_token":"`+entry+`"}`)
	files := out["data"].([]any)
	if len(files) != 2 {
		t.Fatalf("files: %v", files)
	}
	// Parts go in name order: "a nota.xml" first.
	if f := files[0].(map[string]any); f["name"] != "a nota.xml" || f["content_type"] != "application/xml" {
		t.Errorf("file 0 (type sniffed): %v", f)
	}
	f0 := files[1].(map[string]any)
	if f0["name"] != "boleto.pdf" || f0["content_type"] != "application/pdf" || int(f0["size"].(float64)) != len(pdf) {
		t.Errorf("file 1: %v", f0)
	}
	// A file is read back as it was sent, as an attachment never rendered
	// in place; only its own record and unit reach it.
	get := do(h, "POST", "/get_expense_file", `{`+auth+`,"id_token":"`+entry+`","file_token":"`+f0["token"].(string)+`"}`)
	if get.Code != 200 || !bytes.Equal(get.Body.Bytes(), pdf) || get.Header().Get("Content-Type") != "application/pdf" ||
		get.Header().Get("Content-Disposition") != `attachment; filename=boleto.pdf` || get.Header().Get("ETag") != `"`+f0["sha256"].(string)+`"` ||
		get.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("get file: %d %v %d bytes", get.Code, get.Header(), get.Body.Len())
	}
	if get := do(h, "POST", "/get_expense_file", `{`+auth+`,"token":"`+entry+`","id_token_file":"`+files[0].(map[string]any)["token"].(string)+`"}`); get.Code != 200 ||
		!bytes.Equal(get.Body.Bytes(), xml) || get.Header().Get("Content-Disposition") != `attachment; filename="a nota.xml"` {
		t.Fatalf("get file by aliases: %d %v", get.Code, get.Header())
	}
	for _, c := range []struct{ path, body, text string }{
		{"/get_expense_file", `{` + auth + `,"id_token":"` + entry + `","file_token":"nope"}`, "File not found."},
		{"/get_expense_file", `{` + auth + `,"id_token":"nope","file_token":"` + f0["token"].(string) + `"}`, "Expense not found or not updated."},
		{"/get_income_file", `{` + auth + `,"id_token":"` + entry + `","file_token":"` + f0["token"].(string) + `"}`, "Income not found or not updated."},
		{"/get_expense_file", `{"access_token":"{{access}}","unit_token":"{{unitB}}","id_token":"` + entry + `","file_token":"` + f0["token"].(string) + `"}`, "Expense not found or not updated."},
	} {
		if rec := do(h, "POST", c.path, c.body); rec.Code != 404 || !strings.Contains(rec.Body.String(), `"`+c.text+`"`) {
			t.Fatalf("%s %s: %d %s", c.path, c.body, rec.Code, rec.Body.String())
		}
	}
	if rec := do(h, "POST", "/get_expense_file", `{`+auth+`,"id_token":"`+entry+`"}`); rec.Code != 400 {
		t.Fatalf("no file token: %d %s", rec.Code, rec.Body.String())
	}
	if rec := doMultipart(h, "/insert_expense_files", `{`+auth+`,"id_token":"`+entry+`"}`, map[string][]byte{"more.pdf": pdf}); rec.Code != 200 {
		t.Fatalf("insert files: %d %s", rec.Code, rec.Body.String())
	}
	if rec := doMultipart(h, "/insert_expense_files", `{`+auth+`,"id_token":"`+entry+`"}`, nil); rec.Code != 400 {
		t.Fatalf("no files: %d %s", rec.Code, rec.Body.String())
	}
	if rec := doMultipart(h, "/insert_income_files", `{`+auth+`,"id_token":"`+entry+`"}`, map[string][]byte{"x.pdf": pdf}); rec.Code != 404 {
		t.Fatalf("expense as income: %d %s", rec.Code, rec.Body.String())
	}
	fileTok := f0["token"].(string)
	if rec := do(h, "POST", "/delete_expense_files", `{`+auth+`,"id_token":"`+entry+`","files":["`+fileTok+`","nope"]}`); rec.Code != 404 {
		t.Fatalf("delete with unknown file: %d %s", rec.Code, rec.Body.String())
	}
	if n := len(post(t, h, "/list_expense_files", `{`+auth+`,"id_token":"`+entry+`"}`)["data"].([]any)); n != 3 {
		t.Fatalf("a refused delete removed files: %d left", n)
	}
	post(t, h, "/delete_expense_files", `{`+auth+`,"id_token":"`+entry+`","id_token_file":"`+fileTok+`"}`)
	if n := len(post(t, h, "/list_expense_files", `{`+auth+`,"id_token":"`+entry+`"}`)["data"].([]any)); n != 2 {
		t.Fatalf("after delete: %d files", n)
	}
	if rec := do(h, "POST", "/list_expense_files", `{"access_token":"{{access}}","unit_token":"{{unitB}}","id_token":"`+entry+`"}`); rec.Code != 404 {
		t.Fatalf("other unit: %d", rec.Code)
	}
}

func TestTransactions(t *testing.T) {
	t.Parallel()
	seed := []call{
		{"/insert_expense", `{` + auth + `,"description":"Outubro","value":10,"due_date":"2026-10-31","user_token":"{{user1}}"}`},
		{"/insert_expense", `{` + auth + `,"description":"Novembro","value":20,"due_date":"2026-11-01"}`},
		{"/insert_income", `{` + auth + `,"description":"Hoje","value":30,"due_date":"2026-11-22","user_token":"{{user1}}"}`},
		{"/insert_income", `{` + auth + `,"description":"Amanhã","value":40,"due_date":"2026-11-23"}`},
		{"/insert_income", `{"access_token":"{{access}}","unit_token":"{{unitB}}","description":"Filial","value":50,"due_date":"2026-11-10"}`},
	}
	descriptions := func(want ...string) func(t *testing.T, r map[string]any) {
		return func(t *testing.T, r map[string]any) {
			t.Helper()
			data := r["data"].([]any)
			var got []string
			for _, d := range data {
				got = append(got, d.(map[string]any)["description"].(string))
			}
			if len(got) != len(want) {
				t.Fatalf("got %v, want %v", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("got %v, want %v", got, want)
				}
			}
		}
	}
	// Each row names its own unit: a listing of several units takes their
	// names and tokens from the units the request named.
	ownUnits := func(t *testing.T, r map[string]any) {
		t.Helper()
		descriptions("Filial", "Hoje")(t, r)
		want := map[string][2]string{"Filial": {"Acme Filial", fx.tokens["unitB"]}, "Hoje": {"Acme Matriz", fx.tokens["unitA"]}}
		for _, d := range r["data"].([]any) {
			row := d.(map[string]any)
			w := want[row["description"].(string)]
			if row["company_name"] != w[0] || row["id_token_unit"] != w[1] {
				t.Fatalf("%v: company_name %v, id_token_unit %v; want %v", row["description"], row["company_name"], row["id_token_unit"], w)
			}
		}
	}
	run(t, []scenario{
		{name: "defaults are this month to today", path: "/transactions", before: seed, body: `{` + auth + `}`, status: 200, check: descriptions("Novembro", "Hoje")},
		{name: "legacy alias", path: "/", before: seed, body: `{` + auth + `}`, status: 200, check: descriptions("Novembro", "Hoje")},
		{name: "range and order", path: "/transactions", before: seed, body: `{` + auth + `,"from_date":"2026-10-01","to_date":"2026-12-31"}`, status: 200, check: descriptions("Outubro", "Novembro", "Hoje", "Amanhã")},
		{name: "type", path: "/transactions", before: seed, body: `{` + auth + `,"from_date":"2026-10-01","to_date":"2026-12-31","type":"in"}`, status: 200, check: descriptions("Hoje", "Amanhã")},
		{name: "user", path: "/transactions", before: seed, body: `{` + auth + `,"from_date":"2026-10-01","to_date":"2026-12-31","user_token":"{{user1}}"}`, status: 200, check: descriptions("Outubro", "Hoje")},
		{name: "unit tokens", path: "/transactions", before: seed, body: `{"access_token":"{{access}}","unit_tokens":["{{unitA}}","{{unitB}}"],"type":"in"}`, status: 200, check: ownUnits},
		{name: "unit B only", path: "/transactions", before: seed, body: `{"access_token":"{{access}}","unit_token":"{{unitB}}"}`, status: 200, check: descriptions("Filial")},
		{name: "unit tokens of another domain", path: "/transactions", body: `{"access_token":"{{access}}","unit_tokens":["{{unitA}}","{{unitC}}"]}`, status: 403, text: "Invalid data"},
		{name: "unit tokens wrong type", path: "/transactions", body: `{"access_token":"{{access}}","unit_tokens":"{{unitA}}"}`, status: 400, text: "Invalid parameter format"},
		{name: "missing access", path: "/transactions", body: `{"unit_token":"{{unitA}}"}`, status: 400, text: "Missing parameters"},
		{name: "bad access", path: "/transactions", body: `{"access_token":"{{otherAccess}}","unit_token":"{{unitA}}"}`, status: 403, text: "Invalid data"},
		{name: "366 days", path: "/transactions", body: `{` + auth + `,"from_date":"2025-01-01","to_date":"2026-01-02"}`, status: 400, text: "The interval between the dates must be at most 365 days."},
		{name: "365 days ok", path: "/transactions", body: `{` + auth + `,"from_date":"2025-01-01","to_date":"2026-01-01"}`, status: 200},
		{name: "reversed", path: "/transactions", body: `{` + auth + `,"from_date":"2026-02-01","to_date":"2026-01-01"}`, status: 400, text: "The start date must not be after the end date."},
		{name: "bad from", path: "/transactions", body: `{` + auth + `,"from_date":"01/02/2026"}`, status: 400, text: "Invalid from_date. Use YYYY-MM-DD."},
		{name: "bad type", path: "/transactions", body: `{` + auth + `,"type":"x"}`, status: 400, text: "Invalid type. Use in or out."},
	})
}

func TestCashFlow(t *testing.T) {
	t.Parallel()
	seed := []call{
		{"/insert_income", `{` + auth + `,"description":"Venda","value":500,"due_date":"2026-11-05","pay_day":"2026-11-05","id_token_bank_account":"{{account1}}"}`},
		{"/insert_expense", `{` + auth + `,"description":"Fornecedor","value":"200.55","due_date":"2026-11-10","pay_day":"2026-11-10","id_token_bank_account":"{{account1}}"}`},
		{"/insert_expense", `{` + auth + `,"description":"Em aberto","value":100,"due_date":"2026-11-25"}`},
		{"/insert_income", `{` + auth + `,"description":"Antes","value":"0.10","due_date":"2026-10-20","pay_day":"2026-10-20","id_token_bank_account":"{{account1}}"}`},
		{"/insert_income", `{` + auth + `,"description":"Dezembro","value":"1000","due_date":"2026-12-05"}`},
		{"/insert_expense", `{` + auth + `,"description":"Cancelada","value":999,"due_date":"2026-11-06","pay_day":"2026-11-06","id_token_bank_account":"{{account1}}","active":false}`},
	}
	run(t, []scenario{
		{name: "month", path: "/cash_flow", before: seed, body: `{` + auth + `}`, status: 200, check: func(t *testing.T, r map[string]any) {
			d := r["data"].(map[string]any)
			tot := d["totals"].(map[string]any)
			if d["initial_date"] != "2026-11-01" || d["final_date"] != "2026-11-30" || len(d["days"].([]any)) != 30 {
				t.Fatalf("period: %v %v %d days", d["initial_date"], d["final_date"], len(d["days"].([]any)))
			}
			// 1000.10 opening balance of the account + 0.10 paid in October.
			if d["opening_balance"] != "1000.20" || tot["in"] != "500.00" || tot["out"] != "200.55" ||
				tot["closing_balance"] != "1299.65" || tot["forecast_out"] != "100.00" || tot["forecast_closing_balance"] != "1199.65" {
				t.Fatalf("totals: opening %v, %v", d["opening_balance"], tot)
			}
			day10 := d["days"].([]any)[9].(map[string]any)
			if day10["date"] != "2026-11-10" || day10["out"] != "200.55" || day10["balance"] != "1299.65" {
				t.Fatalf("day 10: %v", day10)
			}
		}},
		{name: "two months golden", path: "/cash_flow", before: seed, body: `{` + auth + `,"initial_date":"2026-11-20","final_date":"2026-12-06"}`, status: 200, golden: "entries/cash_flow"},
		{name: "range too long", path: "/cash_flow", body: `{` + auth + `,"initial_date":"2026-01-01","final_date":"2027-01-02"}`, status: 400, text: "The interval between the dates must be at most 365 days."},
		{name: "bad initial", path: "/cash_flow", body: `{` + auth + `,"initial_date":"x"}`, status: 400, text: "Invalid initial_date. Use YYYY-MM-DD."},
		{name: "bad token", path: "/cash_flow", body: `{"access_token":"x","unit_token":"{{unitA}}"}`, status: 403, text: "Invalid data"},
	})
}

func TestCategoryMedian(t *testing.T) {
	t.Parallel()
	twice := func(cat string) []call {
		return []call{
			{"/insert_income", `{` + auth + `,"description":"A","value":1,"due_date":"2026-11-01","id_token_contact":"{{contact1}}","id_token_category":"` + cat + `"}`},
			{"/insert_income", `{` + auth + `,"description":"B","value":1,"due_date":"2026-11-02","id_token_contact":"{{contact1}}","id_token_category":"` + cat + `"}`},
		}
	}
	run(t, []scenario{
		{name: "most used", path: "/get_category_median", before: twice("{{category1}}"), body: `{` + auth + `,"cnpj":"11.444.777/0001-61"}`, status: 200, golden: "entries/category_median"},
		{name: "by type out is empty", path: "/get_category_median", before: twice("{{category1}}"), body: `{` + auth + `,"cnpj":"11444777000161","type":"out"}`, status: 200,
			check: func(t *testing.T, r map[string]any) {
				if v, ok := r["data"]; !ok || v != nil {
					t.Errorf("data = %v", v)
				}
			}},
		{name: "too little history", path: "/get_category_median", before: twice("{{category1}}")[:1], body: `{` + auth + `,"cnpj":"11444777000161"}`, status: 200,
			check: func(t *testing.T, r map[string]any) {
				if r["data"] != nil {
					t.Errorf("data = %v", r["data"])
				}
			}},
		{name: "token_tec", path: "/get_category_median", before: twice("{{category1}}"), body: `{"token_tec":"{{tec}}","unit_token":"{{unitA}}","cnpj":"11444777000161"}`, status: 200,
			check: func(t *testing.T, r map[string]any) {
				if r["data"].(map[string]any)["usage_count"] != "2" {
					t.Errorf("data = %v", r["data"])
				}
			}},
		{name: "bad token_tec", path: "/get_category_median", body: `{"token_tec":"fct_nope","unit_token":"{{unitA}}","cnpj":"11444777000161"}`, status: 403, text: "Invalid data"},
		{name: "missing cnpj", path: "/get_category_median", body: `{` + auth + `}`, status: 400, text: "Provide cnpj."},
		{name: "invalid cnpj", path: "/get_category_median", body: `{` + auth + `,"cnpj":"11444777000160"}`, status: 400, text: "Invalid CNPJ."},
		{name: "missing tokens", path: "/get_category_median", body: `{"cnpj":"11444777000161"}`, status: 400, text: "Missing parameters"},
	})
}

func TestDocuments(t *testing.T) {
	t.Parallel()
	pdf := testFile(t, "boleto.pdf")
	xml := testFile(t, "nfe.xml")
	run(t, []scenario{
		{name: "ocr nfe", path: "/get_ocr_data_by_file", body: `{` + auth + `}`, files: map[string][]byte{"nota.xml": xml}, status: 200, golden: "entries/ocr_nfe"},
		{name: "ocr boleto pdf", path: "/get_ocr_data_by_file", body: `{` + auth + `}`, files: map[string][]byte{"b.pdf": pdf}, status: 200,
			check: func(t *testing.T, r map[string]any) {
				f := r["data"].(map[string]any)["fields"].(map[string]any)
				if f["value"].(map[string]any)["value"] != "1026.56" || r["data"].(map[string]any)["kind"] != "boleto" {
					t.Errorf("fields %v", f)
				}
			}},
		{name: "ocr image", path: "/get_ocr_data_by_file", body: `{` + auth + `}`, files: map[string][]byte{"a.png": []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")}, status: 422,
			text: "Images need an OCR engine, and none is configured. Send the XML or a PDF with text."},
		{name: "ocr unreadable xml", path: "/get_ocr_data_by_file", body: `{` + auth + `}`, files: map[string][]byte{"a.xml": testFile(t, "billion_laughs.xml")}, status: 422, text: "Could not read the document."},
		{name: "ocr no file", path: "/get_ocr_data_by_file", body: `{` + auth + `}`, files: map[string][]byte{}, status: 400, text: "No files sent. Send them as multipart parts named files."},
		{name: "ocr two files", path: "/get_ocr_data_by_file", body: `{` + auth + `}`, files: map[string][]byte{"a.xml": xml, "b.pdf": pdf}, status: 400, text: "Send exactly one file."},
		{name: "ocr bad token", path: "/get_ocr_data_by_file", body: `{"access_token":"x","unit_token":"{{unitA}}"}`, files: map[string][]byte{"a.xml": xml}, status: 403, text: "Invalid data"},

		{name: "screening listed", path: "/list_screenings", before: nil, body: `{` + auth + `}`, status: 200, check: wantCount(0)},
		{name: "screening insert", path: "/insert_screening", body: `{` + auth + `,"note":"chegou por e-mail"}`, files: map[string][]byte{"boleto.pdf": pdf}, status: 200, golden: "entries/screening_insert"},
		{name: "screening unreadable kept", path: "/insert_screening", body: `{` + auth + `}`, files: map[string][]byte{"a.png": []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")}, status: 200},
		{name: "discard unknown", path: "/discard_screening", body: `{` + auth + `,"id_token":"x"}`, status: 404, text: "Screening not found or not pending."},
	})
}

// TestScreeningToExpense: a screened boleto becomes an expense; what the
// request leaves out comes from the document, and its file is attached.
func TestScreeningToExpense(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	rec := doMultipart(h, "/insert_screening", `{`+auth+`}`, map[string][]byte{"boleto.pdf": testFile(t, "boleto.pdf")})
	if rec.Code != 200 {
		t.Fatalf("screening: %d %s", rec.Code, rec.Body.String())
	}
	sc := "00000000-0000-4000-8001-000000000001"
	list := post(t, h, "/list_screenings", `{`+auth+`,"status":"pending"}`)["data"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["extracted"].(map[string]any)["kind"] != "boleto" {
		t.Fatalf("inbox: %v", list)
	}
	out := post(t, h, "/insert_expense", `{`+auth+`,"description":"Papelaria","id_token_screening":"`+sc+`"}`)
	entry := out["token"].(string)
	tx := post(t, h, "/transactions", `{`+auth+`,"from_date":"2018-07-01","to_date":"2018-07-31"}`)["data"].([]any)
	if len(tx) != 1 {
		t.Fatalf("transactions: %v", tx)
	}
	e := tx[0].(map[string]any)
	if e["value"] != "1026.56" || e["due_date"] != "2018-07-15" || e["barcode"] != "00190000090114971860168524522114675860000102656" || e["description"] != "Papelaria" {
		t.Fatalf("entry from screening: %v", e)
	}
	files := post(t, h, "/list_expense_files", `{`+auth+`,"id_token":"`+entry+`"}`)["data"].([]any)
	if len(files) != 1 || files[0].(map[string]any)["name"] != "boleto.pdf" {
		t.Fatalf("files: %v", files)
	}
	if rec := do(h, "POST", "/insert_expense", `{`+auth+`,"description":"Again","id_token_screening":"`+sc+`"}`); rec.Code != 400 {
		t.Fatalf("screening used twice: %d %s", rec.Code, rec.Body.String())
	}
	if list := post(t, h, "/list_screenings", `{`+auth+`,"status":"converted"}`)["data"].([]any); len(list) != 1 {
		t.Fatalf("converted: %v", list)
	}
}

// TestBankAccountBalance: paid entries move their account's balance.
func TestBankAccountBalance(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	post(t, h, "/insert_income", `{`+auth+`,"description":"In","value":"100.05","due_date":"2026-11-05","pay_day":"2026-11-05","id_token_bank_account":"{{account1}}"}`)
	post(t, h, "/insert_expense", `{`+auth+`,"description":"Out","value":"0.15","due_date":"2026-11-05","pay_day":"2026-11-06","id_token_bank_account":"{{account1}}"}`)
	post(t, h, "/insert_expense", `{`+auth+`,"description":"Open","value":"50","due_date":"2026-11-05","id_token_bank_account":"{{account1}}"}`)
	a := post(t, h, "/get_bank_account", `{`+auth+`,"id_token":"{{account1}}"}`)["data"].(map[string]any)
	// Money is a decimal string (spec, Resources); only opening_balance and
	// budget are numbers, as the spec shows them.
	if a["balance"] != "1100.00" || a["opening_balance"] != 1000.1 {
		t.Fatalf("balance = %#v, opening_balance = %#v; want \"1100.00\" (1000.10 + 100.05 - 0.15) and 1000.1", a["balance"], a["opening_balance"])
	}
}

// TestIncomeFiles: the income twins of the file routes, and files sent with
// an update.
func TestIncomeFiles(t *testing.T) {
	t.Parallel()
	pdf := testFile(t, "boleto.pdf")
	s, _ := newTestServer(t)
	h := s.Handler()
	entry := post(t, h, "/insert_income", `{`+auth+`,"description":"Venda","value":10,"due_date":"2026-11-10"}`)["token"].(string)
	if rec := doMultipart(h, "/update_income", `{`+auth+`,"id_token":"`+entry+`"}`, map[string][]byte{"recibo.pdf": pdf}); rec.Code != 200 {
		t.Fatalf("update with file only: %d %s", rec.Code, rec.Body.String())
	}
	if rec := doMultipart(h, "/insert_income_files", `{`+auth+`,"id_token":"`+entry+`"}`, map[string][]byte{"nota.xml": testFile(t, "nfe.xml")}); rec.Code != 200 {
		t.Fatalf("insert_income_files: %d %s", rec.Code, rec.Body.String())
	}
	files := post(t, h, "/list_income_files", `{`+auth+`,"token":"`+entry+`"}`)["data"].([]any)
	if len(files) != 2 || files[0].(map[string]any)["name"] != "recibo.pdf" {
		t.Fatalf("income files: %v", files)
	}
	tok := files[1].(map[string]any)["token"].(string)
	post(t, h, "/delete_income_files", `{`+auth+`,"id_token":"`+entry+`","files":["`+tok+`"]}`)
	if files := post(t, h, "/list_income_files", `{`+auth+`,"id_token":"`+entry+`"}`)["data"].([]any); len(files) != 1 {
		t.Fatalf("after delete: %v", files)
	}
	if rec := do(h, "POST", "/delete_income_files", `{`+auth+`,"id_token":"`+entry+`"}`); rec.Code != 400 {
		t.Fatalf("delete without files: %d", rec.Code)
	}
}
