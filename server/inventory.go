package server

import (
	"net/http"
	"strings"

	"github.com/shopspring/decimal"

	"fincom/store"
)

var (
	errReportParams       = newError(http.StatusBadRequest, textReportParams)
	errInsufficientStock  = newError(http.StatusConflict, textInsufficientStock)
	errMovementNotFound   = newError(http.StatusNotFound, textMovementNotFound)
	errInvalidQuantity    = newError(http.StatusBadRequest, textInvalidQuantity)
	errInvalidUnitary     = newError(http.StatusBadRequest, textInvalidUnitary)
	errInvalidMoveDate    = newError(http.StatusBadRequest, textInvalidMoveDate)
	errInvalidValidation  = newError(http.StatusBadRequest, textInvalidValidation)
	errInvalidRangeDate   = newError(http.StatusBadRequest, textInvalidRangeDate)
	errMovementNoFields   = newError(http.StatusBadRequest, textNoFieldsToUpdate)
	maxMovementQuantity   = decimal.New(1, 9)
	maxMovementUnitaryVal = decimal.New(1, 9)
)

type movementsRequest struct {
	Contact    string `json:"id_token_contact" alias:"id_contact"`
	Product    string `json:"id_token_product" alias:"id_stock_product"`
	Lote       string `json:"lote"`
	DateRange1 string `json:"dateRange1" format:"date"`
	DateRange2 string `json:"dateRange2" format:"date"`
	ModuleType string `json:"module_type" alias:"type" enum:"in,out,all"`
}

func (q *movementsRequest) validate() error {
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
func (s *Server) getInventoryMoviment(r *request, q *movementsRequest) (any, error) {
	return r.db.Movements(r.ctx, r.unit.ID, store.MovementFilter{ContactToken: q.Contact, ProductToken: q.Product,
		Lote: strings.TrimSpace(q.Lote), From: q.DateRange1, To: q.DateRange2, Type: q.ModuleType})
}

type reportRequest struct {
	Year     *flexInt `json:"year" required:"true"`
	TypeData string   `json:"type_data" required:"true" enum:"quantity,monetary_value"`
	Contact  string   `json:"id_token_contact"`
	Product  string   `json:"id_token_product"`
}

func (q *reportRequest) validate() error {
	if *q.Year < 1900 || *q.Year > 9999 {
		return errReportParams
	}
	return nil
}

// getInventoryReports sums a year's active movements by product, month and
// type: quantities, or quantity × unitary value.
func (s *Server) getInventoryReports(r *request, q *reportRequest) (any, error) {
	rows, err := r.db.InventoryReport(r.ctx, r.unit.ID, int(*q.Year), q.TypeData == "monetary_value", q.Contact, q.Product)
	if err != nil {
		return nil, err
	}
	return withMessage{Message: "Inventory report generated successfully.", Data: rows}, nil
}

// movementRequest is the body of the movement insert and update routes,
// named as /get_inventory_moviment returns a movement.
type movementRequest struct {
	IDToken        string         `json:"id_token" alias:"token"`
	Product        *string        `json:"id_token_product" alias:"id_stock_product"`
	Contact        *string        `json:"id_token_contact" alias:"id_contact"`
	Type           *string        `json:"type" alias:"module_type" enum:"in,out"`
	Quantity       *store.Decimal `json:"quantity"`
	UnitaryValue   *store.Money   `json:"unitary_value"`
	Lote           *string        `json:"lote"`
	ValidationDate *string        `json:"validation_date" pattern:"^([0-9]{4}-[0-9]{2}-[0-9]{2})?$"`
	DateInOut      *string        `json:"date_in_out" format:"date"`
}

func (q *movementRequest) apply(f *store.MovementFields) error {
	for _, t := range []struct{ dst, src *string }{{&f.ProductToken, q.Product}, {&f.ContactToken, q.Contact}, {&f.Type, q.Type}, {&f.Lote, q.Lote}} {
		if err := setText(t.dst, t.src, maxShortText); err != nil {
			return err
		}
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
	if err := isoDate(&f.DateInOut, q.DateInOut, errInvalidMoveDate); err != nil {
		return err
	}
	switch {
	case f.ProductToken == "" || f.Quantity.IsZero():
		return errMissing
	case f.Type != "in" && f.Type != "out":
		return errInvalidTypeIO
	}
	return nil
}

// insertInventoryMovement records a movement; an exit may not take the
// product's stock below zero unless the unit allows it (the check and the
// write are one transaction).
func (s *Server) insertInventoryMovement(r *request, q *movementRequest) (any, error) {
	f := store.MovementFields{DateInOut: store.Today(r.db.Now()).ISO()}
	if err := q.apply(&f); err != nil {
		return nil, err
	}
	token, err := r.db.InsertMovement(r.ctx, r.unit.ID, f)
	if err != nil {
		return nil, err
	}
	return tokenAnswer{Message: "Inventory movement created successfully.", Token: token}, nil
}

// updateInventoryMovement changes the sent fields of a movement.
func (s *Server) updateInventoryMovement(r *request, q *movementRequest) (any, error) {
	if sent(q.Product, q.Contact, q.Type, q.Quantity, q.UnitaryValue, q.Lote, q.ValidationDate, q.DateInOut) == 0 {
		return nil, errMovementNoFields
	}
	if err := r.db.UpdateMovement(r.ctx, r.unit.ID, q.IDToken, q.apply); err != nil {
		return nil, err
	}
	return tokenAnswer{Message: "Inventory movement updated successfully.", Token: q.IDToken}, nil
}

type stockBalanceRequest struct {
	Product string `json:"id_token_product" alias:"id_stock_product"`
}

// getStockBalance (a fincom route) answers the stock of the unit's
// products, from their active movements.
func (s *Server) getStockBalance(r *request, q *stockBalanceRequest) (any, error) {
	return r.db.StockBalances(r.ctx, r.unit.ID, q.Product)
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
