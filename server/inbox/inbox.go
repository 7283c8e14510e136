// Package inbox reads the NF-e a unit receives (issued to its CNPJ by its
// suppliers) for its inbox, whether they come through the API or the CLI.
package inbox

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"

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

// ReadNFe reads an NF-e XML for a unit's inbox: it must be an NF-e (or
// NFC-e) with a valid key, issued to the unit's CNPJ (ErrForeign), or it
// is docread.ErrUnreadable. With authorized, it must moreover be what the
// authority authorized: an nfeProc with the protocol of its key
// (ErrNotAuthorized) whose signature over infNFe verifies, made with a
// certificate of the issuer's firm that is not a test one (ErrSignature).
// Outside test mode every document is read so (TestInboxTakesAuthorizedOnly).
func ReadNFe(data []byte, unitCNPJ string, authorized bool) (store.NewInboxNFe, error) {
	r, err := docread.ReadXML(data)
	if err != nil || (r.Kind != "nfe" && r.Kind != "nfce") || r.Fields["access_key"].Value == "" {
		return store.NewInboxNFe{}, docread.ErrUnreadable
	}
	if brdoc.Clean(r.Fields["recipient_register"].Value) != brdoc.Clean(unitCNPJ) || unitCNPJ == "" {
		return store.NewInboxNFe{}, ErrForeign
	}
	key := r.Fields["access_key"].Value
	supplier := brdoc.Clean(r.Fields["supplier_register"].Value)
	if authorized {
		if err := checkAuthorized(data, key, supplier); err != nil {
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

// nfeProc is what checkAuthorized reads of a distributed NF-e: the root
// and the authority's protocol.
type nfeProc struct {
	XMLName xml.Name
	Prot    []struct {
		ChNFe string `xml:"infProt>chNFe"`
		CStat string `xml:"infProt>cStat"`
	} `xml:"protNFe"`
}

const nfeNS = "http://www.portalfiscal.inf.br/nfe"

func checkAuthorized(data []byte, key, supplier string) error {
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
	if c := certs.CNPJ(cert); c != "" && (len(supplier) != 14 || len(c) != 14 || c[:8] != supplier[:8]) {
		return fmt.Errorf("%w: the certificate names %s, the issuer is %s", ErrSignature, c, supplier)
	}
	return nil
}
