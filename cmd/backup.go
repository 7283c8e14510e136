package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func newBackupCmd(a *app) *cobra.Command {
	var out, dir string
	var all, force bool
	var keep int
	c := &cobra.Command{
		Use:   "backup [DOMAIN --out FILE | --all --dir DIR [--keep N]]",
		Short: "Write consistent, checked copies of domains (safe while the server runs)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ds, err := a.domains()
			if err != nil {
				return err
			}
			defer ds.Close()
			if all {
				if dir == "" || len(args) > 0 {
					return fmt.Errorf("--all takes --dir and no domain")
				}
				files, err := ds.BackupAll(cmd.Context(), dir, keep)
				if err != nil {
					return err
				}
				if files == nil {
					files = []string{}
				}
				return a.print(map[string]any{"dir": dir, "files": files, "integrity": "ok"}, strings.Join(files, "\n"))
			}
			if len(args) != 1 || out == "" {
				return fmt.Errorf("give DOMAIN and --out FILE, or --all --dir DIR")
			}
			if err := ds.Backup(cmd.Context(), args[0], out, force); err != nil {
				return fmt.Errorf("backup %s: %w", args[0], err)
			}
			return a.print(map[string]any{"domain": args[0], "out": out, "integrity": "ok"},
				fmt.Sprintf("domain %s backed up to %s (integrity ok)", args[0], out))
		},
	}
	c.Flags().StringVar(&out, "out", "", "file to write, outside the data directory (or in its backups/ folder); written readable by its owner only")
	c.Flags().BoolVar(&force, "force", false, "replace --out when it exists (atomically)")
	c.Flags().BoolVar(&all, "all", false, "back up every domain")
	c.Flags().StringVar(&dir, "dir", "", "with --all: the directory of the backups (<domain>-<UTC time>.db)")
	c.Flags().IntVar(&keep, "keep", 0, "with --all: keep this many backups per domain (0: all)")
	return c
}
