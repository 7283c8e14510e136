package render

// PortalSettings is a unit's Configurações: its company and fiscal
// profile, its A1 certificate and its PIX key, each a form of its own.
type PortalSettings struct {
	Form PortalSettingsForm
	FormState
	// Section is the form a refusal is about: profile, certificate, pix.
	Section string
	Regimes []PortalOption
	// CNPJSet: the unit's CNPJ is shown, not asked (it does not change).
	CNPJSet bool
	// CSCSaved: a CSC is stored; it is never shown again.
	CSCSaved bool
	// PixKey is the unit's stored PIX key, formatted; "" when none.
	PixKey      string
	Certificate *PortalCertificate
}

// PortalSettingsForm is the company and fiscal profile as typed (the
// CSC never: it is written, not shown) and the PIX key's form.
type PortalSettingsForm struct {
	CNPJ, Zip, Street, Number, Complement, District, City, State, IE, CRT, CNAE, Phone string
	ICMSRate, PISRate, COFINSRate, CSCID, IM, PixKey, AccountantEmail                  string
}

// PortalCertificate is a unit's installed A1 certificate as its owner
// reads it: the holder, its CNPJ and its end (DD/MM/AAAA); Ending within
// 30 days, Expired when past; Test for test mode's own certificates.
type PortalCertificate struct {
	Holder, CNPJ, Until   string
	Ending, Expired, Test bool
}
