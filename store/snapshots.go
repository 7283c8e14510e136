package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Test mode's domain operations: snapshots and resets to them, emptying a
// domain, throw-away domains and their expiry, and domains made
// from another domain's snapshot.

// keptWhenEmptied are the tables a reset to empty keeps: the domain's
// identity and credentials, its units and users (with their roles), and
// the reference data every domain is seeded with. Every other table is
// emptied, so a table added later is emptied too.
var keptWhenEmptied = map[string]bool{
	"meta": true, "access_tokens": true, "units": true, "users": true, "user_roles": true,
	// The count of changes the kept access follows (auth_cache.go).
	"auth_changes":    true,
	"category_groups": true, "banks": true, "bank_types": true, "payment_methods": true,
	// The search index's queue: the contacts' delete trigger fills it, and
	// the commit empties it into the index (emptied first, the index
	// would keep the names).
	"contacts_fts_pending": true,
}

// ResetEmpty removes every record of the domain but its units, tokens,
// users and reference data, in one transaction, and seeds each unit's
// default categories again: the state of a domain whose units were just
// created. The domain's clock and token counter go on.
func (db *DB) ResetEmpty(ctx context.Context) error {
	return db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		// Foreign keys are checked at commit, when every table is empty.
		if _, err := tx.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
			return err
		}
		// Ordinary tables only: the search index (virtual, and its shadow
		// tables) empties through the contacts' delete trigger and the
		// commit (DB.indexSearch).
		rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'`)
		if err != nil {
			return err
		}
		var tables []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return err
			}
			if !keptWhenEmptied[n] {
				tables = append(tables, n)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, t := range tables {
			// Table names come from the schema, never from a request.
			if _, err := tx.ExecContext(ctx, `DELETE FROM "`+t+`"`); err != nil {
				return fmt.Errorf("empty %s: %w", t, err)
			}
		}
		// AUTOINCREMENT counters of the emptied tables start again.
		var hasSeq int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_sequence'`).Scan(&hasSeq); err != nil {
			return err
		}
		if hasSeq > 0 {
			for _, t := range tables {
				if _, err := tx.ExecContext(ctx, `DELETE FROM sqlite_sequence WHERE name = ?`, t); err != nil {
					return err
				}
			}
		}
		units, err := unitIDs(ctx, tx)
		if err != nil {
			return err
		}
		for _, id := range units {
			if err := seedUnitCategories(ctx, tx, id, now, db.id); err != nil {
				return err
			}
		}
		return nil
	})
}

// ThrowAwayName names a new throw-away domain. Unseeded, the name is
// random; seeded, it is drawn from the seed, the label and k (the caller
// tries k = 0, 1, ... until a name is free), so that a suite run on a fresh
// data directory gets the same names, hence the same tokens, every run.
func (d *Domains) ThrowAwayName(label string, k int) string {
	if !d.opts.Seeded {
		if label != "" {
			label += "-"
		}
		return "t-" + label + fmt.Sprint(time.Now().Unix()) + "-" + NewSecret(6)
	}
	h := seededHash(d.opts.Seed, label, uint64(k))
	if label == "" {
		label = "x"
	}
	return "t-" + label + "-" + hex.EncodeToString(h[:4])
}

// ValidLabel reports whether a throw-away domain's label may be part of
// its name.
func ValidLabel(label string) bool {
	return label == "" || len(label) <= 30 && ValidDomainName(label)
}

func (d *Domains) throwAwayMarker(name string) string {
	return filepath.Join(d.dir, "_throwaway", name)
}

// MarkThrowAway records that a domain is a throw-away one, born now (wall
// clock: expiry is housekeeping, not business time).
func (d *Domains) MarkThrowAway(name string) error {
	if err := os.MkdirAll(filepath.Join(d.dir, "_throwaway"), 0o700); err != nil {
		return wrap("mark throw away", err)
	}
	return os.WriteFile(d.throwAwayMarker(name), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o600)
}

// ExpireThrowAway removes the throw-away domains born more than ttl ago
// that no request is using; it answers their names. Only domains marked by
// MarkThrowAway are ever removed, whatever their names.
func (d *Domains) ExpireThrowAway(ttl time.Duration) []string {
	entries, err := os.ReadDir(filepath.Join(d.dir, "_throwaway"))
	if err != nil {
		return nil
	}
	var gone []string
	for _, e := range entries {
		b, err := os.ReadFile(d.throwAwayMarker(e.Name()))
		if err != nil {
			continue
		}
		born, err := time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
		if err != nil || time.Since(born) <= ttl {
			continue
		}
		if err := d.Remove(e.Name()); err == nil {
			gone = append(gone, e.Name())
		}
	}
	return gone
}

// CreateFromSnapshot makes a new domain from a snapshot of another one
// (test mode). The copy is stamped with its own name; the tokens that name
// a domain are made anew (unit tokens) or re-addressed (orders' public
// tokens), and the source's access tokens are dropped: the caller makes
// the new domain's own. Record tokens stay as in the snapshot, so a test
// can use the ids it prepared.
func (d *Domains) CreateFromSnapshot(ctx context.Context, name, source, snap string) error {
	if !ValidDomainName(name) {
		return ErrBadName
	}
	if !snapshotName.MatchString(snap) {
		return ErrBadSnapshot
	}
	src := d.snapshotPath(source, snap)
	in, err := os.Open(src)
	if err != nil {
		return ErrBadSnapshot
	}
	defer in.Close()
	p := d.path(name)
	finish, err := d.creating(ctx, name)
	if err != nil {
		return wrap("create from snapshot", err)
	}
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0o600)
	if err == nil {
		_, err = io.Copy(out, in)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = d.readdress(ctx, p, name, source)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	finish(err != nil)
	return wrap("create from snapshot", err)
}

// readdress stamps a copied file with its new domain name, in one
// transaction, before any request can open it.
func (d *Domains) readdress(ctx context.Context, path, name, source string) error {
	w, r, err := openDB(path, d.opts.Durability)
	if err != nil {
		return err
	}
	defer r.Close()
	defer func() {
		w.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		w.Close()
	}()
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var stamped string
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'domain'`).Scan(&stamped); err != nil || stamped != source {
		return fmt.Errorf("snapshot of %s holds domain %q", source, stamped)
	}
	secret := NewSecret
	var ids *idSource
	if d.opts.Seeded {
		if ids, err = newIDSource(ctx, w, d.opts.Seed, name); err != nil {
			return err
		}
		secret = ids.secret
	}
	stmts := []struct {
		q    string
		args []any
	}{
		{`UPDATE meta SET value = ? WHERE key = 'domain'`, []any{name}},
		{`UPDATE meta SET value = ? WHERE key = 'created_at'`, []any{timestamp(d.opts.Now())}},
		{`DELETE FROM access_tokens`, nil},
		{`UPDATE sales_orders SET public_token = ? || substr(public_token, ?) WHERE public_token LIKE ? ESCAPE '\'`,
			[]any{publicPrefix + name + "_", len(publicPrefix+source+"_") + 1, likePrefix(publicPrefix + source + "_")}},
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
			return err
		}
	}
	units, err := unitIDs(ctx, tx)
	if err != nil {
		return err
	}
	for _, id := range units {
		if _, err := tx.ExecContext(ctx, `UPDATE units SET token = ? WHERE id = ?`, unitPrefix+name+"_"+secret(16), id); err != nil {
			return err
		}
	}
	if ids != nil {
		if _, err := ids.record(ctx, tx); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// unitIDs lists the domain's units inside a transaction.
func unitIDs(ctx context.Context, tx *sql.Tx) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM units ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// likePrefix escapes a LIKE pattern matching strings that start with s.
func likePrefix(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s) + "%"
}

var snapshotName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

func (d *Domains) snapshotPath(domain, snap string) string {
	return filepath.Join(d.dir, "_snapshots", domain, snap+".db")
}

// Snapshot saves the domain's current state under a name (test mode).
func (d *Domains) Snapshot(ctx context.Context, domain, snap string) error {
	if !snapshotName.MatchString(snap) {
		return ErrBadSnapshot
	}
	if err := os.MkdirAll(filepath.Dir(d.snapshotPath(domain, snap)), 0o700); err != nil {
		return wrap("snapshot domain", err)
	}
	return d.backupTo(ctx, domain, d.snapshotPath(domain, snap))
}

// ResetTo replaces the domain's file by a snapshot (test mode), as a
// restore does; held is how many in-flight requests belong to the caller.
func (d *Domains) ResetTo(ctx context.Context, domain, snap string, held int64) error {
	if !snapshotName.MatchString(snap) {
		return ErrBadSnapshot
	}
	src := d.snapshotPath(domain, snap)
	if _, err := os.Stat(src); err != nil {
		return ErrBadSnapshot
	}
	return d.swapIn(ctx, domain, src, held)
}
