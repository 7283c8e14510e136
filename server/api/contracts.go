package api

import (
	"encoding/json"
	"net/http"
	"strings"

	"fincom/render"
	"fincom/server/preview"
	"fincom/server/registers"
	"fincom/server/sales"
	"fincom/server/web"
	"fincom/store"
)

// contracts handles the routes of contracts and their templates (routes.go).
type contracts struct{ *API }

var (
	errContractNotFound = web.NewError(http.StatusNotFound, "Contract not found or not updated.")
	errTemplateNotFound = web.NewError(http.StatusNotFound, "Template not found.")
	errPreviewTarget    = web.NewError(http.StatusBadRequest, "Provide id_contract or id_token_template.")
	errContractNoFields = web.NewError(http.StatusBadRequest, web.TextNoFieldsToUpdate)
)

// contractRequest is the metadata of /insert_contract and /update_contract
// (spec, /insert_contract).
type contractRequest struct {
	IDToken          string          `json:"id_token" alias:"id_contract,token" doc:"The contract's token (an update's)."`
	Contact          *string         `json:"id_token_contact" max:"short"`
	Template         *string         `json:"id_token_template" max:"short"`
	ContractName     *string         `json:"contract_name" max:"short" doc:"The contract's name."`
	Status           *string         `json:"status" enum:"draft,active,expired,cancelled" max:"short" doc:"draft, active, expired or cancelled."`
	ValidityStart    *string         `json:"validity_start" format:"date" doc:"The first day the contract is valid."`
	ValidityEnd      *string         `json:"validity_end" pattern:"^([0-9]{4}-[0-9]{2}-[0-9]{2})?$" doc:"The last day it is valid; blank: no end."`
	IsRecurring      *bool           `json:"is_recurring" doc:"true: its order is billed again each period (recurrence_type)."`
	RecurrenceType   *string         `json:"recurrence_type" enum:"unique,monthly,yearly" max:"short" doc:"unique (once), monthly or yearly."`
	GeneratesPayment *bool           `json:"generates_payment" doc:"true: while active and recurring, its order is copied and charged for each period started."`
	AutoExtend       *bool           `json:"auto_extend" doc:"true: it does not expire after validity_end (the daily job keeps it active)."`
	OrderTokens      []string        `json:"id_token_sales_orders"`
	SalesOrder       json.RawMessage `json:"sales_order" doc:"The order the contract bills, with /insert_sales_order's fields flat (the spec's keys)."`
	Description      *string         `json:"description" text:"multiline" max:"long" doc:"What the contract is about (several lines)."`
}

func (q *contractRequest) Apply(f *store.ContractFields) error {
	for _, t := range []struct {
		dst, src *string
	}{{&f.ContactToken, q.Contact}, {&f.TemplateToken, q.Template}, {&f.Name, q.ContractName},
		{&f.Description, q.Description}, {&f.RecurrenceType, q.RecurrenceType}, {&f.Status, q.Status}} {
		web.SetText(t.dst, t.src)
	}
	if err := isoDate(&f.ValidityStart, q.ValidityStart, registers.ErrContractDates); err != nil {
		return err
	}
	if err := isoDate(&f.ValidityEnd, q.ValidityEnd, registers.ErrContractDates); err != nil {
		return err
	}
	for _, b := range []struct {
		dst *bool
		src *bool
	}{{&f.IsRecurring, q.IsRecurring}, {&f.GeneratesPayment, q.GeneratesPayment}, {&f.AutoExtend, q.AutoExtend}} {
		if b.src != nil {
			*b.dst = *b.src
		}
	}
	f.OrderTokens = q.OrderTokens
	switch {
	case f.ContactToken == "" || f.Name == "" || f.ValidityStart == "":
		return web.ErrMissing
	case f.IsRecurring && f.RecurrenceType == "":
		return web.ErrMissing
	}
	return registers.CheckContract(f)
}

type contractCreated struct {
	IDToken      string     `json:"id_token" format:"uuid" doc:"The contract's token."`
	IDSalesOrder store.Text `json:"id_sales_order" doc:"The token of the sales order made with it; null when none."`
}

// insertContract creates a draft contract (multipart: metadata + files)
// and, with `sales_order`, the order it bills (validated as
// /insert_sales_order validates, in the same transaction).
func (s contracts) insertContract(r *web.Request, q *contractRequest) (any, error) {
	f := store.ContractFields{Status: "draft"}
	if err := q.Apply(&f); err != nil {
		return nil, err
	}
	files, err := r.ReadFiles()
	if err != nil {
		return nil, err
	}
	var order *store.SalesOrderFields
	if len(q.SalesOrder) > 0 && string(q.SalesOrder) != "null" {
		var fields map[string]json.RawMessage
		if json.Unmarshal(q.SalesOrder, &fields) != nil || fields == nil {
			return nil, r.Route.FormatError("sales_order")
		}
		if _, ok := fields["id_token_contact"]; !ok {
			fields["id_token_contact"], _ = json.Marshal(f.ContactToken)
		}
		var so salesOrderRequest
		if err := r.Dec.FillIn("sales_order.", fields, nil, &so); err != nil {
			return nil, r.DecodeError(err)
		}
		o, err := so.order(r.Dec)
		if err != nil {
			return nil, err
		}
		// The contract makes the order later: checked and completed now
		// as any order is.
		of, err := sales.Prepare(r.Ctx, r.DB, r.Unit, o)
		if err != nil {
			return nil, err
		}
		order = &of
	}
	token, orderToken, err := r.DB.InsertContract(r.Ctx, r.Unit.ID, f, files, order)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Contract created successfully.", Data: contractCreated{IDToken: token, IDSalesOrder: store.NewText(orderToken)}}, nil
}

// updateContract changes the sent fields of a contract, adds files and
// links orders.
func (s contracts) updateContract(r *web.Request, q *contractRequest) (any, error) {
	if web.Sent(q.Contact, q.Template, q.ContractName, q.Status, q.ValidityStart, q.ValidityEnd, q.IsRecurring, q.RecurrenceType,
		q.GeneratesPayment, q.AutoExtend, q.Description) == 0 && len(q.OrderTokens) == 0 && len(r.Body.Files) == 0 {
		return nil, errContractNoFields
	}
	files, err := r.ReadFiles()
	if err != nil {
		return nil, err
	}
	if err := r.DB.UpdateContract(r.Ctx, r.Unit.ID, q.IDToken, q.Apply, files); err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Contract updated successfully.", Data: contractCreated{IDToken: q.IDToken}}, nil
}

type listContractsRequest struct {
	Contact string `json:"id_token_contact"`
	Status  string `json:"status" enum:"draft,active,expired,cancelled" doc:"Only contracts of this status."`
	ValidOn string `json:"valid_on" format:"date" doc:"Only contracts valid on this day."`
	Active  *bool  `json:"active" doc:"true or false: only contracts in that state; absent: all."`
	web.PageRequest
}

func (q *listContractsRequest) Validate() error {
	if q.ValidOn != "" {
		d, err := store.ParseDateISO(q.ValidOn)
		if err != nil {
			return registers.ErrContractDates
		}
		q.ValidOn = d.ISO()
	}
	return nil
}

// listContracts answers the unit's contracts with their files and orders.
func (s contracts) listContracts(r *web.Request, q *listContractsRequest) (any, error) {
	pg := q.StorePage()
	list, total, err := r.DB.Contracts(r.Ctx, r.Unit.ID, store.ContractFilter{ContactToken: q.Contact, Status: q.Status, ValidOn: q.ValidOn, Active: q.Active}, pg)
	return web.PageOf(list, total, pg, err)
}

// getContractFile answers the bytes of one file of a contract (a fincom
// route).
func (s contracts) getContractFile(r *web.Request, q *web.FileRequest) (any, error) {
	f, err := r.DB.ContractFile(r.Ctx, r.Unit.ID, q.IDToken, q.FileToken)
	if err != nil {
		return nil, err
	}
	return web.Download{File: f}, nil
}

// deleteContractFiles removes files of a contract, all or none.
func (s contracts) deleteContractFiles(r *web.Request, q *deleteFilesRequest) (any, error) {
	if err := r.DB.DeleteContractFiles(r.Ctx, r.Unit.ID, q.IDToken, q.Files); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Files deleted successfully.", Token: q.IDToken}, nil
}

// templateRequest is the body of the template routes (fincom routes).
type templateRequest struct {
	IDToken    string  `json:"id_token" alias:"id_token_template,token" doc:"The template's token (an update's)."`
	Name       *string `json:"name" max:"short" doc:"The template's name."`
	BodyHTML   *string `json:"body_html" alias:"html" text:"multiline" doc:"The contract's HTML with placeholders ({{contato_nome}}); sanitized when stored."`
	PageCSS    *string `json:"page_css" text:"multiline" doc:"The page's CSS (margins, fonts), sanitized."`
	HeaderHTML *string `json:"header_html" text:"multiline" doc:"The HTML repeated at the top of each page."`
	FooterHTML *string `json:"footer_html" text:"multiline" doc:"The HTML repeated at the foot of each page."`
}

// Apply sanitizes what it copies: template HTML is reduced to the
// allow-list before it is stored.
func (q *templateRequest) Apply(f *store.TemplateFields) error {
	web.SetText(&f.Name, q.Name)
	for _, t := range []struct {
		dst, src *string
		clean    func(string) string
	}{{&f.BodyHTML, q.BodyHTML, render.SanitizeHTML}, {&f.HeaderHTML, q.HeaderHTML, render.SanitizeHTML},
		{&f.FooterHTML, q.FooterHTML, render.SanitizeHTML}, {&f.PageCSS, q.PageCSS, render.SanitizeCSS}} {
		if t.src != nil {
			if len(*t.src) > 200_000 {
				return web.ErrTooLong
			}
			*t.dst = t.clean(*t.src)
		}
	}
	if f.Name == "" || strings.TrimSpace(f.BodyHTML) == "" {
		return web.ErrMissing
	}
	return nil
}

func (s contracts) insertContractTemplate(r *web.Request, q *templateRequest) (any, error) {
	var f store.TemplateFields
	if err := q.Apply(&f); err != nil {
		return nil, err
	}
	token, err := r.DB.InsertTemplate(r.Ctx, r.Unit.ID, f)
	if err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Template created successfully.", Token: token}, nil
}

func (s contracts) updateContractTemplate(r *web.Request, q *templateRequest) (any, error) {
	if err := r.DB.UpdateTemplate(r.Ctx, r.Unit.ID, q.IDToken, q.Apply); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Template updated successfully.", Token: q.IDToken}, nil
}

func (s contracts) listContractTemplates(r *web.Request) (any, error) {
	return r.DB.Templates(r.Ctx, r.Unit.ID)
}

func (s contracts) getContractTemplate(r *web.Request, q *web.IdRequest) (any, error) {
	return r.DB.Template(r.Ctx, r.Unit.ID, q.IDToken)
}

type previewRequest struct {
	IDContract string                     `json:"id_contract" alias:"id_token_contract" doc:"The contract rendered; or id_token_template."`
	Template   string                     `json:"id_token_template"`
	IDContact  string                     `json:"id_contact" alias:"id_token_contact"`
	Context    map[string]json.RawMessage `json:"preview_context" doc:"Overrides of the placeholders' values, by group (contract, contact, unit, order, payment)."`
}

func (q *previewRequest) Validate() error {
	if q.IDContract == "" && q.Template == "" {
		return errPreviewTarget
	}
	return nil
}

// getContractPreview renders a contract (id_contract) or a template
// (id_token_template, optionally for a contact) to HTML, with every
// placeholder's value in placeholder_dict; preview_context overrides them.
func (s contracts) getContractPreview(r *web.Request, q *previewRequest) (any, error) {
	p, err := preview.Render(r.Ctx, s.Render, r.DB, r.Unit, preview.Request{Contract: q.IDContract, Template: q.Template,
		Contact: q.IDContact, Context: q.Context})
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Contract preview rendered successfully.", Data: p}, nil
}

var errNoPixAutomatico = web.NewError(http.StatusConflict, "The contract's order does not charge on PIX automático acceptance (requested_payment_mode PIX_AUTOMATICO and generateChargeOnPixAutomaticAcceptance).")

// acceptPixAutomatico (a fincom route; spec, /insert_contract's rule)
// records that the payer accepted the contract's PIX automático
// recurrence: its order becomes due in 30 days and, with
// generateChargeOnPixAutomaticAcceptance and requested_payment_mode
// PIX_AUTOMATICO, its first charge is issued at once. Accepting again
// answers the same charge.
func (s contracts) acceptPixAutomatico(r *web.Request, q *web.IdRequest) (any, error) {
	order, err := r.DB.AcceptPixAutomatico(r.Ctx, r.Unit.ID, q.IDToken)
	if err != nil {
		return nil, err
	}
	if err := s.Billing.IssueCharges(r.Ctx, r.DB, r.Unit.ID, order); err != nil {
		return nil, err
	}
	return charges(s).chargeState(r, order, "PIX automático accepted; first charge issued.")
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docInsertContract = "Creates a draft contract: multipart (`metadata` and `files`) or JSON. `id_token_contact`, " +
		"`contract_name`, `validity_start` required; `validity_end`, `is_recurring`, `recurrence_type` " +
		"(`unique`, `monthly`, `yearly`; required when recurring), `generates_payment`, `auto_extend`, " +
		"`description`, `id_token_template`, `id_token_sales_orders` (orders of the unit to link), and " +
		"`sales_order`: the order it bills, validated exactly as `/insert_sales_order`'s flat form and " +
		"created in the same transaction. Files: PDF or images (415 `Attachments must be PDF or image " +
		"files.`). Failures as the spec shows them: `{success: false, message, data: null}`, and a 500 " +
		"`{success: false, error: \"Internal server error\", data: null}`.\n\nA contract is `draft`, then " +
		"`active`, `expired` (the daily job, after `validity_end` without `auto_extend`) or `cancelled`. " +
		"Daily, every active recurring contract that `generates_payment` gets a copy of its order per period " +
		"started, charged through its provider at once."
	docUpdateContract = "Changes the sent fields of a contract (`id_token`), `status` included, adds files and links orders."
	docListContracts  = "The unit's contracts with their files and orders, optionally by `id_token_contact`, `status`, " +
		"`valid_on` (a date within the validity) and `active`."
	docSetContractActive   = "Enables or disables a contract (`id_token`); idempotent."
	docGetContractFile     = "The bytes of one file of a contract (`id_token`, `file_token`), as `/get_expense_file` answers them."
	docDeleteContractFiles = "Deletes files of a contract (`id_token`, `files`); all or none."
	docContractPreview     = "Renders a contract (`id_contract`) or a template (`id_token_template`, optionally for `id_contact`) " +
		"as HTML (400 `Provide id_contract or id_token_template.`): `rendered_html`, and `html_document`, a " +
		"complete printable A4 page whose Content-Security-Policy forbids loading or running anything. " +
		"Placeholders: `{{contato_nome}}`, `{{contato_documento}}`, `{{contato_endereco}}`, " +
		"`{{empresa_nome}}`, `{{empresa_cnpj}}`, `{{cidade}}`, `{{contrato_nome}}`, " +
		"`{{contrato_descricao}}`, `{{contrato_inicio}}`, `{{contrato_fim}}`, `{{valor}}`, " +
		"`{{valor_extenso}}`, `{{forma_pagamento}}`, `{{recorrencia}}`, `{{data_hoje}}`, `{{responsavel}}`, " +
		"each value escaped; `placeholder_dict` lists them. `preview_context` overrides them: `responsible`, " +
		"`contract.*`, `contact.*`, `unit.*`, `sales_order`/`order` (`value`, `recurrence`, " +
		"`payment_key_name`, `charge_description`), `payment.name`, or a placeholder by name."
	docInsertTemplate = "Creates a contract template: `name`, `body_html`, optional `page_css`, `header_html`, " +
		"`footer_html`. The HTML is reduced to an allow-list before it is stored (text structure, lists, " +
		"tables, links; no script, style, iframe, form, image or event handler) and the CSS to what loads " +
		"and runs nothing. A unit gets a default template the first time it needs one."
	docUpdateTemplate      = "Changes the sent fields of a template (`id_token`), sanitized as an insert."
	docListTemplates       = "The unit's contract templates."
	docGetTemplate         = "One contract template (`id_token`)."
	docAcceptPixAutomatico = "Records the payer's acceptance of a contract's PIX automático (`id_token`): when its order has " +
		"`requested_payment_mode` `PIX_AUTOMATICO` and `generateChargeOnPixAutomaticAcceptance`, it becomes " +
		"due in 30 days and its first charge is issued (spec, /insert_contract's rule); accepting again " +
		"answers the same charge."
)
