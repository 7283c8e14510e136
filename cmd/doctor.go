package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"fincom/server/fiscal/reform"
	"fincom/server/https"
	"fincom/store"
	"fincom/store/replica"
)

func newDoctorCmd(a *app) *cobra.Command {
	var replicaURL, caFile, ibscbs, keyFile, unitFile, tlsCert string
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
			// The service: does it serve this data directory, and the
			// certificates it serves with, how long they last.
			findings = append(findings, a.serviceFindings(unitFile, tlsCert)...)
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
	c.Flags().StringVar(&unitFile, "unit-file", defaultUnitFile, "the systemd unit `fincom install` wrote: doctor says whether it serves this data directory, and checks its --tls-cert")
	c.Flags().StringVar(&tlsCert, "tls-cert", "", "a certificate file serve is given (serve --tls-cert): doctor checks when it ends")
	c.Flags().StringVar(&ibscbs, "ibscbs-table", os.Getenv("FINCOM_IBSCBS_TABLE"), "the JSON file of IBS and CBS rates and classes serve is given (serve --ibscbs-table)")
	return c
}

// certWarnDays: a certificate that ends within this many days is a
// warning (an ACME certificate is renewed a third of its life before its
// end, a month for Let's Encrypt's: one this close is not being renewed).
const certWarnDays = 14

// serviceFindings checks the systemd unit (whether it serves this data
// directory) and the certificates HTTPS is served with: the ACME cache's
// and the --tls-cert file (given here, or the unit's).
func (a *app) serviceFindings(unitFile, tlsCert string) []store.Finding {
	var out []store.Finding
	here, _ := filepath.Abs(a.dataDir)
	if b, err := os.ReadFile(unitFile); err == nil {
		data, flags := unitDataDir(string(b))
		f := store.Finding{File: unitFile, Level: "ok", Message: "the service serves this data directory"}
		if there, _ := filepath.Abs(data); data == "" || there != here {
			f.Level, f.Message = "warning", fmt.Sprintf("the service serves the data directory %q, not %q, which doctor checked: run doctor with --data %s", data, here, data)
		}
		out = append(out, f)
		if tlsCert == "" {
			tlsCert = flags["tls-cert"]
		}
	}
	var certs []string
	cache := filepath.Join(a.dataDir, acmeCache)
	if entries, err := os.ReadDir(cache); err == nil {
		for _, e := range entries {
			// The account's key and the challenges' token certificates are
			// no site's certificate.
			if n := e.Name(); !e.IsDir() && n != "acme_account+key" && !strings.HasSuffix(n, "+token") {
				certs = append(certs, filepath.Join(cache, n))
			}
		}
	}
	if tlsCert != "" {
		certs = append(certs, tlsCert)
	}
	now := a.clock()
	for _, name := range certs {
		f := store.Finding{File: name, Level: "ok"}
		b, err := os.ReadFile(name)
		if err != nil {
			f.Level, f.Message = "error", err.Error()
			out = append(out, f)
			continue
		}
		end, names, err := https.Expiry(b)
		switch days := int(end.Sub(now).Hours() / 24); {
		case err != nil:
			f.Level, f.Message = "error", "not a certificate: "+err.Error()
		case !end.After(now):
			f.Level, f.Message = "error", fmt.Sprintf("the certificate of %s ended on %s: browsers and PSPs refuse the server", strings.Join(names, ", "), end.UTC().Format(time.DateOnly))
		case days < certWarnDays:
			f.Level, f.Message = "warning", fmt.Sprintf("the certificate of %s ends on %s, in %d days, and has not been renewed", strings.Join(names, ", "), end.UTC().Format(time.DateOnly), days)
		default:
			f.Message = fmt.Sprintf("the certificate of %s is valid until %s (%d days)", strings.Join(names, ", "), end.UTC().Format(time.DateOnly), days)
		}
		out = append(out, f)
	}
	return out
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
