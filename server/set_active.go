package server

import (
	"context"
	"errors"

	"fincom/store"
)

// idRequest names one record of the unit: `id_token`, alias `token`.
type idRequest struct {
	IDToken string `json:"id_token" alias:"token"`
}

func (q *idRequest) validate() error {
	if q.IDToken == "" {
		return errMissing
	}
	return nil
}

// setActive makes the enable/disable handler of a register. Both are
// idempotent: enabling an enabled record succeeds. Answer:
// {success: true, message, token}.
func setActive(set func(*store.DB, context.Context, int64, string, bool) error, active bool, notFound *Error, noun string) handler {
	verb := "disabled"
	if active {
		verb = "enabled"
	}
	return func(r *request) (any, error) {
		var q idRequest
		if err := r.decode(&q); err != nil {
			return nil, err
		}
		if err := set(r.db, r.ctx, r.unit.ID, q.IDToken, active); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil, notFound
			}
			return nil, err
		}
		return created{Message: noun + " " + verb + " successfully.", Token: q.IDToken}, nil
	}
}
