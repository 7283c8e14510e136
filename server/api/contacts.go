package api

import (
	"net/http"
	"strings"

	"fincom/server/brdoc"
	"fincom/server/registers"
	"fincom/server/web"
	"fincom/store"
)

// contacts handles the routes of contacts (routes.go).
type contacts struct{ *API }

var (
	errInvalidContactType    = registers.ErrInvalidContactType
	errRegisterUsed          = web.NewError(http.StatusBadRequest, "Register already used in a contact of this unit.")
	errContactNotFound       = web.NewError(http.StatusNotFound, "Contact not found or not updated.")
	errContactNoFieldsUpdate = web.NewError(http.StatusBadRequest, web.TextNoFieldsToUpdateDot)
	errInvalidBirthDate      = web.NewError(http.StatusBadRequest, "Invalid birthDate. Use DD/MM/YYYY.")
	errInvalidCityIBGE       = web.NewError(http.StatusBadRequest, "Invalid city_ibge. Use a 7-digit IBGE municipality code.")
)

type getContactsRequest struct {
	Search   string `json:"search" doc:"Text found in any name, the CPF or the CNPJ."`
	Register string `json:"register" doc:"Only the contact of this CPF or CNPJ, with or without its mask."`
	Kind     string `json:"kind" doc:"fincom: only the customers (customer) or the suppliers (supplier), each with those who are both; anything else is 400 Invalid kind."`
}

// getContacts answers the unit's active contacts; `search` matches any name,
// `register` the CPF/CNPJ with or without mask.
func (s contacts) getContacts(r *web.Request, q *getContactsRequest) (any, error) {
	if q.Kind != "" && q.Kind != "customer" && q.Kind != "supplier" {
		return nil, registers.ErrInvalidKind
	}
	return r.DB.Contacts(r.Ctx, r.Unit.ID, store.ContactFilter{Search: strings.TrimSpace(q.Search), Register: brdoc.Clean(q.Register), Kind: q.Kind})
}

// ContactRequest is the body of /insert_contact and /update_contact. Every
// field is a pointer so that an update tells "not sent" from "emptied".
type ContactRequest struct {
	IDToken string  `json:"id_token" alias:"token" doc:"The contact's token (an update's)."`
	Type    *string `json:"type" enum:"legal,natural_person" doc:"legal for a firm (CNPJ), natural_person for a person (CPF)."`
	// Register is a CPF or CNPJ (alphanumeric too), with or without
	// its mask.
	Register     *string `json:"register" pattern:"^\\s*([0-9]{3}\\.?[0-9]{3}\\.?[0-9]{3}-?[0-9]{2}|[0-9A-Za-z]{2}\\.?[0-9A-Za-z]{3}\\.?[0-9A-Za-z]{3}/?[0-9A-Za-z]{4}-?[0-9]{2})\\s*$" doc:"The CPF or CNPJ (the alphanumeric CNPJ too), with or without its mask; its check digits are verified and it is stored bare."`
	FullName     *string `json:"fullName" alias:"full_name,contact_name" max:"short" doc:"A person's full name (required for natural_person)."`
	SocialReason *string `json:"socialReason" alias:"social_reason,company_name" max:"short" doc:"A firm's legal name, razão social (required for legal)."`
	FantasyName  *string `json:"fantasyName" alias:"fantasy_name" max:"short" doc:"A firm's trade name, nome fantasia."`
	BirthDate    *string `json:"birthDate" alias:"birth_date" pattern:"^\\s*([0-9]{2}/[0-9]{2}/[0-9]{4})?\\s*$" doc:"A person's birth date, DD/MM/YYYY (a day of the calendar)."`
	Phone        *string `json:"phone" max:"short" doc:"A phone number in any form, as the spec has it: stored as its digits (the rest is dropped, not refused)."`
	Email        *string `json:"email" format:"email" max:"short" doc:"The contact's e-mail address."`
	Address      *string `json:"address" max:"short" doc:"The street (logradouro), as invoices and boletos print it."`
	ZipCode      *string `json:"zip_code" alias:"zipCode" pattern:"^\\s*([0-9]{2}\\.?[0-9]{3}-?[0-9]{3})?\\s*$" doc:"The CEP, 8 digits with or without its mask."`
	State        *string `json:"state" pattern:"^\\s*([A-Za-z]{2})?\\s*$" doc:"The state's two-letter abbreviation (UF), one of the 27, in any case (sp is SP)."`
	City         *string `json:"city" max:"short" doc:"The municipality's name."`
	Neighborhood *string `json:"neighborhood" alias:"district,bairro" max:"short" doc:"The district (bairro)."`
	Observation  *string `json:"observation" text:"multiline" max:"long" doc:"Free notes about the contact (several lines)."`
	DataBank     *string `json:"data_bank" alias:"dataBank" text:"multiline" max:"long" doc:"The contact's bank details, as free text (several lines)."`
	Number       *string `json:"number" max:"short" doc:"The street number (S/N when none)."`
	Complement   *string `json:"complement" max:"short" doc:"The address complement (sala, apto)."`
	CityIBGE     *string `json:"city_ibge" alias:"ibge" pattern:"^\\s*([0-9]{7})?\\s*$" doc:"The municipality's 7-digit IBGE code, one of IBGE's table; the city and state are taken from it when not sent. Without it, it is found by city and state."`
	// StateRegistration is the inscrição estadual, checked by the rule of
	// the contact's state, or ISENTO.
	StateRegistration *string `json:"state_registration" alias:"inscricao_estadual,ie" doc:"The inscrição estadual, checked by its state's rule, or ISENTO."`
	// ICMSContributor is the NF-e's indIEDest: 1 contributor of ICMS, 2
	// exempt from registration, 9 not a contributor (by default: 1 with a
	// registration, 2 with ISENTO, 9 without).
	ICMSContributor *string `json:"icms_contributor" alias:"ind_ie_dest" pattern:"^\\s*[129]?\\s*$" doc:"The NF-e's indIEDest: 1 ICMS contributor, 2 exempt from registration, 9 not a contributor (default: from state_registration)."`
	// Kind is whom the firm deals with (a fincom field).
	Kind *string `json:"kind" doc:"fincom: whom the firm deals with: customer, supplier, or both (the default); anything else is 400 Invalid kind."`
}

func (q *ContactRequest) fieldCount() int {
	return web.Sent(q.Type, q.Register, q.FullName, q.SocialReason, q.FantasyName, q.BirthDate, q.Phone, q.Email, q.Address,
		q.ZipCode, q.State, q.City, q.Neighborhood, q.Observation, q.DataBank, q.Number, q.Complement, q.CityIBGE,
		q.StateRegistration, q.ICMSContributor, q.Kind)
}

// The shapes of a register, a CEP, a state and an IBGE code, from their
// tags.
var (
	registerShape = web.TagPattern(ContactRequest{}, "Register")
	zipShape      = web.TagPattern(ContactRequest{}, "ZipCode")
	stateShape    = web.TagPattern(ContactRequest{}, "State")
	ibgeShape     = web.TagPattern(ContactRequest{}, "CityIBGE")
	birthShape    = web.TagPattern(ContactRequest{}, "BirthDate")
	contribShape  = web.TagPattern(ContactRequest{}, "ICMSContributor")
)

// Apply copies the sent fields onto f, normalized: register without its
// mask, phone and zip as digits, state upper case, birth date as ISO.
func (q *ContactRequest) Apply(f *store.ContactFields) error {
	for _, t := range []struct {
		dst *string
		src *string
	}{
		{&f.FullName, q.FullName}, {&f.SocialReason, q.SocialReason},
		{&f.FantasyName, q.FantasyName}, {&f.Email, q.Email},
		{&f.Address, q.Address}, {&f.City, q.City},
		{&f.Neighborhood, q.Neighborhood}, {&f.Number, q.Number},
		{&f.Complement, q.Complement}, {&f.Observation, q.Observation},
		{&f.DataBank, q.DataBank},
	} {
		web.SetText(t.dst, t.src)
	}
	if q.Type != nil {
		f.Type = strings.TrimSpace(*q.Type)
	}
	if q.Register != nil {
		f.Register = brdoc.Clean(*q.Register)
		if !registerShape.MatchString(*q.Register) {
			// Not a CPF or CNPJ however it is masked: kept as sent, so
			// that the check of its kind refuses it in its own words.
			f.Register = *q.Register
		}
	}
	if q.Phone != nil {
		f.Phone = brdoc.Digits(*q.Phone)
	}
	if q.ZipCode != nil {
		if !zipShape.MatchString(*q.ZipCode) {
			return registers.ErrInvalidZip
		}
		f.ZipCode = brdoc.Digits(*q.ZipCode)
	}
	if q.State != nil {
		if !stateShape.MatchString(*q.State) {
			return registers.ErrInvalidState
		}
		f.State = strings.ToUpper(strings.TrimSpace(*q.State))
	}
	if q.StateRegistration != nil {
		f.StateRegistration = strings.ToUpper(strings.TrimSpace(*q.StateRegistration))
	}
	if q.Kind != nil {
		switch k := strings.TrimSpace(*q.Kind); k {
		case "both":
			f.Kind = ""
		case "customer", "supplier":
			f.Kind = k
		default:
			return registers.ErrInvalidKind
		}
	}
	if q.ICMSContributor != nil {
		if !contribShape.MatchString(*q.ICMSContributor) {
			return registers.ErrInvalidContributor.With(web.FieldDetails{Field: "icms_contributor"})
		}
		f.ICMSContributor = strings.TrimSpace(*q.ICMSContributor)
	}
	if q.BirthDate != nil {
		f.BirthDate = ""
		if !birthShape.MatchString(*q.BirthDate) {
			return errInvalidBirthDate
		}
		if v := strings.TrimSpace(*q.BirthDate); v != "" {
			d, err := store.ParseDateBR(v)
			if err != nil {
				return errInvalidBirthDate
			}
			f.BirthDate = d.ISO()
		}
	}
	// The IBGE code is what invoices need; it comes from city_ibge when
	// sent, else from the city's name and state.
	switch {
	case q.CityIBGE != nil:
		if !ibgeShape.MatchString(*q.CityIBGE) {
			return errInvalidCityIBGE
		}
		f.CityIBGE = strings.TrimSpace(*q.CityIBGE)
		if m, ok := brdoc.LookupIBGE(f.CityIBGE); f.CityIBGE != "" && !ok {
			return errInvalidCityIBGE
		} else if ok && f.City == "" {
			f.City, f.State = m.Name, m.State
		}
	case q.City != nil || q.State != nil:
		f.CityIBGE, _ = brdoc.LookupCity(f.City, f.State)
	}
	return registers.CheckContact(f)
}

// insertContact creates an active contact (spec, /insert_contact).
func (s contacts) insertContact(r *web.Request, q *ContactRequest) (any, error) {
	var f store.ContactFields
	if err := q.Apply(&f); err != nil {
		return nil, err
	}
	token, err := r.DB.InsertContact(r.Ctx, r.Unit.ID, f)
	if err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Contact created successfully.", Token: token}, nil
}

// updateContact changes the sent fields of a contact (spec, /update_contact).
func (s contacts) updateContact(r *web.Request, q *ContactRequest) (any, error) {
	if q.fieldCount() == 0 {
		return nil, errContactNoFieldsUpdate
	}
	if err := r.DB.UpdateContact(r.Ctx, r.Unit.ID, q.IDToken, q.Apply); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Contact updated successfully.", Token: q.IDToken}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docGetContacts = "The unit's active contacts by name, optionally by `search` (any of the names, as a substring; ASCII " +
		"letters in either case) and `register` (CPF or CNPJ, with or without mask). `contact_name` is the " +
		"full name, else the fantasy name, else the company name; `company_name` is the company name (null " +
		"for people)."
	docInsertContact = "Creates an active contact (spec): `type` (`legal`, `natural_person`) and `register` required, with " +
		"`fullName` for people and `socialReason` for firms (aliases `full_name`, `social_reason`, " +
		"`fantasy_name`, `birth_date`, `zipCode`, `dataBank`). `register` keeps digits and letters (the " +
		"alphanumeric CNPJ too) and its check digits are verified; `phone` and `zip_code` are stored as " +
		"digits. Errors in this order: `Missing required parameters.`, `Invalid contact type.`, `Invalid " +
		"CPF.` / `Invalid CNPJ.`, the name's text, then `Invalid state. …`, `Invalid zip_code. …`, `Invalid " +
		"email.`, `Invalid birthDate. …`; `Register already used in a contact of this unit.` (inactive " +
		"contacts included)."
	docUpdateContact = "Changes the sent fields of a contact (`id_token`); at least one (400 `No fields provided to " +
		"update.`). A sent `register` is checked as an insert checks it."
	docSetContactActive = "Enables or disables a contact (`id_token`); idempotent."
)
