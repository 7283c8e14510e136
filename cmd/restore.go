package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newRestoreCmd(a *app) *cobra.Command {
	var from string
	c := &cobra.Command{
		Use:   "restore DOMAIN --from FILE",
		Short: "Replace a domain by a checked backup (the server must be stopped)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" {
				return fmt.Errorf("--from is required")
			}
			unlock, err := lockDataDir(a.dataDir)
			if err != nil {
				return fmt.Errorf("restore: %w (stop the server first)", err)
			}
			defer unlock()
			ds, err := a.domains()
			if err != nil {
				return err
			}
			defer ds.Close()
			if err := ds.Restore(cmd.Context(), args[0], from); err != nil {
				return fmt.Errorf("restore %s: %w", args[0], err)
			}
			return a.print(map[string]any{"domain": args[0], "from": from, "restored": true},
				fmt.Sprintf("domain %s restored from %s", args[0], from))
		},
	}
	c.Flags().StringVar(&from, "from", "", "backup file to restore")
	return c
}
