package server

// getUsers answers the domain's active users.
func (s *Server) getUsers(r *request) (any, error) {
	return r.db.Users(r.ctx)
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docGetUsers = "The domain's users (made with `fincom user create`), the same for every unit."
)
