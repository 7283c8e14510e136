package cmd

import (
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/superfly/ltx"

	"fincom/server/certs"
	"fincom/store"
	"fincom/store/replica"
)

func newRestoreCmd(a *app) *cobra.Command {
	var from, replicaURL, keyFile, caFile, at, expect string
	var allowUnmarked bool
	c := &cobra.Command{
		Use:   "restore DOMAIN --from FILE | --from-replica URL",
		Short: "Replace a domain by a checked backup or its replica (online when a server runs: only that domain pauses)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (from == "") == (replicaURL == "") {
				return fmt.Errorf("give --from FILE or --from-replica URL")
			}
			// A new machine has no data directory yet: the restore makes it.
			if err := os.MkdirAll(a.dataDir, 0o700); err != nil {
				return err
			}
			var conn *replica.Connection
			var pos replica.Position
			if replicaURL != "" {
				opt := replica.RestoreOptions{AllowUnmarked: allowUnmarked}
				if expect != "" {
					var err error
					if opt.ExpectTXID, err = parseTXID(expect); err != nil {
						return err
					}
				}
				file, c, p, err := a.fromReplica(cmd.Context(), args[0], replicaURL, keyFile, caFile, at, opt)
				if err != nil {
					return err
				}
				conn, pos = c, p
				defer os.RemoveAll(filepath.Dir(file))
				from = file
			} else if at != "" || expect != "" || allowUnmarked {
				return fmt.Errorf("--timestamp, --expect-txid and --allow-unmarked go with --from-replica")
			}
			// What a replica's restore brought back: the operator compares
			// it with their own record (--expect-txid next time).
			out := map[string]any{"domain": args[0], "from": from, "restored": true}
			restored := ""
			if conn != nil {
				out["txid"], out["txid_written_at"] = pos.TXID.String(), pos.At.UTC().Format(time.RFC3339)
				restored = fmt.Sprintf(" (transaction %s, %d, written %s)", pos.TXID, uint64(pos.TXID), pos.At.UTC().Format(time.RFC3339))
			}
			unlock, err := lockDataDir(a.dataDir)
			if err != nil {
				// A server holds the data directory: it swaps the file in.
				if err := store.RequestRestore(cmd.Context(), a.dataDir, args[0], from, time.Minute); err != nil {
					return fmt.Errorf("restore %s: %w", args[0], err)
				}
				out["online"] = true
				if err := recordRestored(a.dataDir, args[0], conn, pos); err != nil {
					return err
				}
				return a.print(out, fmt.Sprintf("domain %s restored from %s by the running server%s", args[0], from, restored))
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
						p, err := replica.Restore(cmd.Context(), conn, "_system.db", sys, time.Time{}, replica.RestoreOptions{AllowUnmarked: allowUnmarked})
						if err == nil {
							err = replica.OpenMarks(a.dataDir).Set("_system.db", replica.Mark(p), true)
						}
						if err != nil {
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
			if err := recordRestored(a.dataDir, args[0], conn, pos); err != nil {
				return err
			}
			return a.print(out, fmt.Sprintf("domain %s restored from %s%s", args[0], from, restored))
		},
	}
	c.Flags().StringVar(&from, "from", "", "backup file to restore")
	c.Flags().StringVar(&replicaURL, "from-replica", "", "restore the domain's replica at s3://BUCKET/PREFIX?endpoint=…&region=…&force-path-style=true (serve --replicate)")
	c.Flags().StringVar(&keyFile, "replicate-key-file", os.Getenv("FINCOM_REPLICATE_KEY_FILE"), "the key the replica was sealed with (env FINCOM_REPLICATE_KEY_FILE)")
	c.Flags().StringVar(&caFile, "ca-file", os.Getenv("FINCOM_CA_FILE"), "PEM certificates the bucket's TLS is trusted by besides the system's and AWS_CA_BUNDLE's (env FINCOM_CA_FILE)")
	c.Flags().StringVar(&at, "timestamp", "", "with --from-replica: the domain as it stood at this time (RFC 3339); default its latest")
	c.Flags().StringVar(&expect, "expect-txid", "", "with --from-replica: refuse a replica that reaches an older transaction than this one (as restore, doctor --replicate and health print it: 16 hex digits, or a decimal number)")
	c.Flags().BoolVar(&allowUnmarked, "allow-unmarked", false, "with --from-replica: take a sealed replica that has no mark (written before fincom marked replicas) as it is")
	return c
}

// recordRestored makes the data directory's record of a domain's replica
// mark what a restore from the replica (conn; nil: from a backup) put in
// place: replicating on from there is no rollback.
func recordRestored(dir, domain string, conn *replica.Connection, pos replica.Position) error {
	if conn == nil || pos.TXID == 0 {
		return nil
	}
	return replica.OpenMarks(dir).Set(domain+".db", replica.Mark(pos), true)
}

// parseTXID reads a transaction id as fincom prints it (16 hex digits)
// or as a decimal number.
func parseTXID(s string) (ltx.TXID, error) {
	if len(s) == 16 {
		if t, err := ltx.ParseTXID(s); err == nil {
			return t, nil
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("--expect-txid %q: want a transaction id (16 hex digits) or a decimal number", s)
	}
	return ltx.TXID(n), nil
}

// fromReplica writes the domain's replica (as it stood at at, RFC 3339;
// "" its latest) to a file in a directory of its own in the data
// directory, for the restore to check and swap in like a backup.
func (a *app) fromReplica(ctx context.Context, domain, rawURL, keyFile, caFile, at string, opt replica.RestoreOptions) (string, *replica.Connection, replica.Position, error) {
	var when time.Time
	if at != "" {
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			return "", nil, replica.Position{}, fmt.Errorf("--timestamp: %w", err)
		}
		when = t
	}
	conn, err := replicaConnection(ctx, rawURL, keyFile, caFile)
	if err != nil {
		return "", nil, replica.Position{}, err
	}
	tmp, err := os.MkdirTemp(a.dataDir, ".replica-")
	if err != nil {
		return "", nil, replica.Position{}, err
	}
	file := filepath.Join(tmp, domain+".db")
	pos, err := replica.Restore(ctx, conn, domain, file, when, opt)
	if err != nil {
		os.RemoveAll(tmp)
		return "", nil, replica.Position{}, err
	}
	return file, conn, pos, nil
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
