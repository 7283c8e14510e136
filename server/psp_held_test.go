package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"fincom/store"
)

// TestHeldPixAtPSP: a R$ 0,01 Pix the PSP confirms for a R$ 47,30 charge
// pays nothing: the charge stays open and shows the Pix held with its
// difference (/get_sales_order_by_id, the order's page); a role that may
// not settle charges cannot decide it; refunded from the portal it is
// given back whole at the PSP, books no expense and leaves the charge
// open, the decision in the audit log; the charge's own amount then
// settles it.
func TestHeldPixAtPSP(t *testing.T) {
	t.Parallel()
	r := newPSPRig(t)
	h, p := r.h, r.p
	hook := r.connect(t)
	id := post(t, h, "/insert_sales_order", productOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`)
	charge := func() map[string]any {
		o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
		return o["charges"].([]any)[0].(map[string]any)
	}
	txid := charge()["pix_txid"].(string)
	e2e, _, body, ok := p.Pay(txid, "0.01", fixedNow)
	if rec := do(h, http.MethodPost, hook, string(body)); !ok || rec.Code != http.StatusOK {
		t.Fatalf("webhook: %v %d %s", ok, rec.Code, rec.Body)
	}
	c := charge()
	held, _ := c["held_pix"].([]any)
	if c["status"] != "PENDING" || c["paid_amount"] != nil || len(held) != 1 {
		t.Fatalf("a cent for R$ 47,30: %v", c)
	}
	want := map[string]any{"end_to_end_id": e2e, "amount": "0.01", "asked": "47.30", "difference": "-47.29", "paid_date": "2026-11-22", "status": "held"}
	for k, v := range want {
		if held[0].(map[string]any)[k] != v {
			t.Fatalf("the held Pix: %v, want %v", held[0], want)
		}
	}

	path := "/portal/orders/" + id + "?unit=" + expand("{{unitA}}")
	reader := signedInAs(t, r.s, r.ds, "Caio Contador", "caio@contabil.com.br", store.RoleAccountant, fx.tokens["unitA"])
	page := reader.do("GET", path, nil).Body.String()
	if !strings.Contains(page, "PIX retido") || strings.Contains(page, "Aceitar como pagamento") {
		t.Fatalf("the accountant's page of the order:\n%s", page)
	}
	decide := func(b *browser, page, what string) *httptest.ResponseRecorder {
		return b.do("POST", "/portal/orders/"+id+"/pix/"+what+"?unit="+expand("{{unitA}}"), url.Values{"csrf": {csrf(t, page)}, "e2e": {e2e}})
	}
	if rec := decide(reader, page, "accept"); rec.Code != http.StatusForbidden || charge()["status"] != "PENDING" {
		t.Fatalf("the accountant accepts the Pix: %d", rec.Code)
	}
	b := signedIn(t, r.s, r.ds)
	page = b.do("GET", path, nil).Body.String()
	for _, w := range []string{"PIX retido", "R$ 0,01 pago em 22/11/2026", "R$ 47,30", "-R$ 47,29", "Aceitar como pagamento", "Guardar e cobrar o restante", "Devolver ao pagador"} {
		if !strings.Contains(page, w) {
			t.Fatalf("the order's page lacks %q:\n%s", w, page)
		}
	}
	if rec := decide(b, page, "refund"); rec.Code != http.StatusSeeOther {
		t.Fatalf("refund the held Pix: %d\n%s", rec.Code, rec.Body)
	}
	if rec := decide(b, page, "accept"); rec.Code != http.StatusConflict {
		t.Fatalf("accept it after its refund: %d", rec.Code)
	}
	for range 2 {
		if err := r.poll(t); err != nil {
			t.Fatal(err)
		}
	}
	c = charge()
	if c["status"] != "PENDING" || c["held_pix"] != nil || c["refunded_amount"] != nil {
		t.Fatalf("after its refund: %v", c)
	}
	for _, e := range post(t, h, "/transactions", `{`+auth+`,"from_date":"2026-11-01","to_date":"2026-12-31","type":"out"}`)["data"].([]any) {
		if d := e.(map[string]any)["description"].(string); strings.HasPrefix(d, "Devolução PIX") {
			t.Fatalf("a held Pix given back booked an expense: %v", e)
		}
	}
	db, release := acquire(t, r.ds)
	entries, _, err := db.AuditLog(context.Background(), store.EveryUnit, e2e, store.Page{Number: 1, Size: 10})
	release()
	if err != nil || len(entries) != 1 || entries[0].Record.String != "pix "+e2e+": refunded" || !strings.Contains(entries[0].Actor, "user:") {
		t.Fatalf("the decision's audit: %+v %v", entries, err)
	}
}
