package cmd

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"fincom/server/fiscal/sefaz"
)

// newFiscalCmd is `fincom fiscal`: the tax authorities' services.
func newFiscalCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "fiscal", Short: "The tax authorities' web services fincom knows"}
	var model, state, env, file string
	endpoints := &cobra.Command{
		Use:   "endpoints --model 55|65 --state UF",
		Short: "Show the authorizer and the service addresses of a state's NF-e or NFC-e, as shipped or as --fiscal-endpoints overrides them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := sefaz.Load()
			if err != nil {
				return err
			}
			var warnings []string
			if file != "" {
				b, err := os.ReadFile(file)
				if err != nil {
					return fmt.Errorf("--fiscal-endpoints: %w", err)
				}
				if warnings, err = e.Override(b); err != nil {
					return err
				}
			}
			if env != sefaz.Homologacao && env != sefaz.Producao {
				return fmt.Errorf("--environment %q: %w", env, sefaz.ErrBadEnvironment)
			}
			state = strings.ToUpper(state)
			auth, err := e.Authorizer(model, state)
			if err != nil {
				return err
			}
			services := e.NFe[model][auth][env]
			names := make([]string, 0, len(services))
			for n := range services {
				names = append(names, n)
			}
			sort.Strings(names)
			var b strings.Builder
			for _, w := range warnings {
				fmt.Fprintf(&b, "warning: %s\n", w)
			}
			fmt.Fprintf(&b, "model %s, %s: authorizer %s, %s", model, state, auth, env)
			for _, n := range names {
				u, err := e.Lookup(model, auth, env, n)
				if err != nil {
					return err
				}
				fmt.Fprintf(&b, "\n%-24s %s", n, u)
			}
			return a.print(map[string]any{"model": model, "state": state, "authorizer": auth, "environment": env, "services": services,
				"nfse": e.NFSe[env], "warnings": append([]string{}, warnings...)}, b.String())
		},
	}
	endpoints.Flags().StringVar(&model, "model", "55", "55 (NF-e) or 65 (NFC-e)")
	endpoints.Flags().StringVar(&state, "state", "", "the issuing unit's state (UF)")
	endpoints.Flags().StringVar(&env, "environment", sefaz.Homologacao, "homologacao or producao")
	endpoints.Flags().StringVar(&file, "fiscal-endpoints", "", "a JSON file of addresses overriding the shipped ones")
	endpoints.MarkFlagRequired("state")
	c.AddCommand(endpoints)
	return c
}
