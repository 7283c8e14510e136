package cmd

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"fincom/jobs"
	"fincom/server"
	"fincom/store"
)

func newJobsCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "jobs", Short: "Run and inspect scheduled jobs (monthly recurrence, ...)"}
	var at, publicURL string
	run := &cobra.Command{
		Use:   "run DOMAIN --at YYYY-MM-DD",
		Short: "Run the jobs of a day now, for that date (idempotent)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			day, err := store.ParseDateISO(at)
			if err != nil {
				return fmt.Errorf("--at %q: use YYYY-MM-DD", at)
			}
			ds, err := a.domains()
			if err != nil {
				return err
			}
			defer ds.Close()
			log := slog.New(slog.NewJSONHandler(a.errOut, nil))
			keys, err := a.keyring(false)
			if err != nil {
				return err
			}
			bill, _, err := server.NewServices(server.ServiceOptions{PublicURL: publicURL, Log: log, Keyring: keys})
			if err != nil {
				return err
			}
			r := &jobs.Runner{Domains: ds, Log: log, Billing: bill}
			var results []jobs.Result
			err = a.withOpen(ds, cmd, args[0], func(db *store.DB) error {
				results, err = r.RunDay(cmd.Context(), db, day)
				return err
			})
			if err != nil {
				return err
			}
			var b strings.Builder
			fmt.Fprintf(&b, "jobs of %s run for %s", day.ISO(), args[0])
			for _, res := range results {
				fmt.Fprintf(&b, "\n%s: created %d %v", res.Job, len(res.Created), res.Created)
			}
			return a.print(map[string]any{"domain": args[0], "date": day.ISO(), "jobs": results}, b.String())
		},
	}
	run.Flags().StringVar(&at, "at", "", "the day whose jobs to run (YYYY-MM-DD)")
	run.Flags().StringVar(&publicURL, "public-url", "http://127.0.0.1:8080", "where clients reach the server, for the links in reminders")
	c.AddCommand(run)
	c.AddCommand(&cobra.Command{
		Use:   "list DOMAIN",
		Short: "List a domain's latest job runs",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				runs, err := db.JobRuns(cmd.Context(), 50)
				if err != nil {
					return err
				}
				var b strings.Builder
				for _, r := range runs {
					fmt.Fprintf(&b, "%s\t%s\tcreated %d\t%s\n", r.RunDate, r.Job, r.Created, r.Detail)
				}
				return a.print(map[string]any{"domain": args[0], "runs": runs}, strings.TrimRight(b.String(), "\n"))
			})
		},
	})
	return c
}
