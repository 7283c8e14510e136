// Package registers holds the rules of the firm's registers as they are
// stored, whoever writes them: the API's routes and the staff portal's
// forms. A contact's kind, document (CPF or CNPJ with its check digits),
// name, state, CEP, e-mail and state registration.
package registers

import (
	"regexp"
	"strings"

	"fincom/server/brdoc"
	"fincom/server/problem"
	"fincom/store"
)

// A contact's refusals, in the spec's words (/insert_contact).
var (
	ErrInvalidCPF           = problem.New(problem.Invalid, "Invalid CPF.")
	ErrInvalidCNPJ          = problem.New(problem.Invalid, "Invalid CNPJ.")
	ErrFullNameRequired     = problem.New(problem.Invalid, "Full name is required for natural persons.")
	ErrSocialReasonRequired = problem.New(problem.Invalid, "Company name (social reason) is required for legal entities.")
	ErrInvalidContactType   = problem.New(problem.Invalid, "Invalid contact type.")
	// ErrInvalidKind: a contact is a customer, a supplier or both.
	ErrInvalidKind  = problem.New(problem.Invalid, "Invalid kind. Use customer, supplier or both.")
	ErrInvalidState = problem.New(problem.Invalid, "Invalid state. Use the two-letter abbreviation.")
	ErrInvalidZip   = problem.New(problem.Invalid, "Invalid zip_code. Use 8 digits.")
	ErrInvalidEmail = problem.New(problem.Invalid, "Invalid email.")

	// The state registration's, each answered with details.field (and
	// the state it was read by).
	ErrIEWithoutState          = problem.New(problem.Invalid, "A state registration is read by its state's rule: send the contact's state too.")
	ErrInvalidIE               = problem.New(problem.Invalid, "Invalid state_registration: not an inscrição estadual of the contact's state (details.state; its check digits differ), nor ISENTO.")
	ErrContributorUnregistered = problem.New(problem.Invalid, "icms_contributor 1 (contributor of ICMS) needs the contact's state_registration.")
	ErrExemptRegistered        = problem.New(problem.Invalid, "icms_contributor 2 (exempt from state registration) does not go with a state_registration number: send ISENTO or 1.")
	ErrInvalidContributor      = problem.New(problem.Invalid, "Invalid icms_contributor. Use 1, 2 or 9.")
)

// fieldDetails names the field a refusal is about.
type fieldDetails struct {
	Field string `json:"field"`
	State string `json:"state,omitempty"`
}

// CheckContact validates a contact as it will be stored, in the order a
// caller fixes things: kind, document, name, then the optional fields.
func CheckContact(f *store.ContactFields) error {
	if f.Kind != "" && f.Kind != "customer" && f.Kind != "supplier" {
		return ErrInvalidKind
	}
	switch f.Type {
	case "natural_person":
		if !brdoc.ValidCPF(f.Register) {
			return ErrInvalidCPF
		}
		if f.FullName == "" {
			return ErrFullNameRequired
		}
	case "legal":
		if !brdoc.ValidCNPJ(f.Register) {
			return ErrInvalidCNPJ
		}
		if f.SocialReason == "" {
			return ErrSocialReasonRequired
		}
	default:
		return ErrInvalidContactType
	}
	if f.State != "" && !brdoc.ValidState(f.State) {
		return ErrInvalidState
	}
	if f.ZipCode != "" && len(f.ZipCode) != 8 {
		return ErrInvalidZip
	}
	if f.Email != "" && !ValidEmail(f.Email) {
		return ErrInvalidEmail
	}
	return checkStateRegistration(f)
}

// checkStateRegistration checks the inscrição estadual by its state's
// rule (the contact's state is needed to read it) and its agreement with
// the contributor indicator: a contributor (1) has a registration, one
// exempt (2) has none (ISENTO), a person is not a contributor unless
// registered (a rural producer). Each refusal names its field
// (TestRecipientStateRegistration).
func checkStateRegistration(f *store.ContactFields) error {
	ie := f.StateRegistration
	if ie != "" && !strings.EqualFold(ie, brdoc.Exempt) {
		if f.State == "" {
			return ErrIEWithoutState.With(fieldDetails{Field: "state"})
		}
		n, ok := brdoc.NormalizeIE(f.State, ie)
		if !ok {
			return ErrInvalidIE.With(fieldDetails{Field: "state_registration", State: f.State})
		}
		f.StateRegistration = n
	} else if ie != "" {
		f.StateRegistration = brdoc.Exempt
	}
	registered := f.StateRegistration != "" && f.StateRegistration != brdoc.Exempt
	switch f.ICMSContributor {
	case "":
	case "1":
		if !registered {
			return ErrContributorUnregistered.With(fieldDetails{Field: "icms_contributor"})
		}
	case "2":
		if registered {
			return ErrExemptRegistered.With(fieldDetails{Field: "icms_contributor"})
		}
	case "9":
	default:
		return ErrInvalidContributor.With(fieldDetails{Field: "icms_contributor"})
	}
	return nil
}

// EmailPattern is an address in RFC 5322's dot-atom form, as every mail
// system takes it: an ASCII local part of atext characters and single
// dots, "@", a domain of at least two labels of letters, digits and inner
// hyphens (at most 63 characters each). Quoted local parts and addresses
// without a dotted domain are refused (TestEmailFormat). The OpenAPI
// document gives it to an optional address, beside `format: email`'s.
const EmailPattern = "[A-Za-z0-9!#$%&'*+/=?^_\\x60{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_\\x60{|}~-]+)*" +
	"@[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+"

var emailShape = regexp.MustCompile("^" + EmailPattern + "$")

// ValidEmail accepts an address of EmailPattern's form, at most 254
// characters (RFC 5321's path).
func ValidEmail(s string) bool {
	return len(s) <= 254 && emailShape.MatchString(s)
}
