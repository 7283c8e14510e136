package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"fincom/store"
)

func newAuditCmd(a *app) *cobra.Command {
	var limit int
	c := &cobra.Command{
		Use:   "audit DOMAIN",
		Short: "Show who changed what and when in a domain",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				log, _, err := db.AuditLog(cmd.Context(), store.EveryUnit, "", store.Page{Number: 1, Size: limit})
				if err != nil {
					return err
				}
				var b strings.Builder
				for _, e := range log {
					fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", e.At.String, e.Actor, e.Route, e.Record.String)
				}
				return a.print(map[string]any{"domain": args[0], "entries": log}, strings.TrimRight(b.String(), "\n"))
			})
		},
	}
	c.Flags().IntVar(&limit, "limit", 100, "how many, newest first")
	return c
}
