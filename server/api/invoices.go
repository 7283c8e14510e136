package api

import (
	"strings"
	"unicode/utf8"

	"fincom/server/invoicing"
	"fincom/server/web"
	"fincom/store"
)

// invoices handles the routes of fiscal invoices (routes.go).
type invoices struct{ *API }

// issuedMessage is /generate_nf's message for each status of the invoice
// it answers.
var issuedMessage = map[string]string{
	store.InvoiceAuthorized:  "Invoice issued successfully.",
	store.InvoiceContingency: "The invoice was issued in contingency: it is valid for the sale, and fincom sends it to the tax authority as soon as it answers.",
	store.InvoicePending:     "The invoice was sent and waits for the tax authority's verdict: fincom asks for it until it comes.",
	store.InvoiceRejected:    "The tax authority rejected the invoice: fix what status_text says and issue it again.",
	store.InvoiceDenied:      "The tax authority denied the invoice (uso denegado): its number is spent and it cannot be issued again.",
	store.InvoiceCancelled:   "The invoice was cancelled.",
}

// invoiceAnswer is the data of /generate_nf.
type invoiceAnswer struct {
	IDToken string `json:"id_token" format:"uuid" doc:"The order's token."`
	store.Invoice
	XMLURL   store.Text `json:"xml_url" doc:"Where the invoice's XML is read (its public address); null before the order has a public token."`
	DANFEURL store.Text `json:"danfe_url" doc:"Where its DANFE (or the NFS-e's document) is read; null while there is none (only an authorized, cancelled or contingency invoice has one)."`
}

// generateNF issues the order's invoice (its nf_kind) once
// (invoicing.Service.Issue).
func (s invoices) generateNF(r *web.Request, q *web.IdRequest) (any, error) {
	inv, err := s.Invoices.Issue(r.Ctx, r.DB, r.Unit.ID, q.IDToken)
	if err != nil {
		return nil, err
	}
	o, err := r.DB.SalesOrder(r.Ctx, r.Unit.ID, q.IDToken)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: issuedMessage[inv.Status], Data: s.invoiceAnswer(q.IDToken, o.PublicToken.String, inv)}, nil
}

// invoiceAnswer is an order's invoice with the links to its documents.
func (s invoices) invoiceAnswer(orderToken, publicToken string, inv store.Invoice) invoiceAnswer {
	a := invoiceAnswer{IDToken: orderToken, Invoice: inv}
	if publicToken != "" {
		a.XMLURL = store.NewText(s.Links.InvoiceXML(publicToken))
		if invoicing.HasDANFE(inv) {
			a.DANFEURL = store.NewText(s.Links.DANFE(publicToken))
		}
	}
	return a
}

type cancelNFRequest struct {
	IDToken string `json:"id_token" alias:"token" required:"true" doc:"The sales order whose invoice is cancelled."`
	Reason  string `json:"reason" alias:"justificativa,motivo" doc:"Why the invoice is cancelled, sent to the authority (15 to 255 characters)."`
	// ReasonCode is a national NFS-e's cancellation reason (cMotivo):
	// 1 error in issuing, 2 service not provided, 9 other (the default).
	ReasonCode string `json:"reason_code" enum:"1,2,9" doc:"The national NFS-e's cancellation cMotivo: 1 error in issuing, 2 service not rendered, 9 other (the default)."`
}

func (q *cancelNFRequest) Validate() error { return eventReason(&q.Reason) }

// eventReason trims an authority event's reason (a cancellation's, a
// replacement's) and holds it to the 15 to 255 characters the schemas
// allow.
func eventReason(reason *string) error {
	*reason = strings.TrimSpace(*reason)
	if n := utf8.RuneCountInString(*reason); n < 15 || n > 255 {
		return web.ErrCancelReason
	}
	return nil
}

// cancelNF cancels the order's authorized invoice within the legal window
// (24 h by default, --nf-cancel-window), with a reason of at least 15
// characters.
func (s invoices) cancelNF(r *web.Request, q *cancelNFRequest) (any, error) {
	if err := s.Invoices.Cancel(r.Ctx, r.DB, r.Unit.ID, q.IDToken, q.Reason, q.ReasonCode); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Invoice cancelled successfully.", Token: q.IDToken}, nil
}

type replaceNFRequest struct {
	IDToken string `json:"id_token" alias:"token" required:"true" doc:"The sales order whose national NFS-e is replaced."`
	Reason  string `json:"reason" alias:"justificativa,motivo" required:"true" doc:"Why the note is replaced, sent to the national system (15 to 255 characters)."`
	// ReasonCode is the replacement's cMotivo (TSCodJustSubst).
	ReasonCode string `json:"reason_code" enum:"01,02,03,04,05,99" doc:"The national system cMotivo of a substitution: 01 out of the Simples Nacional, 02 into the Simples Nacional, 03 immunity or exemption added retroactively, 04 removed retroactively, 05 rejected by the taker or intermediary, 99 other (the default)."`
}

func (q *replaceNFRequest) Validate() error { return eventReason(&q.Reason) }

// replaceNF replaces the order's authorized national NFS-e by a note of
// the order as it is now.
func (s invoices) replaceNF(r *web.Request, q *replaceNFRequest) (any, error) {
	inv, err := s.Invoices.Replace(r.Ctx, r.DB, r.Unit.ID, q.IDToken, q.ReasonCode, q.Reason)
	if err != nil {
		return nil, err
	}
	o, err := r.DB.SalesOrder(r.Ctx, r.Unit.ID, q.IDToken)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Invoice replaced successfully.", Data: s.invoiceAnswer(q.IDToken, o.PublicToken.String, inv)}, nil
}

// sendDanfeXML e-mails the invoice's XML and DANFE to notify_email_nf.
func (s invoices) sendDanfeXML(r *web.Request, q *web.IdRequest) (any, error) {
	if err := s.Invoices.Send(r.Ctx, r.DB, r.Unit.ID, q.IDToken); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "DANFE and XML sent.", Token: q.IDToken}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docGenerateNF = "Issues the order's invoice of its `nf_kind` (`nfe`, `nfce`, `nfse` municipal, `nfsen` national) " +
		"through the tax authority. Every fiscal rule is checked first, and 422 `The order's fiscal data is " +
		"incomplete: fix every problem listed in details.` lists them all in `details.problems` (`[{field, " +
		"message}]`); nothing is issued half-way. Then a number is taken (series 1, sequential per unit and " +
		"kind; a number whose document was rejected or never sent is given back and taken by the next " +
		"invoice, a denied one is spent), the document is built, signed and sent, and the invoice is answered " +
		"with the authority's verdict in `status`, `status_code` (SEFAZ's cStat) and `status_text`, which the " +
		"order shows too (`nf`, `date_nf`, `nf_status`, `nf_status_text`, `nf_xml_url`); an authorized one is " +
		"e-mailed with its XML and DANFE to `notify_email_nf`. An NF-e or NFC-e goes to the " +
		"unit's SEFAZ (in test mode, the domain's local one, answered alike) (a national NFS-e to the national system, answered alike; its refusal spends the DPS " +
		"number) and /generate_nf waits up to 10 seconds for its verdict: `AUTHORIZED` (cStat 100 or 150; " +
		"`xml_url` serves the nfeProc), `REJECTED` (the number goes back; fix the order and call again), " +
		"`DENIED` (uso denegado, 110 or 301 to 303: the number is spent, the protocol kept, nothing is sent " +
		"again) or `PENDING` (no verdict yet, or SEFAZ unreachable: `xml_url` serves the signed note as sent, " +
		"and fincom asks SEFAZ for it by its key until the verdict comes; calling again does the same, never " +
		"a second note). Only an authorized (or cancelled) invoice has a `danfe_url`. For " +
		"the municipal NFS-e, the authority's refusal is 422 `The tax authority rejected the invoice: see details.` " +
		"and an authority that did not answer 502 `The tax authority did not answer. Try again: the invoice " +
		"will not be issued twice.` Issuing twice issues once; concurrent requests for one order are taken " +
		"one after the other."
	docCancelNF = "Cancels the order's authorized invoice within the window after its authorization (24 hours, `serve " +
		"--nf-cancel-window`), with a `reason` of 15 to 255 characters (aliases `justificativa`, `motivo`); a " +
		"national NFS-e's cancellation takes an optional `reason_code` (`\"1\"` error in issuing, `\"2\"` service " +
		"not provided, `\"9\"` other, the default), sent as the event's cMotivo. " +
		"409 `The invoice can no longer be cancelled: its cancellation window has closed.`, `The order has " +
		"no authorized invoice.`. An NF-e's or NFC-e's cancellation is registered at SEFAZ " +
		"(in test mode, the domain's local one; event 110111), whose window it is, before fincom records it: its refusal is 422 `The tax authority refused the " +
		"cancellation: see details.` with SEFAZ's `details.code` and `details.reason`, an authority that " +
		"did not answer 502, and the note stays authorized. An order whose invoice was cancelled can be invoiced again (the next " +
		"number)."
	docReplaceNF = "Replaces the order's authorized national NFS-e (`nfsen`) by a note of the order as it is now, with " +
		"the taker's and the unit's data as they are now (after `/update_contact` corrected the taker, say): a new DPS (the next number) carrying `subst` with the " +
		"replaced key, `reason_code` (`\"01\"` to `\"05\"`, `\"99\"` other, the default) and `reason` (15 to 255 " +
		"characters), sent to the national system while the old note is valid; the system cancels the old note itself " +
		"(e105102). Both are recorded at once: the old invoice `CANCELLED` (the note that replaced it kept as its " +
		"cancellation event), the new one the order's invoice, " +
		"answered as `/generate_nf` answers. 422 `Only an authorized national NFS-e is replaced by another.`; the system's " +
		"refusal 422 `The national NFS-e system refused the replacement: see details.` (its codes in `details`); a lost answer " +
		"502: called again, the same DPS is asked for first and never issued twice."
	docSendDanfeXML = "E-mails the invoice's XML and its DANFE as a PDF (named `<access key>.xml` and `.pdf`, or " +
		"`nfse-<number>`), with their links, to `notify_email_nf` again (400 `The sales order has no " +
		"notify_email_nf.`). The files go with the message as queued; their bytes are dropped once it is " +
		"sent."
)
