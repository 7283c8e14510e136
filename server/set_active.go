package server

import (
	"context"

	"fincom/store"
)

// idRequest names one record of the unit: `id_token`, alias `token`.
type idRequest struct {
	IDToken string `json:"id_token" alias:"token" required:"true"`
}

// setActive makes the enable/disable action of a register. Both are
// idempotent: enabling an enabled record succeeds. Answer:
// {success: true, message, token}; the route's errMap names its
// not-found text.
func setActive(set func(*store.DB, context.Context, int64, string, bool) error, active bool, noun string) action {
	verb := "disabled"
	if active {
		verb = "enabled"
	}
	return handle(func(r *request, q *idRequest) (any, error) {
		if err := set(r.db, r.ctx, r.unit.ID, q.IDToken, active); err != nil {
			return nil, err
		}
		return tokenAnswer{Message: noun + " " + verb + " successfully.", Token: q.IDToken}, nil
	})
}
