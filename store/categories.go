package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Category is a category as /get_categories returns it.
type Category struct {
	ModuleType string `json:"module_type" enum:"in,out" doc:"in for an income category, out for an expense one."`
	Category   string `json:"category" doc:"The category's name."`
	Note       Text   `json:"note" doc:"Free notes; null when none."`
	Token      string `json:"token" format:"uuid" doc:"The category's token."`

	group int64
}

// Group is the category's DRE group (category_groups.code; 0 none).
func (c Category) Group() int64 { return c.group }

// Sales revenue groups of the DRE: goods sold and services rendered.
const (
	GroupGoods    = 101
	GroupServices = 102
)

// FirstOfGroup answers the token of the unit's first active category of
// a DRE group, in its listing's order ("" when it has none).
func (db *DB) FirstOfGroup(ctx context.Context, unitID, group int64) (string, error) {
	var token string
	err := db.r.QueryRowContext(ctx, `SELECT token FROM categories WHERE unit_id = ? AND group_code = ? AND active = 1 ORDER BY sort_key, id LIMIT 1`,
		unitID, group).Scan(&token)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return token, wrap("first category of group", err)
}

// CategoryGroup is a DRE line as /list_group_categories returns it.
type CategoryGroup struct {
	Name        string `json:"name" doc:"The group's name (a line of the DRE)."`
	Description string `json:"description" doc:"What the group holds."`
	Code        int64  `json:"code" doc:"The group's code, a category's category_master."`
}

// CategoryFields are a category's writable fields. GroupCode 0 means no
// group.
type CategoryFields struct {
	ModuleType string
	Name       string
	Note       string
	GroupCode  int64
}

// checkGroup makes sure a category's group exists, is active and is of the
// category's module type.
func checkGroup(ctx context.Context, tx *sql.Tx, f CategoryFields) error {
	if f.GroupCode == 0 {
		return nil
	}
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM category_groups WHERE code = ? AND module_type = ? AND active = 1`,
		f.GroupCode, f.ModuleType).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrInvalidReference
	}
	return err
}

func groupArg(code int64) sql.NullInt64 { return sql.NullInt64{Int64: code, Valid: code != 0} }

// InsertCategory creates an active category. A name already used for the
// module type in the unit is ErrDuplicate; an unknown group is
// ErrInvalidReference.
func (db *DB) InsertCategory(ctx context.Context, unitID int64, f CategoryFields) (string, error) {
	token := db.newToken(ctx)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		if err := checkGroup(ctx, tx, f); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO categories (token, unit_id, module_type, name, note, group_code, created_at, updated_at, sort_key)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			token, unitID, f.ModuleType, f.Name, nullString(f.Note), groupArg(f.GroupCode), timestamp(now), timestamp(now), sortKey(f.Name))
		if isUnique(err) {
			return ErrDuplicate
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("insert category: %w", err)
	}
	return token, nil
}

// UpdateCategory reads, changes (apply) and writes a category of the unit in
// one transaction.
func (db *DB) UpdateCategory(ctx context.Context, unitID int64, token string, apply func(*CategoryFields) error) error {
	return wrap("update category", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var f CategoryFields
		var note sql.NullString
		var group sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT module_type, name, note, group_code FROM categories WHERE unit_id = ? AND token = ?`,
			unitID, token).Scan(&f.ModuleType, &f.Name, &note, &group)
		if err != nil {
			return notFound(err)
		}
		f.Note, f.GroupCode = note.String, group.Int64
		if err := apply(&f); err != nil {
			return err
		}
		if err := checkGroup(ctx, tx, f); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `
			UPDATE categories SET module_type = ?, name = ?, note = ?, group_code = ?, updated_at = ?, sort_key = ?
			WHERE unit_id = ? AND token = ?`,
			f.ModuleType, f.Name, nullString(f.Note), groupArg(f.GroupCode), timestamp(now), sortKey(f.Name), unitID, token)
		if isUnique(err) {
			return ErrDuplicate
		}
		return err
	}))
}

// SetCategoryActive enables or disables a category of the unit.
func (db *DB) SetCategoryActive(ctx context.Context, unitID int64, token string, active bool) error {
	return db.setActive(ctx, "categories", unitID, token, active)
}

// Categories lists the unit's active categories of a module type by name;
// search matches the name or the note.
func (db *DB) Categories(ctx context.Context, unitID int64, moduleType, search string) ([]Category, error) {
	where, args := []string{"unit_id = ?", "module_type = ?", "active = 1"}, []any{unitID, moduleType}
	if search != "" {
		where = append(where, `(instr(fincom_fold(name), ?) > 0 OR instr(fincom_fold(note), ?) > 0)`)
		args = append(args, fold(search), fold(search))
	}
	rows, err := db.r.QueryContext(ctx, `SELECT module_type, name, note, token, COALESCE(group_code, 0) FROM categories
		WHERE `+strings.Join(where, " AND ")+` ORDER BY sort_key, id`, args...)
	if err != nil {
		return nil, wrap("categories", err)
	}
	defer rows.Close()
	out := []Category{}
	for rows.Next() {
		var c Category
		if err := rows.Scan(&c.ModuleType, &c.Category, &c.Note, &c.Token, &c.group); err != nil {
			return nil, wrap("categories", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// CategoryGroups lists the active groups of a module type by name; search
// matches the name or the description.
func (db *DB) CategoryGroups(ctx context.Context, moduleType, search string) ([]CategoryGroup, error) {
	where, args := []string{"module_type = ?", "active = 1"}, []any{moduleType}
	if search != "" {
		where = append(where, `(instr(fincom_fold(name), ?) > 0 OR instr(fincom_fold(description), ?) > 0)`)
		args = append(args, fold(search), fold(search))
	}
	rows, err := db.r.QueryContext(ctx, `SELECT name, description, code FROM category_groups
		WHERE `+strings.Join(where, " AND ")+` ORDER BY sort_key, code`, args...)
	if err != nil {
		return nil, wrap("category groups", err)
	}
	defer rows.Close()
	out := []CategoryGroup{}
	for rows.Next() {
		var g CategoryGroup
		if err := rows.Scan(&g.Name, &g.Description, &g.Code); err != nil {
			return nil, wrap("category groups", err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}
