// Package cmd holds fincom's command-line interface, one file per command.
package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/store"
)

// Version is fincom's version, set at build time with
// -ldflags "-X fincom/cmd.Version=...".
var Version = "0.1.0-dev"

// app is what every command shares: the flags of the root command and the
// embedded schema.
type app struct {
	schema     string
	dataDir    string
	jsonOut    bool
	durability string
	// seeded: serve --seed was given, so domains draw reproducible tokens.
	seeded bool
	seed   uint64
	// maxOpen: serve --max-open-domains (0: store's default).
	maxOpen int
	// secretsKey: --secrets-key-file, the key that seals certificates'
	// private keys and CSCs in the domain files.
	secretsKey string
	// walOwner: serve --replicate, whose Litestream checkpoints the WALs.
	walOwner bool
	out      io.Writer
	errOut   io.Writer
	// now is the clock of the checks that look at the calendar (doctor's
	// and serve's warning that the IBS and CBS rates end); the process
	// clock when nil.
	now func() time.Time
}

// today is the day by the app's clock, in Brasília's time.
func (a *app) today() string {
	return store.Today(a.clock()).ISO()
}

// clock is the app's time: the process clock unless a test set one.
func (a *app) clock() time.Time {
	if a.now != nil {
		return a.now()
	}
	return time.Now()
}

// Execute runs the CLI and returns the process exit code.
func Execute(schema string) int {
	a := &app{schema: schema, out: os.Stdout, errOut: os.Stderr}
	root := newRootCmd(a)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(a.errOut, "fincom:", err)
		return 1
	}
	return 0
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:           "fincom",
		Short:         "Self-hosted finance and sales back end for Brazilian small firms",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	root.SetVersionTemplate("fincom {{.Version}}\n")
	def := os.Getenv("FINCOM_DATA")
	if def == "" {
		def = "./data"
	}
	root.PersistentFlags().StringVar(&a.dataDir, "data", def, "data directory, one SQLite file per domain (env FINCOM_DATA)")
	root.PersistentFlags().BoolVar(&a.jsonOut, "json", false, "print one JSON object")
	root.PersistentFlags().StringVar(&a.secretsKey, "secrets-key-file", os.Getenv("FINCOM_SECRETS_KEY_FILE"),
		"file of the 32-byte key that seals units' certificate keys and CSCs (env FINCOM_SECRETS_KEY_FILE; make one: head -c 32 /dev/urandom > key; chmod 600 key)")
	root.SetOut(a.out)
	root.SetErr(a.errOut)
	root.AddCommand(
		newServeCmd(a), newDemoCmd(a), newDomainCmd(a), newUnitCmd(a), newTokenCmd(a), newUserCmd(a),
		newMigrateCmd(a), newBackupCmd(a), newRestoreCmd(a), newJobsCmd(a), newOutboxCmd(a), newNFeCmd(a), newExportCmd(a), newDoctorCmd(a), newInstallCmd(a), newAuditCmd(a), newVersionCmd(a),
		newCNABCmd(a), newOFXCmd(a), newFiscalCmd(a),
	)
	return root
}

// clock returns the process clock: FINCOM_NOW (RFC 3339) fixes it, so that
// integration tests can travel in time; otherwise the wall clock.
func clock() (func() time.Time, error) {
	v := os.Getenv("FINCOM_NOW")
	if v == "" {
		return time.Now, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, fmt.Errorf("FINCOM_NOW: %w", err)
	}
	return func() time.Time { return t }, nil
}

// testSecretsKey is the secrets key test mode and demo make in the data
// directory when the operator gives none: their test certificates are
// sealed like real ones.
const testSecretsKey = ".test-secrets.key"

// keyring answers the secrets key: the operator's --secrets-key-file, else
// a test data directory's own (made in test mode), else nil: no unit can
// then install a certificate or sign.
func (a *app) keyring(testMode bool) (*certs.Keyring, error) {
	if a.secretsKey != "" {
		return certs.ReadKeyFile(a.secretsKey)
	}
	path := filepath.Join(a.dataDir, testSecretsKey)
	if testMode {
		return certs.WriteKeyFile(path)
	}
	if _, err := os.Stat(path); err == nil {
		return certs.ReadKeyFile(path)
	}
	return nil, nil
}

// domains opens the data directory, which must exist: a mistyped --data
// is said, not silently made into an empty directory (TestMissingDataDir).
// serve, demo, restore and domain create make it.
func (a *app) domains() (*store.Domains, error) {
	if fi, err := os.Stat(a.dataDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("data directory %s does not exist (check --data or FINCOM_DATA; `fincom domain create NAME` or `fincom serve` makes it)", a.dataDir)
	}
	now, err := clock()
	if err != nil {
		return nil, err
	}
	d := store.Durability(a.durability)
	if d == "" {
		d = store.DurabilityFull
	}
	if d != store.DurabilityFull && d != store.DurabilityNormal {
		return nil, fmt.Errorf("--durability must be full or normal, not %q", a.durability)
	}
	return store.OpenDomains(a.dataDir, store.Options{Rules: billing.Rules{}, Schema: a.schema, Durability: d, Now: now, Seeded: a.seeded, Seed: a.seed, MaxOpen: a.maxOpen,
		WALOwner: a.walOwner})
}

// withDomain opens one existing domain for a command.
func (a *app) withDomain(ctx context.Context, name string, fn func(db *store.DB) error) error {
	ds, err := a.domains()
	if err != nil {
		return err
	}
	defer ds.Close()
	db, release, err := ds.Acquire(ctx, name)
	if err != nil {
		if errors.Is(err, store.ErrNoDomain) {
			return fmt.Errorf("domain %q does not exist in %s", name, a.dataDir)
		}
		return err
	}
	defer release()
	return fn(db)
}

// print writes v as one JSON object with --json, else the text.
func (a *app) print(v any, text string) error {
	if a.jsonOut {
		enc := json.NewEncoder(a.out)
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	_, err := fmt.Fprintln(a.out, text)
	return err
}

// maxInputFile bounds a document the CLI reads (an NF-e XML): the API's
// own limit for one file.
const maxInputFile = 10 << 20

// readInput reads a file of at most max bytes: a path naming a device or
// a huge file (`nfe import D U /dev/zero`) is refused after max bytes,
// never read whole.
func readInput(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return data, nil
}
