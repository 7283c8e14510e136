package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// fileURI is the SQLite URI of a file: "file:" and the absolute path with
// every byte that means something in a URI ('?', '#', '%') escaped, then
// the query. A path is only ever a path: `restore --from 'q.db?x=1'`
// opens the file named so, never q.db with a parameter
// (TestRestoreOddPaths).
func fileURI(path, query string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	u := "file:" + (&url.URL{Path: path}).EscapedPath()
	if query != "" {
		u += "?" + query
	}
	return u
}

// describeSchema renders a database's schema as SQLite understands it:
// each table's columns, foreign keys and strictness, each index's keys and
// uniqueness, and the text of each trigger and view (comments dropped,
// blanks folded). Two files with the same description have the same
// schema, however its SQL was written.
func describeSchema(ctx context.Context, db *sql.DB) (string, error) {
	var b strings.Builder
	q := func(query string, args ...any) ([][]string, error) {
		rows, err := db.QueryContext(ctx, query, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out [][]string
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return nil, err
			}
			row := make([]string, len(cols))
			for i, v := range vals {
				row[i] = v.String
			}
			out = append(out, row)
		}
		return out, rows.Err()
	}
	// Litestream's two bookkeeping tables (serve --replicate) are its
	// own, not the file's schema: a replicated domain's backups and
	// replicas hold them (TestReplicaSurvivesTheMachine).
	objs, err := q(`SELECT type, name, COALESCE(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'
		AND NOT (type = 'table' AND name IN ('_litestream_seq', '_litestream_lock')) ORDER BY type, name`)
	if err != nil {
		return "", fmt.Errorf("read schema: %w", err)
	}
	for _, obj := range objs {
		fmt.Fprintf(&b, "%s %s\n", obj[0], obj[1])
		var parts []struct {
			format, query string
		}
		switch obj[0] {
		case "table":
			parts = []struct{ format, query string }{
				{"  col %v\n", `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`},
				{"  fk %v\n", `SELECT "table", "from", "to" FROM pragma_foreign_key_list(?)`},
				{"  strict %v\n", `SELECT strict FROM pragma_table_list WHERE name = ?`},
			}
		case "index":
			parts = []struct{ format, query string }{
				{"  key %v\n", `SELECT name, coll FROM pragma_index_xinfo(?) WHERE key = 1`},
				{"  unique %v\n", `SELECT "unique" FROM pragma_index_list((SELECT tbl_name FROM sqlite_master WHERE name = ?1)) WHERE name = ?1`},
			}
		case "trigger", "view":
			fmt.Fprintf(&b, "  sql %s\n", normalizeSQL(obj[2]))
		}
		for _, p := range parts {
			rows, err := q(p.query, obj[1])
			if err != nil {
				return "", fmt.Errorf("describe %s: %w", obj[1], err)
			}
			for _, r := range rows {
				fmt.Fprintf(&b, p.format, r)
			}
		}
	}
	return b.String(), nil
}

var (
	sqlComment = regexp.MustCompile(`--[^\n]*`)
	sqlBlanks  = regexp.MustCompile(`\s+`)
)

// normalizeSQL drops comments and folds blanks, so that a trigger's text
// compares the same from schema.sql and from a migration.
func normalizeSQL(s string) string {
	return strings.TrimSpace(sqlBlanks.ReplaceAllString(sqlComment.ReplaceAllString(s, " "), " "))
}

// expectedSchema describes the schema a file of this schema version must
// have: migrations 1 to version applied to an empty database. The
// current version's, which every check of a file of this build's asks
// for (each backup, each snapshot), is drawn once: it depends only on the
// migrations compiled in.
func expectedSchema(ctx context.Context, version int) (string, error) {
	if version == SchemaVersion() {
		return currentSchema()
	}
	return drawSchema(ctx, version)
}

// currentSchema is expectedSchema of SchemaVersion, drawn on first use.
var currentSchema = sync.OnceValues(func() (string, error) { return drawSchema(context.Background(), SchemaVersion()) })

// drawSchema applies migrations 1 to version to an empty database and
// describes the result.
func drawSchema(ctx context.Context, version int) (string, error) {
	all, err := migrations()
	if err != nil {
		return "", err
	}
	if version < 1 || version > len(all) {
		return "", fmt.Errorf("%w: schema %d, this build knows 1 to %d", ErrSchemaTooNew, version, len(all))
	}
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return "", err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for i, m := range all[:version] {
		if _, err := db.ExecContext(ctx, m); err != nil {
			return "", fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	return describeSchema(ctx, db)
}

// schemaDiff lists what one description has that the other lacks: the
// object lines first ("extra trigger x", "missing table y"), then a
// changed object by name.
func schemaDiff(want, got string) []string {
	objects := func(s string) map[string]string {
		out := map[string]string{}
		var name string
		for _, l := range strings.Split(s, "\n") {
			if l == "" {
				continue
			}
			if !strings.HasPrefix(l, "  ") {
				name = l
				out[name] = ""
				continue
			}
			out[name] += l + "\n"
		}
		return out
	}
	w, g := objects(want), objects(got)
	var diff []string
	for name, body := range g {
		wb, ok := w[name]
		switch {
		case !ok:
			diff = append(diff, "extra "+name)
		case wb != body:
			diff = append(diff, "changed "+name)
		}
	}
	for name := range w {
		if _, ok := g[name]; !ok {
			diff = append(diff, "missing "+name)
		}
	}
	sort.Strings(diff)
	return diff
}
