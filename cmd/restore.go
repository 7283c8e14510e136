package cmd

import (
	"fmt"
	"time"

	"fincom/store"

	"github.com/spf13/cobra"
)

func newRestoreCmd(a *app) *cobra.Command {
	var from string
	c := &cobra.Command{
		Use:   "restore DOMAIN --from FILE",
		Short: "Replace a domain by a checked backup (online when a server runs: only that domain pauses)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" {
				return fmt.Errorf("--from is required")
			}
			unlock, err := lockDataDir(a.dataDir)
			if err != nil {
				// A server holds the data directory: it swaps the file in.
				if err := store.RequestRestore(cmd.Context(), a.dataDir, args[0], from, time.Minute); err != nil {
					return fmt.Errorf("restore %s: %w", args[0], err)
				}
				return a.print(map[string]any{"domain": args[0], "from": from, "restored": true, "online": true},
					fmt.Sprintf("domain %s restored from %s by the running server", args[0], from))
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
