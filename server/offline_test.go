package server

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"fincom/jobs"
	"fincom/server/invoicing"
)

// TestOfflineNFCe: with SEFAZ unreachable an NFC-e is issued offline
// under its number (tpEmis 9 in its key and ide, when and why, the
// offline QR code with the note's digest, a DANFE that says it waits for
// authorization) while an NF-e still answers 502; it cannot be cancelled
// before SEFAZ authorized it; the retry job sends it once SEFAZ answers,
// and its nfeProc with the protocol becomes the invoice.
func TestOfflineNFCe(t *testing.T) {
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	a.SetOffline(true)
	nfe := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	generateNF(t, h, nfe, "PENDING") // an NF-e waits for SEFAZ
	id := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	key, _ := out["access_key"].(string)
	if out["status"] != "CONTINGENCY" || len(key) != 44 || key[34] != '9' || out["protocol"] != "" || out["number"] != 1.0 {
		t.Fatalf("offline NFC-e: %v", out)
	}
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); o["nf_status"] != "CONTINGENCY" || o["nf"] != true {
		t.Fatalf("the order of the offline NFC-e: nf_status %v, nf %v", o["nf_status"], o["nf"])
	}
	pub := publicOf(t, h, id)
	xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+pub, "").Body.String()
	if !strings.Contains(xml, "<tpEmis>9</tpEmis>") || !strings.Contains(xml, "<dhCont>") || !strings.Contains(xml, "<xJust>Sem comunicação com a SEFAZ") ||
		!regexp.MustCompile(`<qrCode>https://www\.homologacao\.nfce\.fazenda\.sp\.gov\.br/qrcode\?p=`+key+`\|2\|2\|\d\d\|[0-9.]+\|[0-9A-F]{56}\|1\|[0-9A-F]{40}</qrCode>`).MatchString(xml) {
		t.Fatalf("the offline note: %s", xml)
	}
	if page := do(h, http.MethodGet, "/sales_orders/public_danfe/"+pub, "").Body.String(); !strings.Contains(page, "EMITIDA EM CONTINGÊNCIA — Pendente de autorização") {
		t.Fatalf("the DANFE does not say it is pending:\n%s", page)
	}
	cancel := `{` + auth + `,"id_token":"` + id + `","reason":"Pedido cancelado pelo cliente"}`
	if rec := do(h, http.MethodPost, "/cancel_nf", cancel); rec.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(rec.Body.String(), invoicing.ErrOfflinePending.Text) {
		t.Fatalf("cancel before authorization: %d %s", rec.Code, rec.Body)
	}

	a.SetOffline(false)
	if err := retryAfterWait(rig); err != nil {
		t.Fatal(err)
	}
	inv := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["invoice"].(map[string]any)
	// The NF-e that waited went too.
	if inv["protocol"] == "" || inv["status"] != "AUTHORIZED" || inv["access_key"] != key || a.Authorized() != 2 {
		t.Fatalf("after the retry: %v (SEFAZ has %d notes)", inv, a.Authorized())
	}
	xml = do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+pub, "").Body.String()
	if !strings.Contains(xml, "<nfeProc") || !strings.Contains(xml, "<nProt>"+inv["protocol"].(string)+"</nProt>") {
		t.Fatalf("the invoice is not the authorized nfeProc: %.300s", xml)
	}
	if page := do(h, http.MethodGet, "/sales_orders/public_danfe/"+pub, "").Body.String(); !strings.Contains(page, "EMITIDA EM CONTINGÊNCIA") ||
		strings.Contains(page, "Pendente") || !strings.Contains(page, inv["protocol"].(string)) {
		t.Fatalf("the DANFE after authorization:\n%s", page)
	}
	if rec := do(h, http.MethodPost, "/cancel_nf", cancel); rec.Code != http.StatusOK {
		t.Fatalf("cancel after authorization: %d %s", rec.Code, rec.Body)
	}
}

// TestRetryLeavesABusyAuthorityAlone: a 656 (Consumo Indevido) to a held
// note's retry keeps the transmissions job from that authority for the
// hour the manual asks, whatever the domain's clock says; then the note
// goes and is authorized.
func TestRetryLeavesABusyAuthorityAlone(t *testing.T) {
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	a.SetOffline(true)
	id := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	if out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); out["protocol"] != "" {
		t.Fatalf("offline NFC-e: %v", out)
	}
	a.SetOffline(false)
	a.BusyNext()
	r := &jobs.Runner{Domains: rig.ds, Log: slog.New(slog.DiscardHandler), Billing: rig.bill, Elapsed: rig.real.Now}
	sent := func() int {
		n := 0
		for _, c := range a.Received() {
			if c == "NFeAutorizacao4" {
				n++
			}
		}
		return n
	}
	pass := func(after time.Duration) {
		t.Helper()
		rig.real.Advance(after)
		db, release, err := rig.ds.Acquire(context.Background(), "acme")
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if err := r.RetryTransmissions(context.Background(), db); err != nil {
			t.Fatal(err)
		}
	}
	before := sent()       // what reached it while it was offline
	pass(0)                // the held note is seen
	pass(11 * time.Second) // tried: 656
	if sent() != before+1 {
		t.Fatalf("SEFAZ was sent %d lots", sent()-before)
	}
	for _, after := range []time.Duration{11 * time.Second, 10 * time.Minute, 49 * time.Minute} {
		pass(after)
	}
	if sent() != before+1 {
		t.Fatalf("asked again within the hour: %d lots", sent()-before)
	}
	pass(2 * time.Minute)
	inv := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["invoice"].(map[string]any)
	if sent() != before+2 || inv["protocol"] == "" {
		t.Fatalf("after the hour: %d lots, %v", sent(), inv)
	}
}
