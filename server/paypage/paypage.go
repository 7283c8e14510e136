// Package paypage is the public payment page: what an order's customer
// reaches by its public token (spec, Authentication 7), without any other
// token: the payment page, the boleto and its PDF, the PIX QR code, the
// invoice's DANFE, XML and events, and the page's events and test mode's
// simulated payer. Its routes are declared here, mounted beside the API's;
// it reaches the business through the billing and invoicing services.
package paypage

import (
	"net/http"

	"fincom/render"
	"fincom/server/billing"
	"fincom/server/invoicing"
	"fincom/server/web"
	"fincom/store"
)

// Pages is the payment page's audience: the services it reads through.
type Pages struct {
	Domains  *store.Domains
	Render   *render.Renderer
	Billing  *billing.Service
	Invoices *invoicing.Service
	// Limiter bounds each client address's requests to the public routes
	// (shared with the PSP's callbacks).
	Limiter  *web.RateLimiter
	TestMode bool
}

var (
	errOnlinePayment  = web.NewError(http.StatusConflict, "Online payment is not available for this charge: pay the boleto or the PIX code.")
	errPortalNotFound = web.NewError(http.StatusNotFound, "Pedido não encontrado ou cobrança cancelada.")
	// A boleto the bank has not registered yet (or refused) is not shown:
	// the payer's bank would refuse it.
	errBoletoRegistering = web.NewError(http.StatusConflict, web.TextBoletoRegistering)
	errBoletoRejected    = web.NewError(http.StatusConflict, web.TextBoletoRejected)
	errInvoiceUnknown    = web.NewError(http.StatusNotFound, "Nota fiscal não encontrada.")
	errNoDANFE           = web.NewError(http.StatusConflict, "Esta nota fiscal não foi autorizada pela SEFAZ: ela não tem DANFE.")
	errNoEvent           = web.NewError(http.StatusNotFound, "The invoice has no such event registered by the tax authority.")
)

// installmentQuery is the ?installment=N of the portal's documents: which
// installment's charge (default: the first that has one).
var installmentQuery = []web.QueryParam{{Name: "installment", Doc: "The installment (1, 2, ...); default: the first that has this document."}}

// sequenceQuery is the ?sequence=N of an invoice's event: which of its
// kind (default: the latest).
var sequenceQuery = []web.QueryParam{{Name: "sequence", Doc: "The event's sequence (1, 2, ...); default: the latest."}}

// What the routes answer for an unknown public token: the page's order,
// or the invoice of the documents' routes.
var (
	// Every public route is rate-limited per client address (publicDB).
	pageErrs = append(web.Answers(web.ErrTooManyRequests), web.ErrMap{{store.ErrNoDomain, errPortalNotFound}, {store.ErrNotFound, errPortalNotFound}}...)
	docErrs  = append(web.Answers(web.ErrTooManyRequests), web.ErrMap{{store.ErrNoDomain, errPortalNotFound}, {store.ErrNotFound, errInvoiceUnknown}}...)
	// The boleto's and the DANFE's routes also refuse a boleto the bank
	// has not registered and a note SEFAZ has not authorized; an event's,
	// an event not registered; the payer's payment, outside test mode.
	boletoErrs = append(web.Answers(errBoletoRegistering, errBoletoRejected), pageErrs...)
	danfeErrs  = append(web.Answers(errNoDANFE), docErrs...)
	eventErrs  = append(web.Answers(errNoEvent), docErrs...)
	payErrs    = append(web.Answers(errOnlinePayment, web.ErrInvalidValue, store.ErrNothingToPay), pageErrs...)
)

// Routes are the payment page's routes.
func (s *Pages) Routes() []web.Route {
	return []web.Route{
		// The public payment portal: no tokens but the order's public one
		// (spec, Authentication 7); rate-limited per client address.
		{Method: http.MethodGet, Path: "/sales_orders/public_payment/:token", Do: web.Plain(s.publicPayment), Auth: web.AuthPublic, Envelope: web.EnvHTML, Texts: web.TextsDefault, Errs: pageErrs,
			Doc: web.Doc{ExampleParam: `fcp_acme_5e0c9b2a7d41f386`, Tag: web.TagPortal, Summary: "The order's payment page.", Desc: docPublicPayment, Raw: "text/html"}},
		{Method: http.MethodGet, Path: "/sales_orders/public_boleto/:token", Do: web.Plain(s.publicBoleto), Query: installmentQuery, Auth: web.AuthPublic, Envelope: web.EnvHTML, Texts: web.TextsDefault, Errs: boletoErrs,
			Doc: web.Doc{ExampleParam: `fcp_acme_2c7e9d4b1a0f6358`, Tag: web.TagPortal, Summary: "The printable boleto.", Desc: docPublicBoleto, Raw: "text/html"}},
		{Method: http.MethodGet, Path: "/sales_orders/public_boleto_pdf/:token", Do: web.Plain(s.publicBoletoPDF), Query: installmentQuery, Auth: web.AuthPublic, Envelope: web.EnvHTML, Texts: web.TextsDefault, Errs: boletoErrs,
			Doc: web.Doc{ExampleParam: `fcp_acme_2c7e9d4b1a0f6358`, Tag: web.TagPortal, Summary: "The boleto as a PDF (a fincom route).", Desc: docPublicBoletoPDF, Raw: "application/pdf"}},
		{Method: http.MethodGet, Path: "/sales_orders/public_pix_qr/:token", Do: web.Plain(s.publicPixQR), Query: installmentQuery, Auth: web.AuthPublic, Envelope: web.EnvHTML, Texts: web.TextsDefault, Errs: pageErrs,
			Doc: web.Doc{ExampleParam: `fcp_acme_5e0c9b2a7d41f386`, Tag: web.TagPortal, Summary: "The PIX BR Code as a QR code image.", Desc: docPublicPixQR, Raw: "image/png"}},
		{Method: http.MethodGet, Path: "/sales_orders/public_danfe/:token", Do: web.Plain(s.publicDANFE), Auth: web.AuthPublic, Envelope: web.EnvHTML, Texts: web.TextsDefault, Errs: danfeErrs,
			Doc: web.Doc{ExampleParam: `fcp_acme_5e0c9b2a7d41f386`, Tag: web.TagPortal, Summary: "The invoice's DANFE page (a fincom route).", Desc: docPublicDANFE, Raw: "text/html"}},
		{Method: http.MethodGet, Path: "/sales_orders/public_danfe_pdf/:token", Do: web.Plain(s.publicDANFEPDF), Auth: web.AuthPublic, Envelope: web.EnvHTML, Texts: web.TextsDefault, Errs: danfeErrs,
			Doc: web.Doc{ExampleParam: `fcp_acme_5e0c9b2a7d41f386`, Tag: web.TagPortal, Summary: "The invoice's DANFE as a PDF (a fincom route).", Desc: docPublicDANFEPDF, Raw: "application/pdf"}},
		{Method: http.MethodGet, Path: "/sales_orders/public_nf_xml/:token", Do: web.Plain(s.publicNFXML), Auth: web.AuthPublic, Envelope: web.EnvHTML, Texts: web.TextsDefault, Errs: docErrs,
			Doc: web.Doc{ExampleParam: `fcp_acme_5e0c9b2a7d41f386`, Tag: web.TagPortal, Summary: "The authorized invoice's XML (a fincom route).", Desc: docPublicNFXML, Raw: "application/xml"}},
		{Method: http.MethodGet, Path: "/sales_orders/public_nf_cancellation_xml/:token", Do: web.Plain(s.publicEventXML(invoicing.EventCancellation)), Auth: web.AuthPublic, Envelope: web.EnvHTML, Texts: web.TextsDefault, Errs: eventErrs,
			Doc: web.Doc{ExampleParam: `fcp_acme_5e0c9b2a7d41f386`, Tag: web.TagPortal, Summary: "The invoice's cancellation event as the authority registered it (a fincom route).", Desc: docPublicCancellationXML, Raw: "application/xml"}},
		{Method: http.MethodGet, Path: "/sales_orders/public_nf_correction_xml/:token", Do: web.Plain(s.publicEventXML(invoicing.EventCorrection)), Query: sequenceQuery, Auth: web.AuthPublic, Envelope: web.EnvHTML, Texts: web.TextsDefault, Errs: eventErrs,
			Doc: web.Doc{ExampleParam: `fcp_acme_8a3d6f1e0c9b7254`, Tag: web.TagPortal, Summary: "The invoice's correction letter as the authority registered it (a fincom route).", Desc: docPublicCorrectionXML, Raw: "application/xml"}},
		{Path: "/sales_orders/public_event", Do: web.Handle(s.publicEvent), Auth: web.AuthPublic, Texts: web.TextsDefault, Errs: pageErrs,
			Doc: web.Doc{Example: `{"token": "fcp_acme_5e0c9b2a7d41f386", "event": "copied_pix"}`, Tag: web.TagPortal, Summary: "Record a portal event (viewed, copied the PIX code, ...).", Desc: docPublicEvent, Resp: web.Done}},
		{Path: "/sales_orders/public_pay", Do: web.Handle(s.publicPay), Auth: web.AuthPublic, Texts: web.TextsDefault, Errs: payErrs,
			Doc: web.Doc{Example: `{"token": "fcp_acme_5e0c9b2a7d41f386"}`, Tag: web.TagPortal, Summary: "Pay from the portal: test mode's simulated payer; 409 outside test mode.", Desc: docPublicPay, Resp: web.WithMessage{Data: store.Payment{}}}},
	}
}

// ErrorPage is the answer of a failed route that answers HTML.
func (s *Pages) ErrorPage(err error) web.RawResponse { return s.errorPage(err) }
