package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Role is what a user may do on a unit. The areas each role may change
// are server/access's rule; the store keeps who has which.
type Role string

const (
	RoleOwner      Role = "owner"      // everything, users and tokens included
	RoleFinance    Role = "finance"    // entries, charges, reconciliation, invoices
	RoleSales      Role = "sales"      // contacts, orders, charges
	RoleAccountant Role = "accountant" // reads and exports only
)

// roleNone holds a user back from one unit its every-unit role would
// give it.
const roleNone Role = "none"

// Roles are the roles, most powerful first.
var Roles = []Role{RoleOwner, RoleFinance, RoleSales, RoleAccountant}

// ParseRole reads a role's name; false when it names none.
func ParseRole(s string) (Role, bool) {
	for _, r := range Roles {
		if string(r) == s {
			return r, true
		}
	}
	return "", false
}

// Grant is a user's role on one unit, or on every unit (Unit zero); Role
// "" on a unit holds the user back from it.
type Grant struct {
	Unit Unit
	Role Role
}

// AllUnits reports whether the grant is for every unit of the domain.
func (g Grant) AllUnits() bool { return g.Unit.ID == 0 }

// Grants are a user's roles: a unit's own grant wins over the every-unit
// one.
type Grants []Grant

// On is the role the grants give on a unit, or "" when none.
func (gs Grants) On(unitID int64) Role {
	var all Role
	for _, g := range gs {
		switch {
		case g.Unit.ID == unitID && g.Role == roleNone:
			return ""
		case g.Unit.ID == unitID:
			return g.Role
		case g.AllUnits():
			all = g.Role
		}
	}
	return all
}

// OwnerOfAll reports whether the grants make their user the domain's
// owner: owner on every unit, with no unit held back.
func (gs Grants) OwnerOfAll() bool {
	owner := false
	for _, g := range gs {
		if g.AllUnits() {
			owner = g.Role == RoleOwner
		} else if g.Role != RoleOwner {
			return false
		}
	}
	return owner
}

// UserGrants lists a user's roles, the every-unit one first.
func (db *DB) UserGrants(ctx context.Context, userID int64) (Grants, error) {
	all, err := db.grants(ctx, userID)
	return all[userID], err
}

// DomainGrants lists every user's roles, by user id, in one query (the
// users page, `fincom user list`).
func (db *DB) DomainGrants(ctx context.Context) (map[int64]Grants, error) {
	return db.grants(ctx, 0)
}

// grants reads the roles of one user, or (userID 0) of all, by user id.
func (db *DB) grants(ctx context.Context, userID int64) (map[int64]Grants, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT r.user_id, r.role, u.id, u.token, u.name, u.cnpj, u.city_ibge, u.im, u.created_at
		FROM user_roles r LEFT JOIN units u ON u.id = r.unit_id
		WHERE ? = 0 OR r.user_id = ? ORDER BY r.user_id, r.unit_id IS NOT NULL, r.unit_id`, userID, userID)
	if err != nil {
		return nil, wrap("user grants", err)
	}
	defer rows.Close()
	out := map[int64]Grants{}
	for rows.Next() {
		var g Grant
		var user int64
		var id sql.NullInt64
		var token, name, cnpj, ibge, im sql.NullString
		var created Stamp
		var role string
		if err := rows.Scan(&user, &role, &id, &token, &name, &cnpj, &ibge, &im, &created); err != nil {
			return nil, wrap("user grants", err)
		}
		if g.Role = Role(role); g.Role == roleNone {
			g.Role = ""
		}
		if id.Valid {
			g.Unit = Unit{ID: id.Int64, Token: token.String, Name: name.String, CNPJ: cnpj.String, CityIBGE: ibge.String, IM: im.String,
				CreatedAt: created}
		}
		out[user] = append(out[user], g)
	}
	return out, rows.Err()
}

// UserByEmail finds an active user of the domain by e-mail.
func (db *DB) UserByEmail(ctx context.Context, email string) (User, error) {
	var u User
	err := db.r.QueryRowContext(ctx, `SELECT id, token, name, email, active FROM users WHERE email = ? AND active = 1`, email).
		Scan(&u.ID, &u.Token, &u.Name, &u.Email, &u.Active)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	return u, wrap("user by email", err)
}

// SetUserRole gives a user a role: on one unit (unitID), or on every unit
// (unitID 0), which replaces all the user's roles. Role "" holds the user
// back from the unit (or, for every unit, takes all its roles away). The
// change is audited under the context's actor, naming the user, the unit
// and the role before and after. A user left with a role on no unit is
// signed out at once: its sessions end and its unspent sign-in links are
// spent. A domain always keeps an owner of every unit: ErrLastOwner when
// the change would leave none.
func (db *DB) SetUserRole(ctx context.Context, userID, unitID int64, role Role) error {
	if role != "" {
		if _, ok := ParseRole(string(role)); !ok {
			return fmt.Errorf("set user role: unknown role %q", role)
		}
	}
	return wrap("set user role", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		unit := sql.NullInt64{Int64: unitID, Valid: unitID != 0}
		before, err := domainOwners(ctx, tx)
		if err != nil {
			return err
		}
		var email, unitToken string
		if err := tx.QueryRowContext(ctx, `SELECT email FROM users WHERE id = ?`, userID).Scan(&email); err != nil {
			return notFound(err)
		}
		where := "every unit"
		if unitID != 0 {
			if err := tx.QueryRowContext(ctx, `SELECT token FROM units WHERE id = ?`, unitID).Scan(&unitToken); err != nil {
				return notFound(err)
			}
			where = "unit " + unitToken
		}
		was, err := roleOn(ctx, tx, userID, unit)
		if err != nil {
			return err
		}
		if unitID == 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM user_roles WHERE user_id = ?`, userID); err != nil {
				return err
			}
		} else if _, err := tx.ExecContext(ctx, `DELETE FROM user_roles WHERE user_id = ? AND unit_id = ?`, userID, unitID); err != nil {
			return err
		}
		stored := role
		if role == "" && unitID != 0 {
			// Held back only where an every-unit role would reach.
			var all int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM user_roles WHERE user_id = ? AND unit_id IS NULL`, userID).Scan(&all); err != nil {
				return err
			}
			if all > 0 {
				stored = roleNone
			}
		}
		if stored != "" {
			if _, err := tx.ExecContext(ctx, `INSERT INTO user_roles (user_id, unit_id, role) VALUES (?, ?, ?)`, userID, unit, stored); err != nil {
				return err
			}
		}
		is, err := roleOn(ctx, tx, userID, unit)
		if err != nil {
			return err
		}
		setAuditRecord(ctx, "user "+email+" · "+where+" · role "+was+" → "+is)
		stamp := timestamp(now)
		if _, err := tx.ExecContext(ctx, `UPDATE portal_sessions SET ended_at = ? WHERE user_id = ? AND ended_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = portal_sessions.user_id AND `+sqlFirstUnit+` IS NOT NULL)`, stamp, userID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE portal_links SET used_at = ? WHERE user_id = ? AND used_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = portal_links.user_id AND `+sqlFirstUnit+` IS NOT NULL)`, stamp, userID); err != nil {
			return err
		}
		if after, err := domainOwners(ctx, tx); err != nil || after > 0 {
			return err
		}
		// Only a change that takes the last owner away is refused: a
		// domain the operator set up without one may get its first
		// finance user.
		if before > 0 {
			return ErrLastOwner
		}
		return nil
	}))
}

// roleOn is the role a user has on a unit (NULL: its every-unit role),
// "none" when it has none there.
func roleOn(ctx context.Context, tx *sql.Tx, userID int64, unit sql.NullInt64) (string, error) {
	var role string
	err := tx.QueryRowContext(ctx, `SELECT coalesce((SELECT role FROM user_roles WHERE user_id = ? AND unit_id = ?),
		(SELECT role FROM user_roles WHERE user_id = ? AND unit_id IS NULL), 'none')`, userID, unit, userID).Scan(&role)
	return role, err
}

// ErrLastOwner: a role change would leave the domain without an owner of
// every unit, and nobody could manage its users and tokens.
var ErrLastOwner = errors.New("the domain's last owner")

// domainOwners counts the active users who own every unit.
func domainOwners(ctx context.Context, tx *sql.Tx) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM user_roles r JOIN users u ON u.id = r.user_id AND u.active = 1
		WHERE r.unit_id IS NULL AND r.role = 'owner'
		AND NOT EXISTS (SELECT 1 FROM user_roles o WHERE o.user_id = r.user_id AND o.unit_id IS NOT NULL AND o.role <> 'owner')`).Scan(&n)
	return n, err
}
