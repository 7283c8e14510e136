package api

import (
	"net/http"

	"fincom/server/web"
	"fincom/store"
)

// status handles the entry status routes (routes.go).
type status struct{ *API }

var errEntryNotFound = web.NewError(http.StatusNotFound, "Entry not found.")

// statusDef documents one entry status and how it is derived.
type statusDef struct {
	Status string `json:"status" doc:"The status."`
	Label  string `json:"label" doc:"Its name in words."`
	Rule   string `json:"rule" doc:"When an entry has it."`
}

// entryStatuses is the vocabulary of /get_status, in the order the rules
// apply.
var entryStatuses = []statusDef{
	{store.StatusCancelled, "Cancelado", "active is false (cancelled with update_expense or update_income and active false)"},
	{store.StatusPaid, "Pago", "pay_day is set"},
	{store.StatusOverdue, "Vencido", "not paid and due_date is before today (America/Sao_Paulo)"},
	{store.StatusOpen, "Em aberto", "not paid and due_date is today or later"},
}

type getStatusRequest struct {
	IDToken  string   `json:"id_token" alias:"token" doc:"One entry's token; absent: the status vocabulary alone."`
	IDTokens []string `json:"id_tokens" alias:"tokens" doc:"Several entries' tokens."`
}

type statusAnswer struct {
	Statuses []statusDef         `json:"statuses" doc:"The status vocabulary: each status, its label and its rule."`
	Entries  []store.EntryStatus `json:"entries" doc:"Each entry asked for, with its status."`
}

// getStatus answers the entry status vocabulary and, for the entries named
// by id_token or id_tokens, their current status and action_status.
func (s status) getStatus(r *web.Request, q *getStatusRequest) (any, error) {
	tokens := q.IDTokens
	if q.IDToken != "" {
		tokens = append([]string{q.IDToken}, tokens...)
	}
	entries, err := r.DB.EntryStatuses(r.Ctx, r.Unit.ID, tokens)
	if err != nil {
		return nil, err
	}
	return statusAnswer{Statuses: entryStatuses, Entries: entries}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docGetStatus = "The status vocabulary, and the status of the entries named by `id_token` or `id_tokens`: " +
		"`{statuses: [{status, label, rule}], entries: [{id, type, due_date, pay_day, status, " +
		"action_status}]}`. Statuses are derived in this order, never stored: `cancelled` (inactive), `paid` " +
		"(`pay_day` set), `overdue` (unpaid, due before today in São Paulo), `open`. `action_status`: " +
		"`to_pay`, `to_receive`, `paid`, `received`, `cancelled`. 404 `Entry not found.`."
)
