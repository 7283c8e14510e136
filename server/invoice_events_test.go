package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	nfselocal "fincom/server/fiscal/nfsen/local"
	"fincom/server/fiscal/sefaz/local"
	"fincom/server/invoicing"
	"fincom/store"
)

// invoiceEvents are the events kept with the order's invoice.
func invoiceEvents(t *testing.T, rig transmissionRig, h http.Handler, id string) []store.InvoiceEvent {
	t.Helper()
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	key, _ := o["invoice"].(map[string]any)["access_key"].(string)
	return invoiceEventsOfKey(t, rig, key)
}

func (rig transmissionRig) unitID(t *testing.T, db *store.DB) int64 {
	t.Helper()
	u, err := db.UnitByToken(context.Background(), expand("{{unitA}}"))
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// TestCancellationEventKept: the cancellation the authority registered is
// kept with the invoice, as its procEventoNFe (an NF-e) or the national
// system's evento (a national NFS-e), with its protocol, and served
// beside the note's XML; TestMain holds each to its schema and
// signatures.
func TestCancellationEventKept(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h := rig.h
	for _, tc := range []struct{ order, typ, root string }{
		{nfeOrder, "110111", "<procEventoNFe"},
		{nationalOrder, "e101101", "<evento"},
	} {
		id := post(t, h, "/insert_sales_order", tc.order)["data"].(map[string]any)["id"].(string)
		post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
		public := publicOf(t, h, id)
		if rec := do(h, http.MethodGet, "/sales_orders/public_nf_cancellation_xml/"+public, ""); rec.Code != http.StatusNotFound ||
			!strings.Contains(rec.Body.String(), "The invoice has no such event registered by the tax authority.") {
			t.Fatalf("%s: the cancellation of a note not cancelled: %d %s", tc.typ, rec.Code, rec.Body)
		}
		post(t, h, "/cancel_nf", `{`+auth+`,"id_token":"`+id+`","reason":"Pedido cancelado pelo cliente"}`)
		events := invoiceEvents(t, rig, h, id)
		if len(events) != 1 || events[0].Type != tc.typ || events[0].Sequence != 1 || events[0].Protocol == "" ||
			!strings.Contains(events[0].XML, tc.root) {
			t.Fatalf("%s: events %+v", tc.typ, events)
		}
		rec := do(h, http.MethodGet, "/sales_orders/public_nf_cancellation_xml/"+public, "")
		if rec.Code != http.StatusOK || rec.Body.String() != events[0].XML || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/xml") ||
			!strings.Contains(rec.Header().Get("Content-Disposition"), "-"+tc.typ+"-1.xml") {
			t.Fatalf("%s: the cancellation served: %d %v %.200s", tc.typ, rec.Code, rec.Header(), rec.Body)
		}
	}
}

// TestCorrectionLetterFromThePortal: the staff portal sends a correction
// letter of an authorized NF-e to SEFAZ (110110, the next sequence each
// time) and lists the events registered; a text out of bounds, or an
// NFC-e, is refused before anything is sent.
func TestCorrectionLetterFromThePortal(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	b := signedIn(t, rig.s, rig.ds)
	path := "/portal/orders/" + id + "?unit=" + expand("{{unitA}}")
	page := b.do("GET", path, nil).Body.String()
	if !strings.Contains(page, "Enviar carta de correção") {
		t.Fatalf("an authorized NF-e's page offers no correction letter:\n%s", page)
	}
	session := csrf(t, page)
	action := "/portal/orders/" + id + "/correct?unit=" + expand("{{unitA}}")
	calls := len(a.Received())
	if rec := b.do("POST", action, url.Values{"csrf": {session}, "correction": {"curta"}}); rec.Code != http.StatusBadRequest ||
		!strings.Contains(rec.Body.String(), "A correção precisa de 15 a 1.000 caracteres.") || len(a.Received()) != calls {
		t.Fatalf("a short correction: %d", rec.Code)
	}
	for n, text := range []string{"Endereço de entrega: Rua Vergueiro, 1000", "Endereço de entrega: Rua Vergueiro, 1002"} {
		rec := b.do("POST", action, url.Values{"csrf": {session}, "correction": {text}})
		if rec.Code != http.StatusSeeOther {
			t.Fatalf("correction %d: %d\n%s", n+1, rec.Code, rec.Body)
		}
	}
	events := invoiceEvents(t, rig, h, id)
	if len(events) != 2 || events[1].Type != "110110" || events[1].Sequence != 2 || !strings.Contains(events[1].XML, "Rua Vergueiro, 1002") {
		t.Fatalf("events %+v", events)
	}
	page = b.do("GET", path, nil).Body.String()
	if !strings.Contains(page, "Carta de correção nº 2 · protocolo "+events[1].Protocol) ||
		!strings.Contains(page, "<q>Endereço de entrega: Rua Vergueiro, 1002</q>") || !strings.Contains(page, "public_nf_correction_xml/") {
		t.Fatalf("the page does not list the letters, their texts and documents:\n%s", page)
	}
	// The latest letter is served beside the note, an earlier one by its
	// sequence.
	public := publicOf(t, h, id)
	for _, c := range []struct{ query, want string }{{"", events[1].XML}, {"?sequence=1", events[0].XML}, {"?sequence=3", ""}} {
		rec := do(h, http.MethodGet, "/sales_orders/public_nf_correction_xml/"+public+c.query, "")
		if (c.want == "" && rec.Code != http.StatusNotFound) || (c.want != "" && (rec.Code != http.StatusOK || rec.Body.String() != c.want)) {
			t.Errorf("the correction letter %q: %d %.200s", c.query, rec.Code, rec.Body)
		}
	}
	// An NFC-e takes no correction letter.
	nfce := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+nfce+`"}`)
	if page := b.do("GET", "/portal/orders/"+nfce+"?unit="+expand("{{unitA}}"), nil).Body.String(); strings.Contains(page, "Enviar carta de correção") {
		t.Error("an NFC-e's page offers a correction letter")
	}
	rec := b.do("POST", "/portal/orders/"+nfce+"/correct?unit="+expand("{{unitA}}"), url.Values{"csrf": {session},
		"correction": {"Endereço de entrega: Rua Vergueiro, 1000"}})
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "Só uma NF-e autorizada recebe carta de correção.") {
		t.Errorf("an NFC-e's correction letter: %d", rec.Code)
	}
}

// TestNFCeCancelBySubstitution: an NFC-e is cancelled through /cancel_nf
// within its 30 minutes only (SEFAZ refuses it after them); past them the staff portal cancels it by
// substitution (110112, naming the NFC-e that replaced it), registered by
// SEFAZ first and kept with the invoice; another kind of note does not
// substitute it.
func TestNFCeCancelBySubstitution(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	id := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
	// Just issued, its page offers its cancellation, not a substitution.
	b := signedIn(t, rig.s, rig.ds)
	fresh := b.do("GET", "/portal/orders/"+id+"?unit="+expand("{{unitA}}"), nil).Body.String()
	if !strings.Contains(fresh, "/cancel_invoice?") || strings.Contains(fresh, "Cancelar por substituição") {
		t.Fatalf("a just-issued NFC-e's page:\n%s", fresh)
	}
	*rig.now = rig.now.Add(31 * time.Minute)
	// SEFAZ refuses it (501): the window is the authority's.
	if rec := do(h, http.MethodPost, "/cancel_nf", `{`+auth+`,"id_token":"`+id+`","reason":"Pedido cancelado pelo cliente"}`); rec.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(rec.Body.String(), `"code":501`) {
		t.Fatalf("an NFC-e cancelled past 30 minutes: %d %s", rec.Code, rec.Body)
	}
	nfe := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	nfeKey := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+nfe+`"}`)["data"].(map[string]any)["access_key"].(string)
	other := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	subKey := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+other+`"}`)["data"].(map[string]any)["access_key"].(string)

	page := b.do("GET", "/portal/orders/"+id+"?unit="+expand("{{unitA}}"), nil).Body.String()
	if !strings.Contains(page, "Cancelar por substituição") || strings.Contains(page, "/cancel_invoice?") {
		t.Fatalf("an NFC-e's page offers no cancellation by substitution:\n%s", page)
	}
	session := csrf(t, page)
	action := "/portal/orders/" + id + "/substitute?unit=" + expand("{{unitA}}")
	if rec := b.do("POST", action, url.Values{"csrf": {session}, "substitute": {nfeKey}, "reason": {"Venda registrada de novo na NFC-e substituta"}}); rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("an NF-e as substitute: %d", rec.Code)
	}
	rec := b.do("POST", action, url.Values{"csrf": {session}, "substitute": {subKey}, "reason": {"Venda registrada de novo na NFC-e substituta"}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("cancel by substitution: %d\n%s", rec.Code, rec.Body)
	}
	o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if o["invoice"].(map[string]any)["status"] != "CANCELLED" {
		t.Fatalf("after the substitution: %v", o["invoice"])
	}
	events := invoiceEvents(t, rig, h, id)
	if len(events) != 1 || events[0].Type != "110112" || !strings.Contains(events[0].XML, "<chNFeRef>"+subKey+"</chNFeRef>") {
		t.Fatalf("events %+v", events)
	}
	if calls := a.Received(); calls[len(calls)-1] != "NFeRecepcaoEvento4" {
		t.Fatalf("SEFAZ was called %v", calls)
	}
}

// garbledEvents answers in SEFAZ's place, while on, something that is no
// SOAP answer to every event sent (NFeRecepcaoEvento4): a proxy's page.
type garbledEvents struct {
	*local.Authority
	on atomic.Bool
}

func (g *garbledEvents) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.on.Load() && strings.HasSuffix(r.URL.Path, "/NFeRecepcaoEvento4") {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>Bad gateway page of a proxy</body></html>")
		return
	}
	g.Authority.ServeHTTP(w, r)
}

// TestTransmissionEventAnswerGarbled: SEFAZ answers an event with what is
// no answer of its protocol. The cancellation and the correction letter
// are told as that (502, "answered something fincom cannot accept", its
// reason in details), never as an authority that did not answer, and
// nothing is recorded: the note stays authorized, no letter is listed.
func TestTransmissionEventAnswerGarbled(t *testing.T) {
	t.Parallel()
	g := &garbledEvents{Authority: &local.Authority{}}
	n := &nfselocal.System{}
	c, err := localAuthorities(g, n)
	if err != nil {
		t.Fatal(err)
	}
	rig := newTransmissionRigWith(t, g.Authority, n, c)
	h := rig.h
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	generateNF(t, h, id, "AUTHORIZED")
	g.on.Store(true)
	rec := do(h, http.MethodPost, "/cancel_nf", `{`+auth+`,"id_token":"`+id+`","reason":"Pedido cancelado pelo cliente"}`)
	if rec.Code != http.StatusBadGateway || !strings.Contains(rec.Body.String(), `"error":"`+invoicing.ErrAuthorityAnswer.Text+`"`) ||
		!strings.Contains(rec.Body.String(), `"reason":"`) {
		t.Fatalf("a cancellation answered with garbage: %d %s", rec.Code, rec.Body)
	}
	if o := post(t, h, "/get_sales_order_by_id", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any); o["invoice"].(map[string]any)["status"] != "AUTHORIZED" {
		t.Fatalf("cancelled on a garbled answer: %v", o["invoice"])
	}
	b := signedIn(t, rig.s, rig.ds)
	path := "/portal/orders/" + id + "?unit=" + expand("{{unitA}}")
	session := csrf(t, b.do("GET", path, nil).Body.String())
	rec = b.do("POST", "/portal/orders/"+id+"/correct?unit="+expand("{{unitA}}"),
		url.Values{"csrf": {session}, "correction": {"Endereço de entrega: Rua Vergueiro, 1000"}})
	if rec.Code != http.StatusBadGateway || strings.Contains(rec.Body.String(), "não respondeu") {
		t.Fatalf("a correction answered with garbage: %d\n%s", rec.Code, rec.Body)
	}
	if events := invoiceEvents(t, rig, h, id); len(events) != 0 {
		t.Fatalf("events recorded on a garbled answer: %+v", events)
	}
	// Answered again as SEFAZ answers, both go through.
	g.on.Store(false)
	if rec := do(h, http.MethodPost, "/cancel_nf", `{`+auth+`,"id_token":"`+id+`","reason":"Pedido cancelado pelo cliente"}`); rec.Code != http.StatusOK {
		t.Fatalf("cancel: %d %s", rec.Code, rec.Body)
	}
}
