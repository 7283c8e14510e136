package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"fincom/server/fiscal/reform"
	"fincom/store"
	"fincom/store/replica"
)

func newDoctorCmd(a *app) *cobra.Command {
	var replicaURL, caFile, ibscbs, keyFile string
	c := &cobra.Command{
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
			// The tax reform's rates: a month before they end, the
			// operator is told to give the next period's.
			reforms, err := loadReform(ibscbs)
			if err != nil {
				return err
			}
			if w := reforms.Warning(a.today()); w != "" {
				findings = append(findings, store.Finding{File: "ibscbs table", Level: "warning", Message: w})
			}
			if replicaURL != "" {
				more, err := replicaFindings(cmd.Context(), a.dataDir, replicaURL, keyFile, caFile, findings)
				if err != nil {
					return err
				}
				findings = append(findings, more...)
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
	c.Flags().StringVar(&replicaURL, "replicate", os.Getenv("FINCOM_REPLICATE"), "also compare each file with its replica at this s3:// URL (serve --replicate): the transaction each holds, and how long the replica is behind")
	c.Flags().StringVar(&caFile, "ca-file", os.Getenv("FINCOM_CA_FILE"), "PEM certificates the bucket's TLS is trusted by besides the system's and AWS_CA_BUNDLE's")
	c.Flags().StringVar(&keyFile, "replicate-key-file", os.Getenv("FINCOM_REPLICATE_KEY_FILE"), "with --replicate: the key the replicas are sealed with (their marks are sealed too)")
	c.Flags().StringVar(&ibscbs, "ibscbs-table", os.Getenv("FINCOM_IBSCBS_TABLE"), "the JSON file of IBS and CBS rates and classes serve is given (serve --ibscbs-table)")
	return c
}

// loadReform is the tax reform's table: the shipped one, with the file
// of --ibscbs-table added when one is given.
func loadReform(file string) (*reform.Table, error) {
	t, err := reform.Load()
	if err != nil || file == "" {
		return t, err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--ibscbs-table: %w", err)
	}
	if err := t.Override(b); err != nil {
		return nil, fmt.Errorf("--ibscbs-table: %w", err)
	}
	return t, nil
}

// replicaFindings compares each domain file and _system.db with its
// replica: the newest transaction Litestream took from the file (its
// local state) and the newest the bucket holds; a replica behind for
// more than a minute is a warning, a file with no replica an error. The
// replica's mark is held to what its objects reach (objects missing) and
// to the data directory's record of the marks it wrote (a prefix rolled
// back): either is an error.
func replicaFindings(ctx context.Context, dir, rawURL, keyFile, caFile string, files []store.Finding) ([]store.Finding, error) {
	conn, err := replicaConnection(ctx, rawURL, keyFile, caFile)
	if err != nil {
		return nil, err
	}
	marks := replica.OpenMarks(dir)
	names := []string{"_system.db"}
	for _, f := range files {
		if f.Domain != "" {
			names = append(names, f.File)
		}
	}
	var out []store.Finding
	for _, name := range names {
		local, err := replica.LocalPosition(dir, name)
		if err != nil {
			return nil, err
		}
		remote, err := conn.ReplicaPosition(ctx, name)
		if err != nil {
			return nil, err
		}
		f := store.Finding{File: name, Level: "ok", Message: fmt.Sprintf("replica at transaction %s", remote.TXID)}
		record, recorded, err := marks.Get(name)
		if err != nil {
			return nil, err
		}
		mark, _, markErr := conn.Client(name).CheckMark(ctx)
		switch {
		case remote.TXID == 0:
			f.Level, f.Message = "error", "no replica in the bucket"
		case errors.Is(markErr, replica.ErrSealed):
			f.Level, f.Message = "warning", "the replica's mark is sealed: give --replicate-key-file to compare it"
		case markErr != nil:
			f.Level, f.Message = "error", markErr.Error()
		case recorded && mark.TXID < record.TXID:
			f.Level, f.Message = "error", fmt.Sprintf("replica rolled back: its mark is transaction %s, this machine wrote %s (at %s)",
				mark.TXID, record.TXID, record.At.UTC().Format(time.RFC3339))
		case local.TXID > remote.TXID:
			lag := time.Since(local.At).Round(time.Second)
			f.Message = fmt.Sprintf("replica behind: transaction %s here, %s in the bucket, for %s", local.TXID, remote.TXID, lag)
			if lag > time.Minute {
				f.Level = "warning"
			}
		}
		out = append(out, f)
	}
	return out, nil
}
