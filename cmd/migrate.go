package cmd

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"fincom/store"
)

func newMigrateCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Upgrade every domain file to this build's schema",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ds, err := a.domains()
			if err != nil {
				return err
			}
			defer ds.Close()
			versions, err := ds.MigrateAll(cmd.Context())
			if err != nil {
				return err
			}
			var lines []string
			for n, v := range versions {
				lines = append(lines, fmt.Sprintf("%s\tschema %d", n, v))
			}
			sort.Strings(lines)
			return a.print(map[string]any{"schema_version": store.SchemaVersion(), "domains": versions},
				fmt.Sprintf("schema version %d\n%s", store.SchemaVersion(), strings.Join(lines, "\n")))
		},
	}
}
