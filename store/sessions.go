package store

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"time"
)

// The portal's sign-in. A user asks for a link by e-mail; the link's secret
// is good once, for LinkLifetime; following it starts a session, whose
// secret is the cookie and whose CSRF token every form carries. The file
// keeps hashes only, like access tokens.
const (
	LinkLifetime    = 15 * time.Minute
	SessionLifetime = 12 * time.Hour
)

// ErrLinkInvalid is a sign-in link that is unknown, used or expired.
var ErrLinkInvalid = errors.New("sign-in link invalid, used or expired")

// ErrTooManyLinks: the user has maxLiveLinks unused links that have not
// expired; no other is made (nor e-mailed) until one expires or is used.
var ErrTooManyLinks = errors.New("too many sign-in links requested; use one or wait 15 minutes")

// maxLiveLinks bounds the sign-in e-mails anyone can make fincom send a
// user by knowing the address.
const maxLiveLinks = 3

// Session is a signed-in portal user.
type Session struct {
	User      User
	UserID    int64
	CSRF      string
	ExpiresAt time.Time
}

// LoginLinkMail is what RequestLoginLink queues: link is the secret to put
// in the address.
type LoginLinkMail func(user User, link string) *Notice

// sqlFirstUnit is the first unit (by id) the user of the row aliased u
// has a role on, NULL when none: its grant on the unit, else its
// every-unit one ('none' holds it back from the unit). A user with no
// unit has nothing to sign in to.
const sqlFirstUnit = `(SELECT min(un.id) FROM units un WHERE coalesce(
	(SELECT r.role FROM user_roles r WHERE r.user_id = u.id AND r.unit_id = un.id),
	(SELECT r.role FROM user_roles r WHERE r.user_id = u.id AND r.unit_id IS NULL), 'none') <> 'none')`

// RequestLoginLink makes a sign-in link for the active user with this
// e-mail and queues the message mail makes of it, under the first unit
// the user has a role on (whose outbox lists it), in one transaction. It
// returns the link's secret, or ErrNotFound when no active user has the
// address or the user has a role on no unit (the portal answers the same
// either way).
func (db *DB) RequestLoginLink(ctx context.Context, email string, mail LoginLinkMail) (string, error) {
	secret := linkPrefix + db.Name + "_" + NewSecret(32)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var u User
		var id int64
		var unitID sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT u.id, u.token, u.name, u.email, `+sqlFirstUnit+`
			FROM users u WHERE u.email = ? AND u.active = 1`, email).Scan(&id, &u.Token, &u.Name, &u.Email, &unitID)
		if err != nil {
			return notFound(err)
		}
		u.Active = true
		if !unitID.Valid {
			return ErrNotFound
		}
		// Spent and expired links and ended sessions go after a day.
		day := timestamp(now.Add(-24 * time.Hour))
		if _, err := tx.ExecContext(ctx, `DELETE FROM portal_links WHERE expires_at < ?`, day); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM portal_sessions WHERE expires_at < ? OR ended_at < ?`, day, day); err != nil {
			return err
		}
		var live int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM portal_links WHERE user_id = ? AND used_at IS NULL AND expires_at > ?`,
			id, timestamp(now)).Scan(&live); err != nil {
			return err
		}
		if live >= maxLiveLinks {
			return ErrTooManyLinks
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO portal_links (hash, user_id, expires_at) VALUES (?, ?, ?)`,
			hashToken(secret), id, timestamp(now.Add(LinkLifetime))); err != nil {
			return err
		}
		if mail == nil {
			return nil
		}
		return queueNotice(ctx, tx, unitID.Int64, 0, mail(u, secret), now, db.id)
	})
	if err != nil {
		return "", wrap("request login link", err)
	}
	return secret, nil
}

// StartSession spends a sign-in link and starts a session: it returns the
// session's secret (the cookie) and the session.
func (db *DB) StartSession(ctx context.Context, link string) (string, Session, error) {
	secret := sessionPrefix + db.Name + "_" + NewSecret(32)
	s := Session{CSRF: NewSecret(32)}
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var expires string
		err := tx.QueryRowContext(ctx, `UPDATE portal_links SET used_at = ? WHERE hash = ? AND used_at IS NULL
			RETURNING user_id, expires_at`, timestamp(now), hashToken(link)).Scan(&s.UserID, &expires)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrLinkInvalid
		}
		if err != nil {
			return err
		}
		if expires <= timestamp(now) {
			return ErrLinkInvalid
		}
		if err := tx.QueryRowContext(ctx, `SELECT token, name, email, active FROM users u WHERE id = ? AND active = 1
			AND `+sqlFirstUnit+` IS NOT NULL`, s.UserID).
			Scan(&s.User.Token, &s.User.Name, &s.User.Email, &s.User.Active); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return ErrLinkInvalid
			}
			return err
		}
		setAuditActor(ctx, PortalActor(s.User))
		s.ExpiresAt = now.Add(SessionLifetime)
		_, err = tx.ExecContext(ctx, `INSERT INTO portal_sessions (hash, user_id, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
			hashToken(secret), s.UserID, s.CSRF, timestamp(now), timestamp(s.ExpiresAt))
		return err
	})
	if err != nil {
		return "", Session{}, wrap("start session", err)
	}
	return secret, s, nil
}

// SessionBySecret answers the live session a cookie names, or
// ErrUnauthorized: unknown, ended, expired, its user disabled or left
// with a role on no unit.
func (db *DB) SessionBySecret(ctx context.Context, secret string) (Session, error) {
	var s Session
	var expires string
	err := db.r.QueryRowContext(ctx, `SELECT s.user_id, s.csrf, s.expires_at, u.token, u.name, u.email
		FROM portal_sessions s JOIN users u ON u.id = s.user_id
		WHERE s.hash = ? AND s.ended_at IS NULL AND u.active = 1 AND `+sqlFirstUnit+` IS NOT NULL`, hashToken(secret)).
		Scan(&s.UserID, &s.CSRF, &expires, &s.User.Token, &s.User.Name, &s.User.Email)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return Session{}, ErrUnauthorized
		}
		return Session{}, wrap("session by secret", err)
	}
	s.User.Active = true
	s.ExpiresAt, _ = time.Parse(time.RFC3339Nano, expires)
	if expires <= timestamp(db.now()) {
		return Session{}, ErrUnauthorized
	}
	return s, nil
}

// CheckCSRF reports whether a form's token is the session's.
func (s Session) CheckCSRF(token string) bool {
	return token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.CSRF)) == 1
}

// EndSession ends the session a cookie names (sign-out).
func (db *DB) EndSession(ctx context.Context, secret string) error {
	return wrap("end session", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `UPDATE portal_sessions SET ended_at = ? WHERE hash = ? AND ended_at IS NULL`, timestamp(now), hashToken(secret))
		return err
	}))
}
