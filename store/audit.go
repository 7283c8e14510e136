package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"
)

// AuditEntry is one change: who (the access token's id and hint, "cli",
// "scheduler" or "portal"), through which route, on which record, when.
type AuditEntry struct {
	At     Stamp  `json:"at" doc:"When the change was made (RFC 3339)."`
	Actor  string `json:"actor" doc:"Who made it: the access token's id and hint, cli, scheduler or portal."`
	Unit   Text   `json:"unit_token" doc:"The unit changed; null for a change of the domain."`
	Route  string `json:"route" doc:"The route (or command) that made it."`
	Record Text   `json:"record" doc:"The token of the record changed (a role change: the user, the unit and the role before and after); null when none."`
	Status int    `json:"status" doc:"The status the change was answered with."`
}

type auditKey struct{}

type auditInfo struct {
	actor, route, record string
	unitID               int64
	done                 atomic.Bool
}

// WithAudit marks a request's context: its first write transaction that
// commits records the change in the audit log, in that same transaction
// (no extra disk sync, and no change without its entry).
func WithAudit(ctx context.Context, actor, route, record string, unitID int64) context.Context {
	return context.WithValue(ctx, auditKey{}, &auditInfo{actor: actor, route: route, record: record, unitID: unitID})
}

const sqlAuditEntry = `INSERT INTO audit_log (at, actor, unit_id, route, record, status) VALUES (?, ?, ?, ?, ?, 200)`

// setAuditActor names who made the change when only the write knows it
// (a portal sign-in learns its user from the link it spends).
func setAuditActor(ctx context.Context, actor string) {
	if a, ok := ctx.Value(auditKey{}).(*auditInfo); ok {
		a.actor = actor
	}
}

// setAuditRecord names what the change was when only the write knows it
// (a role change: the user, the unit, the role before and after).
func setAuditRecord(ctx context.Context, record string) {
	if a, ok := ctx.Value(auditKey{}).(*auditInfo); ok {
		a.record = record
	}
}

// SetAuditRecord names what a change was (what changed, before and
// after, never a secret) when only its business code knows it.
func SetAuditRecord(ctx context.Context, record string) { setAuditRecord(ctx, record) }

// PortalActor names a portal user in the audit log.
func PortalActor(u User) string { return "user:" + u.Name + " <" + u.Email + ">" }

// newToken draws the token of a record an insert makes. The first one
// drawn in a request whose audit entry names no record yet is named by it:
// an insert's entry says what it made (an update's names the record its
// body names).
func (db *DB) newToken(ctx context.Context) string {
	token := db.id()
	if a, ok := ctx.Value(auditKey{}).(*auditInfo); ok && a.record == "" {
		a.record = token
	}
	return token
}

// auditInTx writes the context's audit entry into the transaction, once.
func (db *DB) auditInTx(ctx context.Context, tx *sql.Tx, now time.Time) error {
	a, ok := ctx.Value(auditKey{}).(*auditInfo)
	if !ok || a.done.Load() {
		return nil
	}
	unit := sql.NullInt64{Int64: a.unitID, Valid: a.unitID != 0}
	_, err := db.exec(ctx, tx, sqlAuditEntry, timestamp(now), a.actor, unit, a.route, nullString(a.record))
	return err
}

func auditCommitted(ctx context.Context) {
	if a, ok := ctx.Value(auditKey{}).(*auditInfo); ok {
		a.done.Store(true)
	}
}

// AuditLog lists a page of a unit's changes, newest first, and how many
// there are; EveryUnit lists the whole domain's (the operator's `fincom
// audit`), changes made outside any unit included. A search keeps the
// changes whose actor, route or record holds it, case and accents aside.
func (db *DB) AuditLog(ctx context.Context, unitID int64, search string, pg Page) ([]AuditEntry, int, error) {
	l := listing{what: "audit log", query: `SELECT a.at, a.actor, u.token, a.route, a.record, a.status FROM audit_log a LEFT JOIN units u ON u.id = a.unit_id`,
		order: "a.id DESC"}
	if unitID != EveryUnit {
		l.where, l.args = append(l.where, "a.unit_id = ?"), append(l.args, unitID)
	}
	if search = fold(search); search != "" {
		l.where = append(l.where, `instr(fincom_fold(a.actor || ' ' || a.route || ' ' || coalesce(a.record, '')), ?) > 0`)
		l.args = append(l.args, search)
	}
	return pageOf(ctx, db, l, pg, func(rows *sql.Rows) (AuditEntry, error) {
		var e AuditEntry
		err := rows.Scan(&e.At, &e.Actor, &e.Unit, &e.Route, &e.Record, &e.Status)
		return e, err
	})
}

// TokenActor names the access token as an audit actor: its id and hint,
// never the token.
func (db *DB) TokenActor(ctx context.Context, accessToken string) string {
	var id int64
	var hint string
	// Prepared once per connection: every write runs it (BenchmarkInsertContact).
	rows, err := db.cachedQuery(ctx, nil, `SELECT id, hint FROM access_tokens WHERE hash = ?`, hashToken(accessToken))
	if err != nil {
		return "token:unknown"
	}
	defer rows.Close()
	if !rows.Next() || rows.Scan(&id, &hint) != nil {
		return "token:unknown"
	}
	return tokenActor(id, hint)
}

func tokenActor(id int64, hint string) string { return fmt.Sprintf("token:%d (%s)", id, hint) }
