package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// InboxNFe is an NF-e issued against the unit's CNPJ, in its inbox.
type InboxNFe struct {
	Token         string `json:"token" format:"uuid" doc:"The inbox note's token."`
	AccessKey     string `json:"access_key" pattern:"^[0-9]{44}$" doc:"The NF-e's 44-digit access key."`
	SupplierCNPJ  string `json:"supplier_cnpj" doc:"The issuer's CNPJ."`
	SupplierName  string `json:"supplier_name" doc:"The issuer's name."`
	IssueDate     Text   `json:"issue_date" format:"date" doc:"The day it was issued, YYYY-MM-DD; null when unknown."`
	TotalValue    Money  `json:"total_value" doc:"The NF-e's total."`
	Manifestation Text   `json:"manifestation" enum:"ciencia,confirmacao,desconhecimento,nao_realizada" doc:"The unit's manifestation: ciencia, confirmacao, desconhecimento or nao_realizada; null before any."`
	ManifestedAt  Stamp  `json:"manifested_at" doc:"When the unit manifested (RFC 3339); null before."`
	Justification Text   `json:"justification" doc:"The justification of a nao_realizada; null when none."`
	// ManifestationStatus is where the manifestation stands at the
	// national environment: pending (not sent yet: a unit without a
	// certificate keeps it so), registered, refused; null without one.
	ManifestationStatus Text `json:"manifestation_status" enum:"pending,registered,refused" doc:"Where the manifestation stands at the national environment: pending (not sent yet), registered or refused; null without one."`
	// ManifestationReply is the authority's protocol, or its code and
	// text of a refusal.
	ManifestationReply Text `json:"manifestation_reply" doc:"The authority's protocol, or its code and text of a refusal; null before."`
	// ConfirmedAt is when the note's authority confirmed it authorized
	// with this content; null when it was not asked (a unit without a
	// certificate, test mode).
	ConfirmedAt   Stamp `json:"confirmed_at" doc:"When the note's authority confirmed it authorized with this content (RFC 3339); null when it was not asked."`
	PurchaseOrder Text  `json:"id_purchase_order" doc:"The purchase order made from it; null when none."`
	CreatedDate   Stamp `json:"created_date" doc:"When it reached the inbox (RFC 3339)."`
	// Summary says only the note's summary (resNFe) is in the inbox: its
	// full document comes once the unit's ciência is registered.
	Summary bool `json:"summary" doc:"true: only the note's summary (resNFe) is here; its full document comes once the unit's ciência is registered."`
	// Situation is the note's standing at its authority as the national
	// environment distributed it; null when it said nothing.
	Situation Text `json:"situation" enum:"authorized,denied,cancelled" doc:"The note's standing at its authority as the national environment distributed it: authorized, denied or cancelled; null when it said nothing."`
}

// NewInboxNFe is an imported NF-e, already read and checked.
type NewInboxNFe struct {
	AccessKey, SupplierCNPJ, SupplierName, IssueDate string
	Total                                            Money
	XML                                              []byte
	// Confirmed is a note its authority confirmed authorized with this
	// content.
	Confirmed bool
}

// confirmedAt is the confirmed_at of a new inbox note: now when its
// authority confirmed it, else null.
func confirmedAt(n NewInboxNFe, now time.Time) any {
	if !n.Confirmed {
		return nil
	}
	return timestamp(now)
}

// ImportNFe puts an NF-e in the unit's inbox; the same key twice is
// ErrDuplicate.
func (db *DB) ImportNFe(ctx context.Context, unitID int64, n NewInboxNFe) (string, error) {
	token := db.newToken(ctx)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO nfe_inbox (token, unit_id, access_key, supplier_cnpj, supplier_name, issue_date, total_value, xml, created_at, confirmed_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, token, unitID, n.AccessKey, n.SupplierCNPJ, n.SupplierName, nullString(n.IssueDate), n.Total,
			string(n.XML), timestamp(now), confirmedAt(n, now))
		if isUnique(err) {
			return ErrDuplicate
		}
		return err
	})
	return token, wrap("import nfe", err)
}

// InboxNFes lists a page of the unit's inbox, newest first, and how many
// notes it holds.
func (db *DB) InboxNFes(ctx context.Context, unitID int64, pg Page) ([]InboxNFe, int, error) {
	l := listing{what: "inbox nfes", query: `SELECT n.token, n.access_key, n.supplier_cnpj, n.supplier_name, n.issue_date, n.total_value,
		n.manifestation, n.manifested_at, n.justification,
		CASE WHEN n.manifestation IS NULL THEN NULL ELSE COALESCE(n.manifestation_sent, 'pending') END,
		n.manifestation_reply, n.confirmed_at, p.token, n.created_at, n.summary, n.situation
		FROM nfe_inbox n LEFT JOIN purchase_orders p ON p.unit_id = n.unit_id AND p.access_key = n.access_key`,
		where: []string{"n.unit_id = ?"}, args: []any{unitID}, order: "n.id DESC"}
	return pageOf(ctx, db, l, pg, func(rows *sql.Rows) (InboxNFe, error) {
		var n InboxNFe
		err := rows.Scan(&n.Token, &n.AccessKey, &n.SupplierCNPJ, &n.SupplierName, &n.IssueDate, &n.TotalValue, &n.Manifestation,
			&n.ManifestedAt, &n.Justification, &n.ManifestationStatus, &n.ManifestationReply, &n.ConfirmedAt, &n.PurchaseOrder, &n.CreatedDate,
			&n.Summary, &n.Situation)
		return n, err
	})
}

// InboxXML returns the XML of an NF-e of the unit's inbox, by key.
func (db *DB) InboxXML(ctx context.Context, unitID int64, key string) ([]byte, error) {
	var x string
	// A summary holds no note to read: the note is not in the inbox yet.
	err := db.r.QueryRowContext(ctx, `SELECT xml FROM nfe_inbox WHERE unit_id = ? AND access_key = ? AND summary = 0`, unitID, key).Scan(&x)
	return []byte(x), wrap("inbox xml", notFound(err))
}

// Manifest records the recipient's manifestation of an NF-e of the inbox
// (by key or token). Ciência may come first and only once; then one
// conclusive event (confirmação, desconhecimento, operação não realizada)
// ends it.
func (db *DB) Manifest(ctx context.Context, unitID int64, id, event, justification string) error {
	return wrap("manifest", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var current sql.NullString
		var rowID int64
		err := tx.QueryRowContext(ctx, `SELECT id, manifestation FROM nfe_inbox WHERE unit_id = ? AND (access_key = ? OR token = ?)`, unitID, id, id).
			Scan(&rowID, &current)
		if err != nil {
			return notFound(err)
		}
		switch {
		case current.String != "" && current.String != "ciencia":
			return ErrAlreadyManifested
		case event == "ciencia" && current.String == "ciencia":
			return ErrManifestRule
		}
		_, err = tx.ExecContext(ctx, `UPDATE nfe_inbox SET manifestation = ?, manifested_at = ?, justification = ?,
			manifestation_sent = NULL, manifestation_reply = NULL WHERE id = ?`,
			event, timestamp(now), nullString(justification), rowID)
		return err
	}))
}

// PendingManifestation is a manifestation recorded and not sent yet.
type PendingManifestation struct {
	UnitID        int64
	CNPJ          string // the unit's: the recipient's
	AccessKey     string
	Event         string // ciencia, confirmacao, desconhecimento, nao_realizada
	Justification string
	At            time.Time
}

// PendingManifestations lists the domain's manifestations not sent yet.
func (db *DB) PendingManifestations(ctx context.Context) ([]PendingManifestation, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT n.unit_id, COALESCE(u.cnpj, ''), n.access_key, n.manifestation, COALESCE(n.justification, ''), n.manifested_at
		FROM nfe_inbox n JOIN units u ON u.id = n.unit_id WHERE n.manifestation IS NOT NULL AND n.manifestation_sent IS NULL ORDER BY n.manifested_at`)
	if err != nil {
		return nil, wrap("pending manifestations", err)
	}
	defer rows.Close()
	var out []PendingManifestation
	for rows.Next() {
		var m PendingManifestation
		var at string
		if err := rows.Scan(&m.UnitID, &m.CNPJ, &m.AccessKey, &m.Event, &m.Justification, &at); err != nil {
			return nil, wrap("pending manifestations", err)
		}
		m.At, _ = time.Parse(time.RFC3339, at)
		out = append(out, m)
	}
	return out, wrap("pending manifestations", rows.Err())
}

// ManifestationSent records the national environment's answer to a
// manifestation: registered with its protocol, or refused with its code
// and text. A manifestation changed since is left waiting.
func (db *DB) ManifestationSent(ctx context.Context, unitID int64, key, event string, registered bool, reply string) error {
	sent := "refused"
	if registered {
		sent = "registered"
	}
	return wrap("manifestation sent", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `UPDATE nfe_inbox SET manifestation_sent = ?, manifestation_reply = ?
			WHERE unit_id = ? AND access_key = ? AND manifestation = ?`, sent, reply, unitID, key, event)
		return err
	}))
}

// PurchaseItem is one item of a purchase order.
type PurchaseItem struct {
	Code        string `json:"code" doc:"The supplier's product code (cProd)."`
	Description string `json:"description" doc:"The item's description."`
	NCM         string `json:"ncm" doc:"The item's NCM."`
	CFOP        string `json:"cfop" doc:"The item's CFOP."`
	Unit        string `json:"unit" doc:"The item's unit of measure."`
	Quantity    string `json:"quantity" doc:"The quantity, a decimal string."`
	UnitValue   string `json:"unitValue" doc:"The unit price, a decimal string."`
	Total       string `json:"total" doc:"The item's total, a decimal string."`
	Tax         string `json:"tax" doc:"The item's taxes, a decimal string."`
}

// KeyInfo is what an access key itself says.
type KeyInfo struct {
	State     string `json:"state" doc:"The IBGE code of the issuer's state (the key's first two digits)."`
	YearMonth string `json:"yearMonth" doc:"The year and month of issue, YYYY-MM."`
	CNPJ      string `json:"cnpj" doc:"The issuer's CNPJ."`
	Model     string `json:"model" doc:"The document's model, two digits (55 for an NF-e)."`
	Series    string `json:"series" doc:"The series, three digits as in the key."`
	Number    string `json:"number" doc:"The number, nine digits as in the key."`
}

// PurchaseFields are what a purchase order is created with.
type PurchaseFields struct {
	AccessKey, Status, IssueDate, EstimatedPaymentDate string
	SupplierName, SupplierCNPJ                         string
	CategoryToken, ProjectToken                        string
	Total, ItemsTotal, ItemsTax, Freight, TotalTax     Money
	Items                                              []PurchaseItem
	XMLFileName                                        string
	KeyInfo                                            KeyInfo
}

// PurchaseOrder is a purchase order as /list_purchase_orders returns it.
type PurchaseOrder struct {
	PurchaseOrders string         `json:"purchase_orders" doc:"The purchase order's code in the unit, in sequence (PC-000001)."`
	ID             string         `json:"id" doc:"The purchase order's token."`
	IssueDate      Text           `json:"issueDate" doc:"When the supplier issued the NF-e, as its XML gives it; null from a key alone."`
	AccessKey      string         `json:"accessKey" doc:"The NF-e's 44-digit access key."`
	SupplierName   string         `json:"supplierName" doc:"The supplier's name, from the NF-e (blank from a key alone)."`
	SupplierCnpj   string         `json:"supplierCnpj" doc:"The supplier's CNPJ, digits."`
	TotalValue     Money          `json:"totalValue" doc:"The NF-e's total."`
	Active         bool           `json:"active" doc:"false once disabled (/set_purchase_order_active)."`
	CreatedDate    Stamp          `json:"createdDate" doc:"When the purchase order was recorded (RFC 3339)."`
	ItemsTotal     Money          `json:"itemsTotal" doc:"The items' total, before taxes."`
	ItemsTaxTotal  Money          `json:"itemsTaxTotal" doc:"The taxes of the items."`
	ItemsCount     int            `json:"itemsCount" doc:"How many items it has."`
	ContactID      Text           `json:"contactId" doc:"The supplier's contact token (made from the NF-e's issuer when new); null when none."`
	CategoryID     Text           `json:"categoryId" doc:"The expense category's token; null when none."`
	ProjectID      Text           `json:"projectId" doc:"The project's token; null when none."`
	FreightValue   Money          `json:"freightValue" doc:"The freight on the NF-e."`
	TotalTax       Money          `json:"totalTax" doc:"The NF-e's total taxes."`
	XMLFileName    Text           `json:"xmlFileName" doc:"The name of the NF-e's XML file it was made from; null from a key alone."`
	UnitToken      string         `json:"unitToken" doc:"The unit's token."`
	FilesName      []string       `json:"filesName" doc:"Always empty: fincom keeps no attachments with a purchase order (the spec's field, kept for its clients)."`
	PdfsName       []string       `json:"pdfsName" doc:"Always empty, as filesName."`
	Items          []PurchaseItem `json:"items" doc:"The NF-e's items (empty from a key alone)."`
	Status         string         `json:"status" enum:"awaiting_xml,complete" doc:"complete when made from the NF-e's XML, awaiting_xml when from its access key alone."`
	EstimatedDate  Text           `json:"estimatedPaymentDate" doc:"When it is to be paid, YYYY-MM-DD; null when not given."`
	KeyInfo        KeyInfo        `json:"keyInfo" doc:"What the access key itself says."`
}

// InsertPurchaseOrder creates a purchase order for an access key, and the
// supplier contact when the unit has none with that CNPJ. The same key
// twice is ErrDuplicate.
func (db *DB) InsertPurchaseOrder(ctx context.Context, unitID int64, f PurchaseFields) (string, error) {
	token := db.newToken(ctx)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var cat, proj sql.NullInt64
		for _, q := range []struct {
			field, tok, table string
			dst               *sql.NullInt64
		}{{"category_id_token", f.CategoryToken, "categories", &cat}, {"id_token_project", f.ProjectToken, "projects", &proj}} {
			if q.tok == "" {
				continue
			}
			if err := tx.QueryRowContext(ctx, `SELECT id FROM `+q.table+` WHERE unit_id = ? AND token = ? AND active = 1`, unitID, q.tok).Scan(q.dst); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return &RefError{q.field}
				}
				return err
			}
		}
		var contact int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM contacts WHERE unit_id = ? AND register = ?`, unitID, f.SupplierCNPJ).Scan(&contact)
		if errors.Is(err, sql.ErrNoRows) {
			name := f.SupplierName
			res, err := tx.ExecContext(ctx, `INSERT INTO contacts (token, unit_id, type, register, display_name, social_reason, observation,
				created_at, updated_at, sort_key) VALUES (?, ?, 'legal', ?, ?, ?, 'Fornecedor criado por uma NF-e de compra', ?, ?, ?)`,
				db.id(), unitID, f.SupplierCNPJ, name, name, timestamp(now), timestamp(now), sortKey(name))
			if err != nil {
				return err
			}
			contact, _ = res.LastInsertId()
		} else if err != nil {
			return err
		}
		seq, err := nextCounter(ctx, tx, unitID, "purchase_order")
		if err != nil {
			return err
		}
		items, _ := json.Marshal(f.Items)
		info, _ := json.Marshal(f.KeyInfo)
		_, err = tx.ExecContext(ctx, `INSERT INTO purchase_orders (token, unit_id, code, access_key, status, issue_date, estimated_payment_date, contact_id,
			supplier_name, supplier_cnpj, category_id, project_id, total_value, items_total, items_tax_total, freight_value, total_tax, items, xml_file_name,
			files_name, pdfs_name, key_info, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', '[]', ?, ?, ?)`,
			token, unitID, fmt.Sprintf("PC-%06d", seq), f.AccessKey, f.Status, nullString(f.IssueDate), nullString(f.EstimatedPaymentDate), contact,
			f.SupplierName, f.SupplierCNPJ, cat, proj, f.Total, f.ItemsTotal, f.ItemsTax, f.Freight, f.TotalTax, string(items),
			nullString(f.XMLFileName), string(info), timestamp(now), timestamp(now))
		if isUnique(err) {
			return ErrDuplicate
		}
		return err
	})
	return token, wrap("insert purchase order", err)
}

// PurchaseFilter narrows /list_purchase_orders.
type PurchaseFilter struct {
	From, To, ContactToken, CategoryToken, ProjectToken, Search, AccessKey, Code string
}

const purchaseSelect = `SELECT p.code, p.token, p.issue_date, p.access_key, p.supplier_name, p.supplier_cnpj, p.total_value, p.active, p.created_at,
	p.items_total, p.items_tax_total, c.token, cat.token, pr.token, p.freight_value, p.total_tax, p.xml_file_name, un.token, p.files_name,
	p.pdfs_name, p.items, p.status, p.estimated_payment_date, p.key_info
	FROM purchase_orders p JOIN units un ON un.id = p.unit_id LEFT JOIN contacts c ON c.id = p.contact_id
	LEFT JOIN categories cat ON cat.id = p.category_id LEFT JOIN projects pr ON pr.id = p.project_id`

func scanPurchase(s scanner) (PurchaseOrder, error) {
	var p PurchaseOrder
	var files, pdfs, items, info string
	err := s.Scan(&p.PurchaseOrders, &p.ID, &p.IssueDate, &p.AccessKey, &p.SupplierName, &p.SupplierCnpj, &p.TotalValue, &p.Active, &p.CreatedDate,
		&p.ItemsTotal, &p.ItemsTaxTotal, &p.ContactID, &p.CategoryID, &p.ProjectID, &p.FreightValue, &p.TotalTax, &p.XMLFileName, &p.UnitToken,
		&files, &pdfs, &items, &p.Status, &p.EstimatedDate, &info)
	if err != nil {
		return p, err
	}
	json.Unmarshal([]byte(files), &p.FilesName)
	json.Unmarshal([]byte(pdfs), &p.PdfsName)
	json.Unmarshal([]byte(items), &p.Items)
	json.Unmarshal([]byte(info), &p.KeyInfo)
	if p.Items == nil {
		p.Items = []PurchaseItem{}
	}
	p.ItemsCount = len(p.Items)
	return p, nil
}

// PurchaseOrders lists the unit's purchase orders (active and not).
func (db *DB) PurchaseOrders(ctx context.Context, unitID int64, f PurchaseFilter) ([]PurchaseOrder, error) {
	where, args := []string{"p.unit_id = ?"}, []any{unitID}
	for _, c := range []struct{ cond, val string }{
		{"p.estimated_payment_date >= ?", f.From}, {"p.estimated_payment_date <= ?", f.To}, {"c.token = ?", f.ContactToken},
		{"cat.token = ?", f.CategoryToken}, {"pr.token = ?", f.ProjectToken}, {"p.access_key = ?", f.AccessKey}, {"p.code = ?", f.Code},
	} {
		if c.val != "" {
			where, args = append(where, c.cond), append(args, c.val)
		}
	}
	if f.Search != "" {
		// The supplier's name and document, and the items' descriptions
		// and codes: values, never the stored JSON's keys
		// (TestPurchaseSearchValues).
		text := fold(f.Search)
		where = append(where, `(instr(fincom_fold(p.supplier_name), ?) > 0 OR instr(fincom_fold(p.supplier_cnpj), ?) > 0 OR EXISTS (
			SELECT 1 FROM json_each(p.items) i WHERE instr(fincom_fold(i.value ->> 'description'), ?) > 0 OR instr(fincom_fold(i.value ->> 'code'), ?) > 0))`)
		document := strings.NewReplacer(".", "", "/", "", "-", "").Replace(text) // a CNPJ typed with its mask
		args = append(args, text, document, text, text)
	}
	rows, err := db.r.QueryContext(ctx, purchaseSelect+` WHERE `+strings.Join(where, " AND ")+` ORDER BY p.estimated_payment_date DESC, p.id DESC`, args...)
	if err != nil {
		return nil, wrap("purchase orders", err)
	}
	defer rows.Close()
	out := []PurchaseOrder{}
	for rows.Next() {
		p, err := scanPurchase(rows)
		if err != nil {
			return nil, wrap("purchase orders", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PurchaseOrder returns one purchase order of the unit.
func (db *DB) PurchaseOrder(ctx context.Context, unitID int64, token string) (PurchaseOrder, error) {
	p, err := scanPurchase(db.r.QueryRowContext(ctx, purchaseSelect+` WHERE p.unit_id = ? AND p.token = ?`, unitID, token))
	return p, wrap("purchase order", notFound(err))
}

// SetPurchaseOrderActive activates or deactivates a purchase order of the
// unit.
func (db *DB) SetPurchaseOrderActive(ctx context.Context, unitID int64, token string, active bool) error {
	return db.setActive(ctx, "purchase_orders", unitID, token, active)
}

// distributionNSU names the unit's counter of the last NSU the national
// environment's distribution gave it.
const distributionNSU = "nfe_distribution_nsu"

// DistributionNSU answers the last NSU of the national environment's
// distribution the unit has read (0 before the first).
func (db *DB) DistributionNSU(ctx context.Context, unitID int64) (int64, error) {
	var n int64
	err := db.r.QueryRowContext(ctx, `SELECT value FROM unit_counters WHERE unit_id = ? AND name = ?`, unitID, distributionNSU).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, wrap("distribution nsu", err)
}

// SetDistributionNSU records the last NSU read; it only moves forward.
func (db *DB) SetDistributionNSU(ctx context.Context, unitID, nsu int64) error {
	return wrap("set distribution nsu", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO unit_counters (unit_id, name, value) VALUES (?, ?, ?)
			ON CONFLICT (unit_id, name) DO UPDATE SET value = max(value, excluded.value)`, unitID, distributionNSU, nsu)
		return err
	}))
}

// DistributedLot is a lot of the national environment's distribution as
// the inbox judged it: the notes it takes, the documents it does not
// (with why), and the NSU the lot was read up to.
type DistributedLot struct {
	Notes []NewInboxNFe
	// Summaries are notes distributed as summaries (resNFe); Cancelled
	// the keys the lot's events cancel.
	Summaries []InboxSummary
	Cancelled []string
	Refused   []RefusedDocument
	NSU       int64
}

// InboxSummary is a note issued to the unit as the national environment
// summarizes it before its full document is available (resNFe): its
// situation authorized, denied or cancelled.
type InboxSummary struct {
	AccessKey, SupplierCNPJ, SupplierName, IssueDate, Situation string
	Total                                                       Money
	XML                                                         []byte
}

// RefusedDocument is a distributed document the inbox did not take.
type RefusedDocument struct {
	NSU       int64  `json:"nsu"`
	Schema    string `json:"schema"`
	Reason    string `json:"reason"`
	RefusedAt string `json:"refused_at,omitempty"`
}

// ApplyDistribution writes a judged lot in one transaction: its notes (one
// already in the inbox stays as it is; a refusal of the same NSU is
// lifted), its refused documents, and the unit's position, which only
// moves forward. It answers the keys of the notes it added.
func (db *DB) ApplyDistribution(ctx context.Context, unitID int64, lot DistributedLot, taken []int64) ([]string, error) {
	added := []string{}
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		added = added[:0]
		for _, s := range lot.Summaries {
			if _, err := tx.ExecContext(ctx, `INSERT INTO nfe_inbox (token, unit_id, access_key, supplier_cnpj, supplier_name, issue_date, total_value, xml,
					created_at, summary, situation)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?) ON CONFLICT (unit_id, access_key) DO NOTHING`, db.newToken(ctx), unitID, s.AccessKey, s.SupplierCNPJ,
				s.SupplierName, nullString(s.IssueDate), s.Total, string(s.XML), timestamp(now), nullString(s.Situation)); err != nil {
				return err
			}
		}
		for _, n := range lot.Notes {
			// A note already in the inbox stays as it is, but a summary,
			// which its full document replaces.
			res, err := tx.ExecContext(ctx, `INSERT INTO nfe_inbox (token, unit_id, access_key, supplier_cnpj, supplier_name, issue_date, total_value, xml, created_at, confirmed_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (unit_id, access_key) DO UPDATE SET supplier_cnpj = excluded.supplier_cnpj,
					supplier_name = excluded.supplier_name, issue_date = excluded.issue_date, total_value = excluded.total_value, xml = excluded.xml,
					confirmed_at = excluded.confirmed_at, summary = 0 WHERE nfe_inbox.summary = 1`, db.newToken(ctx), unitID, n.AccessKey, n.SupplierCNPJ,
				n.SupplierName, nullString(n.IssueDate), n.Total, string(n.XML), timestamp(now), confirmedAt(n, now))
			if err != nil {
				return err
			}
			if k, err := res.RowsAffected(); err != nil {
				return err
			} else if k == 1 {
				added = append(added, n.AccessKey)
			}
		}
		for _, key := range lot.Cancelled {
			if _, err := tx.ExecContext(ctx, `UPDATE nfe_inbox SET situation = 'cancelled' WHERE unit_id = ? AND access_key = ?`, unitID, key); err != nil {
				return err
			}
		}
		for _, nsu := range taken {
			if _, err := tx.ExecContext(ctx, `DELETE FROM inbox_refused WHERE unit_id = ? AND nsu = ?`, unitID, nsu); err != nil {
				return err
			}
		}
		for _, r := range lot.Refused {
			if _, err := tx.ExecContext(ctx, `INSERT INTO inbox_refused (unit_id, nsu, schema, reason, refused_at) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (unit_id, nsu) DO UPDATE SET schema = excluded.schema, reason = excluded.reason, refused_at = excluded.refused_at`,
				unitID, r.NSU, r.Schema, r.Reason, timestamp(now)); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO unit_counters (unit_id, name, value) VALUES (?, ?, ?)
			ON CONFLICT (unit_id, name) DO UPDATE SET value = max(value, excluded.value)`, unitID, distributionNSU, lot.NSU)
		return err
	})
	return added, wrap("apply distribution", err)
}

// RefusedDocuments lists the distributed documents the unit's inbox did
// not take, by NSU.
func (db *DB) RefusedDocuments(ctx context.Context, unitID int64) ([]RefusedDocument, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT nsu, schema, reason, refused_at FROM inbox_refused WHERE unit_id = ? ORDER BY nsu`, unitID)
	if err != nil {
		return nil, wrap("refused documents", err)
	}
	defer rows.Close()
	out := []RefusedDocument{}
	for rows.Next() {
		var r RefusedDocument
		if err := rows.Scan(&r.NSU, &r.Schema, &r.Reason, &r.RefusedAt); err != nil {
			return nil, wrap("refused documents", err)
		}
		out = append(out, r)
	}
	return out, wrap("refused documents", rows.Err())
}
