package portal

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/server/registers"
	"fincom/store"
)

// contactsPage: GET /portal/contacts, the unit's customers and suppliers
// (searched by name) and the form of a new one.
func (s *Portal) contactsPage(p *portalRequest, status int, form render.PortalContactForm, field, fieldErr, notice string) {
	search := strings.TrimSpace(p.r.URL.Query().Get("busca"))
	kind := map[string]string{"clientes": "customer", "fornecedores": "supplier"}[p.r.URL.Query().Get("papel")]
	list, err := p.db.Contacts(p.ctx, p.unit.ID, store.ContactFilter{Search: search, Kind: kind})
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	if form.Key == "" {
		form.Key = store.NewSecret(16)
	}
	body := render.PortalContacts{Search: search, Kind: kind, Form: form, FormState: render.FormState{Field: field, FieldError: fieldErr}}
	if s.exportable(p, "", "esta lista", "contatos", func() (render.Table, error) {
		addresses, err := p.db.ContactAddresses(p.ctx, p.unit.ID)
		if err != nil {
			return render.Table{}, err
		}
		t := render.Table{Name: "Contatos", Columns: []render.Column{{Title: "Nome", Kind: render.ColText}, {Title: "Tipo", Kind: render.ColText},
			{Title: "CPF/CNPJ", Kind: render.ColText}, {Title: "Razão social", Kind: render.ColText}, {Title: "Inscrição estadual", Kind: render.ColText},
			{Title: "Endereço", Kind: render.ColText}, {Title: "Número", Kind: render.ColText}, {Title: "Complemento", Kind: render.ColText},
			{Title: "Bairro", Kind: render.ColText}, {Title: "CEP", Kind: render.ColText}, {Title: "Cidade", Kind: render.ColText}, {Title: "UF", Kind: render.ColText},
			{Title: "E-mail", Kind: render.ColText}, {Title: "Telefone", Kind: render.ColText}, {Title: "Observação", Kind: render.ColText}}}
		for _, c := range list {
			a := addresses[c.Token]
			t.Rows = append(t.Rows, []string{c.ContactName.String, map[string]string{"legal": "Pessoa jurídica", "natural_person": "Pessoa física"}[c.Type],
				brdoc.FormatRegister(c.Register), c.CompanyName.String, a.StateRegistration, a.Street, a.Number, a.Complement, a.District, formatCEP(a.ZipCode),
				a.City, a.State, c.Email.String, brdoc.FormatPhone(c.Phone.String), c.Observation.String})
		}
		return t, nil
	}) {
		return
	}
	list, body.Pager = paginate(p, list)
	for _, c := range list {
		body.Contacts = append(body.Contacts, render.PortalContactRow{Token: c.Token, Name: c.ContactName.String, Register: brdoc.FormatRegister(c.Register),
			Email: c.Email.String, Phone: brdoc.FormatPhone(c.Phone.String)})
	}
	errText := ""
	if fieldErr != "" {
		errText = "O cadastro não foi feito: " + fieldErr
	}
	p.page(s, status, "contacts", "Clientes e fornecedores", "contacts", body, notice, errText)
}

// formatCEP writes a CEP as people read it: 01310-100; anything else as
// stored.
func formatCEP(z string) string {
	if d := brdoc.Digits(z); len(d) == 8 {
		return d[:5] + "-" + d[5:]
	}
	return z
}

// contactRefusals say in Portuguese which field of the form is at fault,
// and why, for each refusal of a contact's rules.
var contactRefusals = refusals{
	{registers.ErrInvalidContactType, "type", "escolha pessoa física ou jurídica."},
	{registers.ErrInvalidCPF, "register", "CPF inválido: confira os 11 dígitos."},
	{registers.ErrInvalidCNPJ, "register", "CNPJ inválido: confira os dígitos verificadores."},
	{registers.ErrFullNameRequired, "name", "informe o nome completo da pessoa."},
	{registers.ErrSocialReasonRequired, "name", "informe a razão social da empresa."},
	{registers.ErrInvalidState, "state", "UF inválida: use a sigla, como SP."},
	{registers.ErrInvalidZip, "zip", "CEP inválido: use os 8 dígitos."},
	{registers.ErrInvalidKind, "kind", "escolha cliente, fornecedor ou os dois."},
	{registers.ErrInvalidEmail, "email", "e-mail inválido."},
	{registers.ErrIEWithoutState, "state", "informe a UF para ler a inscrição estadual."},
	{registers.ErrInvalidIE, "state_registration", "inscrição estadual inválida para a UF (ou escreva ISENTO)."},
	{registers.ErrContributorUnregistered, "icms_contributor", "o indicador de contribuinte não combina com a inscrição estadual."},
	{registers.ErrExemptRegistered, "icms_contributor", "o indicador de contribuinte não combina com a inscrição estadual."},
	{registers.ErrInvalidContributor, "icms_contributor", "o indicador de contribuinte não combina com a inscrição estadual."},
	{store.ErrDuplicate, "register", "já existe um contato com esse CPF ou CNPJ nesta unidade."},
}

// refusals say in Portuguese which field of a form a refusal is about,
// and why: the first whose error it is.
type refusals []struct {
	err          error
	field, words string
}

func (rs refusals) find(err error) (string, string) {
	for _, r := range rs {
		if errors.Is(err, r.err) {
			return r.field, r.words
		}
	}
	return "", ""
}

// contactRefusal is the field and the Portuguese words of a refusal.
func contactRefusal(err error) (string, string) {
	return contactRefusals.find(err)
}

// contactForm is the contact form as typed.
func contactForm(r *http.Request) render.PortalContactForm {
	v := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	return render.PortalContactForm{Type: v("type"), Register: v("register"), Name: v("name"), FantasyName: v("fantasy_name"), Email: v("email"),
		Phone: v("phone"), Zip: v("zip"), Address: v("address"), Number: v("number"), Complement: v("complement"), District: v("district"),
		City: v("city"), State: strings.ToUpper(v("state")), IE: strings.ToUpper(v("state_registration")), Contributor: v("icms_contributor"), Kind: v("kind"),
		Key: formKeyOf(r)}
}

// contactFormOf is a stored contact as its form shows it, masked as
// people type it.
func contactFormOf(f store.ContactFields) render.PortalContactForm {
	name := f.SocialReason
	if f.Type == "natural_person" {
		name = f.FullName
	}
	zip := f.ZipCode
	if len(zip) == 8 {
		zip = zip[:5] + "-" + zip[5:]
	}
	return render.PortalContactForm{Type: f.Type, Register: brdoc.FormatRegister(f.Register), Name: name, FantasyName: f.FantasyName, Email: f.Email,
		Phone: brdoc.FormatPhone(f.Phone), Zip: zip, Address: f.Address, Number: f.Number, Complement: f.Complement, District: f.Neighborhood,
		City: f.City, State: f.State, IE: f.StateRegistration, Contributor: f.ICMSContributor, Kind: f.Kind}
}

// fieldRefusal is a refusal of the portal's own, beside its field.
type fieldRefusal struct{ field, words string }

func (e fieldRefusal) Error() string { return e.field + ": " + e.words }

// applyContactForm writes the form onto f and holds the result to the
// rules /insert_contact and /update_contact hold a contact to. What the
// form does not show (birth date, notes, bank data, a firm's contact
// person) is kept.
func applyContactForm(form render.PortalContactForm, f *store.ContactFields) error {
	for _, t := range []struct{ field, text string }{{"name", form.Name}, {"fantasy_name", form.FantasyName}, {"email", form.Email},
		{"address", form.Address}, {"number", form.Number}, {"complement", form.Complement}, {"district", form.District}, {"city", form.City}} {
		if len([]rune(t.text)) > 255 {
			return fieldRefusal{t.field, "texto com até 255 caracteres."}
		}
	}
	if form.Kind != "" && form.Kind != "customer" && form.Kind != "supplier" {
		return fieldRefusal{"kind", "escolha cliente, fornecedor ou os dois."}
	}
	f.Kind = form.Kind
	zip := brdoc.Digits(form.Zip)
	if form.Zip != "" && len(zip) != 8 {
		return fieldRefusal{"zip", "CEP inválido: use os 8 dígitos."}
	}
	// The CEP names its state (the Correios' ranges): an empty UF is
	// filled from it, a different one is a typo in one of them.
	if zip != "" {
		state, ok := brdoc.StateOfCEP(zip)
		switch {
		case !ok:
			return fieldRefusal{"zip", "CEP inexistente: nenhum estado usa essa faixa."}
		case form.State == "":
			form.State = state
		case form.State != state:
			return fieldRefusal{"zip", "o CEP " + zip[:5] + "-" + zip[5:] + " é de " + state + ", e a UF informada é " + form.State + "."}
		}
	}
	f.Type, f.Register, f.FantasyName, f.Email = form.Type, brdoc.Clean(form.Register), form.FantasyName, form.Email
	f.Phone, f.ZipCode, f.Address, f.Number, f.Complement = brdoc.Digits(form.Phone), zip, form.Address, form.Number, form.Complement
	f.Neighborhood, f.City, f.State, f.StateRegistration, f.ICMSContributor = form.District, form.City, form.State, form.IE, form.Contributor
	if form.Type == "natural_person" {
		f.FullName = form.Name
	} else {
		f.SocialReason = form.Name
	}
	f.CityIBGE = ""
	if form.City != "" && brdoc.ValidState(form.State) {
		// Invoices need the city's IBGE code: a name the IBGE table
		// does not hold in the state is refused here, not at the first
		// NF-e.
		var ok bool
		if f.CityIBGE, ok = brdoc.LookupCity(form.City, form.State); !ok {
			return fieldRefusal{"city", "cidade não encontrada em " + form.State + ": escreva o nome como o IBGE (a lista aparece ao digitar o CEP)."}
		}
	}
	return registers.CheckContact(f)
}

// formRefused shows a refusal of a form beside its field (the portal's
// own, or explain's words for a rule's), or fails the page when it is
// neither; reports whether there was a refusal.
func (s *Portal) formRefused(p *portalRequest, err error, explain func(error) (string, string), again func(field, words string)) bool {
	if err == nil {
		return false
	}
	var own fieldRefusal
	field, words := explain(err)
	if errors.As(err, &own) {
		field, words = own.field, own.words
	}
	if field == "" {
		s.portalFailed(p, err)
	} else {
		again(field, words)
	}
	return true
}

// portalCreateContact: POST /portal/contacts registers a customer or
// supplier by the rules /insert_contact holds it to.
func (s *Portal) portalCreateContact(p *portalRequest) {
	form := contactForm(p.r)
	var f store.ContactFields
	err := applyContactForm(form, &f)
	made := true
	if err == nil {
		_, made, err = p.db.InsertContactOnce(p.ctx, p.unit.ID, form.Key, f)
	}
	if s.formRefused(p, err, contactRefusal, func(field, words string) { s.contactsPage(p, http.StatusBadRequest, form, field, words, "") }) {
		return
	}
	http.Redirect(p.w, p.r, "/portal/contacts?unit="+url.QueryEscape(p.unit.Token)+"&criado="+madeWord(made), http.StatusSeeOther)
}

// portalCEP: GET /portal/cep?cep=, the state of a CEP and its
// municipalities, which the contact form offers as it is typed (the
// portal's script); 404 for what is no state's CEP.
func (s *Portal) portalCEP(p *portalRequest) {
	state, ok := brdoc.StateOfCEP(p.r.URL.Query().Get("cep"))
	h := p.w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "private, max-age=86400")
	if !ok {
		p.w.WriteHeader(http.StatusNotFound)
		p.w.Write([]byte(`{"error":"CEP inexistente"}`))
		return
	}
	json.NewEncoder(p.w).Encode(struct {
		State  string   `json:"state"`
		Cities []string `json:"cities"`
	}{state, brdoc.CitiesOf(state)})
}

// contactPage: GET /portal/contacts/:token, a contact's form to edit.
func (s *Portal) contactPage(p *portalRequest, token string, status int, form *render.PortalContactForm, field, fieldErr string) {
	if form == nil {
		f, err := p.db.ContactByToken(p.ctx, p.unit.ID, token)
		if s.readFailed(p, err, "Contato", "contacts") {
			return
		}
		shown := contactFormOf(f)
		form = &shown
	}
	errText := unsaved(fieldErr)
	body := render.PortalContact{Token: token, Form: *form, FormState: render.FormState{Field: field, FieldError: fieldErr}}
	p.page(s, status, "contact", "Editar contato", "contacts", body, "", errText)
}

// portalEditContact: POST /portal/contacts/:token saves a contact's form by
// the rules /update_contact holds it to.
func (s *Portal) portalEditContact(p *portalRequest, token string) {
	form := contactForm(p.r)
	err := p.db.UpdateContact(p.ctx, p.unit.ID, token, func(f *store.ContactFields) error { return applyContactForm(form, f) })
	if errors.Is(err, store.ErrNotFound) {
		s.portalMissing(p, "Contato", "contacts")
		return
	}
	if s.formRefused(p, err, contactRefusal, func(field, words string) { s.contactPage(p, token, http.StatusBadRequest, &form, field, words) }) {
		return
	}
	http.Redirect(p.w, p.r, "/portal/contacts?unit="+url.QueryEscape(p.unit.Token)+"&criado=2", http.StatusSeeOther)
}
