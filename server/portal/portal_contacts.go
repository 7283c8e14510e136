package portal

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"fincom/render"
	"fincom/server/brdoc"
	"fincom/server/problem"
	"fincom/server/registers"
	"fincom/store"
)

// contactsPage: GET /portal/contacts, the unit's customers and suppliers
// (searched by name) and the form of a new one.
func (s *Portal) contactsPage(p *portalRequest, status int, form render.PortalContactForm, field, fieldErr, notice string) {
	search := strings.TrimSpace(p.r.URL.Query().Get("busca"))
	list, err := p.db.Contacts(p.ctx, p.unit.ID, store.ContactFilter{Search: search})
	if err != nil {
		s.portalFailed(p, err)
		return
	}
	body := render.PortalContacts{Search: search, Form: form, FormState: render.FormState{Field: field, FieldError: fieldErr}}
	for _, c := range list {
		body.Contacts = append(body.Contacts, render.PortalContactRow{Name: c.ContactName.String, Register: formatRegister(c.Register),
			Email: c.Email.String, Phone: formatPhone(c.Phone.String)})
	}
	errText := ""
	if fieldErr != "" {
		errText = "O cadastro não foi feito: " + fieldErr
	}
	p.page(s, status, "contacts", "Clientes e fornecedores", "contacts", body, notice, errText)
}

// formatRegister masks a CPF or CNPJ as people read it.
func formatRegister(r string) string {
	switch len(r) {
	case 11:
		return brdoc.FormatCPF(r)
	case 14:
		return brdoc.FormatCNPJ(r)
	}
	return r
}

// formatPhone writes a Brazilian phone with its area code: (11) 3333-4444,
// (11) 98888-7777; anything else as stored.
func formatPhone(d string) string {
	switch len(d) {
	case 10:
		return "(" + d[:2] + ") " + d[2:6] + "-" + d[6:]
	case 11:
		return "(" + d[:2] + ") " + d[2:7] + "-" + d[7:]
	}
	return d
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
	{registers.ErrInvalidEmail, "email", "e-mail inválido."},
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
	if field, words := contactRefusals.find(err); field != "" {
		return field, words
	}
	var pr *problem.Problem
	if errors.As(err, &pr) {
		if d, ok := pr.Details.(interface{ FieldName() string }); ok {
			switch d.FieldName() {
			case "state":
				return "state", "informe a UF para ler a inscrição estadual."
			case "state_registration":
				return "state_registration", "inscrição estadual inválida para a UF (ou escreva ISENTO)."
			case "icms_contributor":
				return "icms_contributor", "o indicador de contribuinte não combina com a inscrição estadual."
			}
		}
	}
	return "", ""
}

// portalCreateContact: POST /portal/contacts registers a customer or
// supplier by the rules /insert_contact holds it to.
func (s *Portal) portalCreateContact(p *portalRequest) {
	v := func(k string) string { return strings.TrimSpace(p.r.PostFormValue(k)) }
	form := render.PortalContactForm{Type: v("type"), Register: v("register"), Name: v("name"), FantasyName: v("fantasy_name"), Email: v("email"),
		Phone: v("phone"), Zip: v("zip"), Address: v("address"), Number: v("number"), Complement: v("complement"), District: v("district"),
		City: v("city"), State: strings.ToUpper(v("state")), IE: strings.ToUpper(v("state_registration")), Contributor: v("icms_contributor")}
	f := store.ContactFields{Type: form.Type, Register: brdoc.Clean(form.Register), FantasyName: form.FantasyName, Email: form.Email,
		Phone: brdoc.Digits(form.Phone), ZipCode: brdoc.Digits(form.Zip), Address: form.Address, Number: form.Number, Complement: form.Complement,
		Neighborhood: form.District, City: form.City, State: form.State, StateRegistration: form.IE, ICMSContributor: form.Contributor}
	if form.Type == "natural_person" {
		f.FullName = form.Name
	} else {
		f.SocialReason = form.Name
	}
	if form.City != "" && form.State != "" {
		f.CityIBGE, _ = brdoc.LookupCity(form.City, form.State)
	}
	for _, t := range []string{f.FullName, f.SocialReason, f.FantasyName, f.Email, f.Address, f.Number, f.Complement, f.Neighborhood, f.City} {
		if len([]rune(t)) > 255 {
			s.contactsPage(p, http.StatusBadRequest, form, "name", "um dos textos passa de 255 caracteres.", "")
			return
		}
	}
	err := registers.CheckContact(&f)
	if err == nil {
		_, err = p.db.InsertContact(p.ctx, p.unit.ID, f)
	}
	if err != nil {
		field, words := contactRefusal(err)
		if field == "" {
			s.portalFailed(p, err)
			return
		}
		s.contactsPage(p, http.StatusBadRequest, form, field, words, "")
		return
	}
	http.Redirect(p.w, p.r, "/portal/contacts?unit="+url.QueryEscape(p.unit.Token)+"&criado=1", http.StatusSeeOther)
}
