package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/server/fiscal"
	"fincom/store"
)

var (
	errInvoiceInvalid = newError(http.StatusUnprocessableEntity, textInvoiceInvalid)
	errNoInvoice      = newError(http.StatusConflict, textNoInvoice)
	errCancelWindow   = newError(http.StatusConflict, textCancelWindow)
	errCancelReason   = newError(http.StatusBadRequest, textCancelReason)
	errNoNFEmail      = newError(http.StatusBadRequest, textNoNFEmail)
	errInvoiceUnknown = newError(http.StatusNotFound, textInvoiceNotFound)
)

// invoiceSeries is the series fincom issues in.
const invoiceSeries = 1

func party(p store.InvoiceParty) fiscal.Party {
	out := fiscal.Party{Register: brdoc.Clean(p.Register), Name: p.Name, IM: p.IM, Address: p.Address, Number: p.Number,
		Neighborhood: p.Neighborhood, CityIBGE: p.CityIBGE, City: p.City, State: p.State, Zip: p.Zip, Email: p.Email}
	if m, ok := brdoc.LookupIBGE(p.CityIBGE); ok {
		out.City, out.State = m.Name, m.State
	}
	return out
}

// fiscalInvoice builds the document of an order.
func fiscalInvoice(d store.InvoiceData) fiscal.Invoice {
	inv := fiscal.Invoice{Kind: d.Kind, Emitter: party(d.Emitter), Recipient: party(d.Recipient), Total: d.Value.Decimal,
		Freight: d.FreightTotal.Decimal, FreightMode: d.FreightMode, TipoDocumento: d.TipoDocumento, Finalidade: d.FinalidadeEmissao,
		Presenca: d.PresencaComprador, ConsumidorFinal: d.ConsumidorFinal, LocalDestino: d.LocalDestino, PaymentKey: d.PaymentKey}
	for _, it := range d.Items {
		inv.Items = append(inv.Items, fiscal.Item{Code: it.Code[:8], Description: it.Description, NCM: it.NCM, CFOP: it.CFOP, Unit: it.Unit,
			Quantity: it.Quantity.Decimal, UnitValue: it.UnitValue.Decimal, Total: it.UnitValue.Mul(it.Quantity.Decimal).Round(2)})
	}
	t := d.Taxes
	gross := t.TaxServiceGrossAmount.Decimal
	if gross.IsZero() {
		gross = d.Value.Decimal
	}
	inv.Service = fiscal.Service{Code: d.ServiceCod, ID: d.ServiceID, Description: d.Description, Location: d.ServiceLocation,
		Gross: gross, Deductions: t.TaxServiceDeductionAmount.Decimal, Base: t.TaxServiceBaseAmount.Decimal,
		ISSRate: t.TaxIssRatePercent.Decimal, ISSAmount: t.TaxIssAmount.Decimal, Retentions: t.RetTotalAmount.Decimal,
		Net: t.NetReceivableAmount.Decimal}
	if inv.Service.Net.IsZero() {
		inv.Service.Net = d.Value.Sub(t.RetTotalAmount.Decimal)
	}
	return inv
}

// issueInvoice issues an order's invoice through the authority: validate
// (422 listing every problem), take a number, build and authorize the
// document, store it. An order whose invoice is authorized answers it:
// issuing twice issues once.
func (s *Server) issueInvoice(ctx context.Context, db *store.DB, unitID int64, orderToken string) (_ store.Invoice, err error) {
	// One issue per order at a time: two requests for one order each took
	// a number and had a document authorized, and the second was thrown
	// away when the first was stored (an authorized document lost, and a
	// number spent for nothing).
	h := fnv.New32a()
	io.WriteString(h, db.Name+"\x00"+orderToken)
	mu := &s.issuing[h.Sum32()%uint32(len(s.issuing))]
	mu.Lock()
	defer mu.Unlock()
	d, err := db.InvoiceData(ctx, unitID, orderToken)
	if errors.Is(err, store.ErrNotFound) {
		return store.Invoice{}, errSalesOrderNotFound
	}
	if err != nil {
		return store.Invoice{}, err
	}
	if d.Existing != nil {
		return *d.Existing, nil
	}
	if !d.Active {
		return store.Invoice{}, errOrderDisabled
	}
	inv := fiscalInvoice(d)
	if problems := fiscal.Validate(inv); len(problems) > 0 {
		return store.Invoice{}, &Error{Status: http.StatusUnprocessableEntity, Text: textInvoiceInvalid, Details: map[string]any{"problems": problems}}
	}
	n, err := db.ReserveInvoiceNumber(ctx, unitID, inv.Kind, invoiceSeries)
	if err != nil {
		return store.Invoice{}, err
	}
	// Until the authority authorizes (or denies) the document, its number
	// is only lent: on any other way out it is given back.
	used := false
	defer func() {
		if !used {
			if rerr := db.ReleaseInvoiceNumber(context.WithoutCancel(ctx), unitID, inv.Kind, invoiceSeries, n); rerr != nil && err == nil {
				err = rerr
			}
		}
	}()
	inv.Series, inv.Number, inv.Issued = invoiceSeries, n, db.Now()
	codeLen := 8
	if inv.Kind == fiscal.NFSeN {
		codeLen = 9
	}
	inv.Code = fiscal.RandomCode(fmt.Sprintf("%s:%s:%d:%d", orderToken, inv.Kind, invoiceSeries, n), codeLen)
	rec := store.NewInvoice{Kind: inv.Kind, Series: inv.Series, Number: n, Issued: inv.Issued}
	switch inv.Kind {
	case fiscal.NFe, fiscal.NFCe:
		rec.AccessKey = fiscal.AccessKey(inv)
	case fiscal.NFSeN:
		rec.AccessKey = fiscal.NationalKey(inv)
	case fiscal.NFSe:
		rec.Verification = strings.ToUpper(inv.Code)
	}
	if m, ok := s.authorityFor(db.Name); ok {
		switch m.Mode {
		case "reject":
			// A denial (SEFAZ's 301 to 303, "uso denegado") is recorded by
			// the authority: its number is spent. Any other rejection
			// leaves the number free.
			used = m.Code >= 301 && m.Code <= 303
			return store.Invoice{}, &Error{Status: http.StatusUnprocessableEntity, Text: textInvoiceRejected,
				Details: map[string]any{"code": m.Code, "reason": m.Reason}}
		case "delay":
			time.Sleep(time.Duration(m.DelayMS) * time.Millisecond)
		}
	}
	auth, err := s.cfg.Authority.Authorize(ctx, inv, rec.AccessKey+rec.Verification)
	if err != nil {
		return store.Invoice{}, errProviderDown
	}
	used = true // authorized: the number is the document's, whatever follows
	rec.Protocol = auth.Protocol
	switch inv.Kind {
	case fiscal.NFe, fiscal.NFCe:
		rec.XML, err = fiscal.NFeXML(inv, rec.AccessKey, auth)
	case fiscal.NFSeN:
		rec.XML, err = fiscal.NationalXML(inv, rec.AccessKey, auth)
	case fiscal.NFSe:
		rec.XML, err = fiscal.MunicipalXML(inv, rec.Verification, auth)
	}
	if err != nil {
		return store.Invoice{}, err
	}
	public, err := db.EnsurePublicToken(ctx, unitID, orderToken)
	if err != nil {
		return store.Invoice{}, err
	}
	notice, err := s.invoiceNotice(d, "invoice_issued", public, rec.Invoice())
	if err != nil {
		return store.Invoice{}, err
	}
	return db.SaveInvoice(ctx, d.OrderID, unitID, rec, auth.Message+" (protocolo "+auth.Protocol+")", notice)
}

// invoiceNotice renders the e-mail that carries an invoice's documents to
// notify_email_nf. The order's public token may be set only when the
// invoice is saved: the links then use it.
func (s *Server) invoiceNotice(d store.InvoiceData, kind, publicToken string, inv store.Invoice) (*store.Notice, error) {
	if d.NotifyEmailNF == "" || publicToken == "" {
		return nil, nil
	}
	base := s.cfg.PublicURL + Prefix + "/sales_orders/"
	n, err := s.notice(kind, d.NotifyEmailNF, "", render.MailData{Seller: d.Emitter.Name, Customer: d.Recipient.Name, OrderCode: d.CodOrders,
		Description: d.Description, Amount: render.BRL(d.Value.String()), PaymentURL: base + "public_danfe/" + publicToken,
		Extra: "XML: " + base + "public_nf_xml/" + publicToken})
	if n == nil || err != nil {
		return n, err
	}
	// The recipient keeps the documents themselves (the buyer of an NF-e
	// must be able to keep its XML), not only links to them.
	xml := invoiceXML(inv)
	pdf, err := danfePDF(inv, fiscalInvoice(d))
	if err != nil {
		return nil, err
	}
	n.Attachments = []store.Attachment{{Name: xml.name, ContentType: "application/xml", Data: xml.body},
		{Name: pdf.name, ContentType: "application/pdf", Data: pdf.body}}
	return n, nil
}

// invoiceAnswer is the data of /generate_nf.
type invoiceAnswer struct {
	IDToken string `json:"id_token"`
	store.Invoice
	XMLURL   store.Text `json:"xml_url"`
	DANFEURL store.Text `json:"danfe_url"`
}

func (s *Server) invoiceAnswer(db *store.DB, unitID int64, orderToken string, inv store.Invoice) invoiceAnswer {
	a := invoiceAnswer{IDToken: orderToken, Invoice: inv}
	if o, err := db.SalesOrder(context.Background(), unitID, orderToken); err == nil && o.PublicToken.Valid {
		base := s.cfg.PublicURL + Prefix + "/sales_orders/"
		a.XMLURL, a.DANFEURL = store.NewText(base+"public_nf_xml/"+o.PublicToken.String), store.NewText(base+"public_danfe/"+o.PublicToken.String)
	}
	return a
}

// generateNF issues the order's invoice (its nf_kind).
func (s *Server) generateNF(r *request) (any, error) {
	var q idRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	inv, err := s.issueInvoice(r.ctx, r.db, r.unit.ID, q.IDToken)
	if err != nil {
		return nil, err
	}
	return withMessage{Message: "Invoice issued successfully.", Data: s.invoiceAnswer(r.db, r.unit.ID, q.IDToken, inv)}, nil
}

type cancelNFRequest struct {
	IDToken string `json:"id_token" alias:"token"`
	Reason  string `json:"reason" alias:"justificativa,motivo"`
}

func (q *cancelNFRequest) validate() error {
	q.Reason = strings.TrimSpace(q.Reason)
	if q.IDToken == "" {
		return errMissing
	}
	if n := utf8.RuneCountInString(q.Reason); n < 15 || n > 255 {
		return errCancelReason
	}
	return nil
}

// cancelNF cancels the order's authorized invoice within the legal window
// (24 h by default, --nf-cancel-window), with a reason of at least 15
// characters.
func (s *Server) cancelNF(r *request) (any, error) {
	var q cancelNFRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	err := r.db.CancelInvoice(r.ctx, r.unit.ID, q.IDToken, q.Reason, s.cfg.NFCancelWindow, "Cancelada: "+q.Reason)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, errSalesOrderNotFound
	case errors.Is(err, store.ErrNoInvoice):
		return nil, errNoInvoice
	case errors.Is(err, store.ErrCancelWindow):
		return nil, errCancelWindow
	case err != nil:
		return nil, err
	}
	return created{Message: "Invoice cancelled successfully.", Token: q.IDToken}, nil
}

// sendDanfeXML e-mails the invoice's DANFE and XML links to notify_email_nf.
func (s *Server) sendDanfeXML(r *request) (any, error) {
	var q idRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	d, err := r.db.InvoiceData(r.ctx, r.unit.ID, q.IDToken)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errSalesOrderNotFound
	}
	if err != nil {
		return nil, err
	}
	if d.Existing == nil {
		return nil, errNoInvoice
	}
	if d.NotifyEmailNF == "" {
		return nil, errNoNFEmail
	}
	n, err := s.invoiceNotice(d, "invoice_issued", d.PublicToken, *d.Existing)
	if err != nil {
		return nil, err
	}
	if err := r.db.QueueInvoiceNotice(r.ctx, r.unit.ID, q.IDToken, *n); err != nil {
		return nil, err
	}
	return created{Message: "DANFE and XML sent.", Token: q.IDToken}, nil
}

// publicInvoice reads the invoice of a public token.
func (s *Server) publicInvoice(r *request) (*store.DB, store.Invoice, store.InvoiceData, func(), error) {
	token := r.params.ByName("token")
	db, release, err := s.publicDB(r.ctx, r.http, token)
	if err != nil {
		return nil, store.Invoice{}, store.InvoiceData{}, nil, err
	}
	inv, unitID, order, err := db.PublicInvoice(r.ctx, token)
	if err == nil {
		var d store.InvoiceData
		d, err = db.InvoiceData(r.ctx, unitID, order)
		if err == nil {
			return db, inv, d, release, nil
		}
	}
	release()
	if errors.Is(err, store.ErrNotFound) {
		err = errInvoiceUnknown
	}
	return nil, store.Invoice{}, store.InvoiceData{}, nil, err
}

// xmlDocument is an XML download.
type xmlDocument struct {
	name string
	body []byte
}

// invoiceFile is the base name of an invoice's documents (XML, PDF): its
// access key, or its kind and number when it has none (municipal NFS-e).
func invoiceFile(inv store.Invoice) string {
	if inv.AccessKey.String != "" {
		return inv.AccessKey.String
	}
	return inv.Kind + "-" + strconv.Itoa(inv.Number)
}

// invoiceXML is an invoice's XML document.
func invoiceXML(inv store.Invoice) xmlDocument {
	return xmlDocument{name: invoiceFile(inv) + ".xml", body: []byte(inv.XML)}
}

func (x xmlDocument) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+x.name+`"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// The customer's invoice: no shared cache keeps it.
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'; frame-ancestors 'none'")
	w.WriteHeader(http.StatusOK)
	w.Write(x.body)
}

// publicNFXML (GET) downloads the invoice's XML.
func (s *Server) publicNFXML(r *request) (any, error) {
	_, inv, _, release, err := s.publicInvoice(r)
	if err != nil {
		return nil, err
	}
	defer release()
	return invoiceXML(inv), nil
}

// danfeData is what the DANFE shows of an invoice, as a page and as a PDF.
// The bar code image is the page's alone (the PDF draws its own bars).
func danfeData(inv store.Invoice, fi fiscal.Invoice) render.DANFEData {
	v := render.DANFEData{Number: inv.Number, Series: inv.Series, Protocol: inv.Protocol, IssuedAt: formatIssued(inv.IssuedTime()),
		Emitter: fi.Emitter.Name, EmitterRegister: brdoc.FormatCNPJ(fi.Emitter.Register), Recipient: fi.Recipient.Name,
		RecipientRegister: fi.Recipient.Register, Verification: inv.Verification.String, Cancelled: inv.Status == "CANCELLED",
		CancelledAt: inv.CancelledAt.String}
	switch inv.Kind {
	case fiscal.NFe, fiscal.NFCe:
		v.Title = map[string]string{fiscal.NFe: "DANFE", fiscal.NFCe: "DANFE NFC-e"}[inv.Kind]
		for _, it := range fi.Items {
			v.Items = append(v.Items, render.DocumentLine{Description: it.Description, NCM: it.NCM, CFOP: it.CFOP, Unit: it.Unit,
				Quantity: it.Quantity.String(), UnitValue: render.BRL(it.UnitValue.StringFixed(2)), Total: render.BRL(it.Total.StringFixed(2))})
		}
		v.Totals = []render.Labelled{{Label: "Frete", Value: render.BRL(fi.Freight.StringFixed(2))},
			{Label: "Valor total da nota", Value: render.BRL(fi.Total.Add(fi.Freight).StringFixed(2))}}
	default:
		v.Title = "NFS-e"
		v.Service = fi.Service.Code + " — " + fi.Service.Description
		v.Totals = []render.Labelled{{Label: "Valor do serviço", Value: render.BRL(fi.Service.Gross.StringFixed(2))},
			{Label: "ISS (" + fi.Service.ISSRate.StringFixed(2) + "%)", Value: render.BRL(fi.Service.ISSAmount.StringFixed(2))},
			{Label: "Retenções", Value: render.BRL(fi.Service.Retentions.StringFixed(2))},
			{Label: "Valor líquido", Value: render.BRL(fi.Service.Net.StringFixed(2))}}
	}
	if k := inv.AccessKey.String; k != "" {
		var groups []string
		for i := 0; i < len(k); i += 4 {
			groups = append(groups, k[i:min(i+4, len(k))])
		}
		v.Key = strings.Join(groups, " ")
	}
	return v
}

// publicDANFE (GET) is the printable invoice with the key's Code 128 bar
// code.
func (s *Server) publicDANFE(r *request) (any, error) {
	_, inv, d, release, err := s.publicInvoice(r)
	if err != nil {
		return nil, err
	}
	defer release()
	v := danfeData(inv, fiscalInvoice(d))
	if k := inv.AccessKey.String; k != "" {
		if v.Barcode, err = render.Code128DataURI(k); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if err := s.render.DANFE(&buf, v); err != nil {
		return nil, err
	}
	return s.newPage(http.StatusOK, buf.Bytes()), nil
}

// publicDANFEPDF (GET, a fincom route) is the DANFE as a PDF, for printing
// with the goods; the invoice e-mails carry it too.
func (s *Server) publicDANFEPDF(r *request) (any, error) {
	_, inv, d, release, err := s.publicInvoice(r)
	if err != nil {
		return nil, err
	}
	defer release()
	return danfePDF(inv, fiscalInvoice(d))
}

// danfePDF is an invoice's DANFE as a PDF file named as its XML is.
func danfePDF(inv store.Invoice, fi fiscal.Invoice) (pdfDocument, error) {
	b, err := render.DANFEPDF(danfeData(inv, fi))
	if err != nil {
		return pdfDocument{}, err
	}
	return pdfDocument{name: invoiceFile(inv) + ".pdf", body: b}, nil
}

// pdfDocument is a PDF answer, shown in place (a DANFE is for printing).
type pdfDocument struct {
	name string
	body []byte
}

func (p pdfDocument) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `inline; filename="`+p.name+`"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	w.Write(p.body)
}

func formatIssued(t time.Time) string {
	return render.DateTimeBR(t)
}
