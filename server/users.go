package server

// getUsers answers the domain's active users.
func (s *Server) getUsers(r *request) (any, error) {
	return r.db.Users(r.ctx)
}
