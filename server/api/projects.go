package api

import (
	"net/http"

	"fincom/server/web"
	"fincom/store"
)

// projects handles the routes of projects (routes.go).
type projects struct{ *API }

var (
	errProjectNotFound       = web.NewError(http.StatusNotFound, "Project not found or not updated.")
	errNegativeBudget        = web.NewError(http.StatusBadRequest, "Invalid budget. It must not be negative.")
	errProjectNoFieldsUpdate = web.NewError(http.StatusBadRequest, web.TextNoFieldsToUpdate)
)

// getProjects answers the unit's active projects.
func (s projects) getProjects(r *web.Request) (any, error) {
	return r.DB.Projects(r.Ctx, r.Unit.ID)
}

// projectRequest is the body of /insert_project and /update_project, named
// as /get_projects returns a project.
type projectRequest struct {
	IDToken     string        `json:"id_token" alias:"token" doc:"The project's token (an update's)."`
	Name        *string       `json:"name" max:"short" doc:"The project's name."`
	Observation *string       `json:"observation" text:"multiline" max:"long" doc:"Notes (several lines)."`
	Budget      *store.Number `json:"budget" doc:"The project's budget, a decimal."`
}

func (q *projectRequest) Apply(f *store.ProjectFields) error {
	web.SetText(&f.Name, q.Name)
	web.SetText(&f.Observation, q.Observation)
	if q.Budget != nil {
		if q.Budget.IsNegative() {
			return errNegativeBudget
		}
		f.Budget = *q.Budget
	}
	if f.Name == "" {
		return web.ErrMissing
	}
	return nil
}

// insertProject creates an active project.
func (s projects) insertProject(r *web.Request, q *projectRequest) (any, error) {
	var f store.ProjectFields
	if err := q.Apply(&f); err != nil {
		return nil, err
	}
	token, err := r.DB.InsertProject(r.Ctx, r.Unit.ID, f)
	if err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Project created successfully.", Token: token}, nil
}

// updateProject changes the sent fields of a project.
func (s projects) updateProject(r *web.Request, q *projectRequest) (any, error) {
	if web.Sent(q.Name, q.Observation, q.Budget) == 0 {
		return nil, errProjectNoFieldsUpdate
	}
	if err := r.DB.UpdateProject(r.Ctx, r.Unit.ID, q.IDToken, q.Apply); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Project updated successfully.", Token: q.IDToken}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docGetProjects      = "The unit's active projects by name; `budget` is a JSON number (spec)."
	docInsertProject    = "Creates a project: `name` required, `observation`, `budget` (≥ 0)."
	docUpdateProject    = "Changes the sent fields of a project (`id_token`)."
	docSetProjectActive = "Enables or disables a project (`id_token`); idempotent."
)
