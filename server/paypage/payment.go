package paypage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"

	"fincom/render"
	"fincom/render/pix"
	"fincom/server/billing"
	"fincom/server/brdoc"
	"fincom/server/web"
	"fincom/store"
)

// newPage is an HTML answer under the pages' Content-Security-Policy.
func (s *Pages) newPage(status int, body []byte) web.Page {
	return web.HtmlPage(status, body, s.Render.PageCSP())
}

// errorPage renders a public route's failure as a page.
func (s *Pages) errorPage(err error) web.Page {
	var e *web.Error
	if !errors.As(err, &e) {
		e = web.NewError(http.StatusInternalServerError, "Algo deu errado. Tente de novo mais tarde.")
	}
	var buf bytes.Buffer
	title := map[int]string{404: "Página não encontrada", 429: "Muitas requisições"}[web.StatusOf(e)]
	if title == "" {
		title = "Não foi possível atender"
	}
	s.Render.ErrorPage(&buf, title, e.Text)
	return s.newPage(web.StatusOf(e), buf.Bytes())
}

// publicDB opens the domain a public token names. Unknown tokens are not
// found (the routes' pageErrs, docErrs), never an error that tells
// domains apart.
func (s *Pages) publicDB(ctx context.Context, r *http.Request, token string) (*store.DB, func(), error) {
	if !s.Limiter.Allow(r) {
		return nil, nil, web.ErrTooManyRequests
	}
	name, ok := store.PublicTokenDomain(token)
	if !ok {
		return nil, nil, errPortalNotFound
	}
	return s.Domains.Acquire(ctx, name)
}

// portalOrder opens the domain of a public token and reads its order.
func (s *Pages) portalOrder(r *web.Request, token string) (*store.DB, store.PortalOrder, func(), error) {
	db, release, err := s.publicDB(r.Ctx, r.HTTP, token)
	if err != nil {
		return nil, store.PortalOrder{}, nil, err
	}
	o, err := db.PortalOrder(r.Ctx, token)
	if err != nil {
		release()
		return nil, store.PortalOrder{}, nil, err
	}
	return db, o, release, nil
}

// pageLinks are the portal's links within its own pages: paths, so that
// they work however the server is reached.
var pageLinks = render.Links{}

// publicPayment (GET) is the order's payment page: seller, order, amount,
// due dates and the ways to pay (boleto line with a copy button, PIX QR and
// copy-and-paste code). Viewing it is recorded.
func (s *Pages) publicPayment(r *web.Request) (any, error) {
	token := r.Params.ByName("token")
	db, o, release, err := s.portalOrder(r, token)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := db.RecordPortalEvent(r.Ctx, token, "viewed", ""); err != nil {
		return nil, err
	}
	d := render.PaymentPageData{Seller: o.UnitName, SellerCNPJ: brdoc.FormatCNPJ(o.UnitCNPJ), Customer: o.ContactName, OrderCode: o.CodOrders,
		Description: o.Description, Total: render.BRL(o.Value.String()), Status: web.StatusNames[o.Status], Token: token,
		EventURL: pageLinks.Event()}
	if d.Status == "" {
		d.Status = o.Status
	}
	for _, c := range o.Charges {
		v := render.ChargeView{Installment: c.Installment, Installments: c.Installments, PaymentMethod: render.PaymentMethodName(c.PaymentKey),
			Amount: render.BRL(c.Amount.String()), DueDate: render.DateBR(c.DueDate), Status: web.StatusNames[c.Status],
			Paid: c.Status == store.ChargePaid}
		switch {
		case c.BoletoLine.Valid && (c.Registration.String == "pending" || c.Registration.String == "sent"):
			v.BoletoNotice = web.TextBoletoRegistering
		case c.BoletoLine.Valid && c.Registration.String == "rejected":
			v.BoletoNotice = web.TextBoletoRejected
		case c.BoletoLine.Valid:
			v.BoletoLine, v.BoletoURL = render.FormatLine(c.BoletoLine.String), pageLinks.Boleto(token, c.Installment)
		}
		if c.PixPayload.Valid {
			v.PixPayload, v.PixQRURL = c.PixPayload.String, pageLinks.PixQR(token, c.Installment)
		}
		d.Charges = append(d.Charges, v)
	}
	var buf bytes.Buffer
	if err := s.Render.PaymentPage(&buf, d); err != nil {
		return nil, err
	}
	return s.newPage(http.StatusOK, buf.Bytes()), nil
}

// portalCharge finds the charge of the ?installment= query (default: the
// first that has what want asks for).
func portalCharge(r *web.Request, o store.PortalOrder, want func(store.Charge) bool) (store.Charge, error) {
	n := r.Query["installment"]
	for _, c := range o.Charges {
		if (n == 0 || c.Installment == n) && want(c) {
			return c, nil
		}
	}
	return store.Charge{}, errPortalNotFound
}

// publicBoleto (GET) is a printable boleto: linha digitável and the bar
// code drawn as Interleaved 2 of 5.
func (s *Pages) publicBoleto(r *web.Request) (any, error) {
	d, c, err := s.boleto(r)
	if err != nil {
		return nil, err
	}
	if d.BarcodeImage, err = render.BarcodeDataURI(c.BoletoBarcode.String); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := s.Render.BoletoPage(&buf, d); err != nil {
		return nil, err
	}
	return s.newPage(http.StatusOK, buf.Bytes()), nil
}

// publicBoletoPDF (GET, a fincom route) is the boleto as a PDF.
func (s *Pages) publicBoletoPDF(r *web.Request) (any, error) {
	d, c, err := s.boleto(r)
	if err != nil {
		return nil, err
	}
	b, err := render.BoletoPDF(d, c.BoletoBarcode.String)
	if err != nil {
		return nil, err
	}
	return pdfDocument(fmt.Sprintf("boleto-%s-%d.pdf", d.OrderCode, c.Installment), b), nil
}

// boleto reads what a boleto shows of the public token's open boleto
// charge, and records that the payer opened it.
func (s *Pages) boleto(r *web.Request) (render.BoletoPageData, store.Charge, error) {
	token := r.Params.ByName("token")
	db, o, release, err := s.portalOrder(r, token)
	if err != nil {
		return render.BoletoPageData{}, store.Charge{}, err
	}
	defer release()
	c, err := portalCharge(r, o, func(c store.Charge) bool { return c.BoletoLine.Valid })
	if err != nil {
		return render.BoletoPageData{}, store.Charge{}, err
	}
	// A boleto the bank has not registered would be refused by the
	// payer's bank: it is shown once registered (or simulated).
	switch c.Registration.String {
	case "pending", "sent":
		return render.BoletoPageData{}, c, errBoletoRegistering
	case "rejected":
		return render.BoletoPageData{}, c, errBoletoRejected
	}
	info, err := db.BoletoInfo(r.Ctx, token, c.Token)
	if err != nil {
		return render.BoletoPageData{}, store.Charge{}, err
	}
	if err := db.RecordPortalEvent(r.Ctx, token, "opened_boleto", strconv.Itoa(c.Installment)); err != nil {
		return render.BoletoPageData{}, store.Charge{}, err
	}
	return billing.BoletoDocument(o, c, info), c, nil
}

// publicPixQR (GET) is the PNG QR code of a charge's BR Code.
func (s *Pages) publicPixQR(r *web.Request) (any, error) {
	token := r.Params.ByName("token")
	_, o, release, err := s.portalOrder(r, token)
	if err != nil {
		return nil, err
	}
	defer release()
	c, err := portalCharge(r, o, func(c store.Charge) bool { return c.PixPayload.Valid })
	if err != nil {
		return nil, err
	}
	img, err := pix.QRPNG(c.PixPayload.String, 320)
	if err != nil {
		return nil, err
	}
	return web.PngImage(img), nil
}

type publicEventRequest struct {
	Token  string `json:"token" alias:"public_token" required:"true" doc:"The order's public token."`
	Event  string `json:"event" alias:"kind" required:"true" enum:"viewed,copied_boleto,copied_pix,opened_boleto,printed_boleto" doc:"What the payer did."`
	Detail string `json:"detail" text:"multiline" doc:"More about it (several lines)."`
}

func (q *publicEventRequest) Validate() error {
	if utf8.RuneCountInString(q.Detail) > 500 {
		return web.ErrTooLong
	}
	return nil
}

// publicEvent records an event of the portal for the order.
func (s *Pages) publicEvent(r *web.Request, q *publicEventRequest) (any, error) {
	db, release, err := s.publicDB(r.Ctx, r.HTTP, q.Token)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := db.RecordPortalEvent(r.Ctx, q.Token, q.Event, q.Detail); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Event recorded.", Token: q.Token}, nil
}

type publicPayRequest struct {
	Token       string       `json:"token" alias:"public_token" required:"true" doc:"The order's public token."`
	Installment int          `json:"installment" doc:"The installment paid (default: the first open)."`
	Amount      *store.Money `json:"amount" doc:"The amount paid (default: the charge's)."`
}

func (q *publicPayRequest) Validate() error {
	if q.Amount != nil && !q.Amount.IsPositive() {
		return web.ErrInvalidValue
	}
	return nil
}

// publicPay is the portal's "pay now". A payment is confirmed by the party
// that received the money (the provider, the bank's return file, the
// statement), never by the payer, and no provider takes payments on the
// portal: outside test mode it answers 409 and settles nothing
// (TestPublicPayInProduction). In test mode it is the simulated payer
// (billing.Service.Pay).
func (s *Pages) publicPay(r *web.Request, q *publicPayRequest) (any, error) {
	db, release, err := s.publicDB(r.Ctx, r.HTTP, q.Token)
	if err != nil {
		return nil, err
	}
	defer release()
	if !s.TestMode {
		if _, err := db.PortalOrder(r.Ctx, q.Token); err != nil {
			return nil, err
		}
		return nil, errOnlinePayment
	}
	p, err := s.Billing.Pay(r.Ctx, db, q.Token, q.Installment, q.Amount)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Payment confirmed.", Data: p}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docPublicPayment = "The order's payment page (HTML, Portuguese, mobile-first), by its public token (`fcp_…`, in " +
		"`payment_url`): seller and CNPJ, order, customer, amount, each installment's due date and status, " +
		"the boleto line with a copy button and a link to the printable boleto, the PIX QR code and " +
		"copy-and-paste code. Viewing and copying are recorded. Unknown, disabled and cancelled orders " +
		"answer a 404 page; 120 requests a minute per address (429)."
	docPublicBoleto = "The printable boleto of an installment (`?installment=N`; default the first with a boleto): the " +
		"typeable line and the bar code drawn as Interleaved 2 of 5. Records an `opened_boleto` event."
	docPublicBoletoPDF = "The boleto of an installment as an A4 PDF: the payer's receipt and the slip with the bar code at " +
		"FEBRABAN's 103 × 13 mm."
	docPublicPixQR = "The BR Code of an installment's PIX charge as a PNG QR code."
	docPublicEvent = "Records what the payer did on the portal: `token`, `event` (`viewed`, `copied_boleto`, " +
		"`copied_pix`, `opened_boleto`, `printed_boleto`), optional `detail`."
	docPublicPay = "A payment is confirmed by the party that received the money, never by the payer: outside test mode " +
		"this route settles nothing and answers 409 `Online payment is not available for this charge: pay " +
		"the boleto or the PIX code.` In test mode it is the simulated payer: `{token, installment, amount}` " +
		"(both optional: the first open installment, its amount) pays the charge, recorded as `settlement` " +
		"`exact`, `partial` (less than the amount), `over` (more, on time) or `late` (after the due date, at " +
		"least the amount); with `in_automation` the income entry is booked (paid today, on the order's bank " +
		"account and category), with `conciliation` it is reconciled, with `generateNFWebhook` the invoice " +
		"is issued. 409 `There is no open charge to pay.`"
)
