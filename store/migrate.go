package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"time"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrations returns the numbered migration scripts in order. Migration i
// (1-based) brings a file from user_version i-1 to i.
func migrations() ([]string, error) {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, n := range names {
		b, err := migrationFS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	return out, nil
}

// SchemaVersion is the schema version this build writes.
func SchemaVersion() int {
	m, _ := migrations()
	return len(m)
}

// dataSteps are what some migrations do in Go, after their SQL and in its
// transaction: data SQL alone cannot compute (a collation key).
var dataSteps = map[int]func(context.Context, *sql.Tx) error{16: fillSortKeys, 23: fillInventoryTotals}

// migrate brings the file to the current schema. A fresh file gets
// schema.sql in one step when it is given (a test proves that the
// migrations produce the same schema); an existing one gets each pending
// migration in its own transaction, recorded in PRAGMA user_version.
// Seed data is then brought up to date in the same way on every file.
func migrate(ctx context.Context, w *sql.DB, schema string, now time.Time) (applied int, err error) {
	all, err := migrations()
	if err != nil {
		return 0, fmt.Errorf("read migrations: %w", err)
	}
	var version int
	if err := w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if version > len(all) {
		return 0, fmt.Errorf("%w: file has schema %d, this build knows %d; upgrade fincom", ErrSchemaTooNew, version, len(all))
	}
	steps := all[version:]
	if version == 0 && schema != "" {
		steps = []string{schema}
	}
	for i, script := range steps {
		target := version + i + 1
		if len(steps) == 1 && version == 0 && schema != "" {
			target = len(all)
		}
		if err := execInTx(ctx, w, script+fmt.Sprintf("\nPRAGMA user_version = %d;", target), dataSteps[target]); err != nil {
			return applied, fmt.Errorf("migrate to %d: %w", target, err)
		}
		applied++
	}
	// Reference data is rewritten only when this build's differs from the
	// file's, so that opening a file stays cheap.
	var stored string
	err = w.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'seed'`).Scan(&stored)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return applied, fmt.Errorf("read seed digest: %w", err)
	}
	if stored == seedDigest() {
		return applied, nil
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return applied, err
	}
	defer tx.Rollback()
	if err := seed(ctx, tx, now); err != nil {
		return applied, fmt.Errorf("seed: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('seed', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, seedDigest()); err != nil {
		return applied, fmt.Errorf("record seed digest: %w", err)
	}
	return applied, tx.Commit()
}

// execInTx runs a migration script, and its data step, in one transaction.
// Foreign keys are off while a script runs, on the connection it runs on,
// so that a migration can rebuild a table others refer to (SQLite's
// documented way to change a constraint); every reference is checked
// before the transaction commits, and the connection gets them back.
func execInTx(ctx context.Context, w *sql.DB, script string, step func(context.Context, *sql.Tx) error) error {
	conn, err := w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// A file whose references were already broken is not refused for
	// them: only a migration that breaks one more is.
	broken := func() (n int, err error) {
		err = tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_foreign_key_check`).Scan(&n)
		return n, err
	}
	before, err := broken()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, script); err != nil {
		return err
	}
	if step != nil {
		if err := step(ctx, tx); err != nil {
			return err
		}
	}
	after, err := broken()
	if err != nil {
		return err
	}
	if after > before {
		return fmt.Errorf("the migration leaves %d references to missing rows", after-before)
	}
	return tx.Commit()
}
