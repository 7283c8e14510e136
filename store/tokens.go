package store

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Token prefixes. A token names its domain so that a request can be routed
// to the one file that can check it, without an index of all domains.
const (
	accessPrefix  = "fca_"
	unitPrefix    = "fcu_"
	publicPrefix  = "fcp_" // an order's public token (payment portal)
	linkPrefix    = "fcl_" // a portal sign-in link's secret
	sessionPrefix = "fcs_" // a portal session's cookie
	webhookPrefix = "fcw_" // the secret path part of a unit's PSP webhook
)

// TokenDomain returns the domain a unit, access or public token names, or false
// when the token is not of fincom's form.
func TokenDomain(token string) (string, bool) {
	var rest string
	switch {
	case strings.HasPrefix(token, accessPrefix):
		rest = token[len(accessPrefix):]
	case strings.HasPrefix(token, unitPrefix):
		rest = token[len(unitPrefix):]
	case strings.HasPrefix(token, publicPrefix):
		rest = token[len(publicPrefix):]
	case strings.HasPrefix(token, linkPrefix):
		rest = token[len(linkPrefix):]
	case strings.HasPrefix(token, sessionPrefix):
		rest = token[len(sessionPrefix):]
	case strings.HasPrefix(token, webhookPrefix):
		rest = token[len(webhookPrefix):]
	default:
		return "", false
	}
	i := strings.LastIndexByte(rest, '_')
	if i <= 0 || !ValidDomainName(rest[:i]) {
		return "", false
	}
	return rest[:i], true
}

// PublicTokenDomain returns the domain an order's public token (the
// payment portal's) names, or false when it is not one.
func PublicTokenDomain(token string) (string, bool) {
	if !strings.HasPrefix(token, publicPrefix) {
		return "", false
	}
	return TokenDomain(token)
}

// AccessToken describes a domain access token without its secret.
type AccessToken struct {
	ID        int64      `json:"id"`
	Hint      string     `json:"hint"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at"`
}

// CreateAccessToken makes a new access token. The clear value is returned
// once; the file keeps only its hash.
func (db *DB) CreateAccessToken(ctx context.Context) (string, error) {
	token := accessPrefix + db.Name + "_" + db.secret(32)
	hint := token[:len(accessPrefix)+len(db.Name)+1+6] + "…"
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO access_tokens (hash, hint, created_at) VALUES (?, ?, ?)`,
			hashToken(token), hint, timestamp(now))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("create access token: %w", err)
	}
	return token, nil
}

// AccessTokens lists the domain's access tokens.
func (db *DB) AccessTokens(ctx context.Context) ([]AccessToken, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, hint, created_at, revoked_at FROM access_tokens ORDER BY id`)
	if err != nil {
		return nil, wrap("access tokens", err)
	}
	defer rows.Close()
	var out []AccessToken
	for rows.Next() {
		var t AccessToken
		var created string
		var revoked sql.NullString
		if err := rows.Scan(&t.ID, &t.Hint, &created, &revoked); err != nil {
			return nil, wrap("access tokens", err)
		}
		t.CreatedAt, _ = time.Parse(time.RFC3339, created)
		if revoked.Valid {
			r, _ := time.Parse(time.RFC3339, revoked.String)
			t.RevokedAt = &r
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// RevokeAccessToken revokes a token given in clear or by its id.
func (db *DB) RevokeAccessToken(ctx context.Context, tokenOrID string) error {
	return wrap("revoke access token", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		return changed(tx.ExecContext(ctx, `
			UPDATE access_tokens SET revoked_at = ?
			WHERE revoked_at IS NULL AND (hash = ? OR CAST(id AS TEXT) = ?)`,
			timestamp(now), hashToken(tokenOrID), tokenOrID))
	}))
}

// Authenticate checks an access token against the domain and resolves the
// unit token. It returns ErrUnauthorized for an unknown or revoked access
// token and ErrUnitNotFound for a unit token that is not of this domain.
// actor names the token in the audit log, as TokenActor does.
func (db *DB) Authenticate(ctx context.Context, accessToken, unitToken string) (u Unit, actor string, err error) {
	stmt, err := db.authStmt()
	if err != nil {
		return Unit{}, "", wrap("authenticate", err)
	}
	// One statement, prepared once per connection: every private request
	// runs it (BenchmarkGetContacts).
	want := hashToken(accessToken)
	var got []byte
	var tokenID int64
	var hint string
	var id sql.NullInt64
	var token, name sql.NullString
	var cnpj, ibge, im sql.NullString
	var created Stamp
	err = stmt.QueryRowContext(ctx, unitToken, want).Scan(&got, &tokenID, &hint, &id, &token, &name, &cnpj, &ibge, &im, &created)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && subtle.ConstantTimeCompare(got, want) != 1) {
		return Unit{}, "", ErrUnauthorized
	}
	if err != nil {
		return Unit{}, "", wrap("authenticate", err)
	}
	if !id.Valid {
		return Unit{}, "", ErrUnitNotFound
	}
	return Unit{ID: id.Int64, Token: token.String, Name: name.String, CNPJ: cnpj.String, CityIBGE: ibge.String, IM: im.String, CreatedAt: created},
		tokenActor(tokenID, hint), nil
}

// UnitByToken resolves a unit token alone (for token_tec callers).
func (db *DB) UnitByToken(ctx context.Context, unitToken string) (Unit, error) {
	var u Unit
	err := db.read(ctx, func(tx *sql.Tx) error {
		var err error
		u, err = unitByToken(ctx, tx, unitToken)
		return err
	})
	return u, wrap("unit by token", err)
}

// CheckAccessToken reports ErrUnauthorized unless token is a live access
// token of the domain.
func (db *DB) CheckAccessToken(ctx context.Context, token string) error {
	want := hashToken(token)
	var got []byte
	err := db.r.QueryRowContext(ctx, `SELECT hash FROM access_tokens WHERE hash = ? AND revoked_at IS NULL`, want).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && subtle.ConstantTimeCompare(got, want) != 1) {
		return ErrUnauthorized
	}
	return wrap("check access token", err)
}
