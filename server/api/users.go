package api

import (
	"fincom/server/web"
)

// users handles the routes of users (routes.go).
type users struct{ *API }

// getUsers answers the domain's active users.
func (s users) getUsers(r *web.Request) (any, error) {
	return r.DB.Users(r.Ctx)
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docGetUsers = "The domain's users (made with `fincom user create`), the same for every unit."
)
