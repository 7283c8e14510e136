package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"fincom/server/accounting"
	"fincom/server/invoicing"
	"fincom/store"
)

func newExportCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "export", Short: "What a unit hands to others: the accountant's monthly package"}
	var month, out string
	acc := &cobra.Command{
		Use:   "accountant DOMAIN UNIT_TOKEN --month YYYY-MM --out FILE",
		Short: "Write the accountant's package of a unit's month as a ZIP: invoices issued (XML, events, DANFE), NF-e received, entries, statement lines and the DRE as XLSX, and a manifest",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			first, err := store.ParseDateISO(month + "-01")
			if err != nil || len(month) != 7 {
				return fmt.Errorf("--month %q: use YYYY-MM", month)
			}
			if out == "" {
				return fmt.Errorf("--out: name the ZIP to write")
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				units, err := db.UnitsByTokens(cmd.Context(), []string{args[1]})
				if err != nil {
					return fmt.Errorf("unit %s: %w", args[1], err)
				}
				// The command line asks no authority: an NFS-e's DANFSe is
				// the one kept with it, else fincom's rendering.
				zip, m, err := accounting.Package(cmd.Context(), db, &invoicing.Service{}, units[0], first)
				if err != nil {
					return err
				}
				if err := os.WriteFile(out, zip, 0o600); err != nil {
					return err
				}
				return a.print(m, fmt.Sprintf("%s: %d files, %d bytes", out, len(m.Files), len(zip)))
			})
		},
	}
	acc.Flags().StringVar(&month, "month", "", "the month, YYYY-MM")
	acc.Flags().StringVar(&out, "out", "", "the ZIP file to write")
	c.AddCommand(acc)
	return c
}
