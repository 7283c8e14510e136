// Package inbox reads the NF-e a unit receives (issued to its CNPJ by its
// suppliers) for its inbox, whether they come through the API or the CLI.
package inbox

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"time"

	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/docread"
	"fincom/server/fiscal"
	"fincom/store"
)

// Errors of ReadNFe.
var (
	// ErrForeign is an NF-e issued to another recipient than the unit.
	ErrForeign = errors.New("the NF-e was not issued to the unit's CNPJ")
	// ErrNotAuthorized is an NF-e without the authority's protocol of
	// authorization for its key (an nfeProc whose protNFe has cStat 100
	// or 150): a note the authority never authorized has no value.
	ErrNotAuthorized = errors.New("the NF-e has no authorization protocol for its key (an nfeProc with protNFe, cStat 100 or 150)")
	// ErrSignature is an NF-e whose signature does not verify: changed
	// after signing, unsigned, or signed by another firm's certificate.
	ErrSignature = errors.New("the NF-e's signature does not verify")
)

// Signers is whose signature the inbox takes outside test mode: a
// certificate that chains to Roots (the ICP-Brasil roots and the
// operator's --ca-file: certs.SignerPool), or, byte for byte, the
// certificate fincom holds for the issuing unit of the same domain (a
// note between a firm's own units), Own by the unit's CNPJ (digits).
type Signers struct {
	Roots *x509.CertPool
	Own   map[string][][]byte
}

// ReadNFe reads an NF-e XML for a unit's inbox: it must be an NF-e (or
// NFC-e) with a valid key, issued to the unit's CNPJ (ErrForeign), or it
// is docread.ErrUnreadable. With signers (outside test mode), it must
// moreover be what the authority authorized: an nfeProc with the protocol
// of its key (ErrNotAuthorized) whose signature over infNFe verifies, made
// with a certificate that names the issuer's CNPJ, is not a test one, and
// is trusted by signers (ErrSignature) (TestInboxTakesAuthorizedOnly).
func ReadNFe(data []byte, unitCNPJ string, signers *Signers) (store.NewInboxNFe, error) {
	r, err := docread.ReadXML(data)
	if err != nil || (r.Kind != "nfe" && r.Kind != "nfce") || r.Fields["access_key"].Value == "" {
		return store.NewInboxNFe{}, docread.ErrUnreadable
	}
	if brdoc.Clean(r.Fields["recipient_register"].Value) != brdoc.Clean(unitCNPJ) || unitCNPJ == "" {
		return store.NewInboxNFe{}, ErrForeign
	}
	key := r.Fields["access_key"].Value
	supplier := brdoc.Clean(r.Fields["supplier_register"].Value)
	if signers != nil {
		if err := checkAuthorized(data, key, supplier, signers); err != nil {
			return store.NewInboxNFe{}, err
		}
	}
	total, err := store.ParseMoney(r.Fields["value"].Value)
	if err != nil {
		return store.NewInboxNFe{}, docread.ErrUnreadable
	}
	return store.NewInboxNFe{AccessKey: key, SupplierCNPJ: supplier,
		SupplierName: r.Fields["supplier_name"].Value, IssueDate: r.Fields["issue_date"].Value, Total: total, XML: data}, nil
}

// nfeProc is what checkAuthorized reads of a distributed NF-e: the root,
// the authority's protocol, and the certificates the signature carries
// (the signer's first, then any intermediates).
type nfeProc struct {
	XMLName xml.Name
	Prot    []struct {
		ChNFe    string `xml:"infProt>chNFe"`
		CStat    string `xml:"infProt>cStat"`
		DhRecbto string `xml:"infProt>dhRecbto"`
	} `xml:"protNFe"`
	Chain []string `xml:"NFe>Signature>KeyInfo>X509Data>X509Certificate"`
}

const nfeNS = "http://www.portalfiscal.inf.br/nfe"

func checkAuthorized(data []byte, key, supplier string, signers *Signers) error {
	var p nfeProc
	d := xml.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(&p); err != nil {
		return docread.ErrUnreadable
	}
	if p.XMLName.Local != "nfeProc" || p.XMLName.Space != nfeNS || len(p.Prot) != 1 || p.Prot[0].ChNFe != key ||
		(p.Prot[0].CStat != "100" && p.Prot[0].CStat != "150") {
		return ErrNotAuthorized
	}
	cert, err := fiscal.Verify(data, "NFe"+key)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSignature, err)
	}
	if certs.IsTest(cert) {
		return fmt.Errorf("%w: it is signed with a test certificate", ErrSignature)
	}
	c := certs.CNPJ(cert)
	switch {
	case c == "":
		return fmt.Errorf("%w: the signer's certificate names no CNPJ", ErrSignature)
	case len(supplier) != 14 || len(c) != 14 || c[:8] != supplier[:8]:
		return fmt.Errorf("%w: the certificate names %s, the issuer is %s", ErrSignature, c, supplier)
	}
	for _, own := range signers.Own[supplier] {
		if bytes.Equal(own, cert.Raw) {
			return nil
		}
	}
	// The chain is judged when the authority received the note: a
	// certificate that ended since still signed it validly.
	at, err := time.Parse(time.RFC3339, p.Prot[0].DhRecbto)
	if err != nil {
		return ErrNotAuthorized
	}
	intermediates := x509.NewCertPool()
	for _, b64 := range p.Chain[min(1, len(p.Chain)):] {
		if der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(b64), "")); err == nil {
			if ic, err := x509.ParseCertificate(der); err == nil {
				intermediates.AddCert(ic)
			}
		}
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: signers.Roots, Intermediates: intermediates, CurrentTime: at,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		return fmt.Errorf("%w: the signer's certificate (%s) is not trusted: it chains to no ICP-Brasil root nor to --ca-file, and is no unit's own", ErrSignature, c)
	}
	return nil
}
