package cmd

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"fincom/server"
	"fincom/server/bank"
	"fincom/server/billing"
	"fincom/server/settings"
	"fincom/server/statement"
	"fincom/store"
)

// newUnitAgreementCmd sets a unit's collection agreement with a bank.
func newUnitAgreementCmd(a *app) *cobra.Command {
	var provider, agency, account, wallet, code, bankAccount, bankCode, fine, interest, variation string
	var next int64
	c := &cobra.Command{
		Use:   "agreement DOMAIN UNIT_TOKEN --provider provider_a|provider_b|provider_c --agency AGENCY --account ACCOUNT-DIGIT --wallet WALLET",
		Short: "Set the unit's collection agreement with a bank (provider_a Itaú, provider_b Bradesco, provider_c Santander)",
		Long: "Set the agreement (convênio de cobrança) a unit's boletos are registered and paid under, each field checked as the bank\n" +
			"defines it: Itaú agency 4 digits, account 5 digits with its DAC, wallet 109/110/111/112/115/121/180/188; Bradesco agency\n" +
			"with its digit, account with its digit (module 11), wallet 02/04/06/09/19/21/26, --agreement (código do convênio);\n" +
			"Santander agency, account with its digit, wallet 101/102/104/201, --agreement (código do beneficiário, 7 digits).\n" +
			"Any of them, or Banco do Brasil (--bank 001) or Caixa (--bank 104), stands behind any slot: Banco do Brasil agency and\n" +
			"account each with its digit (module 11, X for 10), wallet 11/12/17, --variation (3 digits), --agreement (the convênio,\n" +
			"4, 6 or 7 digits: the our-number is composed of it); Caixa agency, account (operation and number) with its digit,\n" +
			"wallet RG, --agreement (código do beneficiário, 6 digits, SIGCB).\n" +
			"--next-our-number moves the our-number sequence forward (never back over numbers issued). Payments are credited to\n" +
			"--bank-account (a bank account token of the unit), else to the unit's account at that bank, agency and account (opened\n" +
			"when it has none).",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			nextText := ""
			if next != 0 {
				nextText = strconv.FormatInt(next, 10)
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				u, err := db.UnitByToken(cmd.Context(), args[1])
				if err != nil {
					return fmt.Errorf("no unit %q in %s", args[1], args[0])
				}
				ag, err := settings.SetAgreement(cmd.Context(), db, u, settings.AgreementInput{Provider: provider, Agency: agency, Account: account,
					Wallet: wallet, Code: code, NextOurNumber: nextText, BankAccount: bankAccount, Bank: bankCode, FinePercent: fine, InterestPercent: interest,
					Variation: variation})
				if err != nil {
					return flagError(err)
				}
				b, _ := bank.Of(ag.Bank, provider)
				return a.print(map[string]string{"domain": args[0], "unit_token": args[1], "provider": provider, "bank": b.Code},
					fmt.Sprintf("agreement with %s (%s) set: agency %s, account %s-%s, wallet %s", b.Name, b.Code, ag.Agency, ag.Account, ag.AccountDV, ag.Wallet))
			})
		},
	}
	c.Flags().StringVar(&provider, "provider", "", "provider_a (Itaú 341), provider_b (Bradesco 237) or provider_c (Santander 033)")
	c.Flags().StringVar(&fine, "fine-percent", "", "the fine its boletos state once past the due date, in percent (default 2; 0 to 10)")
	c.Flags().StringVar(&interest, "interest-percent", "", "the interest its boletos state, in percent a month (default 1; 0 to 10)")
	c.Flags().StringVar(&bankCode, "bank", "", "the COMPE code of the bank behind the slot (001, 033, 104, 237 or 341; default: the slot's own, or the one it has)")
	c.Flags().StringVar(&variation, "variation", "", "Banco do Brasil's wallet variation (variação da carteira, 3 digits)")
	c.Flags().StringVar(&agency, "agency", "", "agency, with its digit where the bank has one (1234-3)")
	c.Flags().StringVar(&account, "account", "", "account with its digit (12345-6)")
	c.Flags().StringVar(&wallet, "wallet", "", "the agreement's wallet (carteira)")
	c.Flags().StringVar(&code, "agreement", "", "the bank's code of the agreement (Bradesco, Banco do Brasil: código do convênio; Santander, Caixa: código do beneficiário)")
	c.Flags().Int64Var(&next, "next-our-number", 0, "the next our-number to issue (moves the sequence forward)")
	c.Flags().StringVar(&bankAccount, "bank-account", "", "token of the unit's bank account payments are credited to")
	return c
}

// newCNABCmd writes remittances and applies return files.
func newCNABCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "cnab", Short: "CNAB 240 files of a unit's bank agreements: remittance out, return in"}
	var provider, out string
	var seq int
	rem := &cobra.Command{
		Use:   "remittance DOMAIN UNIT_TOKEN --provider P --out FILE",
		Short: "Write the unit's next remittance for a bank (boletos issued and cancelled since the last one), or --sequence N again",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			bill, _, err := server.NewServices(server.ServiceOptions{})
			if err != nil {
				return err
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				u, err := db.UnitByToken(cmd.Context(), args[1])
				if err != nil {
					return fmt.Errorf("no unit %q in %s", args[1], args[0])
				}
				var rm store.Remittance
				if seq > 0 {
					rm, err = db.RemittanceFile(cmd.Context(), u.ID, provider, seq)
				} else {
					rm, err = bill.ExportRemittance(cmd.Context(), db, u, provider)
				}
				switch {
				case errors.Is(err, store.ErrNothingToRemit):
					return fmt.Errorf("nothing to remit: no boleto was issued or cancelled since the last remittance")
				case errors.Is(err, store.ErrNoAgreement):
					return fmt.Errorf("the unit has no agreement for %s: fincom unit agreement %s %s --provider %s with its agency, account and wallet", provider, args[0], args[1], provider)
				case errors.Is(err, store.ErrNotFound):
					return fmt.Errorf("no remittance %d for %s", seq, provider)
				case err != nil:
					return err
				}
				if err := os.WriteFile(out, rm.Content, 0o600); err != nil {
					return err
				}
				return a.print(map[string]any{"domain": args[0], "unit_token": args[1], "provider": provider, "sequence": rm.Sequence,
					"titles": rm.Titles, "file": out}, fmt.Sprintf("remittance %d (%d titles) written to %s", rm.Sequence, rm.Titles, out))
			})
		},
	}
	rem.Flags().StringVar(&provider, "provider", "", "provider_a, provider_b or provider_c")
	rem.Flags().StringVar(&out, "out", "", "the file to write")
	rem.Flags().IntVar(&seq, "sequence", 0, "write remittance N again instead of a new one")
	ret := &cobra.Command{
		Use:   "return DOMAIN UNIT_TOKEN FILE",
		Short: "Apply a bank's CNAB 240 return file: registrations, rejections, payments and write-offs, in one transaction",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := readInput(args[2], maxInputFile)
			if err != nil {
				return err
			}
			b, ok := bank.ByCode(string(data[:min(3, len(data))]))
			if !ok {
				return fmt.Errorf("%s: not a return file of a bank fincom collects through (%s)", args[2], strings.Join(bank.Codes(), ", "))
			}
			keys, err := a.keyring(false)
			if err != nil {
				return err
			}
			bill, _, err := server.NewServices(server.ServiceOptions{Keyring: keys})
			if err != nil {
				return err
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				u, err := db.UnitByToken(cmd.Context(), args[1])
				if err != nil {
					return fmt.Errorf("no unit %q in %s", args[1], args[0])
				}
				rep, err := bill.ImportReturn(cmd.Context(), db, u, "", args[2], data)
				var pe *bank.ParseError
				var fe *billing.ForeignReturnError
				if errors.As(err, &pe) || errors.As(err, &fe) {
					return fmt.Errorf("%s: %v; nothing was applied", args[2], err)
				}
				if err != nil {
					return err
				}
				var lines []string
				for _, l := range rep.Lines {
					lines = append(lines, fmt.Sprintf("line %d: our-number %d, movement %s: %s %s", l.Line, l.OurNumber, l.Movement, l.Outcome, l.Detail))
				}
				head := fmt.Sprintf("return of %s applied: %d lines", b.Name, len(rep.Lines))
				if rep.Duplicate {
					head = "this file was imported before: nothing changed"
				}
				return a.print(rep, strings.Join(append([]string{head}, lines...), "\n"))
			})
		},
	}
	c.AddCommand(rem, ret)
	return c
}

// newOFXCmd imports a bank account's OFX statement.
func newOFXCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "ofx", Short: "Bank statements (OFX) of a unit's accounts"}
	var account string
	imp := &cobra.Command{
		Use:   "import DOMAIN UNIT_TOKEN --bank-account TOKEN FILE",
		Short: "Import an OFX statement: each line once, matched to the charge or entry it settles, the rest left open",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			if account == "" {
				return fmt.Errorf("--bank-account is required (a bank account token of the unit)")
			}
			data, err := readInput(args[2], maxInputFile)
			if err != nil {
				return err
			}
			keys, err := a.keyring(false)
			if err != nil {
				return err
			}
			bill, _, err := server.NewServices(server.ServiceOptions{Keyring: keys})
			if err != nil {
				return err
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				u, err := db.UnitByToken(cmd.Context(), args[1])
				if err != nil {
					return fmt.Errorf("no unit %q in %s", args[1], args[0])
				}
				rep, err := bill.ImportStatement(cmd.Context(), db, u.ID, account, data)
				switch {
				case errors.Is(err, statement.ErrNotOFX), errors.Is(err, statement.ErrCurrency), errors.As(err, new(*statement.OtherAccountError)):
					return fmt.Errorf("%s: %v; nothing was imported", args[2], err)
				case errors.Is(err, store.ErrInvalidReference):
					return fmt.Errorf("--bank-account %s: not an active bank account of the unit", account)
				case err != nil:
					return err
				}
				return a.print(rep, fmt.Sprintf("%d lines imported (%d seen before): %d matched, %d open (fincom lists them: /list_statement_lines)",
					rep.Imported, rep.Repeated, rep.Matched, rep.Open))
			})
		},
	}
	imp.Flags().StringVar(&account, "bank-account", "", "token of the unit's bank account the statement is of")
	c.AddCommand(imp)
	return c
}
