package store

// Backups and restores of domain files, offline and while the server runs.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Backup writes a consistent copy of a live domain to out, a file outside
// the data directory (or inside its backups/ folder) that does not exist
// yet unless overwrite (TestBackupTargets).
func (d *Domains) Backup(ctx context.Context, name, out string, overwrite bool) error {
	if err := d.checkBackupTarget(out); err != nil {
		return wrap("backup domain", err)
	}
	if _, err := os.Lstat(out); err == nil && !overwrite {
		return ErrBackupExists
	}
	return d.backupTo(ctx, name, out)
}

// checkBackupTarget refuses a path inside the data directory, but for its
// backups/ folder: a backup written over DATA/beta.db or DATA/.fincom.lock
// would corrupt a live domain or let a second server start. Paths are
// compared after resolving symbolic links.
func (d *Domains) checkBackupTarget(out string) error {
	resolve := func(p string) string {
		abs, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		// The file itself may not exist yet: resolve its folder.
		if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
			abs = filepath.Join(dir, filepath.Base(abs))
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		return abs
	}
	data, target := resolve(d.dir), resolve(out)
	within := func(dir, p string) bool {
		rel, err := filepath.Rel(dir, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	if within(data, target) && !within(filepath.Join(data, "backups"), target) {
		return ErrBackupInDataDir
	}
	return nil
}

// backupTo writes a consistent copy of a live domain to out: VACUUM INTO
// a temporary file beside out (a read transaction, so writers go on),
// created beforehand readable by its owner only (a backup holds tokens,
// webhook secrets and customers' data), an integrity and schema check of
// the copy, fsync, then an atomic rename.
func (d *Domains) backupTo(ctx context.Context, name, out string) error {
	db, release, err := d.Acquire(ctx, name)
	if err != nil {
		return err
	}
	defer release()
	tmp := fmt.Sprintf("%s.tmp-%d", out, time.Now().UnixNano())
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("create backup: %w", err)
	}
	f.Close()
	defer os.Remove(tmp)
	conn, err := sql.Open("sqlite", fileURI(db.path, "_pragma=busy_timeout("+busyMillis+")"))
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		return fmt.Errorf("vacuum into: %w", err)
	}
	if err := CheckFile(ctx, tmp); err != nil {
		return err
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("rename backup: %w", err)
	}
	return syncDir(filepath.Dir(out))
}

// Restore replaces a domain's file by a checked copy of from, the server
// running or not (see swapIn): the domain is unavailable for as long as
// its in-flight requests take, the others not at all.
func (d *Domains) Restore(ctx context.Context, name, from string) error {
	if !ValidDomainName(name) {
		return ErrBadName
	}
	if err := CheckRestorable(ctx, name, from); err != nil {
		return wrap("restore domain", err)
	}
	if a, err := os.Stat(from); err == nil {
		if b, err := os.Stat(d.path(name)); err == nil && os.SameFile(a, b) {
			return fmt.Errorf("%s is the domain's own live file", from)
		}
	}
	return d.swapIn(ctx, name, from, 0)
}

// CheckRestorable checks that from is a sound copy of the domain:
// integrity, exactly fincom's schema for its version (CheckFile), and the
// domain's own stamp.
func CheckRestorable(ctx context.Context, name, from string) error {
	if st, err := os.Stat(from); err != nil {
		return wrap("check restorable", err)
	} else if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", from)
	}
	if err := CheckFile(ctx, from); err != nil {
		return wrap("check restorable", err)
	}
	stamped, err := DomainOf(ctx, from)
	if err != nil {
		return fmt.Errorf("read domain of %s: %w", from, err)
	}
	if stamped != name {
		return fmt.Errorf("%s holds domain %q, not %q", from, stamped, name)
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// BackupAll backs up every domain into dir as <domain>-<UTC time>.db and
// keeps the newest keep backups of each domain (0 keeps all). It answers
// the files written.
func (d *Domains) BackupAll(ctx context.Context, dir string, keep int) ([]string, error) {
	if err := d.checkBackupTarget(filepath.Join(dir, "x.db")); err != nil {
		return nil, wrap("backup all", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, wrap("backup all", err)
	}
	names, err := d.Names()
	if err != nil {
		return nil, wrap("backup all", err)
	}
	stamp := time.Now().UTC().Format("20060102T150405Z")
	var written []string
	for _, n := range names {
		out := filepath.Join(dir, n+"-"+stamp+".db")
		if err := d.backupTo(ctx, n, out); err != nil {
			return written, fmt.Errorf("backup %s: %w", n, err)
		}
		written = append(written, out)
		if keep > 0 {
			if err := prune(dir, n, keep); err != nil {
				return written, wrap("backup all", err)
			}
		}
	}
	return written, nil
}

// restoreDir is where `fincom restore` hands a checked copy to a running
// server (the data directory's lock tells it one runs).
func restoreDir(dataDir string) string { return filepath.Join(dataDir, "_restore") }

// RequestRestore asks the server running on dataDir to restore a domain:
// it checks from, leaves a copy in DATA/_restore (renamed into place, so the
// server never sees half a file) and waits for the server's answer.
func RequestRestore(ctx context.Context, dataDir, name, from string, wait time.Duration) error {
	if !ValidDomainName(name) {
		return ErrBadName
	}
	if err := CheckRestorable(ctx, name, from); err != nil {
		return wrap("request restore", err)
	}
	dir := restoreDir(dataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return wrap("request restore", err)
	}
	req, result := filepath.Join(dir, name+".db"), filepath.Join(dir, name+".result")
	os.Remove(result)
	part := req + ".part"
	if err := copyFile(from, part); err != nil {
		return wrap("request restore", err)
	}
	if err := syncFile(part); err != nil {
		os.Remove(part)
		return wrap("request restore", err)
	}
	if err := os.Rename(part, req); err != nil {
		os.Remove(part)
		return wrap("request restore", err)
	}
	return awaitRestore(ctx, result, req, wait)
}

// awaitRestore waits up to wait for the server's answer to a restore it
// was handed (req) in the file result.
func awaitRestore(ctx context.Context, result, req string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		// An empty answer is one not written yet (a server before this
		// one wrote it in place): asked again.
		if b, err := os.ReadFile(result); err == nil && strings.TrimSpace(string(b)) != "" {
			os.Remove(result)
			if msg := strings.TrimSpace(string(b)); msg != "ok" {
				return errors.New(msg)
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server did not take the restore within %s; %s stays and is applied when the server next starts", wait, req)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ApplyRestores swaps in the copies `fincom restore` handed over (see
// RequestRestore) and leaves each one's answer beside it. The server calls
// it at start and every few hundred milliseconds; it answers the domains
// restored.
func (d *Domains) ApplyRestores(ctx context.Context) []string {
	dir := restoreDir(d.dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var done []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".db")
		if !ok || e.IsDir() {
			continue
		}
		req := filepath.Join(dir, e.Name())
		answer := "ok"
		if err := d.Restore(ctx, name, req); err != nil {
			answer = fmt.Sprintf("restore %s: %v", name, err)
		} else {
			done = append(done, name)
		}
		os.Remove(req)
		// Written whole under another name, then renamed: the waiting
		// `fincom restore` never reads a half-written answer.
		result := filepath.Join(dir, name+".result")
		if os.WriteFile(result+".part", []byte(answer+"\n"), 0o600) == nil {
			os.Rename(result+".part", result)
		}
	}
	return done
}
