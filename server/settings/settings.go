// Package settings is a unit's own set-up: its company and fiscal
// profile, its A1 certificate and its PIX key. The CLI (`fincom unit set`,
// `fincom unit cert`) and the portal's Configurações change them through
// here, under the same rules; each refusal names the field at fault.
package settings

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/shopspring/decimal"

	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/server/invoicing"
	"fincom/server/problem"
	"fincom/server/registers"
	"fincom/store"
)

// The refusals of a unit's settings, each beside its field (FieldError).
var (
	ErrLength      = problem.New(problem.Unprocessable, "use 2 to 60 characters (the number and the complement: 1 to 60)")
	ErrZip         = problem.New(problem.Unprocessable, "a CEP has 8 digits")
	ErrZipUnknown  = problem.New(problem.Unprocessable, "no state uses this CEP's range")
	ErrZipState    = problem.New(problem.Unprocessable, "the CEP is of another state than the municipality's")
	ErrCity        = problem.New(problem.Unprocessable, "not a municipality of the state as the IBGE names it")
	ErrPhone       = problem.New(problem.Unprocessable, "use 6 to 14 digits")
	ErrIE          = problem.New(problem.Unprocessable, "use the state registration's 2 to 14 digits, or ISENTO")
	ErrEnvironment = problem.New(problem.Unprocessable, "use homologacao or producao")
	ErrContingency = problem.New(problem.Unprocessable, "use svc, epec or off")
	ErrNFSeIssuer  = problem.New(problem.Unprocessable, "use national or municipal")
	ErrCRT         = problem.New(problem.Unprocessable, "use 1 (Simples Nacional), 2 (Simples over the sublimit), 3 (normal regime) or 4 (MEI)")
	ErrCNAE        = problem.New(problem.Unprocessable, "a CNAE has 7 digits")
	ErrRate        = problem.New(problem.Unprocessable, "a percent from 0 to 100, at most 4 decimals")
	ErrCSCID       = problem.New(problem.Unprocessable, "up to 6 digits")
	ErrCSC         = problem.New(problem.Unprocessable, "the state's CSC has 16 to 36 characters")
	ErrEmail       = problem.New(problem.Unprocessable, "not an e-mail address")
	ErrPixKey      = problem.New(problem.Unprocessable, "not a PIX key (a CPF or CNPJ with valid check digits, a phone as +55 with area code, an e-mail of at most 77 characters, or a random key)")
	ErrIM          = problem.New(problem.Unprocessable, "the municipal registration has 1 to 15 letters and digits")
	ErrCNPJ        = problem.New(problem.Unprocessable, "invalid CNPJ check digits")
	ErrCNPJSet     = problem.New(problem.Unprocessable, "the unit's CNPJ is set: a unit does not change its CNPJ")
	// The certificate's.
	ErrCertFile     = problem.New(problem.Unprocessable, "not a certificate file (.pfx or .p12) with its private key")
	ErrCertPassword = problem.New(problem.Unprocessable, "the certificate's password is wrong")
	ErrCertExpired  = problem.New(problem.Unprocessable, "the certificate has expired")
	ErrCertNotYet   = problem.New(problem.Unprocessable, "the certificate is not valid yet")
	ErrCertNoCNPJ   = problem.New(problem.Unprocessable, "the certificate names no CNPJ (ICP-Brasil e-CNPJ certificates carry it)")
	ErrCertOther    = problem.New(problem.Unprocessable, "the certificate belongs to another firm (another CNPJ root)")
	ErrCertNoUnit   = problem.New(problem.Unprocessable, "the unit has no CNPJ to compare the certificate with: set it first")
)

// FieldError is a refusal of one field of a unit's settings.
type FieldError struct {
	Field string // the CLI flag's name: street, zip, icms-rate, …
	Err   error
}

func (e FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e FieldError) Unwrap() error { return e.Err }

func refuse(field string, err error) error { return FieldError{Field: field, Err: err} }

// Profile is a change of a unit's company and fiscal profile: each field
// given (not nil) is set, the rest stays; "" clears a field.
type Profile struct {
	CNPJ, CityIBGE, IM                                            *string
	Street, Number, Complement, District, Zip, Phone, IE, CNAE    *string
	CRT                                                           *int
	ICMSRate, PISRate, COFINSRate, CSCID, CSC                     *string
	PixKey, AccountantEmail, Environment, Contingency, NFSeIssuer *string
	// City and State name the municipality as a person types it (the
	// portal's form): its IBGE code is looked up, and the CEP must be of
	// its state.
	City, State *string
}

// Set applies the change to the unit (token) in one transaction, with
// keys sealing the CSC; it answers the unit and its profile as saved.
func Set(ctx context.Context, db *store.DB, unitToken string, c Profile, keys *certs.Keyring) (store.Unit, store.UnitProfile, error) {
	certified := false
	if c.Environment != nil && *c.Environment == store.Producao {
		u, err := db.UnitByToken(ctx, unitToken)
		if err != nil {
			return store.Unit{}, store.UnitProfile{}, store.ErrNotFound
		}
		if certified, err = hasCertificate(ctx, db, u.ID); err != nil {
			return store.Unit{}, store.UnitProfile{}, err
		}
	}
	return db.SetUnitSettings(ctx, unitToken, func(u *store.Unit, p *store.UnitProfile) error {
		wasUnit, was := *u, *p
		if err := c.Apply(u, p, keys, db.Now()); err != nil {
			return err
		}
		// A unit goes to production only ready to issue there.
		if p.FiscalEnvironment == store.Producao && was.FiscalEnvironment != store.Producao {
			if missing := Missing(*u, *p, certified); len(missing) > 0 {
				return refuse("fiscal-environment", NotReady{Missing: missing})
			}
		}
		store.SetAuditRecord(ctx, Changes(wasUnit, was, *u, *p))
		return nil
	})
}

// Changes says what changed of a unit's settings, each field before and
// after ("street: Rua A → Rua B"); a secret (the CSC) only that it
// changed.
func Changes(wasUnit store.Unit, was store.UnitProfile, u store.Unit, p store.UnitProfile) string {
	var out []string
	for _, f := range []struct{ name, before, after string }{
		{"cnpj", wasUnit.CNPJ, u.CNPJ}, {"city-ibge", wasUnit.CityIBGE, u.CityIBGE}, {"im", wasUnit.IM, u.IM},
		{"street", was.Street, p.Street}, {"number", was.Number, p.Number}, {"complement", was.Complement, p.Complement},
		{"district", was.District, p.District}, {"zip", was.Zip, p.Zip}, {"phone", was.Phone, p.Phone}, {"ie", was.IE, p.IE},
		{"crt", strconv.Itoa(was.CRT), strconv.Itoa(p.CRT)}, {"cnae", was.CNAE, p.CNAE}, {"icms-rate", was.ICMSRate, p.ICMSRate},
		{"pis-rate", was.PISRate, p.PISRate}, {"cofins-rate", was.COFINSRate, p.COFINSRate}, {"csc-id", was.CSCID, p.CSCID},
		{"pix-key", was.PixKey, p.PixKey}, {"accountant-email", was.AccountantEmail, p.AccountantEmail},
		{"fiscal-environment", was.FiscalEnvironment, p.FiscalEnvironment}, {"fiscal-contingency", was.FiscalContingency, p.FiscalContingency},
		{"nfse-issuer", was.NFSeIssuer, p.NFSeIssuer},
	} {
		if f.before != f.after {
			out = append(out, f.name+": "+cmp.Or(f.before, "—")+" → "+cmp.Or(f.after, "—"))
		}
	}
	if !bytes.Equal(was.CSCSealed, p.CSCSealed) {
		out = append(out, "csc: changed")
	}
	if len(out) == 0 {
		return "unit settings: nothing changed"
	}
	return strings.Join(out, "; ")
}

// Apply checks the change and writes it onto u and p (a unit being
// created: Set for a stored one), the CSC sealed with keys.
func (c Profile) Apply(u *store.Unit, p *store.UnitProfile, keys *certs.Keyring, now time.Time) error {
	for _, t := range []struct {
		field    string
		v        *string
		min, max int
		dst      *string
	}{{"street", c.Street, 2, 60, &p.Street}, {"number", c.Number, 1, 60, &p.Number}, {"complement", c.Complement, 1, 60, &p.Complement},
		{"district", c.District, 2, 60, &p.District}} {
		if t.v == nil {
			continue
		}
		v := strings.TrimSpace(*t.v)
		if n := len([]rune(v)); v != "" && (n < t.min || n > t.max) {
			return refuse(t.field, ErrLength)
		}
		*t.dst = v
	}
	if c.CNPJ != nil {
		cnpj := brdoc.Clean(*c.CNPJ)
		switch {
		case cnpj == u.CNPJ || (cnpj == "" && u.CNPJ == ""):
		case u.CNPJ != "":
			return refuse("cnpj", ErrCNPJSet)
		case !brdoc.ValidCNPJ(cnpj):
			return refuse("cnpj", ErrCNPJ)
		default:
			u.CNPJ = cnpj
		}
	}
	if c.CityIBGE != nil {
		if _, ok := brdoc.LookupIBGE(*c.CityIBGE); *c.CityIBGE != "" && !ok {
			return refuse("city-ibge", ErrCity)
		}
		u.CityIBGE = *c.CityIBGE
	}
	if c.City != nil {
		u.CityIBGE = ""
		if city := strings.TrimSpace(*c.City); city != "" {
			state := ""
			if c.State != nil {
				state = strings.ToUpper(strings.TrimSpace(*c.State))
			}
			if state == "" && c.Zip != nil {
				state, _ = brdoc.StateOfCEP(brdoc.Digits(*c.Zip))
			}
			code, ok := brdoc.LookupCity(city, state)
			if !ok {
				return refuse("city", ErrCity)
			}
			u.CityIBGE = code
		}
	}
	if c.Zip != nil {
		if p.Zip = brdoc.Digits(*c.Zip); p.Zip != "" && len(p.Zip) != 8 {
			return refuse("zip", ErrZip)
		}
	}
	if p.Zip != "" && (c.Zip != nil || c.City != nil || c.CityIBGE != nil) {
		// The CEP names its state (the Correios' ranges): the
		// municipality must be in it.
		state, ok := brdoc.StateOfCEP(p.Zip)
		if !ok {
			return refuse("zip", ErrZipUnknown)
		}
		if m, known := brdoc.LookupIBGE(u.CityIBGE); known && m.State != state {
			return refuse("zip", ErrZipState)
		}
	}
	if c.Phone != nil {
		if p.Phone = brdoc.Digits(*c.Phone); p.Phone != "" && (len(p.Phone) < 6 || len(p.Phone) > 14) {
			return refuse("phone", ErrPhone)
		}
	}
	if c.IE != nil {
		ie := strings.ToUpper(strings.TrimSpace(*c.IE))
		if ie != "ISENTO" {
			if strings.Trim(ie, "0123456789./- ") != "" {
				return refuse("ie", ErrIE)
			}
			ie = brdoc.Digits(ie)
		}
		if ie != "" && !fiscal.ValidIE(ie) {
			return refuse("ie", ErrIE)
		}
		p.IE = ie
	}
	if c.IM != nil {
		im := strings.TrimSpace(*c.IM)
		if len(im) > 15 || strings.IndexFunc(im, func(r rune) bool { return r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r)) }) >= 0 {
			return refuse("im", ErrIM)
		}
		u.IM = im
	}
	if c.Environment != nil {
		switch *c.Environment {
		case store.Homologacao, store.Producao:
			p.FiscalEnvironment = *c.Environment
		default:
			return refuse("fiscal-environment", ErrEnvironment)
		}
	}
	if c.Contingency != nil {
		switch v := *c.Contingency; v {
		case "svc", "epec":
			if p.FiscalContingency != v {
				p.FiscalContingency, p.FiscalContingencySince = v, now.Format(time.RFC3339)
			}
		case "off":
			p.FiscalContingency, p.FiscalContingencySince = "off", ""
		default:
			return refuse("fiscal-contingency", ErrContingency)
		}
	}
	if c.NFSeIssuer != nil {
		switch *c.NFSeIssuer {
		case store.NFSeNational, store.NFSeMunicipal:
			p.NFSeIssuer = *c.NFSeIssuer
		default:
			return refuse("nfse-issuer", ErrNFSeIssuer)
		}
	}
	if c.CRT != nil {
		if *c.CRT < 1 || *c.CRT > 4 {
			return refuse("crt", ErrCRT)
		}
		p.CRT = *c.CRT
	}
	if c.CNAE != nil {
		if p.CNAE = brdoc.Digits(*c.CNAE); p.CNAE != "" && len(p.CNAE) != 7 {
			return refuse("cnae", ErrCNAE)
		}
	}
	for _, r := range []struct {
		field string
		v     *string
		dst   *string
	}{{"icms-rate", c.ICMSRate, &p.ICMSRate}, {"pis-rate", c.PISRate, &p.PISRate}, {"cofins-rate", c.COFINSRate, &p.COFINSRate}} {
		if r.v == nil {
			continue
		}
		v := strings.TrimSpace(strings.ReplaceAll(*r.v, ",", "."))
		if v == "" {
			*r.dst = ""
			continue
		}
		d, err := decimal.NewFromString(v)
		if err != nil || d.IsNegative() || d.GreaterThan(decimal.NewFromInt(100)) || !d.Equal(d.Round(4)) {
			return refuse(r.field, ErrRate)
		}
		*r.dst = d.String()
	}
	if c.CSCID != nil {
		if p.CSCID = brdoc.Digits(*c.CSCID); p.CSCID != "" && len(p.CSCID) > 6 {
			return refuse("csc-id", ErrCSCID)
		}
	}
	if c.AccountantEmail != nil {
		p.AccountantEmail = strings.TrimSpace(*c.AccountantEmail)
		if p.AccountantEmail != "" && !registers.ValidEmail(p.AccountantEmail) {
			return refuse("accountant-email", ErrEmail)
		}
	}
	if c.PixKey != nil {
		p.PixKey = ""
		if strings.TrimSpace(*c.PixKey) != "" {
			key, _, err := brdoc.NormalizePixKey(*c.PixKey)
			if err != nil {
				return refuse("pix-key", ErrPixKey)
			}
			p.PixKey = key
		}
	}
	if c.CSC != nil {
		csc := strings.TrimSpace(*c.CSC)
		switch {
		case csc == "":
			p.CSCSealed = nil
		case len(csc) < 16 || len(csc) > 36:
			return refuse("csc", ErrCSC)
		case keys == nil:
			return refuse("csc", invoicing.ErrNoSecretsKey)
		default:
			p.CSCSealed = keys.Seal([]byte(csc))
		}
	}
	return nil
}

// OtherFirm is the refusal of a certificate of another firm: the CNPJ
// it names and the unit's.
type OtherFirm struct{ Named, Unit string }

func (e OtherFirm) Error() string {
	return ErrCertOther.Text + ": it names " + e.Named + ", the unit is " + e.Unit
}
func (e OtherFirm) Unwrap() error { return ErrCertOther }

// InstallCertificate reads an A1 certificate file (.pfx or .p12) with its
// password, holds it to the unit (valid now, of the unit's firm: the same
// CNPJ root) and installs it, its key sealed with keys; the password is
// not kept. It answers the certificate as installed.
func InstallCertificate(ctx context.Context, db *store.DB, unit store.Unit, keys *certs.Keyring, pfx []byte, password string) (store.UnitCertificate, error) {
	c, err := certs.ReadPFX(pfx, password)
	switch {
	case errors.Is(err, certs.ErrPassword):
		return store.UnitCertificate{}, refuse("pfx", ErrCertPassword)
	case err != nil:
		return store.UnitCertificate{}, refuse("pfx", ErrCertFile)
	}
	if err := CheckCertificate(c, unit, db.Now()); err != nil {
		return store.UnitCertificate{}, err
	}
	if keys == nil {
		return store.UnitCertificate{}, refuse("pfx", invoicing.ErrNoSecretsKey)
	}
	store.SetAuditRecord(ctx, "certificate: "+c.Cert.Subject.CommonName+" · valid until "+c.Cert.NotAfter.Format(time.DateOnly))
	if err := invoicing.InstallCertificate(ctx, db, unit.ID, keys, c); err != nil {
		return store.UnitCertificate{}, err
	}
	return db.Certificate(ctx, unit.ID)
}

// CheckCertificate says why a certificate cannot sign the unit's notes
// now (expired, not yet valid, of another firm), or nil.
func CheckCertificate(c certs.Certificate, unit store.Unit, now time.Time) error {
	err := certs.Check(c.Cert, unit.CNPJ, now)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, certs.ErrExpired):
		return refuse("pfx", ErrCertExpired)
	case errors.Is(err, certs.ErrNotYetValid):
		return refuse("pfx", ErrCertNotYet)
	case errors.Is(err, certs.ErrNoCNPJ):
		return refuse("pfx", ErrCertNoCNPJ)
	case errors.Is(err, certs.ErrOtherCNPJ) && unit.CNPJ == "":
		return refuse("pfx", ErrCertNoUnit)
	case errors.Is(err, certs.ErrOtherCNPJ):
		return refuse("pfx", OtherFirm{Named: certs.CNPJ(c.Cert), Unit: unit.CNPJ})
	}
	return err
}
