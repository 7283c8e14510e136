package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func newDoctorCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check every file of the data directory: integrity, schema version, WAL size, orphan files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ds, err := a.domains()
			if err != nil {
				return err
			}
			defer ds.Close()
			findings, err := ds.Doctor(cmd.Context())
			if err != nil {
				return err
			}
			worst := "ok"
			var b strings.Builder
			for _, f := range findings {
				fmt.Fprintf(&b, "%-8s %s: %s\n", f.Level, f.File, f.Message)
				if f.Level == "error" || (f.Level == "warning" && worst == "ok") {
					worst = f.Level
				}
			}
			if err := a.print(map[string]any{"status": worst, "findings": findings}, strings.TrimRight(b.String(), "\n")); err != nil {
				return err
			}
			if worst == "error" {
				return fmt.Errorf("doctor found errors")
			}
			return nil
		},
	}
}
