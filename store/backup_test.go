package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// domainWithBackup makes domain acme with a unit and a project, and a
// backup of it outside the data directory.
func domainWithBackup(t *testing.T) (*Domains, string) {
	t.Helper()
	ctx := context.Background()
	ds := newDomains(t)
	if err := ds.Create(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	db, release, _ := ds.Acquire(ctx, "acme")
	u, _ := db.CreateUnit(ctx, UnitInput{Name: "A"})
	db.InsertProject(ctx, u.ID, ProjectFields{Name: "kept"})
	release()
	out := filepath.Join(t.TempDir(), "acme-backup.db")
	if err := ds.Backup(ctx, "acme", out, false); err != nil {
		t.Fatal(err)
	}
	return ds, out
}

// TestBackupTargets: a backup is never written over a live file of the
// data directory (a domain, the lock), nor over an existing file unless
// asked; it and every other copy fincom writes are readable by their
// owner only.
func TestBackupTargets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds, out := domainWithBackup(t)
	ds.Create(ctx, "beta")
	data := ds.Dir()
	elsewhere := t.TempDir()
	link := filepath.Join(elsewhere, "into-data")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{filepath.Join(data, "beta.db"), filepath.Join(data, ".fincom.lock"), filepath.Join(data, "new.db"),
		filepath.Join(data, "_snapshots", "x.db"), filepath.Join(link, "beta.db"), data} {
		if err := ds.Backup(ctx, "acme", target, true); !errors.Is(err, ErrBackupInDataDir) {
			t.Errorf("backup to %s: %v", target, err)
		}
	}
	if _, err := ds.BackupAll(ctx, data, 0); !errors.Is(err, ErrBackupInDataDir) {
		t.Errorf("backup --all into the data directory: %v", err)
	}
	if err := ds.Backup(ctx, "acme", out, false); !errors.Is(err, ErrBackupExists) {
		t.Fatalf("over an existing file: %v", err)
	}
	if err := ds.Backup(ctx, "acme", out, true); err != nil {
		t.Fatalf("--force: %v", err)
	}
	os.MkdirAll(filepath.Join(data, "backups"), 0o700)
	inBackups := filepath.Join(data, "backups", "acme.db")
	if err := ds.Backup(ctx, "acme", inBackups, false); err != nil {
		t.Fatalf("into DATA/backups: %v", err)
	}
	all, err := ds.BackupAll(ctx, filepath.Join(elsewhere, "all"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Snapshot(ctx, "acme", "s1"); err != nil {
		t.Fatal(err)
	}
	sys, err := OpenSystem(data, DurabilityFull, nil)
	if err != nil {
		t.Fatal(err)
	}
	sys.Close()
	for _, f := range append(all, out, inBackups, ds.snapshotPath("acme", "s1"), filepath.Join(data, "_system.db"), ds.path("acme")) {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want -rw-------", f, st.Mode().Perm())
		}
	}
}

// TestRestoreOddPaths: a path is only ever a path. `restore --from
// 'q.db?x=1'` checks the file named so (here junk), never q.db.
func TestRestoreOddPaths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds, out := domainWithBackup(t)
	dir := filepath.Dir(out)
	good := filepath.Join(dir, "q.db")
	if err := os.Rename(out, good); err != nil {
		t.Fatal(err)
	}
	for _, odd := range []string{"q.db?x=1", "q.db#frag", "q.db?mode=memory"} {
		os.WriteFile(filepath.Join(dir, odd), []byte("junk, not a database"), 0o600)
		if err := ds.Restore(ctx, "acme", filepath.Join(dir, odd)); err == nil {
			t.Fatalf("restored %q: the check read another file", odd)
		}
	}
	// A good file under an odd name is restored as itself.
	odd := filepath.Join(dir, "a%20b?c.db")
	os.Rename(good, odd)
	if err := ds.Restore(ctx, "acme", odd); err != nil {
		t.Fatalf("restore %q: %v", odd, err)
	}
	if err := ds.Restore(ctx, "acme", "/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("restore /dev/zero: %v", err)
	}
}

// tamper opens a backup file and runs SQL on it.
func tamper(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", fileURI(path, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestRestoreRefusesForeignSchema: a restorable file has exactly the
// schema this build gives a file of its version. A trigger of its own (one
// that un-revokes tokens), an extra table or view, a dropped index, or a
// version stamp that does not match its schema are refused, and doctor
// says so.
func TestRestoreRefusesForeignSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name, want string
		stmts      []string
	}{
		{"trigger", "extra trigger unrevoke", []string{`CREATE TRIGGER unrevoke AFTER UPDATE ON access_tokens BEGIN UPDATE access_tokens SET revoked_at = NULL WHERE id = new.id; END`}},
		{"table", "extra table spy", []string{`CREATE TABLE spy (x TEXT)`}},
		{"view", "extra view v", []string{`CREATE VIEW v AS SELECT 1`}},
		{"dropped index", "missing index", []string{`DROP INDEX charges_due`}},
		{"changed trigger", "changed trigger", []string{`DROP TRIGGER contacts_fts_insert`, `CREATE TRIGGER contacts_fts_insert AFTER INSERT ON contacts BEGIN SELECT 1; END`}},
		{"older stamp", "differs from fincom's schema", []string{`PRAGMA user_version = 13`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds, out := domainWithBackup(t)
			tamper(t, out, c.stmts...)
			err := ds.Restore(ctx, "acme", out)
			if !errors.Is(err, ErrForeignSchema) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("restore: %v", err)
			}
			// The live file was not touched; doctor on a data directory
			// holding such a file reports it.
			db, release, err := ds.Acquire(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			release()
			_ = db
			ds.Close()
			copyFile(out, ds.path("acme"))
			os.Remove(ds.path("acme") + "-wal")
			os.Remove(ds.path("acme") + "-shm")
			findings, err := ds.Doctor(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(findings) != 1 || findings[0].Level != "error" || !strings.Contains(findings[0].Message, c.want) {
				t.Fatalf("doctor: %+v", findings)
			}
		})
	}
}

// TestDoctorStampsAndRestoreDir: doctor reports a domain file stamped for
// another domain, and leaves fincom's own folders alone.
func TestDoctorStampsAndRestoreDir(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds, out := domainWithBackup(t)
	ds.Close()
	copyFile(out, filepath.Join(ds.Dir(), "beta.db"))
	for _, d := range []string{"_restore", "_throwaway", "_snapshots", "backups"} {
		os.MkdirAll(filepath.Join(ds.Dir(), d), 0o700)
	}
	findings, err := ds.Doctor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var beta *Finding
	for i, f := range findings {
		switch f.File {
		case "beta.db":
			beta = &findings[i]
		case "acme.db":
			if f.Level != "ok" {
				t.Errorf("acme: %+v", f)
			}
		default:
			t.Errorf("flagged %+v", f)
		}
	}
	if beta == nil || beta.Level != "error" || !strings.Contains(beta.Message, `stamped for domain "acme"`) {
		t.Fatalf("beta: %+v", beta)
	}
}

// TestRequestRestore: the CLI's copy handed over through DATA/_restore is
// applied by the server side, and a copy of another domain is refused with
// its reason.
func TestRequestRestore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds := newDomains(t)
	for _, n := range []string{"alpha", "beta"} {
		if err := ds.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	bk := filepath.Join(t.TempDir(), "alpha.bak")
	if err := ds.Backup(ctx, "alpha", bk, false); err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateUnit(ctx, UnitInput{Name: "Loja", CNPJ: "11222333000181", CityIBGE: "3550308"}); err != nil {
		t.Fatal(err)
	}
	release()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
				ds.ApplyRestores(ctx)
			}
		}
	}()
	if err := RequestRestore(ctx, ds.Dir(), "alpha", bk, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	db, release, err = ds.Acquire(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if units, _ := db.Units(ctx); len(units) != 0 {
		t.Fatalf("restore not applied: %d units", len(units))
	}
	release()
	if err := RequestRestore(ctx, ds.Dir(), "beta", bk, 5*time.Second); err == nil {
		t.Fatal("a backup of alpha restored as beta")
	}
	if entries, _ := os.ReadDir(filepath.Join(ds.Dir(), "_restore")); len(entries) != 0 {
		t.Fatalf("left in _restore: %v", entries)
	}
}

func TestBackupRestore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds := newDomains(t)
	if err := ds.Create(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	db, release, _ := ds.Acquire(ctx, "acme")
	u, err := db.CreateUnit(ctx, UnitInput{Name: "A"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.InsertProject(ctx, u.ID, ProjectFields{Name: "kept"}); err != nil {
		t.Fatal(err)
	}
	release()
	out := filepath.Join(t.TempDir(), "acme-backup.db")
	if err := ds.Backup(ctx, "acme", out, false); err != nil {
		t.Fatal(err)
	}
	if err := CheckFile(ctx, out); err != nil {
		t.Fatal(err)
	}
	db, release, _ = ds.Acquire(ctx, "acme")
	db.InsertProject(ctx, u.ID, ProjectFields{Name: "after backup"})
	release()
	if err := ds.Restore(ctx, "acme", out); err != nil {
		t.Fatal(err)
	}
	db, release, _ = ds.Acquire(ctx, "acme")
	defer release()
	ps, err := db.Projects(ctx, u.ID)
	if err != nil || len(ps) != 1 || ps[0].Name != "kept" {
		t.Fatalf("after restore: %v %v", ps, err)
	}
	if err := ds.Restore(ctx, "other", out); err == nil {
		t.Fatal("restored acme's file as other")
	}
	junk := filepath.Join(t.TempDir(), "junk.db")
	os.WriteFile(junk, []byte("not a database"), 0o600)
	if err := ds.Restore(ctx, "acme", junk); err == nil {
		t.Fatal("restored junk")
	}
}

func TestBackupAllAndDoctor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ds := newDomains(t)
	ds.Create(ctx, "a")
	ds.Create(ctx, "b")
	dir := t.TempDir()
	// Older backups of a: the oldest two go.
	for _, old := range []string{"a-20200101T000000Z.db", "a-20210101T000000Z.db", "a-20220101T000000Z.db", "other-file.txt"} {
		os.WriteFile(filepath.Join(dir, old), []byte("x"), 0o600)
	}
	files, err := ds.BackupAll(ctx, dir, 2)
	if err != nil || len(files) != 2 {
		t.Fatalf("backup all: %v %v", files, err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 4 || names[0] != "a-20220101T000000Z.db" || names[3] != "other-file.txt" {
		t.Fatalf("kept %v", names)
	}
	os.WriteFile(filepath.Join(ds.Dir(), "stray.tmp-123"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(ds.Dir(), "gone.db-wal"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(ds.Dir(), "broken.db"), []byte("not sqlite"), 0o600)
	findings, err := ds.Doctor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	levels := map[string]string{}
	for _, f := range findings {
		levels[f.File] = f.Level
	}
	if levels["a.db"] != "ok" || levels["b.db"] != "ok" || levels["broken.db"] != "error" || levels["stray.tmp-123"] != "warning" || levels["gone.db-wal"] != "warning" {
		t.Fatalf("findings %+v", findings)
	}
}

// TestDoctorWarnsOfCertificates: doctor warns of a unit's A1 certificate
// that ends within 30 days, or has ended; a far one and test ones are
// not reported.
func TestDoctorWarnsOfCertificates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	ds, err := OpenDomains(t.TempDir(), Options{Schema: testSchema(t), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	ds.Create(ctx, "acme")
	db, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ends time.Time
		test bool
	}{
		{"Matriz", now.AddDate(0, 0, 12), false},
		{"Filial", now.AddDate(0, 0, -2), false},
		{"Loja", now.AddDate(1, 0, 0), false},
		{"Teste", now.AddDate(0, 0, 3), true},
	} {
		u, err := db.CreateUnit(ctx, UnitInput{Name: c.name})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SetUnitCertificate(ctx, u.ID, UnitCertificate{Cert: []byte{1}, SealedKey: []byte{2}, CNPJ: "11222333000181", Subject: c.name,
			NotBefore: now.AddDate(-1, 0, 0), NotAfter: c.ends, Test: c.test}); err != nil {
			t.Fatal(err)
		}
	}
	release()
	findings, err := ds.Doctor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var acme Finding
	for _, f := range findings {
		if f.File == "acme.db" {
			acme = f
		}
	}
	if acme.Level != "warning" || !strings.Contains(acme.Message, "unit Matriz's A1 certificate ends on 2026-12-08 (in 12 days)") ||
		!strings.Contains(acme.Message, "unit Filial's A1 certificate ended on 2026-11-24") ||
		strings.Contains(acme.Message, "Loja") || strings.Contains(acme.Message, "Teste") {
		t.Errorf("doctor: %+v", acme)
	}
}

// TestAwaitRestoreReadsWholeAnswers: an answer file still empty (being
// written) is no answer: the wait goes on until the server's word is
// there.
func TestAwaitRestoreReadsWholeAnswers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	result := filepath.Join(dir, "acme.result")
	if err := os.WriteFile(result, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		os.WriteFile(result, []byte("ok\n"), 0o600)
	}()
	if err := awaitRestore(context.Background(), result, filepath.Join(dir, "acme.db"), 5*time.Second); err != nil {
		t.Fatalf("an answer read before it was written: %v", err)
	}
}
