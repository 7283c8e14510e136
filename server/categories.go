package server

import (
	"net/http"
	"strings"

	"fincom/store"
)

var (
	errInvalidTypeIO          = newError(http.StatusBadRequest, textInvalidTypeIO)
	errCategoryNotFound       = newError(http.StatusNotFound, textCategoryNotFound)
	errCategoryExists         = newError(http.StatusBadRequest, textCategoryExists)
	errCategoryGroupNotFound  = newError(http.StatusBadRequest, textCategoryGroupNotFound)
	errCategoryNoFieldsUpdate = newError(http.StatusBadRequest, textNoFieldsToUpdate)
)

// listByTypeRequest is the body of /get_categories and
// /list_group_categories: a required module type and an optional search.
type listByTypeRequest struct {
	Type   string `json:"type" alias:"module_type" required:"true" enum:"in,out"`
	Search string `json:"search"`
}

// getCategories answers the unit's active categories of a type.
func (s *Server) getCategories(r *request, q *listByTypeRequest) (any, error) {
	return r.db.Categories(r.ctx, r.unit.ID, q.Type, strings.TrimSpace(q.Search))
}

// listGroupCategories answers the active DRE groups of a type by name.
func (s *Server) listGroupCategories(r *request, q *listByTypeRequest) (any, error) {
	return r.db.CategoryGroups(r.ctx, q.Type, strings.TrimSpace(q.Search))
}

// categoryRequest is the body of /insert_category and /update_category,
// named as /get_categories returns a category.
type categoryRequest struct {
	IDToken        string  `json:"id_token" alias:"token"`
	ModuleType     *string `json:"module_type" alias:"type" enum:"in,out"`
	Category       *string `json:"category" alias:"name"`
	Note           *string `json:"note" alias:"description" text:"multiline"`
	CategoryMaster *code   `json:"category_master" alias:"id_token_category_master"`
}

func (q *categoryRequest) apply(f *store.CategoryFields) error {
	if err := setText(&f.Name, q.Category, maxShortText); err != nil {
		return err
	}
	if err := setText(&f.Note, q.Note, maxLongText); err != nil {
		return err
	}
	if q.ModuleType != nil {
		f.ModuleType = *q.ModuleType
	}
	if q.CategoryMaster != nil {
		f.GroupCode = int64(*q.CategoryMaster)
	}
	if f.ModuleType != "in" && f.ModuleType != "out" {
		return errInvalidTypeIO
	}
	if f.Name == "" {
		return errMissing
	}
	return nil
}

// insertCategory creates an active category; `category_master` is the code
// of its DRE group (/list_group_categories).
func (s *Server) insertCategory(r *request, q *categoryRequest) (any, error) {
	var f store.CategoryFields
	if err := q.apply(&f); err != nil {
		return nil, err
	}
	token, err := r.db.InsertCategory(r.ctx, r.unit.ID, f)
	if err != nil {
		return nil, err
	}
	return tokenAnswer{Message: "Category created successfully.", Token: token}, nil
}

// updateCategory changes the sent fields of a category.
func (s *Server) updateCategory(r *request, q *categoryRequest) (any, error) {
	if sent(q.ModuleType, q.Category, q.Note, q.CategoryMaster) == 0 {
		return nil, errCategoryNoFieldsUpdate
	}
	if err := r.db.UpdateCategory(r.ctx, r.unit.ID, q.IDToken, q.apply); err != nil {
		return nil, err
	}
	return tokenAnswer{Message: "Category updated successfully.", Token: q.IDToken}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docGetCategories = "The unit's categories of a `type` (`in`, `out`; required), by name, optionally by `search` (name or " +
		"note)."
	docListGroups = "The active DRE groups of a module `type`, by name, optionally by `search`: `[{name, description, " +
		"code}]`; `code` is what `category_master` takes."
	docInsertCategory = "Creates a category: `module_type` (alias `type`), `category` (alias `name`), optional `note` (alias " +
		"`description`) and `category_master` (the `code` of a group of the same type). Names are unique per " +
		"unit and type, case aside, disabled ones included (400 `Category already exists for this type.`); " +
		"400 `Category group not found for this type.`."
	docUpdateCategory    = "Changes the sent fields of a category (`id_token`)."
	docSetCategoryActive = "Enables or disables a category (`id_token`); idempotent."
)
