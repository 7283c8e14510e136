package server

import (
	"net/http"
	"strings"
	"testing"
)

// pixAutomaticoMeta is a monthly contract billed by PIX automático,
// received in the account of token account.
func pixAutomaticoMeta(account string) string {
	return strings.Replace(contractMeta, `"payment_type":"`+payBoleto+`","recurrence":true`,
		`"payment_type":"9c61cd65-9b9c-525b-84e6-37a6bc09d571","pix_key":"pix@acme.com.br","requested_payment_mode":"PIX_AUTOMATICO",`+
			`"generateChargeOnPixAutomaticAcceptance":true,"id_token_bank_account":"`+account+`","recurrence":true`, 1)
}

// TestPixAutomaticoAtPSP: a contract's PIX automático recurrence is
// created at the PSP (POST /locrec, POST /rec, and /solicrec with the
// payer's account), asking again answers it; the payer's approval, told by
// the PSP's webhook and confirmed with it, accepts the contract and issues
// its first charge at the PSP (PUT /cobr/{txid}) due in 30 days, which the
// payer's PSP debits and the PSP's webhook settles once; a rejection
// issues nothing; a contract not PIX automático, a forged idRec, a bad
// payer account are refused.
func TestPixAutomaticoAtPSP(t *testing.T) {
	t.Parallel()
	h := testModeServer(t)
	account := post(t, h, "/insert_bank_account", `{`+auth+`,`+newAccount+`,"agency":"1234","current_account":"56789","dv_conta":"0"}`)
	accountToken, _ := account["token"].(string)
	if accountToken == "" {
		accountToken, _ = account["data"].(map[string]any)["id_token"].(string)
	}
	contract := post(t, h, "/insert_contract", pixAutomaticoMeta(accountToken))["data"].(map[string]any)
	id, order := contract["id_token"].(string), contract["id_sales_order"].(string)

	rec := post(t, h, "/request_pix_automatico", `{`+auth+`,"id_token":"`+id+`","payer_ispb":"00000000","payer_agency":"0001","payer_account":"123456"}`)["data"].(map[string]any)
	idRec, _ := rec["id_rec"].(string)
	if len(idRec) != 29 || rec["status"] != "CRIADA" || !strings.Contains(rec["location"].(string), "/qr/v2/rec/") || len(rec["request_id"].(string)) != 29 {
		t.Fatalf("the recurrence: %v", rec)
	}
	if again := post(t, h, "/request_pix_automatico", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); again["id_rec"] != idRec {
		t.Fatalf("asked again: %v", again)
	}
	if n := len(post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+order+`"}`)["data"].(map[string]any)["charges"].([]any)); n != 0 {
		t.Fatalf("charged before the approval: %d", n)
	}

	rec = post(t, h, "/_test/pix_automatico", `{`+auth+`,"id_token":"`+id+`","decision":"approve"}`)["data"].(map[string]any)
	if rec["status"] != "APROVADA" {
		t.Fatalf("approved: %v", rec)
	}
	c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+order+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	if ref, _ := c["provider_ref"].(string); !strings.HasPrefix(ref, "psp:cobr:") || c["due_date"] != "2026-12-22" || c["pix_payload"] != nil || c["status"] != "PENDING" {
		t.Fatalf("the first charge: %v", c)
	}
	paid := post(t, h, "/_test/pay_pix", `{`+auth+`,"id_token":"`+order+`"}`)["data"].(map[string]any)
	if p, _ := paid["payment"].(map[string]any); p == nil || p["settlement"] != "exact" || p["paid_amount"] != "1234.56" || chargeStatus(t, h, order) != "PAID" {
		t.Fatalf("debited: %v", paid)
	}

	// The next cycles: the contract's billing charges each at the PSP,
	// under the same recurrence.
	post(t, h, "/_test/clock", `{"access_token":"{{access}}","advance":"P2M"}`)
	cycles := 0
	for _, o := range post(t, h, "/list_contracts", `{`+auth+`}`)["data"].([]any) {
		if o.(map[string]any)["id_token"] != id {
			continue
		}
		for _, ot := range o.(map[string]any)["id_token_sales_orders"].([]any) {
			if ot == order {
				continue
			}
			cs := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+ot.(string)+`"}`)["data"].(map[string]any)["charges"].([]any)
			if ref, _ := cs[0].(map[string]any)["provider_ref"].(string); !strings.HasPrefix(ref, "psp:cobr:") {
				t.Fatalf("a later cycle's charge: %v", cs)
			}
			cycles++
		}
	}
	if cycles == 0 {
		t.Fatal("no later cycle was billed")
	}

	// Rejected: nothing is charged; a contract not PIX automático, a
	// payer account half given, are refused.
	other := post(t, h, "/insert_contract", pixAutomaticoMeta(accountToken))["data"].(map[string]any)
	post(t, h, "/request_pix_automatico", `{`+auth+`,"id_token":"`+other["id_token"].(string)+`"}`)
	if rec := post(t, h, "/_test/pix_automatico", `{`+auth+`,"id_token":"`+other["id_token"].(string)+`","decision":"reject"}`)["data"].(map[string]any); rec["status"] != "REJEITADA" {
		t.Fatalf("rejected: %v", rec)
	}
	if n := len(post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+other["id_sales_order"].(string)+`"}`)["data"].(map[string]any)["charges"].([]any)); n != 0 {
		t.Fatalf("a rejected recurrence charged %d", n)
	}
	plain := post(t, h, "/insert_contract", contractMeta)["data"].(map[string]any)["id_token"].(string)
	for body, status := range map[string]int{
		`"id_token":"` + plain + `"`:                       http.StatusConflict,
		`"id_token":"` + id + `","payer_ispb":"123"`:       http.StatusBadRequest,
		`"id_token":"` + id + `","payer_account":"123456"`: http.StatusBadRequest,
	} {
		if rec := do(h, http.MethodPost, "/request_pix_automatico", `{`+auth+`,`+body+`}`); rec.Code != status {
			t.Fatalf("%s: %d %s", body, rec.Code, rec.Body)
		}
	}
}

// TestPixAutomaticoWebhooks: a production server follows a PSP's
// recurrence and recurrent-charge webhooks only as the PSP confirms them
// (a forged idRec or txid changes nothing), applies a debit once however
// often it is told, and finds by its poll an approval whose webhook never
// came; the poll registers both webhooks.
func TestPixAutomaticoWebhooks(t *testing.T) {
	t.Parallel()
	r := newPSPRig(t)
	h, p := r.h, r.p
	hook := strings.TrimSuffix(r.connect(t), "/pix")
	account := post(t, h, "/insert_bank_account", `{`+auth+`,`+newAccount+`,"agency":"1234","current_account":"56789","dv_conta":"0"}`)
	accountToken, _ := account["token"].(string)
	contract := post(t, h, "/insert_contract", pixAutomaticoMeta(accountToken))["data"].(map[string]any)
	id, order := contract["id_token"].(string), contract["id_sales_order"].(string)
	idRec := post(t, h, "/request_pix_automatico", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["id_rec"].(string)
	if p.Recs()[idRec] != "CRIADA" {
		t.Fatalf("the PSP holds %v", p.Recs())
	}
	forged := `{"recs":[{"idRec":"RN0000000020261122abcdefghijk","status":"APROVADA"}]}`
	if rec := do(h, http.MethodPost, hook+"/rec", forged); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `"changed":1`) {
		t.Fatalf("a forged recurrence: %d %s", rec.Code, rec.Body)
	}
	if rec := do(h, http.MethodPost, hook+"/rec", `{"recs":[{"idRec":"`+idRec+`","status":"APROVADA"}]}`); rec.Code != http.StatusOK ||
		!strings.Contains(rec.Body.String(), `"changed":0`) {
		t.Fatalf("a webhook the PSP does not confirm (not approved there): %d %s", rec.Code, rec.Body)
	}
	_, body, ok := p.ApproveRec(idRec)
	if rec := do(h, http.MethodPost, hook+"/rec", string(body)); !ok || rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"changed":1`) {
		t.Fatalf("approved: %v %d %s", ok, rec.Code, rec.Body)
	}
	c := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+order+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	txid := c["pix_txid"].(string)
	if do(h, http.MethodPost, hook+"/cobr", `{"cobsr":[{"txid":"`+txid+`"}]}`); chargeStatus(t, h, order) != "PENDING" {
		t.Fatal("a recurrent charge paid before the PSP concluded it")
	}
	_, _, body, ok = p.PayCobR(txid, fixedNow)
	for range 2 {
		if rec := do(h, http.MethodPost, hook+"/cobr", string(body)); !ok || rec.Code != http.StatusOK {
			t.Fatalf("debited: %v %d %s", ok, rec.Code, rec.Body)
		}
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+order+`"}`)["data"].(map[string]any)
	if c := o["charges"].([]any)[0].(map[string]any); c["status"] != "PAID" || c["paid_amount"] != "1234.56" {
		t.Fatalf("after the webhook twice: %v", c)
	}
	if rec := do(h, http.MethodPost, hook+"/cobr", `{"cobsr":[]}`); rec.Code != http.StatusBadRequest {
		t.Fatalf("an empty body: %d", rec.Code)
	}

	// An approval whose webhook never came: the poll finds it.
	other := post(t, h, "/insert_contract", pixAutomaticoMeta(accountToken))["data"].(map[string]any)
	otherRec := post(t, h, "/request_pix_automatico", `{`+auth+`,"id_token":"`+other["id_token"].(string)+`"}`)["data"].(map[string]any)["id_rec"].(string)
	p.ApproveRec(otherRec)
	if err := r.poll(t); err != nil {
		t.Fatal(err)
	}
	cs := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+other["id_sales_order"].(string)+`"}`)["data"].(map[string]any)["charges"].([]any)
	if len(cs) != 1 {
		t.Fatalf("after the poll: %v", cs)
	}
	// Cancelled: at the PSP first.
	post(t, h, "/cancel_charge", `{`+auth+`,"id_token":"`+other["id_sales_order"].(string)+`"}`)
	if st := p.CobRStatus(cs[0].(map[string]any)["pix_txid"].(string)); st != "CANCELADA" {
		t.Fatalf("the PSP holds the cancelled charge as %q", st)
	}
	if got := p.Webhook("/webhookrec"); got != "https://fincom.test/api/v1"+hook {
		t.Fatalf("the recurrence webhook at the PSP: %q", got)
	}
}

// TestPixAutomaticoWithoutPSP: a production unit without a PSP is told
// to connect one; nothing is created.
func TestPixAutomaticoWithoutPSP(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	account, _ := post(t, h, "/insert_bank_account", `{`+auth+`,`+newAccount+`,"agency":"1234","current_account":"56789"}`)["token"].(string)
	id := post(t, h, "/insert_contract", pixAutomaticoMeta(account))["data"].(map[string]any)["id_token"].(string)
	rec := do(h, http.MethodPost, "/request_pix_automatico", `{`+auth+`,"id_token":"`+id+`"}`)
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "connect one (fincom unit psp)") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
