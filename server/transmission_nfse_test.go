package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"fincom/server/fiscal"
	"fincom/server/invoicing"
	"fincom/store"
)

// TestNationalNFSeIssued: a production server sends a national NFS-e's
// signed DPS to the national system; the invoice is the system's note,
// under the key the system gave it (not one fincom computed), served as
// the invoice's XML; /cancel_nf has the system register the cancellation
// event e101101 first.
func TestNationalNFSeIssued(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, n := rig.h, rig.n
	id := post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	key, _ := out["access_key"].(string)
	if out["status"] != "AUTHORIZED" || !fiscal.ValidNationalKey(key) || n.Issued() != 1 {
		t.Fatalf("issued %v (the system has %d notes)", out, n.Issued())
	}
	xml := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, id), "").Body.String()
	if !strings.Contains(xml, `<infNFSe Id="NFS`+key+`"`) || !strings.Contains(xml, "<verAplic>fincom-sim</verAplic>") {
		t.Fatalf("the served XML is not the system's note of key %s: %.400s", key, xml)
	}
	// The DANFSe is the system's own, fetched from the ADN once issued and
	// kept: served and e-mailed without asking again.
	if got := strings.Join(n.Received(), ","); got != "POST /nfse,GET /danfse" {
		t.Fatalf("the system was called %s", got)
	}
	public := publicOf(t, h, id)
	for range 2 {
		if pdf := do(h, http.MethodGet, "/sales_orders/public_danfe_pdf/"+public, "").Body.String(); !strings.HasPrefix(pdf, "%PDF-") ||
			!strings.Contains(pdf, "(DANFSe - NFS-e "+key+")") {
			t.Fatalf("the DANFSe served is not the system's: %.300s", pdf)
		}
	}
	if got := len(n.Received()); got != 2 {
		t.Fatalf("the system was asked again: %v", n.Received())
	}
	// A note the ADN has no DANFSe of yet: fincom's rendering, and the
	// system's once it has one.
	n.SetDANFSe(false)
	other := post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	otherKey := generateNF(t, h, other, "AUTHORIZED")["access_key"].(string)
	if pdf := do(h, http.MethodGet, "/sales_orders/public_danfe_pdf/"+publicOf(t, h, other), "").Body.String(); !strings.HasPrefix(pdf, "%PDF-") ||
		strings.Contains(pdf, "(DANFSe - NFS-e ") {
		t.Fatalf("without the system's DANFSe: %.300s", pdf)
	}
	// Asked again only once DANFSeRetry has passed: a public page never
	// makes fincom ask the system each time.
	asked := len(n.Received())
	n.SetDANFSe(true)
	if pdf := do(h, http.MethodGet, "/sales_orders/public_danfe_pdf/"+publicOf(t, h, other), "").Body.String(); strings.Contains(pdf, "(DANFSe - NFS-e ") ||
		len(n.Received()) != asked {
		t.Fatalf("asked again before DANFSeRetry: %v", n.Received()[asked:])
	}
	*rig.now = rig.now.Add(invoicing.DANFSeRetry + time.Minute)
	if pdf := do(h, http.MethodGet, "/sales_orders/public_danfe_pdf/"+publicOf(t, h, other), "").Body.String(); !strings.Contains(pdf, "(DANFSe - NFS-e "+otherKey+")") {
		t.Fatalf("the system's DANFSe once it has one: %.300s", pdf)
	}
	n.SetOffline(true)
	cancel := `{` + auth + `,"id_token":"` + id + `","reason":"Serviço cobrado em duplicidade","reason_code":"2"}`
	if rec := do(h, http.MethodPost, "/cancel_nf", strings.Replace(cancel, `"reason_code":"2"`, `"reason_code":"5"`, 1)); rec.Code != http.StatusBadRequest {
		t.Fatalf("a reason code not the system's: %d %s", rec.Code, rec.Body)
	}
	if rec := do(h, http.MethodPost, "/cancel_nf", cancel); rec.Code != http.StatusBadGateway {
		t.Fatalf("cancel while the system is offline: %d %s", rec.Code, rec.Body)
	}
	n.SetOffline(false)
	if rec := do(h, http.MethodPost, "/cancel_nf", cancel); rec.Code != http.StatusOK || n.Cancelled() != 1 {
		t.Fatalf("cancel: %d %s (the system registered %d)", rec.Code, rec.Body, n.Cancelled())
	}
	// The reason code went as the event's cMotivo, the text as xMotivo.
	if ev := invoiceEvents(t, rig, h, id); len(ev) != 1 || !strings.Contains(ev[0].XML, "<cMotivo>2</cMotivo>") ||
		!strings.Contains(ev[0].XML, "<xMotivo>Serviço cobrado em duplicidade</xMotivo>") {
		t.Fatalf("the cancellation event: %+v", ev)
	}
}

// TestNationalNFSeLostAnswer: the system issues a note and its answer is
// lost; /generate_nf answers the invoice PENDING and holds the DPS; the
// next one asks the system for the DPS (GET /dps) and takes the note it
// issued (GET /nfse): one note for the sale.
func TestNationalNFSeLostAnswer(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, n := rig.h, rig.n
	id := post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	n.DropReplies(1)
	generateNF(t, h, id, "PENDING")
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); o["nf_status"] != "PENDING" {
		t.Fatalf("the order while its NFS-e is pending: %v", o["nf_status"])
	}
	out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if out["status"] != "AUTHORIZED" || n.Issued() != 1 {
		t.Fatalf("retry: %v (the system has %d notes)", out, n.Issued())
	}
	if got := strings.Join(n.Received(), ","); got != "POST /nfse,GET /dps,GET /nfse,GET /danfse" {
		t.Fatalf("the system was called %s", got)
	}
	// Left to the transmissions loop, on real elapsed time: the same.
	other := post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	n.DropReplies(1)
	generateNF(t, h, other, "PENDING")
	if err := retryAfterWait(rig); err != nil {
		t.Fatal(err)
	}
	inv := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+other+`"}`)["data"].(map[string]any)["invoice"].(map[string]any)
	if inv["status"] != "AUTHORIZED" || n.Issued() != 2 {
		t.Fatalf("after the loop: %v (the system has %d notes)", inv, n.Issued())
	}
}

// TestNationalNFSeRefusals: the system's refusal is the invoice REJECTED
// with its codes and texts, on the order too, and the DPS number spent (a
// DPS number is used once); a production unit's DPS goes to the
// production address (here a produção restrita that refuses it); the
// order decides: an nfsen order goes to the national system whatever the
// unit records of its city.
func TestNationalNFSeRefusals(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, n := rig.h, rig.n
	id := post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	n.RejectNext(310, "O código de tributação nacional informado não existe.")
	out := generateNF(t, h, id, "REJECTED")
	if out["status_code"] != 310.0 || !strings.Contains(out["status_text"].(string), "E0310: O código de tributação nacional") {
		t.Fatalf("refusal: %v", out)
	}
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); o["nf_status"] != "REJECTED" ||
		!strings.Contains(o["nf_status_text"].(string), "E0310: O código de tributação nacional") {
		t.Fatalf("the order after the refusal: %v %v", o["nf_status"], o["nf_status_text"])
	}
	out = generateNF(t, h, id, "AUTHORIZED")
	if out["number"] != 2.0 {
		t.Fatalf("after the refusal: %v", out)
	}
	setProfile := func(change func(p *store.UnitProfile)) {
		db, release, err := rig.ds.Acquire(context.Background(), "acme")
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if _, err := db.SetUnitProfile(context.Background(), expand("{{unitA}}"), func(p *store.UnitProfile) error { change(p); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	setProfile(func(p *store.UnitProfile) { p.FiscalEnvironment = store.Producao })
	id = post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	if out := generateNF(t, h, id, "REJECTED"); !strings.Contains(out["status_text"].(string), "tpAmb deve ser 2") {
		t.Fatalf("production DPS: %v", out)
	}
	setProfile(func(p *store.UnitProfile) { p.FiscalEnvironment, p.NFSeIssuer = store.Homologacao, store.NFSeMunicipal })
	id = post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	if out := generateNF(t, h, id, "AUTHORIZED"); out["kind"] != "nfsen" || n.Issued() != 2 {
		t.Fatalf("a municipal unit's national NFS-e: %v (the system has %d notes)", out, n.Issued())
	}
}

// TestNationalNFSeHostileAnswers: an answer to the DPS that is no note
// (not JSON, too large, not gzip, a note whose signature does not verify,
// of another key) leaves the invoice PENDING; the next issue asks the
// system for the DPS and takes the note it issued: one note for the sale.
func TestNationalNFSeHostileAnswers(t *testing.T) {
	t.Parallel()
	field := func(body []byte, name string, change func(string) string) []byte {
		var m map[string]any
		json.Unmarshal(body, &m)
		m[name] = change(m[name].(string))
		b, _ := json.Marshal(m)
		return b
	}
	for _, tc := range []struct {
		name   string
		tamper func(int, []byte) (int, []byte)
	}{
		{"not JSON", func(s int, b []byte) (int, []byte) { return s, []byte(`{"chaveAcesso": `) }},
		{"too large", func(s int, b []byte) (int, []byte) { return s, bytes.Repeat([]byte(" "), 5<<20) }},
		{"not gzip", func(s int, b []byte) (int, []byte) {
			return s, field(b, "nfseXmlGZipB64", func(string) string { return base64.StdEncoding.EncodeToString([]byte("<NFSe/>")) })
		}},
		{"a forged note", func(s int, b []byte) (int, []byte) {
			return s, field(b, "nfseXmlGZipB64", func(v string) string {
				z, _ := base64.StdEncoding.DecodeString(v)
				r, _ := gzip.NewReader(bytes.NewReader(z))
				doc, _ := io.ReadAll(r)
				doc = bytes.Replace(doc, []byte("Instalação de rede"), []byte("Instalação de redes"), 1)
				var out bytes.Buffer
				w := gzip.NewWriter(&out)
				w.Write(doc)
				w.Close()
				return base64.StdEncoding.EncodeToString(out.Bytes())
			})
		}},
		{"another key", func(s int, b []byte) (int, []byte) {
			return s, field(b, "chaveAcesso", func(k string) string { return k[:20] + "9" + k[21:] })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rig := newTransmissionRig(t)
			h, n := rig.h, rig.n
			id := post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
			n.TamperNext(tc.tamper)
			generateNF(t, h, id, "PENDING")
			if out := generateNF(t, h, id, "AUTHORIZED"); out["number"] != 1.0 || n.Issued() != 1 {
				t.Fatalf("after the hostile answer: %v (the system has %d notes)", out, n.Issued())
			}
		})
	}
}

// TestNationalNFSeReplaced: /replace_nf sends a DPS carrying subst while
// the old note is valid; the system issues the new note and cancels the
// old one itself; fincom records both (the old invoice cancelled, the new
// one the order's). A lost answer is asked for first when called again:
// one note. The system's refusal is a 422 with its codes; an NF-e is not
// replaced.
func TestNationalNFSeReplaced(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, n := rig.h, rig.n
	id := post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	first := generateNF(t, h, id, "AUTHORIZED")["access_key"].(string)
	replace := `{` + auth + `,"id_token":"` + id + `","reason":"Valor do serviço corrigido","reason_code":"99"}`
	rec := do(h, http.MethodPost, "/replace_nf", replace)
	var out struct {
		Data map[string]any `json:"data"`
	}
	json.Unmarshal(rec.Body.Bytes(), &out)
	second, _ := out.Data["access_key"].(string)
	if rec.Code != http.StatusOK || out.Data["status"] != "AUTHORIZED" || second == first || out.Data["number"] != 2.0 || n.SubstitutedBy(first) != second {
		t.Fatalf("replaced: %d %s (the system says %q replaced %s)", rec.Code, rec.Body, n.SubstitutedBy(first), first)
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if inv := o["invoice"].(map[string]any); inv["access_key"] != second || o["nf"] != true || o["cancel_nf"] == true {
		t.Fatalf("the order after the replacement: %v %v %v", inv, o["nf"], o["cancel_nf"])
	}
	db, release, err := rig.ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	old, err := db.InvoiceByKey(context.Background(), rig.unitID(t, db), first)
	release()
	if err != nil || old.Status != "CANCELLED" || !strings.Contains(old.CancelReason.String, second) {
		t.Fatalf("the replaced invoice: %+v %v", old, err)
	}
	if ev := invoiceEventsOfKey(t, rig, first); len(ev) != 1 || ev[0].Type != "e105102" || ev[0].Protocol != second {
		t.Fatalf("the replaced invoice's events: %+v", ev)
	}

	// A lost answer: 502, then the same DPS asked for first.
	n.DropReplies(1)
	if rec := do(h, http.MethodPost, "/replace_nf", replace); rec.Code != http.StatusBadGateway {
		t.Fatalf("a lost answer: %d %s", rec.Code, rec.Body)
	}
	issued := n.Issued()
	rec = do(h, http.MethodPost, "/replace_nf", replace)
	json.Unmarshal(rec.Body.Bytes(), &out)
	if rec.Code != http.StatusOK || n.Issued() != issued || out.Data["number"] != 3.0 || n.SubstitutedBy(second) != out.Data["access_key"] {
		t.Fatalf("after the lost answer: %d %s (the system has %d notes, %d before)", rec.Code, rec.Body, n.Issued(), issued)
	}
	// Refused by the system: its codes, the note as it was.
	n.RejectNext(312, "O valor informado é inválido.")
	if rec := do(h, http.MethodPost, "/replace_nf", replace); rec.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(rec.Body.String(), "The national NFS-e system refused the replacement: see details.") || !strings.Contains(rec.Body.String(), `"code":312`) {
		t.Fatalf("a refused replacement: %d %s", rec.Code, rec.Body)
	}
	// An NF-e is not replaced so.
	nfe := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	generateNF(t, h, nfe, "AUTHORIZED")
	if rec := do(h, http.MethodPost, "/replace_nf", strings.Replace(replace, id, nfe, 1)); rec.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(rec.Body.String(), "Only an authorized national NFS-e is replaced by another.") {
		t.Fatalf("an NF-e replaced: %d %s", rec.Code, rec.Body)
	}
}

// invoiceEventsOfKey are the events kept with the invoice of key.
func invoiceEventsOfKey(t *testing.T, rig transmissionRig, key string) []store.InvoiceEvent {
	t.Helper()
	db, release, err := rig.ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	events, err := db.InvoiceEvents(context.Background(), rig.unitID(t, db), key)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// TestNationalNFSeCancellationLost: a national NFS-e's cancellation whose
// reply was lost is asked for (GET its e101101) before answering: the
// system registered it, so it is recorded; when even that is lost, the
// answer is 502, and the transmissions loop sends it again: the system's
// "cancelled already" and its event make it recorded, once.
func TestNationalNFSeCancellationLost(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, n := rig.h, rig.n
	cancel := func(id string) *httptest.ResponseRecorder {
		return do(h, http.MethodPost, "/cancel_nf", `{`+auth+`,"id_token":"`+id+`","reason":"Serviço cobrado em duplicidade"}`)
	}
	id := post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	generateNF(t, h, id, "AUTHORIZED")
	n.DropReplies(1)
	if rec := cancel(id); rec.Code != http.StatusOK || n.Cancelled() != 1 {
		t.Fatalf("a cancellation whose reply was lost: %d %s", rec.Code, rec.Body)
	}
	if calls := n.Received(); strings.Join(calls[len(calls)-2:], ",") != "POST /nfse/eventos,GET /nfse/eventos/e101101" {
		t.Fatalf("the system was called %v", calls)
	}
	if ev := invoiceEvents(t, rig, h, id); len(ev) != 1 || ev[0].Type != "e101101" {
		t.Fatalf("the cancellation kept: %+v", ev)
	}

	other := post(t, h, "/insert_sales_order", nationalOrder)["data"].(map[string]any)["id"].(string)
	generateNF(t, h, other, "AUTHORIZED")
	n.DropReplies(2)
	if rec := cancel(other); rec.Code != http.StatusBadGateway {
		t.Fatalf("a cancellation whose reply and event were lost: %d %s", rec.Code, rec.Body)
	}
	if err := retryAfterWait(rig); err != nil {
		t.Fatal(err)
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+other+`"}`)["data"].(map[string]any)
	if o["cancel_nf"] != true || n.Cancelled() != 2 {
		t.Fatalf("after the loop: cancel_nf %v, the system registered %d", o["cancel_nf"], n.Cancelled())
	}
}
