// Package local is a SEFAZ of fincom's own, on a loopback address: it
// speaks the web services' SOAP 1.2 over mutual TLS as the state
// authorizers do (NFeStatusServico4, NFeConsultaProtocolo4,
// NFeAutorizacao4, NFeRetAutorizacao4, NFeRecepcaoEvento4), holds every
// message to its official schema, checks the notes' and events'
// signatures and certificates, and answers with the manual's codes. The
// sefaz client reaches it through the same code that reaches a state's
// authorizer; the tests, test mode and the demo use it, never a
// production server (it authorizes nothing outside its own memory).
package local

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"fincom/server/certs"
	"fincom/server/fiscal"
)

const (
	soapNS = "http://www.w3.org/2003/05/soap-envelope"
	wsdlNS = "http://www.portalfiscal.inf.br/nfe/wsdl/"
	nfeNS  = "http://www.portalfiscal.inf.br/nfe"
)

// Services are the web services it answers, each at /<service>.
var Services = []string{"NFeStatusServico4", "NFeConsultaProtocolo4", "NFeAutorizacao4", "NFeRetAutorizacao4", "NFeRecepcaoEvento4",
	"NFeDistribuicaoDFe", "NFeInutilizacao4"}

// Authority is the local SEFAZ. Its zero value authorizes synchronously;
// the exported fields change how it behaves, for the tests of what a
// real authority does.
type Authority struct {
	// Now is its clock (time.Now when nil).
	Now func() time.Time
	// Async answers a lot with a receipt (103), processed when asked by
	// NFeRetAutorizacao4, as authorizers without synchronous lots do.
	Async bool
	// Arrived, when set, is told of each request as it arrives, before it
	// is processed (what the sender recorded before sending can be seen).
	Arrived func(service string)
	// Answering, when set, is told of each request once processed,
	// before its answer leaves (a sender killed then has its note judged
	// and never hears of it).
	Answering func(service string)
	// NFCeCancelWindow is how long after its dhEmi an NFC-e may be
	// cancelled (0: 30 minutes, São Paulo's rule; each state sets its
	// own).
	NFCeCancelWindow time.Duration
	// Summaries are keys of notes issued to the asker that it distributes
	// once as summaries (resNFe), as AN does before the recipient's
	// ciência.
	Summaries []string
	// Cancellations are keys of notes issued to the asker whose
	// cancellation it distributes once (resEvento 110111).
	Cancellations []string

	mu         sync.Mutex
	notes      map[string]*note  // by access key
	manifested map[string]bool   // the manifestations registered, by key and event
	corrected  map[string]bool   // the correction letters registered, by key and sequence
	numbers    map[string]string // issuer, model, series, number -> key
	voided     map[string]bool   // issuer, model, series, number voided
	receipts   map[string]string // receipt -> the key of its lot
	seq        int
	drop       int    // replies to drop after processing
	lose       int    // requests to lose before processing
	reject     *fault // the next note's refusal
	busy       bool   // the next lot is refused whole, 656 (Consumo Indevido)
	stopped    bool   // the next lot is answered 108 (service stopped)
	halted     bool   // every lot and status is answered 108 until resumed
	svcNotice  *fault // as an SVC: its status answers this (113, 114); with 114 its lots too
	replace    []byte // the next lot is processed and answered with these bytes
	offline    bool
	received   []string       // the services called, in order
	asyncPolls int            // SetAsync: 105s before a receipt's verdict
	polls      map[string]int // receipt → 105s left
}

type note struct {
	prot      []byte
	protocol  string
	cancelled bool
	// denied is a note whose use the authority denied (110, 301 to 303):
	// its number is spent, and a consult answers the denial.
	denied *fault
	// issued is the note's dhEmi, from which its cancellation window runs.
	issued time.Time
}

type fault struct {
	code   int
	reason string
}

// DropReplies makes it process the next n requests and close the
// connection without answering, as a timeout after sending would.
func (a *Authority) DropReplies(n int) { a.mu.Lock(); a.drop = n; a.mu.Unlock() }

// RejectNext refuses the next note with code and reason.
func (a *Authority) RejectNext(code int, reason string) {
	a.mu.Lock()
	a.reject = &fault{code, reason}
	a.mu.Unlock()
}

// SetAsync answers lots with a receipt (103) when on, each receipt asked
// polls times (105, Lote em processamento) before its verdict.
func (a *Authority) SetAsync(on bool, polls int) {
	a.mu.Lock()
	a.Async, a.asyncPolls = on, polls
	a.mu.Unlock()
}

// ClearRejection forgets a rejection RejectNext armed and no note met.
func (a *Authority) ClearRejection() {
	a.mu.Lock()
	a.reject = nil
	a.mu.Unlock()
}

// BusyNext answers the next lot or consultation with 656 (Consumo
// Indevido), as an authority asked too often does.
func (a *Authority) BusyNext() { a.mu.Lock(); a.busy = true; a.mu.Unlock() }

// StoppedNext answers the next lot 108 (Serviço Paralisado
// Momentaneamente), as an authorizer does for a short stop.
func (a *Authority) StoppedNext() { a.mu.Lock(); a.stopped = true; a.mu.Unlock() }

// SetOffline makes it refuse connections' requests (503) or answer again.
func (a *Authority) SetOffline(off bool) { a.mu.Lock(); a.offline = off; a.mu.Unlock() }

// SVCNotice makes it answer as a contingency authorizer (SVC) being
// turned off for the states (113: its status says so, lots still go) or
// not enabled by their SEFAZ (114: its status and every lot are refused
// so); 0 ends it.
func (a *Authority) SVCNotice(code int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch code {
	case 113:
		a.svcNotice = &fault{113, "SVC em processo de desativação SVC será desabilitada para a SEFAZ-SP em " + a.now().Add(24*time.Hour).Format("02/01/06 às 15:04") + " horas"}
	case 114:
		a.svcNotice = &fault{114, "SVC desabilitada pela SEFAZ de Origem"}
	default:
		a.svcNotice = nil
	}
}

// LoseNext makes it cut the next n requests' connections as they arrive,
// unread: the sender cannot tell whether they got there, and nothing was
// processed.
func (a *Authority) LoseNext(n int) { a.mu.Lock(); a.lose = n; a.mu.Unlock() }

// AnswerNextWith processes the next lot as always and answers it with body
// instead of its answer (a hostile or broken answer, as a man in the
// middle or a failing authority would give).
func (a *Authority) AnswerNextWith(body []byte) { a.mu.Lock(); a.replace = body; a.mu.Unlock() }

// SetStopped stops its authorization service (every lot, and the status
// service, answer 108) until called with false.
func (a *Authority) SetStopped(stopped bool) { a.mu.Lock(); a.halted = stopped; a.mu.Unlock() }

// ForgetProtocols makes it hold every note under another protocol, as
// when a request names a protocol the authority does not have (222).
func (a *Authority) ForgetProtocols() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, n := range a.notes {
		n.protocol = "0" + n.protocol[1:]
	}
}

// Authorized counts the notes it authorized.
func (a *Authority) Authorized() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, x := range a.notes {
		if x.denied == nil {
			n++
		}
	}
	return n
}

// Cancelled counts the notes it holds cancelled.
func (a *Authority) Cancelled() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, x := range a.notes {
		if x.cancelled {
			n++
		}
	}
	return n
}

// Received lists the services called, in order.
func (a *Authority) Received() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.received...)
}

func (a *Authority) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// ServeHTTP answers one SOAP request: a client certificate, SOAP 1.2, the
// service's namespace and a message valid by its schema.
func (a *Authority) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	service := strings.TrimPrefix(r.URL.Path, "/")
	root, ok := map[string]string{"NFeStatusServico4": "consStatServ", "NFeConsultaProtocolo4": "consSitNFe", "NFeAutorizacao4": "enviNFe",
		"NFeRetAutorizacao4": "consReciNFe", "NFeRecepcaoEvento4": "envEventoCancNFe", "NFeDistribuicaoDFe": "distDFeInt",
		"NFeInutilizacao4": "inutNFe"}[service]
	manifestation := false
	switch {
	case !ok:
		http.NotFound(w, r)
		return
	case r.Method != http.MethodPost:
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	case r.TLS == nil || len(r.TLS.PeerCertificates) == 0:
		http.Error(w, "a client certificate is required", http.StatusForbidden)
		return
	case r.Header.Get("Content-Type") != "application/soap+xml; charset=utf-8":
		http.Error(w, "not SOAP 1.2", http.StatusUnsupportedMediaType)
		return
	}
	if a.Arrived != nil {
		a.Arrived(service)
	}
	a.mu.Lock()
	off, lose := a.offline, a.lose > 0
	if lose {
		a.lose--
	}
	a.received = append(a.received, service)
	a.mu.Unlock()
	if lose {
		panic(http.ErrAbortHandler)
	}
	if off {
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 2<<20))
	if err != nil {
		return
	}
	type dados struct {
		XMLName xml.Name
		Inner   []byte `xml:",innerxml"`
	}
	var env struct {
		XMLName xml.Name
		Msg     dados `xml:"Body>nfeDadosMsg"`
		// NFeDistribuicaoDFe's WSDL wraps the message in its operation.
		Wrapped dados `xml:"Body>nfeDistDFeInteresse>nfeDadosMsg"`
	}
	if bytes.Contains(body, []byte("<!DOCTYPE")) || xml.Unmarshal(body, &env) != nil || env.XMLName.Space != soapNS {
		soapFault(w, "not a "+service+" envelope")
		return
	}
	if service == "NFeDistribuicaoDFe" {
		env.Msg = env.Wrapped
	}
	if env.Msg.XMLName.Space != wsdlNS+service {
		soapFault(w, "not a "+service+" envelope")
		return
	}
	msg := env.Msg.Inner
	correction, epec, substitution := false, false, false
	switch {
	case service != "NFeRecepcaoEvento4":
	case bytes.Contains(msg, []byte("<tpEvento>2102")):
		// A recipient's manifestation, as the national environment takes it.
		root, manifestation = "envConfRecebto", true
	case bytes.Contains(msg, []byte("<tpEvento>110110")):
		root, correction = "envCCe", true
	case bytes.Contains(msg, []byte("<tpEvento>110140")):
		root, epec = "envEPEC", true
	case bytes.Contains(msg, []byte("<tpEvento>110112")):
		root, substitution = "envEvento", true
	}
	now := a.now()
	var answer []byte
	if err := fiscal.ValidateSchema(root, msg); err != nil {
		answer = a.schemaRefusal(service, now, err)
	} else {
		a.mu.Lock()
		switch {
		case manifestation:
			answer = a.manifest(msg, now)
		case correction:
			answer = a.correct(msg, now)
		case epec:
			answer = a.epec(msg, now)
		case substitution:
			answer = a.substitute(msg, now)
		default:
			answer = a.answer(service, msg, now)
		}
		drop := a.drop > 0
		if drop {
			a.drop--
		}
		replace := a.replace
		if service == "NFeAutorizacao4" {
			a.replace = nil
		} else {
			replace = nil
		}
		a.mu.Unlock()
		if a.Answering != nil {
			a.Answering(service)
		}
		if drop {
			// Processed, and the answer lost on the way back.
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
					return
				}
			}
			panic(http.ErrAbortHandler)
		}
		if replace != nil {
			w.Header().Set("Content-Type", "application/soap+xml; charset=utf-8")
			w.Write(replace)
			return
		}
	}
	w.Header().Set("Content-Type", "application/soap+xml; charset=utf-8")
	if service == "NFeDistribuicaoDFe" {
		fmt.Fprintf(w, `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="%s"><soap:Body><nfeDistDFeInteresseResponse xmlns="%s%s">`+
			`<nfeDistDFeInteresseResult>%s</nfeDistDFeInteresseResult></nfeDistDFeInteresseResponse></soap:Body></soap:Envelope>`, soapNS, wsdlNS, service, answer)
		return
	}
	fmt.Fprintf(w, `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="%s"><soap:Body><nfeResultMsg xmlns="%s%s">%s</nfeResultMsg></soap:Body></soap:Envelope>`,
		soapNS, wsdlNS, service, answer)
}

func soapFault(w http.ResponseWriter, reason string) {
	w.Header().Set("Content-Type", "application/soap+xml; charset=utf-8")
	w.WriteHeader(http.StatusBadRequest)
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(reason))
	fmt.Fprintf(w, `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="%s"><soap:Body><soap:Fault><soap:Code><soap:Value>soap:Sender</soap:Value></soap:Code>`+
		`<soap:Reason><soap:Text xml:lang="en">%s</soap:Text></soap:Reason></soap:Fault></soap:Body></soap:Envelope>`, soapNS, b.String())
}

const verAplic = "fincom-local-1"

// dh is a time as the messages write it, in Brasília.
func dh(t time.Time) string {
	return t.In(time.FixedZone("BRT", -3*3600)).Format("2006-01-02T15:04:05-07:00")
}

func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// schemaRefusal is 225 in the service's answer.
func (a *Authority) schemaRefusal(service string, now time.Time, err error) []byte {
	reason := "Rejeição: Falha no Schema XML"
	if msg := err.Error(); msg != "" {
		reason += ": " + msg
	}
	if len(reason) > 255 {
		reason = reason[:255]
	}
	return a.lotAnswer(service, 225, reason, now)
}

// lotAnswer is a service's answer without a note's protocol.
func (a *Authority) lotAnswer(service string, code int, reason string, now time.Time) []byte {
	head := fmt.Sprintf(`<tpAmb>2</tpAmb><verAplic>%s</verAplic>`, verAplic)
	tail := fmt.Sprintf(`<cStat>%d</cStat><xMotivo>%s</xMotivo><cUF>35</cUF><dhRecbto>%s</dhRecbto>`, code, esc(reason), dh(now))
	switch service {
	case "NFeAutorizacao4":
		return []byte(`<retEnviNFe xmlns="` + nfeNS + `" versao="4.00">` + head + tail + `</retEnviNFe>`)
	case "NFeRetAutorizacao4":
		return []byte(fmt.Sprintf(`<retConsReciNFe xmlns="%s" versao="4.00">%s<nRec>000000000000000</nRec>%s</retConsReciNFe>`, nfeNS, head, tail))
	case "NFeRecepcaoEvento4":
		return []byte(fmt.Sprintf(`<retEnvEvento xmlns="%s" versao="1.00"><idLote>0</idLote>%s<cOrgao>35</cOrgao><cStat>%d</cStat><xMotivo>%s</xMotivo></retEnvEvento>`,
			nfeNS, head, code, esc(reason)))
	case "NFeDistribuicaoDFe":
		return []byte(fmt.Sprintf(`<retDistDFeInt xmlns="%s" versao="1.01"><tpAmb>2</tpAmb><verAplic>%s</verAplic><cStat>%d</cStat><xMotivo>%s</xMotivo>`+
			`<dhResp>%s</dhResp></retDistDFeInt>`, nfeNS, verAplic, code, esc(reason), dh(now)))
	case "NFeConsultaProtocolo4":
		return []byte(`<retConsSitNFe xmlns="` + nfeNS + `" versao="4.00">` + head + tail + `<chNFe>00000000000000000000000000000000000000000000</chNFe></retConsSitNFe>`)
	case "NFeInutilizacao4":
		return []byte(fmt.Sprintf(`<retInutNFe xmlns="%s" versao="4.00"><infInut>%s<cStat>%d</cStat><xMotivo>%s</xMotivo><cUF>35</cUF>`+
			`<dhRecbto>%s</dhRecbto></infInut></retInutNFe>`, nfeNS, head, code, esc(reason), dh(now)))
	}
	return []byte(fmt.Sprintf(`<retConsStatServ xmlns="%s" versao="4.00">%s%s</retConsStatServ>`, nfeNS, head, tail))
}

// answer handles a valid message; a.mu is held.
func (a *Authority) answer(service string, msg []byte, now time.Time) []byte {
	switch service {
	case "NFeStatusServico4":
		code, reason := 107, "Serviço em Operação"
		switch {
		case a.halted:
			code, reason = 108, "Serviço Paralisado Momentaneamente (curto prazo)"
		case a.svcNotice != nil:
			code, reason = a.svcNotice.code, a.svcNotice.reason
		}
		// The status is answered of the environment asked: the double
		// stands in for the state's SEFAZ of either (its notes are
		// authorized in homologação only).
		tpAmb := "2"
		if bytes.Contains(msg, []byte("<tpAmb>1</tpAmb>")) {
			tpAmb = "1"
		}
		return []byte(fmt.Sprintf(`<retConsStatServ xmlns="%s" versao="4.00"><tpAmb>%s</tpAmb><verAplic>%s</verAplic><cStat>%d</cStat>`+
			`<xMotivo>%s</xMotivo><cUF>35</cUF><dhRecbto>%s</dhRecbto><tMed>1</tMed></retConsStatServ>`, nfeNS, tpAmb, verAplic, code, reason, dh(now)))
	case "NFeConsultaProtocolo4":
		return a.consult(msg, now)
	case "NFeAutorizacao4":
		if n := a.svcNotice; n != nil && n.code == 114 {
			return a.lotAnswer(service, n.code, n.reason, now)
		}
		return a.authorize(msg, now)
	case "NFeRetAutorizacao4":
		return a.receipt(msg, now)
	case "NFeDistribuicaoDFe":
		return a.distribute(msg, now)
	case "NFeInutilizacao4":
		return a.void(msg, now)
	}
	return a.event(msg, now)
}

// consult answers NFeConsultaProtocolo4: 100 with the note's protocol,
// 101 once cancelled, 217 for a key it never authorized.
func (a *Authority) consult(msg []byte, now time.Time) []byte {
	var q struct {
		TpAmb string `xml:"tpAmb"`
		Key   string `xml:"chNFe"`
	}
	xml.Unmarshal(msg, &q)
	if q.TpAmb != "1" {
		q.TpAmb = "2"
	}
	n, ok := a.notes[q.Key]
	code, reason, prot := 217, "Rejeição: NF-e não consta na base de dados da SEFAZ", ""
	switch {
	case a.busy:
		a.busy = false
		code, reason = 656, "Rejeição: Consumo Indevido"
	case ok && n.denied != nil:
		code, reason, prot = n.denied.code, n.denied.reason, string(n.prot)
	case ok:
		code, reason, prot = 100, "Autorizado o uso da NF-e", string(n.prot)
		if n.cancelled {
			code, reason = 101, "Cancelamento de NF-e homologado"
		}
	}
	// It answers from the environment asked, as each environment's server
	// does: what it holds of a note is the note's own protocol.
	return []byte(fmt.Sprintf(`<retConsSitNFe xmlns="%s" versao="4.00"><tpAmb>%s</tpAmb><verAplic>%s</verAplic><cStat>%d</cStat><xMotivo>%s</xMotivo>`+
		`<cUF>%s</cUF><dhRecbto>%s</dhRecbto><chNFe>%s</chNFe>%s</retConsSitNFe>`, nfeNS, q.TpAmb, verAplic, code, reason, q.Key[:2], dh(now), q.Key, prot))
}

// nfeOf is what the authority reads of a note.
type nfeOf struct {
	Inf struct {
		ID     string `xml:"Id,attr"`
		Model  string `xml:"ide>mod"`
		Series string `xml:"ide>serie"`
		Number string `xml:"ide>nNF"`
		TpAmb  string `xml:"ide>tpAmb"`
		DhEmi  string `xml:"ide>dhEmi"`
		CNPJ   string `xml:"emit>CNPJ"`
	} `xml:"infNFe"`
}

// authorize answers NFeAutorizacao4 for a lot of one note.
func (a *Authority) authorize(msg []byte, now time.Time) []byte {
	if a.busy {
		a.busy = false
		return a.lotAnswer("NFeAutorizacao4", 656, "Rejeição: Consumo Indevido", now)
	}
	if a.stopped || a.halted {
		a.stopped = false
		return a.lotAnswer("NFeAutorizacao4", 108, "Serviço Paralisado Momentaneamente (curto prazo)", now)
	}
	note, key, err := noteOf(msg)
	if err != nil {
		return a.lotAnswer("NFeAutorizacao4", 225, "Rejeição: Falha no Schema XML: "+err.Error(), now)
	}
	prot := a.judge(note, key, now)
	if a.Async {
		a.seq++
		rec := fmt.Sprintf("35%013d", a.seq)
		if a.receipts == nil {
			a.receipts = map[string]string{}
		}
		a.receipts[rec] = string(prot)
		if a.asyncPolls > 0 {
			if a.polls == nil {
				a.polls = map[string]int{}
			}
			a.polls[rec] = a.asyncPolls
		}
		return []byte(fmt.Sprintf(`<retEnviNFe xmlns="%s" versao="4.00"><tpAmb>2</tpAmb><verAplic>%s</verAplic><cStat>103</cStat>`+
			`<xMotivo>Lote recebido com sucesso</xMotivo><cUF>35</cUF><dhRecbto>%s</dhRecbto><infRec><nRec>%s</nRec><tMed>1</tMed></infRec></retEnviNFe>`,
			nfeNS, verAplic, dh(now), rec))
	}
	return []byte(fmt.Sprintf(`<retEnviNFe xmlns="%s" versao="4.00"><tpAmb>2</tpAmb><verAplic>%s</verAplic><cStat>104</cStat>`+
		`<xMotivo>Lote processado</xMotivo><cUF>35</cUF><dhRecbto>%s</dhRecbto>%s</retEnviNFe>`, nfeNS, verAplic, dh(now), prot))
}

// receipt answers NFeRetAutorizacao4: the lot's protocol, or 106 for a
// receipt it never gave.
func (a *Authority) receipt(msg []byte, now time.Time) []byte {
	var q struct {
		Rec string `xml:"nRec"`
	}
	xml.Unmarshal(msg, &q)
	prot, ok := a.receipts[q.Rec]
	code, reason := 104, "Lote processado"
	switch {
	case ok && a.polls[q.Rec] > 0:
		a.polls[q.Rec]--
		code, reason, prot = 105, "Lote em processamento", ""
	case a.stopped:
		a.stopped = false
		code, reason, prot = 108, "Serviço Paralisado Momentaneamente (curto prazo)", ""
	case !ok:
		code, reason = 106, "Lote não localizado"
	}
	return []byte(fmt.Sprintf(`<retConsReciNFe xmlns="%s" versao="4.00"><tpAmb>2</tpAmb><verAplic>%s</verAplic><nRec>%s</nRec><cStat>%d</cStat>`+
		`<xMotivo>%s</xMotivo><cUF>35</cUF><dhRecbto>%s</dhRecbto>%s</retConsReciNFe>`, nfeNS, verAplic, q.Rec, code, reason, dh(now), prot))
}

// noteOf takes the one note out of an enviNFe.
func noteOf(msg []byte) ([]byte, string, error) {
	start := bytes.Index(msg, []byte("<NFe"))
	end := bytes.LastIndex(msg, []byte("</NFe>"))
	if start < 0 || end < start {
		return nil, "", fmt.Errorf("no NFe in the lot")
	}
	doc := msg[start : end+len("</NFe>")]
	var n nfeOf
	if err := xml.Unmarshal(doc, &n); err != nil {
		return nil, "", err
	}
	return doc, strings.TrimPrefix(n.Inf.ID, "NFe"), nil
}

// judge decides on a note as an authorizer does, and answers its protNFe:
// its signature (297, 298) and certificate (213, 291, 292), the
// environment (252), a number already used (204 the same note, 539
// another one), then 100.
func (a *Authority) judge(doc []byte, key string, now time.Time) []byte {
	var n nfeOf
	xml.Unmarshal(doc, &n)
	code, reason := 100, "Autorizado o uso da NF-e"
	number := n.Inf.CNPJ + "/" + n.Inf.Model + "/" + n.Inf.Series + "/" + n.Inf.Number
	cert, err := fiscal.Verify(doc, "NFe"+key)
	switch {
	case errors.Is(err, fiscal.ErrNoSignature):
		code, reason = 298, "Rejeição: Assinatura difere do padrão do Projeto"
	case err != nil:
		code, reason = 297, "Rejeição: Assinatura difere do calculado"
	case n.Inf.TpAmb != "2":
		code, reason = 252, "Rejeição: Ambiente informado diverge do Ambiente de recebimento"
	default:
		switch cerr := certs.Check(cert, n.Inf.CNPJ, now); {
		case cerr == nil:
		case errors.Is(cerr, certs.ErrExpired), errors.Is(cerr, certs.ErrNotYetValid):
			code, reason = 291, "Rejeição: Certificado Assinatura Data Validade"
		case errors.Is(cerr, certs.ErrNoCNPJ):
			code, reason = 292, "Rejeição: Certificado Assinatura sem CNPJ"
		default:
			code, reason = 213, "Rejeição: CNPJ-Base do Emitente difere do CNPJ-Base do Certificado Digital"
		}
	}
	if code == 100 {
		if prev, ok := a.numbers[number]; ok && prev == key {
			code, reason = 204, "Rejeição: Duplicidade de NF-e"
		} else if ok {
			code, reason = 539, "Rejeição: Duplicidade de NF-e com diferença na Chave de Acesso [chNFe: "+prev+"]"
		} else if a.voided[number] {
			code, reason = 206, "Rejeição: NF-e já está inutilizada na Base de dados da SEFAZ"
		} else if a.reject != nil {
			code, reason = a.reject.code, a.reject.reason
			a.reject = nil
		}
	}
	// A denial is registered as an authorization is: its protocol, the
	// number spent.
	denied := code == 110 || (code >= 301 && code <= 303)
	var protocol, digVal string
	if code == 100 || denied {
		a.seq++
		protocol = fmt.Sprintf("135%02d%010d", now.Year()%100, a.seq)
		if _, rest, ok := bytes.Cut(doc, []byte("<DigestValue>")); ok {
			v, _, _ := bytes.Cut(rest, []byte("</DigestValue>"))
			digVal = "<digVal>" + string(v) + "</digVal>"
		}
	}
	nprot := ""
	if protocol != "" {
		nprot = "<nProt>" + protocol + "</nProt>"
	}
	prot := []byte(fmt.Sprintf(`<protNFe versao="4.00"><infProt><tpAmb>2</tpAmb><verAplic>%s</verAplic><chNFe>%s</chNFe><dhRecbto>%s</dhRecbto>%s%s`+
		`<cStat>%d</cStat><xMotivo>%s</xMotivo></infProt></protNFe>`, verAplic, key, dh(now), nprot, digVal, code, esc(reason)))
	if code == 100 || denied {
		if a.notes == nil {
			a.notes, a.numbers = map[string]*note{}, map[string]string{}
		}
		held := &note{prot: []byte(strings.Replace(string(prot), `<protNFe versao`, `<protNFe xmlns="`+nfeNS+`" versao`, 1)), protocol: protocol}
		held.issued, _ = time.Parse(time.RFC3339, n.Inf.DhEmi)
		if denied {
			held.denied = &fault{code, reason}
		}
		a.notes[key] = held
		a.numbers[number] = key
	}
	return prot
}

// procOf is what the authority reads of a note it authorized before.
type procOf struct {
	Inf struct {
		ID     string `xml:"Id,attr"`
		Model  string `xml:"ide>mod"`
		Series string `xml:"ide>serie"`
		Number string `xml:"ide>nNF"`
		CNPJ   string `xml:"emit>CNPJ"`
		DhEmi  string `xml:"ide>dhEmi"`
	} `xml:"NFe>infNFe"`
	Protocol string `xml:"protNFe>infProt>nProt"`
	Digest   string `xml:"NFe>Signature>SignedInfo>Reference>DigestValue"`
}

// Know makes it hold a note it authorized before (an nfeProc), cancelled
// or not, with its correction letters: test mode's authority starts from
// what a domain's file says.
func (a *Authority) Know(proc []byte, cancelled bool, corrections int) error {
	var p procOf
	if err := xml.Unmarshal(proc, &p); err != nil {
		return err
	}
	start, end := bytes.Index(proc, []byte("<protNFe")), bytes.LastIndex(proc, []byte("</protNFe>"))
	key := strings.TrimPrefix(p.Inf.ID, "NFe")
	if start < 0 || end < start || len(key) != 44 {
		return errors.New("not an authorized note")
	}
	prot := string(proc[start : end+len("</protNFe>")])
	if !strings.Contains(prot[:strings.IndexByte(prot, '>')], "xmlns=") {
		prot = `<protNFe xmlns="` + nfeNS + `"` + prot[len("<protNFe"):]
	}
	// The protocol's digVal is the digest of the note it authorized; a
	// protocol written without it gets it, as SEFAZ writes it.
	if !strings.Contains(prot, "<digVal>") && p.Digest != "" {
		if i := strings.Index(prot, "<cStat>"); i > 0 {
			prot = prot[:i] + "<digVal>" + p.Digest + "</digVal>" + prot[i:]
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.notes == nil {
		a.notes, a.numbers = map[string]*note{}, map[string]string{}
	}
	if a.corrected == nil {
		a.corrected = map[string]bool{}
	}
	issued, _ := time.Parse(time.RFC3339, p.Inf.DhEmi)
	a.notes[key] = &note{prot: []byte(prot), protocol: p.Protocol, cancelled: cancelled, issued: issued}
	a.numbers[p.Inf.CNPJ+"/"+p.Inf.Model+"/"+p.Inf.Series+"/"+p.Inf.Number] = key
	for i := 1; i <= corrections; i++ {
		a.corrected[key+"/"+strconv.Itoa(i)] = true
	}
	a.seq++
	return nil
}
