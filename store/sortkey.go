package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// collators are Portuguese collators, one per concurrent user: a
// collate.Collator is not safe for concurrent use.
var collators = sync.Pool{New: func() any { return collate.New(language.BrazilianPortuguese) }}

// sortKey is a name's Portuguese collation key: compared as bytes, keys
// order names as a Brazilian reads them (letters first, then accents, then
// case: "Banco Crédit" before "Banco Crefisa", "abacaxi" before
// "Banana"). Every name a listing orders by is stored with its key
// (TestNamesInPortugueseOrder).
func sortKey(name string) []byte {
	c := collators.Get().(*collate.Collator)
	defer collators.Put(c)
	var buf collate.Buffer
	return append([]byte(nil), c.KeyFromString(&buf, name)...)
}

// sortedNames are the tables and name columns that carry a sort key.
var sortedNames = []struct{ table, column string }{
	{"banks", "name"}, {"categories", "name"}, {"category_groups", "name"}, {"contacts", "display_name"},
	{"products", "description"}, {"projects", "name"}, {"users", "name"}, {"contract_templates", "name"},
}

// fillSortKeys writes the sort key of every row that has none: migration
// 16's Go step, run in its transaction.
func fillSortKeys(ctx context.Context, tx *sql.Tx) error {
	for _, t := range sortedNames {
		rows, err := tx.QueryContext(ctx, `SELECT rowid, `+t.column+` FROM `+t.table+` WHERE sort_key IS NULL`)
		if err != nil {
			return fmt.Errorf("sort keys of %s: %w", t.table, err)
		}
		type row struct {
			id   int64
			name string
		}
		var todo []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.name); err != nil {
				rows.Close()
				return err
			}
			todo = append(todo, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, r := range todo {
			if _, err := tx.ExecContext(ctx, `UPDATE `+t.table+` SET sort_key = ? WHERE rowid = ?`, sortKey(r.name), r.id); err != nil {
				return err
			}
		}
	}
	return nil
}
