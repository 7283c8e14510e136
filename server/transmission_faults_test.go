package server

// The authority's faults and verdicts a note survives: duplicate numbers,
// a slow, stopped or busy SEFAZ, answers that are not one.

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDuplicateNumberNeverLoops: a 539 (another key holds the series and
// number at the authority) spends the number: the order's note goes out
// again under the next free one and is authorized, instead of meeting the
// same 539 at every try.
func TestDuplicateNumberNeverLoops(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	// Number 1 of the unit's series 1 is another note's at the authority
	// (issued elsewhere, or by an earlier installation).
	other := `<nfeProc xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><NFe><infNFe Id="NFe35261111222333000181550010000000011999999996">` +
		`<ide><mod>55</mod><serie>1</serie><nNF>1</nNF></ide><emit><CNPJ>11222333000181</CNPJ></emit></infNFe></NFe>` +
		`<protNFe versao="4.00"><infProt><nProt>135260000000099</nProt><cStat>100</cStat></infProt></protNFe></nfeProc>`
	if err := a.Know([]byte(other), false, 0); err != nil {
		t.Fatal(err)
	}
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	if out := generateNF(t, h, id, "AUTHORIZED"); out["number"] != 2.0 {
		t.Fatalf("after the 539: %v", out)
	}
	// Number 1 is marked used: the next order takes 3.
	next := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	if out := generateNF(t, h, next, "AUTHORIZED"); out["number"] != 3.0 {
		t.Fatalf("the next order: %v", out)
	}
}

// TestDuplicateOfTheSaleIsAdopted: a 539 naming a note fincom sent for
// the same sale (recorded as rejected, yet held authorized at SEFAZ) is
// the sale's note: SEFAZ is asked for it by its key and its authorization
// is the invoice, under its number; nothing else is sent.
func TestDuplicateOfTheSaleIsAdopted(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	a.RejectNext(778, "Rejeição: Informado NCM inexistente")
	first := generateNF(t, h, id, "REJECTED")
	// SEFAZ holds that very note authorized after all.
	signed := do(h, http.MethodGet, "/sales_orders/public_nf_xml/"+publicOf(t, h, id), "").Body.String()
	signed = signed[strings.Index(signed, "<NFe"):]
	digest := regexp.MustCompile(`<DigestValue>([^<]+)</DigestValue>`).FindStringSubmatch(signed)[1]
	proc := `<nfeProc xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00">` + signed + `<protNFe versao="4.00"><infProt><tpAmb>2</tpAmb>` +
		`<verAplic>SP</verAplic><chNFe>` + first["access_key"].(string) + `</chNFe><dhRecbto>2026-11-22T09:00:01-03:00</dhRecbto>` +
		`<nProt>135260000000077</nProt><digVal>` + digest + `</digVal><cStat>100</cStat><xMotivo>Autorizado o uso da NF-e</xMotivo></infProt></protNFe></nfeProc>`
	if err := a.Know([]byte(proc), false, 0); err != nil {
		t.Fatal(err)
	}
	// A month later the order's note is built again under number 1: its
	// key differs (the month is in it), and SEFAZ answers 539 naming the
	// first.
	*rig.now = rig.now.AddDate(0, 1, 0)
	out := generateNF(t, h, id, "AUTHORIZED")
	if out["access_key"] != first["access_key"] || out["number"] != 1.0 || out["protocol"] != "135260000000077" {
		t.Fatalf("the sale's note was not adopted: %v (first %v)", out, first["access_key"])
	}
	if a.Authorized() != 1 {
		t.Fatalf("SEFAZ holds %d notes", a.Authorized())
	}
	if calls := strings.Join(issuing(a), ","); calls != "NFeAutorizacao4,NFeAutorizacao4,NFeConsultaProtocolo4" {
		t.Fatalf("SEFAZ was called %s", calls)
	}
}

// TestAskedBeforeSendingAgain: a held note is sent again only when its
// authority says it does not know it (217); an authority that answers the
// question otherwise (656 asked too often) leaves the note held, nothing
// sent again.
func TestAskedBeforeSendingAgain(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	a.DropReplies(1)
	generateNF(t, h, id, "PENDING")
	a.BusyNext()
	generateNF(t, h, id, "PENDING") // the consult answered 656
	if calls := strings.Join(issuing(a), ","); calls != "NFeAutorizacao4,NFeConsultaProtocolo4" {
		t.Fatalf("SEFAZ was called %s", calls)
	}
	rig.real.Advance(61 * time.Minute) // the hour a 656 asks
	out := post(t, h, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)["data"].(map[string]any)
	if out["status"] != "AUTHORIZED" || out["number"] != 1.0 || a.Authorized() != 1 {
		t.Fatalf("asked again: %v", out)
	}
	if calls := strings.Join(issuing(a), ","); calls != "NFeAutorizacao4,NFeConsultaProtocolo4,NFeConsultaProtocolo4" {
		t.Fatalf("SEFAZ was called %s", calls)
	}
}

// TestVerdictWait: /generate_nf waits for SEFAZ's verdict only so long
// (10 seconds; shorter here): a SEFAZ slower than that leaves the invoice
// PENDING, and the next call asks SEFAZ for the note by its key and takes
// the authorization it gave meanwhile: one note.
func TestVerdictWait(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	rig.inv.VerdictWait = 100 * time.Millisecond
	slow := make(chan struct{})
	rig.a.Arrived = func(service string) {
		if service == "NFeAutorizacao4" {
			<-slow
		}
	}
	id := post(t, rig.h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	start := time.Now()
	generateNF(t, rig.h, id, "PENDING")
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("waited %v for the verdict", waited)
	}
	close(slow)
	for i := 0; i < 1000 && rig.a.Authorized() == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if out := generateNF(t, rig.h, id, "AUTHORIZED"); out["number"] != 1.0 || rig.a.Authorized() != 1 {
		t.Fatalf("after SEFAZ's verdict: %v (SEFAZ has %d notes)", out, rig.a.Authorized())
	}
	calls := issuing(rig.a)
	slices.Sort(calls)
	if strings.Join(calls, ",") != "NFeAutorizacao4,NFeConsultaProtocolo4" {
		t.Fatalf("SEFAZ was called %s", calls)
	}
}

// TestStoppedServiceIsNoVerdict: a lot answered 108 (the service stopped
// for a moment) is no rejection: the NF-e waits, PENDING, and goes once
// the service is back; an NFC-e is issued offline.
func TestStoppedServiceIsNoVerdict(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	a.StoppedNext()
	if out := generateNF(t, h, id, "PENDING"); out["number"] != 1.0 {
		t.Fatalf("a stopped service: %v", out)
	}
	if out := generateNF(t, h, id, "AUTHORIZED"); out["number"] != 1.0 || a.Authorized() != 1 {
		t.Fatalf("once the service is back: %v", out)
	}
	nfce := post(t, h, "/insert_sales_order", nfceOrder)["data"].(map[string]any)["id"].(string)
	a.StoppedNext()
	if out := generateNF(t, h, nfce, "CONTINGENCY"); out["protocol"] != "" || out["access_key"].(string)[34] != '9' {
		t.Fatalf("an NFC-e while the service is stopped: %v", out)
	}
}

// TestStoppedAuthorizerAskedBeforeSending: after a lot answered 108
// (service stopped), the next try asks NFeStatusServico4 first and sends
// nothing while the authorizer is not in operation (107); once it is, the
// note goes.
func TestStoppedAuthorizerAskedBeforeSending(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	a.SetStopped(true)
	generateNF(t, h, id, "PENDING")
	generateNF(t, h, id, "PENDING")
	if calls := strings.Join(issuing(a), ","); calls != "NFeAutorizacao4,NFeConsultaProtocolo4,NFeStatusServico4" {
		t.Fatalf("while stopped SEFAZ was called %s", calls)
	}
	a.SetStopped(false)
	if out := generateNF(t, h, id, "AUTHORIZED"); out["number"] != 1.0 || a.Authorized() != 1 {
		t.Fatalf("once in operation: %v", out)
	}
	if calls := strings.Join(issuing(a), ","); calls != "NFeAutorizacao4,NFeConsultaProtocolo4,NFeStatusServico4,NFeConsultaProtocolo4,NFeStatusServico4,NFeAutorizacao4" {
		t.Fatalf("SEFAZ was called %s", calls)
	}
}

// TestBusyAuthorityLeftAloneForAnHour: a 656 (Consumo Indevido) to a lot
// leaves that authorizer alone for the hour the manual asks, whoever
// asks (here /generate_nf again), timed by the real clock: nothing is
// sent to it nor asked of it within the hour; after it, the note goes.
func TestBusyAuthorityLeftAloneForAnHour(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a, later := rig.h, rig.a, rig.real.Advance
	id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
	a.BusyNext()
	generateNF(t, h, id, "PENDING")
	generateNF(t, h, id, "PENDING")
	later(59 * time.Minute)
	generateNF(t, h, id, "PENDING")
	if calls := strings.Join(issuing(a), ","); calls != "NFeAutorizacao4" {
		t.Fatalf("within the hour SEFAZ was called %s", calls)
	}
	later(2 * time.Minute)
	if out := generateNF(t, h, id, "AUTHORIZED"); out["number"] != 1.0 || a.Authorized() != 1 {
		t.Fatalf("after the hour: %v", out)
	}
	if calls := strings.Join(issuing(a), ","); calls != "NFeAutorizacao4,NFeConsultaProtocolo4,NFeAutorizacao4" {
		t.Fatalf("SEFAZ was called %s", calls)
	}
}

// TestHostileAnswerLeavesThePending: an answer to a lot that is not one
// (a DTD, another namespace, too large, about another key) is no verdict:
// the note, which SEFAZ did authorize, waits PENDING, and the next try
// asks for it by its key and takes its authorization; nothing of the
// answer reaches the firm's answer.
func TestHostileAnswerLeavesThePending(t *testing.T) {
	t.Parallel()
	env := func(body string) []byte {
		return []byte(`<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body>` +
			`<nfeResultMsg xmlns="http://www.portalfiscal.inf.br/nfe/wsdl/NFeAutorizacao4">` + body + `</nfeResultMsg></soap:Body></soap:Envelope>`)
	}
	for name, answer := range map[string][]byte{
		"dtd": []byte(`<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><soap:Envelope ` +
			`xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body>&e;</soap:Body></soap:Envelope>`),
		"other namespace": []byte(strings.Replace(string(env(`<retEnviNFe xmlns="urn:evil" versao="4.00"><cStat>104</cStat></retEnviNFe>`)),
			"NFeAutorizacao4", "NFeStatusServico4", 1)),
		"huge": env(strings.Repeat("<x/>", 2<<20)),
		"another key": env(`<retEnviNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>2</tpAmb><verAplic>SP</verAplic>` +
			`<cStat>104</cStat><xMotivo>Lote processado</xMotivo><cUF>35</cUF><dhRecbto>2026-11-22T09:00:01-03:00</dhRecbto>` +
			`<protNFe versao="4.00"><infProt><tpAmb>2</tpAmb><verAplic>SP</verAplic><chNFe>35261111222333000181550010000000991000000990</chNFe>` +
			`<dhRecbto>2026-11-22T09:00:01-03:00</dhRecbto><nProt>135260000000099</nProt><digVal>AAAAAAAAAAAAAAAAAAAAAAAAAAA=</digVal>` +
			`<cStat>100</cStat><xMotivo>Autorizado o uso da NF-e</xMotivo></infProt></protNFe></retEnviNFe>`),
	} {
		t.Run(name, func(t *testing.T) {
			rig := newTransmissionRig(t)
			h, a := rig.h, rig.a
			id := post(t, h, "/insert_sales_order", nfeOrder)["data"].(map[string]any)["id"].(string)
			a.AnswerNextWith(answer)
			rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"status":"PENDING"`) || strings.Contains(rec.Body.String(), "passwd") ||
				strings.Contains(rec.Body.String(), "135260000000099") {
				t.Fatalf("hostile answer: %d %.300s", rec.Code, rec.Body)
			}
			if out := generateNF(t, h, id, "AUTHORIZED"); out["number"] != 1.0 || a.Authorized() != 1 {
				t.Fatalf("after the hostile answer: %v", out)
			}
		})
	}
}

// TestInboxPoll: once caught up, a unit's inbox is fetched again after
// InboxPoll (serve --inbox-poll), never under the hour the national
// environment asks after "nothing new"; with InboxOff (--inbox-poll 0)
// nothing is fetched.
func TestInboxPoll(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	a := rig.a
	fetches := func() int {
		n := 0
		for _, c := range a.Received() {
			if c == "NFeDistribuicaoDFe" {
				n++
			}
		}
		return n
	}
	rig.inv.InboxPoll = 2 * time.Hour
	if err := retryAfterWait(rig); err != nil || fetches() != 1 {
		t.Fatalf("the first pass: %v, %d fetches", err, fetches())
	}
	*rig.now = rig.now.Add(90 * time.Minute)
	if err := retryAfterWait(rig); err != nil || fetches() != 1 {
		t.Fatalf("before the poll's two hours: %v, %d fetches", err, fetches())
	}
	*rig.now = rig.now.Add(31 * time.Minute)
	if err := retryAfterWait(rig); err != nil || fetches() != 2 {
		t.Fatalf("after the poll's two hours: %v, %d fetches", err, fetches())
	}
	// Shorter than the hour SEFAZ asks after 137: the hour.
	rig.inv.InboxPoll = time.Minute
	*rig.now = rig.now.Add(30 * time.Minute)
	if err := retryAfterWait(rig); err != nil || fetches() != 2 {
		t.Fatalf("half an hour after nothing new: %v, %d fetches", err, fetches())
	}
	rig.inv.InboxOff = true
	*rig.now = rig.now.Add(3 * time.Hour)
	if err := retryAfterWait(rig); err != nil || fetches() != 2 {
		t.Fatalf("with the inbox off: %v, %d fetches", err, fetches())
	}
}

// TestManifestationLostReply: a manifestation whose reply was lost stays
// pending and is sent again as the same event after its wait; the
// national environment's 573 (the event registered already) is its
// registration.
func TestManifestationLostReply(t *testing.T) {
	t.Parallel()
	rig := newTransmissionRig(t)
	h, a := rig.h, rig.a
	if err := knowSample(a); err != nil {
		t.Fatal(err)
	}
	if rec := doMultipart(h, "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": testFile(t, "nfe.xml")}); rec.Code != 200 {
		t.Fatalf("import: %d %s", rec.Code, rec.Body)
	}
	post(t, h, "/manifest_nfe", `{`+auth+`,"access_key":"`+purchaseKey+`","event":"ciencia"}`)
	send := func() { fiscalPass(t, rig) } // a lost reply is an error it reports
	status := func() map[string]any {
		return post(t, h, "/list_nfes", `{`+auth+`}`)["data"].([]any)[0].(map[string]any)
	}
	a.DropReplies(1)
	send()
	if s := status(); s["manifestation_status"] != "pending" {
		t.Fatalf("after a lost reply: %v %v", s["manifestation_status"], s["manifestation_reply"])
	}
	*rig.now = rig.now.Add(2 * time.Minute)
	send()
	if s := status(); s["manifestation_status"] != "registered" || !strings.Contains(s["manifestation_reply"].(string), "573") {
		t.Fatalf("sent again: %v %v", s["manifestation_status"], s["manifestation_reply"])
	}
}
