package api

import (
	"net/http"
	"strings"

	"github.com/shopspring/decimal"

	"fincom/server/web"
	"fincom/store"
)

// inventory handles the routes of inventory (routes.go).
type inventory struct{ *API }

var (
	errReportParams       = web.NewError(http.StatusBadRequest, "Parâmetros 'year' e 'type_data' são obrigatórios.")
	errMovementNotFound   = web.NewError(http.StatusNotFound, "Inventory movement not found or not updated.")
	errInvalidQuantity    = web.NewError(http.StatusBadRequest, "Invalid quantity. It must be greater than zero, with up to 3 decimal places.")
	errInvalidUnitary     = web.NewError(http.StatusBadRequest, "Invalid unitary_value. It must not be negative.")
	errInvalidMoveDate    = web.NewError(http.StatusBadRequest, "Invalid date_in_out. Use YYYY-MM-DD.")
	errInvalidValidation  = web.NewError(http.StatusBadRequest, "Invalid validation_date. Use YYYY-MM-DD.")
	errInvalidRangeDate   = web.NewError(http.StatusBadRequest, web.TextInvalidRangeDate)
	errMovementNoFields   = web.NewError(http.StatusBadRequest, web.TextNoFieldsToUpdate)
	maxMovementQuantity   = decimal.New(1, 9)
	maxMovementUnitaryVal = decimal.New(1, 9)
)

type movementsRequest struct {
	Contact    string `json:"id_token_contact" alias:"id_contact"`
	Product    string `json:"id_token_product" alias:"id_stock_product"`
	Lote       string `json:"lote" doc:"Text found in the batch (lote)."`
	DateRange1 string `json:"dateRange1" format:"date" doc:"Movements from this day."`
	DateRange2 string `json:"dateRange2" format:"date" doc:"Movements up to this day."`
	ModuleType string `json:"module_type" alias:"type" enum:"in,out,all" doc:"in, out or all (default)."`
}

func (q *movementsRequest) Validate() error {
	for _, d := range []*string{&q.DateRange1, &q.DateRange2} {
		if *d != "" {
			v, err := store.ParseDateISO(*d)
			if err != nil {
				return errInvalidRangeDate
			}
			*d = v.ISO()
		}
	}
	if q.ModuleType == "all" {
		q.ModuleType = ""
	}
	return nil
}

// getInventoryMoviment answers the unit's active movements, newest first;
// dateRange1 alone means "from", dateRange2 alone "up to".
func (s inventory) getInventoryMoviment(r *web.Request, q *movementsRequest) (any, error) {
	return r.DB.Movements(r.Ctx, r.Unit.ID, store.MovementFilter{ContactToken: q.Contact, ProductToken: q.Product,
		Lote: strings.TrimSpace(q.Lote), From: q.DateRange1, To: q.DateRange2, Type: q.ModuleType})
}

type reportRequest struct {
	Year     *web.FlexInt `json:"year" required:"true" doc:"The report's year."`
	TypeData string       `json:"type_data" required:"true" enum:"quantity,monetary_value" doc:"quantity (units moved) or monetary_value (their value)."`
	Contact  string       `json:"id_token_contact"`
	Product  string       `json:"id_token_product"`
}

func (q *reportRequest) Validate() error {
	if *q.Year < 1900 || *q.Year > 9999 {
		return errReportParams
	}
	return nil
}

// getInventoryReports sums a year's active movements by product, month and
// type: quantities, or quantity × unitary value.
func (s inventory) getInventoryReports(r *web.Request, q *reportRequest) (any, error) {
	rows, err := r.DB.InventoryReport(r.Ctx, r.Unit.ID, int(*q.Year), q.TypeData == "monetary_value", q.Contact, q.Product)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Inventory report generated successfully.", Data: rows}, nil
}

// movementRequest is the body of the movement insert and update routes,
// named as /get_inventory_moviment returns a movement.
type movementRequest struct {
	IDToken        string         `json:"id_token" alias:"token" doc:"The movement's token (an update's)."`
	Product        *string        `json:"id_token_product" alias:"id_stock_product" max:"short"`
	Contact        *string        `json:"id_token_contact" alias:"id_contact" max:"short"`
	Type           *string        `json:"type" alias:"module_type" enum:"in,out" max:"short" doc:"in (stock enters) or out (stock leaves)."`
	Quantity       *store.Decimal `json:"quantity" doc:"The quantity moved, greater than zero, up to three decimal places."`
	UnitaryValue   *store.Money   `json:"unitary_value" doc:"The value of one unit, a decimal (default 0)."`
	Lote           *string        `json:"lote" max:"short" doc:"The batch (lote)."`
	ValidationDate *string        `json:"validation_date" pattern:"^([0-9]{4}-[0-9]{2}-[0-9]{2})?$" doc:"The batch's expiry day; blank: none."`
	DateInOut      *string        `json:"date_in_out" format:"date" doc:"The day of the movement (default: today; blank: as not sent)."`
}

func (q *movementRequest) Apply(f *store.MovementFields) error {
	for _, t := range []struct{ dst, src *string }{{&f.ProductToken, q.Product}, {&f.ContactToken, q.Contact}, {&f.Type, q.Type}, {&f.Lote, q.Lote}} {
		web.SetText(t.dst, t.src)
	}
	if q.Quantity != nil {
		if !q.Quantity.IsPositive() || q.Quantity.GreaterThan(maxMovementQuantity) || !q.Quantity.Equal(q.Quantity.Round(3)) {
			return errInvalidQuantity
		}
		f.Quantity = *q.Quantity
	}
	if q.UnitaryValue != nil {
		if q.UnitaryValue.IsNegative() || q.UnitaryValue.GreaterThan(maxMovementUnitaryVal) {
			return errInvalidUnitary
		}
		f.UnitaryValue = store.NewMoney(q.UnitaryValue.Round(2))
	}
	if err := isoDate(&f.ValidationDate, q.ValidationDate, errInvalidValidation); err != nil {
		return err
	}
	// A movement always has its day: blank is as not sent (today on an
	// insert, unchanged on an update).
	if q.DateInOut != nil && strings.TrimSpace(*q.DateInOut) != "" {
		if err := isoDate(&f.DateInOut, q.DateInOut, errInvalidMoveDate); err != nil {
			return err
		}
	}
	switch {
	case f.ProductToken == "" || f.Quantity.IsZero():
		return web.ErrMissing
	case f.Type != "in" && f.Type != "out":
		return errInvalidTypeIO
	}
	return nil
}

// insertInventoryMovement records a movement; an exit may not take the
// product's stock below zero unless the unit allows it (the check and the
// write are one transaction).
func (s inventory) insertInventoryMovement(r *web.Request, q *movementRequest) (any, error) {
	f := store.MovementFields{DateInOut: store.Today(r.DB.Now()).ISO()}
	if err := q.Apply(&f); err != nil {
		return nil, err
	}
	token, err := r.DB.InsertMovement(r.Ctx, r.Unit.ID, f)
	if err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Inventory movement created successfully.", Token: token}, nil
}

// updateInventoryMovement changes the sent fields of a movement.
func (s inventory) updateInventoryMovement(r *web.Request, q *movementRequest) (any, error) {
	if web.Sent(q.Product, q.Contact, q.Type, q.Quantity, q.UnitaryValue, q.Lote, q.ValidationDate, q.DateInOut) == 0 {
		return nil, errMovementNoFields
	}
	if err := r.DB.UpdateMovement(r.Ctx, r.Unit.ID, q.IDToken, q.Apply); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Inventory movement updated successfully.", Token: q.IDToken}, nil
}

type stockBalanceRequest struct {
	Product string `json:"id_token_product" alias:"id_stock_product"`
}

// getStockBalance (a fincom route) answers the stock of the unit's
// products, from their active movements.
func (s inventory) getStockBalance(r *web.Request, q *stockBalanceRequest) (any, error) {
	return r.DB.StockBalances(r.Ctx, r.Unit.ID, q.Product)
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docGetMovements = "Active inventory movements, newest movement date first, optionally by `id_token_contact`, " +
		"`id_token_product`, `lote` (contains), `dateRange1` (from), `dateRange2` (up to) and `module_type` " +
		"(`in`, `out`, `all`). `quantity`, `unitary_value` and `total_value` (quantity × unitary value, " +
		"exact) are decimal strings."
	docInventoryReports = "A year's report (`year`, `type_data`: `quantity` or `monetary_value`; optional `id_token_contact`, " +
		"`id_token_product`): `[{product, month, month_num, total, type}]` grouped by product, month and " +
		"type, ordered by product then month. 400 `Parâmetros 'year' e 'type_data' são obrigatórios.`."
	docInsertMovement = "Records an entry or exit: `id_token_product` (alias `id_stock_product`), `type` (`in`, `out`), " +
		"`quantity` (> 0, up to 3 decimals), `unitary_value` (≥ 0), optional `id_token_contact`, `lote`, " +
		"`validation_date`, `date_in_out` (default today). An exit may not take the product's stock below " +
		"zero (409 `Insufficient stock: …`) unless the unit allows it (`fincom unit set " +
		"--allow-negative-stock`); the check and the write are one transaction."
	docUpdateMovement    = "Changes the sent fields of a movement (`id_token`), checking the stock as an insert does."
	docSetMovementActive = "Enables or disables a movement (`id_token`); the stock must stay non-negative (disabling an entry " +
		"lowers it)."
	docStockBalance = "The stock of the unit's products from their active movements (optionally one, `id_token_product`): " +
		"`[{id_stock_product, product, unit, quantity, in, out}]`."
)
