package api

import (
	"net/http"
	"strings"

	"fincom/server/web"
	"fincom/store"
)

// categories handles the routes of categories (routes.go).
type categories struct{ *API }

var (
	errInvalidTypeIO          = web.NewError(http.StatusBadRequest, "Invalid type. Use in or out.")
	errCategoryNotFound       = web.NewError(http.StatusNotFound, "Category not found or not updated.")
	errCategoryExists         = web.NewError(http.StatusBadRequest, "Category already exists for this type.")
	errCategoryGroupNotFound  = web.NewError(http.StatusBadRequest, "Category group not found for this type.")
	errCategoryNoFieldsUpdate = web.NewError(http.StatusBadRequest, web.TextNoFieldsToUpdate)
)

// listByTypeRequest is the body of /get_categories and
// /list_group_categories: a required module type and an optional search.
type listByTypeRequest struct {
	Type   string `json:"type" alias:"module_type" required:"true" enum:"in,out" doc:"in (income) or out (expense)."`
	Search string `json:"search" doc:"Text found in the name or note."`
}

// getCategories answers the unit's active categories of a type.
func (s categories) getCategories(r *web.Request, q *listByTypeRequest) (any, error) {
	return r.DB.Categories(r.Ctx, r.Unit.ID, q.Type, strings.TrimSpace(q.Search))
}

// listGroupCategories answers the active DRE groups of a type by name.
func (s categories) listGroupCategories(r *web.Request, q *listByTypeRequest) (any, error) {
	return r.DB.CategoryGroups(r.Ctx, q.Type, strings.TrimSpace(q.Search))
}

// categoryRequest is the body of /insert_category and /update_category,
// named as /get_categories returns a category.
type categoryRequest struct {
	IDToken        string    `json:"id_token" alias:"token" doc:"The category's token (an update's)."`
	ModuleType     *string   `json:"module_type" alias:"type" enum:"in,out" doc:"in (income) or out (expense)."`
	Category       *string   `json:"category" alias:"name" max:"short" doc:"The category's name, unique within its module type."`
	Note           *string   `json:"note" alias:"description" text:"multiline" max:"long" doc:"A description of the category (several lines)."`
	CategoryMaster *web.Code `json:"category_master" alias:"id_token_category_master" doc:"The DRE group it is summed in: a code /list_group_categories lists."`
}

func (q *categoryRequest) Apply(f *store.CategoryFields) error {
	web.SetText(&f.Name, q.Category)
	web.SetText(&f.Note, q.Note)
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
		return web.ErrMissing
	}
	return nil
}

// insertCategory creates an active category; `category_master` is the code
// of its DRE group (/list_group_categories).
func (s categories) insertCategory(r *web.Request, q *categoryRequest) (any, error) {
	var f store.CategoryFields
	if err := q.Apply(&f); err != nil {
		return nil, err
	}
	token, err := r.DB.InsertCategory(r.Ctx, r.Unit.ID, f)
	if err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Category created successfully.", Token: token}, nil
}

// updateCategory changes the sent fields of a category.
func (s categories) updateCategory(r *web.Request, q *categoryRequest) (any, error) {
	if web.Sent(q.ModuleType, q.Category, q.Note, q.CategoryMaster) == 0 {
		return nil, errCategoryNoFieldsUpdate
	}
	if err := r.DB.UpdateCategory(r.Ctx, r.Unit.ID, q.IDToken, q.Apply); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Category updated successfully.", Token: q.IDToken}, nil
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
