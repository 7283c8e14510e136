package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// MovementFields are an inventory movement's writable fields.
type MovementFields struct {
	ProductToken   string
	ContactToken   string
	Type           string // in or out
	Quantity       Decimal
	UnitaryValue   Money
	Lote           string
	ValidationDate string // YYYY-MM-DD or empty
	DateInOut      string // YYYY-MM-DD
}

// Movement is a movement as /get_inventory_moviment returns it.
type Movement struct {
	Token          string  `json:"token" format:"uuid" doc:"The movement's token."`
	IDUnit         string  `json:"id_unit" doc:"The unit's token."`
	IDContact      Text    `json:"id_contact" doc:"The token of the contact it came from or went to; null when none."`
	Active         bool    `json:"active" doc:"false once disabled (/disable_inventory_movement); a disabled movement no longer counts in the stock."`
	CreatedDate    Stamp   `json:"created_date" doc:"When it was recorded (RFC 3339)."`
	Type           string  `json:"type" enum:"in,out" doc:"in (into the stock) or out (from it)."`
	Quantity       Decimal `json:"quantity" doc:"The quantity moved, up to three decimal places."`
	IDStockProduct string  `json:"id_stock_product" doc:"The product's token."`
	Unit           Text    `json:"unit" doc:"The product's unit of measure; null when none."`
	Product        string  `json:"product" doc:"The product's description."`
	Lote           Text    `json:"lote" doc:"The batch (lote); null when none."`
	ValidationDate Text    `json:"validation_date" format:"date" doc:"The batch's expiry date, YYYY-MM-DD; null when none."`
	DateInOut      string  `json:"date_in_out" format:"date" doc:"The day of the movement, YYYY-MM-DD."`
	UnitaryValue   Money   `json:"unitary_value" doc:"The value of one unit."`
	TotalValue     Decimal `json:"total_value" doc:"quantity times unitary_value, as a decimal string."`
	ContactName    Text    `json:"contact_name" doc:"The contact's name; null when none."`
}

// MovementFilter narrows /get_inventory_moviment.
type MovementFilter struct {
	ContactToken, ProductToken, Lote string
	From, To                         string // on date_in_out, inclusive; either may be empty
	Type                             string // in, out or "" for both
}

// milli is a quantity in thousandths, the integer the stock sums use.
func milli(q Decimal) int64 { return q.Shift(3).Round(0).IntPart() }

// totalValue is quantity × unitary value, exact (no rounding).
func totalValue(q Decimal, v Money) Decimal { return Decimal{q.Mul(v.Decimal)} }

func movementRefs(ctx context.Context, tx *sql.Tx, unitID int64, f MovementFields) (product int64, contact sql.NullInt64, err error) {
	var p sql.NullInt64
	err = resolveRefs(ctx, tx, unitID, ref{field: "id_token_product", token: f.ProductToken, table: tableProducts, dst: &p},
		ref{field: "id_token_contact", token: f.ContactToken, table: tableContacts, dst: &contact})
	if err == nil && !p.Valid {
		err = &RefError{"id_token_product"}
	}
	return p.Int64, contact, err
}

// checkStock recomputes a product's stock from its active movements, keeps
// it, and refuses a negative one unless the unit allows it. It runs in the
// write transaction that changed the movements, so concurrent exits cannot
// both pass.
func checkStock(ctx context.Context, tx *sql.Tx, unitID, productID int64) error {
	var balance int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(CASE type WHEN 'in' THEN quantity_milli ELSE -quantity_milli END), 0)
		FROM inventory_movements WHERE product_id = ? AND active = 1`, productID).Scan(&balance); err != nil {
		return err
	}
	return keepStock(ctx, tx, unitID, productID, balance)
}

// moveStock applies one new movement to a product's kept stock: the hot
// path of inserts costs one row, whatever the history.
func moveStock(ctx context.Context, tx *sql.Tx, unitID, productID int64, delta int64) error {
	var balance int64
	err := tx.QueryRowContext(ctx, `SELECT balance_milli FROM product_stock WHERE product_id = ?`, productID).Scan(&balance)
	if errors.Is(err, sql.ErrNoRows) {
		return checkStock(ctx, tx, unitID, productID)
	}
	if err != nil {
		return err
	}
	return keepStock(ctx, tx, unitID, productID, balance+delta)
}

func keepStock(ctx context.Context, tx *sql.Tx, unitID, productID, balance int64) error {
	if balance < 0 {
		var allow bool
		if err := tx.QueryRowContext(ctx, `SELECT allow_negative_stock FROM units WHERE id = ?`, unitID).Scan(&allow); err != nil {
			return err
		}
		if !allow {
			return ErrInsufficientStock
		}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO product_stock (product_id, balance_milli) VALUES (?, ?)
		ON CONFLICT (product_id) DO UPDATE SET balance_milli = excluded.balance_milli`, productID, balance)
	return err
}

// InsertMovement records an active movement.
func (db *DB) InsertMovement(ctx context.Context, unitID int64, f MovementFields) (string, error) {
	token := db.newToken(ctx)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		return db.insertMovement(ctx, tx, unitID, token, f, sql.NullInt64{}, now)
	})
	return token, wrap("insert movement", err)
}

func (db *DB) insertMovement(ctx context.Context, tx *sql.Tx, unitID int64, token string, f MovementFields, purchase sql.NullInt64, now time.Time) error {
	product, contact, err := movementRefs(ctx, tx, unitID, f)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO inventory_movements (token, unit_id, product_id, contact_id, purchase_id, type, quantity, quantity_milli, unitary_value,
			total_value, lote, validation_date, date_in_out, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		token, unitID, product, contact, purchase, f.Type, f.Quantity, milli(f.Quantity), f.UnitaryValue, totalValue(f.Quantity, f.UnitaryValue),
		nullString(f.Lote), nullString(f.ValidationDate), f.DateInOut, timestamp(now), timestamp(now)); err != nil {
		return err
	}
	if err := addToTotals(ctx, tx, f.sum(product), 1); err != nil {
		return err
	}
	delta := milli(f.Quantity)
	if f.Type == "out" {
		delta = -delta
	}
	if err := moveStock(ctx, tx, unitID, product, delta); err != nil {
		return err
	}
	if f.Type == "out" {
		return db.lowStock(ctx, tx, unitID, product, now)
	}
	return nil
}

// lowStock reports, after an exit, a product whose stock reached zero or
// less to the unit's webhooks (inventory.low_stock).
func (db *DB) lowStock(ctx context.Context, tx *sql.Tx, unitID, productID int64, now time.Time) error {
	var balance int64
	var token, desc string
	if err := tx.QueryRowContext(ctx, `SELECT s.balance_milli, p.token, p.description FROM product_stock s JOIN products p ON p.id = s.product_id
		WHERE s.product_id = ?`, productID).Scan(&balance, &token, &desc); err != nil {
		return notFound(err)
	}
	if balance > 0 {
		return nil
	}
	return db.emit(ctx, tx, unitID, "inventory.low_stock", map[string]any{"id_stock_product": token, "product": desc,
		"quantity": Decimal{decimal.New(balance, -3)}}, now)
}

// UpdateMovement reads, changes (apply) and writes a movement of the unit,
// checking the stock of the products it touches.
func (db *DB) UpdateMovement(ctx context.Context, unitID int64, token string, apply func(*MovementFields) error) error {
	return wrap("update movement", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var f MovementFields
		var old movementSum
		var active bool
		var contact, lote, validation sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT m.product_id, p.token, c.token, m.type, m.quantity, m.unitary_value, m.lote, m.validation_date, m.date_in_out,
				m.active, m.quantity_milli, m.total_value
			FROM inventory_movements m JOIN products p ON p.id = m.product_id LEFT JOIN contacts c ON c.id = m.contact_id
			WHERE m.unit_id = ? AND m.token = ?`, unitID, token).
			Scan(&old.product, &f.ProductToken, &contact, &f.Type, &f.Quantity, &f.UnitaryValue, &lote, &validation, &f.DateInOut,
				&active, &old.milli, &old.value)
		if err != nil {
			return notFound(err)
		}
		old.date, old.typ = f.DateInOut, f.Type
		f.ContactToken, f.Lote, f.ValidationDate = contact.String, lote.String, validation.String
		if err := apply(&f); err != nil {
			return err
		}
		product, contactID, err := movementRefs(ctx, tx, unitID, f)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE inventory_movements SET product_id = ?, contact_id = ?, type = ?, quantity = ?, quantity_milli = ?,
			unitary_value = ?, total_value = ?, lote = ?, validation_date = ?, date_in_out = ?, updated_at = ? WHERE unit_id = ? AND token = ?`,
			product, contactID, f.Type, f.Quantity, milli(f.Quantity), f.UnitaryValue, totalValue(f.Quantity, f.UnitaryValue), nullString(f.Lote),
			nullString(f.ValidationDate), f.DateInOut, timestamp(now), unitID, token); err != nil {
			return err
		}
		if active {
			if err := addToTotals(ctx, tx, old, -1); err != nil {
				return err
			}
			if err := addToTotals(ctx, tx, f.sum(product), 1); err != nil {
				return err
			}
		}
		if err := checkStock(ctx, tx, unitID, product); err != nil {
			return err
		}
		return checkStock(ctx, tx, unitID, old.product)
	}))
}

// SetMovementActive enables or disables a movement of the unit. Enabling
// an exit, or disabling an entry, must leave the stock non-negative.
func (db *DB) SetMovementActive(ctx context.Context, unitID int64, token string, active bool) error {
	return wrap("set movement active", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var m movementSum
		var was bool
		if err := tx.QueryRowContext(ctx, `SELECT product_id, date_in_out, type, quantity_milli, total_value, active FROM inventory_movements
			WHERE unit_id = ? AND token = ?`, unitID, token).Scan(&m.product, &m.date, &m.typ, &m.milli, &m.value, &was); err != nil {
			return notFound(err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE inventory_movements SET active = ?, updated_at = ? WHERE unit_id = ? AND token = ?`,
			boolInt(active), timestamp(now), unitID, token); err != nil {
			return err
		}
		if was != active {
			sign := int64(1)
			if !active {
				sign = -1
			}
			if err := addToTotals(ctx, tx, m, sign); err != nil {
				return err
			}
		}
		return checkStock(ctx, tx, unitID, m.product)
	}))
}

// Movements lists the unit's active movements, newest movement date first.
func (db *DB) Movements(ctx context.Context, unitID int64, f MovementFilter) ([]Movement, error) {
	where, args := []string{"m.unit_id = ?", "m.active = 1"}, []any{unitID}
	for _, c := range []struct{ cond, val string }{
		{"c.token = ?", f.ContactToken}, {"p.token = ?", f.ProductToken}, {"m.date_in_out >= ?", f.From}, {"m.date_in_out <= ?", f.To}, {"m.type = ?", f.Type},
	} {
		if c.val != "" {
			where, args = append(where, c.cond), append(args, c.val)
		}
	}
	if f.Lote != "" {
		where, args = append(where, `instr(fincom_fold(m.lote), ?) > 0`), append(args, fold(f.Lote))
	}
	rows, err := db.r.QueryContext(ctx, `
		SELECT m.token, un.token, c.token, m.active, m.created_at, m.type, m.quantity, p.token, p.unit, p.description, m.lote,
			m.validation_date, m.date_in_out, m.unitary_value, m.total_value, c.display_name
		FROM inventory_movements m JOIN units un ON un.id = m.unit_id JOIN products p ON p.id = m.product_id
		LEFT JOIN contacts c ON c.id = m.contact_id
		WHERE `+strings.Join(where, " AND ")+` ORDER BY m.date_in_out DESC, m.id DESC`, args...)
	if err != nil {
		return nil, wrap("movements", err)
	}
	defer rows.Close()
	out := []Movement{}
	for rows.Next() {
		var m Movement
		if err := rows.Scan(&m.Token, &m.IDUnit, &m.IDContact, &m.Active, &m.CreatedDate, &m.Type, &m.Quantity, &m.IDStockProduct, &m.Unit,
			&m.Product, &m.Lote, &m.ValidationDate, &m.DateInOut, &m.UnitaryValue, &m.TotalValue, &m.ContactName); err != nil {
			return nil, wrap("movements", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// ReportRow is a row of /get_inventory_reports.
type ReportRow struct {
	Product  string  `json:"product" doc:"The product's description."`
	Month    string  `json:"month" doc:"The month's abbreviation, Jan to Dec."`
	MonthNum int     `json:"month_num" doc:"The month, 1 to 12."`
	Total    Decimal `json:"total" doc:"The quantity moved that month, a decimal string."`
	Type     string  `json:"type" enum:"in,out" doc:"in or out."`
}

var monthNames = [...]string{"", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// InventoryReport sums the unit's active movements of a year by product,
// month and type, ordered by product then month: quantities, or (byValue)
// quantity × unitary value. The sums are exact. Without a contact it
// reads the kept monthly totals (at most 24 rows a product); a contact's
// report sums that contact's movements.
func (db *DB) InventoryReport(ctx context.Context, unitID int64, year int, byValue bool, contactToken, productToken string) ([]ReportRow, error) {
	if contactToken != "" {
		return db.movementsReport(ctx, unitID, year, byValue, contactToken, productToken)
	}
	where, args := []string{"p.unit_id = ?", "t.year = ?"}, []any{unitID, year}
	if productToken != "" {
		where, args = append(where, "p.token = ?"), append(args, productToken)
	}
	rows, err := db.cachedQuery(ctx, nil, `
		SELECT p.description, t.month, t.type, t.quantity_milli, t.total_value
		FROM inventory_month_totals t JOIN products p ON p.id = t.product_id
		WHERE `+strings.Join(where, " AND ")+`
		ORDER BY p.sort_key, p.id, t.month, t.type`, args...)
	if err != nil {
		return nil, wrap("inventory report", err)
	}
	defer rows.Close()
	out := []ReportRow{}
	for rows.Next() {
		var r ReportRow
		var q int64
		var v Decimal
		if err := rows.Scan(&r.Product, &r.MonthNum, &r.Type, &q, &v); err != nil {
			return nil, wrap("inventory report", err)
		}
		r.Month, r.Total = monthNames[r.MonthNum], v
		if !byValue {
			r.Total = Decimal{decimal.New(q, -3)}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// movementsReport is InventoryReport summed from the movements themselves:
// a contact's report, and the judge of the kept totals
// (TestInventoryTotalsFollowMovements).
func (db *DB) movementsReport(ctx context.Context, unitID int64, year int, byValue bool, contactToken, productToken string) ([]ReportRow, error) {
	where, args := []string{"m.unit_id = ?", "m.active = 1", "m.date_in_out BETWEEN ? AND ?"}, []any{unitID, fmt.Sprintf("%04d-01-01", year), fmt.Sprintf("%04d-12-31", year)}
	if contactToken != "" {
		where, args = append(where, "m.contact_id = (SELECT id FROM contacts WHERE unit_id = ? AND token = ?)"), append(args, unitID, contactToken)
	}
	if productToken != "" {
		where, args = append(where, "p.token = ?"), append(args, productToken)
	}
	// Quantities are summed by SQLite as integers (thousandths); values
	// (with up to five decimals each) are summed here with decimals, since
	// their integer form could overflow a 64-bit sum.
	sel := `SUM(m.quantity_milli)`
	group := `GROUP BY p.id, month, m.type`
	if byValue {
		sel, group = `m.total_value`, ``
	}
	rows, err := db.cachedQuery(ctx, nil, `
		SELECT p.description, p.id, CAST(substr(m.date_in_out, 6, 2) AS INTEGER) AS month, m.type, `+sel+`
		FROM inventory_movements m JOIN products p ON p.id = m.product_id
		WHERE `+strings.Join(where, " AND ")+` `+group+`
		ORDER BY p.sort_key, p.id, month, m.type`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ReportRow{}
	type key struct {
		product int64
		month   int
		typ     string
	}
	var last key
	for rows.Next() {
		var r ReportRow
		var k key
		if byValue {
			var v Decimal
			if err := rows.Scan(&r.Product, &k.product, &k.month, &k.typ, &v); err != nil {
				return nil, err
			}
			if len(out) > 0 && k == last {
				out[len(out)-1].Total.Decimal = out[len(out)-1].Total.Add(v.Decimal)
				continue
			}
			r.Total = v
		} else {
			var q int64
			if err := rows.Scan(&r.Product, &k.product, &k.month, &k.typ, &q); err != nil {
				return nil, err
			}
			r.Total = Decimal{decimal.New(q, -3)}
		}
		last = k
		r.MonthNum, r.Month, r.Type = k.month, monthNames[k.month], k.typ
		out = append(out, r)
	}
	return out, rows.Err()
}

// sum is what a movement with these fields adds to its month's totals.
func (f MovementFields) sum(product int64) movementSum {
	return movementSum{product, f.DateInOut, f.Type, milli(f.Quantity), totalValue(f.Quantity, f.UnitaryValue)}
}

// movementSum is what one active movement adds to its month's totals.
type movementSum struct {
	product int64
	date    string // YYYY-MM-DD
	typ     string
	milli   int64
	value   Decimal
}

// totalsKey is a movement's row of inventory_month_totals.
func (m movementSum) totalsKey() (year, month int, err error) {
	if len(m.date) != len(time.DateOnly) {
		return 0, 0, fmt.Errorf("inventory totals: date %q", m.date)
	}
	if year, err = strconv.Atoi(m.date[:4]); err == nil {
		month, err = strconv.Atoi(m.date[5:7])
	}
	return year, month, err
}

// addToTotals adds one active movement to its month's totals (sign 1) or
// takes it away (sign -1), in the transaction that changes the movement;
// the row goes when its last movement does.
func addToTotals(ctx context.Context, tx *sql.Tx, m movementSum, sign int64) error {
	year, month, err := m.totalsKey()
	if err != nil {
		return err
	}
	var n, q int64
	var v Decimal
	err = tx.QueryRowContext(ctx, `SELECT movements, quantity_milli, total_value FROM inventory_month_totals
		WHERE product_id = ? AND year = ? AND month = ? AND type = ?`, m.product, year, month, m.typ).Scan(&n, &q, &v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	n, q, v = n+sign, q+sign*m.milli, Decimal{v.Add(m.value.Mul(decimal.NewFromInt(sign)))}
	if n == 0 {
		_, err = tx.ExecContext(ctx, `DELETE FROM inventory_month_totals WHERE product_id = ? AND year = ? AND month = ? AND type = ?`,
			m.product, year, month, m.typ)
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO inventory_month_totals (product_id, year, month, type, movements, quantity_milli, total_value)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (product_id, year, month, type) DO UPDATE
		SET movements = excluded.movements, quantity_milli = excluded.quantity_milli, total_value = excluded.total_value`,
		m.product, year, month, m.typ, n, q, v)
	return err
}

// fillInventoryTotals sums the active movements already in a file into
// inventory_month_totals (migration 23's Go step; TestInventoryTotalsOfExistingMovements).
func fillInventoryTotals(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT product_id, date_in_out, type, quantity_milli, total_value FROM inventory_movements WHERE active = 1`)
	if err != nil {
		return err
	}
	type key struct {
		product     int64
		year, month int
		typ         string
	}
	type sum struct {
		n, q int64
		v    decimal.Decimal
	}
	sums := map[key]*sum{}
	var order []key
	for rows.Next() {
		var m movementSum
		if err := rows.Scan(&m.product, &m.date, &m.typ, &m.milli, &m.value); err != nil {
			rows.Close()
			return err
		}
		year, month, err := m.totalsKey()
		if err != nil {
			rows.Close()
			return err
		}
		k := key{m.product, year, month, m.typ}
		t := sums[k]
		if t == nil {
			t = &sum{}
			sums[k], order = t, append(order, k)
		}
		t.n, t.q, t.v = t.n+1, t.q+m.milli, t.v.Add(m.value.Decimal)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, k := range order {
		t := sums[k]
		if _, err := tx.ExecContext(ctx, `INSERT INTO inventory_month_totals (product_id, year, month, type, movements, quantity_milli, total_value)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, k.product, k.year, k.month, k.typ, t.n, t.q, Decimal{t.v}); err != nil {
			return err
		}
	}
	return nil
}

// StockBalance is a product's stock in a unit.
type StockBalance struct {
	IDStockProduct string  `json:"id_stock_product" doc:"The product's token."`
	Product        string  `json:"product" doc:"The product's description."`
	Unit           Text    `json:"unit" doc:"Its unit of measure; null when none."`
	Quantity       Decimal `json:"quantity" doc:"What is in stock: in less out."`
	In             Decimal `json:"in" doc:"Everything that came in (active movements)."`
	Out            Decimal `json:"out" doc:"Everything that went out (active movements)."`
}

// StockBalances answers the stock of the unit's active products (one, when
// productToken is set), from their active movements.
func (db *DB) StockBalances(ctx context.Context, unitID int64, productToken string) ([]StockBalance, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT p.token, p.description, p.unit,
			COALESCE(SUM(CASE m.type WHEN 'in' THEN m.quantity_milli END), 0), COALESCE(SUM(CASE m.type WHEN 'out' THEN m.quantity_milli END), 0)
		FROM products p LEFT JOIN inventory_movements m ON m.product_id = p.id AND m.active = 1
		WHERE p.unit_id = ? AND p.active = 1 AND p.type = 'product' AND (? = '' OR p.token = ?)
		GROUP BY p.id ORDER BY p.sort_key, p.id`, unitID, productToken, productToken)
	if err != nil {
		return nil, wrap("stock balances", err)
	}
	defer rows.Close()
	out := []StockBalance{}
	for rows.Next() {
		var b StockBalance
		var in, outQ int64
		if err := rows.Scan(&b.IDStockProduct, &b.Product, &b.Unit, &in, &outQ); err != nil {
			return nil, wrap("stock balances", err)
		}
		b.In, b.Out, b.Quantity = Decimal{decimal.New(in, -3)}, Decimal{decimal.New(outQ, -3)}, Decimal{decimal.New(in-outQ, -3)}
		out = append(out, b)
	}
	return out, rows.Err()
}

// SetAllowNegativeStock sets a unit's inventory setting.
func (db *DB) SetAllowNegativeStock(ctx context.Context, unitToken string, allow bool) error {
	return wrap("set allow negative stock", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		return changed(tx.ExecContext(ctx, `UPDATE units SET allow_negative_stock = ? WHERE token = ?`, boolInt(allow), unitToken))
	}))
}
