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

// AccessToken describes a domain access token without its secret: its
// label and the user who made it ("" for the operator's, made with the
// CLI).
type AccessToken struct {
	ID        int64      `json:"id"`
	Hint      string     `json:"hint"`
	Label     string     `json:"label,omitempty"`
	User      string     `json:"user,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at"`
}

// CreateAccessToken makes a new access token of the operator's, which may
// do everything. The clear value is returned once; the file keeps only
// its hash.
func (db *DB) CreateAccessToken(ctx context.Context) (string, error) {
	return db.CreateUserToken(ctx, 0, "")
}

// CreateUserToken makes a new access token that carries a user's roles
// (userID 0: the operator's), with a label to tell it by. The clear value
// is returned once; the file keeps only its hash.
func (db *DB) CreateUserToken(ctx context.Context, userID int64, label string) (string, error) {
	token := accessPrefix + db.Name + "_" + db.secret(32)
	hint := token[:len(accessPrefix)+len(db.Name)+1+6] + "…"
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO access_tokens (hash, hint, created_at, user_id, label) VALUES (?, ?, ?, ?, ?)`,
			hashToken(token), hint, timestamp(now), sql.NullInt64{Int64: userID, Valid: userID != 0}, nullString(label))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("create access token: %w", err)
	}
	return token, nil
}

// AccessTokens lists the domain's access tokens, or (userID not 0) those
// one user made.
func (db *DB) AccessTokens(ctx context.Context, userID int64) ([]AccessToken, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT t.id, t.hint, coalesce(t.label, ''), coalesce(u.name || ' <' || u.email || '>', ''), t.created_at, t.revoked_at
		FROM access_tokens t LEFT JOIN users u ON u.id = t.user_id
		WHERE ? = 0 OR t.user_id = ? ORDER BY t.id`, userID, userID)
	if err != nil {
		return nil, wrap("access tokens", err)
	}
	defer rows.Close()
	var out []AccessToken
	for rows.Next() {
		var t AccessToken
		var created string
		var revoked sql.NullString
		if err := rows.Scan(&t.ID, &t.Hint, &t.Label, &t.User, &created, &revoked); err != nil {
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
	return db.RevokeUserToken(ctx, 0, tokenOrID)
}

// RevokeUserToken revokes a token given in clear or by its id, of those
// one user made (userID 0: any of the domain's).
func (db *DB) RevokeUserToken(ctx context.Context, userID int64, tokenOrID string) error {
	return wrap("revoke access token", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		return changed(tx.ExecContext(ctx, `
			UPDATE access_tokens SET revoked_at = ?
			WHERE revoked_at IS NULL AND (hash = ? OR CAST(id AS TEXT) = ?) AND (? = 0 OR user_id = ?)`,
			timestamp(now), hashToken(tokenOrID), tokenOrID, userID, userID))
	}))
}

// Access is what an access token may reach: the unit, the token's role
// on it, and the token's name in the audit log (as TokenActor's).
type Access struct {
	Unit   Unit
	Role   Role
	UserID int64 // the user who made the token; 0: the operator's
	Actor  string
}

// Authenticate checks an access token against the domain and resolves the
// unit token. It returns ErrUnauthorized for an unknown or revoked access
// token (or one whose user was deactivated) and ErrUnitNotFound for a
// unit token that is not of this domain or on which the token's user has
// no role.
func (db *DB) Authenticate(ctx context.Context, accessToken, unitToken string) (Access, error) {
	// Kept in memory while nothing it was read from changes (auth_cache.go).
	want := hashToken(accessToken)
	key := authKey{string(want), unitToken}
	if err := db.access.fresh(ctx, db.r); err != nil {
		return Access{}, wrap("authenticate", err)
	}
	gen := db.access.gen.Load()
	if a, ok := db.access.get(key, gen); ok {
		return a, nil
	}
	// One statement, prepared once per connection (BenchmarkGetContacts).
	stmt, err := db.authStmt()
	if err != nil {
		return Access{}, wrap("authenticate", err)
	}
	var got []byte
	var tokenID, userID int64
	var hint string
	var id sql.NullInt64
	var token, name, role sql.NullString
	var cnpj, ibge, im sql.NullString
	var created Stamp
	err = stmt.QueryRowContext(ctx, unitToken, want).Scan(&got, &tokenID, &hint, &userID, &id, &token, &name, &cnpj, &ibge, &im, &created, &role)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && subtle.ConstantTimeCompare(got, want) != 1) {
		return Access{}, ErrUnauthorized
	}
	if err != nil {
		return Access{}, wrap("authenticate", err)
	}
	if !id.Valid || !role.Valid {
		return Access{}, ErrUnitNotFound
	}
	a := Access{Unit: Unit{ID: id.Int64, Token: token.String, Name: name.String, CNPJ: cnpj.String, CityIBGE: ibge.String, IM: im.String, CreatedAt: created},
		Role: Role(role.String), UserID: userID, Actor: tokenActor(tokenID, hint)}
	db.access.put(key, gen, a)
	return a, nil
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
// token of the domain; it returns the id of the user who made it (0: the
// operator's).
func (db *DB) CheckAccessToken(ctx context.Context, token string) (int64, error) {
	want := hashToken(token)
	var got []byte
	var userID int64
	err := db.r.QueryRowContext(ctx, `SELECT t.hash, coalesce(t.user_id, 0) FROM access_tokens t WHERE t.hash = ? AND t.revoked_at IS NULL
		AND (t.user_id IS NULL OR EXISTS (SELECT 1 FROM users us WHERE us.id = t.user_id AND us.active = 1))`, want).Scan(&got, &userID)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && subtle.ConstantTimeCompare(got, want) != 1) {
		return 0, ErrUnauthorized
	}
	return userID, wrap("check access token", err)
}
