// Package local is a national NFS-e system of fincom's own, on a
// loopback address: it speaks Sefin Nacional's REST interface over mutual
// TLS (POST /nfse, GET /nfse/{key}, GET and HEAD /dps/{id}, POST
// /nfse/{key}/eventos), holds every DPS and event to its official schema,
// checks their signatures and that the certificate is the provider's,
// numbers the notes per provider and signs them with a test certificate
// of its own. It is produção restrita only (tpAmb 2). The nfsen client
// reaches it through the same code that reaches the national system; the
// tests use it, never a production server (it issues nothing outside its
// own memory).
//
// Its refusals carry the system's shape (erros[].codigo, descricao); the
// codes are its own, but E2401 (no note of that key), which the national
// system's documentation states.
package local

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/fiscal"
)

// The refusals' codes.
const (
	CodeNotFound  = "E2401" // no note of that key (the system's)
	CodeSchema    = "E1235" // the document is invalid by its schema
	CodeSignature = "E0714" // the signature does not verify
	CodeCert      = "E0715" // the certificate is not the provider's or out of its validity
	CodeDuplicate = "E0014" // the DPS was already issued
	CodeEnv       = "E0004" // a production document sent to produção restrita
	CodeCancelled = "E0840" // the note is cancelled already
	CodeMessage   = "E0001" // the request is not JSON, base64 or gzip
)

// System is the local national system. Its zero value issues every valid
// DPS at once.
type System struct {
	// Now is its clock (time.Now when nil).
	Now func() time.Time
	// Providers are the registered providers' data (name, address) by
	// CNPJ or CPF; a provider not there gets its certificate's name and
	// its municipality.
	Providers map[string]fiscal.Party
	// Arrived, when set, is told of each request ("POST /nfse", "GET
	// /dps", …) before it is processed.
	Arrived func(call string)
	// Answering, when set, is told of each request once processed, before
	// its answer leaves (a sender killed then never hears of it).
	Answering func(call string)

	mu        sync.Mutex
	signer    certs.Certificate
	notes     map[string]*note  // by key
	byDPS     map[string]string // DPS Id -> key
	numbers   map[string]int    // provider -> last note number
	drop      int
	reject    *fiscal.Rejection
	offline   bool
	noDANFSe  bool
	tamper    func(status int, body []byte) (int, []byte)
	received  []string
	cancelled int
}

type note struct {
	dps       string
	provider  string
	doc       []byte
	cancelled bool
	// substitutedBy is the key of the note that replaced it (e105102).
	substitutedBy string
	// cancellation is its cancellation event (e101101) as registered.
	cancellation []byte
}

// DropReplies makes it process the next n requests and close the
// connection without answering, as a timeout after sending would.
func (s *System) DropReplies(n int) { s.mu.Lock(); s.drop = n; s.mu.Unlock() }

// RejectNext refuses the next DPS with a code of its own and reason.
func (s *System) RejectNext(code int, reason string) {
	s.mu.Lock()
	s.reject = &fiscal.Rejection{Code: code, Reason: reason}
	s.mu.Unlock()
}

// ClearRejection forgets a rejection RejectNext armed and no note met.
func (s *System) ClearRejection() {
	s.mu.Lock()
	s.reject = nil
	s.mu.Unlock()
}

// TamperNext processes the next request as always and answers what f
// makes of its answer (status and JSON body): a hostile or broken answer.
func (s *System) TamperNext(f func(status int, body []byte) (int, []byte)) {
	s.mu.Lock()
	s.tamper = f
	s.mu.Unlock()
}

// SetDANFSe makes its ADN serve each note's DANFSe (true, as it starts)
// or answer 404 for it, as the ADN does for a note it has none of.
func (s *System) SetDANFSe(serve bool) { s.mu.Lock(); s.noDANFSe = !serve; s.mu.Unlock() }

// SetOffline makes it answer 503 to every request, or answer again.
func (s *System) SetOffline(off bool) { s.mu.Lock(); s.offline = off; s.mu.Unlock() }

// Issued counts the notes it issued.
func (s *System) Issued() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.notes) }

// SubstitutedBy answers the key of the note that replaced the note of
// key, if one did.
func (s *System) SubstitutedBy(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.notes[key]; n != nil {
		return n.substitutedBy
	}
	return ""
}

// Cancelled counts the cancellations it registered.
func (s *System) Cancelled() int { s.mu.Lock(); defer s.mu.Unlock(); return s.cancelled }

// Received lists the calls made to it, in order.
func (s *System) Received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.received...)
}

func (s *System) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

var (
	keyPath = regexp.MustCompile(`^/nfse/([0-9]{50})$`)
	evPath  = regexp.MustCompile(`^/nfse/([0-9]{50})/eventos$`)
	dpsPath = regexp.MustCompile(`^/dps/(DPS[0-9]{42})$`)
	// danfsePath is the ADN's DANFSe of a note.
	danfsePath = regexp.MustCompile(`^/danfse/([0-9]{50})$`)
	// cancelPath is a note's cancellation event.
	cancelPath = regexp.MustCompile(`^/nfse/([0-9]{50})/eventos/e101101/1$`)
)

// ServeHTTP answers one request of a client with a certificate; paths
// may carry the /SefinNacional prefix of the system's address.
func (s *System) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/SefinNacional"), "/adn")
	call := r.Method + " " + path
	switch {
	case danfsePath.MatchString(path):
		call = r.Method + " /danfse"
	case cancelPath.MatchString(path):
		call = r.Method + " /nfse/eventos/e101101"
	case keyPath.MatchString(path):
		call = r.Method + " /nfse"
	case evPath.MatchString(path):
		call = r.Method + " /nfse/eventos"
	case dpsPath.MatchString(path):
		call = r.Method + " /dps"
	}
	if s.Arrived != nil {
		s.Arrived(call)
	}
	s.mu.Lock()
	s.received = append(s.received, call)
	offline := s.offline
	s.mu.Unlock()
	if offline {
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		return
	}
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		http.Error(w, "a client certificate is required", http.StatusForbidden)
		return
	}
	client := r.TLS.PeerCertificates[0]
	now := s.now()
	if m := danfsePath.FindStringSubmatch(path); m != nil && r.Method == http.MethodGet {
		s.danfse(w, m[1])
		return
	}
	var status int
	var out map[string]any
	switch m := r.Method; {
	case m == http.MethodPost && path == "/nfse":
		status, out = s.issue(r.Body, client.Raw, now)
	case m == http.MethodGet && keyPath.MatchString(path):
		status, out = s.get(keyPath.FindStringSubmatch(path)[1], now)
	case (m == http.MethodGet || m == http.MethodHead) && dpsPath.MatchString(path):
		status, out = s.find(dpsPath.FindStringSubmatch(path)[1], now)
	case m == http.MethodGet && cancelPath.MatchString(path):
		status, out = s.cancellationOf(cancelPath.FindStringSubmatch(path)[1], now)
	case m == http.MethodPost && evPath.MatchString(path):
		status, out = s.event(evPath.FindStringSubmatch(path)[1], r.Body, client.Raw, now)
	default:
		status, out = refusal(http.StatusNotFound, now, "E0000", "Recurso não encontrado.")
	}
	s.mu.Lock()
	drop := s.drop > 0
	if drop {
		s.drop--
	}
	tamper := s.tamper
	s.tamper = nil
	s.mu.Unlock()
	if s.Answering != nil {
		s.Answering(call)
	}
	if drop {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	out["tipoAmbiente"], out["versaoAplicativo"] = 2, "fincom-local-1.00"
	if tamper != nil {
		b, _ := json.Marshal(out)
		status, b = tamper(status, b)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		json.NewEncoder(w).Encode(out)
	}
}

func refusal(status int, now time.Time, code, desc string) (int, map[string]any) {
	return status, map[string]any{"dataHoraProcessamento": dh(now), "erros": []map[string]string{{"codigo": code, "descricao": desc}}}
}

func dh(t time.Time) string { return t.In(brt).Format("2006-01-02T15:04:05-07:00") }

var brt = time.FixedZone("BRT", -3*3600)

// read takes a document out of a JSON body's field: base64 of gzip,
// bounded, without a DTD.
func read(body io.Reader, field string) ([]byte, error) {
	var in map[string]string
	if err := json.NewDecoder(io.LimitReader(body, 4<<20)).Decode(&in); err != nil {
		return nil, err
	}
	z, err := base64.StdEncoding.DecodeString(in[field])
	if err != nil {
		return nil, err
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, err
	}
	doc, err := io.ReadAll(io.LimitReader(r, 4<<20))
	if err != nil {
		return nil, err
	}
	if bytes.Contains(doc, []byte("<!DOCTYPE")) {
		return nil, errors.New("a DTD")
	}
	return doc, nil
}

func pack(doc []byte) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(doc)
	w.Close()
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// checkSigned holds a document to its schema and its signature over id
// to a certificate of register valid now, and that it came with the
// client certificate the caller presented.
func checkSigned(doc []byte, root, id, register string, client []byte, now time.Time) (code, desc string) {
	if err := fiscal.ValidateSchema(root, doc); err != nil {
		return CodeSchema, "Falha no schema XML: " + err.Error()
	}
	cert, err := fiscal.Verify(doc, id)
	if err != nil {
		return CodeSignature, "Assinatura digital inválida."
	}
	if !bytes.Equal(cert.Raw, client) {
		return CodeCert, "O certificado da assinatura difere do certificado da conexão."
	}
	if err := certs.Check(cert, register, now); err != nil {
		return CodeCert, "Certificado inválido para o autor do documento: " + err.Error()
	}
	return "", ""
}

func (s *System) issue(body io.Reader, client []byte, now time.Time) (int, map[string]any) {
	doc, err := read(body, "dpsXmlGZipB64")
	if err != nil {
		return refusal(http.StatusBadRequest, now, CodeMessage, "Requisição inválida: "+err.Error())
	}
	var d fiscal.DPS
	if err := xml.Unmarshal(doc, &d); err != nil {
		return refusal(http.StatusBadRequest, now, CodeSchema, "Falha no schema XML: "+err.Error())
	}
	in := d.Inf
	register := in.Prest.CNPJ + in.Prest.CPF
	if code, desc := checkSigned(doc, "DPS", in.ID, register, client, now); code != "" {
		return refusal(http.StatusBadRequest, now, code, desc)
	}
	if in.TpAmb != fiscal.Homologation {
		return refusal(http.StatusBadRequest, now, CodeEnv, "Ambiente de produção restrita: tpAmb deve ser 2.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if rj := s.reject; rj != nil {
		s.reject = nil
		return refusal(http.StatusBadRequest, now, "E"+pad4(rj.Code), rj.Reason)
	}
	if key, ok := s.byDPS[in.ID]; ok {
		return refusal(http.StatusBadRequest, now, CodeDuplicate, "DPS já utilizada para a NFS-e de chave "+key+".")
	}
	var replaced *note
	if sub := in.Subst; sub != nil {
		// A DPS replacing a note names one of the provider's valid notes;
		// the system cancels it itself once the new one is issued.
		replaced = s.notes[sub.ChSubstda]
		switch {
		case replaced == nil || replaced.provider != register:
			return refusal(http.StatusBadRequest, now, CodeNotFound, "NFS-e substituída não encontrada para o prestador.")
		case replaced.cancelled:
			return refusal(http.StatusBadRequest, now, CodeCancelled, "A NFS-e substituída está cancelada.")
		}
	}
	if err := s.sign(now); err != nil {
		return refusal(http.StatusInternalServerError, now, "E9999", err.Error())
	}
	if s.numbers == nil {
		s.numbers, s.notes, s.byDPS = map[string]int{}, map[string]*note{}, map[string]string{}
	}
	s.numbers[register]++
	n := s.numbers[register]
	inv := s.invoice(d, register, n, now)
	key := fiscal.NationalKeyOf(in.CLocEmi, fiscal.Homologation, register, n, now.In(brt), fiscal.RandomCode("local:"+in.ID, 9))
	nfse, err := fiscal.BuildNFSe(inv, key, doc, fiscal.Authorization{Protocol: strconv.Itoa(len(s.notes) + 1), At: now})
	if err == nil {
		nfse, err = fiscal.Sign(nfse, "NFS"+key, s.signer)
	}
	if err != nil {
		return refusal(http.StatusInternalServerError, now, "E9999", err.Error())
	}
	s.notes[key], s.byDPS[in.ID] = &note{dps: in.ID, provider: register, doc: nfse}, key
	if replaced != nil {
		// e105102: cancelled by substitution.
		replaced.cancelled, replaced.substitutedBy = true, key
	}
	return http.StatusCreated, map[string]any{"dataHoraProcessamento": dh(now), "idDps": in.ID, "chaveAcesso": key,
		"nfseXmlGZipB64": pack(nfse)}
}

// sign makes the system's own test certificate, the first time it signs;
// the caller holds s.mu.
func (s *System) sign(now time.Time) error {
	if s.signer.Cert != nil {
		return nil
	}
	c, err := certs.TestCertificate("SISTEMA NACIONAL NFS-E LOCAL", "00394460005887", now.AddDate(-1, 0, 0))
	s.signer = c
	return err
}

// invoice is what the system knows of a DPS's note: the DPS, and the
// provider's register.
func (s *System) invoice(d fiscal.DPS, register string, n int, now time.Time) fiscal.Invoice {
	in := d.Inf
	p, ok := s.Providers[register]
	if !ok {
		p = fiscal.Party{Name: "PRESTADOR " + register, Address: "Endereço do cadastro", Number: "S/N", Neighborhood: "Centro",
			Zip: "00000000"}
	}
	p.Register, p.CityIBGE, p.IM = register, in.CLocEmi, in.Prest.IM
	if m, ok := brdoc.LookupIBGE(in.CLocEmi); ok {
		p.City, p.State = m.Name, m.State
	}
	gross, _ := decimal.NewFromString(in.Valores.VServ)
	rate, _ := decimal.NewFromString(in.Valores.Trib.PAliq)
	if in.Valores.Trib.PAliq == "" {
		rate = decimal.NewFromInt(5) // the local system's municipalities all charge 5%
	}
	var withheld decimal.Decimal
	if f := in.Valores.Trib.TribFed; f != nil {
		for _, v := range []string{f.VRetCP, f.VRetIRRF, f.VRetCSLL} {
			x, _ := decimal.NewFromString(v)
			withheld = withheld.Add(x)
		}
		if pc := f.PisCofins; pc != nil {
			for _, v := range []string{pc.VPis, pc.VCofins} {
				x, _ := decimal.NewFromString(v)
				withheld = withheld.Add(x)
			}
		}
	}
	return fiscal.Invoice{Kind: fiscal.NFSeN, Number: n, Issued: now, Emitter: p,
		Service: fiscal.Service{Location: in.Serv.CLocPrestacao, Description: in.Serv.XDescServ, Gross: gross, ISSRate: rate,
			Retentions: withheld, Net: gross.Sub(withheld)}}
}

func (s *System) get(key string, now time.Time) (int, map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.notes[key]
	if !ok {
		return refusal(http.StatusNotFound, now, CodeNotFound, "Chave de acesso não encontrada.")
	}
	return http.StatusOK, map[string]any{"dataHoraProcessamento": dh(now), "chaveAcesso": key, "nfseXmlGZipB64": pack(n.doc)}
}

func (s *System) find(id string, now time.Time) (int, map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key, ok := s.byDPS[id]
	if !ok {
		return refusal(http.StatusNotFound, now, CodeNotFound, "DPS não encontrada.")
	}
	return http.StatusOK, map[string]any{"dataHoraProcessamento": dh(now), "idDps": id, "chaveAcesso": key}
}

// pedRegEvento is what the system reads of a request to register an
// event.
type pedRegEvento struct {
	Inf struct {
		ID     string `xml:"Id,attr"`
		TpAmb  int    `xml:"tpAmb"`
		CNPJ   string `xml:"CNPJAutor"`
		CPF    string `xml:"CPFAutor"`
		Key    string `xml:"chNFSe"`
		Cancel *struct {
			Reason string `xml:"xMotivo"`
		} `xml:"e101101"`
	} `xml:"infPedReg"`
}

func (s *System) event(key string, body io.Reader, client []byte, now time.Time) (int, map[string]any) {
	doc, err := read(body, "pedidoRegistroEventoXmlGZipB64")
	if err != nil {
		return refusal(http.StatusBadRequest, now, CodeMessage, "Requisição inválida: "+err.Error())
	}
	var p pedRegEvento
	if err := xml.Unmarshal(doc, &p); err != nil {
		return refusal(http.StatusBadRequest, now, CodeSchema, "Falha no schema XML: "+err.Error())
	}
	author := p.Inf.CNPJ + p.Inf.CPF
	if code, desc := checkSigned(doc, "pedRegEvento", p.Inf.ID, author, client, now); code != "" {
		return refusal(http.StatusBadRequest, now, code, desc)
	}
	if p.Inf.TpAmb != fiscal.Homologation {
		return refusal(http.StatusBadRequest, now, CodeEnv, "Ambiente de produção restrita: tpAmb deve ser 2.")
	}
	if p.Inf.Cancel == nil {
		return refusal(http.StatusBadRequest, now, "E0001", "Evento não suportado.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.notes[key]
	switch {
	case !ok || p.Inf.Key != key:
		return refusal(http.StatusNotFound, now, CodeNotFound, "Chave de acesso não encontrada.")
	case n.provider != author:
		return refusal(http.StatusBadRequest, now, CodeCert, "O autor do evento não é o emitente da NFS-e.")
	case n.cancelled:
		return refusal(http.StatusBadRequest, now, CodeCancelled, "NFS-e já cancelada.")
	}
	if err := s.sign(now); err != nil {
		return refusal(http.StatusInternalServerError, now, "E9999", err.Error())
	}
	id := "EVT" + key + "101101001"
	s.cancelled++
	ev := `<evento xmlns="http://www.sped.fazenda.gov.br/nfse" versao="1.00"><infEvento Id="` + id + `"><verAplic>fincom-local</verAplic>` +
		`<ambGer>2</ambGer><nSeqEvento>1</nSeqEvento><dhProc>` + dh(now) + `</dhProc><nDFe>` + strconv.Itoa(s.cancelled) + `</nDFe>` +
		string(withoutHeader(doc)) + `</infEvento></evento>`
	signed, err := fiscal.Sign([]byte(ev), id, s.signer)
	if err != nil {
		return refusal(http.StatusInternalServerError, now, "E9999", err.Error())
	}
	n.cancelled, n.cancellation = true, signed
	return http.StatusCreated, map[string]any{"dataHoraProcessamento": dh(now), "eventoXmlGZipB64": pack(signed)}
}

// cancellationOf answers GET /nfse/{key}/eventos/e101101/1: the note's
// cancellation event, as registered.
func (s *System) cancellationOf(key string, now time.Time) (int, map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.notes[key]
	if !ok || n.cancellation == nil {
		return refusal(http.StatusNotFound, now, CodeNotFound, "Evento não encontrado.")
	}
	return http.StatusOK, map[string]any{"dataHoraProcessamento": dh(now), "eventoXmlGZipB64": pack(n.cancellation)}
}

func withoutHeader(doc []byte) []byte {
	doc = bytes.TrimSpace(doc)
	if bytes.HasPrefix(doc, []byte("<?xml")) {
		if i := bytes.Index(doc, []byte("?>")); i >= 0 {
			doc = bytes.TrimSpace(doc[i+2:])
		}
	}
	return doc
}

func pad4(n int) string {
	s := "0000" + strconv.Itoa(n)
	return s[len(s)-4:]
}

// nfseOf is what the system reads of a note it issued before.
type nfseOf struct {
	Inf struct {
		ID     string `xml:"Id,attr"`
		Number int    `xml:"nNFSe"`
		CNPJ   string `xml:"emit>CNPJ"`
		CPF    string `xml:"emit>CPF"`
		DPS    struct {
			ID string `xml:"Id,attr"`
		} `xml:"DPS>infDPS"`
	} `xml:"infNFSe"`
}

// Know makes it hold a note it issued before, cancelled or not: test
// mode's system starts from what a domain's file says.
func (s *System) Know(doc []byte, cancelled bool) error {
	var n nfseOf
	if err := xml.Unmarshal(doc, &n); err != nil {
		return err
	}
	key := strings.TrimPrefix(n.Inf.ID, "NFS")
	if len(key) != 50 || n.Inf.DPS.ID == "" {
		return errors.New("not a national NFS-e")
	}
	provider := n.Inf.CNPJ + n.Inf.CPF
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.numbers == nil {
		s.numbers, s.notes, s.byDPS = map[string]int{}, map[string]*note{}, map[string]string{}
	}
	s.notes[key], s.byDPS[n.Inf.DPS.ID] = &note{dps: n.Inf.DPS.ID, provider: provider, doc: doc, cancelled: cancelled}, key
	s.numbers[provider] = max(s.numbers[provider], n.Inf.Number)
	if cancelled {
		s.cancelled++
	}
	return nil
}

// danfse serves the ADN's DANFSe of a note it issued: a one-page PDF
// naming its key and provider, with produção restrita's notice (404 for
// another note, or while SetDANFSe(false)).
func (s *System) danfse(w http.ResponseWriter, key string) {
	s.mu.Lock()
	n, ok := s.notes[key]
	ok = ok && !s.noDANFSe
	s.mu.Unlock()
	if !ok {
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	provider := n.provider
	if len(provider) == 14 {
		provider = provider[:2] + "." + provider[2:5] + "." + provider[5:8] + "/" + provider[8:12] + "-" + provider[12:]
	}
	// WinAnsiEncoding: \307 is Ç, \303 Ã.
	content := "BT /F1 12 Tf 40 800 Td (DANFSe - NFS-e " + key + ") Tj 0 -20 Td (Prestador: CNPJ " + provider + ") Tj " +
		"0 -20 Td (NFS-e SEM VALOR FISCAL - EMITIDA EM AMBIENTE DE HOMOLOGA\\307\\303O) Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	w.Header().Set("Content-Type", "application/pdf")
	w.Write(b.Bytes())
}
