package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
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
