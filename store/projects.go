package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Project is a project as /get_projects returns it.
type Project struct {
	Token       string `json:"token" format:"uuid" doc:"The project's token."`
	Name        string `json:"name" doc:"Its name."`
	Observation Text   `json:"observation" doc:"Free notes; null when none."`
	Budget      Number `json:"budget" doc:"Its budget, not negative."`
}

// ProjectFields are a project's writable fields.
type ProjectFields struct {
	Name        string
	Observation string
	Budget      Number
}

// InsertProject creates an active project.
func (db *DB) InsertProject(ctx context.Context, unitID int64, f ProjectFields) (string, error) {
	token := db.newToken(ctx)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO projects (token, unit_id, name, observation, budget, created_at, updated_at, sort_key)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			token, unitID, f.Name, nullString(f.Observation), f.Budget, timestamp(now), timestamp(now), sortKey(f.Name))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("insert project: %w", err)
	}
	return token, nil
}

// UpdateProject reads, changes (apply) and writes a project of the unit in
// one transaction.
func (db *DB) UpdateProject(ctx context.Context, unitID int64, token string, apply func(*ProjectFields) error) error {
	return wrap("update project", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var f ProjectFields
		var obs sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT name, observation, budget FROM projects WHERE unit_id = ? AND token = ?`,
			unitID, token).Scan(&f.Name, &obs, &f.Budget)
		if err != nil {
			return notFound(err)
		}
		f.Observation = obs.String
		if err := apply(&f); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE projects SET name = ?, observation = ?, budget = ?, updated_at = ?, sort_key = ?
			WHERE unit_id = ? AND token = ?`,
			f.Name, nullString(f.Observation), f.Budget, timestamp(now), sortKey(f.Name), unitID, token)
		return err
	}))
}

// SetProjectActive enables or disables a project of the unit.
func (db *DB) SetProjectActive(ctx context.Context, unitID int64, token string, active bool) error {
	return db.setActive(ctx, "projects", unitID, token, active)
}

// Projects lists the unit's active projects by name.
func (db *DB) Projects(ctx context.Context, unitID int64) ([]Project, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT token, name, observation, budget FROM projects
		WHERE unit_id = ? AND active = 1 ORDER BY sort_key, id`, unitID)
	if err != nil {
		return nil, wrap("projects", err)
	}
	defer rows.Close()
	out := []Project{}
	for rows.Next() {
		var p Project
		if err := rows.Scan(&p.Token, &p.Name, &p.Observation, &p.Budget); err != nil {
			return nil, wrap("projects", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
