package fiscal

import (
	"context"
	"crypto/x509"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"fincom/server/certs"
	"fincom/server/fiscal/xsd"
)

//go:embed schemas
var schemaFiles embed.FS

// schemas are the official schemas the authorities check documents
// against, loaded once.
var schemas = sync.OnceValues(func() (map[string]*xsd.Schema, error) {
	root, err := fs.Sub(schemaFiles, "schemas")
	if err != nil {
		return nil, err
	}
	out := map[string]*xsd.Schema{}
	for name, file := range map[string]string{
		"NFe": "nfe-4.00/nfe_v4.00.xsd", "nfeProc": "nfe-4.00/procNFe_v4.00.xsd",
		"DPS": "nfse-nacional-1.00/DPS_v1.00.xsd", "NFSe": "nfse-nacional-1.00/NFSe_v1.00.xsd",
		"consStatServ": "nfe-4.00/consStatServ_v4.00.xsd", "retConsStatServ": "nfe-4.00/retConsStatServ_v4.00.xsd",
		"consSitNFe": "nfe-4.00/consSitNFe_v4.00.xsd", "retConsSitNFe": "nfe-4.00/retConsSitNFe_v4.00.xsd",
		"inutNFe": "nfe-4.00/inutNFe_v4.00.xsd", "retInutNFe": "nfe-4.00/retInutNFe_v4.00.xsd",
		"distDFeInt": "nfe-4.00/distDFeInt_v1.01.xsd", "retDistDFeInt": "nfe-4.00/retDistDFeInt_v1.01.xsd",
	} {
		if out[name], err = xsd.Load(root, file); err != nil {
			return nil, fmt.Errorf("schema %s: %w", file, err)
		}
	}
	return out, nil
})

// ValidateSchema checks a document against the official schema of its
// root: NFe, nfeProc (NF-e and NFC-e 4.00), DPS or NFSe (national NFS-e
// 1.00), and the web services' messages consStatServ, consSitNFe,
// inutNFe, distDFeInt and their answers.
func ValidateSchema(root string, doc []byte) error {
	all, err := schemas()
	if err != nil {
		return err
	}
	s, ok := all[root]
	if !ok {
		return fmt.Errorf("no schema for %s", root)
	}
	return s.Validate(doc)
}

// Authorization is the authority's answer to an accepted document.
type Authorization struct {
	Protocol string
	Status   int
	Message  string
	At       time.Time
	// XML is the document as the issuer keeps it and sends its customer:
	// the nfeProc of an NF-e, the national system's NFS-e, the municipal
	// note.
	XML []byte
}

// Rejection is the authority's refusal: its code and reason (SEFAZ's
// cStat and xMotivo).
type Rejection struct {
	Code   int
	Reason string
}

func (r *Rejection) Error() string { return fmt.Sprintf("%d %s", r.Code, r.Reason) }

// Registry answers what the authority already authorized for the issuer:
// the key of the document of a kind, series and number, if any.
type Registry interface {
	Authorized(ctx context.Context, kind string, series, number int) (key string, ok bool, err error)
}

// Request is a document sent for authorization: the invoice it was
// built from, its key, the signed document (NFe, DPS; the municipal
// note's data), and the issuer's past documents.
type Request struct {
	Invoice  Invoice
	Key      string
	Signed   []byte
	Registry Registry
}

// Authority authorizes documents: an Authorization, a *Rejection, or
// another error when it could not be reached.
type Authority interface {
	Authorize(ctx context.Context, r Request) (Authorization, error)
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
