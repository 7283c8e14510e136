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
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"fincom/server/certs"
	"fincom/server/fiscal"
)

// Client speaks to SEFAZ's web services as their WSDLs define them: SOAP
// 1.2 (application/soap+xml; charset=utf-8), the message in nfeDadosMsg
// of the operation's namespace, over mutual TLS with the unit's A1
// certificate, TLS 1.2 or newer, trusting Roots (certs.TrustPool). Every
// message is held to its official schema before it leaves, and every
// answer after it arrives: an authority's answer is input like any other.
type Client struct {
	Endpoints *Endpoints
	Roots     *x509.CertPool
	// Timeout bounds one call (30 s when 0).
	Timeout time.Duration
	// ReceiptWait is the wait between asks for a lot's receipt (the
	// authority's mean time, tMed, when 0).
	ReceiptWait time.Duration
	// Now is the real clock an authority's 656 is timed by (time.Now when
	// nil): the hour it asks for runs whatever a domain's clock says.
	Now func() time.Time
	// clients keeps a connection to each authority per certificate.
	clients certs.Clients
}

// now is the client's clock.
func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Errors of a call.
var (
	// ErrAnswer is an answer that is not the service's: not SOAP 1.2,
	// another namespace, a DTD, too large, or invalid by its schema.
	ErrAnswer = errors.New("the authority's answer is not one")
	// ErrUnavailable is an authority that says it cannot answer now
	// (HTTP 502, 503, 504 without a SOAP answer): ask again later.
	ErrUnavailable = errors.New("the authority is unavailable")
	// ErrFault is the authority's SOAP fault (its reason follows).
	ErrFault = errors.New("the authority answered a fault")
)

const (
	soapNS = "http://www.w3.org/2003/05/soap-envelope"
	wsdlNS = "http://www.portalfiscal.inf.br/nfe/wsdl/"
	nfeNS  = "http://www.portalfiscal.inf.br/nfe"
	dsigNS = "http://www.w3.org/2000/09/xmldsig#"
	// maxAnswer bounds what an authority may answer.
	maxAnswer = 4 << 20
)

// call posts msg to url as the service's nfeDadosMsg and answers the
// content of its nfeResultMsg.
func (c *Client) call(ctx context.Context, cert certs.Certificate, url, service string, msg []byte) ([]byte, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var env bytes.Buffer
	env.WriteString(`<?xml version="1.0" encoding="utf-8"?><soap12:Envelope xmlns:soap12="` + soapNS + `"><soap12:Body>`)
	if w := wrapped[service]; w != "" {
		// NFeDistribuicaoDFe's WSDL wraps the message in its operation.
		env.WriteString(`<` + w + ` xmlns="` + wsdlNS + service + `"><nfeDadosMsg>`)
		env.Write(msg)
		env.WriteString(`</nfeDadosMsg></` + w + `></soap12:Body></soap12:Envelope>`)
	} else {
		env.WriteString(`<nfeDadosMsg xmlns="` + wsdlNS + service + `">`)
		env.Write(msg)
		env.WriteString(`</nfeDadosMsg></soap12:Body></soap12:Envelope>`)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &env)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/soap+xml; charset=utf-8")
	resp, err := c.clients.Get(cert, c.Roots, timeout).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxAnswer {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrAnswer, maxAnswer)
	}
	out, err := readAnswer(body, service, resp.StatusCode)
	if err != nil {
		return nil, err
	}
	if err := sameEnvironment(msg, out); err != nil {
		return nil, err
	}
	if err := signaturesHold(out); err != nil {
		return nil, err
	}
	return out, nil
}

// signaturesHold verifies every XML signature an answer carries (an
// authority may sign its protNFe, retEvento or retInutNFe; a consult's
// events carry their signers'): a signature that is there must verify
// over what it references.
func signaturesHold(answer []byte) error {
	if !bytes.Contains(answer, []byte("Signature")) {
		return nil
	}
	d := xml.NewDecoder(bytes.NewReader(answer))
	for {
		tok, err := d.Token()
		if err != nil {
			return nil
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "Reference" || se.Name.Space != dsigNS {
			continue
		}
		uri := ""
		for _, a := range se.Attr {
			if a.Name.Local == "URI" {
				uri = a.Value
			}
		}
		id, ok := strings.CutPrefix(uri, "#")
		if !ok || id == "" {
			return fmt.Errorf("%w: a signature referencing %q", ErrAnswer, uri)
		}
		if _, err := fiscal.Verify(answer, id); err != nil {
			return fmt.Errorf("%w: the signature of %s: %v", ErrAnswer, id, err)
		}
	}
}

// sameEnvironment refuses an answer about another environment than the
// message asked in: every tpAmb the answer holds (its own, its protocols',
// its events') must be the message's first. The one exception is the
// authority's own refusal of that mismatch (the lot's or the note's
// cStat), 252 (Ambiente informado
// diverge do Ambiente de recebimento), written in its environment: a
// rejection that authorizes nothing, and tells an operator whose
// addresses point at the wrong environment what is wrong.
func sameEnvironment(msg, answer []byte) error {
	asked, refused := "", false
	eachText(msg, "tpAmb", func(v string) bool { asked = v; return false })
	eachText(answer, "cStat", func(v string) bool { refused = v == "252"; return !refused })
	if asked == "" || refused {
		return nil
	}
	var err error
	eachText(answer, "tpAmb", func(v string) bool {
		if v != asked {
			err = fmt.Errorf("%w: it answers of environment %s, %s was asked", ErrAnswer, v, asked)
			return false
		}
		return true
	})
	return err
}

// eachText calls fn with the text of each element named name in doc, in
// order, while fn answers true.
func eachText(doc []byte, name string, fn func(string) bool) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.Token()
		if err != nil {
			return
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == name {
			var v string
			if d.DecodeElement(&v, &se) != nil || !fn(strings.TrimSpace(v)) {
				return
			}
		}
	}
}

// wrapped are the services whose WSDL wraps the message and the answer
// in their operation (nfeDistDFeInteresse, answered in
// nfeDistDFeInteresseResponse/nfeDistDFeInteresseResult).
var wrapped = map[string]string{"NFeDistribuicaoDFe": "nfeDistDFeInteresse"}

// result is the element an answer's content is in.
type result struct {
	XMLName xml.Name
	Inner   []byte `xml:",innerxml"`
}

// envelope is a SOAP 1.2 answer.
type envelope struct {
	XMLName xml.Name
	Body    struct {
		XMLName xml.Name
		Fault   *struct {
			Reason string `xml:"Reason>Text"`
		} `xml:"Fault"`
		Result  *result `xml:"nfeResultMsg"`
		Wrapped *struct {
			XMLName xml.Name
			Result  *result `xml:"nfeDistDFeInteresseResult"`
		} `xml:"nfeDistDFeInteresseResponse"`
	} `xml:"Body"`
}

// readAnswer takes the nfeResultMsg out of a SOAP 1.2 answer, refusing a
// DTD (no entity is ever expanded), another envelope or namespace, any
// status but 2xx (a redirect is not followed, and its body is not an
// answer), and surfacing a fault.
func readAnswer(body []byte, service string, status int) ([]byte, error) {
	if bytes.Contains(body, []byte("<!DOCTYPE")) || bytes.Contains(body, []byte("<!ENTITY")) {
		return nil, fmt.Errorf("%w: it declares a DTD", ErrAnswer)
	}
	var e envelope
	perr := xml.Unmarshal(body, &e)
	soap := perr == nil && e.XMLName.Space == soapNS && e.XMLName.Local == "Envelope" && e.Body.XMLName.Space == soapNS
	if soap && e.Body.Fault != nil {
		return nil, fmt.Errorf("%w: %s", ErrFault, Shown(e.Body.Fault.Reason))
	}
	switch {
	case status == http.StatusServiceUnavailable || status == http.StatusBadGateway || status == http.StatusGatewayTimeout:
		return nil, fmt.Errorf("%w (HTTP %d)", ErrUnavailable, status)
	case status < 200 || status > 299:
		return nil, fmt.Errorf("%w: HTTP %d", ErrAnswer, status)
	case perr != nil:
		return nil, fmt.Errorf("%w: %v (HTTP %d)", ErrAnswer, perr, status)
	case !soap:
		return nil, fmt.Errorf("%w: not a SOAP 1.2 envelope (HTTP %d)", ErrAnswer, status)
	}
	r := e.Body.Result
	if wrapped[service] != "" {
		r = nil
		if w := e.Body.Wrapped; w != nil && w.XMLName.Space == wsdlNS+service {
			r = w.Result
		}
	}
	if r == nil || r.XMLName.Space != wsdlNS+service {
		return nil, fmt.Errorf("%w: no result of %s (HTTP %d)", ErrAnswer, service, status)
	}
	return bytes.TrimSpace(r.Inner), nil
}

// Status is an authority's answer to NFeStatusServico4.
type Status struct {
	Authorizer string `json:"authorizer"`
	URL        string `json:"url"`
	Code       int    `json:"cStat"`
	Reason     string `json:"xMotivo"`
	// AverageSeconds is tMed, the authority's average answer time.
	AverageSeconds int    `json:"tMed,omitempty"`
	Received       string `json:"dhRecbto,omitempty"`
}

// retConsStatServ is what Status reads of the answer.
type retConsStatServ struct {
	XMLName xml.Name
	CStat   int    `xml:"cStat"`
	XMotivo string `xml:"xMotivo"`
	DhRecb  string `xml:"dhRecbto"`
	TMed    string `xml:"tMed"`
}

// Status asks the authority that serves the state's documents of model
// (55, 65) in env whether its service is up (NFeStatusServico4): cStat
// 107 is "Serviço em Operação". stateCode is the state's IBGE code (cUF).
func (c *Client) Status(ctx context.Context, cert certs.Certificate, model, state, stateCode, env string) (Status, error) {
	auth, err := c.Endpoints.Authorizer(model, state)
	if err != nil {
		return Status{}, err
	}
	return c.StatusOf(ctx, cert, model, auth, stateCode, env)
}

// StatusOf is Status asked of an authorizer by name (SVCAN, SVCRS: a
// state's contingency authorizer) for the state of stateCode.
func (c *Client) StatusOf(ctx context.Context, cert certs.Certificate, model, auth, stateCode, env string) (Status, error) {
	url, err := c.Endpoints.Lookup(model, auth, env, "NFeStatusServico4")
	if err != nil {
		return Status{}, err
	}
	tpAmb := "2"
	if env == Producao {
		tpAmb = "1"
	}
	msg := []byte(`<consStatServ xmlns="` + nfeNS + `" versao="4.00"><tpAmb>` + tpAmb + `</tpAmb><cUF>` + stateCode + `</cUF><xServ>STATUS</xServ></consStatServ>`)
	if err := fiscal.ValidateSchema("consStatServ", msg); err != nil {
		return Status{}, fmt.Errorf("consStatServ: %w", err)
	}
	out, err := c.call(ctx, cert, url, "NFeStatusServico4", msg)
	if err != nil {
		return Status{}, err
	}
	if err := fiscal.ValidateSchema("retConsStatServ", out); err != nil {
		return Status{}, fmt.Errorf("%w: retConsStatServ: %v", ErrAnswer, err)
	}
	var r retConsStatServ
	if err := xml.Unmarshal(out, &r); err != nil || r.XMLName.Space != nfeNS || r.XMLName.Local != "retConsStatServ" {
		return Status{}, fmt.Errorf("%w: not a retConsStatServ", ErrAnswer)
	}
	s := Status{Authorizer: auth, URL: url, Code: r.CStat, Reason: r.XMotivo, Received: r.DhRecb}
	s.AverageSeconds, _ = strconv.Atoi(r.TMed)
	return s, nil
}

// ufByCode is each state by its IBGE code, the cUF of keys and messages.
var ufByCode = map[string]string{"11": "RO", "12": "AC", "13": "AM", "14": "RR", "15": "PA", "16": "AP", "17": "TO", "21": "MA", "22": "PI",
	"23": "CE", "24": "RN", "25": "PB", "26": "PE", "27": "AL", "28": "SE", "29": "BA", "31": "MG", "32": "ES", "33": "RJ", "35": "SP",
	"41": "PR", "42": "SC", "43": "RS", "50": "MS", "51": "MT", "52": "GO", "53": "DF"}

// Situation is an authority's answer to NFeConsultaProtocolo4: a note's
// standing at the authority (cStat 100 authorized, 101 cancelled, 217
// unknown, …) and its protocol when it has one.
type Situation struct {
	Authorizer string `json:"authorizer"`
	Key        string `json:"chNFe"`
	Code       int    `json:"cStat"`
	Reason     string `json:"xMotivo"`
	Protocol   string `json:"nProt,omitempty"`
	Authorized string `json:"dhRecbto,omitempty"`
	// ProtNFe is the note's protocol as the authority keeps it, when it
	// has one.
	ProtNFe []byte `json:"-"`
	// Cancellation is the protocol of the note's cancellation event
	// (110111) the answer lists, if any; Raw the answer as it came.
	Cancellation string `json:"-"`
	Raw          []byte `json:"-"`
}

// retConsSitNFe is what Consult reads of the answer.
type retConsSitNFe struct {
	XMLName xml.Name
	CStat   int    `xml:"cStat"`
	XMotivo string `xml:"xMotivo"`
	ChNFe   string `xml:"chNFe"`
	Prot    struct {
		ChNFe    string `xml:"infProt>chNFe"`
		NProt    string `xml:"infProt>nProt"`
		DhRecbto string `xml:"infProt>dhRecbto"`
	} `xml:"protNFe"`
	Events []struct {
		Type  string `xml:"retEvento>infEvento>tpEvento"`
		Key   string `xml:"retEvento>infEvento>chNFe"`
		CStat int    `xml:"retEvento>infEvento>cStat"`
		NProt string `xml:"retEvento>infEvento>nProt"`
	} `xml:"procEventoNFe"`
}

// Consult asks the authority of a note's state and model (both read from
// its key) for its standing in env: what fincom asks before sending a note
// again, so that a lost answer never makes a second note.
func (c *Client) Consult(ctx context.Context, cert certs.Certificate, key, env string) (Situation, error) {
	if len(key) != 44 || strings.Trim(key, "0123456789") != "" {
		return Situation{}, fmt.Errorf("%q is not an access key (44 digits)", key)
	}
	auth, url, err := c.serviceOf(key, env, "NFeConsultaProtocolo4")
	if err != nil {
		return Situation{}, err
	}
	tpAmb := "2"
	if env == Producao {
		tpAmb = "1"
	}
	msg := []byte(`<consSitNFe xmlns="` + nfeNS + `" versao="4.00"><tpAmb>` + tpAmb + `</tpAmb><xServ>CONSULTAR</xServ><chNFe>` + key + `</chNFe></consSitNFe>`)
	if err := fiscal.ValidateSchema("consSitNFe", msg); err != nil {
		return Situation{}, fmt.Errorf("consSitNFe: %w", err)
	}
	out, err := c.call(ctx, cert, url, "NFeConsultaProtocolo4", msg)
	if err != nil {
		return Situation{}, err
	}
	if err := fiscal.ValidateSchema("retConsSitNFe", out); err != nil {
		return Situation{}, fmt.Errorf("%w: retConsSitNFe: %v", ErrAnswer, err)
	}
	var r retConsSitNFe
	if err := xml.Unmarshal(out, &r); err != nil || r.XMLName.Space != nfeNS || r.XMLName.Local != "retConsSitNFe" {
		return Situation{}, fmt.Errorf("%w: not a retConsSitNFe", ErrAnswer)
	}
	if r.ChNFe != key {
		return Situation{}, fmt.Errorf("%w: it answers of key %s, not %s", ErrAnswer, r.ChNFe, key)
	}
	if r.Prot.ChNFe != "" && r.Prot.ChNFe != key {
		return Situation{}, fmt.Errorf("%w: its protocol is of key %s, not %s", ErrAnswer, r.Prot.ChNFe, key)
	}
	s := Situation{Authorizer: auth, Key: key, Code: r.CStat, Reason: r.XMotivo, Protocol: r.Prot.NProt, Authorized: r.Prot.DhRecbto, Raw: out}
	for _, e := range r.Events {
		if e.Type == "110111" && e.Key == key && (e.CStat == 135 || e.CStat == 155) {
			s.Cancellation = e.NProt
		}
	}
	if r.Prot.NProt != "" {
		if s.ProtNFe, err = element(out, "protNFe", key); err != nil {
			return Situation{}, err
		}
	}
	return s, nil
}

// Voiding is a request to void (inutilizar) a range of a series' numbers
// that no note will carry: skipped, or given up after a rejection.
type Voiding struct {
	Model, State, StateCode, CNPJ string
	Year                          int // of the request, two digits are sent
	Series, From, To              int
	Reason                        string // 15 to 255 characters
}

// Voided is the authority's answer: cStat 102 (Inutilização de número
// homologado) with its protocol, or a refusal.
type Voided struct {
	Authorizer string `json:"authorizer"`
	Code       int    `json:"cStat"`
	Reason     string `json:"xMotivo"`
	Protocol   string `json:"nProt,omitempty"`
	// Raw is the answer as it came (retInutNFe), kept by the issuer.
	Raw []byte `json:"-"`
}

// retInutNFe is what Void reads of the answer.
type retInutNFe struct {
	XMLName xml.Name
	Inf     struct {
		CStat   int    `xml:"cStat"`
		XMotivo string `xml:"xMotivo"`
		NProt   string `xml:"nProt"`
		// What the voiding was of, when the authority says it (cStat
		// 102).
		Ano    string `xml:"ano"`
		CNPJ   string `xml:"CNPJ"`
		Mod    string `xml:"mod"`
		Serie  string `xml:"serie"`
		NNFIni string `xml:"nNFIni"`
		NNFFin string `xml:"nNFFin"`
	} `xml:"infInut"`
}

// ErrVoiding is a voiding request that cannot be made.
var ErrVoiding = errors.New("invalid voiding request")

// Void asks the state's authorizer to void a range of numbers
// (NFeInutilizacao4), the request signed with the unit's certificate.
func (c *Client) Void(ctx context.Context, cert certs.Certificate, v Voiding, env string) (Voided, error) {
	reason := strings.Join(strings.Fields(v.Reason), " ")
	switch {
	case v.From < 1 || v.To < v.From || v.To > 999999999:
		return Voided{}, fmt.Errorf("%w: numbers %d to %d (1 to 999999999, from not after to)", ErrVoiding, v.From, v.To)
	case v.Series < 0 || v.Series > 999:
		return Voided{}, fmt.Errorf("%w: series %d", ErrVoiding, v.Series)
	case len([]rune(reason)) < 15 || len([]rune(reason)) > 255:
		return Voided{}, fmt.Errorf("%w: the reason needs 15 to 255 characters", ErrVoiding)
	}
	auth, err := c.Endpoints.Authorizer(v.Model, v.State)
	if err != nil {
		return Voided{}, err
	}
	url, err := c.Endpoints.Lookup(v.Model, auth, env, "NFeInutilizacao4")
	if err != nil {
		return Voided{}, err
	}
	tpAmb := "2"
	if env == Producao {
		tpAmb = "1"
	}
	year := fmt.Sprintf("%02d", v.Year%100)
	id := fmt.Sprintf("ID%s%s%s%s%03d%09d%09d", v.StateCode, year, v.CNPJ, v.Model, v.Series, v.From, v.To)
	var just bytes.Buffer
	if err := xml.EscapeText(&just, []byte(reason)); err != nil {
		return Voided{}, err
	}
	msg := fmt.Sprintf(`<inutNFe xmlns="%s" versao="4.00"><infInut Id="%s"><tpAmb>%s</tpAmb><xServ>INUTILIZAR</xServ><cUF>%s</cUF>`+
		`<ano>%s</ano><CNPJ>%s</CNPJ><mod>%s</mod><serie>%d</serie><nNFIni>%d</nNFIni><nNFFin>%d</nNFFin><xJust>%s</xJust></infInut></inutNFe>`,
		nfeNS, id, tpAmb, v.StateCode, year, v.CNPJ, v.Model, v.Series, v.From, v.To, just.String())
	signed, err := fiscal.Sign([]byte(msg), id, cert)
	if err != nil {
		return Voided{}, fmt.Errorf("sign inutNFe: %w", err)
	}
	// The signer writes an XML declaration; the message goes without one.
	signed = bytes.TrimSpace(signed)
	if bytes.HasPrefix(signed, []byte("<?xml")) {
		signed = bytes.TrimSpace(signed[bytes.Index(signed, []byte("?>"))+2:])
	}
	if err := fiscal.ValidateSchema("inutNFe", signed); err != nil {
		return Voided{}, fmt.Errorf("inutNFe: %w", err)
	}
	out, err := c.call(ctx, cert, url, "NFeInutilizacao4", signed)
	if err != nil {
		return Voided{}, err
	}
	if err := fiscal.ValidateSchema("retInutNFe", out); err != nil {
		return Voided{}, fmt.Errorf("%w: retInutNFe: %v", ErrAnswer, err)
	}
	var r retInutNFe
	if err := xml.Unmarshal(out, &r); err != nil || r.XMLName.Space != nfeNS || r.XMLName.Local != "retInutNFe" {
		return Voided{}, fmt.Errorf("%w: not a retInutNFe", ErrAnswer)
	}
	// An answer about another voiding than the one asked is none.
	for _, f := range []struct{ name, got, want string }{{"ano", r.Inf.Ano, year}, {"CNPJ", r.Inf.CNPJ, v.CNPJ}, {"mod", r.Inf.Mod, v.Model},
		{"serie", r.Inf.Serie, strconv.Itoa(v.Series)}, {"nNFIni", r.Inf.NNFIni, strconv.Itoa(v.From)}, {"nNFFin", r.Inf.NNFFin, strconv.Itoa(v.To)}} {
		if f.got != "" && strings.TrimLeft(f.got, "0") != strings.TrimLeft(f.want, "0") {
			return Voided{}, fmt.Errorf("%w: it answers of %s %s, %s was asked", ErrAnswer, f.name, f.got, f.want)
		}
	}
	if r.Inf.CStat == 102 && (r.Inf.CNPJ == "" || r.Inf.NNFIni == "" || r.Inf.NNFFin == "") {
		return Voided{}, fmt.Errorf("%w: a voiding without the CNPJ and numbers it voided", ErrAnswer)
	}
	return Voided{Authorizer: auth, Code: r.Inf.CStat, Reason: r.Inf.XMotivo, Protocol: r.Inf.NProt, Raw: out}, nil
}

// Document is one document the national environment distributes to an
// interested party: a note (procNFe), a note's summary (resNFe), an event
// or its summary, still packed: Open unpacks it, so that a lot's
// documents are taken one at a time.
type Document struct {
	NSU    string `json:"nsu"`
	Schema string `json:"schema"` // the label, e.g. procNFe_v4.00.xsd: the content decides what it is
	zipped []byte
}

// Open unpacks the document, refusing one that inflates past maxDocument
// (ErrAnswer).
func (d Document) Open() ([]byte, error) {
	gz, err := gzip.NewReader(bytes.NewReader(d.zipped))
	if err != nil {
		return nil, fmt.Errorf("%w: docZip %s: %v", ErrAnswer, d.NSU, err)
	}
	doc, err := io.ReadAll(io.LimitReader(gz, maxDocument+1))
	if err != nil {
		return nil, fmt.Errorf("%w: docZip %s: %v", ErrAnswer, d.NSU, err)
	}
	if len(doc) > maxDocument {
		return nil, fmt.Errorf("%w: docZip %s inflates past %d bytes", ErrAnswer, d.NSU, maxDocument)
	}
	return doc, nil
}

// Distribution is an answer of NFeDistribuicaoDFe: cStat 138 (documents
// found), 137 (none: ask again in an hour), 656 (asked too often: wait),
// the last NSU it covered and the highest there is.
type Distribution struct {
	Code      int        `json:"cStat"`
	Reason    string     `json:"xMotivo"`
	LastNSU   string     `json:"ultNSU"`
	MaxNSU    string     `json:"maxNSU"`
	Documents []Document `json:"documents"`
}

// retDistDFeInt is what Distribute reads of the answer.
type retDistDFeInt struct {
	XMLName xml.Name
	CStat   int    `xml:"cStat"`
	XMotivo string `xml:"xMotivo"`
	UltNSU  string `xml:"ultNSU"`
	MaxNSU  string `xml:"maxNSU"`
	Docs    []struct {
		NSU    string `xml:"NSU,attr"`
		Schema string `xml:"schema,attr"`
		Data   string `xml:",chardata"`
	} `xml:"loteDistDFeInt>docZip"`
}

// maxDocument bounds an unpacked document: a gzip that inflates past it
// is refused, not read.
const maxDocument = 4 << 20

// Distribute asks the national environment (AN) for the documents of the
// CNPJ after lastNSU (NFeDistribuicaoDFe, distNSU), as the party of
// stateCode.
func (c *Client) Distribute(ctx context.Context, cert certs.Certificate, cnpj, stateCode, lastNSU, env string) (Distribution, error) {
	nsu, err := nsu15(lastNSU)
	if err != nil {
		return Distribution{}, err
	}
	return c.distribute(ctx, cert, cnpj, stateCode, `<distNSU><ultNSU>`+nsu+`</ultNSU></distNSU>`, env)
}

// DistributeOne asks the national environment for the one document of
// the CNPJ at nsu (consNSU): a document fincom did not take, asked again.
func (c *Client) DistributeOne(ctx context.Context, cert certs.Certificate, cnpj, stateCode, nsu, env string) (Distribution, error) {
	n, err := nsu15(nsu)
	if err != nil {
		return Distribution{}, err
	}
	return c.distribute(ctx, cert, cnpj, stateCode, `<consNSU><NSU>`+n+`</NSU></consNSU>`, env)
}

// nsu15 is an NSU as the messages write it: 15 digits.
func nsu15(s string) (string, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > 999999999999999 {
		return "", fmt.Errorf("NSU %q: 15 digits at most", s)
	}
	return fmt.Sprintf("%015d", n), nil
}

func (c *Client) distribute(ctx context.Context, cert certs.Certificate, cnpj, stateCode, query, env string) (Distribution, error) {
	url, err := c.Endpoints.Lookup("55", "AN", env, "NFeDistribuicaoDFe")
	if err != nil {
		return Distribution{}, err
	}
	tpAmb := "2"
	if env == Producao {
		tpAmb = "1"
	}
	msg := []byte(`<distDFeInt xmlns="` + nfeNS + `" versao="1.01"><tpAmb>` + tpAmb + `</tpAmb><cUFAutor>` + stateCode + `</cUFAutor><CNPJ>` + cnpj +
		`</CNPJ>` + query + `</distDFeInt>`)
	if err := fiscal.ValidateSchema("distDFeInt", msg); err != nil {
		return Distribution{}, fmt.Errorf("distDFeInt: %w", err)
	}
	out, err := c.call(ctx, cert, url, "NFeDistribuicaoDFe", msg)
	if err != nil {
		return Distribution{}, err
	}
	if err := fiscal.ValidateSchema("retDistDFeInt", out); err != nil {
		return Distribution{}, fmt.Errorf("%w: retDistDFeInt: %v", ErrAnswer, err)
	}
	var r retDistDFeInt
	if err := xml.Unmarshal(out, &r); err != nil || r.XMLName.Space != nfeNS || r.XMLName.Local != "retDistDFeInt" {
		return Distribution{}, fmt.Errorf("%w: not a retDistDFeInt", ErrAnswer)
	}
	d := Distribution{Code: r.CStat, Reason: r.XMotivo, LastNSU: r.UltNSU, MaxNSU: r.MaxNSU, Documents: []Document{}}
	for _, z := range r.Docs {
		raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(z.Data), ""))
		if err != nil {
			return Distribution{}, fmt.Errorf("%w: docZip %s: %v", ErrAnswer, z.NSU, err)
		}
		d.Documents = append(d.Documents, Document{NSU: z.NSU, Schema: z.Schema, zipped: raw})
	}
	return d, nil
}

// maxShown bounds the characters of an authority's own text (a fault's
// reason) that fincom shows.
const maxShown = 300

// Shown is an authority's own text as fincom shows it to an operator:
// blanks folded, control and direction-override characters (which could
// hide or reorder what is read) dropped, cut to maxShown characters.
func Shown(s string) string {
	var b strings.Builder
	n := 0
	for _, f := range strings.Fields(s) {
		if n > 0 {
			b.WriteByte(' ')
			n++
		}
		for _, r := range f {
			if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == utf8.RuneError {
				continue
			}
			if n >= maxShown {
				return b.String() + "…"
			}
			b.WriteRune(r)
			n++
		}
	}
	return b.String()
}
