package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestTestModePSP: in test mode a PIX charge is created at the domain's
// local PSP through the same client as a real PSP's; /_test/pay_charge
// plays the payer there (any amount; the webhook twice is applied once);
// /_test/psp loses webhooks, which the poll makes up for, and takes the
// PSP down, which refuses charges and refunds cleanly; refunds settle or
// are refused as asked.
func TestTestModePSP(t *testing.T) {
	t.Parallel()
	h := testModeServer(t)
	order := func() string {
		t.Helper()
		id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
		c := post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
		if ref, _ := c["provider_ref"].(string); !strings.HasPrefix(ref, "psp:cobv:") || !strings.Contains(c["pix_payload"].(string), "psp.fincom.test/qr/v2/cobv/") {
			t.Fatalf("a test mode PIX charge is not at the local PSP: %v", c)
		}
		return id
	}
	pay := func(id, extra string) map[string]any {
		t.Helper()
		rec := do(h, http.MethodPost, "/_test/pay_pix", `{`+auth+`,"id_token":"`+id+`"`+extra+`}`)
		if rec.Code != http.StatusOK {
			t.Fatalf("pay %s: %d %s", extra, rec.Code, rec.Body)
		}
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		return out["data"].(map[string]any)
	}

	// Less than the charge asks: held on the charge, settling nothing.
	partial := order()
	if p := pay(partial, `,"amount":"40.00"`); p["webhook"] != "delivered" || p["payment"] != nil || p["held"] != true ||
		len(p["end_to_end_id"].(string)) != 32 || chargeStatus(t, h, partial) != "PENDING" {
		t.Fatalf("a partial payment at the PSP: %v", p)
	}
	if p := pay(order(), ""); p["held"] != nil || p["payment"].(map[string]any)["settlement"] != "exact" {
		t.Fatalf("the charge's amount at the PSP: %v", p)
	}
	twice := order()
	if p := pay(twice, `,"twice":true`); p["payment"].(map[string]any)["settlement"] != "exact" || chargeStatus(t, h, twice) != "PAID" {
		t.Fatalf("paid with the webhook twice: %v", p)
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+twice+`"}`)["data"].(map[string]any)
	if c := o["charges"].([]any)[0].(map[string]any); c["paid_amount"] != "47.30" {
		t.Fatalf("the webhook twice: %v", c)
	}

	// /_test/pay_charge pays there too, the webhook delivered; a domain
	// reset to a snapshot meets a PSP holding its open charges.
	viaCharge := order()
	post(t, h, "/_test/snapshot", `{`+auth+`,"name":"psp-open"}`)
	post(t, h, "/_test/reset", `{`+auth+`,"name":"psp-open"}`)
	if p := post(t, h, "/_test/pay_charge", `{`+auth+`,"id_token":"`+viaCharge+`"}`)["data"].(map[string]any); p["settlement"] != "exact" ||
		chargeStatus(t, h, viaCharge) != "PAID" {
		t.Fatalf("/_test/pay_charge of a charge at the PSP, after a reset: %v", p)
	}

	// A lost webhook: the payment waits for the poll.
	post(t, h, "/_test/psp", `{`+auth+`,"mode":"online","drop_webhooks":1}`)
	lost := order()
	if p := pay(lost, ""); p["webhook"] != "dropped" || p["payment"] != nil || chargeStatus(t, h, lost) != "PENDING" {
		t.Fatalf("a lost webhook: %v, the charge %s", p, chargeStatus(t, h, lost))
	}
	post(t, h, "/_test/psp_poll", `{`+auth+`}`)
	if st := chargeStatus(t, h, lost); st != "PAID" {
		t.Fatalf("after the poll: %s", st)
	}

	// Refunds: settled by the poll, or refused as asked.
	if rec := do(h, http.MethodPost, "/refund_charge", `{`+auth+`,"id_token":"`+lost+`","amount":"7.30"}`); rec.Code != http.StatusOK {
		t.Fatalf("refund: %d %s", rec.Code, rec.Body)
	}
	post(t, h, "/_test/psp_poll", `{`+auth+`}`)
	o = post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+lost+`"}`)["data"].(map[string]any)
	if got := o["charges"].([]any)[0].(map[string]any)["refunded_amount"]; got != "7.30" {
		t.Fatalf("refunded %v", got)
	}
	post(t, h, "/_test/psp", `{`+auth+`,"mode":"online","refuse_refunds":"Conta do pagador encerrada."}`)
	rec := do(h, http.MethodPost, "/refund_charge", `{`+auth+`,"id_token":"`+twice+`"}`)
	post(t, h, "/_test/psp_poll", `{`+auth+`}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("a refund: %d %s", rec.Code, rec.Body)
	}
	o = post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+twice+`"}`)["data"].(map[string]any)
	if got := o["charges"].([]any)[0].(map[string]any)["refunded_amount"]; got != nil {
		t.Fatalf("a refused refund gave back %v", got)
	}
	post(t, h, "/_test/psp", `{`+auth+`,"mode":"online"}`)
	if rec := do(h, http.MethodPost, "/refund_charge", `{`+auth+`,"id_token":"`+twice+`"}`); rec.Code != http.StatusOK {
		t.Fatalf("a refused refund asked again: %d %s", rec.Code, rec.Body)
	}

	// The PSP down: no charge is issued, and none is half-written.
	post(t, h, "/_test/psp", `{`+auth+`,"mode":"offline"}`)
	id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	if rec := do(h, http.MethodPost, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != http.StatusBadGateway {
		t.Fatalf("a charge with the PSP down: %d %s", rec.Code, rec.Body)
	}
	post(t, h, "/_test/psp", `{`+auth+`,"mode":"slow","delay_ms":20}`)
	if rec := do(h, http.MethodPost, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != http.StatusOK {
		t.Fatalf("the same charge once the PSP answers (slowly): %d %s", rec.Code, rec.Body)
	}
	for _, bad := range []string{`"mode":"fast"`, `"mode":"slow"`, `"mode":"online","drop_webhooks":101`} {
		if rec := do(h, http.MethodPost, "/_test/psp", `{`+auth+`,`+bad+`}`); rec.Code != http.StatusBadRequest {
			t.Fatalf("mode %s: %d", bad, rec.Code)
		}
	}
}
