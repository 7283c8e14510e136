// Package nfsen speaks to the national NFS-e system (Sefin Nacional) as
// its REST interface defines it: JSON over mutual TLS with the provider's
// A1 certificate, the signed DPS and events sent as gzip+base64, the
// national system's signed NFS-e and events answered the same way. Every
// document is held to its official schema before it leaves and after it
// arrives; the returned note's signature is checked. Authority makes it
// fiscal's authority for national NFS-e.
package nfsen

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/server/fiscal/sefaz"
)

// Client calls the national system of the environment a call names
// (sefaz.Homologacao: produção restrita; sefaz.Producao), at the "sefin"
// address of Endpoints, trusting Roots (certs.TrustPool).
type Client struct {
	Endpoints *sefaz.Endpoints
	Roots     *x509.CertPool
	// Timeout bounds one call (30 s when 0).
	Timeout time.Duration
	// Now is the clock the returned notes' signers are checked at
	// (time.Now when nil).
	Now func() time.Time
	// clients keeps a connection to each authority per certificate.
	clients certs.Clients
}

// Errors of a call.
var (
	// ErrAnswer is an answer that is not the system's: not JSON, too
	// large, a document invalid by its schema, unsigned, signed by a
	// certificate out of its validity (or a test one in production), or
	// of another note.
	ErrAnswer = errors.New("the national NFS-e system's answer is not one")
	// ErrUnavailable is a system that says it cannot answer now (HTTP
	// 502, 503, 504 without an answer of its own).
	ErrUnavailable = errors.New("the national NFS-e system is unavailable")
	// ErrMessage is a document fincom would not send (invalid by its
	// schema): nothing left.
	ErrMessage = errors.New("the document for the national NFS-e system is invalid")
)

// Problem is one of the system's reasons to refuse (erros[]).
type Problem struct {
	Code        string `json:"codigo"`
	Description string `json:"descricao"`
	Complement  string `json:"complemento,omitempty"`
}

// Refusal is the system's refusal of a request, with its reasons.
type Refusal struct {
	Status   int
	Problems []Problem
}

func (r *Refusal) Error() string {
	if len(r.Problems) == 0 {
		return fmt.Sprintf("refused (HTTP %d)", r.Status)
	}
	var parts []string
	for _, p := range r.Problems {
		s := p.Code + ": " + p.Description
		if p.Complement != "" {
			s += " (" + p.Complement + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// Code is the first reason's number (E0312 is 312), for the invoice's
// rejection code.
func (r *Refusal) Code() int {
	n := 0
	if len(r.Problems) > 0 {
		for _, c := range r.Problems[0].Code {
			if c >= '0' && c <= '9' {
				n = n*10 + int(c-'0')
			}
		}
	}
	return n
}

const (
	// maxAnswer bounds what the system may answer, and a document once
	// unpacked.
	maxAnswer = 4 << 20
	nfseNS    = "http://www.sped.fazenda.gov.br/nfse"
)

// answer is every field the system answers, by operation.
type answer struct {
	Environment int       `json:"tipoAmbiente"`
	Version     string    `json:"versaoAplicativo"`
	Processed   string    `json:"dataHoraProcessamento"`
	DPSID       string    `json:"idDps"`
	Key         string    `json:"chaveAcesso"`
	NFSe        string    `json:"nfseXmlGZipB64"`
	Event       string    `json:"eventoXmlGZipB64"`
	Errors      []Problem `json:"erros"`
}

// call sends a JSON body (nil: a GET) to path of the environment's Sefin
// address and answers the system's answer: a *Refusal when it refuses.
func (c *Client) call(ctx context.Context, cert certs.Certificate, env, method, path string, body any) (answer, error) {
	base, err := c.base(env)
	if err != nil {
		return answer{}, err
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.clients.Get(cert, c.Roots, timeout).Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return answer{}, err
	}
	if len(raw) > maxAnswer {
		return answer{}, fmt.Errorf("%w: larger than %d bytes", ErrAnswer, maxAnswer)
	}
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		switch resp.StatusCode {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return answer{}, fmt.Errorf("%w (HTTP %d)", ErrUnavailable, resp.StatusCode)
		}
		return answer{}, fmt.Errorf("%w: %v (HTTP %d)", ErrAnswer, err, resp.StatusCode)
	}
	if len(a.Errors) > 0 || resp.StatusCode >= 300 {
		if len(a.Errors) == 0 && resp.StatusCode >= 500 {
			return answer{}, fmt.Errorf("%w (HTTP %d)", ErrUnavailable, resp.StatusCode)
		}
		return a, &Refusal{Status: resp.StatusCode, Problems: a.Errors}
	}
	return a, nil
}

// base is the environment's Sefin Nacional address.
func (c *Client) base(env string) (string, error) {
	if env != sefaz.Homologacao && env != sefaz.Producao {
		return "", sefaz.ErrBadEnvironment
	}
	u := c.Endpoints.NFSe[env]["sefin"]
	if u == "" {
		return "", fmt.Errorf("nfse %s sefin: %w", env, sefaz.ErrNoEndpoint)
	}
	return strings.TrimRight(u, "/"), nil
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Issued is a note the system issued from a DPS.
type Issued struct {
	Key   string
	DPSID string
	// NFSe is the note signed by the system, the DPS inside it.
	NFSe []byte
	// Number is the note's number in the national register (nDFSe), its
	// protocol.
	Number    string
	Processed string
}

var (
	keyPattern = regexp.MustCompile(`^[0-9]{50}$`)
	dpsPattern = regexp.MustCompile(`^DPS[0-9]{42}$`)
	dpsIDAttr  = regexp.MustCompile(`<infDPS[^>]*\sId="(DPS[0-9]{42})"`)
)

// Issue sends a signed DPS (POST /nfse) and answers the note the system
// issued from it, or its *Refusal.
func (c *Client) Issue(ctx context.Context, cert certs.Certificate, dps []byte, env string) (Issued, error) {
	if err := fiscal.ValidateSchema("DPS", dps); err != nil {
		return Issued{}, fmt.Errorf("%w: DPS: %v", ErrMessage, err)
	}
	m := dpsIDAttr.FindSubmatch(dps)
	if m == nil {
		return Issued{}, fmt.Errorf("%w: the DPS has no Id", ErrMessage)
	}
	id := string(m[1])
	packed, err := pack(dps)
	if err != nil {
		return Issued{}, err
	}
	a, err := c.call(ctx, cert, env, http.MethodPost, "/nfse", map[string]string{"dpsXmlGZipB64": packed})
	if err != nil {
		return Issued{}, err
	}
	return c.note(a, id, env, cert)
}

// Find asks whether a DPS already became a note (GET /dps/{id}), the
// answer to a lost reply: its key when it did.
func (c *Client) Find(ctx context.Context, cert certs.Certificate, dpsID, env string) (string, bool, error) {
	if !dpsPattern.MatchString(dpsID) {
		return "", false, fmt.Errorf("%w: %q is not a DPS Id", ErrMessage, dpsID)
	}
	a, err := c.call(ctx, cert, env, http.MethodGet, "/dps/"+dpsID, nil)
	var r *Refusal
	if errors.As(err, &r) && r.Status == http.StatusNotFound {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if !fiscal.ValidNationalKey(a.Key) {
		return "", false, fmt.Errorf("%w: no access key for %s", ErrAnswer, dpsID)
	}
	return a.Key, true, nil
}

// Note fetches the note of a key (GET /nfse/{key}) issued from the DPS
// dpsID.
func (c *Client) Note(ctx context.Context, cert certs.Certificate, key, dpsID, env string) (Issued, error) {
	if !keyPattern.MatchString(key) {
		return Issued{}, fmt.Errorf("%w: %q is not an NFS-e key", ErrMessage, key)
	}
	a, err := c.call(ctx, cert, env, http.MethodGet, "/nfse/"+key, nil)
	if err != nil {
		return Issued{}, err
	}
	if a.Key == "" {
		a.Key = key
	}
	if a.Key != key {
		return Issued{}, fmt.Errorf("%w: the note of key %s answered for %s", ErrAnswer, a.Key, key)
	}
	return c.note(a, dpsID, env, cert)
}

// note reads the system's note: a key, a document valid by the NFSe
// schema, signed by the system over infNFSe (Id NFS+key) with a
// certificate valid now (and not a test one in production), carrying the
// DPS dpsID.
func (c *Client) note(a answer, dpsID, env string, cert certs.Certificate) (Issued, error) {
	if !fiscal.ValidNationalKey(a.Key) {
		return Issued{}, fmt.Errorf("%w: the access key %q", ErrAnswer, a.Key)
	}
	doc, err := unpack(a.NFSe)
	if err != nil {
		return Issued{}, err
	}
	if err := fiscal.ValidateSchema("NFSe", doc); err != nil {
		return Issued{}, fmt.Errorf("%w: NFSe: %v", ErrAnswer, err)
	}
	if err := c.checkSigner(doc, "NFS"+a.Key, env, cert); err != nil {
		return Issued{}, err
	}
	m := dpsIDAttr.FindSubmatch(doc)
	if m == nil || string(m[1]) != dpsID {
		return Issued{}, fmt.Errorf("%w: the note does not carry the DPS %s", ErrAnswer, dpsID)
	}
	var n struct {
		Number string `xml:"infNFSe>nDFSe"`
	}
	if err := xml.Unmarshal(doc, &n); err != nil {
		return Issued{}, fmt.Errorf("%w: %v", ErrAnswer, err)
	}
	return Issued{Key: a.Key, DPSID: dpsID, NFSe: doc, Number: n.Number, Processed: a.Processed}, nil
}

// checkSigner verifies a document's signature over the element id, by a
// certificate that is not the caller's own (the system signs what it
// issues), valid now; in production a test certificate is refused.
func (c *Client) checkSigner(doc []byte, id, env string, caller certs.Certificate) error {
	signer, err := fiscal.Verify(doc, id)
	if err != nil {
		return fmt.Errorf("%w: the signature of %s: %v", ErrAnswer, id, err)
	}
	if caller.Cert != nil && bytes.Equal(signer.Raw, caller.Cert.Raw) {
		return fmt.Errorf("%w: %s is signed by its own provider, not by the system", ErrAnswer, id)
	}
	now := c.now()
	if now.Before(signer.NotBefore) || now.After(signer.NotAfter) {
		return fmt.Errorf("%w: %s is signed by a certificate out of its validity", ErrAnswer, id)
	}
	if env == sefaz.Producao && certs.IsTest(signer) {
		return fmt.Errorf("%w: %s is signed by a test certificate", ErrAnswer, id)
	}
	return nil
}

// Cancellation is a provider's request to cancel one of its notes.
type Cancellation struct {
	Key    string
	Author string // the provider's CNPJ or CPF
	Code   string // fiscal.CancelIssueError, CancelNotRendered, CancelOther
	Reason string // 15 to 255 characters
	At     time.Time
}

// Registered is an event the system registered: its document and its
// number in the national register (nDFe).
type Registered struct {
	XML    []byte
	Number string
}

// Cancel signs and sends the cancellation event e101101 (POST
// /nfse/{key}/eventos) and answers the event the system registered, or
// its *Refusal.
func (c *Client) Cancel(ctx context.Context, cert certs.Certificate, x Cancellation, env string) (Registered, error) {
	if !keyPattern.MatchString(x.Key) {
		return Registered{}, fmt.Errorf("%w: %q is not an NFS-e key", ErrMessage, x.Key)
	}
	doc, err := fiscal.BuildCancelRequest(x.Key, x.Author, env == sefaz.Producao, x.Code, x.Reason, x.At)
	if err != nil {
		return Registered{}, err
	}
	id := fiscal.CancelRequestID(x.Key)
	signed, err := fiscal.Sign(doc, id, cert)
	if err != nil {
		return Registered{}, fmt.Errorf("sign the cancellation: %w", err)
	}
	if err := fiscal.ValidateSchema("pedRegEvento", signed); err != nil {
		return Registered{}, fmt.Errorf("%w: pedRegEvento: %v", ErrMessage, err)
	}
	packed, err := pack(signed)
	if err != nil {
		return Registered{}, err
	}
	a, err := c.call(ctx, cert, env, http.MethodPost, "/nfse/"+x.Key+"/eventos", map[string]string{"pedidoRegistroEventoXmlGZipB64": packed})
	if err != nil {
		return Registered{}, err
	}
	return c.registered(a, x.Key, env, cert)
}

// CancellationOf asks the system for a note's cancellation event (GET
// /nfse/{key}/eventos/e101101/1), the answer to a cancellation whose
// reply was lost: ok false when the system has none.
func (c *Client) CancellationOf(ctx context.Context, cert certs.Certificate, key, env string) (Registered, bool, error) {
	if !keyPattern.MatchString(key) {
		return Registered{}, false, fmt.Errorf("%w: %q is not an NFS-e key", ErrMessage, key)
	}
	a, err := c.call(ctx, cert, env, http.MethodGet, "/nfse/"+key+"/eventos/e101101/1", nil)
	var r *Refusal
	if errors.As(err, &r) && r.Status == http.StatusNotFound {
		return Registered{}, false, nil
	}
	if err != nil {
		return Registered{}, false, err
	}
	ev, err := c.registered(a, key, env, cert)
	return ev, err == nil, err
}

// registered reads the system's event of the note of key: valid by its
// schema, of that note, signed by the system.
func (c *Client) registered(a answer, key, env string, cert certs.Certificate) (Registered, error) {
	ev, err := unpack(a.Event)
	if err != nil {
		return Registered{}, err
	}
	if err := fiscal.ValidateSchema("evento", ev); err != nil {
		return Registered{}, fmt.Errorf("%w: evento: %v", ErrAnswer, err)
	}
	var e struct {
		Inf struct {
			ID     string `xml:"Id,attr"`
			Number string `xml:"nDFe"`
			Key    string `xml:"pedRegEvento>infPedReg>chNFSe"`
		} `xml:"infEvento"`
	}
	if err := xml.Unmarshal(ev, &e); err != nil {
		return Registered{}, fmt.Errorf("%w: %v", ErrAnswer, err)
	}
	if e.Inf.Key != key {
		return Registered{}, fmt.Errorf("%w: the event is of the note %s", ErrAnswer, e.Inf.Key)
	}
	if err := c.checkSigner(ev, e.Inf.ID, env, cert); err != nil {
		return Registered{}, err
	}
	return Registered{XML: ev, Number: e.Inf.Number}, nil
}

// Status checks that the environment's system answers this certificate:
// it asks for a note that cannot exist (key of zeros) and expects the
// system's own refusal, and answers the system's version.
func (c *Client) Status(ctx context.Context, cert certs.Certificate, env string) (string, error) {
	a, err := c.call(ctx, cert, env, http.MethodGet, "/nfse/"+strings.Repeat("0", 50), nil)
	var r *Refusal
	if err == nil || errors.As(err, &r) {
		return a.Version, nil
	}
	return "", err
}

// pack is a document as the system takes it: gzip, then base64.
func pack(doc []byte) (string, error) {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(doc); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), nil
}

// unpack reads a gzip+base64 document of the system, bounded, refusing a
// DTD (no entity is ever expanded).
func unpack(s string) ([]byte, error) {
	if s == "" {
		return nil, fmt.Errorf("%w: no document", ErrAnswer)
	}
	z, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: base64: %v", ErrAnswer, err)
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("%w: gzip: %v", ErrAnswer, err)
	}
	doc, err := io.ReadAll(io.LimitReader(r, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("%w: gzip: %v", ErrAnswer, err)
	}
	if len(doc) > maxAnswer {
		return nil, fmt.Errorf("%w: a document larger than %d bytes", ErrAnswer, maxAnswer)
	}
	if bytes.Contains(doc, []byte("<!DOCTYPE")) || bytes.Contains(doc, []byte("<!ENTITY")) {
		return nil, fmt.Errorf("%w: it declares a DTD", ErrAnswer)
	}
	return doc, nil
}

// ErrNoDANFSe is a note the ADN has no DANFSe of (404).
var ErrNoDANFSe = errors.New("the national NFS-e system has no DANFSe of the note")

// DANFSe fetches the official DANFSe of the note of key from the
// environment's ADN (GET {adn}/danfse/{key}, mutual TLS with the
// provider's certificate): a PDF of at most maxAnswer bytes, anything
// else ErrAnswer.
func (c *Client) DANFSe(ctx context.Context, cert certs.Certificate, key, env string) ([]byte, error) {
	if !fiscal.ValidNationalKey(key) {
		return nil, fmt.Errorf("%w: %q is not a national NFS-e key", ErrMessage, key)
	}
	if env != sefaz.Homologacao && env != sefaz.Producao {
		return nil, sefaz.ErrBadEnvironment
	}
	base := strings.TrimRight(c.Endpoints.NFSe[env]["adn"], "/")
	if base == "" {
		return nil, fmt.Errorf("nfse %s adn: %w", env, sefaz.ErrNoEndpoint)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/danfse/"+key, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/pdf")
	resp, err := c.clients.Get(cert, c.Roots, timeout).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, ErrNoDANFSe
	case resp.StatusCode >= 500:
		return nil, fmt.Errorf("%w (HTTP %d)", ErrUnavailable, resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%w: HTTP %d", ErrAnswer, resp.StatusCode)
	}
	pdf, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, err
	}
	if len(pdf) > maxAnswer || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		return nil, fmt.Errorf("%w: the DANFSe is not a PDF of at most %d bytes", ErrAnswer, maxAnswer)
	}
	return pdf, nil
}
