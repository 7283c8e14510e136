package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// ProductFields are a product's or service's writable fields.
type ProductFields struct {
	Description   string
	Type          string // product or service
	MonetaryValue Money
	UsageType     string // SPED item type, "00".."99"
	NCM           string
	CFOP          string
	Unit          string // commercial unit (UN, KG, H, ...)
	// Code is the product's own code (the NF-e's cProd), unique in the
	// unit; "" at insert takes the unit's next number (000001, 000002, …).
	Code string
	// IBSCBSCST and IBSCBSClass are the tax reform's situation code and
	// classification (cClassTrib); "" takes the default.
	IBSCBSCST, IBSCBSClass string
	// IBSCBSOperation is a service's operation indicator (cIndOp, 6
	// digits), which its national NFS-e states.
	IBSCBSOperation string
	// GTIN is a product's bar code number (EAN-8, UPC-A, EAN-13 or
	// GTIN-14; "" none), its NF-e's cEAN.
	GTIN string
}

// Product is a product or service as /get_products_and_services returns it.
type Product struct {
	Token         string `json:"token" format:"uuid" doc:"The product's or service's token."`
	Code          string `json:"code" doc:"Its code in the unit."`
	Description   string `json:"description" doc:"Its description."`
	Type          string `json:"type" enum:"product,service" doc:"product or service."`
	MonetaryValue Money  `json:"monetary_value" doc:"Its price."`
}

// StockItem is a product or service as /list_stock_items_by_unit returns it.
type StockItem struct {
	ID            string `json:"id" doc:"The product's or service's token."`
	Code          string `json:"code" doc:"Its code in the unit."`
	Description   string `json:"description" doc:"Its description."`
	Type          string `json:"type" enum:"product,service" doc:"product or service."`
	UsageType     string `json:"usage_type" doc:"The SPED item type (00 to 10, 99)."`
	MonetaryValue Money  `json:"monetary_value" doc:"Its price."`
	NCM           Text   `json:"ncm" doc:"A product's NCM; null when none."`
	CFOP          Text   `json:"cfop" doc:"Its CFOP; null when none."`
	Unit          Text   `json:"unit" doc:"Its unit of measure; null when none."`
	IBSCBSCST     string `json:"ibs_cbs_cst,omitempty" doc:"The IBS and CBS situation code (CST); absent when not set."`
	IBSCBSClass   string `json:"ibs_cbs_class,omitempty" doc:"The IBS and CBS classification code (cClassTrib); absent when not set."`
	IBSCBSOp      string `json:"ibs_cbs_operation,omitempty" doc:"A service's operation indicator for its national NFS-e (cIndOp, 6 digits); absent when not set."`
	GTIN          string `json:"gtin,omitempty" doc:"fincom: a product's GTIN (EAN-8, UPC-A, EAN-13 or GTIN-14), its NF-e's cEAN; absent when not set."`
}

func (f ProductFields) values() []any {
	return []any{f.Description, f.Type, f.MonetaryValue, f.UsageType, nullString(f.NCM), nullString(f.CFOP), nullString(f.Unit), f.Code, nullString(f.IBSCBSCST), nullString(f.IBSCBSClass), nullString(f.IBSCBSOperation), nullString(f.GTIN)}
}

// nextProductCode takes the unit's next free product number: codes the
// firm gave itself are skipped.
func nextProductCode(ctx context.Context, tx *sql.Tx, unitID int64) (string, error) {
	for {
		n, err := nextCounter(ctx, tx, unitID, "product_code")
		if err != nil {
			return "", err
		}
		code := fmt.Sprintf("%06d", n)
		var taken int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM products WHERE unit_id = ? AND code = ?`, unitID, code).Scan(&taken); err != nil {
			return "", err
		}
		if taken == 0 {
			return code, nil
		}
	}
}

// InsertProduct creates an active product or service.
func (db *DB) InsertProduct(ctx context.Context, unitID int64, f ProductFields) (string, error) {
	token, _, err := db.InsertProductOnce(ctx, unitID, "", f)
	return token, err
}

// insertProduct inserts the product of token, with the unit's next code
// when it has none.
func insertProduct(ctx context.Context, tx *sql.Tx, unitID int64, token string, f ProductFields, now time.Time) error {
	if f.Code == "" {
		var err error
		if f.Code, err = nextProductCode(ctx, tx, unitID); err != nil {
			return err
		}
	}
	args := append([]any{token, unitID}, f.values()...)
	_, err := tx.ExecContext(ctx, `
		INSERT INTO products (token, unit_id, description, type, monetary_value, usage_type, ncm, cfop, unit, code, ibs_cbs_cst, ibs_cbs_class,
			ibs_cbs_operation, gtin, created_at, updated_at, sort_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append(args, timestamp(now), timestamp(now), sortKey(f.Description))...)
	return uniqueViolation(err)
}

// UpdateProduct reads, changes (apply) and writes a product of the unit in
// one transaction.
func (db *DB) UpdateProduct(ctx context.Context, unitID int64, token string, apply func(*ProductFields) error) error {
	return wrap("update product", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		f, err := scanProductFields(tx.QueryRowContext(ctx, `SELECT `+productColumns+` FROM products WHERE unit_id = ? AND token = ?`, unitID, token))
		if err != nil {
			return notFound(err)
		}
		if err := apply(&f); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `
			UPDATE products SET description = ?, type = ?, monetary_value = ?, usage_type = ?, ncm = ?, cfop = ?, unit = ?, code = ?,
			ibs_cbs_cst = ?, ibs_cbs_class = ?, ibs_cbs_operation = ?, gtin = ?, updated_at = ?, sort_key = ? WHERE unit_id = ? AND token = ?`, append(f.values(), timestamp(now), sortKey(f.Description), unitID, token)...)
		return uniqueViolation(err)
	}))
}

const productColumns = `description, type, monetary_value, usage_type, ncm, cfop, unit, code, ibs_cbs_cst, ibs_cbs_class, ibs_cbs_operation, gtin`

// scanProductFields reads a row of productColumns.
func scanProductFields(s scanner) (ProductFields, error) {
	var f ProductFields
	var ncm, cfop, unit, cst, class, op, gtin sql.NullString
	err := s.Scan(&f.Description, &f.Type, &f.MonetaryValue, &f.UsageType, &ncm, &cfop, &unit, &f.Code, &cst, &class, &op, &gtin)
	f.NCM, f.CFOP, f.Unit, f.IBSCBSCST, f.IBSCBSClass, f.IBSCBSOperation = ncm.String, cfop.String, unit.String, cst.String, class.String, op.String
	f.GTIN = gtin.String
	return f, err
}

// ProductByToken returns the fields of a product or service of the unit
// (active or not).
func (db *DB) ProductByToken(ctx context.Context, unitID int64, token string) (ProductFields, error) {
	f, err := scanProductFields(db.r.QueryRowContext(ctx, `SELECT `+productColumns+` FROM products WHERE unit_id = ? AND token = ?`, unitID, token))
	return f, wrap("product by token", notFound(err))
}

// SetProductActive enables or disables a product of the unit.
func (db *DB) SetProductActive(ctx context.Context, unitID int64, token string, active bool) error {
	return db.setActive(ctx, "products", unitID, token, active)
}

// Products lists the unit's active products and services by description;
// typ is "product", "service" or "" for both.
func (db *DB) Products(ctx context.Context, unitID int64, search, typ string) ([]Product, error) {
	where, args := []string{"unit_id = ?", "active = 1"}, []any{unitID}
	if search != "" {
		where = append(where, `instr(fincom_fold(description), ?) > 0`)
		args = append(args, fold(search))
	}
	if typ != "" {
		where = append(where, "type = ?")
		args = append(args, typ)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT token, code, description, type, monetary_value FROM products
		WHERE `+strings.Join(where, " AND ")+` ORDER BY sort_key, id`, args...)
	if err != nil {
		return nil, wrap("products", err)
	}
	defer rows.Close()
	out := []Product{}
	for rows.Next() {
		var p Product
		if err := rows.Scan(&p.Token, &p.Code, &p.Description, &p.Type, &p.MonetaryValue); err != nil {
			return nil, wrap("products", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// StockItems lists the unit's active products and services with their
// fiscal data.
func (db *DB) StockItems(ctx context.Context, unitID int64) ([]StockItem, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT token, code, description, type, usage_type, monetary_value, ncm, cfop, unit,
		COALESCE(ibs_cbs_cst, ''), COALESCE(ibs_cbs_class, ''), COALESCE(ibs_cbs_operation, ''), COALESCE(gtin, '') FROM products WHERE unit_id = ? AND active = 1 ORDER BY sort_key, id`, unitID)
	if err != nil {
		return nil, wrap("stock items", err)
	}
	defer rows.Close()
	out := []StockItem{}
	for rows.Next() {
		var s StockItem
		if err := rows.Scan(&s.ID, &s.Code, &s.Description, &s.Type, &s.UsageType, &s.MonetaryValue, &s.NCM, &s.CFOP, &s.Unit, &s.IBSCBSCST, &s.IBSCBSClass, &s.IBSCBSOp, &s.GTIN); err != nil {
			return nil, wrap("stock items", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
