package server

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"fincom/jobs"
	"fincom/server/invoicing"
	"fincom/store"
)

// TestOfflineNFCe: with SEFAZ unreachable an NFC-e is issued offline
// under its number (tpEmis 9 in its key and ide, when and why, the
// offline QR code with the note's digest, a DANFE that says it waits for
// authorization) while an NF-e still answers 502; it cannot be cancelled
// before SEFAZ authorized it; the retry job sends it once SEFAZ answers,
// and its nfeProc with the protocol becomes the invoice.
func TestOfflineNFCe(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// abandonedNotes are the domain's abandoned notes not yet ended at SEFAZ.
func abandonedNotes(t *testing.T, rig transmissionRig) []store.AbandonedNote {
	t.Helper()
	db, release, err := rig.ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	open, err := db.OpenAbandonedNotes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return open
}

// TestOfflineAfterAnUnansweredNFCe: an NFC-e SEFAZ received without its
// answer reaching fincom is not waited for at the counter: the attempt is
// abandoned (never sent again) and the sale's note issued offline at once
// under the series' next fresh number, never the attempt's. Once SEFAZ
// authorized the offline note, the attempt is asked for by its key:
// authorized after all, it is cancelled by substitution naming the
// offline note, and the sale has that one note at SEFAZ; one that never
// got there has its number voided.
func TestOfflineAfterAnUnansweredNFCe(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	id := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	a.DropReplies(1)
	out := generateNF(t, h, id, "CONTINGENCY")
	key, _ := out["access_key"].(string)
	if len(key) != 44 || key[34] != '9' || out["number"] != 2.0 {
		t.Fatalf("the offline note after an unanswered attempt: %v", out)
	}
	open := abandonedNotes(t, rig)
	if len(open) != 1 || open[0].Number != 1 || open[0].Key[34] != '1' || open[0].ReplacedBy != key || open[0].OrderToken != id {
		t.Fatalf("the abandoned attempt: %+v", open)
	}
	// The next sale's NFC-e takes the next number: the attempt's is spent.
	next := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	if out := generateNF(t, h, next, "AUTHORIZED"); out["number"] != 3.0 {
		t.Fatalf("the next NFC-e: %v", out)
	}

	if err := retryAfterWait(rig); err != nil {
		t.Fatal(err)
	}
	inv := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)["invoice"].(map[string]any)
	if inv["status"] != "AUTHORIZED" || inv["access_key"] != key || inv["protocol"] == "" {
		t.Fatalf("the offline note after SEFAZ answered: %v", inv)
	}
	if left := abandonedNotes(t, rig); len(left) != 0 {
		t.Fatalf("the attempt was not ended at SEFAZ: %+v", left)
	}
	// SEFAZ authorized three notes (the attempt, the offline note, the
	// next sale's) and holds the attempt cancelled by substitution.
	if a.Authorized() != 3 || a.Cancelled() != 1 || !slices.Contains(a.Received(), "NFeRecepcaoEvento4") {
		t.Fatalf("SEFAZ holds %d notes, %d cancelled: %v", a.Authorized(), a.Cancelled(), a.Received())
	}
	sent := len(a.Received())
	if err := retryAfterWait(rig); err != nil || len(a.Received()) != sent {
		t.Fatalf("an ended attempt was asked for again: %v %v", err, a.Received()[sent:])
	}

	// An attempt lost before SEFAZ read it: its number is voided.
	lost := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	a.LoseNext(1)
	if out := generateNF(t, h, lost, "CONTINGENCY"); out["number"] != 5.0 {
		t.Fatalf("the offline note after a lost attempt: %v", out)
	}
	if err := retryAfterWait(rig); err != nil {
		t.Fatal(err)
	}
	if left := abandonedNotes(t, rig); len(left) != 0 || a.Authorized() != 4 || !slices.Contains(a.Received(), "NFeInutilizacao4") {
		t.Fatalf("the lost attempt: open %+v, SEFAZ holds %d notes: %v", left, a.Authorized(), a.Received())
	}
}

// TestOfflineNFCeRejected: an offline NFC-e SEFAZ rejects once it answers
// is shown REJECTED as any note is (its code and text, the webhook), the
// sale has no valid note and may be invoiced again under a fresh number,
// and the rejected note's number is voided at SEFAZ.
func TestOfflineNFCeRejected(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	id := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	a.SetOffline(true)
	generateNF(t, h, id, "CONTINGENCY")
	a.SetOffline(false)
	a.RejectNext(778, "Rejeição: Informado NCM inexistente")
	if err := retryAfterWait(rig); err != nil {
		t.Fatal(err)
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	inv := o["invoice"].(map[string]any)
	if inv["status"] != "REJECTED" || inv["status_code"] != 778.0 || o["nf"] != false || o["nf_status"] != "REJECTED" ||
		!strings.Contains(o["nf_status_text"].(string), "(778): Rejeição: Informado NCM inexistente") {
		t.Fatalf("the rejected offline note: %v; order nf %v %v %v", inv, o["nf"], o["nf_status"], o["nf_status_text"])
	}
	if left := abandonedNotes(t, rig); len(left) != 0 || !slices.Contains(a.Received(), "NFeInutilizacao4") {
		t.Fatalf("the rejected note's number was not voided: %+v %v", left, a.Received())
	}
	if out := generateNF(t, h, id, "AUTHORIZED"); out["number"] != 2.0 {
		t.Fatalf("the sale invoiced again: %v", out)
	}
}
