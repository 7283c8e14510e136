package render

import (
	"cmp"
	"strings"
)

// invoiceKinds name the kinds of invoice as they are written.
var invoiceKinds = map[string]string{"nfe": "NF-e", "nfce": "NFC-e", "nfse": "NFS-e", "nfsen": "NFS-e nacional"}

// InvoiceKindName is an invoice kind as it is written (NF-e, NFS-e
// nacional).
func InvoiceKindName(kind string) string { return cmp.Or(invoiceKinds[kind], strings.ToUpper(kind)) }

// InvoiceStatusName says where an order's invoice stands, in Portuguese
// ("Sem nota" for none).
func InvoiceStatusName(st string) string {
	switch st {
	case "AUTHORIZED":
		return "Autorizada"
	case "CANCELLED":
		return "Cancelada"
	case "PENDING":
		return "Aguardando a autoridade"
	case "CONTINGENCY":
		return "Emitida em contingência"
	case "REJECTED":
		return "Rejeitada"
	case "DENIED":
		return "Denegada"
	}
	return "Sem nota"
}
