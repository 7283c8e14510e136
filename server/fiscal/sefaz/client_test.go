package sefaz

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"crypto/tls"

	"fincom/server/certs"
	"fincom/server/fiscal"
)

// authority is a local double of a SEFAZ web service on loopback: mutual
// TLS, SOAP 1.2, the message held to its schema; answer says what it
// answers to a valid request.
type authority struct {
	srv      *httptest.Server
	messages []string
}

func newAuthority(t *testing.T, answer func(w http.ResponseWriter)) *authority {
	t.Helper()
	return newService(t, "NFeStatusServico4", "consStatServ", answer)
}

// newService is a double of service, holding its message to the schema of
// root.
func newService(t *testing.T, service, root string, answer func(w http.ResponseWriter)) *authority {
	t.Helper()
	a := &authority{}
	a.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TLS.PeerCertificates) == 0 {
			http.Error(w, "no client certificate", http.StatusForbidden)
			return
		}
		if r.Header.Get("Content-Type") != "application/soap+xml; charset=utf-8" {
			http.Error(w, "not SOAP 1.2", http.StatusUnsupportedMediaType)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var env struct {
			XMLName xml.Name
			Msg     struct {
				XMLName xml.Name
				Inner   []byte `xml:",innerxml"`
			} `xml:"Body>nfeDadosMsg"`
		}
		if err := xml.Unmarshal(body, &env); err != nil || env.XMLName.Space != soapNS || env.Msg.XMLName.Space != wsdlNS+service {
			http.Error(w, "not a "+service+" envelope", http.StatusBadRequest)
			return
		}
		if err := fiscal.ValidateSchema(root, env.Msg.Inner); err != nil {
			http.Error(w, "225 "+err.Error(), http.StatusBadRequest)
			return
		}
		a.messages = append(a.messages, string(env.Msg.Inner))
		answer(w)
	}))
	a.srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	a.srv.StartTLS()
	t.Cleanup(a.srv.Close)
	return a
}

func soapAnswer(inner string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/soap+xml; charset=utf-8")
		io.WriteString(w, `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="`+soapNS+`"><soap:Body><nfeResultMsg xmlns="`+
			wsdlNS+`NFeStatusServico4">`+inner+`</nfeResultMsg></soap:Body></soap:Envelope>`)
	}
}

const inOperation = `<retConsStatServ xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>2</tpAmb><verAplic>SP_NFE_PL009_V4</verAplic>` +
	`<cStat>107</cStat><xMotivo>Serviço em Operação</xMotivo><cUF>35</cUF><dhRecbto>2026-11-26T10:00:00-03:00</dhRecbto><tMed>1</tMed></retConsStatServ>`

// client is a client of the double: the shipped tables with SP's status
// service overridden to it, trusting its certificate.
func client(t *testing.T, a *authority) (*Client, certs.Certificate) {
	t.Helper()
	e, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Override([]byte(`{"55": {"SP": {"homologacao": {"NFeStatusServico4": "` + a.srv.URL + `/ws/nfestatusservico4.asmx"}}}}`)); err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(a.srv.Certificate())
	cert, err := certs.TestCertificate("Acme", "11222333000181", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return &Client{Endpoints: e, Roots: roots, Timeout: 5 * time.Second}, cert
}

// TestStatus: NFeStatusServico4 goes to the state's authorizer as a SOAP
// 1.2 message valid by consStatServ's schema, over mutual TLS, and its
// answer is read as the manual gives it.
func TestStatus(t *testing.T) {
	a := newAuthority(t, soapAnswer(inOperation))
	c, cert := client(t, a)
	s, err := c.Status(context.Background(), cert, "55", "SP", "35", Homologacao)
	if err != nil {
		t.Fatal(err)
	}
	if s.Code != 107 || s.Reason != "Serviço em Operação" || s.AverageSeconds != 1 || s.Authorizer != "SP" || len(a.messages) != 1 ||
		!strings.Contains(a.messages[0], "<tpAmb>2</tpAmb><cUF>35</cUF><xServ>STATUS</xServ>") {
		t.Errorf("status %+v, sent %v", s, a.messages)
	}
	// A server the client does not trust is not spoken to.
	c.Roots = x509.NewCertPool()
	if _, err := c.Status(context.Background(), cert, "55", "SP", "35", Homologacao); err == nil || len(a.messages) != 1 {
		t.Errorf("an untrusted authority: %v", err)
	}
}

// TestHostileAnswers: an authority's malformed, foreign, entity-laden,
// oversized or schema-invalid answer, or its fault, is an error naming
// what is wrong; nothing is taken from it.
func TestHostileAnswers(t *testing.T) {
	for name, c := range map[string]struct {
		answer func(http.ResponseWriter)
		want   error
	}{
		"dtd": {func(w http.ResponseWriter) {
			io.WriteString(w, `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><soap:Envelope xmlns:soap="`+soapNS+`"><soap:Body>&e;</soap:Body></soap:Envelope>`)
		}, ErrAnswer},
		"not xml": {func(w http.ResponseWriter) { io.WriteString(w, "<html>Service Unavailable") }, ErrAnswer},
		"soap 1.1": {func(w http.ResponseWriter) {
			io.WriteString(w, `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"/>`)
		}, ErrAnswer},
		"other operation": {func(w http.ResponseWriter) {
			io.WriteString(w, strings.Replace(answerOf(inOperation), "NFeStatusServico4", "NFeAutorizacao4", 1))
		}, ErrAnswer},
		"schema-invalid": {soapAnswer(strings.Replace(inOperation, "<cStat>107</cStat>", "", 1)), ErrAnswer},
		"huge": {func(w http.ResponseWriter) {
			io.WriteString(w, `<soap:Envelope xmlns:soap="`+soapNS+`"><soap:Body>`)
			io.WriteString(w, strings.Repeat("<x/>", maxAnswer/4+10))
		}, ErrAnswer},
		"fault": {func(w http.ResponseWriter) {
			w.WriteHeader(500)
			io.WriteString(w, `<soap:Envelope xmlns:soap="`+soapNS+`"><soap:Body><soap:Fault><soap:Code><soap:Value>soap:Receiver</soap:Value></soap:Code>`+
				`<soap:Reason><soap:Text xml:lang="pt">Erro interno</soap:Text></soap:Reason></soap:Fault></soap:Body></soap:Envelope>`)
		}, ErrFault},
		// A valid answer under a status that is not 2xx is no answer.
		"valid answer, HTTP 500": {func(w http.ResponseWriter) {
			w.WriteHeader(500)
			io.WriteString(w, answerOf(inOperation))
		}, ErrAnswer},
		"valid answer, HTTP 404": {func(w http.ResponseWriter) {
			w.WriteHeader(404)
			io.WriteString(w, answerOf(inOperation))
		}, ErrAnswer},
		// A redirect is never followed, nor its body taken.
		"redirect": {func(w http.ResponseWriter) {
			w.Header().Set("Location", "https://127.0.0.1:1/elsewhere")
			w.WriteHeader(http.StatusTemporaryRedirect)
			io.WriteString(w, answerOf(inOperation))
		}, ErrAnswer},
		"body of another namespace": {func(w http.ResponseWriter) {
			io.WriteString(w, strings.Replace(answerOf(inOperation), "<soap:Body>", `<soap:Body xmlns:soap="urn:other">`, 1))
		}, ErrAnswer},
	} {
		a := newAuthority(t, c.answer)
		cl, cert := client(t, a)
		if _, err := cl.Status(context.Background(), cert, "55", "SP", "35", Homologacao); !errors.Is(err, c.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestFaultTextCleaned: a fault's text is shown cut to a few hundred
// characters, without control or direction-override characters, which
// could hide or reorder what an operator reads.
func TestFaultTextCleaned(t *testing.T) {
	reason := "Erro\u009b31m interno\u202e\u2066\u200f " + strings.Repeat("x", 5000)
	a := newAuthority(t, func(w http.ResponseWriter) {
		w.WriteHeader(500)
		var esc bytes.Buffer
		xml.EscapeText(&esc, []byte(reason))
		io.WriteString(w, `<soap:Envelope xmlns:soap="`+soapNS+`"><soap:Body><soap:Fault><soap:Code><soap:Value>soap:Receiver</soap:Value></soap:Code>`+
			`<soap:Reason><soap:Text xml:lang="pt">`+esc.String()+`</soap:Text></soap:Reason></soap:Fault></soap:Body></soap:Envelope>`)
	})
	cl, cert := client(t, a)
	_, err := cl.Status(context.Background(), cert, "55", "SP", "35", Homologacao)
	if !errors.Is(err, ErrFault) {
		t.Fatal(err)
	}
	msg := err.Error()
	if len(msg) > 400 || strings.ContainsAny(msg, "\u009b\u202e\u2066\u200f") || !strings.Contains(msg, "Erro31m interno") {
		t.Errorf("fault shown as %q", msg)
	}
}

func answerOf(inner string) string {
	rec := httptest.NewRecorder()
	soapAnswer(inner)(rec)
	return rec.Body.String()
}

const consultedKey = "35170458716523000119550010000000121000123458"

// TestConsult: NFeConsultaProtocolo4 asks the authority of the key's state
// and model about the note, and reads its standing and protocol; an
// answer about another key is refused.
func TestConsult(t *testing.T) {
	authorized := `<retConsSitNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>2</tpAmb><verAplic>SP_NFE_PL009_V4</verAplic>` +
		`<cStat>100</cStat><xMotivo>Autorizado o uso da NF-e</xMotivo><cUF>35</cUF><dhRecbto>2026-11-26T10:00:00-03:00</dhRecbto><chNFe>` + consultedKey +
		`</chNFe><protNFe versao="4.00"><infProt><tpAmb>2</tpAmb><verAplic>SP_NFE_PL009_V4</verAplic><chNFe>` + consultedKey + `</chNFe>` +
		`<dhRecbto>2026-11-26T09:59:00-03:00</dhRecbto><nProt>135260000000001</nProt><digVal>vFL68WETQ+mvj1aJAMDx+oVi928=</digVal><cStat>100</cStat>` +
		`<xMotivo>Autorizado o uso da NF-e</xMotivo></infProt></protNFe></retConsSitNFe>`
	// The authority's protocol signed over infProt, as some authorities
	// sign it.
	sefazCert, _ := certs.TestCertificate("SEFAZ SP", "46377222000129", time.Now())
	signed, err := fiscal.Sign([]byte(strings.Replace(authorized, "<infProt>", `<infProt Id="ID135260000000001">`, 1)), "ID135260000000001", sefazCert)
	if err != nil {
		t.Fatal(err)
	}
	signedProt := string(withoutDeclaration(signed))
	answer := func(inner string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			io.WriteString(w, `<soap:Envelope xmlns:soap="`+soapNS+`"><soap:Body><nfeResultMsg xmlns="`+wsdlNS+`NFeConsultaProtocolo4">`+inner+
				`</nfeResultMsg></soap:Body></soap:Envelope>`)
		}
	}
	for name, c := range map[string]struct {
		inner string
		code  int
		err   error
	}{
		"authorized":                              {authorized, 100, nil},
		"authorized, the protocol signed":         {signedProt, 100, nil},
		"a signed protocol changed after signing": {strings.Replace(signedProt, "<nProt>135260000000001</nProt>", "<nProt>135260000000009</nProt>", 1), 0, ErrAnswer},
		"another key":                             {strings.ReplaceAll(authorized, consultedKey, consultedKey[:43]+"9"), 0, ErrAnswer},
		"a protocol of another key":               {strings.Replace(authorized, "<chNFe>"+consultedKey+"</chNFe><dhRecbto>", "<chNFe>"+consultedKey[:43]+"9</chNFe><dhRecbto>", 1), 0, ErrAnswer},
		"another environment":                     {strings.ReplaceAll(authorized, "<tpAmb>2</tpAmb>", "<tpAmb>1</tpAmb>"), 0, ErrAnswer},
		// The authority's own refusal of the mismatch is its answer.
		"refused as of another environment": {`<retConsSitNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>1</tpAmb><verAplic>SP_NFE_PL009_V4</verAplic>` +
			`<cStat>252</cStat><xMotivo>Rejeição: Ambiente informado diverge do Ambiente de recebimento</xMotivo><cUF>35</cUF><dhRecbto>2026-11-26T10:00:00-03:00</dhRecbto><chNFe>` +
			consultedKey + `</chNFe></retConsSitNFe>`, 252, nil},
		"a protocol of another environment": {strings.Replace(authorized, "<infProt><tpAmb>2</tpAmb>", "<infProt><tpAmb>1</tpAmb>", 1), 0, ErrAnswer},
	} {
		a := newService(t, "NFeConsultaProtocolo4", "consSitNFe", answer(c.inner))
		e, _ := Load()
		e.Override([]byte(`{"55": {"SP": {"homologacao": {"NFeConsultaProtocolo4": "` + a.srv.URL + `/ws"}}}}`))
		roots := x509.NewCertPool()
		roots.AddCert(a.srv.Certificate())
		cert, _ := certs.TestCertificate("Acme", "11222333000181", time.Now())
		cl := &Client{Endpoints: e, Roots: roots}
		st, err := cl.Consult(context.Background(), cert, consultedKey, Homologacao)
		if !errors.Is(err, c.err) || st.Code != c.code {
			t.Errorf("%s: %+v %v", name, st, err)
			continue
		}
		if c.err == nil && c.code == 100 && (st.Protocol != "135260000000001" || st.Authorizer != "SP" ||
			!strings.Contains(a.messages[0], "<xServ>CONSULTAR</xServ><chNFe>"+consultedKey+"</chNFe>")) {
			t.Errorf("%s: %+v, sent %v", name, st, a.messages)
		}
	}
	if _, err := (&Client{Endpoints: func() *Endpoints { e, _ := Load(); return e }()}).Consult(context.Background(), certs.Certificate{}, "123", Homologacao); err == nil {
		t.Error("a short key was asked about")
	}
}

// TestVoid: NFeInutilizacao4 sends a range of numbers signed with the
// unit's certificate (the signature verifies over infInut, the message
// valid by its schema), and reads the authority's homologation; requests
// that cannot be made are refused before anything is sent.
func TestVoid(t *testing.T) {
	var signedBy string
	const homologated = `<retInutNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><infInut><tpAmb>2</tpAmb><verAplic>SP</verAplic><cStat>102</cStat>` +
		`<xMotivo>Inutilização de número homologado</xMotivo><cUF>35</cUF><ano>26</ano><CNPJ>11222333000181</CNPJ><mod>55</mod><serie>1</serie>` +
		`<nNFIni>10</nNFIni><nNFFin>12</nNFFin><dhRecbto>2026-11-26T10:00:00-03:00</dhRecbto><nProt>135260000000002</nProt></infInut></retInutNFe>`
	reply := homologated
	a := newService(t, "NFeInutilizacao4", "inutNFe", func(w http.ResponseWriter) {})
	a.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var env struct {
			Msg struct {
				Inner []byte `xml:",innerxml"`
			} `xml:"Body>nfeDadosMsg"`
		}
		xml.Unmarshal(body, &env)
		if err := fiscal.ValidateSchema("inutNFe", env.Msg.Inner); err != nil {
			http.Error(w, "225 "+err.Error(), 400)
			return
		}
		id := "ID35" + "26" + "11222333000181" + "55" + "001" + "000000010" + "000000012"
		cert, err := fiscal.Verify(env.Msg.Inner, id)
		if err != nil {
			http.Error(w, "297 "+err.Error(), 400)
			return
		}
		signedBy = cert.Subject.CommonName
		io.WriteString(w, `<soap:Envelope xmlns:soap="`+soapNS+`"><soap:Body><nfeResultMsg xmlns="`+wsdlNS+`NFeInutilizacao4">`+
			reply+`</nfeResultMsg></soap:Body></soap:Envelope>`)
	})
	e, _ := Load()
	e.Override([]byte(`{"55": {"SP": {"homologacao": {"NFeInutilizacao4": "` + a.srv.URL + `/ws"}}}}`))
	roots := x509.NewCertPool()
	roots.AddCert(a.srv.Certificate())
	cert, _ := certs.TestCertificate("Acme", "11222333000181", time.Now())
	cl := &Client{Endpoints: e, Roots: roots}
	v := Voiding{Model: "55", State: "SP", StateCode: "35", CNPJ: "11222333000181", Year: 2026, Series: 1, From: 10, To: 12,
		Reason: "Números pulados por falha do sistema & <ajuste>"}
	got, err := cl.Void(context.Background(), cert, v, Homologacao)
	if err != nil || got.Code != 102 || got.Protocol != "135260000000002" || signedBy != "ACME:11222333000181" {
		t.Fatalf("void: %+v %v (signed by %q)", got, err, signedBy)
	}
	for name, bad := range map[string]func(*Voiding){
		"short reason": func(v *Voiding) { v.Reason = "curto" },
		"backwards":    func(v *Voiding) { v.From, v.To = 12, 10 },
		"zero":         func(v *Voiding) { v.From = 0 },
	} {
		w := v
		bad(&w)
		if _, err := cl.Void(context.Background(), cert, w, Homologacao); !errors.Is(err, ErrVoiding) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The authority's signed answer: its signature verifies, or the
	// answer is none.
	sefazCert, _ := certs.TestCertificate("SEFAZ SP", "46377222000129", time.Now())
	signedReply, err := fiscal.Sign([]byte(strings.Replace(homologated, "<infInut>", `<infInut Id="ID135260000000002">`, 1)), "ID135260000000002", sefazCert)
	if err != nil {
		t.Fatal(err)
	}
	signedReply = withoutDeclaration(signedReply)
	reply = string(signedReply)
	if got, err := cl.Void(context.Background(), cert, v, Homologacao); err != nil || got.Code != 102 {
		t.Errorf("a signed answer: %+v %v", got, err)
	}
	// Answers about another voiding, environment, or changed after the
	// authority signed them, are none.
	for name, r := range map[string]string{
		"another CNPJ":          strings.Replace(homologated, "<CNPJ>11222333000181</CNPJ>", "<CNPJ>99888777000166</CNPJ>", 1),
		"another series":        strings.Replace(homologated, "<serie>1</serie>", "<serie>2</serie>", 1),
		"another range":         strings.Replace(homologated, "<nNFFin>12</nNFFin>", "<nNFFin>13</nNFFin>", 1),
		"another environment":   strings.Replace(homologated, "<tpAmb>2</tpAmb>", "<tpAmb>1</tpAmb>", 1),
		"no numbers":            strings.Replace(homologated, "<nNFIni>10</nNFIni><nNFFin>12</nNFFin>", "", 1),
		"changed after signing": strings.Replace(string(signedReply), "<nProt>135260000000002</nProt>", "<nProt>135260000000009</nProt>", 1),
	} {
		reply = r
		if got, err := cl.Void(context.Background(), cert, v, Homologacao); !errors.Is(err, ErrAnswer) {
			t.Errorf("%s: %+v %v", name, got, err)
		}
	}
}

// zipped is a document as the national environment packs it in docZip.
func zipped(t *testing.T, doc []byte) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(doc)
	w.Close()
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// distributed is a double of AN's NFeDistribuicaoDFe answering lot for a
// request naming the CNPJ after NSU 0, with the operation's wrapping.
func distributed(t *testing.T, lot string) *authority {
	t.Helper()
	a := newService(t, "NFeDistribuicaoDFe", "distDFeInt", nil)
	a.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var env struct {
			Op struct {
				XMLName xml.Name
				Msg     struct {
					Inner []byte `xml:",innerxml"`
				} `xml:"nfeDadosMsg"`
			} `xml:"Body>nfeDistDFeInteresse"`
		}
		if err := xml.Unmarshal(body, &env); err != nil || env.Op.XMLName.Space != wsdlNS+"NFeDistribuicaoDFe" {
			http.Error(w, "not a nfeDistDFeInteresse", 400)
			return
		}
		if err := fiscal.ValidateSchema("distDFeInt", env.Op.Msg.Inner); err != nil {
			http.Error(w, "215 "+err.Error(), 400)
			return
		}
		a.messages = append(a.messages, string(env.Op.Msg.Inner))
		io.WriteString(w, `<soap:Envelope xmlns:soap="`+soapNS+`"><soap:Body><nfeDistDFeInteresseResponse xmlns="`+wsdlNS+`NFeDistribuicaoDFe">`+
			`<nfeDistDFeInteresseResult>`+lot+`</nfeDistDFeInteresseResult></nfeDistDFeInteresseResponse></soap:Body></soap:Envelope>`)
	})
	return a
}

// TestDistribute: the national environment's documents for the CNPJ after
// an NSU come unpacked (the note whole, as its issuer's authority
// authorized it); a docZip that inflates past its bound is refused.
func TestDistribute(t *testing.T) {
	note, err := os.ReadFile("../../../testdata/docread/nfe.xml")
	if err != nil {
		t.Fatal(err)
	}
	summary := []byte(`<resNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.01"><chNFe>35170458716523000119550010000000131000123450</chNFe></resNFe>`)
	lot := func(docs string) string {
		return `<retDistDFeInt xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.01"><tpAmb>2</tpAmb><verAplic>1.7.6</verAplic><cStat>138</cStat>` +
			`<xMotivo>Documento(s) localizado(s)</xMotivo><dhResp>2026-11-26T10:00:00-03:00</dhResp><ultNSU>000000000000002</ultNSU>` +
			`<maxNSU>000000000000002</maxNSU><loteDistDFeInt>` + docs + `</loteDistDFeInt></retDistDFeInt>`
	}
	a := distributed(t, lot(`<docZip NSU="000000000000001" schema="procNFe_v4.00.xsd">`+zipped(t, note)+`</docZip>`+
		`<docZip NSU="000000000000002" schema="resNFe_v1.01.xsd">`+zipped(t, summary)+`</docZip>`))
	e, _ := Load()
	e.Override([]byte(`{"55": {"AN": {"homologacao": {"NFeDistribuicaoDFe": "` + a.srv.URL + `/ws"}}}}`))
	roots := x509.NewCertPool()
	roots.AddCert(a.srv.Certificate())
	cert, _ := certs.TestCertificate("Acme", "11222333000181", time.Now())
	cl := &Client{Endpoints: e, Roots: roots}
	d, err := cl.Distribute(context.Background(), cert, "11222333000181", "35", "0", Homologacao)
	if err != nil {
		t.Fatal(err)
	}
	first, err := d.Documents[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	if d.Code != 138 || d.LastNSU != "000000000000002" || len(d.Documents) != 2 || !bytes.Equal(first, note) ||
		d.Documents[1].Schema != "resNFe_v1.01.xsd" || !strings.Contains(a.messages[0], "<CNPJ>11222333000181</CNPJ><distNSU><ultNSU>000000000000000</ultNSU>") {
		t.Fatalf("distribution %+v, sent %v", d, a.messages)
	}
	bomb := distributed(t, lot(`<docZip NSU="000000000000001" schema="procNFe_v4.00.xsd">`+zipped(t, bytes.Repeat([]byte("a"), maxDocument+10))+`</docZip>`))
	e.Override([]byte(`{"55": {"AN": {"homologacao": {"NFeDistribuicaoDFe": "` + bomb.srv.URL + `/ws"}}}}`))
	cl.Roots.AddCert(bomb.srv.Certificate())
	d, err = cl.Distribute(context.Background(), cert, "11222333000181", "35", "0", Homologacao)
	if err != nil || len(d.Documents) != 1 {
		t.Fatalf("a lot with a gzip bomb: %v", err)
	}
	if _, err := d.Documents[0].Open(); !errors.Is(err, ErrAnswer) {
		t.Errorf("a gzip bomb: %v", err)
	}
	// An answer of the other environment than the one asked is none.
	other := distributed(t, strings.Replace(lot(`<docZip NSU="000000000000001" schema="resNFe_v1.01.xsd">`+zipped(t, summary)+`</docZip>`), "<tpAmb>2</tpAmb>", "<tpAmb>1</tpAmb>", 1))
	e.Override([]byte(`{"55": {"AN": {"homologacao": {"NFeDistribuicaoDFe": "` + other.srv.URL + `/ws"}}}}`))
	cl.Roots.AddCert(other.srv.Certificate())
	if _, err := cl.Distribute(context.Background(), cert, "11222333000181", "35", "0", Homologacao); !errors.Is(err, ErrAnswer) || !strings.Contains(fmt.Sprint(err), "environment 1") {
		t.Errorf("another environment's answer: %v", err)
	}
}

// TestConnectionsReused: the calls of one certificate to an authority
// share a connection (one mutual TLS handshake, not one per call, and no
// idle connection left behind by each); another certificate has its own.
func TestConnectionsReused(t *testing.T) {
	var mu sync.Mutex
	conns := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		soapAnswer(inOperation)(w)
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			conns++
			mu.Unlock()
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c, cert := client(t, &authority{srv: srv})
	for range 3 {
		if _, err := c.Status(context.Background(), cert, "55", "SP", "35", Homologacao); err != nil {
			t.Fatal(err)
		}
	}
	other, err := certs.TestCertificate("Outra", "11444777000161", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Status(context.Background(), other, "55", "SP", "35", Homologacao); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if conns != 2 {
		t.Fatalf("%d connections for 3 calls of one certificate and 1 of another, want 2", conns)
	}
}
