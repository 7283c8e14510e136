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
	// Production: the unit issues in produção; Contingency is its NF-e's
	// mode (off, svc, epec) since ContingencySince (DD/MM/AAAA).
	Production                    bool
	Contingency, ContingencySince string
	// PSP is the unit's PSP connection, if any.
	PSP *PortalPSP
	// Banks are the provider slots with their agreements; Remittances
	// the unit's CNAB remittances, newest first.
	Banks       []PortalBank
	Remittances []PortalRemittance
	// People have a role on the unit; Roles are those to give; EveryUnit:
	// the owner owns every unit, and may give a role on all of them.
	People    []PortalPerson
	Roles     []PortalOption
	EveryUnit bool
	// Reminders are the collection schedule's steps, each on or off;
	// OrderPDF: the charge's e-mail carries the order's PDF.
	Reminders []PortalReminderStep
	OrderPDF  bool
}

// PortalReminderStep is a step of a unit's collection schedule: a day
// after the due date (0 the due day) a reminder goes, and whether it is
// on.
type PortalReminderStep struct {
	Day   int
	Label string
	On    bool
}

// PortalPerson is a person with a role on the unit: where it has it
// (this unit, every unit).
type PortalPerson struct {
	Name, Email, Role, RoleName, Where string
}

// PortalBank is a provider slot (by default provider_a Itaú, provider_b
// Bradesco, provider_c Santander): its agreement, if any (Set), and its form.
type PortalBank struct {
	Provider, Name string
	// Banks are those a slot may have behind it; Wallets the wallets of
	// the one it has.
	Banks, Wallets []PortalOption
	Set            bool
	Simulated      bool
	Form           PortalAgreementForm
}

// PortalAgreementForm is an agreement as typed or stored: the agency and
// account with their digits, the wallet, the bank's code, the next
// our-number.
type PortalAgreementForm struct {
	Agency, Account, Wallet, Code, Next, Bank, Fine, Interest string
	// Variation is Banco do Brasil's wallet variation.
	Variation string
}

// PortalRemittance is a remittance made, with its link to download it
// again.
type PortalRemittance struct {
	Bank, Created, Link string
	Sequence, Titles    int
}

// PortalSEFAZ is the answer of the state's SEFAZ to the status asked
// before going to production: Up (107) with its code and words, or why
// it did not answer (Failed).
type PortalSEFAZ struct {
	Authorizer, Reason, Failed string
	Code                       int
	Up                         bool
}

// PortalSettingsForm is the company and fiscal profile as typed (the
// CSC never: it is written, not shown) and the PIX key's form.
type PortalSettingsForm struct {
	CNPJ, Zip, Street, Number, Complement, District, City, State, IE, CRT, CNAE, Phone string
	ICMSRate, PISRate, COFINSRate, CSCID, IM, PixKey, AccountantEmail                  string
	// SEFAZ is the status asked before going to production, when asked.
	SEFAZ *PortalSEFAZ
	// The PSP's connection as typed (its secret and certificate never).
	BaseURL, TokenURL, ClientID, PSPPixKey string
	// Agreement is a bank's agreement as typed, by provider.
	Agreement map[string]PortalAgreementForm
	// The invitation's person as typed.
	PersonName, PersonEmail string
}

// PortalPSP is a unit's PSP connection as its owner reads it: never its
// secret nor its certificate's key.
type PortalPSP struct {
	BaseURL, TokenURL, ClientID, PixKey, Certificate, Updated string
}

// PortalCertificate is a unit's installed A1 certificate as its owner
// reads it: the holder, its CNPJ and its end (DD/MM/AAAA); Ending within
// 30 days, Expired when past; Test for test mode's own certificates.
type PortalCertificate struct {
	Holder, CNPJ, Until   string
	Ending, Expired, Test bool
}
