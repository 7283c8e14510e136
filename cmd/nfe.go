package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"fincom/server/certs"
	"fincom/server/inbox"
	"fincom/server/invoicing"
	"fincom/store"
)

func newNFeCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "nfe", Short: "A unit's NF-e: the notes it issued (correction letters) and its inbox (the documents issued to its CNPJ)"}
	var caFile, endpointsFile string
	imp := &cobra.Command{
		Use:   "import DOMAIN UNIT_TOKEN FILE...",
		Short: "Import NF-e XML files into a unit's inbox (standing in for the tax authority's distribution)",
		Args:  cobra.MinimumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			roots, err := certs.SignerPool(caFile)
			if err != nil {
				return err
			}
			svc := &invoicing.Service{SignerRoots: roots}
			// With the secrets key, a unit's certificate opens and each note
			// is confirmed at its authority before it enters.
			if svc.Keyring, err = a.keyring(false); err != nil {
				return err
			}
			if svc.Keyring != nil {
				if svc.SEFAZ, err = fiscalClient(endpointsFile, caFile); err != nil {
					return err
				}
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				units, err := db.UnitsByTokens(cmd.Context(), []string{args[1]})
				if err != nil {
					return fmt.Errorf("unit %s: %w", args[1], err)
				}
				signers, err := svc.InboxSigners(cmd.Context(), db)
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
					if err := svc.ConfirmNote(cmd.Context(), db, units[0].ID, &n); err != nil {
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
					confirmed := "confirmed by its authority"
					if !n.Confirmed {
						confirmed = "not confirmed at its authority (the unit has no certificate, or no --secrets-key-file was given)"
					}
					fmt.Fprintf(&b, "%s: imported %s, %s\n", path, n.AccessKey, confirmed)
				}
				if imported == nil {
					imported = []string{}
				}
				return a.print(map[string]any{"domain": args[0], "imported": imported}, strings.TrimRight(b.String(), "\n"))
			})
		},
	}
	imp.Flags().StringVar(&endpointsFile, "fiscal-endpoints", "", "a JSON file of addresses overriding the shipped ones (where notes are confirmed)")
	imp.Flags().StringVar(&caFile, "ca-file", os.Getenv("FINCOM_CA_FILE"), "PEM certificates a note's signer may chain to besides the ICP-Brasil roots (env FINCOM_CA_FILE)")
	c.AddCommand(imp)
	c.AddCommand(newNFeFetchCmd(a))
	c.AddCommand(newNFeRefusedCmd(a))
	// The correction letter of an issued note, where the issue names it
	// (the same command as fincom fiscal correct).
	c.AddCommand(newFiscalCorrectCmd(a))
	return c
}

// newNFeFetchCmd is `fincom nfe fetch`: the unit's documents from the
// national environment's distribution (NFeDistribuicaoDFe), the notes into
// its inbox as `nfe import` takes them; with --nsu, the one document at
// that NSU asked again (one the inbox did not take).
func newNFeFetchCmd(a *app) *cobra.Command {
	var o fiscalOptions
	var deadline time.Duration
	var nsu int64
	c := &cobra.Command{
		Use:   "fetch DOMAIN UNIT_TOKEN",
		Short: "Fetch the unit's documents from the national environment (NFeDistribuicaoDFe) after the last NSU read: authorized notes enter the inbox",
		Long: "Fetch the unit's documents from the national environment (NFeDistribuicaoDFe) after the last NSU read. Authorized notes whose signer is\n" +
			"trusted (ICP-Brasil or --ca-file) enter the inbox; a document that is not taken is recorded with its NSU and why (fincom nfe refused)\n" +
			"and can be asked again with --nsu once its cause is mended.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if deadline <= 0 {
				return fmt.Errorf("--deadline must be positive")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), deadline)
			defer cancel()
			cmd.SetContext(ctx)
			return a.withFiscalUnit(cmd, args[0], args[1], o, func(f fiscalUnit) error {
				roots, err := certs.SignerPool(o.caFile)
				if err != nil {
					return err
				}
				signers, err := (&invoicing.Service{SignerRoots: roots}).InboxSigners(ctx, f.db)
				if err != nil {
					return err
				}
				var r invoicing.InboxFetch
				if nsu > 0 {
					r, err = invoicing.FetchAgain(ctx, f.db, f.client, f.unit, f.cert, f.env, signers, nsu)
				} else {
					r, err = invoicing.FetchInbox(ctx, f.db, f.client, f.unit, f.cert, f.env, signers)
				}
				// Whatever failed once the deadline passed failed by it (an
				// answer cut while read is no answer).
				if err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded)) {
					err = fmt.Errorf("stopped at the deadline (%s), NSU %d: what was read up to it is kept: %w", deadline, r.NSU, err)
				}
				if err != nil {
					return err
				}
				text := fmt.Sprintf("%d %s; NSU %d; %d notes into the inbox %v, %d summaries (the whole note needs the recipient's ciência), %d events, %d not taken",
					r.Code, r.Reason, r.NSU, len(r.Imported), r.Imported, r.Summaries, r.Events, len(r.Refused))
				for _, d := range r.Refused {
					text += fmt.Sprintf("\nNSU %d (%s) not taken: %s", d.NSU, d.Schema, d.Reason)
				}
				return a.print(r, text)
			})
		},
	}
	o.flags(c)
	c.Flags().DurationVar(&deadline, "deadline", 5*time.Minute, "stop asking past this long; what was read up to it is kept")
	c.Flags().Int64Var(&nsu, "nsu", 0, "ask again for the one document at this NSU (consNSU), one the inbox did not take")
	return c
}

// newNFeRefusedCmd is `fincom nfe refused`: the distributed documents the
// unit's inbox did not take, with why.
func newNFeRefusedCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "refused DOMAIN UNIT_TOKEN",
		Short: "List the documents of the national environment's distribution the unit's inbox did not take, with why (fetch again with nfe fetch --nsu)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				u, err := db.UnitByToken(cmd.Context(), args[1])
				if err != nil {
					return fmt.Errorf("no unit %q in %s", args[1], args[0])
				}
				list, err := db.RefusedDocuments(cmd.Context(), u.ID)
				if err != nil {
					return err
				}
				var b strings.Builder
				for _, d := range list {
					fmt.Fprintf(&b, "NSU %d (%s, %s): %s\n", d.NSU, d.Schema, d.RefusedAt, d.Reason)
				}
				if len(list) == 0 {
					b.WriteString("no document refused\n")
				}
				return a.print(map[string]any{"domain": args[0], "refused": list}, strings.TrimRight(b.String(), "\n"))
			})
		},
	}
}
