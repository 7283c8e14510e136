package cmd

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"fincom/store"
)

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print fincom's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sv, err := store.SQLiteVersion()
			if err != nil {
				return err
			}
			return a.print(map[string]any{"version": Version, "schema_version": store.SchemaVersion(), "sqlite": sv, "go": runtime.Version()},
				fmt.Sprintf("fincom %s (schema %d, sqlite %s, %s)", Version, store.SchemaVersion(), sv, runtime.Version()))
		},
	}
}
