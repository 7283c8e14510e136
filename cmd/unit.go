package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"fincom/server/brdoc"
	"fincom/store"
)

func newUnitCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "unit", Aliases: []string{"units"}, Short: "Create and list a domain's units"}
	var in store.UnitInput
	create := &cobra.Command{
		Use:   "create DOMAIN",
		Short: "Create a unit and print its unit token",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Name = strings.TrimSpace(in.Name)
			if in.Name == "" {
				return fmt.Errorf("--name is required")
			}
			if in.CNPJ != "" {
				in.CNPJ = brdoc.Clean(in.CNPJ)
				if !brdoc.ValidCNPJ(in.CNPJ) {
					return fmt.Errorf("--cnpj %s: invalid CNPJ check digits", in.CNPJ)
				}
			}
			if in.CityIBGE != "" {
				if _, ok := brdoc.LookupIBGE(in.CityIBGE); !ok {
					return fmt.Errorf("--city-ibge %s: not an IBGE municipality code", in.CityIBGE)
				}
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				u, err := db.CreateUnit(cmd.Context(), in)
				if err != nil {
					return err
				}
				return a.print(map[string]string{"domain": args[0], "name": u.Name, "unit_token": u.Token},
					fmt.Sprintf("unit %q created in %s\nunit_token: %s", u.Name, args[0], u.Token))
			})
		},
	}
	create.Flags().StringVar(&in.Name, "name", "", "unit name (required)")
	create.Flags().StringVar(&in.CNPJ, "cnpj", "", "unit CNPJ, with or without mask")
	create.Flags().StringVar(&in.CityIBGE, "city-ibge", "", "IBGE code of the unit's municipality, e.g. 3550308")
	create.Flags().StringVar(&in.IM, "im", "", "municipal registration (inscrição municipal)")
	c.AddCommand(create)
	var allowNegative bool
	set := &cobra.Command{
		Use:   "set DOMAIN UNIT_TOKEN --allow-negative-stock=true|false",
		Short: "Change a unit's settings",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("allow-negative-stock") {
				return fmt.Errorf("nothing to set: use --allow-negative-stock")
			}
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				if err := db.SetAllowNegativeStock(cmd.Context(), args[1], allowNegative); err != nil {
					if errors.Is(err, store.ErrNotFound) {
						return fmt.Errorf("no unit %q in %s", args[1], args[0])
					}
					return err
				}
				return a.print(map[string]any{"domain": args[0], "unit_token": args[1], "allow_negative_stock": allowNegative},
					fmt.Sprintf("allow_negative_stock = %v", allowNegative))
			})
		},
	}
	set.Flags().BoolVar(&allowNegative, "allow-negative-stock", false, "let inventory exits take a product's stock below zero")
	c.AddCommand(set)
	c.AddCommand(&cobra.Command{
		Use:   "list DOMAIN",
		Short: "List a domain's units with their unit tokens",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				units, err := db.Units(cmd.Context())
				if err != nil {
					return err
				}
				if units == nil {
					units = []store.Unit{}
				}
				var b strings.Builder
				for _, u := range units {
					fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", u.Token, u.Name, u.CNPJ, u.CityIBGE)
				}
				return a.print(map[string]any{"domain": args[0], "units": units}, strings.TrimRight(b.String(), "\n"))
			})
		},
	})
	return c
}
