package cmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"fincom/store"
)

func newDomainCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "domain", Aliases: []string{"domains"}, Short: "Create and list domains (tenants)"}
	c.AddCommand(&cobra.Command{
		Use:   "create NAME",
		Short: "Create a domain file and its first access token",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(a.dataDir, 0o700); err != nil {
				return err
			}
			ds, err := a.domains()
			if err != nil {
				return err
			}
			defer ds.Close()
			name := args[0]
			if err := ds.Create(cmd.Context(), name); err != nil {
				return err
			}
			var token string
			err = a.withOpen(ds, cmd, name, func(db *store.DB) error {
				token, err = db.CreateAccessToken(cmd.Context())
				return err
			})
			if err != nil {
				return err
			}
			return a.print(map[string]string{"domain": name, "access_token": token},
				fmt.Sprintf("domain %s created\naccess_token: %s\n(shown once: keep it)", name, token))
		},
	})
	c.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the domains of the data directory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ds, err := a.domains()
			if err != nil {
				return err
			}
			defer ds.Close()
			names, err := ds.Names()
			if err != nil {
				return err
			}
			if names == nil {
				names = []string{}
			}
			return a.print(map[string][]string{"domains": names}, strings.Join(names, "\n"))
		},
	})
	return c
}

// withOpen runs fn on a domain of an already open data directory.
func (a *app) withOpen(ds *store.Domains, cmd *cobra.Command, name string, fn func(db *store.DB) error) error {
	db, release, err := ds.Acquire(cmd.Context(), name)
	if err != nil {
		return err
	}
	defer release()
	return fn(db)
}
