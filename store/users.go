package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// User is a person of the domain who records entries (the spec's
// `user_token` filters entries by the user who inserted them).
type User struct {
	ID     int64  `json:"-"`
	Token  string `json:"token" format:"uuid" doc:"The user's token."`
	Name   string `json:"name" doc:"The user's name."`
	Email  string `json:"email" format:"email" doc:"The user's e-mail address."`
	Active bool   `json:"active" doc:"false once deactivated."`
}

// CreateUser adds a user who owns every unit (the domain's first people,
// and tests). The e-mail is unique within the domain.
func (db *DB) CreateUser(ctx context.Context, name, email string) (User, error) {
	return db.CreateUserAs(ctx, name, email, RoleOwner, 0)
}

// CreateUserAs adds a user with a role on one unit (unitID) or on every
// unit (0), in one transaction. The e-mail is unique within the domain.
func (db *DB) CreateUserAs(ctx context.Context, name, email string, role Role, unitID int64) (User, error) {
	u := User{Token: db.newToken(ctx), Name: name, Email: email, Active: true}
	if _, ok := ParseRole(string(role)); !ok {
		return User{}, fmt.Errorf("create user: unknown role %q", role)
	}
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO users (token, name, email, created_at, sort_key) VALUES (?, ?, ?, ?, ?)`,
			u.Token, name, email, timestamp(now), sortKey(name))
		if isUnique(err) {
			return ErrDuplicate
		}
		if err != nil {
			return err
		}
		if u.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO user_roles (user_id, unit_id, role) VALUES (?, ?, ?)`,
			u.ID, sql.NullInt64{Int64: unitID, Valid: unitID != 0}, role)
		return err
	})
	if err != nil {
		return User{}, fmt.Errorf("create user: %w", err)
	}
	return u, nil
}

// Users lists the domain's active users by name.
func (db *DB) Users(ctx context.Context) ([]User, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, token, name, email, active FROM users WHERE active = 1 ORDER BY sort_key, id`)
	if err != nil {
		return nil, wrap("users", err)
	}
	defer rows.Close()
	out := []User{}
	for rows.Next() {
		var u User
		if err := rows.Scan(&u.ID, &u.Token, &u.Name, &u.Email, &u.Active); err != nil {
			return nil, wrap("users", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}
