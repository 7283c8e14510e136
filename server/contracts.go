package server

import (
	"bytes"
	"encoding/json"
	"errors"
	htmltemplate "html/template"
	"net/http"
	"sort"
	"strings"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/store"
)

var (
	errContractFileType    = newError(http.StatusUnsupportedMediaType, textContractFileType)
	errContractNotFound    = newError(http.StatusNotFound, textContractNotFound)
	errRecurrenceType      = newError(http.StatusBadRequest, textRecurrenceType)
	errContractStatus      = newError(http.StatusBadRequest, textContractStatus)
	errContractDates       = newError(http.StatusBadRequest, textContractDates)
	errTemplateNotFound    = newError(http.StatusNotFound, textTemplateNotFound)
	errPreviewTarget       = newError(http.StatusBadRequest, textPreviewTarget)
	errContractFileMissing = newError(http.StatusNotFound, textFileNotFound)
	errContractNoFields    = newError(http.StatusBadRequest, textNoFieldsToUpdate)
)

// contractRequest is the metadata of /insert_contract and /update_contract
// (spec, /insert_contract).
type contractRequest struct {
	IDToken          string          `json:"id_token" alias:"id_contract,token"`
	Contact          *string         `json:"id_token_contact"`
	Template         *string         `json:"id_token_template"`
	ContractName     *string         `json:"contract_name"`
	Status           *string         `json:"status"`
	ValidityStart    *string         `json:"validity_start"`
	ValidityEnd      *string         `json:"validity_end"`
	IsRecurring      *bool           `json:"is_recurring"`
	RecurrenceType   *string         `json:"recurrence_type"`
	GeneratesPayment *bool           `json:"generates_payment"`
	AutoExtend       *bool           `json:"auto_extend"`
	OrderTokens      []string        `json:"id_token_sales_orders"`
	SalesOrder       json.RawMessage `json:"sales_order"`
	Description      *string         `json:"description" text:"multiline"`
}

func (q *contractRequest) apply(f *store.ContractFields) error {
	for _, t := range []struct {
		dst, src *string
		max      int
	}{{&f.ContactToken, q.Contact, maxShortText}, {&f.TemplateToken, q.Template, maxShortText}, {&f.Name, q.ContractName, maxShortText},
		{&f.Description, q.Description, maxLongText}, {&f.RecurrenceType, q.RecurrenceType, maxShortText}, {&f.Status, q.Status, maxShortText}} {
		if err := setText(t.dst, t.src, t.max); err != nil {
			return err
		}
	}
	if err := isoDate(&f.ValidityStart, q.ValidityStart, errContractDates); err != nil {
		return err
	}
	if err := isoDate(&f.ValidityEnd, q.ValidityEnd, errContractDates); err != nil {
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
		return errMissing
	case f.IsRecurring && f.RecurrenceType == "":
		return errMissing
	case f.RecurrenceType != "" && f.RecurrenceType != "unique" && f.RecurrenceType != "monthly" && f.RecurrenceType != "yearly":
		return errRecurrenceType
	case !store.ContractStatuses[f.Status]:
		return errContractStatus
	case f.ValidityEnd != "" && f.ValidityEnd < f.ValidityStart:
		return errContractDates
	}
	return nil
}

// contractFiles reads the attachments: PDF or images only.
func contractFiles(r *request) ([]store.NewFile, error) {
	files, err := readFiles(r.body.files)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if f.ContentType == "application/xml" {
			return nil, errContractFileType
		}
	}
	return files, nil
}

func contractStoreError(err error) error {
	switch {
	case errors.Is(err, store.ErrInvalidReference):
		return textsDefault.invalid
	case errors.Is(err, store.ErrNotFound):
		return errContractNotFound
	}
	return err
}

type contractCreated struct {
	IDToken      string     `json:"id_token"`
	IDSalesOrder store.Text `json:"id_sales_order"`
}

// insertContract creates a draft contract (multipart: metadata + files)
// and, with `sales_order`, the order it bills (validated as
// /insert_sales_order validates, in the same transaction).
func (s *Server) insertContract(r *request) (any, error) {
	var q contractRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	f := store.ContractFields{Status: "draft"}
	if err := q.apply(&f); err != nil {
		return nil, err
	}
	files, err := contractFiles(r)
	if err != nil {
		return nil, err
	}
	var order *store.SalesOrderFields
	if len(q.SalesOrder) > 0 && string(q.SalesOrder) != "null" {
		var fields map[string]json.RawMessage
		if json.Unmarshal(q.SalesOrder, &fields) != nil {
			return nil, r.route.texts.format
		}
		if _, ok := fields["id_token_contact"]; !ok {
			fields["id_token_contact"], _ = json.Marshal(f.ContactToken)
		}
		var so salesOrderRequest
		if err := r.dec.decodeIn("sales_order.", fields, nil, &so); err != nil {
			return nil, r.decodeError(err)
		}
		key, err := s.paymentKey(r, so.Charge.PaymentType)
		if err != nil {
			return nil, err
		}
		of, err := so.fields(key)
		if err != nil {
			return nil, err
		}
		order = &of
	}
	token, orderToken, err := r.db.InsertContract(r.ctx, r.unit.ID, f, files, order)
	if err != nil {
		return nil, contractStoreError(err)
	}
	return withMessage{Message: "Contract created successfully.", Data: contractCreated{IDToken: token, IDSalesOrder: store.NewText(orderToken)}}, nil
}

// paymentKey is the payment_key of a payment method token ("" if unknown).
func (s *Server) paymentKey(r *request, token string) (string, error) {
	if token == "" {
		return "", nil
	}
	methods, err := r.db.PaymentMethods(r.ctx)
	if err != nil {
		return "", err
	}
	for _, m := range methods {
		if m.Token == token {
			return m.PaymentKey, nil
		}
	}
	return "", nil
}

// updateContract changes the sent fields of a contract, adds files and
// links orders.
func (s *Server) updateContract(r *request) (any, error) {
	var q contractRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	if q.IDToken == "" {
		return nil, errMissing
	}
	if sent(q.Contact, q.Template, q.ContractName, q.Status, q.ValidityStart, q.ValidityEnd, q.IsRecurring, q.RecurrenceType,
		q.GeneratesPayment, q.AutoExtend, q.Description) == 0 && len(q.OrderTokens) == 0 && len(r.body.files) == 0 {
		return nil, errContractNoFields
	}
	files, err := contractFiles(r)
	if err != nil {
		return nil, err
	}
	if err := r.db.UpdateContract(r.ctx, r.unit.ID, q.IDToken, q.apply, files); err != nil {
		return nil, contractStoreError(err)
	}
	return withMessage{Message: "Contract updated successfully.", Data: contractCreated{IDToken: q.IDToken}}, nil
}

type listContractsRequest struct {
	Contact string `json:"id_token_contact"`
	Status  string `json:"status"`
	ValidOn string `json:"valid_on"`
	Active  *bool  `json:"active"`
}

func (q *listContractsRequest) validate() error {
	if q.Status != "" && !store.ContractStatuses[q.Status] {
		return errContractStatus
	}
	if q.ValidOn != "" {
		d, err := store.ParseDateISO(q.ValidOn)
		if err != nil {
			return errContractDates
		}
		q.ValidOn = d.ISO()
	}
	return nil
}

// listContracts answers the unit's contracts with their files and orders.
func (s *Server) listContracts(r *request) (any, error) {
	var q listContractsRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	return r.db.Contracts(r.ctx, r.unit.ID, store.ContractFilter{ContactToken: q.Contact, Status: q.Status, ValidOn: q.ValidOn, Active: q.Active})
}

// getContractFile answers the bytes of one file of a contract (a fincom
// route).
func (s *Server) getContractFile(r *request) (any, error) {
	var q fileRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	f, err := r.db.ContractFile(r.ctx, r.unit.ID, q.IDToken, q.FileToken)
	if err != nil {
		return nil, contractFileError(err)
	}
	return download{f}, nil
}

// contractFileError names what a contract's file route did not find: the
// contract, or the file among the contract's.
func contractFileError(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errContractNotFound
	case errors.Is(err, store.ErrInvalidReference):
		return errContractFileMissing
	}
	return err
}

// deleteContractFiles removes files of a contract, all or none.
func (s *Server) deleteContractFiles(r *request) (any, error) {
	var q deleteFilesRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	if err := r.db.DeleteContractFiles(r.ctx, r.unit.ID, q.IDToken, q.Files); err != nil {
		return nil, contractFileError(err)
	}
	return created{Message: "Files deleted successfully.", Token: q.IDToken}, nil
}

// templateRequest is the body of the template routes (fincom routes).
type templateRequest struct {
	IDToken    string  `json:"id_token" alias:"id_token_template,token"`
	Name       *string `json:"name"`
	BodyHTML   *string `json:"body_html" alias:"html" text:"multiline"`
	PageCSS    *string `json:"page_css" text:"multiline"`
	HeaderHTML *string `json:"header_html" text:"multiline"`
	FooterHTML *string `json:"footer_html" text:"multiline"`
}

// apply sanitizes what it copies: template HTML is reduced to the
// allow-list before it is stored.
func (q *templateRequest) apply(f *store.TemplateFields) error {
	if err := setText(&f.Name, q.Name, maxShortText); err != nil {
		return err
	}
	for _, t := range []struct {
		dst, src *string
		clean    func(string) string
	}{{&f.BodyHTML, q.BodyHTML, render.SanitizeHTML}, {&f.HeaderHTML, q.HeaderHTML, render.SanitizeHTML},
		{&f.FooterHTML, q.FooterHTML, render.SanitizeHTML}, {&f.PageCSS, q.PageCSS, render.SanitizeCSS}} {
		if t.src != nil {
			if len(*t.src) > 200_000 {
				return errTooLong
			}
			*t.dst = t.clean(*t.src)
		}
	}
	if f.Name == "" || strings.TrimSpace(f.BodyHTML) == "" {
		return errMissing
	}
	return nil
}

func (s *Server) insertContractTemplate(r *request) (any, error) {
	var q templateRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	var f store.TemplateFields
	if err := q.apply(&f); err != nil {
		return nil, err
	}
	token, err := r.db.InsertTemplate(r.ctx, r.unit.ID, f)
	if err != nil {
		return nil, err
	}
	return created{Message: "Template created successfully.", Token: token}, nil
}

func (s *Server) updateContractTemplate(r *request) (any, error) {
	var q templateRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	if q.IDToken == "" {
		return nil, errMissing
	}
	if err := r.db.UpdateTemplate(r.ctx, r.unit.ID, q.IDToken, q.apply); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, errTemplateNotFound
		}
		return nil, err
	}
	return created{Message: "Template updated successfully.", Token: q.IDToken}, nil
}

func (s *Server) listContractTemplates(r *request) (any, error) {
	return r.db.Templates(r.ctx, r.unit.ID)
}

func (s *Server) getContractTemplate(r *request) (any, error) {
	var q idRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	t, err := r.db.Template(r.ctx, r.unit.ID, q.IDToken)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errTemplateNotFound
	}
	return t, err
}

type previewRequest struct {
	IDContract string                     `json:"id_contract" alias:"id_token_contract"`
	Template   string                     `json:"id_token_template"`
	IDContact  string                     `json:"id_contact" alias:"id_token_contact"`
	Context    map[string]json.RawMessage `json:"preview_context"`
}

func (q *previewRequest) validate() error {
	if q.IDContract == "" && q.Template == "" {
		return errPreviewTarget
	}
	return nil
}

// contractPreview is the spec's Contract preview.
type contractPreview struct {
	IDContract      store.Text        `json:"id_contract"`
	IDTemplate      string            `json:"id_template"`
	TemplateName    string            `json:"template_name"`
	ContractName    store.Text        `json:"contract_name"`
	Status          string            `json:"status"`
	RenderedHTML    string            `json:"rendered_html"`
	HTMLDocument    string            `json:"html_document"`
	PageCSS         string            `json:"page_css"`
	HeaderHTML      store.Text        `json:"header_html"`
	FooterHTML      store.Text        `json:"footer_html"`
	PlaceholderDict map[string]string `json:"placeholder_dict"`
	Source          string            `json:"source"`
}

// getContractPreview renders a contract (id_contract) or a template
// (id_token_template, optionally for a contact) to HTML, with every
// placeholder's value in placeholder_dict; preview_context overrides them.
func (s *Server) getContractPreview(r *request) (any, error) {
	var q previewRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	p := contractPreview{Status: "draft", Source: "template"}
	values := map[string]string{"data_hoje": render.DateBR(store.Today(r.db.Now()).ISO()), "responsavel": "", "contrato_nome": "",
		"contrato_descricao": "", "contrato_inicio": "", "contrato_fim": "indeterminado", "recorrencia": "em parcela única",
		"valor": "", "valor_extenso": "", "forma_pagamento": ""}
	unitData(r.unit, values)
	templateToken, contactToken := q.Template, q.IDContact
	if q.IDContract != "" {
		c, err := r.db.Contract(r.ctx, r.unit.ID, q.IDContract)
		if errors.Is(err, store.ErrNotFound) {
			return nil, errContractNotFound
		}
		if err != nil {
			return nil, err
		}
		p.Source, p.Status, p.IDContract, p.ContractName = "contract", c.Status, store.NewText(c.Token), store.NewText(c.ContractName)
		if templateToken == "" {
			templateToken = c.IDTemplate.String
		}
		if contactToken == "" {
			contactToken = c.IDContact
		}
		values["contrato_nome"], values["contrato_descricao"], values["contrato_inicio"] = c.ContractName, c.Description.String, render.DateBR(c.ValidityStart)
		if c.ValidityEnd.Valid {
			values["contrato_fim"] = render.DateBR(c.ValidityEnd.String)
		}
		if c.IsRecurring {
			values["recorrencia"] = map[string]string{"monthly": "mensalmente", "yearly": "anualmente", "unique": "em parcela única"}[c.RecurrenceType.String]
		}
		if c.IDSalesOrder.Valid {
			if o, err := r.db.SalesOrder(r.ctx, r.unit.ID, c.IDSalesOrder.String); err == nil {
				values["valor"], values["valor_extenso"] = render.BRL(o.Value.String()), render.AmountInWords(o.Value.Decimal)
				values["forma_pagamento"] = paymentNames[o.PaymentKey]
			}
		}
	}
	t, err := r.db.Template(r.ctx, r.unit.ID, templateToken)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errTemplateNotFound
	}
	if err != nil {
		return nil, err
	}
	if contactToken != "" {
		if err := contactData(r, contactToken, values); err != nil {
			return nil, err
		}
	}
	applyPreviewContext(q.Context, values)
	p.IDTemplate, p.TemplateName, p.PageCSS, p.PlaceholderDict = t.Token, t.Name, t.PageCSS, values
	p.RenderedHTML = render.FillPlaceholders(t.BodyHTML, values)
	if t.HeaderHTML.Valid {
		p.HeaderHTML = store.NewText(render.FillPlaceholders(t.HeaderHTML.String, values))
	}
	if t.FooterHTML.Valid {
		p.FooterHTML = store.NewText(render.FillPlaceholders(t.FooterHTML.String, values))
	}
	var buf bytes.Buffer
	title := p.ContractName.String
	if title == "" {
		title = t.Name
	}
	// The stored HTML is sanitized and the values escaped: safe to mark.
	err = s.render.Contract(&buf, render.ContractDocument{Title: title, CSS: htmltemplate.CSS(t.PageCSS),
		Body: htmltemplate.HTML(p.RenderedHTML), Header: htmltemplate.HTML(p.HeaderHTML.String), Footer: htmltemplate.HTML(p.FooterHTML.String)})
	if err != nil {
		return nil, err
	}
	p.HTMLDocument = buf.String()
	return withMessage{Message: "Contract preview rendered successfully.", Data: p}, nil
}

func unitData(u store.Unit, values map[string]string) {
	values["empresa_nome"], values["empresa_cnpj"], values["cidade"] = u.Name, brdoc.FormatCNPJ(u.CNPJ), ""
	if m, ok := brdoc.LookupIBGE(u.CityIBGE); ok {
		values["cidade"] = m.Name + "/" + m.State
	}
}

func contactData(r *request, token string, values map[string]string) error {
	cs, err := r.db.ContactByToken(r.ctx, r.unit.ID, token)
	if errors.Is(err, store.ErrNotFound) {
		return textsDefault.invalid
	}
	if err != nil {
		return err
	}
	values["contato_nome"] = cs.SocialReason
	if values["contato_nome"] == "" {
		values["contato_nome"] = cs.FullName
	}
	values["contato_documento"] = brdoc.FormatCPF(brdoc.FormatCNPJ(cs.Register))
	var addr []string
	for _, p := range []string{strings.TrimSpace(cs.Address + ", " + cs.Number), cs.Neighborhood, cs.City, cs.State, cs.ZipCode} {
		if p != "" && p != "," {
			addr = append(addr, strings.Trim(p, ", "))
		}
	}
	values["contato_endereco"] = strings.Join(addr, " — ")
	return nil
}

// previewKeys maps preview_context entries (object.key) to placeholders.
var previewKeys = map[string]string{
	"contract.name": "contrato_nome", "contract.description": "contrato_descricao", "contract.validity_start": "contrato_inicio",
	"contract.validity_end": "contrato_fim", "contact.name": "contato_nome", "contact.document": "contato_documento",
	"contact.address": "contato_endereco", "unit.name": "empresa_nome", "unit.cnpj": "empresa_cnpj", "unit.city": "cidade",
	"sales_order.payment_key_name": "forma_pagamento", "payment.name": "forma_pagamento", "sales_order.charge_description": "contrato_descricao",
	"order.payment_key_name": "forma_pagamento",
}

// applyPreviewContext overrides placeholders from preview_context: its
// objects (contract, contact, unit, order or sales_order, payment), a
// responsible-person text, a sales order's value (written in figures and
// words) and recurrence, and direct placeholders.
func applyPreviewContext(ctx map[string]json.RawMessage, values map[string]string) {
	keys := make([]string, 0, len(ctx))
	for k := range ctx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw := ctx[k]
		var s string
		if json.Unmarshal(raw, &s) == nil {
			switch k {
			case "responsible", "responsavel", "responsible_name":
				values["responsavel"] = s
			default:
				if _, ok := values[k]; ok {
					values[k] = s
				}
			}
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			continue
		}
		for field, v := range obj {
			if (k == "sales_order" || k == "order") && field == "value" {
				if m, err := decimalValue(v); err == nil {
					values["valor"], values["valor_extenso"] = render.BRL(m.String()), render.AmountInWords(m.Decimal)
				}
				continue
			}
			if (k == "sales_order" || k == "order") && field == "recurrence" {
				var b bool
				if json.Unmarshal(v, &b) == nil && b {
					values["recorrencia"] = "mensalmente"
				}
				continue
			}
			var text string
			if json.Unmarshal(v, &text) != nil {
				continue
			}
			if name, ok := previewKeys[k+"."+field]; ok {
				values[name] = text
			}
		}
	}
}

func decimalValue(raw json.RawMessage) (store.Money, error) {
	var m store.Money
	err := m.UnmarshalJSON(raw)
	return m, err
}

var errNoPixAutomatico = newError(http.StatusConflict, textNoPixAutomatico)

// acceptPixAutomatico (a fincom route; spec, /insert_contract's rule)
// records that the payer accepted the contract's PIX automático
// recurrence: its order becomes due in 30 days and, with
// generateChargeOnPixAutomaticAcceptance and requested_payment_mode
// PIX_AUTOMATICO, its first charge is issued at once. Accepting again
// answers the same charge.
func (s *Server) acceptPixAutomatico(r *request) (any, error) {
	var q idRequest
	if err := r.decode(&q); err != nil {
		return nil, err
	}
	order, err := r.db.AcceptPixAutomatico(r.ctx, r.unit.ID, q.IDToken)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, errContractNotFound
	case errors.Is(err, store.ErrNoPixAutomatico):
		return nil, errNoPixAutomatico
	case err != nil:
		return nil, err
	}
	if err := s.IssueCharges(r.ctx, r.db, r.unit.ID, order); err != nil {
		return nil, err
	}
	return s.chargeState(r, order, "PIX automático accepted; first charge issued.")
}
