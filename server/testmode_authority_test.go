package server

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"fincom/server/fiscal"
)

// TestTestModeAuthorities: test mode's notes go to a SEFAZ and a national
// NFS-e system of fincom's own through the production clients (the
// served nfeProc carries the local SEFAZ's protocol; the national NFS-e
// is the local system's note under its key); /_test/authority drops an
// answer (PENDING as in production, then one note), goes offline (the
// note waits, PENDING) and back; a domain restored
// from a snapshot meets authorities that agree with its file, so a note
// cancelled after the snapshot is cancelled again.
func TestTestModeAuthorities(t *testing.T) {
	t.Parallel()
	h := testModeServer(t)
	post(t, h, "/update_contact", withAddress)
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	mode := func(body string) {
		t.Helper()
		post(t, h, "/_test/authority", `{"access_token":"{{access}}",`+body+`}`)
	}

	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	mode(`"mode":"drop"`)
	if out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); out["status"] != "PENDING" || out["number"] != 1.0 {
		t.Fatalf("a dropped answer: %v", out)
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
	if out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+other+`"}`)["data"].(map[string]any); out["status"] != "PENDING" {
		t.Fatalf("offline: %v", out)
	}
	mode(`"mode":"authorize"`)
	if out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+other+`"}`)["data"].(map[string]any); out["status"] != "AUTHORIZED" || out["number"] != 2.0 {
		t.Fatalf("online again: %v", out)
	}
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

// TestTestModeAuthorityLog: /_test/authority_log lists what the local
// authorities received through the production client; after drop_reply,
// one enviNFe (its reply lost), then the retry's consult and no second
// enviNFe, the note authorized; deny answers 301 with the manual's text,
// reject takes its code as a string and the manual's text by default;
// while unreachable nothing reaches them, and the note goes through once
// the mode changes.
func TestTestModeAuthorityLog(t *testing.T) {
	t.Parallel()
	h := testModeServer(t)
	post(t, h, "/update_contact", withAddress)
	post(t, h, "/update_contact", strings.Replace(withAddress, "{{contact1}}", "{{contact2}}", 1))
	mode := func(body string) {
		t.Helper()
		post(t, h, "/_test/authority", `{"access_token":"{{access}}",`+body+`}`)
	}
	log := func() []map[string]any {
		t.Helper()
		var out []map[string]any
		for _, m := range post(t, h, "/_test/authority_log", `{"access_token":"{{access}}"}`)["data"].([]any) {
			out = append(out, m.(map[string]any))
		}
		return out
	}
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	mode(`"mode":"drop_reply"`)
	do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if out["status"] != "AUTHORIZED" {
		t.Fatalf("after the dropped reply: %v", out)
	}
	var sends, consults int
	var first map[string]any
	for _, m := range log() {
		switch m["message"] {
		case "enviNFe":
			sends++
			if first == nil {
				first = m
			}
		case "consSitNFe":
			consults++
		}
	}
	if sends != 1 || consults < 1 || first["code"] != "no reply" || first["key"] != out["access_key"] || first["service"] != "NFeAutorizacao4" {
		t.Fatalf("log after drop_reply: %d enviNFe, %d consults, first %v\n%v", sends, consults, first, log())
	}

	denied := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	mode(`"mode":"deny"`)
	rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+denied+`"}`)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"status":"DENIED","status_code":301,"status_text":"Uso denegado pela autoridade (301): Uso Denegado: Irregularidade fiscal do emitente"`) {
		t.Fatalf("deny: %d %s", rec.Code, rec.Body)
	}
	rejected := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	mode(`"mode":"reject","code":"778"`)
	// Answered as production answers SEFAZ's refusal: the invoice
	// REJECTED with its code and text, not a 422.
	if rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+rejected+`"}`); rec.Code != http.StatusOK ||
		!strings.Contains(rec.Body.String(), `"status":"REJECTED","status_code":778,"status_text":"Rejeitada pela autoridade (778): Rejeição: Informado NCM inexistente"`) {
		t.Fatalf("reject 778: %d %s", rec.Code, rec.Body)
	}
	if got := log(); got[len(got)-1]["code"] != "778" {
		t.Errorf("the log's last code: %v", got[len(got)-1])
	}

	mode(`"mode":"unreachable"`)
	n := len(log())
	later := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	if rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+later+`"}`); rec.Code == http.StatusOK && strings.Contains(rec.Body.String(), "AUTHORIZED") {
		t.Fatalf("unreachable authorized: %s", rec.Body)
	}
	if len(log()) != n {
		t.Errorf("a message reached an unreachable authority: %v", log()[n:])
	}
	// The change of mode wakes the held note: authorized with no call.
	mode(`"mode":"authorize"`)
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+later+`"}`)["data"].(map[string]any); o["invoice"] == nil ||
		o["invoice"].(map[string]any)["status"] != "AUTHORIZED" {
		t.Fatalf("once reachable: %v", o["invoice"])
	}
	// A national NFS-e refused by the national system's own code; an NF-e
	// is not refused by it.
	mode(`"mode":"reject","code":"E0014","reason":"Conjunto de Série e Número da DPS já existente"`)
	nat := post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	if rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+nat+`"}`); !strings.Contains(rec.Body.String(), "E0014") {
		t.Fatalf("a national code: %d %s", rec.Code, rec.Body)
	}
	if out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)+`"}`)["data"].(map[string]any); out["status"] != "AUTHORIZED" {
		t.Fatalf("an NF-e under a national code: %v", out)
	}
	// async: a receipt, asked twice in vain, then the verdict.
	mode(`"mode":"async","polls":2`)
	n = len(log())
	slow := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	if out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+slow+`"}`)["data"].(map[string]any); out["status"] != "AUTHORIZED" {
		t.Fatalf("async: %v", out)
	}
	var seen []string
	for _, m := range log()[n:] {
		seen = append(seen, m["message"].(string)+":"+m["code"].(string))
	}
	if got := strings.Join(seen, " "); got != "enviNFe:103 consReciNFe:105 consReciNFe:105 consReciNFe:100" {
		t.Errorf("async messages: %s", got)
	}
	mode(`"mode":"authorize"`)
	if rec := do(h, http.MethodPost, "/_test/authority", `{"access_token":"{{access}}","mode":"reject","code":1}`); rec.Code != http.StatusBadRequest {
		t.Errorf("reject code 1 = %d", rec.Code)
	}
}

// TestTestModeExamples: the examples the document gives of the test-mode
// routes are answered as shown (the request's token made the fixture's).
func TestTestModeExamples(t *testing.T) {
	t.Parallel()
	s, _ := newTestModeServer(t)
	h := s.Handler()
	checked := 0
	for _, rt := range s.routes {
		if rt.Doc.Example == "" || rt.Doc.RespExample == "" || rt.Path == "/_test/authority_log" {
			continue
		}
		body := strings.Replace(rt.Doc.Example, exampleAccess, "{{access}}", 1)
		rec := do(h, rt.MethodOf(), rt.Path, body)
		var got, want any
		json.Unmarshal(rec.Body.Bytes(), &got)
		if err := json.Unmarshal([]byte(rt.Doc.RespExample), &want); err != nil {
			t.Fatalf("%s: the example answer is not JSON: %v", rt.Path, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s answers %s, its example %s", rt.Path, rec.Body, rt.Doc.RespExample)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no example checked")
	}
}
