package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Unit is an organizational unit of a domain. Every record belongs to one.
type Unit struct {
	ID        int64  `json:"-"`
	Token     string `json:"unit_token"`
	Name      string `json:"name"`
	CNPJ      string `json:"cnpj,omitempty"`
	CityIBGE  string `json:"city_ibge,omitempty"`
	IM        string `json:"im,omitempty"`
	CreatedAt Stamp  `json:"created_at"`
}

// UnitInput is what creating a unit takes; validation is the caller's.
type UnitInput struct {
	Name, CNPJ, CityIBGE, IM string
}

// CreateUnit creates a unit with its unit token and default categories.
func (db *DB) CreateUnit(ctx context.Context, in UnitInput) (Unit, error) {
	u := Unit{Token: unitPrefix + db.Name + "_" + db.secret(16), Name: in.Name, CNPJ: in.CNPJ, CityIBGE: in.CityIBGE, IM: in.IM}
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		u.CreatedAt = stampOf(now)
		res, err := tx.ExecContext(ctx, `
			INSERT INTO units (token, name, cnpj, city_ibge, im, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			u.Token, u.Name, nullString(u.CNPJ), nullString(u.CityIBGE), nullString(u.IM), timestamp(now))
		if err != nil {
			return err
		}
		if u.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		return seedUnitCategories(ctx, tx, u.ID, now, db.id)
	})
	if err != nil {
		return Unit{}, fmt.Errorf("create unit: %w", err)
	}
	return u, nil
}

// Units lists the domain's units.
func (db *DB) Units(ctx context.Context) ([]Unit, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, token, name, cnpj, city_ibge, im, created_at FROM units ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Unit
	for rows.Next() {
		u, err := scanUnit(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

func unitByToken(ctx context.Context, tx *sql.Tx, token string) (Unit, error) {
	u, err := scanUnit(tx.QueryRowContext(ctx, `SELECT id, token, name, cnpj, city_ibge, im, created_at FROM units WHERE token = ?`, token))
	if err == sql.ErrNoRows {
		return Unit{}, ErrUnitNotFound
	}
	return u, err
}

type scanner interface{ Scan(...any) error }

func scanUnit(s scanner) (Unit, error) {
	var u Unit
	var cnpj, ibge, im sql.NullString
	err := s.Scan(&u.ID, &u.Token, &u.Name, &cnpj, &ibge, &im, &u.CreatedAt)
	u.CNPJ, u.CityIBGE, u.IM = cnpj.String, ibge.String, im.String
	return u, err
}
