package cmd

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"fincom/server/certs"
	"fincom/server/inbox"
	"fincom/server/invoicing"
	"fincom/store"
)

func newNFeCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "nfe", Short: "The NF-e inbox of a unit (the documents issued to its CNPJ)"}
	var caFile string
	imp := &cobra.Command{
		Use:   "import DOMAIN UNIT_TOKEN FILE...",
		Short: "Import NF-e XML files into a unit's inbox (standing in for the tax authority's distribution)",
		Args:  cobra.MinimumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			roots, err := certs.SignerPool(caFile)
			if err != nil {
				return err
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				units, err := db.UnitsByTokens(cmd.Context(), []string{args[1]})
				if err != nil {
					return fmt.Errorf("unit %s: %w", args[1], err)
				}
				signers, err := (&invoicing.Service{SignerRoots: roots}).InboxSigners(cmd.Context(), db)
				if err != nil {
					return err
				}
				var imported []string
				var b strings.Builder
				for _, path := range args[2:] {
					data, err := readInput(path, maxInputFile)
					if err != nil {
						return err
					}
					n, err := inbox.ReadNFe(data, units[0].CNPJ, signers)
					if err != nil {
						return fmt.Errorf("%s: %w", path, err)
					}
					if _, err := db.ImportNFe(cmd.Context(), units[0].ID, n); err != nil {
						if errors.Is(err, store.ErrDuplicate) {
							fmt.Fprintf(&b, "%s: already in the inbox\n", path)
							continue
						}
						return fmt.Errorf("%s: %w", path, err)
					}
					imported = append(imported, n.AccessKey)
					fmt.Fprintf(&b, "%s: imported %s\n", path, n.AccessKey)
				}
				if imported == nil {
					imported = []string{}
				}
				return a.print(map[string]any{"domain": args[0], "imported": imported}, strings.TrimRight(b.String(), "\n"))
			})
		},
	}
	imp.Flags().StringVar(&caFile, "ca-file", os.Getenv("FINCOM_CA_FILE"), "PEM certificates a note's signer may chain to besides the ICP-Brasil roots (env FINCOM_CA_FILE)")
	c.AddCommand(imp)
	c.AddCommand(newNFeFetchCmd(a))
	return c
}

// newNFeFetchCmd is `fincom nfe fetch`: the unit's documents from the
// national environment's distribution (NFeDistribuicaoDFe), the notes into
// its inbox as `nfe import` takes them.
func newNFeFetchCmd(a *app) *cobra.Command {
	var o fiscalOptions
	c := &cobra.Command{
		Use:   "fetch DOMAIN UNIT_TOKEN",
		Short: "Fetch the unit's documents from the national environment (NFeDistribuicaoDFe) after the last NSU read: authorized notes enter the inbox",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withFiscalUnit(cmd, args[0], args[1], o, func(f fiscalUnit) error {
				roots, err := certs.SignerPool(o.caFile)
				if err != nil {
					return err
				}
				signers, err := (&invoicing.Service{SignerRoots: roots}).InboxSigners(cmd.Context(), f.db)
				if err != nil {
					return err
				}
				r, err := invoicing.FetchInbox(cmd.Context(), f.db, f.client, f.unit, f.cert, o.env, signers)
				if err != nil {
					return err
				}
				text := fmt.Sprintf("%d %s; NSU %d; %d notes into the inbox %v, %d summaries (the whole note needs the recipient's ciência), %d events",
					r.Code, r.Reason, r.NSU, len(r.Imported), r.Imported, r.Summaries, r.Events)
				return a.print(r, text)
			})
		},
	}
	o.flags(c)
	return c
}
