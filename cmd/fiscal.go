package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"fincom/jobs"
	"fincom/server/brdoc"
	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/server/fiscal/nfsen"
	"fincom/server/fiscal/sefaz"
	"fincom/server/invoicing"
	"fincom/store"
)

// newFiscalCmd is `fincom fiscal`: the tax authorities' services.
func newFiscalCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "fiscal", Short: "The tax authorities' web services fincom knows"}
	var model, state, env, file string
	endpoints := &cobra.Command{
		Use:   "endpoints --model 55|65 --state UF",
		Short: "Show the authorizer and the service addresses of a state's NF-e or NFC-e, as shipped or as --fiscal-endpoints overrides them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := sefaz.Load()
			if err != nil {
				return err
			}
			var warnings []string
			if file != "" {
				b, err := os.ReadFile(file)
				if err != nil {
					return fmt.Errorf("--fiscal-endpoints: %w", err)
				}
				if warnings, err = e.Override(b); err != nil {
					return err
				}
			}
			if env != sefaz.Homologacao && env != sefaz.Producao {
				return fmt.Errorf("--environment %q: %w", env, sefaz.ErrBadEnvironment)
			}
			state = strings.ToUpper(state)
			auth, err := e.Authorizer(model, state)
			if err != nil {
				return err
			}
			services := e.NFe[model][auth][env]
			names := make([]string, 0, len(services))
			for n := range services {
				names = append(names, n)
			}
			sort.Strings(names)
			var b strings.Builder
			for _, w := range warnings {
				fmt.Fprintf(&b, "warning: %s\n", w)
			}
			fmt.Fprintf(&b, "model %s, %s: authorizer %s, %s", model, state, auth, env)
			for _, n := range names {
				u, err := e.Lookup(model, auth, env, n)
				if err != nil {
					return err
				}
				fmt.Fprintf(&b, "\n%-24s %s", n, u)
			}
			return a.print(map[string]any{"model": model, "state": state, "authorizer": auth, "environment": env, "services": services,
				"nfse": e.NFSe[env], "warnings": append([]string{}, warnings...)}, b.String())
		},
	}
	endpoints.Flags().StringVar(&model, "model", "55", "55 (NF-e) or 65 (NFC-e)")
	endpoints.Flags().StringVar(&state, "state", "", "the issuing unit's state (UF)")
	endpoints.Flags().StringVar(&env, "environment", sefaz.Homologacao, "homologacao or producao")
	endpoints.Flags().StringVar(&file, "fiscal-endpoints", "", "a JSON file of addresses overriding the shipped ones")
	endpoints.MarkFlagRequired("state")
	c.AddCommand(endpoints)
	c.AddCommand(newFiscalStatusCmd(a), newFiscalConsultCmd(a), newFiscalVoidCmd(a), newFiscalLocalCmd(a), newFiscalCorrectCmd(a), newFiscalPendingCmd(a))
	return c
}

// fiscalOptions are the flags of the commands that speak to an
// authority.
type fiscalOptions struct {
	env, file, caFile string
}

func (o *fiscalOptions) flags(c *cobra.Command) {
	c.Flags().StringVar(&o.env, "environment", "", "homologacao or producao (default: the unit's fiscal environment)")
	c.Flags().StringVar(&o.file, "fiscal-endpoints", "", "a JSON file of addresses overriding the shipped ones")
	c.Flags().StringVar(&o.caFile, "ca-file", os.Getenv("FINCOM_CA_FILE"), "PEM certificates trusted besides the system's and the ICP-Brasil roots")
}

// fiscalClient is the SEFAZ client of a command: the shipped addresses
// as endpointsFile overrides them, trusting the system's roots, the
// ICP-Brasil roots and caFile.
func fiscalClient(endpointsFile, caFile string) (*sefaz.Client, error) {
	e, err := sefaz.Load()
	if err != nil {
		return nil, err
	}
	if endpointsFile != "" {
		b, err := os.ReadFile(endpointsFile)
		if err != nil {
			return nil, fmt.Errorf("--fiscal-endpoints: %w", err)
		}
		if _, err := e.Override(b); err != nil {
			return nil, err
		}
	}
	roots, err := certs.TrustPool(caFile)
	if err != nil {
		return nil, err
	}
	return &sefaz.Client{Endpoints: e, Roots: roots}, nil
}

// fiscalUnit is a unit about to speak to an authority: the SEFAZ client
// (the shipped addresses as --fiscal-endpoints overrides them, trusting
// the system's roots, the ICP-Brasil roots and --ca-file), its domain, its
// A1 certificate opened, and its state's IBGE code (cUF) and letters.
type fiscalUnit struct {
	client *sefaz.Client
	// env is the environment asked: --environment, else the unit's.
	env              string
	db               *store.DB
	unit             store.Unit
	cert             certs.Certificate
	stateCode, state string
}

// withFiscalUnit opens the domain's unit for fn, refusing a unit without a
// certificate, a CNPJ or a city, each with the command that sets it.
func (a *app) withFiscalUnit(cmd *cobra.Command, domain, token string, o fiscalOptions, fn func(f fiscalUnit) error) error {
	client, err := fiscalClient(o.file, o.caFile)
	if err != nil {
		return err
	}
	keys, err := a.keyring(false)
	if err != nil {
		return err
	}
	if keys == nil {
		return fmt.Errorf("the units' certificates are sealed: give --secrets-key-file")
	}
	return a.withDomain(cmd.Context(), domain, func(db *store.DB) error {
		u, err := db.UnitByToken(cmd.Context(), token)
		if err != nil {
			return fmt.Errorf("no unit %q in %s", token, domain)
		}
		m, ok := brdoc.LookupIBGE(u.CityIBGE)
		if !ok || !brdoc.ValidCNPJ(u.CNPJ) {
			return fmt.Errorf("unit %s needs its CNPJ and city: fincom unit set %s %s --cnpj CNPJ --city-ibge CODE", u.Name, domain, token)
		}
		stored, err := db.Certificate(cmd.Context(), u.ID)
		if err != nil {
			return fmt.Errorf("unit %s has no A1 certificate: fincom unit cert %s %s --pfx FILE", u.Name, domain, token)
		}
		cert, err := keys.OpenCertificate(stored.Cert, stored.Chain, stored.SealedKey)
		if err != nil {
			return fmt.Errorf("open the unit's certificate: %w", err)
		}
		env := o.env
		if env == "" {
			p, err := db.UnitProfile(cmd.Context(), u.ID)
			if err != nil {
				return err
			}
			env = p.FiscalEnvironment
		}
		if env != sefaz.Homologacao && env != sefaz.Producao {
			return fmt.Errorf("--environment %q: %w", env, sefaz.ErrBadEnvironment)
		}
		return fn(fiscalUnit{client: client, db: db, unit: u, cert: cert, stateCode: u.CityIBGE[:2], state: m.State, env: env})
	})
}

// newFiscalStatusCmd is `fincom fiscal status`: NFeStatusServico4 asked of
// the authority that serves the unit, and the national NFS-e system asked
// whether it answers, signed in with the unit's A1 certificate.
func newFiscalStatusCmd(a *app) *cobra.Command {
	var model string
	var o fiscalOptions
	c := &cobra.Command{
		Use:   "status DOMAIN UNIT_TOKEN",
		Short: "Ask the SEFAZ that serves the unit whether its NF-e (or NFC-e) service is up (NFeStatusServico4), and the national NFS-e system whether it answers the unit's A1 certificate",
		Long: "Asks the unit's authorizer NFeStatusServico4 (107 is \"Serviço em Operação\"; any error fails the command), then asks the national\n" +
			"NFS-e system for a note that cannot exist and expects its own refusal: the answer says whether it answered, and its version,\n" +
			"or why not (a unit that issues no national NFS-e may ignore it).",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withFiscalUnit(cmd, args[0], args[1], o, func(f fiscalUnit) error {
				st, err := f.client.Status(cmd.Context(), f.cert, model, f.state, f.stateCode, f.env)
				if err != nil {
					return err
				}
				prof, err := f.db.UnitProfile(cmd.Context(), f.unit.ID)
				if err != nil {
					return err
				}
				// The unit's emission mode: normal, or the contingency it
				// was switched to (unit set --fiscal-contingency).
				mode := prof.FiscalContingency
				if mode == "" {
					mode = "off"
				}
				out := struct {
					sefaz.Status
					Contingency string         `json:"contingency"`
					SVC         *svcStatus     `json:"svc,omitempty"`
					NFSe        nationalStatus `json:"nfse"`
				}{Status: st, Contingency: mode}
				svcText := ""
				if mode == "svc" && model == "55" {
					// In SVC the unit's NF-e go to its state's contingency
					// authorizer: its own answer is what matters (113: it
					// is about to be turned off; 114: not enabled).
					out.SVC, svcText = askSVC(cmd.Context(), f)
				}
				national := &nfsen.Client{Endpoints: f.client.Endpoints, Roots: f.client.Roots}
				out.NFSe.URL = f.client.Endpoints.NFSe[f.env]["sefin"]
				out.NFSe.Version, err = national.Status(cmd.Context(), f.cert, f.env)
				text := fmt.Sprintf("%s (%s, %s): %d %s\ncontingency: %s%s\nnational NFS-e system (%s): ", st.Authorizer, model, f.env, st.Code, st.Reason, mode,
					svcText, out.NFSe.URL)
				if err != nil {
					out.NFSe.Error = err.Error()
					text += "no answer: " + out.NFSe.Error
				} else {
					out.NFSe.Answered = true
					text += "answers, version " + out.NFSe.Version
				}
				return a.print(out, text)
			})
		},
	}
	c.Flags().StringVar(&model, "model", "55", "55 (NF-e) or 65 (NFC-e)")
	o.flags(c)
	return c
}

// svcStatus is how the unit's contingency authorizer answered, and what
// its answer means for the unit.
type svcStatus struct {
	sefaz.Status
	Error   string `json:"error,omitempty"`
	Meaning string `json:"meaning,omitempty"`
}

// svcMeaning says what the contingency authorizer's codes mean for a unit
// switched to it.
var svcMeaning = map[int]string{
	107: "in operation: the unit's NF-e go there",
	113: "the SVC is about to be turned off for the state: switch the unit back (fincom unit set --fiscal-contingency off) before it is",
	114: "the state's SEFAZ has not enabled its SVC (or has turned it off): the NF-e cannot go there; switch the unit back (fincom unit set --fiscal-contingency off)",
}

// askSVC asks the unit's state's contingency authorizer its status.
func askSVC(ctx context.Context, f fiscalUnit) (*svcStatus, string) {
	out := &svcStatus{}
	tp, err := sefaz.SVCOf(f.state)
	if err == nil {
		auth := map[int]string{6: "SVCAN", 7: "SVCRS"}[tp]
		out.Status, err = f.client.StatusOf(ctx, f.cert, "55", auth, f.stateCode, f.env)
	}
	if err != nil {
		out.Error = err.Error()
		return out, " (contingency authorizer: no answer: " + out.Error + ")"
	}
	out.Meaning = svcMeaning[out.Code]
	text := fmt.Sprintf(" (%s: %d %s", out.Authorizer, out.Code, out.Reason)
	if out.Meaning != "" {
		text += ": " + out.Meaning
	}
	return out, text + ")"
}

// abandonedNote is an attempt given up for an offline note, as fiscal
// pending lists it.
type abandonedNote struct {
	Unit      string `json:"unit"`
	Order     string `json:"order"`
	Kind      string `json:"kind"`
	Number    int    `json:"number"`
	Key       string `json:"access_key"`
	Attempts  int    `json:"attempts"`
	LastError string `json:"last_error,omitempty"`
}

// nationalStatus is how the national NFS-e system answered.
type nationalStatus struct {
	URL      string `json:"url"`
	Answered bool   `json:"answered"`
	Version  string `json:"version,omitempty"`
	Error    string `json:"error,omitempty"`
}

// newFiscalConsultCmd is `fincom fiscal consult`: a note's standing at the
// authority of its key (NFeConsultaProtocolo4).
func newFiscalConsultCmd(a *app) *cobra.Command {
	var o fiscalOptions
	c := &cobra.Command{
		Use:   "consult DOMAIN UNIT_TOKEN ACCESS_KEY",
		Short: "Ask the authority of an NF-e's or NFC-e's key for its standing and protocol (NFeConsultaProtocolo4, with the unit's A1 certificate)",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withFiscalUnit(cmd, args[0], args[1], o, func(f fiscalUnit) error {
				st, err := f.client.Consult(cmd.Context(), f.cert, brdoc.Digits(args[2]), f.env)
				if err != nil {
					return err
				}
				text := fmt.Sprintf("%s: %d %s", st.Key, st.Code, st.Reason)
				if st.Protocol != "" {
					text += ", protocol " + st.Protocol
				}
				return a.print(st, text)
			})
		},
	}
	o.flags(c)
	return c
}

// newFiscalVoidCmd is `fincom fiscal void`: numbers of a series no note
// will carry voided at the authority (NFeInutilizacao4), then never taken
// by an invoice of the unit.
func newFiscalVoidCmd(a *app) *cobra.Command {
	var model, reason string
	var series, from, to int
	var o fiscalOptions
	c := &cobra.Command{
		Use:   "void DOMAIN UNIT_TOKEN --series N --from N [--to N] --reason TEXT",
		Short: "Void (inutilizar) numbers of a series no NF-e or NFC-e will carry, at the authority and in fincom (NFeInutilizacao4, signed with the unit's A1 certificate)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == 0 {
				to = from
			}
			kind := map[string]string{"55": "nfe", "65": "nfce"}[model]
			if kind == "" {
				return fmt.Errorf("--model %q: use 55 or 65", model)
			}
			return a.withFiscalUnit(cmd, args[0], args[1], o, func(f fiscalUnit) error {
				// A number a note carries is never voided: asked before
				// the authority is, and again when it is recorded.
				if err := f.db.CheckVoidable(cmd.Context(), f.unit.ID, kind, series, from, to); err != nil {
					return err
				}
				v, err := f.client.Void(cmd.Context(), f.cert, sefaz.Voiding{Model: model, State: f.state, StateCode: f.stateCode,
					CNPJ: brdoc.Digits(f.unit.CNPJ), Year: f.db.Now().Year(), Series: series, From: from, To: to, Reason: reason}, f.env)
				if err != nil {
					return err
				}
				text := fmt.Sprintf("%s: %d %s", v.Authorizer, v.Code, v.Reason)
				if v.Code != 102 {
					return fmt.Errorf("the authority did not void %d to %d: %s", from, to, text)
				}
				if err := f.db.VoidInvoiceNumbers(cmd.Context(), f.unit.ID, kind, series, from, to); err != nil {
					return fmt.Errorf("voided at the authority (protocol %s) but not recorded: %w", v.Protocol, err)
				}
				return a.print(v, text+", protocol "+v.Protocol)
			})
		},
	}
	c.Flags().StringVar(&model, "model", "55", "55 (NF-e) or 65 (NFC-e)")
	c.Flags().IntVar(&series, "series", 1, "the series")
	c.Flags().IntVar(&from, "from", 0, "the first number to void")
	c.Flags().IntVar(&to, "to", 0, "the last number to void (default --from)")
	c.Flags().StringVar(&reason, "reason", "", "why, 15 to 255 characters")
	o.flags(c)
	return c
}

// newFiscalCorrectCmd is `fincom fiscal correct`: a correction letter of
// one of the unit's authorized notes (event 110110).
func newFiscalCorrectCmd(a *app) *cobra.Command {
	var text string
	var sequence int
	var o fiscalOptions
	c := &cobra.Command{
		Use:   "correct DOMAIN UNIT_TOKEN ACCESS_KEY --text TEXT [--sequence N]",
		Short: "Send a correction letter (carta de correção, 110110) of one of the unit's authorized NF-e, signed with its A1 certificate; each letter of a note takes the next --sequence and replaces the earlier ones",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			key := brdoc.Digits(args[2])
			return a.withFiscalUnit(cmd, args[0], args[1], o, func(f fiscalUnit) error {
				if len(key) != 44 || key[6:20] != f.unit.CNPJ {
					return fmt.Errorf("%s is not a key of a note of unit %s (CNPJ %s)", args[2], f.unit.Name, f.unit.CNPJ)
				}
				if key[20:22] != "55" {
					return fmt.Errorf("%s is an NFC-e's key: only an NF-e (model 55) takes a correction letter", args[2])
				}
				// The letters of one of fincom's invoices are kept with it: the
				// next one takes the next sequence unless --sequence says.
				events, err := f.db.InvoiceEvents(cmd.Context(), f.unit.ID, key)
				if err != nil {
					return err
				}
				if sequence == 0 {
					sequence = invoicing.NextSequence(events, "110110")
				}
				ev, err := f.client.Correct(cmd.Context(), f.cert, sefaz.Correction{Key: key, CNPJ: f.unit.CNPJ, Text: text, Sequence: sequence,
					At: f.db.Now()}, f.env)
				if err != nil {
					return err
				}
				out := fmt.Sprintf("%s, correction %d: %d %s", key, sequence, ev.Code, ev.Reason)
				if !ev.Registered() {
					return fmt.Errorf("the authority refused the correction letter: %d %s", ev.Code, ev.Reason)
				}
				err = f.db.AddInvoiceEvent(cmd.Context(), f.unit.ID, key, store.InvoiceEvent{Type: "110110", Sequence: sequence, Protocol: ev.Protocol,
					XML: string(fiscal.ProcEvento(ev.Signed, ev.RetEvento))})
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("the letter was registered (protocol %s) but not kept: %w", ev.Protocol, err)
				}
				return a.print(ev, out+", protocol "+ev.Protocol)
			})
		},
	}
	c.Flags().StringVar(&text, "text", "", "the correction, 15 to 1,000 characters: it replaces every earlier letter of the note")
	c.Flags().IntVar(&sequence, "sequence", 0, "the letter's number for this note, 1 to 20 (by default the next after the letters kept with the invoice)")
	o.flags(c)
	return c
}

// pendingNote is a note waiting for an authority as fiscal pending shows
// it.
type pendingNote struct {
	Unit      string    `json:"unit"`
	Order     string    `json:"order"`
	Kind      string    `json:"kind"`
	Number    int       `json:"number"`
	Offline   bool      `json:"issued_offline"`
	Attempts  int       `json:"attempts"`
	LastError string    `json:"last_error"`
	Updated   time.Time `json:"last_try"`
	NextTry   time.Time `json:"next_try"`
}

// newFiscalPendingCmd is `fincom fiscal pending`: the notes of a domain
// (or of one of its units) waiting for an authority, with their last
// answer and next try.
func newFiscalPendingCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "pending DOMAIN [UNIT_TOKEN]",
		Short: "List the notes waiting for an authority (sent with the answer lost, or issued offline), with their last answer and next try",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				units, err := db.Units(cmd.Context())
				if err != nil {
					return err
				}
				names := map[int64]string{}
				var only int64
				for _, u := range units {
					names[u.ID] = u.Name
					if len(args) == 2 && u.Token == args[1] {
						only = u.ID
					}
				}
				if len(args) == 2 && only == 0 {
					return fmt.Errorf("no unit %q in %s", args[1], args[0])
				}
				held, err := db.HeldTransmissions(cmd.Context())
				if err != nil {
					return err
				}
				out := []pendingNote{}
				var b strings.Builder
				for _, h := range held {
					if only != 0 && h.UnitID != only {
						continue
					}
					p := pendingNote{Unit: names[h.UnitID], Order: h.OrderCode, Kind: h.Kind, Number: h.Number, Offline: h.Offline, Attempts: h.Attempts,
						LastError: h.LastError, Updated: h.Updated, NextTry: h.Updated.Add(jobs.TransmissionWait(h.Attempts, jobs.FiscalRetry))}
					out = append(out, p)
					how := "sent, answer unknown"
					if p.Offline {
						how = "issued offline"
					}
					fmt.Fprintf(&b, "%s: order %s, %s nº %d (%s), %d attempt(s), last try %s, next %s", p.Unit, p.Order, strings.ToUpper(p.Kind), p.Number, how,
						p.Attempts, p.Updated.Format(time.RFC3339), p.NextTry.Format(time.RFC3339))
					if p.LastError != "" {
						fmt.Fprintf(&b, ": %s", p.LastError)
					}
					b.WriteByte('\n')
				}
				if len(out) == 0 {
					b.WriteString("no note waits for an authority\n")
				}
				// The attempts given up for an offline note, which the
				// fiscal loop ends at SEFAZ (substituted or voided).
				open, err := db.OpenAbandonedNotes(cmd.Context())
				if err != nil {
					return err
				}
				abandoned := []abandonedNote{}
				for _, n := range open {
					if only != 0 && n.UnitID != only {
						continue
					}
					abandoned = append(abandoned, abandonedNote{Unit: names[n.UnitID], Order: n.OrderCode, Kind: n.Kind, Number: n.Number, Key: n.Key,
						Attempts: n.Attempts, LastError: n.LastError})
					fmt.Fprintf(&b, "%s: order %s, %s nº %d abandoned for an offline note, to be cancelled by substitution or voided at SEFAZ (%d attempt(s))",
						names[n.UnitID], n.OrderCode, strings.ToUpper(n.Kind), n.Number, n.Attempts)
					if n.LastError != "" {
						fmt.Fprintf(&b, ": %s", n.LastError)
					}
					b.WriteByte('\n')
				}
				return a.print(map[string]any{"domain": args[0], "pending": out, "abandoned": abandoned}, strings.TrimRight(b.String(), "\n"))
			})
		},
	}
}
