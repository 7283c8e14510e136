package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"fincom/store"
)

// TestLostCancellationFinished: a cancellation whose answer and consult
// were both lost is a 502 saying it will be confirmed, the order says it
// was sent, the note stays authorized; the transmissions loop then asks
// again and SEFAZ's answer (573, registered already, then the consult's
// 101) records it cancelled, the event registered once. One SEFAZ refuses
// on the retry stays authorized, the order saying why, and is not asked
// again.
func TestLostCancellationFinished(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	order := func(id string) map[string]any {
		return post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	}
	cancel := func(id string) *httptest.ResponseRecorder {
		return do(h, http.MethodPost, "/cancel_nf", `{`+auth+`,"id_token":"`+id+`","reason":"Pedido cancelado pelo cliente"}`)
	}
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	generateNF(t, h, id, "AUTHORIZED")
	a.DropReplies(2)
	if rec := cancel(id); rec.Code != http.StatusBadGateway ||
		!strings.Contains(rec.Body.String(), "it will be confirmed when the authority answers; it is never registered twice.") {
		t.Fatalf("a cancellation whose answer and consult were lost: %d %s", rec.Code, rec.Body)
	}
	if o := order(id); o["nf_status_text"] != store.CancellationSentText || o["invoice"].(map[string]any)["status"] != "AUTHORIZED" || o["cancel_nf"] == true {
		t.Fatalf("the order while its cancellation is unconfirmed: %v %v %v", o["nf_status_text"], o["invoice"], o["cancel_nf"])
	}
	if err := retryAfterWait(rig); err != nil {
		t.Fatal(err)
	}
	if o := order(id); o["cancel_nf"] != true || o["invoice"].(map[string]any)["status"] != "CANCELLED" {
		t.Fatalf("the order after the loop asked again: %v %v", o["cancel_nf"], o["invoice"])
	}
	events := 0
	for _, c := range issuing(a) {
		if c == "NFeRecepcaoEvento4" {
			events++
		}
	}
	if events != 2 || a.Cancelled() != 1 {
		t.Fatalf("SEFAZ was sent %d events and holds %d cancelled notes: %v", events, a.Cancelled(), issuing(a))
	}

	// Refused when asked again: it stays authorized and says why.
	refused := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	generateNF(t, h, refused, "AUTHORIZED")
	a.DropReplies(2)
	if rec := cancel(refused); rec.Code != http.StatusBadGateway {
		t.Fatalf("a cancellation whose answer and consult were lost: %d %s", rec.Code, rec.Body)
	}
	a.ForgetProtocols()
	if err := retryAfterWait(rig); err != nil {
		t.Fatal(err)
	}
	o := order(refused)
	if text, _ := o["nf_status_text"].(string); !strings.HasPrefix(text, "Cancelamento recusado pela autoridade (222): ") ||
		o["invoice"].(map[string]any)["status"] != "AUTHORIZED" {
		t.Fatalf("the order after SEFAZ refused its cancellation: %v %v", o["nf_status_text"], o["invoice"])
	}
	sent := len(a.Received())
	if err := retryAfterWait(rig); err != nil || len(a.Received()) != sent {
		t.Fatalf("a refused cancellation was asked again: %v %v", err, a.Received()[sent:])
	}
}
