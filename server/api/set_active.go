package api

import (
	"context"

	"fincom/server/web"
	"fincom/store"
)

// setActive makes the enable/disable action of a register. Both are
// idempotent: enabling an enabled record succeeds. Answer:
// {success: true, message, token}; the route's errMap names its
// not-found text.
func setActive(set func(*store.DB, context.Context, int64, string, bool) error, active bool, noun string) web.Action {
	verb := "disabled"
	if active {
		verb = "enabled"
	}
	return web.Handle(func(r *web.Request, q *web.IdRequest) (any, error) {
		if err := set(r.DB, r.Ctx, r.Unit.ID, q.IDToken, active); err != nil {
			return nil, err
		}
		return web.TokenAnswer{Message: noun + " " + verb + " successfully.", Token: q.IDToken}, nil
	})
}
