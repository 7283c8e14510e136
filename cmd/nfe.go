package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"fincom/server/inbox"
	"fincom/store"
)

func newNFeCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "nfe", Short: "The NF-e inbox of a unit (the documents issued to its CNPJ)"}
	c.AddCommand(&cobra.Command{
		Use:   "import DOMAIN UNIT_TOKEN FILE...",
		Short: "Import NF-e XML files into a unit's inbox (standing in for the tax authority's distribution)",
		Args:  cobra.MinimumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				units, err := db.UnitsByTokens(cmd.Context(), []string{args[1]})
				if err != nil {
					return fmt.Errorf("unit %s: %w", args[1], err)
				}
				var imported []string
				var b strings.Builder
				for _, path := range args[2:] {
					data, err := readInput(path, maxInputFile)
					if err != nil {
						return err
					}
					n, err := inbox.ReadNFe(data, units[0].CNPJ, true)
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
	})
	return c
}
