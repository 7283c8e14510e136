package api

import (
	"net/http"
	"strings"

	"fincom/server/brdoc"
	"fincom/server/fiscal/reform"
	"fincom/server/registers"
	"fincom/server/web"
	"fincom/store"
)

// products handles the routes of products and services (routes.go).
type products struct{ *API }

var (
	errProductCodeUsed       = web.NewError(http.StatusBadRequest, "Product code already used in this unit.")
	errInvalidProductCode    = web.NewError(http.StatusBadRequest, "Invalid code. Use 1 to 60 characters.")
	errProductNotFound       = web.NewError(http.StatusNotFound, "Product or service not found or not updated.")
	errNegativeValue         = web.NewError(http.StatusBadRequest, "Invalid monetary_value. It must not be negative.")
	errProductNoFieldsUpdate = web.NewError(http.StatusBadRequest, web.TextNoFieldsToUpdate)
)

type getProductsRequest struct {
	Search string `json:"search" doc:"Text found in the description."`
	Type   string `json:"type" enum:"product,service,all" doc:"product, service or all (default)."`
}

func (q *getProductsRequest) Validate() error {
	return nil
}

// getProductsAndServices answers the unit's active products and services.
func (s products) getProductsAndServices(r *web.Request, q *getProductsRequest) (any, error) {
	typ := q.Type
	if typ == "all" {
		typ = ""
	}
	return r.DB.Products(r.Ctx, r.Unit.ID, strings.TrimSpace(q.Search), typ)
}

// listStockItemsByUnit answers the unit's products and services with their
// fiscal data, nested as {ok, message, data} (spec).
func (s products) listStockItemsByUnit(r *web.Request) (any, error) {
	items, err := r.DB.StockItems(r.Ctx, r.Unit.ID)
	if err != nil {
		return nil, err
	}
	return web.OkData{OK: true, Message: "Stock items listed successfully.", Data: items}, nil
}

// productRequest is the body of /insert_product_or_service and
// /update_product_or_service, named as the listings return a product.
type productRequest struct {
	IDToken       string       `json:"id_token" alias:"token" doc:"The product's or service's token (an update's)."`
	Description   *string      `json:"description" max:"short" doc:"Its description, as invoices print it."`
	Type          *string      `json:"type" enum:"product,service" doc:"product (goods, NF-e and NFC-e) or service (NFS-e)."`
	MonetaryValue *store.Money `json:"monetary_value" alias:"value" doc:"Its unit price, a decimal."`
	UsageType     *string      `json:"usage_type" pattern:"^\\s*(0[0-9]|10|99)\\s*$" doc:"The SPED item type, 00 to 10 or 99 (default 00 for products, 09 for services)."`
	NCM           *string      `json:"ncm" pattern:"^\\s*([0-9]{4}\\.?[0-9]{2}\\.?[0-9]{2})?\\s*$" doc:"The NCM code of goods: 8 digits, dotted or not (7318.15.00)."`
	CFOP          *string      `json:"cfop" pattern:"^\\s*([1-7]\\.?[0-9]{3})?\\s*$" doc:"The default CFOP of its sales: 4 digits, the first 1 to 7, dotted or not (5.102)."`
	Unit          *string      `json:"unit" max:"short" doc:"The commercial unit (UN, KG, H; up to 6 characters)."`
	// Code is the product's own code (the NF-e's cProd): at most 60
	// characters; without it a product is numbered in its unit.
	Code *string `json:"code" alias:"cod_product" doc:"Its own code, the NF-e's cProd: up to 60 characters, unique in the unit (default: numbered 1, 2, 3 per unit)."`
	// IBSCBSCST and IBSCBSClass are the tax reform's situation code (3
	// digits) and classification (cClassTrib, 6 digits): "" takes the
	// default, full taxation.
	IBSCBSCST   *string `json:"ibs_cbs_cst" doc:"The tax reform's IBS and CBS situation code (CST, 3 digits) of fincom's table; none: full taxation, 000."`
	IBSCBSClass *string `json:"ibs_cbs_class" doc:"The IBS and CBS classification (cClassTrib, 6 digits) of fincom's table; none: 000001."`
	// IBSCBSOperation is a service's operation indicator (the national
	// NFS-e's cIndOp, 6 digits).
	IBSCBSOperation *string `json:"ibs_cbs_operation" doc:"A service's operation indicator its national NFS-e states (cIndOp, 6 digits)."`
	// GTIN is a product's bar code number, its NF-e's cEAN.
	GTIN *string `json:"gtin" doc:"fincom: a product's GTIN (EAN-8, UPC-A, EAN-13 or GTIN-14, with its check digit), its NF-e's cEAN and cEANTrib; empty clears it."`
}

// The shapes of an NCM, a CFOP and a SPED item type, from their tags.
var (
	ncmShape   = web.TagPattern(productRequest{}, "NCM")
	cfopShape  = web.TagPattern(productRequest{}, "CFOP")
	usageShape = web.TagPattern(productRequest{}, "UsageType")
)

func (q *productRequest) Apply(f *store.ProductFields) error {
	if q.Code != nil {
		c := strings.TrimSpace(*q.Code)
		if c == "" && f.Code != "" || len([]rune(c)) > 60 {
			return errInvalidProductCode
		}
		f.Code = c
	}
	web.SetText(&f.Description, q.Description)
	web.SetText(&f.Unit, q.Unit)
	if q.Type != nil {
		f.Type = *q.Type
		// A kind change resets a default usage type to the new kind's.
		if q.UsageType == nil && (f.UsageType == "" || f.UsageType == "00" || f.UsageType == "09") {
			f.UsageType = map[string]string{"product": "00", "service": "09"}[f.Type]
		}
	}
	if q.UsageType != nil {
		if !usageShape.MatchString(*q.UsageType) {
			return registers.ErrInvalidUsageType
		}
		f.UsageType = strings.TrimSpace(*q.UsageType)
	}
	if q.NCM != nil {
		if !ncmShape.MatchString(*q.NCM) {
			return registers.ErrInvalidNCM
		}
		f.NCM = brdoc.Digits(*q.NCM)
	}
	if q.CFOP != nil {
		if !cfopShape.MatchString(*q.CFOP) {
			return registers.ErrInvalidCFOP
		}
		f.CFOP = brdoc.Digits(*q.CFOP)
	}
	if q.IBSCBSCST != nil {
		f.IBSCBSCST = strings.TrimSpace(*q.IBSCBSCST)
	}
	if q.IBSCBSClass != nil {
		f.IBSCBSClass = strings.TrimSpace(*q.IBSCBSClass)
	}
	if q.IBSCBSOperation != nil {
		f.IBSCBSOperation = strings.TrimSpace(*q.IBSCBSOperation)
	}
	if q.GTIN != nil {
		f.GTIN = strings.TrimSpace(*q.GTIN)
	}
	if q.MonetaryValue != nil {
		if q.MonetaryValue.IsNegative() {
			return errNegativeValue
		}
		f.MonetaryValue = *q.MonetaryValue
	}
	if f.Description == "" {
		return web.ErrMissing
	}
	return nil
}

// apply changes a product by a request and holds it to a product's rules
// (registers.CheckProduct), its IBS and CBS codes to the reform's table.
func (s products) apply(q *productRequest, f *store.ProductFields) error {
	if err := q.Apply(f); err != nil {
		return err
	}
	var table *reform.Table
	if s.Invoices != nil {
		table = s.Invoices.Reform
	}
	return registers.CheckProduct(f, table)
}

// insertProductOrService creates an active product or service.
func (s products) insertProductOrService(r *web.Request, q *productRequest) (any, error) {
	var f store.ProductFields
	if err := s.apply(q, &f); err != nil {
		return nil, err
	}
	token, err := r.DB.InsertProduct(r.Ctx, r.Unit.ID, f)
	if err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Product or service created successfully.", Token: token}, nil
}

// updateProductOrService changes the sent fields of a product or service.
func (s products) updateProductOrService(r *web.Request, q *productRequest) (any, error) {
	if web.Sent(q.Description, q.Type, q.MonetaryValue, q.UsageType, q.NCM, q.CFOP, q.Unit, q.Code, q.IBSCBSCST, q.IBSCBSClass, q.IBSCBSOperation, q.GTIN) == 0 {
		return nil, errProductNoFieldsUpdate
	}
	err := r.DB.UpdateProduct(r.Ctx, r.Unit.ID, q.IDToken, func(f *store.ProductFields) error { return s.apply(q, f) })
	if err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Product or service updated successfully.", Token: q.IDToken}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docGetProducts = "The unit's active products and services, optionally by `search` (description) and `type` " +
		"(`product`, `service`, `all`). 401 `Invalid token` for bad tokens (spec), 500 `Server error`."
	docStockItems = "The unit's stock items, nested as the spec shows: `data: {ok, message, data: [{id, description, " +
		"type, usage_type, monetary_value, ncm, cfop, unit}]}`, and when set the tax reform's `ibs_cbs_cst` and `ibs_cbs_class`. " +
		"Bad or missing tokens: 403 `Invalid data`."
	docInsertProduct = "Creates a product or service: `description`, `type` (`product`, `service`) required; " +
		"`monetary_value` (alias `value`, ≥ 0), `ncm` (8 digits), `cfop` (4 digits, first 1 to 7), `unit` " +
		"(up to 6 characters), `usage_type` (the SPED item type, default `00` for products and `09` for " +
		"services), `code` (the product's own code, the NF-e's cProd: up to 60 characters, unique in the unit, " +
		"given or numbered 1, 2, 3… per unit; 400 `Product code already used in this unit.`), `ibs_cbs_cst` and " +
		"`ibs_cbs_class` (the tax reform's situation code, 3 digits, and cClassTrib, 6 digits, of fincom's table: none is full " +
		"taxation, CST 000, class 000001; a wrong one is 422 with `details.field` and `details.message`), and a service's `ibs_cbs_operation` " +
		"(the operation indicator its national NFS-e states, cIndOp: 6 digits)."
	docUpdateProduct    = "Changes the sent fields of a product or service (`id_token`)."
	docSetProductActive = "Enables or disables a product or service (`id_token`); idempotent."
)
