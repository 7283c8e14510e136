package server

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

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
	if rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+nfe+`"}`); rec.Code != http.StatusBadGateway {
		t.Fatalf("an NF-e with SEFAZ offline: %d %s", rec.Code, rec.Body)
	}
	id := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	key, _ := out["access_key"].(string)
	if out["status"] != "AUTHORIZED" || len(key) != 44 || key[34] != '9' || out["protocol"] != "" || out["number"] != 1.0 {
		t.Fatalf("offline NFC-e: %v", out)
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
	r := &jobs.Runner{Domains: rig.ds, Log: slog.New(slog.DiscardHandler), Billing: rig.bill}
	db, release, err := rig.ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	err = r.RetryTransmissions(context.Background(), db)
	release()
	if err != nil {
		t.Fatal(err)
	}
	inv := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["invoice"].(map[string]any)
	if inv["protocol"] == "" || inv["access_key"] != key || a.Authorized() != 1 {
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
