package server

import (
	"testing"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

const newAccount = `"id_token_bank":"{{bankBB}}","id_token_bank_type":"{{typeChecking}}"`

func TestBanks(t *testing.T) {
	t.Parallel()
	run(t, []scenario{
		{name: "get CB", path: "/get_banks", body: `{` + auth + `,"group_bank":"CB"}`, status: 200, check: func(t *testing.T, r map[string]any) {
			data := r["data"].([]any)
			if len(data) < 100 {
				t.Fatalf("only %d banks in CB", len(data))
			}
			prev, portuguese := "", collate.New(language.BrazilianPortuguese)
			for _, b := range data {
				m := b.(map[string]any)
				if m["group_bank"] != "CB" || len(m["code_bank"].(string)) != 3 || len(m["token"].(string)) != 36 {
					t.Fatalf("bad bank %v", m)
				}
				if name := m["name"].(string); portuguese.CompareString(prev, name) > 0 {
					t.Fatalf("not in Portuguese order: %q after %q", name, prev)
				}
				prev = m["name"].(string)
			}
		}},
		{name: "get AC", path: "/get_banks", body: `{` + auth + `,"group_bank":"AC"}`, status: 200, check: wantAtLeast(100)},
		{name: "get CV", path: "/get_banks", body: `{` + auth + `,"group_bank":"CV"}`, status: 200, check: wantAtLeast(50)},
		{name: "get unknown group", path: "/get_banks", body: `{` + auth + `,"group_bank":"ZZ"}`, status: 200, check: wantCount(0)},
		{name: "get missing group", path: "/get_banks", body: `{` + auth + `}`, status: 400, text: "Missing parameters"},
		{name: "get bad token", path: "/get_banks", body: `{"access_token":"nope","unit_token":"{{unitA}}","group_bank":"CB"}`, status: 403, text: "Invalid data"},
		{name: "get unknown unit", path: "/get_banks", body: `{"access_token":"{{access}}","unit_token":"nope","group_bank":"CB"}`, status: 403, text: "Invalid data"},
		{name: "type banks", path: "/get_type_banks", body: `{` + auth + `}`, status: 200, golden: "bank_accounts/type_banks"},
	})
}

func TestBankAccounts(t *testing.T) {
	t.Parallel()
	run(t, []scenario{
		{name: "get list", path: "/get_bank_account", body: `{` + auth + `}`, status: 200, golden: "bank_accounts/get_list"},
		{name: "get one", path: "/get_bank_account", body: `{` + auth + `,"id_token":"{{account1}}"}`, status: 200, golden: "bank_accounts/get_one"},
		{name: "get one other unit", path: "/get_bank_account", body: `{"access_token":"{{access}}","unit_token":"{{unitB}}","id_token":"{{account1}}"}`, status: 404, text: "Bank account not found or not updated"},
		{name: "get inactive list", path: "/get_bank_account", before: []call{{"/disable_bank_account", `{` + auth + `,"token":"{{account1}}"}`}},
			body: `{` + auth + `,"active":false}`, status: 200, check: wantCount(1)},
		{name: "disable hides", path: "/get_bank_account", before: []call{{"/disable_bank_account", `{` + auth + `,"token":"{{account1}}"}`}},
			body: `{` + auth + `}`, status: 200, check: wantCount(0)},
		{name: "enable answer", path: "/enable_bank_account", body: `{` + auth + `,"id_token":"{{account1}}"}`, status: 200, golden: "bank_accounts/enable_answer"},
		{name: "enable unknown", path: "/enable_bank_account", body: `{` + auth + `,"id_token":"x"}`, status: 404, text: "Bank account not found or not updated"},

		{name: "insert minimal", path: "/insert_bank_account", body: `{` + auth + `,` + newAccount + `}`, status: 200, golden: "bank_accounts/insert_answer"},
		{name: "insert then read", path: "/get_bank_account", before: []call{{"/insert_bank_account", `{` + auth + `,` + newAccount + `,"agency":"0001","current_account":"123456","dv_conta":"7","code_bank":"1","nick_name":"Caixa loja","opening_balance":250.75,"opening_balance_date":"15/02/2026","observation":null}`}},
			body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`, status: 200, golden: "bank_accounts/insert_then_read"},
		{name: "insert missing bank", path: "/insert_bank_account", body: `{` + auth + `,"id_token_bank_type":"{{typeChecking}}"}`, status: 400, text: "Missing parameters"},
		{name: "insert missing type", path: "/insert_bank_account", body: `{` + auth + `,"id_token_bank":"{{bankBB}}"}`, status: 400, text: "Missing parameters"},
		{name: "insert unknown bank", path: "/insert_bank_account", body: `{` + auth + `,"id_token_bank":"x","id_token_bank_type":"{{typeChecking}}"}`, status: 403, text: "Invalid data"},
		{name: "insert code mismatch", path: "/insert_bank_account", body: `{` + auth + `,` + newAccount + `,"code_bank":"237"}`, status: 403, text: "Invalid data"},
		{name: "insert bad date", path: "/insert_bank_account", body: `{` + auth + `,` + newAccount + `,"opening_balance_date":"2026-02-15"}`, status: 400, text: "Invalid opening_balance_date. Use DD/MM/YYYY."},
		{name: "insert bad balance", path: "/insert_bank_account", body: `{` + auth + `,` + newAccount + `,"opening_balance":"lots"}`, status: 400, text: "Invalid parameter format"},
		{name: "insert bad token", path: "/insert_bank_account", body: `{"access_token":"{{revoked}}","unit_token":"{{unitA}}",` + newAccount + `}`, status: 403, text: "Invalid data"},
		{name: "insert unknown unit", path: "/insert_bank_account", body: `{"access_token":"{{access}}","unit_token":"{{unitC}}",` + newAccount + `}`, status: 404, text: "Unit not found"},
		{name: "insert missing tokens", path: "/insert_bank_account", body: `{` + newAccount + `}`, status: 400, text: "Missing parameters"},

		{name: "update answer", path: "/update_bank_account", body: `{` + auth + `,"id_token":"{{account1}}","nick_name":"BB Novo"}`, status: 200, golden: "bank_accounts/update_answer"},
		{name: "update then read", path: "/get_bank_account", before: []call{{"/update_bank_account", `{` + auth + `,"id_token":"{{account1}}","opening_balance":"0","opening_balance_date":"","agency":""}`}},
			body: `{` + auth + `,"id_token":"{{account1}}"}`, status: 200, golden: "bank_accounts/update_then_read"},
		{name: "update missing id", path: "/update_bank_account", body: `{` + auth + `,"nick_name":"X"}`, status: 400, text: "Missing required parameters"},
		{name: "update missing tokens", path: "/update_bank_account", body: `{"id_token":"{{account1}}"}`, status: 400, text: "Missing required parameters"},
		{name: "update no fields", path: "/update_bank_account", body: `{` + auth + `,"id_token":"{{account1}}"}`, status: 400, text: "No fields provided to update"},
		{name: "update only nulls", path: "/update_bank_account", body: `{` + auth + `,"id_token":"{{account1}}","nick_name":null}`, status: 400, text: "No fields provided to update"},
		{name: "update unknown", path: "/update_bank_account", body: `{` + auth + `,"id_token":"x","nick_name":"X"}`, status: 404, text: "Bank account not found or not updated"},
		{name: "update other unit", path: "/update_bank_account", body: `{"access_token":"{{access}}","unit_token":"{{unitB}}","id_token":"{{account1}}","nick_name":"X"}`, status: 404, text: "Bank account not found or not updated"},
		{name: "update unknown unit", path: "/update_bank_account", body: `{"access_token":"{{access}}","unit_token":"x","id_token":"{{account1}}","nick_name":"X"}`, status: 404, text: "Unit not found"},
		{name: "update bad bank", path: "/update_bank_account", body: `{` + auth + `,"id_token":"{{account1}}","id_token_bank":"x"}`, status: 403, text: "Invalid data"},
	})
}

func wantAtLeast(n int) func(t *testing.T, r map[string]any) {
	return func(t *testing.T, r map[string]any) {
		t.Helper()
		if data, _ := r["data"].([]any); len(data) < n {
			t.Errorf("len(data) = %d, want at least %d", len(data), n)
		}
	}
}

// TestBankAccountUpdateAtomic: an update refused half-way (valid nick name,
// unknown bank) leaves the account exactly as it was.
func TestBankAccountUpdateAtomic(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	before := do(h, "POST", "/get_bank_account", `{`+auth+`,"id_token":"{{account1}}"}`).Body.String()
	if rec := do(h, "POST", "/update_bank_account", `{`+auth+`,"id_token":"{{account1}}","nick_name":"Changed","id_token_bank":"x"}`); rec.Code != 403 {
		t.Fatalf("update = %d %s", rec.Code, rec.Body.String())
	}
	if after := do(h, "POST", "/get_bank_account", `{`+auth+`,"id_token":"{{account1}}"}`).Body.String(); after != before {
		t.Fatalf("account changed by a refused update:\n%s\n%s", before, after)
	}
}
