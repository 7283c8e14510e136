package portal

import (
	"cmp"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/server/preview"
	"fincom/server/registers"
	"fincom/store"
)

// contractStatuses name a contract's status as the office says it.
var contractStatuses = map[string]string{"draft": "Rascunho", "active": "Em vigor", "expired": "Vencido", "cancelled": "Cancelado"}

// recurrences name a contract's recurrence.
var recurrences = map[string]string{"unique": "Parcela única", "monthly": "Mensal", "yearly": "Anual"}

// contractsPage: GET /portal/contracts, the unit's contracts (searched by
// name or customer) with their documents, and the form of a new one from
// one of the unit's templates.
func (s *Portal) contractsPage(p *portalRequest, status int, form render.PortalContractForm, field, fieldErr, notice string) {
	search := strings.TrimSpace(p.r.URL.Query().Get("busca"))
	// A unit's contracts are few: read them all, searched and paged here.
	list, _, err := p.db.Contracts(p.ctx, p.unit.ID, store.ContractFilter{}, store.Page{})
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	if form.Key == "" {
		form.Key = store.NewSecret(16)
	}
	body := render.PortalContracts{Search: search, Form: form, FormState: render.FormState{Field: field, FieldError: fieldErr}}
	var found []store.Contract
	for _, c := range list {
		if matches(search, c.ContractName, c.ContactName.String) {
			found = append(found, c)
		}
	}
	if s.exportable(p, "", "esta lista", "contratos", func() (render.Table, error) {
		t := render.Table{Name: "Contratos", Columns: []render.Column{{Title: "Contrato", Kind: render.ColText}, {Title: "Cliente", Kind: render.ColText},
			{Title: "Situação", Kind: render.ColText}, {Title: "Início", Kind: render.ColDate}, {Title: "Fim", Kind: render.ColDate},
			{Title: "Recorrência", Kind: render.ColText}, {Title: "Renovação automática", Kind: render.ColText}}}
		for _, c := range found {
			rec := recurrences[c.RecurrenceType.String]
			if !c.IsRecurring {
				rec = recurrences["unique"]
			}
			t.Rows = append(t.Rows, []string{c.ContractName, c.ContactName.String, contractStatuses[c.Status], c.ValidityStart, c.ValidityEnd.String,
				rec, map[bool]string{true: "Sim", false: "Não"}[c.AutoExtend]})
		}
		return t, nil
	}) {
		return
	}
	found, body.Pager = paginate(p, found)
	for _, c := range found {
		row := render.PortalContractRow{Token: c.Token, Name: c.ContractName, Customer: c.ContactName.String, Status: contractStatuses[c.Status],
			Start: render.DateBR(c.ValidityStart), End: "indeterminado", Recurrence: recurrences[c.RecurrenceType.String], Document: c.IDTemplate.Valid}
		if c.ValidityEnd.Valid {
			row.End = render.DateBR(c.ValidityEnd.String)
		}
		if !c.IsRecurring {
			row.Recurrence = recurrences["unique"]
		}
		for _, next := range contractMoves[c.Status] {
			row.Actions = append(row.Actions, render.PortalContractAction{Token: c.Token, Status: next, Label: contractMoveLabels[next]})
		}
		body.Contracts = append(body.Contracts, row)
	}
	if err := s.contractChoices(p, &body); err != nil {
		s.portalFailed(p, err)
		return
	}
	if body.Form.Start == "" && field == "" {
		body.Form.Start, body.Form.Recurrence = store.Today(p.db.Now()).ISO(), "monthly"
	}
	errText := fieldErr // a refusal of no field: said as it is
	if field != "" {
		errText = "O contrato não foi criado: " + fieldErr
	}
	p.page(s, status, "contracts", "Contratos", "contracts", body, notice, errText)
}

// contractRefusals say in Portuguese which field of the form is at fault.
var contractRefusals = refusals{
	{registers.ErrRecurrenceType, "recurrence", "escolha parcela única, mensal ou anual."},
	{registers.ErrContractDates, "end", "o fim da vigência não pode ser antes do início."},
	{registers.ErrContractStatus, "name", "situação inválida: rascunho, em vigor, vencido ou cancelado."},
	{store.ErrInvalidReference, "contact", "escolha um cliente e um modelo ativos da unidade."},
}

// portalCreateContract: POST /portal/contracts makes a contract from a
// template, by the rules /insert_contract holds it to; its document is
// the template filled with the contract's, the customer's and the unit's
// data.
func (s *Portal) portalCreateContract(p *portalRequest) {
	form := contractForm(p.r)
	f := store.ContractFields{Status: "draft"}
	err := applyContractForm(form, &f)
	made := true
	if err == nil {
		_, made, err = p.db.InsertContractOnce(p.ctx, p.unit.ID, form.Key, f)
	}
	if s.formRefused(p, err, contractRefusals.find, func(field, words string) { s.contractsPage(p, http.StatusBadRequest, form, field, words, "") }) {
		return
	}
	http.Redirect(p.w, p.r, "/portal/contracts?unit="+url.QueryEscape(p.unit.Token)+"&criado="+madeWord(made), http.StatusSeeOther)
}

// contractForm is the contract form as typed.
func contractForm(r *http.Request) render.PortalContractForm {
	v := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	return render.PortalContractForm{Template: v("template"), Contact: v("contact"), Name: v("name"), Start: v("start"), End: v("end"),
		Recurrence: v("recurrence"), Description: v("description"), AutoExtend: v("auto_extend") == "1",
		Key: formKeyOf(r)}
}

// applyContractForm writes the form onto f and holds it to the rules
// /insert_contract and /update_contract hold a contract to; its status
// and linked orders are kept.
func applyContractForm(form render.PortalContractForm, f *store.ContractFields) error {
	start, err := store.ParseDateISO(form.Start)
	switch {
	case form.Template == "":
		return fieldRefusal{"template", "escolha o modelo do contrato."}
	case form.Contact == "":
		return fieldRefusal{"contact", "escolha o cliente."}
	case form.Name == "" || len([]rune(form.Name)) > 255:
		return fieldRefusal{"name", "dê um nome ao contrato (até 255 caracteres)."}
	case len([]rune(form.Description)) > 5000:
		return fieldRefusal{"description", "descrição com até 5.000 caracteres."}
	case err != nil:
		return fieldRefusal{"start", "informe o início da vigência."}
	}
	f.ContactToken, f.TemplateToken, f.Name, f.Description, f.AutoExtend = form.Contact, form.Template, form.Name, form.Description, form.AutoExtend
	f.RecurrenceType, f.IsRecurring = form.Recurrence, form.Recurrence == "monthly" || form.Recurrence == "yearly"
	f.ValidityStart, f.ValidityEnd = start.ISO(), ""
	if form.End != "" {
		end, err := store.ParseDateISO(form.End)
		if err != nil {
			return fieldRefusal{"end", "data de fim inválida."}
		}
		f.ValidityEnd = end.ISO()
	}
	return registers.CheckContract(f)
}

// contractPage: GET /portal/contracts/:token, a contract's form to change
// it.
func (s *Portal) contractPage(p *portalRequest, token string, status int, form *render.PortalContractForm, field, fieldErr string) {
	c, err := p.db.Contract(p.ctx, p.unit.ID, token)
	if s.readFailed(p, err, "Contrato", "contracts") {
		return
	}
	if form == nil {
		form = &render.PortalContractForm{Template: c.IDTemplate.String, Contact: c.IDContact, Name: c.ContractName, Start: c.ValidityStart,
			End: c.ValidityEnd.String, Recurrence: cmp.Or(c.RecurrenceType.String, "unique"), Description: c.Description.String, AutoExtend: c.AutoExtend}
	}
	body := render.PortalContracts{Editing: token, Status: contractStatuses[c.Status], Form: *form, FormState: render.FormState{Field: field, FieldError: fieldErr}}
	if err := s.contractChoices(p, &body); err != nil {
		s.portalFailed(p, err)
		return
	}
	errText := unsaved(fieldErr)
	p.page(s, status, "contract", "Editar contrato", "contracts", body, "", errText)
}

// portalEditContract: POST /portal/contracts/:token saves a contract's
// form by the rules /update_contract holds it to.
func (s *Portal) portalEditContract(p *portalRequest, token string) {
	form := contractForm(p.r)
	err := p.db.UpdateContract(p.ctx, p.unit.ID, token, func(f *store.ContractFields) error { return applyContractForm(form, f) }, nil)
	if errors.Is(err, store.ErrNotFound) {
		s.portalMissing(p, "Contrato", "contracts")
		return
	}
	if s.formRefused(p, err, contractRefusals.find, func(field, words string) { s.contractPage(p, token, http.StatusBadRequest, &form, field, words) }) {
		return
	}
	http.Redirect(p.w, p.r, "/portal/contracts?unit="+url.QueryEscape(p.unit.Token)+"&criado=alterado", http.StatusSeeOther)
}

// contractChoices fills the templates and customers a contract's form
// offers.
func (s *Portal) contractChoices(p *portalRequest, body *render.PortalContracts) error {
	templates, err := p.db.Templates(p.ctx, p.unit.ID)
	if err != nil {
		return err
	}
	for _, t := range templates {
		if t.Active {
			body.Templates = append(body.Templates, render.PortalOption{Value: t.Token, Label: t.Name})
		}
	}
	contacts, err := p.db.Contacts(p.ctx, p.unit.ID, store.ContactFilter{})
	if err != nil {
		return err
	}
	for _, c := range contacts {
		body.Contacts = append(body.Contacts, render.PortalOption{Value: c.Token, Label: c.ContactName.String + " · " + brdoc.FormatRegister(c.Register)})
	}
	return nil
}

// contractMoves are the statuses a person moves a contract to from each
// (an expired one is the scheduler's).
var contractMoves = map[string][]string{"draft": {"active", "cancelled"}, "active": {"cancelled"}}

// contractMoveLabels are the buttons' words.
var contractMoveLabels = map[string]string{"active": "Pôr em vigor", "cancelled": "Cancelar"}

// portalContractStatus: POST /portal/contracts/:token/status moves a
// contract to a status its current one allows, as /update_contract
// changes it.
func (s *Portal) portalContractStatus(p *portalRequest, token string) {
	to := p.r.PostFormValue("status")
	err := p.db.UpdateContract(p.ctx, p.unit.ID, token, func(f *store.ContractFields) error {
		if !slices.Contains(contractMoves[f.Status], to) {
			return errContractMove
		}
		f.Status = to
		return registers.CheckContract(f)
	}, nil)
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.portalMissing(p, "Contrato", "contracts")
	case errors.Is(err, errContractMove):
		s.contractsPage(p, http.StatusConflict, render.PortalContractForm{}, "", "A situação do contrato não muda para essa: um rascunho entra em vigor ou é cancelado; um contrato em vigor é cancelado.", "")
	case err != nil:
		s.portalFailed(p, err)
	default:
		http.Redirect(p.w, p.r, "/portal/contracts?unit="+url.QueryEscape(p.unit.Token)+"&criado="+to, http.StatusSeeOther)
	}
}

// errContractMove is a status the contract's does not move to.
var errContractMove = errors.New("the contract's status does not move there")

// portalContractDocument: GET /portal/contracts/:token/document, the
// contract's document as its template renders it (what
// /get_contract_preview answers as html_document), to read and print.
func (s *Portal) portalContractDocument(p *portalRequest, token string) {
	doc, err := preview.Render(p.ctx, s.Render, p.db, p.unit, preview.Request{Contract: token})
	if s.readFailed(p, err, "Contrato", "contracts") {
		return
	}
	h := p.w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// The document's own style sheet is inline; the rest as the
	// portal's pages (the template's HTML is sanitized when stored).
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	p.w.Write([]byte(doc.HTMLDocument))
}
