package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Template is a contract template as the template routes return it. Its
// HTML was sanitized before it was stored.
type Template struct {
	Token      string `json:"token" format:"uuid" doc:"The template's token."`
	Name       string `json:"name" doc:"Its name."`
	BodyHTML   string `json:"body_html" doc:"Its body, HTML with placeholders."`
	PageCSS    string `json:"page_css" doc:"Its page style."`
	HeaderHTML Text   `json:"header_html" doc:"Its page header; null when none."`
	FooterHTML Text   `json:"footer_html" doc:"Its page footer; null when none."`
	IsDefault  bool   `json:"is_default" doc:"true: the unit's default template."`
	Active     bool   `json:"active" doc:"false once disabled."`
}

// TemplateFields are a template's writable fields.
type TemplateFields struct {
	Name, BodyHTML, PageCSS, HeaderHTML, FooterHTML string
}

// DefaultTemplate is seeded for a unit the first time it needs one.
var DefaultTemplate = TemplateFields{
	Name: "Contrato de prestação de serviços (padrão)",
	BodyHTML: `<h1>{{contrato_nome}}</h1>
<p><b>CONTRATANTE:</b> {{contato_nome}}, inscrito(a) no CPF/CNPJ sob o nº {{contato_documento}}, com endereço em {{contato_endereco}}.</p>
<p><b>CONTRATADA:</b> {{empresa_nome}}, inscrita no CNPJ sob o nº {{empresa_cnpj}}.</p>
<h2>Cláusula 1ª — Objeto</h2>
<p>{{contrato_descricao}}</p>
<h2>Cláusula 2ª — Preço e pagamento</h2>
<p>Pelo objeto deste contrato, a CONTRATANTE pagará {{valor}} ({{valor_extenso}}), por {{forma_pagamento}}, {{recorrencia}}.</p>
<h2>Cláusula 3ª — Vigência</h2>
<p>Este contrato vigora de {{contrato_inicio}} a {{contrato_fim}}.</p>
<p>{{cidade}}, {{data_hoje}}.</p>
<p>Responsável: {{responsavel}}</p>`,
	PageCSS:    `body { font-family: Georgia, serif; font-size: 12pt; line-height: 1.5; } h1 { font-size: 16pt; text-align: center; } h2 { font-size: 12pt; }`,
	FooterHTML: `<p class="rodape">{{empresa_nome}} · CNPJ {{empresa_cnpj}}</p>`,
}

const templateSelect = `SELECT token, name, body_html, page_css, header_html, footer_html, is_default, active FROM contract_templates`

func scanTemplate(s scanner) (Template, error) {
	var t Template
	err := s.Scan(&t.Token, &t.Name, &t.BodyHTML, &t.PageCSS, &t.HeaderHTML, &t.FooterHTML, &t.IsDefault, &t.Active)
	return t, err
}

func ensureDefaultTemplate(ctx context.Context, tx *sql.Tx, unitID int64, now time.Time, newID func() string) error {
	d := DefaultTemplate
	_, err := tx.ExecContext(ctx, `INSERT INTO contract_templates (token, unit_id, name, body_html, page_css, header_html, footer_html, is_default,
		created_at, updated_at, sort_key)
		SELECT ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM contract_templates WHERE unit_id = ? AND is_default = 1)`,
		newID(), unitID, d.Name, d.BodyHTML, d.PageCSS, nullString(d.HeaderHTML), nullString(d.FooterHTML), timestamp(now), timestamp(now),
		sortKey(d.Name), unitID)
	return err
}

// Templates lists the unit's active templates (seeding the default one),
// the default first.
func (db *DB) Templates(ctx context.Context, unitID int64) ([]Template, error) {
	// Seeded once: a listing queues behind the domain's writes only when
	// the unit has no default yet (the insert checks again, in its turn).
	var seeded bool
	if err := db.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM contract_templates WHERE unit_id = ? AND is_default = 1)`, unitID).Scan(&seeded); err != nil {
		return nil, wrap("templates", err)
	}
	if !seeded {
		if err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
			return ensureDefaultTemplate(ctx, tx, unitID, now, db.id)
		}); err != nil {
			return nil, wrap("templates", err)
		}
	}
	rows, err := db.r.QueryContext(ctx, templateSelect+` WHERE unit_id = ? AND active = 1 ORDER BY is_default DESC, sort_key, id`, unitID)
	if err != nil {
		return nil, wrap("templates", err)
	}
	defer rows.Close()
	out := []Template{}
	for rows.Next() {
		t, err := scanTemplate(rows)
		if err != nil {
			return nil, wrap("templates", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// Template returns a template of the unit; "" is the unit's default.
func (db *DB) Template(ctx context.Context, unitID int64, token string) (Template, error) {
	if token == "" {
		ts, err := db.Templates(ctx, unitID)
		if err != nil {
			return Template{}, wrap("template", err)
		}
		return ts[0], nil
	}
	t, err := scanTemplate(db.r.QueryRowContext(ctx, templateSelect+` WHERE unit_id = ? AND token = ?`, unitID, token))
	return t, wrap("template", notFound(err))
}

// InsertTemplate stores a template (already sanitized).
func (db *DB) InsertTemplate(ctx context.Context, unitID int64, f TemplateFields) (string, error) {
	token := db.newToken(ctx)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO contract_templates (token, unit_id, name, body_html, page_css, header_html, footer_html,
			created_at, updated_at, sort_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, token, unitID, f.Name, f.BodyHTML, f.PageCSS,
			nullString(f.HeaderHTML), nullString(f.FooterHTML), timestamp(now), timestamp(now), sortKey(f.Name))
		return err
	})
	return token, wrap("insert template", err)
}

// UpdateTemplate reads, changes (apply) and writes a template of the unit.
func (db *DB) UpdateTemplate(ctx context.Context, unitID int64, token string, apply func(*TemplateFields) error) error {
	return wrap("update template", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		t, err := scanTemplate(tx.QueryRowContext(ctx, templateSelect+` WHERE unit_id = ? AND token = ?`, unitID, token))
		if err != nil {
			return notFound(err)
		}
		f := TemplateFields{Name: t.Name, BodyHTML: t.BodyHTML, PageCSS: t.PageCSS, HeaderHTML: t.HeaderHTML.String, FooterHTML: t.FooterHTML.String}
		if err := apply(&f); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE contract_templates SET name = ?, body_html = ?, page_css = ?, header_html = ?, footer_html = ?, updated_at = ?,
			sort_key = ? WHERE unit_id = ? AND token = ?`, f.Name, f.BodyHTML, f.PageCSS, nullString(f.HeaderHTML), nullString(f.FooterHTML),
			timestamp(now), sortKey(f.Name), unitID, token)
		return err
	}))
}

// Contract statuses. A contract is created draft; it becomes active,
// expired (past its validity without auto_extend) or cancelled.
var ContractStatuses = map[string]bool{"draft": true, "active": true, "expired": true, "cancelled": true}

// ContractFields are a contract's writable fields.
type ContractFields struct {
	ContactToken, TemplateToken, Name, Status string
	ValidityStart, ValidityEnd                string
	IsRecurring, GeneratesPayment, AutoExtend bool
	RecurrenceType, Description               string
	OrderTokens                               []string // existing orders to link
}

// Contract is a contract as /list_contracts returns it.
type Contract struct {
	Token            string     `json:"id_token" format:"uuid" doc:"The contract's token."`
	ContractName     string     `json:"contract_name" doc:"The contract's name."`
	Status           string     `json:"status" enum:"draft,active,expired,cancelled" doc:"draft, active, expired (the daily job, after validity_end without auto_extend) or cancelled."`
	IDContact        string     `json:"id_token_contact" doc:"The token of the contact it is with (/get_contacts)."`
	ContactName      Text       `json:"contact_name" doc:"That contact's name; null when none."`
	IDTemplate       Text       `json:"id_token_template" doc:"The token of the template its text comes from; null when none."`
	ValidityStart    string     `json:"validity_start" format:"date" doc:"The first day it is valid, YYYY-MM-DD."`
	ValidityEnd      Text       `json:"validity_end" format:"date" doc:"The last day it is valid, YYYY-MM-DD; null when open-ended."`
	IsRecurring      bool       `json:"is_recurring" doc:"true: it bills again each period (recurrence_type)."`
	RecurrenceType   Text       `json:"recurrence_type" enum:"unique,monthly,yearly" doc:"unique, monthly or yearly; null when not recurring."`
	GeneratesPayment bool       `json:"generates_payment" doc:"true: while active and recurring, its order is copied and charged for each period started."`
	AutoExtend       bool       `json:"auto_extend" doc:"true: it does not expire after validity_end."`
	Description      Text       `json:"description" doc:"Free description; null when none."`
	IDSalesOrder     Text       `json:"id_sales_order" doc:"The token of the sales order made with it; null when none."`
	SalesOrders      []string   `json:"id_token_sales_orders" doc:"The tokens of the sales orders linked to it."`
	Files            []FileInfo `json:"files" doc:"Its attached files."`
	Active           bool       `json:"active" doc:"false once disabled (/disable_contract)."`
	CreatedDate      Stamp      `json:"created_date" doc:"When it was recorded (RFC 3339)."`
	id               int64
}

func contractRefs(ctx context.Context, tx *sql.Tx, unitID int64, f ContractFields) (contact int64, template sql.NullInt64, orders []int64, err error) {
	var c sql.NullInt64
	if err = resolveRefs(ctx, tx, unitID, ref{field: "id_token_contact", token: f.ContactToken, table: tableContacts, dst: &c},
		ref{field: "id_token_template", token: f.TemplateToken, table: tableTemplates, dst: &template, inactive: true}); err != nil {
		return
	}
	if !c.Valid {
		return 0, template, nil, &RefError{"id_token_contact"}
	}
	for _, t := range f.OrderTokens {
		var id sql.NullInt64
		if err = resolveRefs(ctx, tx, unitID, ref{field: "id_token_sales_orders", token: t, table: tableSalesOrders, dst: &id, inactive: true}); err != nil {
			return
		}
		if !id.Valid {
			return 0, template, nil, &RefError{"id_token_sales_orders"}
		}
		orders = append(orders, id.Int64)
	}
	return c.Int64, template, orders, nil
}

// InsertContract creates a draft contract with its files, its linked
// orders, and (when order is set) the sales order created with it, in one
// transaction. It answers the contract's and the order's tokens.
func (db *DB) InsertContract(ctx context.Context, unitID int64, f ContractFields, files []NewFile, order *SalesOrderFields) (string, string, error) {
	token, orderToken := db.newToken(ctx), ""
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) (err error) {
		orderToken, err = db.insertContract(ctx, tx, unitID, token, f, files, order, now)
		return err
	})
	return token, orderToken, wrap("insert contract", err)
}

// insertContract inserts the contract of token, with its files and (when
// order is set) the sales order made with it, whose token it answers.
func (db *DB) insertContract(ctx context.Context, tx *sql.Tx, unitID int64, token string, f ContractFields, files []NewFile, order *SalesOrderFields,
	now time.Time) (string, error) {
	contact, template, orders, err := contractRefs(ctx, tx, unitID, f)
	if err != nil {
		return "", err
	}
	var orderID sql.NullInt64
	orderToken := ""
	if order != nil {
		refs, err := resolveOrderRefs(ctx, tx, unitID, *order)
		if err != nil {
			return "", err
		}
		orderToken = db.id()
		if _, err := db.insertOrder(ctx, tx, unitID, orderToken, *order, refs, sql.NullInt64{}, "", now); err != nil {
			return "", err
		}
		if err := tx.QueryRowContext(ctx, `SELECT id FROM sales_orders WHERE token = ?`, orderToken).Scan(&orderID); err != nil {
			return "", err
		}
		orders = append(orders, orderID.Int64)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO contracts (token, unit_id, contact_id, template_id, contract_name, status, validity_start, validity_end,
		is_recurring, recurrence_type, generates_payment, auto_extend, description, sales_order_id, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, 'draft', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		token, unitID, contact, template, f.Name, f.ValidityStart, nullString(f.ValidityEnd), boolInt(f.IsRecurring), nullString(f.RecurrenceType),
		boolInt(f.GeneratesPayment), boolInt(f.AutoExtend), nullString(f.Description), orderID, timestamp(now), timestamp(now))
	if err != nil {
		return "", err
	}
	id, _ := res.LastInsertId()
	if err := linkContract(ctx, tx, id, orders, files, now, db.id); err != nil {
		return "", err
	}
	return orderToken, db.emit(ctx, tx, unitID, "contract.created", map[string]any{"id_token": token, "contract_name": f.Name, "status": "draft"}, now)
}

func linkContract(ctx context.Context, tx *sql.Tx, id int64, orders []int64, files []NewFile, now time.Time, newID func() string) error {
	for _, o := range orders {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO contract_orders (contract_id, order_id) VALUES (?, ?)`, id, o); err != nil {
			return err
		}
	}
	for _, f := range files {
		sum := sha256Hex(f.Data)
		if _, err := tx.ExecContext(ctx, `INSERT INTO contract_files (token, contract_id, name, content_type, size, sha256, data, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, newID(), id, sanitizeName(f.Name), f.ContentType, len(f.Data), sum, f.Data, timestamp(now)); err != nil {
			return err
		}
	}
	return nil
}

// UpdateContract reads, changes (apply) and writes a contract of the unit,
// adding files and links.
func (db *DB) UpdateContract(ctx context.Context, unitID int64, token string, apply func(*ContractFields) error, files []NewFile) error {
	return wrap("update contract", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		c, err := scanContract(tx.QueryRowContext(ctx, contractSelect+` WHERE k.unit_id = ? AND k.token = ?`, unitID, token))
		if err != nil {
			return notFound(err)
		}
		f := ContractFields{ContactToken: c.IDContact, TemplateToken: c.IDTemplate.String, Name: c.ContractName, Status: c.Status,
			ValidityStart: c.ValidityStart, ValidityEnd: c.ValidityEnd.String, IsRecurring: c.IsRecurring, GeneratesPayment: c.GeneratesPayment,
			AutoExtend: c.AutoExtend, RecurrenceType: c.RecurrenceType.String, Description: c.Description.String}
		if err := apply(&f); err != nil {
			return err
		}
		contact, template, orders, err := contractRefs(ctx, tx, unitID, f)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE contracts SET contact_id = ?, template_id = ?, contract_name = ?, status = ?, validity_start = ?,
			validity_end = ?, is_recurring = ?, recurrence_type = ?, generates_payment = ?, auto_extend = ?, description = ?, updated_at = ?
			WHERE id = ?`, contact, template, f.Name, f.Status, f.ValidityStart, nullString(f.ValidityEnd), boolInt(f.IsRecurring),
			nullString(f.RecurrenceType), boolInt(f.GeneratesPayment), boolInt(f.AutoExtend), nullString(f.Description), timestamp(now), c.id); err != nil {
			return err
		}
		if err := linkContract(ctx, tx, c.id, orders, files, now, db.id); err != nil {
			return err
		}
		return db.emit(ctx, tx, unitID, "contract.updated", map[string]any{"id_token": token, "contract_name": f.Name, "status": f.Status}, now)
	}))
}

// SetContractActive enables or disables a contract of the unit.
func (db *DB) SetContractActive(ctx context.Context, unitID int64, token string, active bool) error {
	return db.setActive(ctx, "contracts", unitID, token, active)
}

// ContractFile reads one file of a contract of the unit: ErrNotFound
// without the contract, ErrFileNotFound when the file is not its.
func (db *DB) ContractFile(ctx context.Context, unitID int64, token, fileToken string) (File, error) {
	var f File
	err := db.read(ctx, func(tx *sql.Tx) error {
		id, err := recordID(ctx, tx, tableContracts, unitID, token, false)
		if err != nil {
			return err
		}
		f, err = readFile(ctx, tx, "contract_files", "contract_id", id, fileToken)
		return err
	})
	return f, wrap("contract file", err)
}

// DeleteContractFiles removes files of a contract of the unit, all or none.
func (db *DB) DeleteContractFiles(ctx context.Context, unitID int64, token string, fileTokens []string) error {
	return wrap("delete contract files", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		id, err := recordID(ctx, tx, tableContracts, unitID, token, false)
		if err != nil {
			return err
		}
		for _, ft := range fileTokens {
			if err := changed(tx.ExecContext(ctx, `DELETE FROM contract_files WHERE contract_id = ? AND token = ?`, id, ft)); err != nil {
				if errors.Is(err, ErrNotFound) {
					return ErrFileNotFound
				}
				return err
			}
		}
		return nil
	}))
}

const contractSelect = `SELECT k.id, k.token, k.contract_name, k.status, c.token, c.display_name, t.token, k.validity_start, k.validity_end,
	k.is_recurring, k.recurrence_type, k.generates_payment, k.auto_extend, k.description, o.token, k.active, k.created_at
	FROM contracts k JOIN contacts c ON c.id = k.contact_id LEFT JOIN contract_templates t ON t.id = k.template_id
	LEFT JOIN sales_orders o ON o.id = k.sales_order_id`

func scanContract(s scanner) (Contract, error) {
	var c Contract
	err := s.Scan(&c.id, &c.Token, &c.ContractName, &c.Status, &c.IDContact, &c.ContactName, &c.IDTemplate, &c.ValidityStart, &c.ValidityEnd,
		&c.IsRecurring, &c.RecurrenceType, &c.GeneratesPayment, &c.AutoExtend, &c.Description, &c.IDSalesOrder, &c.Active, &c.CreatedDate)
	return c, err
}

func attachContractParts(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, c *Contract) error {
	c.SalesOrders, c.Files = []string{}, []FileInfo{}
	rows, err := q.QueryContext(ctx, `SELECT o.token FROM contract_orders l JOIN sales_orders o ON o.id = l.order_id WHERE l.contract_id = ? ORDER BY o.id`, c.id)
	if err != nil {
		return err
	}
	for rows.Next() {
		var t string
		rows.Scan(&t)
		c.SalesOrders = append(c.SalesOrders, t)
	}
	rows.Close()
	rows, err = q.QueryContext(ctx, `SELECT token, name, content_type, size, sha256, created_at FROM contract_files WHERE contract_id = ? ORDER BY id`, c.id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var f FileInfo
		if err := rows.Scan(&f.Token, &f.Name, &f.ContentType, &f.Size, &f.SHA256, &f.CreatedDate); err != nil {
			return err
		}
		c.Files = append(c.Files, f)
	}
	return rows.Err()
}

// Contract returns one contract of the unit.
func (db *DB) Contract(ctx context.Context, unitID int64, token string) (Contract, error) {
	var c Contract
	err := db.read(ctx, func(tx *sql.Tx) error {
		var err error
		if c, err = scanContract(tx.QueryRowContext(ctx, contractSelect+` WHERE k.unit_id = ? AND k.token = ?`, unitID, token)); err != nil {
			return notFound(err)
		}
		return attachContractParts(ctx, tx, &c)
	})
	return c, wrap("contract", err)
}

// ContractFilter narrows /list_contracts.
type ContractFilter struct {
	ContactToken, Status, ValidOn string
	Active                        *bool
}

// Contracts lists a page of the unit's contracts (active ones unless
// asked), newest validity first, and how many there are.
func (db *DB) Contracts(ctx context.Context, unitID int64, f ContractFilter, pg Page) ([]Contract, int, error) {
	where, args := []string{"k.unit_id = ?", "k.active = ?"}, []any{unitID, 1}
	if f.Active != nil {
		args[1] = boolInt(*f.Active)
	}
	for _, c := range []struct{ cond, val string }{{"c.token = ?", f.ContactToken}, {"k.status = ?", f.Status}} {
		if c.val != "" {
			where, args = append(where, c.cond), append(args, c.val)
		}
	}
	if f.ValidOn != "" {
		where = append(where, "k.validity_start <= ? AND (k.validity_end IS NULL OR k.validity_end >= ? OR k.auto_extend = 1)")
		args = append(args, f.ValidOn, f.ValidOn)
	}
	var out []Contract
	var total int
	err := db.read(ctx, func(tx *sql.Tx) error {
		var err error
		l := listing{what: "contracts", query: contractSelect, where: where, args: args, order: "k.validity_start DESC, k.id DESC"}
		if out, total, err = pageIn(ctx, tx, l, pg, func(rows *sql.Rows) (Contract, error) { return scanContract(rows) }); err != nil {
			return err
		}
		for i := range out {
			if err := attachContractParts(ctx, tx, &out[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, wrap("contracts", err)
	}
	return out, total, nil
}

// ContractBillingJob names the contract billing's job runs.
const ContractBillingJob = "contract_billing"

// CopyContractOrders writes the rows of the contract billing for today
// (billing.Service.BillContracts runs it): every active contract (status
// active) that is recurring and generates payment gets, for each period
// the rules say is billable by today (Rules.ContractPeriods), a copy of
// its sales order due on the period's due date. A period is billed once.
// Contracts past their end without auto_extend become expired. It answers
// the orders created.
func (db *DB) CopyContractOrders(ctx context.Context, today Date) ([]BilledOrder, int, error) {
	var created []string
	var billed []BilledOrder
	expired := 0
	rules, err := db.rules()
	if err != nil {
		return nil, 0, err
	}
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		rows, err := tx.QueryContext(ctx, `SELECT k.id, k.unit_id, k.validity_start, k.validity_end, k.auto_extend, k.recurrence_type, k.sales_order_id,
			o.estimated_payment_date
			FROM contracts k JOIN sales_orders o ON o.id = k.sales_order_id
			WHERE k.active = 1 AND k.status = 'active' AND k.is_recurring = 1 AND k.generates_payment = 1 AND k.recurrence_type IN ('monthly', 'yearly')`)
		if err != nil {
			return err
		}
		type contract struct {
			id, unit, order int64
			term            ContractTerm
		}
		var cs []contract
		for rows.Next() {
			var c contract
			var start, due string
			var end sql.NullString
			if err := rows.Scan(&c.id, &c.unit, &start, &end, &c.term.AutoExtend, &c.term.Recurrence, &c.order, &due); err != nil {
				rows.Close()
				return err
			}
			c.term.Start, _ = ParseDateISO(start)
			c.term.Due, _ = ParseDateISO(due)
			c.term.End = end.String
			cs = append(cs, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, c := range cs {
			for _, period := range rules.ContractPeriods(c.term, today) {
				var one int
				if err := tx.QueryRowContext(ctx, `SELECT 1 FROM contract_billing WHERE contract_id = ? AND period = ?`, c.id, period.K).Scan(&one); err == nil {
					continue
				} else if !errors.Is(err, sql.ErrNoRows) {
					return err
				}
				seq, err := nextCounter(ctx, tx, c.unit, "sales_order")
				if err != nil {
					return err
				}
				tok := db.id()
				res, err := tx.ExecContext(ctx, `
					INSERT INTO sales_orders (token, cod_seq, cod_orders, estimated_payment_date, recurrence, created_at, updated_at, `+orderCopyColumns+`)
					SELECT ?, ?, ?, ?, 0, ?, ?, `+orderCopyColumns+` FROM sales_orders WHERE id = ?`,
					tok, seq, OrderCode(seq), period.Due.ISO(), timestamp(now), timestamp(now), c.order)
				if err != nil {
					return err
				}
				id, _ := res.LastInsertId()
				if err := copyLines(ctx, tx, id, c.order); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO contract_billing (contract_id, period, order_id) VALUES (?, ?, ?)`, c.id, period.K, id); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO contract_orders (contract_id, order_id) VALUES (?, ?)`, c.id, id); err != nil {
					return err
				}
				if err := db.emit(ctx, tx, c.unit, "sales_order.created", map[string]any{"id_token": tok, "cod_orders": OrderCode(seq),
					"estimated_payment_date": period.Due.ISO()}, now); err != nil {
					return err
				}
				created = append(created, OrderCode(seq))
				billed = append(billed, BilledOrder{UnitID: c.unit, Token: tok, Code: OrderCode(seq)})
			}
		}
		// Expiry comes after billing, so that a contract's last periods are
		// billed even when the job first runs after its end.
		res, err := tx.ExecContext(ctx, `UPDATE contracts SET status = 'expired', updated_at = ?
			WHERE status IN ('draft', 'active') AND auto_extend = 0 AND validity_end IS NOT NULL AND validity_end < ?`, timestamp(now), today.ISO())
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		expired = int(n)
		return recordJobRun(ctx, tx, ContractBillingJob, today, created, now)
	})
	return billed, expired, wrap("bill contracts", err)
}

// BilledOrder is an order the contract billing created.
type BilledOrder struct {
	UnitID      int64
	Token, Code string
}

// AcceptPixAutomatico records the payer's acceptance of a contract's PIX
// automático recurrence: the contract's order (requested_payment_mode
// PIX_AUTOMATICO, generateChargeOnPixAutomaticAcceptance) becomes due in
// 30 days, and the contract active. It answers the order's token, whose
// first charge the caller then issues.
func (db *DB) AcceptPixAutomatico(ctx context.Context, unitID int64, contractToken string) (string, error) {
	var order string
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var orderID sql.NullInt64
		var mode sql.NullString
		var charge bool
		var accepted sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT o.id, o.token, o.requested_payment_mode, o.charge_on_pix_acceptance, o.pix_accepted_at
			FROM contracts k JOIN sales_orders o ON o.id = k.sales_order_id WHERE k.unit_id = ? AND k.token = ? AND k.active = 1`, unitID, contractToken).
			Scan(&orderID, &order, &mode, &charge, &accepted)
		if err != nil {
			return notFound(err)
		}
		if mode.String != "PIX_AUTOMATICO" || !charge {
			return ErrNoPixAutomatico
		}
		if accepted.Valid {
			return nil // accepted before: the charge exists or is being issued
		}
		due := Date{Today(now).AddDate(0, 0, 30)}
		if _, err := tx.ExecContext(ctx, `UPDATE sales_orders SET pix_accepted_at = ?, estimated_payment_date = ?, updated_at = ? WHERE id = ?`,
			timestamp(now), due.ISO(), timestamp(now), orderID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE contracts SET status = 'active', updated_at = ? WHERE unit_id = ? AND token = ? AND status = 'draft'`,
			timestamp(now), unitID, contractToken)
		return err
	})
	return order, wrap("accept pix automatico", err)
}
