package render

import (
	"strconv"
	"strings"

	"fincom/store"
)

// APIPrefix is the base path of fincom's routes (spec, Versioning).
const APIPrefix = "/api/v1"

// Links builds the addresses of the public portal's pages. With a public
// URL (serve --public-url) they are absolute, for e-mails and answers;
// with none they are paths, for the portal's own pages. Every portal
// link is made here.
type Links struct {
	PublicURL string // scheme and host, no trailing slash; "" for paths
}

// NewLinks answers the links of a server reached at publicURL.
func NewLinks(publicURL string) Links { return Links{PublicURL: strings.TrimRight(publicURL, "/")} }

func (l Links) page(name, publicToken string) string {
	return l.PublicURL + APIPrefix + "/sales_orders/" + name + "/" + publicToken
}

// withInstallment adds ?installment=N when n is set.
func withInstallment(u string, n int) string {
	if n > 0 {
		u += "?installment=" + strconv.Itoa(n)
	}
	return u
}

// Payment is the order's payment page.
func (l Links) Payment(publicToken string) string { return l.page("public_payment", publicToken) }

// Boleto is the printable boleto of an installment.
func (l Links) Boleto(publicToken string, installment int) string {
	return withInstallment(l.page("public_boleto", publicToken), installment)
}

// BoletoPDF is an installment's boleto as a PDF.
func (l Links) BoletoPDF(publicToken string, installment int) string {
	return withInstallment(l.page("public_boleto_pdf", publicToken), installment)
}

// PixQR is the QR code of an installment's BR Code.
func (l Links) PixQR(publicToken string, installment int) string {
	return withInstallment(l.page("public_pix_qr", publicToken), installment)
}

// DANFE is the invoice's printable page.
func (l Links) DANFE(publicToken string) string { return l.page("public_danfe", publicToken) }

// InvoiceXML is the invoice's XML.
func (l Links) InvoiceXML(publicToken string) string { return l.page("public_nf_xml", publicToken) }

// EventXML is an event of the invoice as the authority registered it: its
// cancellation (kind "cancellation") or a correction letter
// ("correction"; seq 0: the latest).
func (l Links) EventXML(publicToken, kind string, seq int) string {
	u := l.page("public_nf_"+kind+"_xml", publicToken)
	if seq > 0 {
		u += "?sequence=" + strconv.Itoa(seq)
	}
	return u
}

// Event is where the payment page records what the payer does.
func (l Links) Event() string { return l.PublicURL + APIPrefix + "/sales_orders/public_event" }

// Notice renders an e-mail of a kind for the outbox; none when there is
// no address.
func (r *Renderer) Notice(kind, to, dedupe string, d MailData) (*store.Notice, error) {
	if to == "" {
		return nil, nil
	}
	subject, body, err := r.Mail(kind, d)
	if err != nil {
		return nil, err
	}
	return &store.Notice{Kind: kind, To: to, Subject: subject, Body: body, DedupeKey: dedupe}, nil
}
