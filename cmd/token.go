package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"fincom/store"
)

func newTokenCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "token", Aliases: []string{"tokens"}, Short: "Manage access tokens and technical tokens"}
	c.AddCommand(&cobra.Command{
		Use:   "create DOMAIN",
		Short: "Create an access token for a domain (shown once)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				t, err := db.CreateAccessToken(cmd.Context())
				if err != nil {
					return err
				}
				return a.print(map[string]string{"domain": args[0], "access_token": t}, "access_token: "+t+"\n(shown once: keep it)")
			})
		},
	})
	c.AddCommand(&cobra.Command{
		Use:   "list DOMAIN",
		Short: "List a domain's access tokens (hints only; the files keep hashes)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				ts, err := db.AccessTokens(cmd.Context(), 0)
				if err != nil {
					return err
				}
				if ts == nil {
					ts = []store.AccessToken{}
				}
				var b strings.Builder
				for _, t := range ts {
					state := "active"
					if t.RevokedAt != nil {
						state = "revoked " + t.RevokedAt.Format("2006-01-02 15:04")
					}
					fmt.Fprintf(&b, "%d\t%s\t%s\t%s\n", t.ID, t.Hint, t.CreatedAt.Format("2006-01-02 15:04"), state)
				}
				return a.print(map[string]any{"domain": args[0], "tokens": ts}, strings.TrimRight(b.String(), "\n"))
			})
		},
	})
	c.AddCommand(&cobra.Command{
		Use:   "revoke DOMAIN TOKEN",
		Short: "Revoke an access token, given in clear or by the id of 'token list'",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				if err := db.RevokeAccessToken(cmd.Context(), args[1]); err != nil {
					if errors.Is(err, store.ErrNotFound) {
						return fmt.Errorf("no active access token %q in domain %s", args[1], args[0])
					}
					return err
				}
				return a.print(map[string]any{"domain": args[0], "revoked": true}, "token revoked")
			})
		},
	})
	c.AddCommand(&cobra.Command{
		Use:   "tec",
		Short: "Create a technical token (token_tec) for internal applications",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ds, err := a.domains()
			if err != nil {
				return err
			}
			defer ds.Close()
			sys, err := store.OpenSystem(a.dataDir, store.DurabilityFull, nil)
			if err != nil {
				return err
			}
			defer sys.Close()
			t, err := sys.CreateTecToken(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(map[string]string{"token_tec": t}, "token_tec: "+t+"\n(shown once: keep it)")
		},
	})
	return c
}
