package server

import (
	"net/http"
	"strings"
	"testing"

	"fincom/server/fiscal"
)

// TestTestModeAuthorities: test mode's notes go to a SEFAZ and a national
// NFS-e system of fincom's own through the production clients (the
// served nfeProc carries the local SEFAZ's protocol; the national NFS-e
// is the local system's note under its key); /_test/authority drops an
// answer (502, then one note), goes offline and back; a domain restored
// from a snapshot meets authorities that agree with its file, so a note
// cancelled after the snapshot is cancelled again.
func TestTestModeAuthorities(t *testing.T) {
	h := testModeServer(t)
	post(t, h, "/update_contact", withAddress)
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	mode := func(body string) {
		t.Helper()
		post(t, h, "/_test/authority", `{"access_token":"{{access}}",`+body+`}`)
	}

	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	mode(`"mode":"drop"`)
	if rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`); rec.Code != http.StatusBadGateway {
		t.Fatalf("a dropped answer: %d %s", rec.Code, rec.Body)
	}
	out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if out["status"] != "AUTHORIZED" || out["number"] != 1.0 {
		t.Fatalf("after the dropped answer: %v", out)
	}
	xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, id), "").Body.String()
	if !strings.Contains(xml, "<verAplic>fincom-local-1</verAplic>") || !strings.Contains(xml, "<cStat>100</cStat>") {
		t.Fatalf("the nfeProc is not the local SEFAZ's: %.600s", xml)
	}

	nat := post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	out = post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+nat+`"}`)["data"].(map[string]any)
	if key, _ := out["access_key"].(string); out["status"] != "AUTHORIZED" || !fiscal.ValidNationalKey(key) {
		t.Fatalf("national NFS-e: %v", out)
	}

	mode(`"mode":"offline"`)
	other := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	if rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+other+`"}`); rec.Code != http.StatusBadGateway {
		t.Fatalf("offline: %d %s", rec.Code, rec.Body)
	}
	mode(`"mode":"authorize"`)
	if rec := do(h, http.MethodPost, "/_test/authority", `{"access_token":"{{access}}","mode":"sleep"}`); rec.Code != http.StatusBadRequest {
		t.Fatalf("an unknown mode: %d", rec.Code)
	}

	post(t, h, "/_test/snapshot", `{"access_token":"{{access}}","name":"issued"}`)
	cancel := `{` + auth + `,"id_token":"` + id + `","reason":"Pedido cancelado pelo cliente"}`
	post(t, h, "/cancel_nf", cancel)
	post(t, h, "/_test/reset", `{"access_token":"{{access}}","name":"issued"}`)
	if rec := do(h, http.MethodPost, "/cancel_nf", cancel); rec.Code != http.StatusOK {
		t.Fatalf("cancel after the snapshot is restored: %d %s", rec.Code, rec.Body)
	}
	natCancel := `{` + auth + `,"id_token":"` + nat + `","reason":"Serviço cobrado em duplicidade"}`
	if rec := do(h, http.MethodPost, "/cancel_nf", natCancel); rec.Code != http.StatusOK {
		t.Fatalf("cancel the national NFS-e: %d %s", rec.Code, rec.Body)
	}
}
