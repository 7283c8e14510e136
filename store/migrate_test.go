package store

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testSchema(t testing.TB) string {
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
	t.Parallel()
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
		// The search index's settings are rows, not schema.
		var merge int
		if err := db.QueryRow(`SELECT v FROM contacts_fts_config WHERE k = 'usermerge'`).Scan(&merge); err != nil || merge != 2 {
			t.Errorf("contacts_fts usermerge = %d, %v; want 2", merge, err)
		}
		var v int
		db.QueryRow("PRAGMA user_version").Scan(&v)
		if v != SchemaVersion() {
			t.Fatalf("user_version = %d, want %d", v, SchemaVersion())
		}
	}
}

// migrateTo brings a fresh file to schema version n by the migrations, as
// a file made by an older build is.
func migrateTo(t *testing.T, w *sql.DB, n int) {
	t.Helper()
	all, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for i, script := range all[:n] {
		if err := execInTx(context.Background(), w, script+fmt.Sprintf("\nPRAGMA user_version = %d;", i+1), nil); err != nil {
			t.Fatalf("migration %d: %v", i+1, err)
		}
	}
}

// TestSortKeysOfExistingRows: a file made before names carried collation
// keys gets a key for every row already there (migration 16's Go step),
// so its old names list in Portuguese order beside new ones.
func TestSortKeysOfExistingRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w, _, err := openDB(filepath.Join(t.TempDir(), "old.db"), DurabilityFull)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	migrateTo(t, w, 15)
	if _, err := w.ExecContext(ctx, `INSERT INTO units (token, name, created_at) VALUES ('u', 'Loja', '2026-01-01T00:00:00.000Z');
		INSERT INTO products (token, unit_id, description, type, usage_type, created_at, updated_at) VALUES
			('p1', 1, 'Ébano', 'product', 'sale', '', ''), ('p2', 1, 'farinha', 'product', 'sale', '', ''), ('p3', 1, 'abacaxi', 'product', 'sale', '', '')`); err != nil {
		t.Fatal(err)
	}
	if _, err := migrate(ctx, w, "", time.Now()); err != nil {
		t.Fatal(err)
	}
	rows, err := w.QueryContext(ctx, `SELECT description FROM products ORDER BY sort_key`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var d string
		rows.Scan(&d)
		got = append(got, d)
	}
	if want := "abacaxi Ébano farinha"; strings.Join(got, " ") != want {
		t.Fatalf("order %q, want %q", got, want)
	}
	var missing int
	w.QueryRowContext(ctx, `SELECT count(*) FROM banks WHERE sort_key IS NULL`).Scan(&missing)
	if missing != 0 {
		t.Fatalf("%d banks without a sort key", missing)
	}
}

// TestInvoicesRebuiltWithTheirEvents: the migration that widens the
// invoices' statuses rebuilds the table other tables refer to; the
// invoices keep their ids, their events, and the order's status text.
func TestInvoicesRebuiltWithTheirEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w, _, err := openDB(filepath.Join(t.TempDir(), "old.db"), DurabilityFull)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	migrateTo(t, w, 37)
	// An order stands for itself here: its invoice is what is kept.
	if _, err := w.ExecContext(ctx, `PRAGMA foreign_keys = OFF;
		INSERT INTO invoices (id, token, order_id, unit_id, kind, status, series, number, protocol, xml, issued_at)
			VALUES (7, 'i7', 999, 1, 'nfe', 'AUTHORIZED', 1, 7, '135', '<nfeProc/>', '2026-11-26T10:00:00Z');
		INSERT INTO invoice_events (invoice_id, type, sequence, protocol, xml, created_at) VALUES (7, '110110', 1, '135', '<x/>', '');
		PRAGMA foreign_keys = ON`); err != nil {
		t.Fatal(err)
	}
	if _, err := migrate(ctx, w, "", time.Now()); err != nil {
		t.Fatal(err)
	}
	var status, token string
	if err := w.QueryRowContext(ctx, `SELECT i.status, i.token FROM invoice_events e JOIN invoices i ON i.id = e.invoice_id`).Scan(&status, &token); err != nil ||
		status != "AUTHORIZED" || token != "i7" {
		t.Fatalf("the event's invoice after the migration: %q %q %v", status, token, err)
	}
	var fks int
	w.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fks)
	if fks != 1 {
		t.Fatal("a connection was left without foreign keys")
	}
}

// TestPaidOrdersLinkTheirIncomes: a file whose charges' payments booked
// incomes before entries carried their order gets the link (so the
// accrual basis counts such a sale once); an income a person booked stays
// without one.
func TestPaidOrdersLinkTheirIncomes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w, _, err := openDB(filepath.Join(t.TempDir(), "old.db"), DurabilityFull)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	migrateTo(t, w, 53)
	if _, err := w.ExecContext(ctx, `PRAGMA foreign_keys = OFF;
		INSERT INTO sales_orders (id, token, unit_id, cod_seq, cod_orders, contact_id, category_id, payment_method_id, description, value, value_cents,
			quantity, estimated_payment_date, taxes, created_at, updated_at, revenue)
			VALUES (5, 'o5', 1, 1, '1', 3, 1, 1, 'Parafusos', '47.30', 4730, '1', '2026-11-10', '{}', '', '', 1);
		INSERT INTO charges (id, token, order_id, installment, installments, idempotency_key, provider, payment_key, status, amount, due_date,
			paid_amount, created_at, updated_at)
			VALUES (9, 'c9', 5, 1, 1, 'k9', 'pix', 'p9', 'PAID', '47.30', '2026-11-10', '47.30', '', '');
		INSERT INTO entries (id, token, unit_id, type, description, value, value_cents, due_date, contact_id, created_at, updated_at) VALUES
			(1, 'paid', 1, 'in', 'Parafusos', '47.30', 4730, '2026-11-10', 3, '', ''),
			(2, 'other contact', 1, 'in', 'Parafusos', '47.30', 4730, '2026-11-10', 4, '', ''),
			(3, 'other day', 1, 'in', 'Parafusos', '47.30', 4730, '2026-11-11', 3, '', ''),
			(4, 'other unit', 2, 'in', 'Parafusos', '47.30', 4730, '2026-11-10', 3, '', '');
		PRAGMA foreign_keys = ON`); err != nil {
		t.Fatal(err)
	}
	if _, err := migrate(ctx, w, "", time.Now()); err != nil {
		t.Fatal(err)
	}
	rows, err := w.QueryContext(ctx, `SELECT token, COALESCE(sales_order_id, 0) FROM entries ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var tok string
		var order int
		rows.Scan(&tok, &order)
		got[tok] = order
	}
	if want := map[string]int{"paid": 5, "other contact": 0, "other day": 0, "other unit": 0}; !maps.Equal(got, want) {
		t.Fatalf("orders of the entries %v, want %v", got, want)
	}
}
