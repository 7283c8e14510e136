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

func testSchema(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// describe is describeSchema, failing the test on an error.
func describe(t *testing.T, db *sql.DB) string {
	t.Helper()
	d, err := describeSchema(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestMigrationsProduceSchema proves that upgrading through every migration
// gives exactly the schema of schema.sql, which fresh files get.
func TestMigrationsProduceSchema(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(name, schema string) *sql.DB {
		w, _, err := openDB(filepath.Join(dir, name), DurabilityFull)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		if _, err := migrate(ctx, w, schema, time.Now()); err != nil {
			t.Fatal(err)
		}
		return w
	}
	viaSchema := open("a.db", testSchema(t))
	viaMigrations := open("b.db", "")
	if a, b := describe(t, viaSchema), describe(t, viaMigrations); a != b {
		t.Fatalf("schema.sql and migrations differ: %v\n--- schema.sql\n%s\n--- migrations\n%s", schemaDiff(a, b), a, b)
	}
	if want, err := expectedSchema(ctx, SchemaVersion()); err != nil || want != describe(t, viaSchema) {
		t.Fatalf("expectedSchema differs from schema.sql: %v %v", err, schemaDiff(want, describe(t, viaSchema)))
	}
	for _, db := range []*sql.DB{viaSchema, viaMigrations} {
		var v int
		db.QueryRow("PRAGMA user_version").Scan(&v)
		if v != SchemaVersion() {
			t.Fatalf("user_version = %d, want %d", v, SchemaVersion())
		}
	}
}

func newDomains(t *testing.T) *Domains {
	t.Helper()
	ds, err := OpenDomains(t.TempDir(), Options{Schema: testSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	return ds
}

func TestDomains(t *testing.T) {
	ctx := context.Background()
	t.Run("ErrBadName", func(t *testing.T) {
		ds := newDomains(t)
		for _, n := range []string{"", "Acme", "../x", "a.b", "-a", "a_b", strings.Repeat("a", 64), "a/b"} {
			if err := ds.Create(ctx, n); !errors.Is(err, ErrBadName) {
				t.Errorf("Create(%q) = %v", n, err)
			}
		}
		if err := ds.Create(ctx, strings.Repeat("a", 63)); err != nil {
			t.Errorf("63 chars: %v", err)
		}
	})
	t.Run("ErrDomainExists", func(t *testing.T) {
		ds := newDomains(t)
		if err := ds.Create(ctx, "acme"); err != nil {
			t.Fatal(err)
		}
		if err := ds.Create(ctx, "acme"); !errors.Is(err, ErrDomainExists) {
			t.Fatalf("second create: %v", err)
		}
	})
	t.Run("ErrNoDomain", func(t *testing.T) {
		ds := newDomains(t)
		if _, _, err := ds.Acquire(ctx, "ghost"); !errors.Is(err, ErrNoDomain) {
			t.Fatalf("acquire: %v", err)
		}
	})
	t.Run("ErrSchemaTooNew", func(t *testing.T) {
		ds := newDomains(t)
		if err := ds.Create(ctx, "acme"); err != nil {
			t.Fatal(err)
		}
		db, release, _ := ds.Acquire(ctx, "acme")
		db.w.Exec("PRAGMA user_version = 999")
		release()
		ds.Close()
		_, _, err := ds.Acquire(ctx, "acme")
		if !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "upgrade fincom") {
			t.Fatalf("acquire newer file: %v", err)
		}
		if err := ds.CheckVersions(); !errors.Is(err, ErrSchemaTooNew) || !strings.Contains(err.Error(), "acme (schema 999)") {
			t.Fatalf("CheckVersions: %v", err)
		}
	})
	t.Run("CloseIdle", func(t *testing.T) {
		ds := newDomains(t)
		ds.Create(ctx, "a")
		ds.Create(ctx, "b")
		_, release, _ := ds.Acquire(ctx, "a")
		if n := ds.CloseIdle(0); n != 1 {
			t.Fatalf("closed %d, want 1 (a is in use)", n)
		}
		release()
		if n := ds.CloseIdle(0); n != 1 || ds.OpenCount() != 0 {
			t.Fatalf("closed %d, open %d", n, ds.OpenCount())
		}
		if _, release, err := ds.Acquire(ctx, "b"); err != nil {
			t.Fatalf("reopen: %v", err)
		} else {
			release()
		}
	})
	t.Run("RenamedFileRefused", func(t *testing.T) {
		ds := newDomains(t)
		ds.Create(ctx, "acme")
		ds.Close()
		os.Rename(filepath.Join(ds.Dir(), "acme.db"), filepath.Join(ds.Dir(), "other.db"))
		if _, _, err := ds.Acquire(ctx, "other"); err == nil || !strings.Contains(err.Error(), "keeps its name") {
			t.Fatalf("acquire renamed: %v", err)
		}
	})
}

func TestBackupRestore(t *testing.T) {
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

func TestTokens(t *testing.T) {
	ctx := context.Background()
	ds := newDomains(t)
	ds.Create(ctx, "acme")
	db, release, _ := ds.Acquire(ctx, "acme")
	defer release()
	u, _ := db.CreateUnit(ctx, UnitInput{Name: "A"})
	tok, err := db.CreateAccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := TokenDomain(tok); !ok || d != "acme" {
		t.Fatalf("TokenDomain(access) = %q %v", d, ok)
	}
	if d, ok := TokenDomain(u.Token); !ok || d != "acme" {
		t.Fatalf("TokenDomain(unit) = %q %v", d, ok)
	}
	for _, bad := range []string{"", "fca_", "fca__x", "fca_ACME_x", "xyz_acme_1", "fca_../x_1"} {
		if _, ok := TokenDomain(bad); ok {
			t.Errorf("TokenDomain(%q) ok", bad)
		}
	}
	if _, err := db.Authenticate(ctx, tok, u.Token); err != nil {
		t.Fatal(err)
	}
	// The clear token is nowhere in the file.
	var n int
	db.r.QueryRow(`SELECT count(*) FROM access_tokens WHERE hash = ? OR hint = ?`, tok, tok).Scan(&n)
	if n != 0 {
		t.Fatal("clear token stored")
	}
	raw, _ := os.ReadFile(db.path)
	if strings.Contains(string(raw), tok[len(tok)-20:]) {
		t.Fatal("clear token in the file")
	}
	if _, err := db.Authenticate(ctx, tok, "fcu_acme_nope"); !errors.Is(err, ErrUnitNotFound) {
		t.Fatalf("unknown unit: %v", err)
	}
	if err := db.RevokeAccessToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Authenticate(ctx, tok, u.Token); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("revoked: %v", err)
	}
	if err := db.RevokeAccessToken(ctx, tok); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second revoke: %v", err)
	}
}

func TestMoney(t *testing.T) {
	for in, want := range map[string]string{`12.5`: `"12.50"`, `"0.1"`: `"0.10"`, `"1234567.891"`: `"1234567.89"`, `0`: `"0.00"`, `-3`: `"-3.00"`} {
		var m Money
		if err := m.UnmarshalJSON([]byte(in)); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if b, _ := m.MarshalJSON(); string(b) != want {
			t.Errorf("%s -> %s, want %s", in, b, want)
		}
	}
	for _, bad := range []string{`"NaN"`, `1e3`, `"Infinity"`, `""`, `"1.2.3"`, `true`, `"12,50"`, `"--1"`} {
		var m Money
		if err := m.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("%s accepted as %s", bad, m)
		}
	}
}

func TestBackupAllAndDoctor(t *testing.T) {
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

func TestRemove(t *testing.T) {
	ctx := context.Background()
	ds := newDomains(t)
	ds.Create(ctx, "gone")
	_, release, _ := ds.Acquire(ctx, "gone")
	if err := ds.Remove("gone"); !errors.Is(err, ErrInUse) {
		t.Fatalf("in use: %v", err)
	}
	release()
	if err := ds.Remove("gone"); err != nil {
		t.Fatal(err)
	}
	if ds.Exists("gone") {
		t.Fatal("still there")
	}
}
