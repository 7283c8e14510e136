package api

import (
	"errors"
	"net/http"

	"fincom/server/brdoc"
	"fincom/server/registers"
	"fincom/server/web"
	"fincom/store"
)

// categoryMedian handles the routes of the category median (routes.go).
type categoryMedian struct{ *API }

var (
	errProvideCNPJ = web.NewError(http.StatusBadRequest, "Provide cnpj.")
	errMedianCNPJ  = registers.ErrInvalidCNPJ
)

type categoryMedianRequest struct {
	CNPJ string `json:"cnpj" required:"true" pattern:"^\\s*([0-9]{3}\\.?[0-9]{3}\\.?[0-9]{3}-?[0-9]{2}|[0-9A-Za-z]{2}\\.?[0-9A-Za-z]{3}\\.?[0-9A-Za-z]{3}/?[0-9A-Za-z]{4}-?[0-9]{2})\\s*$" doc:"The contact's CNPJ (or CPF), with or without its mask."`
	Type string `json:"type" enum:"in,out" doc:"in or out: only categories of that module type; absent: both."`
}

// medianShape is a CPF's or CNPJ's shape, as a contact's register has it
// (TestRegisterShapesAgree).
var medianShape = web.TagPattern(categoryMedianRequest{}, "CNPJ")

func (q *categoryMedianRequest) Validate() error {
	if !medianShape.MatchString(q.CNPJ) {
		return errMedianCNPJ
	}
	q.CNPJ = brdoc.Clean(q.CNPJ)
	if !brdoc.ValidCNPJ(q.CNPJ) && !brdoc.ValidCPF(q.CNPJ) {
		return errMedianCNPJ
	}
	return nil
}

// getCategoryMedian answers the category most used on the entries of the
// unit's contact with this CNPJ (with or without mask, alphanumeric too;
// a CPF also works), or data null when that category was used fewer than
// store.MinCategoryUsage times.
func (s categoryMedian) getCategoryMedian(r *web.Request, q *categoryMedianRequest) (any, error) {
	u, err := r.DB.CategoryMedian(r.Ctx, r.Unit.ID, q.CNPJ, q.Type)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docCategoryMedian = "The category most used on the active entries of the unit's contact whose document is `cnpj` (with " +
		"or without mask, alphanumeric too; a CPF works as well), optionally of one `type`; ties go to the " +
		"most recently used. `usage_count` is a string. `data` is null when that category was used fewer " +
		"than two times. Authenticates with `access_token`, or `token_tec` (spec, Authentication 3; made by " +
		"`fincom token tec`). 400 `Provide cnpj.`, `Invalid CNPJ.`."
)
