package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"fincom/server/portal"
	"fincom/server/settings"
	"fincom/store"
)

func newUserCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "user", Aliases: []string{"users"}, Short: "Manage a domain's users"}
	var name, email, role, unit string
	create := &cobra.Command{
		Use:   "create DOMAIN",
		Short: "Create a user with a role (owner of every unit unless --role and --unit say otherwise) and print its user_token",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, email = strings.TrimSpace(name), strings.TrimSpace(email)
			if name == "" || email == "" {
				return fmt.Errorf("--name and --email are required")
			}
			if err := settings.CheckPerson(name, email); err != nil {
				return flagError(err)
			}
			r, ok := store.ParseRole(role)
			if !ok {
				return fmt.Errorf("--role %q: one of %s", role, roleNames)
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				unitID, err := roleUnit(cmd, db, unit)
				if err != nil {
					return err
				}
				ctx := store.WithAudit(cmd.Context(), "cli", "cli:user create", "", unitID)
				u, err := db.CreateUserAs(ctx, name, email, r, unitID)
				if err != nil {
					if errors.Is(err, store.ErrDuplicate) {
						return fmt.Errorf("a user with e-mail %s already exists in %s", email, args[0])
					}
					return err
				}
				return a.print(map[string]string{"domain": args[0], "user_token": u.Token, "name": u.Name, "email": u.Email, "role": string(r), "unit_token": unit},
					fmt.Sprintf("user %s <%s> created, %s of %s\nuser_token: %s", u.Name, u.Email, r, unitText(unit), u.Token))
			})
		},
	}
	create.Flags().StringVar(&name, "name", "", "user's name (required)")
	create.Flags().StringVar(&email, "email", "", "user's e-mail (required, unique in the domain)")
	create.Flags().StringVar(&role, "role", "owner", "the user's role: "+roleNames)
	create.Flags().StringVar(&unit, "unit", "", "the unit_token the role is for (default: every unit)")
	c.AddCommand(create)
	var setRole, setUnit string
	set := &cobra.Command{
		Use:   "set DOMAIN EMAIL",
		Short: "Give a user a role on one unit (--unit) or on every unit (replacing its roles); --role none takes it away",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var r store.Role
			if setRole != "none" {
				var ok bool
				if r, ok = store.ParseRole(setRole); !ok {
					return fmt.Errorf("--role %q: one of %s, or none", setRole, roleNames)
				}
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				u, err := db.UserByEmail(cmd.Context(), strings.TrimSpace(args[1]))
				if errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("%s has no active user with e-mail %s", args[0], args[1])
				}
				if err != nil {
					return err
				}
				unitID, err := roleUnit(cmd, db, setUnit)
				if err != nil {
					return err
				}
				ctx := store.WithAudit(cmd.Context(), "cli", "cli:user set", u.Token, unitID)
				if _, err := settings.SetRole(ctx, db, u.Email, r, unitID); err != nil {
					if errors.Is(err, settings.ErrLastOwner) {
						return fmt.Errorf("%s is the last owner of every unit of %s: make another user owner first", args[1], args[0])
					}
					return err
				}
				grants, err := db.UserGrants(cmd.Context(), u.ID)
				if err != nil {
					return err
				}
				return a.print(map[string]any{"domain": args[0], "email": u.Email, "user_token": u.Token, "roles": grantsJSON(grants)},
					fmt.Sprintf("%s <%s>: %s", u.Name, u.Email, grantsText(grants)))
			})
		},
	}
	set.Flags().StringVar(&setRole, "role", "", "the role: "+roleNames+", or none (required)")
	set.Flags().StringVar(&setUnit, "unit", "", "the unit_token the role is for (default: every unit)")
	set.MarkFlagRequired("role")
	c.AddCommand(set)
	c.AddCommand(&cobra.Command{
		Use:   "list DOMAIN",
		Short: "List a domain's active users and their roles",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				users, err := db.Users(cmd.Context())
				if err != nil {
					return err
				}
				all, err := db.DomainGrants(cmd.Context())
				if err != nil {
					return err
				}
				var b strings.Builder
				list := []map[string]any{}
				for _, u := range users {
					grants := all[u.ID]
					list = append(list, map[string]any{"user_token": u.Token, "name": u.Name, "email": u.Email, "roles": grantsJSON(grants)})
					fmt.Fprintf(&b, "%s\t%s <%s>\t%s\n", u.Token, u.Name, u.Email, grantsText(grants))
				}
				return a.print(map[string]any{"domain": args[0], "users": list}, strings.TrimRight(b.String(), "\n"))
			})
		},
	})
	var publicURL string
	link := &cobra.Command{
		Use:   "login-link DOMAIN EMAIL",
		Short: "Print a portal sign-in link for a user (good once, for 15 minutes), for operators without e-mail",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				secret, err := db.RequestLoginLink(cmd.Context(), strings.TrimSpace(args[1]), nil)
				if errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("%s has no active user with e-mail %s and a role on a unit (fincom user set gives one)", args[0], args[1])
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

// roleNames lists the roles for the flags' help and refusals.
var roleNames = func() string {
	names := make([]string, len(store.Roles))
	for i, r := range store.Roles {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}()

// roleUnit resolves a --unit flag: 0 (every unit) when empty.
func roleUnit(cmd *cobra.Command, db *store.DB, unitToken string) (int64, error) {
	if unitToken == "" {
		return 0, nil
	}
	u, err := db.UnitByToken(cmd.Context(), unitToken)
	if errors.Is(err, store.ErrUnitNotFound) {
		return 0, fmt.Errorf("--unit %s: no such unit in %s", unitToken, db.Name)
	}
	return u.ID, err
}

func unitText(unitToken string) string {
	if unitToken == "" {
		return "every unit"
	}
	return "unit " + unitToken
}

// grantsJSON is a user's roles as the CLI's JSON answers them: the unit
// token, "" for every unit.
func grantsJSON(gs store.Grants) []map[string]string {
	out := []map[string]string{}
	for _, g := range gs {
		role := string(g.Role)
		if role == "" {
			role = "none"
		}
		out = append(out, map[string]string{"role": role, "unit_token": g.Unit.Token})
	}
	return out
}

func grantsText(gs store.Grants) string {
	if len(gs) == 0 {
		return "no role"
	}
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = string(g.Role) + " of " + unitText(g.Unit.Token)
		if g.Role == "" {
			parts[i] = "no access to " + unitText(g.Unit.Token)
		}
	}
	return strings.Join(parts, ", ")
}
