package server

import (
	"net/http"

	"fincom/store"
)

var (
	errProjectNotFound       = newError(http.StatusNotFound, textProjectNotFound)
	errNegativeBudget        = newError(http.StatusBadRequest, textNegativeBudget)
	errProjectNoFieldsUpdate = newError(http.StatusBadRequest, textNoFieldsToUpdate)
)

// getProjects answers the unit's active projects.
func (s *Server) getProjects(r *request) (any, error) {
	return r.db.Projects(r.ctx, r.unit.ID)
}

// projectRequest is the body of /insert_project and /update_project, named
// as /get_projects returns a project.
type projectRequest struct {
	IDToken     string        `json:"id_token" alias:"token"`
	Name        *string       `json:"name"`
	Observation *string       `json:"observation" text:"multiline"`
	Budget      *store.Number `json:"budget"`
}

func (q *projectRequest) apply(f *store.ProjectFields) error {
	if err := setText(&f.Name, q.Name, maxShortText); err != nil {
		return err
	}
	if err := setText(&f.Observation, q.Observation, maxLongText); err != nil {
		return err
	}
	if q.Budget != nil {
		if q.Budget.IsNegative() {
			return errNegativeBudget
		}
		f.Budget = *q.Budget
	}
	if f.Name == "" {
		return errMissing
	}
	return nil
}

// insertProject creates an active project.
func (s *Server) insertProject(r *request, q *projectRequest) (any, error) {
	var f store.ProjectFields
	if err := q.apply(&f); err != nil {
		return nil, err
	}
	token, err := r.db.InsertProject(r.ctx, r.unit.ID, f)
	if err != nil {
		return nil, err
	}
	return tokenAnswer{Message: "Project created successfully.", Token: token}, nil
}

// updateProject changes the sent fields of a project.
func (s *Server) updateProject(r *request, q *projectRequest) (any, error) {
	if sent(q.Name, q.Observation, q.Budget) == 0 {
		return nil, errProjectNoFieldsUpdate
	}
	if err := r.db.UpdateProject(r.ctx, r.unit.ID, q.IDToken, q.apply); err != nil {
		return nil, err
	}
	return tokenAnswer{Message: "Project updated successfully.", Token: q.IDToken}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docGetProjects      = "The unit's active projects by name; `budget` is a JSON number (spec)."
	docInsertProject    = "Creates a project: `name` required, `observation`, `budget` (≥ 0)."
	docUpdateProject    = "Changes the sent fields of a project (`id_token`)."
	docSetProjectActive = "Enables or disables a project (`id_token`); idempotent."
)
