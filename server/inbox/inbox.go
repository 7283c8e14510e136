// Package inbox reads the NF-e a unit receives (issued to its CNPJ by its
// suppliers) for its inbox, whether they come through the API or the CLI.
package inbox

import (
	"errors"

	"fincom/server/brdoc"
	"fincom/server/docread"
	"fincom/store"
)

// ErrForeign is an NF-e issued to another recipient than the unit.
var ErrForeign = errors.New("the NF-e was not issued to the unit's CNPJ")

// ReadNFe reads an NF-e XML for a unit's inbox: it must be an NF-e (or
// NFC-e) with a valid key, issued to the unit's CNPJ (ErrForeign), or
// it is docread.ErrUnreadable.
func ReadNFe(data []byte, unitCNPJ string) (store.NewInboxNFe, error) {
	r, err := docread.ReadXML(data)
	if err != nil || (r.Kind != "nfe" && r.Kind != "nfce") || r.Fields["access_key"].Value == "" {
		return store.NewInboxNFe{}, docread.ErrUnreadable
	}
	if brdoc.Clean(r.Fields["recipient_register"].Value) != brdoc.Clean(unitCNPJ) || unitCNPJ == "" {
		return store.NewInboxNFe{}, ErrForeign
	}
	total, err := store.ParseMoney(r.Fields["value"].Value)
	if err != nil {
		return store.NewInboxNFe{}, docread.ErrUnreadable
	}
	return store.NewInboxNFe{AccessKey: r.Fields["access_key"].Value, SupplierCNPJ: brdoc.Clean(r.Fields["supplier_register"].Value),
		SupplierName: r.Fields["supplier_name"].Value, IssueDate: r.Fields["issue_date"].Value, Total: total, XML: data}, nil
}
