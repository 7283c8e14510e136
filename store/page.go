package store

import (
	"context"
	"database/sql"
	"strings"
)

// Page bounds a listing that grows with time (the audit log, statement
// lines, deliveries): its Number-th run of Size rows, counting from 1.
// The zero Page reads every row (exports, the CLI).
type Page struct {
	Number, Size int
}

// limitOffset are p's LIMIT and OFFSET (LIMIT -1: every row).
func (p Page) limitOffset() (int, int) {
	if p.Size <= 0 {
		return -1, 0
	}
	return p.Size, (max(p.Number, 1) - 1) * p.Size
}

// listing is one listing's query in parts: its SELECT (columns, tables
// and joins), its conditions with their arguments, and its order.
type listing struct {
	what, query string
	where       []string
	args        []any
	order       string
}

// pageOf reads one page of the listing and how many rows it holds in
// all, in one read transaction (the count and the rows agree); each row
// is read by scan.
func pageOf[T any](ctx context.Context, db *DB, l listing, pg Page, scan func(*sql.Rows) (T, error)) ([]T, int, error) {
	var out []T
	var total int
	err := db.read(ctx, func(tx *sql.Tx) error {
		var err error
		out, total, err = pageIn(ctx, tx, l, pg, scan)
		return err
	})
	if err != nil {
		return nil, 0, wrap(l.what, err)
	}
	return out, total, nil
}

// pageIn is pageOf within a read transaction of the caller's, which reads
// more beside the page (a contract's files and orders).
func pageIn[T any](ctx context.Context, tx *sql.Tx, l listing, pg Page, scan func(*sql.Rows) (T, error)) ([]T, int, error) {
	cond := ""
	if len(l.where) > 0 {
		cond = " WHERE " + strings.Join(l.where, " AND ")
	}
	out := []T{}
	total := 0
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (`+l.query+cond+`)`, l.args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	limit, offset := pg.limitOffset()
	if offset > 0 && offset >= total {
		return out, total, nil
	}
	rows, err := tx.QueryContext(ctx, l.query+cond+` ORDER BY `+l.order+` LIMIT ? OFFSET ?`, append(append([]any{}, l.args...), limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, total, rows.Err()
}
