package store

import (
	"context"
	"database/sql"
	"errors"
)

// RefError is ErrInvalidReference naming the field whose token is not of
// the unit (or not active, or of the wrong kind).
type RefError struct{ Field string }

func (e *RefError) Error() string { return "invalid reference: " + e.Field }

// Unwrap makes errors.Is(err, ErrInvalidReference) true.
func (e *RefError) Unwrap() error { return ErrInvalidReference }

// Tables whose records requests name by token. Catalogues (payment
// methods, users) belong to the domain, every other to a unit.
const (
	tableContacts       = "contacts"
	tableProducts       = "products"
	tableCategories     = "categories"
	tableProjects       = "projects"
	tableBankAccounts   = "bank_accounts"
	tablePaymentMethods = "payment_methods"
	tableUsers          = "users"
	tableSalesOrders    = "sales_orders"
	tableContracts      = "contracts"
	tableTemplates      = "contract_templates"
)

var domainTables = map[string]bool{tablePaymentMethods: true, tableUsers: true}

// recordID answers the id of a record of the unit by its token (table is
// one of the table constants above, never a request's), only an active
// one when active: ErrNotFound when there is none in scope.
func recordID(ctx context.Context, tx *sql.Tx, table string, unitID int64, token string, active bool) (int64, error) {
	q := `SELECT id FROM ` + table + ` WHERE token = ?`
	args := []any{token}
	if !domainTables[table] {
		q, args = q+` AND unit_id = ?`, append(args, unitID)
	}
	if active {
		q += ` AND active = 1`
	}
	var id int64
	err := tx.QueryRowContext(ctx, q, args...).Scan(&id)
	return id, notFound(err)
}

// ref is a related record a write names: the request's field, its token,
// its table, and the id it resolves to. An empty token is no reference.
type ref struct {
	field, token, table string
	dst                 *sql.NullInt64
	// inactive accepts an inactive record (orders linked to a contract).
	inactive bool
	// moduleType, for a category: the type it must be of.
	moduleType string
}

// resolveRefs resolves every ref within the unit; a token that names no
// active record in scope (or a category of another type) is a *RefError
// naming its field.
func resolveRefs(ctx context.Context, tx *sql.Tx, unitID int64, refs ...ref) error {
	for _, r := range refs {
		if r.token == "" {
			continue
		}
		id, err := recordID(ctx, tx, r.table, unitID, r.token, !r.inactive)
		if err == nil && r.moduleType != "" {
			var typ string
			if err = tx.QueryRowContext(ctx, `SELECT module_type FROM categories WHERE id = ?`, id).Scan(&typ); err == nil && typ != r.moduleType {
				err = ErrNotFound
			}
		}
		if errors.Is(err, ErrNotFound) {
			return &RefError{r.field}
		}
		if err != nil {
			return err
		}
		*r.dst = sql.NullInt64{Int64: id, Valid: true}
	}
	return nil
}
