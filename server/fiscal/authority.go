package fiscal

import (
	"bytes"
	"context"
	"crypto/x509"
	"embed"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"fincom/server/certs"
	"fincom/server/fiscal/xsd"
	"fincom/server/problem"
)

//go:embed schemas
var schemaFiles embed.FS

// schemaFile is the official schema of each root fincom validates.
var schemaFile = map[string]string{
	"NFe": "nfe-4.00/nfe_v4.00.xsd", "nfeProc": "nfe-4.00/procNFe_v4.00.xsd",
	"DPS": "nfse-nacional-1.00/DPS_v1.00.xsd", "NFSe": "nfse-nacional-1.00/NFSe_v1.00.xsd",
	"DPS@1.01": "nfse-nacional-1.01/DPS_v1.01.xsd", "NFSe@1.01": "nfse-nacional-1.01/NFSe_v1.01.xsd",
	"consStatServ": "nfe-4.00/consStatServ_v4.00.xsd", "retConsStatServ": "nfe-4.00/retConsStatServ_v4.00.xsd",
	"consSitNFe": "nfe-4.00/consSitNFe_v4.00.xsd", "retConsSitNFe": "nfe-4.00/retConsSitNFe_v4.00.xsd",
	"inutNFe": "nfe-4.00/inutNFe_v4.00.xsd", "retInutNFe": "nfe-4.00/retInutNFe_v4.00.xsd",
	"distDFeInt": "nfe-4.00/distDFeInt_v1.01.xsd", "retDistDFeInt": "nfe-4.00/retDistDFeInt_v1.01.xsd",
	"enviNFe": "nfe-4.00/enviNFe_v4.00.xsd", "retEnviNFe": "nfe-4.00/retEnviNFe_v4.00.xsd",
	"consReciNFe": "nfe-4.00/consReciNFe_v4.00.xsd", "retConsReciNFe": "nfe-4.00/retConsReciNFe_v4.00.xsd",
	"envEventoCancNFe": "nfe-4.00/envEventoCancNFe_v1.00.xsd", "retEnvEventoCancNFe": "nfe-4.00/retEnvEventoCancNFe_v1.00.xsd",
	"envConfRecebto": "nfe-4.00/envConfRecebto_v1.00.xsd", "retEnvConfRecebto": "nfe-4.00/retEnvConfRecebto_v1.00.xsd",
	"envCCe": "nfe-4.00/envCCe_v1.00.xsd", "retEnvCCe": "nfe-4.00/retEnvCCe_v1.00.xsd",
	"pedRegEvento": "nfse-nacional-1.00/pedRegEvento_v1.00.xsd", "evento": "nfse-nacional-1.00/evento_v1.00.xsd",
	"procEventoCancNFe": "nfe-4.00/procEventoCancNFe_v1.00.xsd", "procCCeNFe": "nfe-4.00/procCCeNFe_v1.00.xsd",
	"envEPEC": "nfe-4.00/envEPEC_v1.00.xsd", "retEnvEPEC": "nfe-4.00/retEnvEPEC_v1.00.xsd",
	"envEvento": "nfe-4.00/envEvento_v1.00.xsd", "retEnvEvento": "nfe-4.00/retEnvEvento_v1.00.xsd",
}

// schemas loads each root's schema once, when first asked for: a schema
// that cannot load refuses its own documents only (TestEverySchemaLoads
// holds that each loads).
var schemas = func() map[string]func() (*xsd.Schema, error) {
	out := map[string]func() (*xsd.Schema, error){}
	for root, file := range schemaFile {
		out[root] = sync.OnceValues(func() (*xsd.Schema, error) {
			dir, err := fs.Sub(schemaFiles, "schemas")
			if err != nil {
				return nil, err
			}
			s, err := xsd.Load(dir, file)
			if err != nil {
				return nil, fmt.Errorf("schema %s: %w", file, err)
			}
			return s, nil
		})
	}
	return out
}()

// rootVersion is the versao attribute of a document's root element.
func rootVersion(doc []byte) string {
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.RawToken()
		if err != nil {
			return ""
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "versao" {
					return a.Value
				}
			}
			return ""
		}
	}
}

// ValidateSchema checks a document against the official schema of its
// root: NFe, nfeProc (NF-e and NFC-e 4.00), DPS or NFSe (national NFS-e
// 1.00), and the web services' messages consStatServ, consSitNFe,
// inutNFe, distDFeInt, enviNFe, consReciNFe, envEventoCancNFe,
// envConfRecebto, envCCe and their answers, the events as kept
// (procEventoCancNFe, procCCeNFe: root procEventoNFe); the national
// NFS-e's pedRegEvento and evento.
//
// A national DPS or NFSe of layout 1.01 (the tax reform's, versao="1.01")
// is held to that layout's schema.
func ValidateSchema(root string, doc []byte) error {
	if (root == "DPS" || root == "NFSe") && rootVersion(doc) == "1.01" {
		root += "@1.01"
	}
	load, ok := schemas[root]
	if !ok {
		return fmt.Errorf("no schema for %s", root)
	}
	s, err := load()
	if err != nil {
		return err
	}
	return s.Validate(doc)
}

// Authorization is the authority's answer to an accepted document.
type Authorization struct {
	Protocol string
	Status   int
	Message  string
	At       time.Time
	// Key is the document's access key when the authority gives it (the
	// national NFS-e system numbers its notes); empty when it is the one
	// the issuer computed.
	Key string
	// XML is the document as the issuer keeps it and sends its customer:
	// the nfeProc of an NF-e, the national system's NFS-e, the municipal
	// note.
	XML []byte
}

// Rejection is the authority's refusal: its code and reason (SEFAZ's
// cStat and xMotivo). A denial (Denied) comes with the authority's
// protocol and the note as kept (the nfeProc with the denial's protNFe),
// when it gave them.
type Rejection struct {
	Code     int
	Reason   string
	Protocol string
	XML      []byte
}

// Denied says the code is SEFAZ's uso denegado (110, 301 to 303): the
// note's number is spent at the authority, and the note is never sent
// again.
func (r *Rejection) Denied() bool { return r.Code == 110 || (r.Code >= 301 && r.Code <= 303) }

func (r *Rejection) Error() string { return fmt.Sprintf("%d %s", r.Code, r.Reason) }

// ErrUnknownNote is a note the authority, asked by its key, does not
// know (SEFAZ's 217).
var ErrUnknownNote = errors.New("the authority does not know the note")

// DuplicateKey is the key SEFAZ names in a 539's reason (Duplicidade de
// NF-e com diferença na Chave de Acesso [chNFe: …]): the note that holds
// the series and number there; "" when it names none.
func DuplicateKey(reason string) string {
	_, rest, ok := strings.Cut(reason, "chNFe:")
	if !ok {
		return ""
	}
	rest = strings.TrimLeft(rest, " ")
	if len(rest) < 44 || strings.Trim(rest[:44], "0123456789") != "" {
		return ""
	}
	return rest[:44]
}

// Registry answers what the authority already authorized for the issuer:
// the key of the document of a kind, series and number, if any.
type Registry interface {
	Authorized(ctx context.Context, kind string, series, number int) (key string, ok bool, err error)
}

// Book is what the issuer's records say an authority holds: every note
// of the domain the authority issued (its authorized document, the
// nfeProc or the national NFS-e) and what happened to it since. Test
// mode's local authorities start from it, so that a domain reset or
// restored from a snapshot meets an authority that agrees with its file.
type Book interface {
	Issued(ctx context.Context) ([]Issued, error)
}

// Issued is a note as the issuer's records keep it.
type Issued struct {
	Kind        string
	XML         []byte
	Cancelled   bool
	Corrections int // the correction letters registered
}

// Request is a document sent for authorization: the invoice it was
// built from, its key, the signed document (NFe, DPS; the municipal
// note's data), and the issuer's past documents.
type Request struct {
	Invoice  Invoice
	Key      string
	Signed   []byte
	Registry Registry
	// Cert is the issuer's certificate, for the mutual TLS of a real
	// authority.
	Cert certs.Certificate
	// Retry says the same note was sent before and its answer lost: the
	// authority is asked for it by its key before it is sent again.
	Retry bool
	// Lookup asks the authority for the note by its key only, never
	// sending it: a note it does not know is ErrUnknownNote (SEFAZ's
	// authorities; the others send).
	Lookup bool
	// Domain and Book are the issuing domain and its records (test mode's
	// local authorities, one per domain).
	Domain string
	Book   Book
}

// Cancellation asks an authority to register a note's cancellation.
type Cancellation struct {
	Kind       string
	Production bool
	Key        string
	Protocol   string
	CNPJ       string
	Reason     string
	// ReasonCode is a national NFS-e's cMotivo (Cancel*; "": CancelOther).
	ReasonCode string
	At         time.Time
	Cert       certs.Certificate
	Domain     string
	Book       Book
}

// Event is an event the authority registered on a note, as the issuer
// keeps it: its type (110111 an NF-e's cancellation, 110110 a correction
// letter, e101101 a national NFS-e's cancellation), its sequence, the
// authority's protocol and the document (the procEventoNFe: the signed
// event with the authority's retEvento; the national system's evento).
type Event struct {
	Type     string
	Sequence int
	Protocol string
	XML      []byte
}

// Canceller is an authority that registers cancellations (an event the
// authority keeps): the event, a *Rejection, or another error when it
// could not be reached. An authority without it keeps no cancellation of
// its own.
type Canceller interface {
	Cancel(ctx context.Context, c Cancellation) (Event, error)
}

// EPECRegistrar is an authority that registers an NF-e's EPEC (event
// 110140): the prior issue of a note in contingency, sent to its
// authorizer later. The event, a *Rejection, or another error.
type EPECRegistrar interface {
	RegisterEPEC(ctx context.Context, r Request) (Event, error)
}

// Substitution cancels an NFC-e by substitution (event 110112): past its
// cancellation window, a note replaced by another NFC-e of the same
// issuer, whose key it names.
type Substitution struct {
	Cancellation
	SubstituteKey string
}

// Substituter is an authority that registers cancellations by
// substitution: the event, a *Rejection, or another error.
type Substituter interface {
	CancelBySubstitution(ctx context.Context, s Substitution) (Event, error)
}

// Voiding voids at its authority the number of a note never authorized
// (inutilização), named by the access key the note had: its state,
// issuer, model, series and number; the request made at At.
type Voiding struct {
	Key        string
	Production bool
	Reason     string
	At         time.Time
	Cert       certs.Certificate
	Domain     string
	Book       Book
}

// Voider is an authority that voids numbers (SEFAZ's NFeInutilizacao4):
// the voiding's protocol and the authority's answer as an Event (Type
// "inutilizacao"), a *Rejection, or another error.
type Voider interface {
	Void(ctx context.Context, v Voiding) (Event, error)
}

// DANFSeRequest asks for a national NFS-e's official DANFSe.
type DANFSeRequest struct {
	Key        string
	Production bool
	Cert       certs.Certificate
	Domain     string
	Book       Book
}

// DANFSeSource is an authority that keeps its notes' printable form (the
// national system's ADN, GET /danfse/{key}): a PDF, or an error.
type DANFSeSource interface {
	DANFSe(ctx context.Context, r DANFSeRequest) ([]byte, error)
}

// Correction is a correction letter (carta de correção) of an authorized
// NF-e: its text replaces every earlier one; each letter of a note takes
// the next sequence (1 to 20).
type Correction struct {
	Production bool
	Key, CNPJ  string
	Text       string
	Sequence   int
	At         time.Time
	Cert       certs.Certificate
	Domain     string
	Book       Book
}

// Corrector is an authority that registers correction letters: the event,
// a *Rejection, or another error when it could not be reached.
type Corrector interface {
	Correct(ctx context.Context, c Correction) (Event, error)
}

// Manifestation is a recipient's manifestation of a note issued to it,
// for the national environment.
type Manifestation struct {
	Key, CNPJ  string
	Event      string // 210200, 210210, 210220, 210240
	Reason     string
	At         time.Time
	Production bool
	Cert       certs.Certificate
	Domain     string
	Book       Book
}

// Manifester is an authority that registers recipients' manifestations:
// whether it registered it, and its protocol or its refusal's code and
// text; an error when it could not be reached.
type Manifester interface {
	Manifest(ctx context.Context, m Manifestation) (registered bool, reply string, err error)
}

// ErrUnsure is a sending whose answer was lost (a timeout, a connection
// cut after the note left): the authority may have authorized it, so the
// note keeps its number and key and is asked for before being sent again.
var ErrUnsure = errors.New("the note was sent and the authority's answer was lost")

// Authority authorizes documents: an Authorization, a *Rejection, or
// another error when it could not be reached.
type Authority interface {
	Authorize(ctx context.Context, r Request) (Authorization, error)
}

// Authorities hand each kind of invoice to its authority (NF-e and NFC-e
// to SEFAZ, national NFS-e to the national system); a kind without one is
// refused with ErrNotConnected, never authorized by a stand-in.
type Authorities map[string]Authority

// ErrNotConnected is a kind of invoice whose authority fincom does not
// transmit to: a production server refuses it rather than let a
// simulated authority pretend.
var ErrNotConnected = problem.New(problem.Unprocessable,
	"fincom does not transmit this kind of invoice to its authority: NF-e and NFC-e go to SEFAZ and national NFS-e (nf_kind nfsen) to the national system; a municipal NFS-e is issued only in test mode.")

// Authorize hands the document to its kind's authority.
func (as Authorities) Authorize(ctx context.Context, r Request) (Authorization, error) {
	a, ok := as[r.Invoice.Kind]
	if !ok {
		return Authorization{}, ErrNotConnected
	}
	return a.Authorize(ctx, r)
}

// Cancel has the note's authority register its cancellation; a kind
// whose authority keeps no cancellations has nothing to register.
func (as Authorities) Cancel(ctx context.Context, c Cancellation) (Event, error) {
	if a, ok := as[c.Kind].(Canceller); ok {
		return a.Cancel(ctx, c)
	}
	return Event{}, nil
}

// CancelBySubstitution has the NFC-e's authority register a cancellation
// by substitution.
func (as Authorities) CancelBySubstitution(ctx context.Context, s Substitution) (Event, error) {
	a, ok := as[NFCe].(Substituter)
	if !ok {
		return Event{}, ErrNotConnected
	}
	return a.CancelBySubstitution(ctx, s)
}

// DANFSe has the national NFS-e's authority give its DANFSe.
func (as Authorities) DANFSe(ctx context.Context, r DANFSeRequest) ([]byte, error) {
	a, ok := as[NFSeN].(DANFSeSource)
	if !ok {
		return nil, ErrNotConnected
	}
	return a.DANFSe(ctx, r)
}

// Void has the authority of the key's model void its number.
func (as Authorities) Void(ctx context.Context, v Voiding) (Event, error) {
	kind := NFe
	if len(v.Key) == 44 && v.Key[20:22] == "65" {
		kind = NFCe
	}
	a, ok := as[kind].(Voider)
	if !ok {
		return Event{}, ErrNotConnected
	}
	return a.Void(ctx, v)
}

// RegisterEPEC has the national environment register an NF-e's EPEC.
func (as Authorities) RegisterEPEC(ctx context.Context, r Request) (Event, error) {
	a, ok := as[NFe].(EPECRegistrar)
	if !ok {
		return Event{}, ErrNotConnected
	}
	return a.RegisterEPEC(ctx, r)
}

// Correct has the NF-e's authority register a correction letter.
func (as Authorities) Correct(ctx context.Context, c Correction) (Event, error) {
	a, ok := as[NFe].(Corrector)
	if !ok {
		return Event{}, ErrNotConnected
	}
	return a.Correct(ctx, c)
}

// Manifest sends a recipient's manifestation through the NF-e's
// authority (the national environment's).
func (as Authorities) Manifest(ctx context.Context, m Manifestation) (bool, string, error) {
	a, ok := as[NFe].(Manifester)
	if !ok {
		return false, "", ErrNotConnected
	}
	return a.Manifest(ctx, m)
}

// Simulated stands in for SEFAZ, the national NFS-e system and the
// municipal ones. It checks what they check before authorizing: the
// official schema (225), the signature (297, 298), the certificate's
// validity and CNPJ against the issuer's (291, 292, 213), and that the
// number was not used (204, 539). Its protocol numbers derive from the
// key, so asking twice gives the same answer. It signs the national
// NFS-e with a test certificate of its own.
type Simulated struct {
	system     sync.Once
	systemCert certs.Certificate
	systemErr  error
}

// The authorities' codes and texts of the refusals Simulated makes.
const (
	CodeSchema        = 225
	CodeSignature     = 297
	CodeSignatureForm = 298
	CodeCertDate      = 291
	CodeCertNoCNPJ    = 292
	CodeCertCNPJ      = 213
	CodeDuplicate     = 204
	CodeDuplicateKey  = 539
)

// Authorize checks the document and authorizes it.
func (s *Simulated) Authorize(ctx context.Context, r Request) (Authorization, error) {
	inv := r.Invoice
	a := Authorization{Status: 100, At: inv.Issued}
	switch inv.Kind {
	case NFe, NFCe:
		if err := s.check(ctx, r, "NFe", "NFe"+r.Key); err != nil {
			return a, err
		}
		a.Protocol = "2" + r.Key[:2] + inv.Issued.In(saoPaulo).Format("06") + digitsOf(r.Key, 10)
		a.Message = "Autorizado o uso da NF-e"
		xml, err := Authorized(r.Signed, r.Key, a)
		if err != nil {
			return a, err
		}
		a.XML = xml
	case NFSeN:
		if err := s.check(ctx, r, "DPS", DPSID(inv)); err != nil {
			return a, err
		}
		a.Protocol = "1" + digitsOf(r.Key, 12)
		a.Message = "NFS-e gerada com sucesso"
		doc, err := BuildNFSe(inv, r.Key, r.Signed, a)
		if err != nil {
			return a, err
		}
		sys, err := s.certificate(inv.Issued)
		if err != nil {
			return a, err
		}
		if a.XML, err = Sign(doc, "NFS"+r.Key, sys); err != nil {
			return a, err
		}
	case NFSe:
		a.Protocol = stateCode(inv.Emitter.CityIBGE) + "5" + inv.Issued.Format("06") + digitsOf(r.Key, 10)
		a.Message = "NFS-e gerada com sucesso"
		xml, err := MunicipalXML(inv, r.Key, a)
		if err != nil {
			return a, err
		}
		a.XML = xml
	default:
		return a, &Rejection{Code: CodeSchema, Reason: "Rejeição: Falha no Schema XML: modelo de documento desconhecido"}
	}
	return a, nil
}

// check runs the authority's checks on a signed document whose root is
// root and signed element id.
func (s *Simulated) check(ctx context.Context, r Request, root, id string) error {
	if err := ValidateSchema(root, r.Signed); err != nil {
		var es xsd.Errors
		if errors.As(err, &es) && len(es) > 0 {
			return &Rejection{Code: CodeSchema, Reason: "Rejeição: Falha no Schema XML: " + es[0].Error()}
		}
		return &Rejection{Code: CodeSchema, Reason: "Rejeição: Falha no Schema XML: " + err.Error()}
	}
	cert, err := Verify(r.Signed, id)
	switch {
	case errors.Is(err, ErrNoSignature):
		return &Rejection{Code: CodeSignatureForm, Reason: "Rejeição: Assinatura difere do padrão do Projeto"}
	case err != nil:
		return &Rejection{Code: CodeSignature, Reason: "Rejeição: Assinatura difere do calculado"}
	}
	if err := checkCertificate(cert, r.Invoice); err != nil {
		return err
	}
	if r.Registry != nil {
		key, ok, err := r.Registry.Authorized(ctx, r.Invoice.Kind, r.Invoice.Series, r.Invoice.Number)
		if err != nil {
			return err
		}
		switch {
		case ok && key == r.Key:
			return &Rejection{Code: CodeDuplicate, Reason: "Rejeição: Duplicidade de NF-e"}
		case ok:
			return &Rejection{Code: CodeDuplicateKey, Reason: "Rejeição: Duplicidade de NF-e com diferença na Chave de Acesso [chNFe: " + key + "]"}
		}
	}
	return nil
}

func checkCertificate(c *x509.Certificate, inv Invoice) error {
	err := certs.Check(c, inv.Emitter.Register, inv.Issued)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, certs.ErrExpired), errors.Is(err, certs.ErrNotYetValid):
		return &Rejection{Code: CodeCertDate, Reason: "Rejeição: Certificado Assinatura Data Validade"}
	case errors.Is(err, certs.ErrNoCNPJ):
		return &Rejection{Code: CodeCertNoCNPJ, Reason: "Rejeição: Certificado Assinatura sem CNPJ"}
	default:
		return &Rejection{Code: CodeCertCNPJ, Reason: "Rejeição: CNPJ-Base do Emitente difere do CNPJ-Base do Certificado Digital"}
	}
}

// certificate is the simulated national system's own test certificate.
func (s *Simulated) certificate(now time.Time) (certs.Certificate, error) {
	s.system.Do(func() {
		s.systemCert, s.systemErr = certs.TestCertificate("SISTEMA NACIONAL NFS-E SIMULADO", "00394460005887", now.AddDate(-1, 0, 0))
	})
	return s.systemCert, s.systemErr
}
