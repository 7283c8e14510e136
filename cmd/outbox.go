package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"fincom/store"
)

func newOutboxCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "outbox", Short: "Read a domain's e-mail outbox"}
	var limit int
	list := &cobra.Command{
		Use:   "list DOMAIN",
		Short: "List the latest e-mails and whether they were sent",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withDomain(cmd.Context(), args[0], func(db *store.DB) error {
				mails, err := db.Outbox(cmd.Context(), store.EveryUnit, limit)
				if err != nil {
					return err
				}
				var b strings.Builder
				for _, m := range mails {
					state := "not sent"
					switch m.Status {
					case "sent":
						state = "sent " + m.SentAt.String
					case "failed":
						state = "failed: " + m.LastError.String
					}
					fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", m.CreatedAt.String, m.Kind, m.To, m.Subject, state)
				}
				return a.print(map[string]any{"domain": args[0], "mails": mails}, strings.TrimRight(b.String(), "\n"))
			})
		},
	}
	list.Flags().IntVar(&limit, "limit", 50, "how many, newest first")
	c.AddCommand(list)
	return c
}
