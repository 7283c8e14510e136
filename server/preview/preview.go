// Package preview renders a contract, or a contract template for a
// contact, to HTML: it gathers every placeholder's value (the unit, the
// contact, the contract and its order, and the caller's overrides) and
// fills the sanitized template with them.
package preview

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	htmltemplate "html/template"
	"sort"
	"strings"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/store"
)

// What a preview could not find (each wraps store.ErrNotFound).
var (
	ErrContract = notFound("contract")
	ErrTemplate = notFound("template")
	ErrContact  = notFound("contact")
)

func notFound(what string) error {
	return errors.Join(errors.New(what+" not found"), store.ErrNotFound)
}

// Request names what to render: a contract, or a template (optionally for
// a contact); Context overrides placeholders (spec, preview_context).
type Request struct {
	Contract, Template, Contact string
	Context                     map[string]json.RawMessage
}

// ContractPreview is the spec's Contract preview.
type ContractPreview struct {
	IDContract      store.Text        `json:"id_contract" doc:"The contract previewed; null for a template's preview."`
	IDTemplate      string            `json:"id_template" doc:"The template its text comes from."`
	TemplateName    string            `json:"template_name" doc:"The template's name."`
	ContractName    store.Text        `json:"contract_name" doc:"The contract's name; null for a template's preview."`
	Status          string            `json:"status" doc:"The contract's status, or draft for a template's preview."`
	RenderedHTML    string            `json:"rendered_html" doc:"The contract's body with every placeholder filled."`
	HTMLDocument    string            `json:"html_document" doc:"A whole HTML document of it: page style, header, body and footer."`
	PageCSS         string            `json:"page_css" doc:"The template's page style."`
	HeaderHTML      store.Text        `json:"header_html" doc:"The page header; null when none."`
	FooterHTML      store.Text        `json:"footer_html" doc:"The page footer; null when none."`
	PlaceholderDict map[string]string `json:"placeholder_dict" doc:"Each placeholder and the value it was filled with."`
	Source          string            `json:"source" doc:"contract for a contract's preview, template for a template's (with the optional contact and preview_context)."`
}

// Render renders the preview of q for a unit, with every placeholder's
// value in PlaceholderDict.
func Render(ctx context.Context, rd *render.Renderer, db *store.DB, unit store.Unit, q Request) (ContractPreview, error) {
	p := ContractPreview{Status: "draft", Source: "template"}
	values := map[string]string{"data_hoje": render.DateBR(store.Today(db.Now()).ISO()), "responsavel": "", "contrato_nome": "",
		"contrato_descricao": "", "contrato_inicio": "", "contrato_fim": "indeterminado", "recorrencia": "em parcela única",
		"valor": "", "valor_extenso": "", "forma_pagamento": ""}
	unitData(unit, values)
	templateToken, contactToken := q.Template, q.Contact
	if q.Contract != "" {
		c, err := db.Contract(ctx, unit.ID, q.Contract)
		if errors.Is(err, store.ErrNotFound) {
			return p, ErrContract
		}
		if err != nil {
			return p, err
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
			if o, err := db.SalesOrder(ctx, unit.ID, c.IDSalesOrder.String); err == nil {
				values["valor"], values["valor_extenso"] = render.BRL(o.Value.String()), render.AmountInWords(o.Value.Decimal)
				values["forma_pagamento"] = render.PaymentMethodName(o.PaymentKey)
			}
		}
	}
	t, err := db.Template(ctx, unit.ID, templateToken)
	if errors.Is(err, store.ErrNotFound) {
		return p, ErrTemplate
	}
	if err != nil {
		return p, err
	}
	if contactToken != "" {
		if err := contactData(ctx, db, unit.ID, contactToken, values); err != nil {
			return p, err
		}
	}
	applyContext(q.Context, values)
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
	err = rd.Contract(&buf, render.ContractDocument{Title: title, CSS: htmltemplate.CSS(t.PageCSS),
		Body: htmltemplate.HTML(p.RenderedHTML), Header: htmltemplate.HTML(p.HeaderHTML.String), Footer: htmltemplate.HTML(p.FooterHTML.String)})
	if err != nil {
		return p, err
	}
	p.HTMLDocument = buf.String()
	return p, nil
}

func unitData(u store.Unit, values map[string]string) {
	values["empresa_nome"], values["empresa_cnpj"], values["cidade"] = u.Name, brdoc.FormatCNPJ(u.CNPJ), ""
	if m, ok := brdoc.LookupIBGE(u.CityIBGE); ok {
		values["cidade"] = m.Name + "/" + m.State
	}
}

func contactData(ctx context.Context, db *store.DB, unitID int64, token string, values map[string]string) error {
	cs, err := db.ContactByToken(ctx, unitID, token)
	if errors.Is(err, store.ErrNotFound) {
		return ErrContact
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
	zip := cs.ZipCode
	if len(zip) == 8 {
		zip = "CEP " + zip[:5] + "-" + zip[5:] // stored as digits; written as the Correios do
	}
	for _, p := range []string{strings.TrimSpace(cs.Address + ", " + cs.Number), cs.Neighborhood, cs.City, cs.State, zip} {
		if p != "" && p != "," {
			addr = append(addr, strings.Trim(p, ", "))
		}
	}
	values["contato_endereco"] = strings.Join(addr, " — ")
	return nil
}

// contextKeys maps preview_context entries (object.key) to placeholders.
var contextKeys = map[string]string{
	"contract.name": "contrato_nome", "contract.description": "contrato_descricao", "contract.validity_start": "contrato_inicio",
	"contract.validity_end": "contrato_fim", "contact.name": "contato_nome", "contact.document": "contato_documento",
	"contact.address": "contato_endereco", "unit.name": "empresa_nome", "unit.cnpj": "empresa_cnpj", "unit.city": "cidade",
	"sales_order.payment_key_name": "forma_pagamento", "payment.name": "forma_pagamento", "sales_order.charge_description": "contrato_descricao",
	"order.payment_key_name": "forma_pagamento",
}

// applyContext overrides placeholders from preview_context: its objects
// (contract, contact, unit, order or sales_order, payment), a
// responsible-person text, a sales order's value (written in figures and
// words) and recurrence, and direct placeholders.
func applyContext(ctx map[string]json.RawMessage, values map[string]string) {
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
				var m store.Money
				if m.UnmarshalJSON(v) == nil {
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
			if name, ok := contextKeys[k+"."+field]; ok {
				values[name] = text
			}
		}
	}
}
