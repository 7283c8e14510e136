package cmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/problem"
	"fincom/server/settings"
	"fincom/store"
)

func newUnitCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "unit", Aliases: []string{"units"}, Short: "Create, configure and list a domain's units"}
	var in store.UnitInput
	var pf profileFlags
	create := &cobra.Command{
		Use:   "create DOMAIN",
		Short: "Create a unit (with its fiscal profile) and print its unit token",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Name = strings.TrimSpace(in.Name)
			if in.Name == "" {
				return fmt.Errorf("--name is required")
			}
			if in.CNPJ != "" {
				in.CNPJ = brdoc.Clean(in.CNPJ)
				if !brdoc.ValidCNPJ(in.CNPJ) {
					return fmt.Errorf("--cnpj %s: invalid CNPJ check digits", in.CNPJ)
				}
			}
			if in.CityIBGE != "" {
				if _, ok := brdoc.LookupIBGE(in.CityIBGE); !ok {
					return fmt.Errorf("--city-ibge %s: not an IBGE municipality code", in.CityIBGE)
				}
			}
			keys, err := pf.keys(cmd.Flags(), a)
			if err != nil {
				return err
			}
			now, err := clock()
			if err != nil {
				return err
			}
			if err := pf.change(cmd.Flags()).Apply(&store.Unit{CNPJ: in.CNPJ, CityIBGE: in.CityIBGE}, &in.Profile, keys, now()); err != nil {
				return flagError(err)
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				u, err := db.CreateUnit(cmd.Context(), in)
				if err != nil {
					return err
				}
				return a.print(map[string]string{"domain": args[0], "name": u.Name, "unit_token": u.Token},
					fmt.Sprintf("unit %q created in %s\nunit_token: %s", u.Name, args[0], u.Token))
			})
		},
	}
	create.Flags().StringVar(&in.Name, "name", "", "unit name (required)")
	create.Flags().StringVar(&in.CNPJ, "cnpj", "", "unit CNPJ, with or without mask")
	create.Flags().StringVar(&in.CityIBGE, "city-ibge", "", "IBGE code of the unit's municipality, e.g. 3550308 (its city and state)")
	create.Flags().StringVar(&in.IM, "im", "", "municipal registration (inscrição municipal)")
	pf.flags(create)
	c.AddCommand(create)

	var allowNegative bool
	var spf profileFlags
	set := &cobra.Command{
		Use:   "set DOMAIN UNIT_TOKEN [--street S --number N --district D --zip CEP --ie IE|ISENTO --crt N ...] [--allow-negative-stock=true|false]",
		Short: "Change a unit's fiscal profile and settings; only the flags given change",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			profile := spf.changed(cmd.Flags())
			if !profile && !cmd.Flags().Changed("allow-negative-stock") {
				return fmt.Errorf("nothing to set: give a profile flag (--street, --ie, --crt, ...) or --allow-negative-stock")
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				out := map[string]any{"domain": args[0], "unit_token": args[1]}
				var text []string
				if cmd.Flags().Changed("allow-negative-stock") {
					if err := db.SetAllowNegativeStock(cmd.Context(), args[1], allowNegative); err != nil {
						if errors.Is(err, store.ErrNotFound) {
							return fmt.Errorf("no unit %q in %s", args[1], args[0])
						}
						return err
					}
					out["allow_negative_stock"] = allowNegative
					text = append(text, fmt.Sprintf("allow_negative_stock = %v", allowNegative))
				}
				if profile {
					keys, err := spf.keys(cmd.Flags(), a)
					if err != nil {
						return err
					}
					_, p, err := settings.Set(cmd.Context(), db, args[1], spf.change(cmd.Flags()), keys)
					if errors.Is(err, store.ErrNotFound) {
						return fmt.Errorf("no unit %q in %s", args[1], args[0])
					}
					if err != nil {
						return flagError(err)
					}
					out["profile"] = p
					text = append(text, "fiscal profile: "+describeProfile(p))
				}
				return a.print(out, strings.Join(text, "\n"))
			})
		},
	}
	set.Flags().BoolVar(&allowNegative, "allow-negative-stock", false, "let inventory exits take a product's stock below zero")
	spf.flags(set)
	c.AddCommand(set)
	c.AddCommand(newUnitCertCmd(a), newUnitPSPCmd(a), newUnitPSPLocalCmd(a))
	c.AddCommand(newUnitAgreementCmd(a))
	c.AddCommand(&cobra.Command{
		Use:   "list DOMAIN",
		Short: "List a domain's units with their unit tokens",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				units, err := db.Units(cmd.Context())
				if err != nil {
					return err
				}
				if units == nil {
					units = []store.Unit{}
				}
				var b strings.Builder
				for _, u := range units {
					fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", u.Token, u.Name, u.CNPJ, u.CityIBGE)
				}
				return a.print(map[string]any{"domain": args[0], "units": units}, strings.TrimRight(b.String(), "\n"))
			})
		},
	})
	return c
}

// profileFlags are the flags of a unit's fiscal profile.
type profileFlags struct {
	street, number, complement, district, zip, phone, ie, cnae string
	crt                                                        int
	icms, pis, cofins                                          string
	cscID, csc                                                 string
	pixKey, accountant                                         string
	environment                                                string
	nfseIssuer                                                 string
	contingency                                                string
}

func (f *profileFlags) flags(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.street, "street", "", "the unit's street (2 to 60 characters)")
	fs.StringVar(&f.number, "number", "", "the unit's street number (S/N when it has none)")
	fs.StringVar(&f.complement, "complement", "", "the address's complement")
	fs.StringVar(&f.district, "district", "", "the unit's district (bairro)")
	fs.StringVar(&f.zip, "zip", "", "the unit's CEP (8 digits)")
	fs.StringVar(&f.phone, "phone", "", "the unit's phone (6 to 14 digits)")
	fs.StringVar(&f.ie, "ie", "", "the unit's state registration (digits), or ISENTO")
	fs.IntVar(&f.crt, "crt", 0, "tax regime: 1 Simples Nacional, 2 Simples Nacional over the sublimit, 3 normal regime, 4 MEI")
	fs.StringVar(&f.cnae, "cnae", "", "the unit's main CNAE (7 digits)")
	fs.StringVar(&f.icms, "icms-rate", "", "normal regime: the state's internal ICMS rate, percent (e.g. 18)")
	fs.StringVar(&f.pis, "pis-rate", "", "normal regime: the PIS rate, percent (0.65 cumulative, 1.65 non-cumulative)")
	fs.StringVar(&f.cofins, "cofins-rate", "", "normal regime: the COFINS rate, percent (3 cumulative, 7.6 non-cumulative)")
	fs.StringVar(&f.cscID, "csc-id", "", "NFC-e: the id of the CSC the state gave the unit (e.g. 000001)")
	fs.StringVar(&f.csc, "csc", "", "NFC-e: the CSC (kept sealed with --secrets-key-file)")
	fs.StringVar(&f.pixKey, "pix-key", "", "the unit's PIX key (CPF, CNPJ, +55 phone, e-mail or random key): the key of orders that give none")
	fs.StringVar(&f.accountant, "accountant-email", "", "e-mails the accountant's package of each month to this address on day 5 of the next (empty: none)")
	fs.StringVar(&f.environment, "fiscal-environment", "", "where the unit's invoices go: homologacao (tests, no legal value; the default) or producao")
	fs.StringVar(&f.contingency, "fiscal-contingency", "", "svc: the unit's NF-e go to its state's contingency authorizer (SVC-AN or SVC-RS) while the state's own is down; epec: when SVC is down too, they are issued at once by EPEC and sent later; off: back to normal")
	fs.StringVar(&f.nfseIssuer, "nfse-issuer", "", "records where the unit's city issues NFS-e, as the portal's units page shows: national (the default) or municipal; each order's nf_kind decides where its note goes (nfsen national, nfse municipal)")
}

var profileFlagNames = []string{"street", "number", "complement", "district", "zip", "phone", "ie", "crt", "cnae", "icms-rate", "pis-rate",
	"cofins-rate", "csc-id", "csc", "pix-key", "fiscal-environment", "nfse-issuer", "fiscal-contingency", "accountant-email"}

func (f *profileFlags) changed(fs *pflag.FlagSet) bool {
	for _, n := range profileFlagNames {
		if fs.Changed(n) {
			return true
		}
	}
	return false
}

// change is the profile change the given flags ask for.
func (f *profileFlags) change(fs *pflag.FlagSet) settings.Profile {
	var c settings.Profile
	str := func(name, v string, dst **string) {
		if fs.Changed(name) {
			*dst = &v
		}
	}
	str("street", f.street, &c.Street)
	str("number", f.number, &c.Number)
	str("complement", f.complement, &c.Complement)
	str("district", f.district, &c.District)
	str("zip", f.zip, &c.Zip)
	str("phone", f.phone, &c.Phone)
	str("ie", f.ie, &c.IE)
	str("cnae", f.cnae, &c.CNAE)
	str("icms-rate", f.icms, &c.ICMSRate)
	str("pis-rate", f.pis, &c.PISRate)
	str("cofins-rate", f.cofins, &c.COFINSRate)
	str("csc-id", f.cscID, &c.CSCID)
	str("csc", f.csc, &c.CSC)
	str("pix-key", f.pixKey, &c.PixKey)
	str("accountant-email", f.accountant, &c.AccountantEmail)
	str("fiscal-environment", f.environment, &c.Environment)
	str("fiscal-contingency", f.contingency, &c.Contingency)
	str("nfse-issuer", f.nfseIssuer, &c.NFSeIssuer)
	if fs.Changed("crt") {
		c.CRT = &f.crt
	}
	return c
}

// keys is the secrets key a change needs: only a CSC is sealed.
func (f *profileFlags) keys(fs *pflag.FlagSet, a *app) (*certs.Keyring, error) {
	if !fs.Changed("csc") || strings.TrimSpace(f.csc) == "" {
		return nil, nil
	}
	keys, err := a.keyring(false)
	if err == nil && keys == nil {
		err = fmt.Errorf("--csc is kept sealed: give --secrets-key-file (the key serve uses)")
	}
	return keys, err
}

// flagError says a refusal of the settings as the flag at fault.
func flagError(err error) error {
	var fe settings.FieldError
	if errors.As(err, &fe) {
		// An outside party's answer follows our text.
		if p, ok := fe.Err.(*problem.Problem); ok && p.Details != nil {
			return fmt.Errorf("--%s: %s: %v", fe.Field, p.Text, p.Details)
		}
		return fmt.Errorf("--%s: %s", fe.Field, fe.Err.Error())
	}
	return err
}

func describeProfile(p store.UnitProfile) string {
	parts := []string{p.Street + ", " + p.Number, p.District, "CEP " + p.Zip, "IE " + p.IE, "CRT " + strconv.Itoa(p.CRT)}
	if p.CSCID != "" {
		parts = append(parts, "CSC id "+p.CSCID)
	}
	parts = append(parts, "fiscal environment "+p.FiscalEnvironment, "NFS-e "+p.NFSeIssuer)
	if p.FiscalContingency != "" && p.FiscalContingency != "off" {
		parts = append(parts, "NF-e in "+strings.ToUpper(p.FiscalContingency)+" contingency since "+p.FiscalContingencySince)
	}
	return strings.Join(parts, "; ")
}

func newUnitCertCmd(a *app) *cobra.Command {
	var pfx, passwordFile string
	c := &cobra.Command{
		Use:   "cert DOMAIN UNIT_TOKEN --pfx FILE [--password-file FILE]",
		Short: "Install the unit's digital certificate (ICP-Brasil A1, .pfx) that signs its invoices",
		Long: "Install the unit's A1 certificate. The password comes from --password-file or the environment (FINCOM_CERT_PASSWORD), never\n" +
			"the command line. A certificate expired, not yet valid, or of another CNPJ is refused. Its private key is kept in the domain\n" +
			"file sealed with --secrets-key-file (the key serve is given): neither the file nor its backups hold it in clear.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if pfx == "" {
				return fmt.Errorf("--pfx is required")
			}
			keys, err := a.keyring(false)
			if err != nil {
				return err
			}
			if keys == nil {
				return fmt.Errorf("the certificate's key is kept sealed: give --secrets-key-file (the key serve uses)")
			}
			data, password, err := readPFXFile(pfx, passwordFile, "FINCOM_CERT_PASSWORD")
			if err != nil {
				return err
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				u, err := db.UnitByToken(cmd.Context(), args[1])
				if err != nil {
					return fmt.Errorf("no unit %q in %s", args[1], args[0])
				}
				c, err := settings.InstallCertificate(cmd.Context(), db, u, keys, data, password)
				var fe settings.FieldError
				if errors.As(err, &fe) {
					return fmt.Errorf("certificate refused: %w", fe.Err)
				}
				if err != nil {
					return err
				}
				out := map[string]any{"domain": args[0], "unit_token": args[1], "cnpj": c.CNPJ, "subject": c.Subject,
					"not_after": c.NotAfter.Format(time.DateOnly)}
				return a.print(out, fmt.Sprintf("certificate of %s installed (valid until %s)", c.Subject, c.NotAfter.Format(time.DateOnly)))
			})
		},
	}
	c.Flags().StringVar(&pfx, "pfx", "", "the certificate file (.pfx or .p12)")
	c.Flags().StringVar(&passwordFile, "password-file", "", "a file holding the certificate's password (else env FINCOM_CERT_PASSWORD)")
	return c
}
