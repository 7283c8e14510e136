package paypage

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"

	"fincom/render"
	"fincom/server/invoicing"
	"fincom/server/web"
	"fincom/store"
)

// publicInvoice reads the invoice of a public token.
func (s *Pages) publicInvoice(r *web.Request) (store.Invoice, store.InvoiceData, error) {
	var inv store.Invoice
	var d store.InvoiceData
	err := s.withPublicInvoice(r, func(db *store.DB, i store.Invoice, unitID int64, order string) (err error) {
		inv = i
		d, err = db.InvoiceData(r.Ctx, unitID, order)
		return err
	})
	return inv, d, err
}

// withPublicInvoice calls read with the open domain of a public token and
// its order's invoice (store.ErrNotFound without one: the routes'
// docErrs).
func (s *Pages) withPublicInvoice(r *web.Request, read func(db *store.DB, inv store.Invoice, unitID int64, order string) error) error {
	token := r.Params.ByName("token")
	db, release, err := s.publicDB(r.Ctx, r.HTTP, token)
	if err != nil {
		return err
	}
	defer release()
	inv, unitID, order, err := db.PublicInvoice(r.Ctx, token)
	if err == nil {
		err = read(db, inv, unitID, order)
	}
	return err
}

// document is a file answer: an invoice's XML or DANFE, a boleto.
type document struct {
	name, contentType, disposition string
	body                           []byte
	csp                            string
}

func (d document) Write(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", d.contentType)
	h.Set("Content-Disposition", mime.FormatMediaType(d.disposition, map[string]string{"filename": d.name}))
	h.Set("X-Content-Type-Options", "nosniff")
	// A customer's document: no shared cache keeps it, no page frames it.
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", d.csp)
	w.WriteHeader(http.StatusOK)
	w.Write(d.body)
}

// pdfDocument is a PDF shown in place (a DANFE or a boleto is printed).
func pdfDocument(name string, body []byte) document {
	return document{name: name, contentType: "application/pdf", disposition: "inline", body: body, csp: "frame-ancestors 'none'"}
}

// publicNFXML (GET) downloads the invoice's XML.
func (s *Pages) publicNFXML(r *web.Request) (any, error) {
	inv, _, err := s.publicInvoice(r)
	if err != nil {
		return nil, err
	}
	return document{name: invoicing.FileName(inv) + ".xml", contentType: "application/xml; charset=utf-8", disposition: "attachment",
		body: []byte(inv.XML), csp: "sandbox; default-src 'none'; frame-ancestors 'none'"}, nil
}

// publicEventXML (GET) downloads an event the authority registered on the
// invoice, as the issuer keeps it (procEventoNFe): typ's latest, or the
// ?sequence=N one.
func (s *Pages) publicEventXML(typ string) func(r *web.Request) (any, error) {
	return func(r *web.Request) (any, error) {
		var ev store.InvoiceEvent
		var name string
		err := s.withPublicInvoice(r, func(db *store.DB, inv store.Invoice, unitID int64, _ string) error {
			events, err := db.InvoiceEvents(r.Ctx, unitID, inv.AccessKey.String)
			if err != nil {
				return err
			}
			var ok bool
			if ev, ok = invoicing.EventOf(events, typ, r.Query["sequence"]); !ok {
				return errNoEvent
			}
			name = invoicing.FileName(inv)
			return nil
		})
		if err != nil {
			return nil, err
		}
		return document{name: fmt.Sprintf("%s-%s-%d.xml", name, ev.Type, ev.Sequence), contentType: "application/xml; charset=utf-8",
			disposition: "attachment", body: []byte(ev.XML), csp: "sandbox; default-src 'none'; frame-ancestors 'none'"}, nil
	}
}

// publicDANFE (GET) is the printable invoice with the key's Code 128 bar
// code.
func (s *Pages) publicDANFE(r *web.Request) (any, error) {
	inv, d, err := s.publicInvoice(r)
	if err != nil {
		return nil, err
	}
	if !invoicing.HasDANFE(inv) {
		return nil, errNoDANFE
	}
	v := invoicing.DANFEData(inv, invoicing.Document(d))
	if k := inv.AccessKey.String; k != "" && v.Kind != "nfce" {
		if v.Barcode, err = render.Code128DataURI(k); err != nil {
			return nil, err
		}
	}
	if v.QR != "" {
		if v.QRImage, err = render.QRDataURI(v.QR, 360); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if err := s.Render.DANFE(&buf, v); err != nil {
		return nil, err
	}
	return s.newPage(http.StatusOK, buf.Bytes()), nil
}

// publicDANFEPDF (GET, a fincom route) is the DANFE as a PDF, for printing
// with the goods; the invoice e-mails carry it too.
func (s *Pages) publicDANFEPDF(r *web.Request) (any, error) {
	var b []byte
	var name string
	err := s.withPublicInvoice(r, func(db *store.DB, inv store.Invoice, unitID int64, order string) error {
		if !invoicing.HasDANFE(inv) {
			return errNoDANFE
		}
		d, err := db.InvoiceData(r.Ctx, unitID, order)
		if err != nil {
			return err
		}
		// A national NFS-e's is the national system's own DANFSe.
		name = invoicing.FileName(inv) + ".pdf"
		b, err = s.Invoices.DANFEPDF(r.Ctx, db, inv, d)
		return err
	})
	if err != nil {
		return nil, err
	}
	return pdfDocument(name, b), nil
}

// What the OpenAPI document says of this file's routes (their desc in
// paypage.go).
const (
	docPublicDANFE = "The printable DANFE of the order's invoice (or the NFS-e's equivalent) with the access key's Code " +
		"128 bar code. Documents of the test environment say so."
	docPublicDANFEPDF        = "The DANFE as an A4 PDF, as the invoice e-mails carry it."
	docPublicNFXML           = "The invoice's XML, as a download, never cached."
	docPublicCancellationXML = "The cancellation the tax authority registered on the invoice (event 110111, or the national NFS-e's " +
		"e101101), as its issuer keeps it: the `procEventoNFe` (the signed event and the authority's `retEvento`), a download " +
		"named `<access key>-110111-1.xml`. 404 `The invoice has no such event registered by the tax authority.` before one."
	docPublicCorrectionXML = "The invoice's latest correction letter (carta de correção, event 110110) as its issuer keeps it " +
		"(`procEventoNFe`), or the one of `?sequence=N`; a download named `<access key>-110110-<sequence>.xml`. 404 `The invoice " +
		"has no such event registered by the tax authority.` before one."
)
