package cmd

import (
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"fincom/server/certs"
	"fincom/store"
	"fincom/store/replica"
)

func newRestoreCmd(a *app) *cobra.Command {
	var from, replicaURL, keyFile, caFile, at string
	c := &cobra.Command{
		Use:   "restore DOMAIN --from FILE | --from-replica URL",
		Short: "Replace a domain by a checked backup or its replica (online when a server runs: only that domain pauses)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (from == "") == (replicaURL == "") {
				return fmt.Errorf("give --from FILE or --from-replica URL")
			}
			var conn *replica.Connection
			if replicaURL != "" {
				file, c, err := a.fromReplica(cmd.Context(), args[0], replicaURL, keyFile, caFile, at)
				if err != nil {
					return err
				}
				conn = c
				defer os.RemoveAll(filepath.Dir(file))
				from = file
			} else if at != "" {
				return fmt.Errorf("--timestamp goes with --from-replica")
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
			if conn != nil {
				// A new machine: it takes the prefix's installation id, and
				// the bucket's _system.db when it has none.
				if err := conn.Claim(cmd.Context(), a.dataDir, true); err != nil {
					return err
				}
				if sys := filepath.Join(a.dataDir, "_system.db"); !fileExistsAt(sys) {
					files, err := conn.Files(cmd.Context())
					if err != nil {
						return err
					}
					if slices.Contains(files, "_system.db") {
						if err := replica.Restore(cmd.Context(), conn, "_system.db", sys, time.Time{}); err != nil {
							return fmt.Errorf("_system.db: %w", err)
						}
					}
				}
			}
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
	c.Flags().StringVar(&replicaURL, "from-replica", "", "restore the domain's replica at s3://BUCKET/PREFIX?endpoint=…&region=…&force-path-style=true (serve --replicate)")
	c.Flags().StringVar(&keyFile, "replicate-key-file", os.Getenv("FINCOM_REPLICATE_KEY_FILE"), "the key the replica was sealed with (env FINCOM_REPLICATE_KEY_FILE)")
	c.Flags().StringVar(&caFile, "ca-file", os.Getenv("FINCOM_CA_FILE"), "PEM certificates the bucket's TLS is trusted by besides the system's and AWS_CA_BUNDLE's (env FINCOM_CA_FILE)")
	c.Flags().StringVar(&at, "timestamp", "", "with --from-replica: the domain as it stood at this time (RFC 3339); default its latest")
	return c
}

// fromReplica writes the domain's replica (as it stood at at, RFC 3339;
// "" its latest) to a file in a directory of its own in the data
// directory, for the restore to check and swap in like a backup.
func (a *app) fromReplica(ctx context.Context, domain, rawURL, keyFile, caFile, at string) (string, *replica.Connection, error) {
	var when time.Time
	if at != "" {
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			return "", nil, fmt.Errorf("--timestamp: %w", err)
		}
		when = t
	}
	conn, err := replicaConnection(ctx, rawURL, keyFile, caFile)
	if err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp(a.dataDir, ".replica-")
	if err != nil {
		return "", nil, err
	}
	file := filepath.Join(tmp, domain+".db")
	if err := replica.Restore(ctx, conn, domain, file, when); err != nil {
		os.RemoveAll(tmp)
		return "", nil, err
	}
	return file, conn, nil
}

func fileExistsAt(p string) bool { _, err := os.Stat(p); return err == nil }

// replicaConnection connects to the replicas' bucket: the URL, the
// replica key (none: unsealed), the extra roots.
func replicaConnection(ctx context.Context, rawURL, keyFile, caFile string) (*replica.Connection, error) {
	target, err := replica.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	var sealer *replica.Sealer
	if keyFile != "" {
		key, err := certs.ReadKey(keyFile)
		if err != nil {
			return nil, fmt.Errorf("replica key: %w", err)
		}
		if sealer, err = replica.NewSealer(key); err != nil {
			return nil, err
		}
	}
	var extra *x509.CertPool
	if caFile != "" {
		if extra, err = certs.TrustPool(caFile); err != nil {
			return nil, err
		}
	}
	return replica.Connect(ctx, target, extra, sealer)
}
