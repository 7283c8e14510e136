package cmd

import (
	"errors"
	"fmt"
	"net/mail"
	"strings"

	"github.com/spf13/cobra"

	"fincom/server/portal"
	"fincom/store"
)

func newUserCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "user", Aliases: []string{"users"}, Short: "Manage a domain's users"}
	var name, email string
	create := &cobra.Command{
		Use:   "create DOMAIN",
		Short: "Create a user and print its user_token",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, email = strings.TrimSpace(name), strings.TrimSpace(email)
			if name == "" || email == "" {
				return fmt.Errorf("--name and --email are required")
			}
			if _, err := mail.ParseAddress(email); err != nil {
				return fmt.Errorf("--email %q: %w", email, err)
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				u, err := db.CreateUser(cmd.Context(), name, email)
				if err != nil {
					if errors.Is(err, store.ErrDuplicate) {
						return fmt.Errorf("a user with e-mail %s already exists in %s", email, args[0])
					}
					return err
				}
				return a.print(map[string]string{"domain": args[0], "user_token": u.Token, "name": u.Name, "email": u.Email},
					fmt.Sprintf("user %s <%s> created\nuser_token: %s", u.Name, u.Email, u.Token))
			})
		},
	}
	create.Flags().StringVar(&name, "name", "", "user's name (required)")
	create.Flags().StringVar(&email, "email", "", "user's e-mail (required, unique in the domain)")
	c.AddCommand(create)
	var publicURL string
	link := &cobra.Command{
		Use:   "login-link DOMAIN EMAIL",
		Short: "Print a portal sign-in link for a user (good once, for 15 minutes), for operators without e-mail",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				secret, err := db.RequestLoginLink(cmd.Context(), strings.TrimSpace(args[1]), nil)
				if errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("%s has no active user with e-mail %s (and a unit: the portal shows units)", args[0], args[1])
				}
				if errors.Is(err, store.ErrTooManyLinks) {
					return fmt.Errorf("%s already has 3 unused sign-in links: use one or wait 15 minutes", args[1])
				}
				if err != nil {
					return err
				}
				u := portal.LoginURL(publicURL, secret)
				return a.print(map[string]string{"domain": args[0], "email": args[1], "link": u}, u)
			})
		},
	}
	link.Flags().StringVar(&publicURL, "public-url", "http://127.0.0.1:8080", "where people reach the server (serve's --public-url)")
	c.AddCommand(link)
	return c
}
