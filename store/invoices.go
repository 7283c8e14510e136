package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/shopspring/decimal"
	"time"
)

// InvoiceParty is an issuer's or recipient's data as stored.
type InvoiceParty struct {
	Register, Name, IM, Address, Number, Complement, Neighborhood, CityIBGE, City, State, Zip, Phone, Email string
	// StateRegistration and ICMSContributor: a contact's (ContactFields).
	StateRegistration, ICMSContributor string
}

// InvoiceItem is one product line with its fiscal data.
type InvoiceItem struct {
	Code, Description, NCM, CFOP, Unit string
	// IBSCBSClass is the line's cClassTrib as sold ("" the default); GTIN
	// the product's ("" none).
	IBSCBSClass, GTIN string
	Quantity          Decimal
	UnitValue, Total  Money
}

// InvoiceData is what issuing an order's invoice needs.
type InvoiceData struct {
	OrderID, UnitID                        int64
	OrderToken, CodOrders, Kind            string
	Active                                 bool
	Emitter, Recipient                     InvoiceParty
	Items                                  []InvoiceItem
	ServiceName                            string
	Description                            string
	Value, FreightTotal                    Money
	Quantity                               Decimal
	FreightMode, LocalDestino              int
	TipoDocumento, FinalidadeEmissao       string
	PresencaComprador, ConsumidorFinal     string
	ServiceID, ServiceCod, ServiceLocation string
	// ServiceClass and ServiceOperation are the service sold's IBS and
	// CBS cClassTrib and cIndOp ("" when it has none).
	ServiceClass, ServiceOperation         string
	Taxes                                  Taxes
	PaymentKey, NotifyEmailNF, PublicToken string
	// Charged is what the order's open and paid charges add up to (none:
	// zero), which the invoice's payment group must state; ChargedAtPSP
	// says a charge was created at the unit's PSP (a dynamic PIX).
	Charged      Money
	ChargedAtPSP bool
	Existing     *Invoice
	// Denied is the order's latest invoice when the authority denied it
	// (uso denegado).
	Denied *Invoice
	// Profile is the issuing unit's fiscal profile (its address is also in
	// Emitter); Certificate its certificate, nil when it has none.
	Profile     UnitProfile
	Certificate *UnitCertificate
}

// The statuses of an invoice. A pending one is a note sent whose verdict
// has not come (it lives in invoice_transmissions, not in invoices).
const (
	InvoicePending    = "PENDING"
	InvoiceAuthorized = "AUTHORIZED"
	// InvoiceContingency is a note issued in contingency (an NFC-e
	// offline, an NF-e by EPEC): valid for the sale, stored as authorized,
	// and without SEFAZ's protocol until SEFAZ authorizes it.
	InvoiceContingency = "CONTINGENCY"
	InvoiceRejected    = "REJECTED"
	InvoiceDenied      = "DENIED"
	InvoiceCancelled   = "CANCELLED"
)

// Invoice is an order's invoice and the authority's verdict on it.
type Invoice struct {
	Token  string `json:"token" format:"uuid" doc:"The invoice's token."`
	Kind   string `json:"kind" enum:"nfe,nfce,nfse,nfsen" doc:"nfe (NF-e), nfce (NFC-e), nfse (municipal NFS-e) or nfsen (national NFS-e)."`
	Status string `json:"status" enum:"PENDING,CONTINGENCY,AUTHORIZED,REJECTED,DENIED,CANCELLED" doc:"PENDING while the authority's verdict is awaited, CONTINGENCY issued offline and awaiting authorization, AUTHORIZED, REJECTED, DENIED or CANCELLED."`
	// StatusCode is the authority's code of its verdict (SEFAZ's cStat),
	// when it gave one; StatusText says the verdict as the order's
	// nf_status_text does, with the authority's own text.
	StatusCode   *int   `json:"status_code" doc:"The authority's code of its verdict (SEFAZ's cStat), when it gave one; null otherwise."`
	StatusText   Text   `json:"status_text" doc:"The verdict in words, with the authority's own text; null when none."`
	Series       int    `json:"series" doc:"The invoice's series."`
	Number       int    `json:"number" doc:"The invoice's number in its series."`
	AccessKey    Text   `json:"access_key" pattern:"^([0-9]{44}|[0-9]{50})$" doc:"The 44-digit access key (NF-e, NFC-e) or the national NFS-e's 50-digit key; null when the invoice has none."`
	Verification Text   `json:"verification_code" doc:"An NFS-e's verification code; null when the authority gives none."`
	Protocol     string `json:"protocol" doc:"The authorization protocol number (blank before authorization or in contingency)."`
	IssuedAt     string `json:"issued_at" doc:"When the invoice was issued, ISO 8601 in São Paulo time."`
	CancelledAt  Stamp  `json:"cancelled_at" doc:"When it was cancelled (RFC 3339); null when not."`
	CancelReason Text   `json:"cancel_reason" doc:"The cancellation reason sent to the authority; null when not cancelled."`
	XML          string `json:"-"`
	issued       time.Time
}

// IssuedTime is when the invoice was authorized.
func (i Invoice) IssuedTime() time.Time { return i.issued }

const invoiceSelect = `SELECT token, kind, status, series, number, access_key, verification, protocol, issued_at, cancelled_at, cancel_reason, xml,
	status_code, status_text FROM invoices`

func scanInvoice(s scanner) (Invoice, error) {
	var i Invoice
	var code sql.NullInt64
	err := s.Scan(&i.Token, &i.Kind, &i.Status, &i.Series, &i.Number, &i.AccessKey, &i.Verification, &i.Protocol, &i.IssuedAt,
		&i.CancelledAt, &i.CancelReason, &i.XML, &code, &i.StatusText)
	if err == nil {
		i.issued, _ = time.Parse(time.RFC3339, i.IssuedAt)
		i.IssuedAt = displayTimestamp(i.IssuedAt)
		if code.Valid {
			c := int(code.Int64)
			i.StatusCode = &c
		}
		if i.Status == InvoiceAuthorized && i.Protocol == "" && (i.Kind == "nfe" || i.Kind == "nfce") {
			i.Status = InvoiceContingency
		}
	}
	return i, err
}

// InvoiceData reads what issuing the invoice of an order of the unit needs.
func (db *DB) InvoiceData(ctx context.Context, unitID int64, orderToken string) (InvoiceData, error) {
	var d InvoiceData
	err := db.read(ctx, func(tx *sql.Tx) error {
		var o SalesOrderDetail
		if err := new(orderReader).scan(tx.QueryRowContext(ctx, salesOrderSelect+` WHERE o.unit_id = ? AND o.token = ?`, unitID, orderToken), &o); err != nil {
			return notFound(err)
		}
		d.OrderID, d.UnitID, d.OrderToken, d.CodOrders, d.Kind, d.Active = o.id, unitID, o.IDToken, o.CodOrders, o.NFKind, o.Active
		d.Description, d.Value, d.FreightTotal, d.Quantity = o.Description, o.Value, o.FreightTotal, o.Quantity
		d.FreightMode, d.LocalDestino = o.FreightMode, o.LocalDestino
		d.TipoDocumento, d.FinalidadeEmissao = o.TipoDocumento.String, o.FinalidadeEmissao.String
		d.PresencaComprador, d.ConsumidorFinal = o.PresencaComprador.String, o.ConsumidorFinal.String
		d.ServiceID, d.ServiceCod, d.ServiceLocation = o.InvoiceConfig.ServiceIDToken.String, o.ServiceCod.String, o.ServiceLocation.String
		d.Taxes, d.PaymentKey, d.NotifyEmailNF, d.PublicToken = o.Taxes, o.PaymentKey, o.NotifyEmailNF.String, o.PublicToken.String
		d.ServiceName = o.StockItemName.String
		// The service sold's IBS and CBS class and operation, as its
		// register says them now (a national NFS-e states them).
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(p.ibs_cbs_class, ''), COALESCE(p.ibs_cbs_operation, '')
			FROM sales_orders o LEFT JOIN products p ON p.id = o.stock_item_id WHERE o.id = ?`, o.id).Scan(&d.ServiceClass, &d.ServiceOperation); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT amount, COALESCE(provider_ref, '') LIKE 'psp:%' FROM charges WHERE order_id = ? AND status <> 'CANCELLED'`, o.id)
		if err != nil {
			return err
		}
		charged := decimal.Zero
		for rows.Next() {
			var m Money
			var atPSP bool
			if err := rows.Scan(&m, &atPSP); err != nil {
				rows.Close()
				return err
			}
			charged = charged.Add(m.Decimal)
			d.ChargedAtPSP = d.ChargedAtPSP || atPSP
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		d.Charged = NewMoney(charged)
		var cnpj, ibge, im sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT name, cnpj, city_ibge, im FROM units WHERE id = ?`, unitID).Scan(&d.Emitter.Name, &cnpj, &ibge, &im); err != nil {
			return err
		}
		d.Emitter.Register, d.Emitter.CityIBGE, d.Emitter.IM = cnpj.String, ibge.String, im.String
		if err := scanProfile(tx.QueryRowContext(ctx, `SELECT `+profileColumns+` FROM units WHERE id = ?`, unitID), &d.Profile); err != nil {
			return err
		}
		p := d.Profile
		d.Emitter.Address, d.Emitter.Number, d.Emitter.Complement, d.Emitter.Neighborhood = p.Street, p.Number, p.Complement, p.District
		d.Emitter.Zip, d.Emitter.Phone = p.Zip, p.Phone
		var crt UnitCertificate
		var nb, na string
		err = tx.QueryRowContext(ctx, `SELECT cert, sealed_key, cnpj, subject, not_before, not_after, test, chain FROM unit_certificates WHERE unit_id = ?`,
			unitID).Scan(&crt.Cert, &crt.SealedKey, &crt.CNPJ, &crt.Subject, &nb, &na, &crt.Test, &crt.Chain)
		switch {
		case err == nil:
			crt.NotBefore, _ = time.Parse(time.RFC3339, nb)
			crt.NotAfter, _ = time.Parse(time.RFC3339, na)
			d.Certificate = &crt
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		var c [14]sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT c.register, COALESCE(c.social_reason, c.full_name, c.display_name), c.address, c.number,
			c.neighborhood, c.city_ibge, c.city, c.state, c.zip_code, c.email, c.complement, c.phone, c.state_registration, c.icms_contributor
			FROM sales_orders o JOIN contacts c ON c.id = o.contact_id WHERE o.id = ?`, o.id).
			Scan(&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7], &c[8], &c[9], &c[10], &c[11], &c[12], &c[13]); err != nil {
			return err
		}
		d.Recipient = InvoiceParty{Register: c[0].String, Name: c[1].String, Address: c[2].String, Number: c[3].String,
			Neighborhood: c[4].String, CityIBGE: c[5].String, City: c[6].String, State: c[7].String, Zip: c[8].String, Email: c[9].String,
			Complement: c[10].String, Phone: c[11].String, StateRegistration: c[12].String, ICMSContributor: c[13].String}
		// The order's lines as sold: an invoice bills what the order sold.
		rows, err = tx.QueryContext(ctx, `SELECT code, description, COALESCE(ncm, ''), COALESCE(cfop, ''), COALESCE(unit, ''),
			quantity, unit_value, total, COALESCE(ibs_cbs_class, ''), COALESCE((SELECT p.gtin FROM products p WHERE p.id = product_id), '')
			FROM sales_order_lines WHERE order_id = ? ORDER BY position`, o.id)
		if err != nil {
			return err
		}
		for rows.Next() {
			var it InvoiceItem
			if err := rows.Scan(&it.Code, &it.Description, &it.NCM, &it.CFOP, &it.Unit, &it.Quantity, &it.UnitValue, &it.Total, &it.IBSCBSClass, &it.GTIN); err != nil {
				rows.Close()
				return err
			}
			d.Items = append(d.Items, it)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		inv, err := scanInvoice(tx.QueryRowContext(ctx, invoiceSelect+` WHERE order_id = ? ORDER BY id DESC LIMIT 1`, o.id))
		if err == nil && inv.Status == InvoiceDenied {
			denied := inv
			d.Denied = &denied
		}
		if err == nil && inv.Status != InvoiceAuthorized {
			inv, err = scanInvoice(tx.QueryRowContext(ctx, invoiceSelect+` WHERE order_id = ? AND status = 'AUTHORIZED'`, o.id))
		}
		if err == nil {
			d.Existing = &inv
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return nil
	})
	return d, wrap("invoice data", err)
}

// AuthorizedInvoice answers the key (or verification code) of the unit's
// document of a kind, series and number the authority authorized, if any
// (the simulated authority's duplicate check).
func (db *DB) AuthorizedInvoice(ctx context.Context, unitID int64, kind string, series, number int) (string, bool, error) {
	var key string
	err := db.r.QueryRowContext(ctx, `SELECT COALESCE(i.access_key, i.verification, '') FROM invoices i JOIN sales_orders o ON o.id = i.order_id
		WHERE o.unit_id = ? AND i.kind = ? AND i.series = ? AND i.number = ? AND i.status <> 'REJECTED'`, unitID, kind, series, number).Scan(&key)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return key, err == nil, wrap("authorized invoice", err)
}

// ReserveInvoiceNumber takes the next number of a unit's series of a kind.
func (db *DB) ReserveInvoiceNumber(ctx context.Context, unitID int64, kind string, series int) (int, error) {
	var n int64
	counter := invoiceCounter(kind, series)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		// A number given back (ReleaseInvoiceNumber) first: the series
		// keeps no hole where the authority refused a document.
		err := tx.QueryRowContext(ctx, `DELETE FROM invoice_free_numbers WHERE rowid =
			(SELECT rowid FROM invoice_free_numbers WHERE unit_id = ? AND counter = ? ORDER BY number LIMIT 1)
			RETURNING number`, unitID, counter).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			n, err = nextCounter(ctx, tx, unitID, counter)
		}
		return err
	})
	return int(n), wrap("reserve invoice number", err)
}

// ReleaseInvoiceNumber gives back a number ReserveInvoiceNumber took that
// no authorized document carries: the authority rejected the document
// without denying it, or was not reached. The next invoice takes it.
// A denied document (SEFAZ's "uso denegado") keeps its number: it is not
// given back.
func (db *DB) ReleaseInvoiceNumber(ctx context.Context, unitID int64, kind string, series, number int) error {
	return wrap("release invoice number", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO invoice_free_numbers (unit_id, counter, number) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			unitID, invoiceCounter(kind, series), number)
		return err
	}))
}

// ErrNumberUsed is a number to void that an invoice of the unit carries.
var ErrNumberUsed = errors.New("an invoice carries a number of the range")

// CheckVoidable answers ErrNumberUsed when an invoice of the unit's series
// carries a number of the range: those cannot be voided.
func (db *DB) CheckVoidable(ctx context.Context, unitID int64, kind string, series, from, to int) error {
	var n int
	err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM invoices WHERE unit_id = ? AND kind = ? AND series = ? AND number BETWEEN ? AND ?
		AND status <> 'REJECTED'`,
		unitID, kind, series, from, to).Scan(&n)
	if err == nil && n > 0 {
		err = ErrNumberUsed
	}
	return wrap("check voidable", err)
}

// VoidInvoiceNumbers records numbers of a series the authority voided
// (inutilização): no invoice will take them, given back or not yet
// reached (the series continues after the range). An invoice carrying one
// is ErrNumberUsed (TestVoidInvoiceNumbers).
func (db *DB) VoidInvoiceNumbers(ctx context.Context, unitID int64, kind string, series, from, to int) error {
	counter := invoiceCounter(kind, series)
	return wrap("void invoice numbers", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM invoices WHERE unit_id = ? AND kind = ? AND series = ? AND number BETWEEN ? AND ?
			AND status <> 'REJECTED'`,
			unitID, kind, series, from, to).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrNumberUsed
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM invoice_free_numbers WHERE unit_id = ? AND counter = ? AND number BETWEEN ? AND ?`,
			unitID, counter, from, to); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO unit_counters (unit_id, name, value) VALUES (?, ?, ?)
			ON CONFLICT (unit_id, name) DO UPDATE SET value = max(value, excluded.value)`, unitID, counter, to)
		return err
	}))
}

func invoiceCounter(kind string, series int) string {
	return fmt.Sprintf("invoice:%s:%d", kind, series)
}

// NewInvoice is an authorized document to store.
type NewInvoice struct {
	Kind                   string
	Series, Number         int
	AccessKey              string
	Verification, Protocol string
	XML                    []byte
	Issued                 time.Time
	// StatusCode is the authority's code of its verdict (0: none given).
	StatusCode int
}

// Invoice is the invoice n will be once saved (for what is made of it
// before: its e-mail's documents).
func (n NewInvoice) Invoice() Invoice {
	return Invoice{Kind: n.Kind, Status: "AUTHORIZED", Series: n.Series, Number: n.Number, AccessKey: NewText(n.AccessKey),
		Verification: NewText(n.Verification), Protocol: n.Protocol, IssuedAt: displayTimestamp(timestamp(n.Issued)), XML: string(n.XML),
		issued: n.Issued}
}

// SaveInvoice stores an authorized invoice for an order and marks the
// order: nf, date_nf, nf_status_text. If another request authorized one
// first, that one is answered (an order has one authorized invoice).
// offline, when given, is a note issued in contingency and not yet
// authorized (an NFC-e offline, an NF-e by EPEC): it is kept in
// transmission, in the same transaction, for the retry job to send, with
// the event registered for it (the EPEC), if any.
func (db *DB) SaveInvoice(ctx context.Context, orderID, unitID int64, in NewInvoice, statusText string, notice *Notice, offline *Transmission,
	event *InvoiceEvent) (Invoice, error) {
	var out Invoice
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		existing, err := scanInvoice(tx.QueryRowContext(ctx, invoiceSelect+` WHERE order_id = ? AND status = 'AUTHORIZED'`, orderID))
		if err == nil {
			out = existing
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// The invoice keeps the token it had while pending.
		var tok string
		if err := tx.QueryRowContext(ctx, `DELETE FROM invoice_transmissions WHERE order_id = ? RETURNING COALESCE(token, '')`, orderID).
			Scan(&tok); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if tok == "" {
			tok = db.id()
		}
		if t := offline; t != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO invoice_transmissions (order_id, unit_id, kind, series, number, access_key, issued_at,
				signed, attempts, last_error, updated_at, token) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
				orderID, unitID, t.Kind, t.Series, t.Number, t.Key, t.Issued.UTC().Format(time.RFC3339Nano), string(t.Signed),
				"issued in contingency: waits for SEFAZ", timestamp(now), tok); err != nil {
				return err
			}
		}
		if err := insertAuthorized(ctx, tx, tok, orderID, unitID, in, statusText, now); err != nil {
			return err
		}
		if err := queueNotice(ctx, tx, unitID, orderID, notice, now, db.id); err != nil {
			return err
		}
		if event != nil {
			var id int64
			if err := tx.QueryRowContext(ctx, `SELECT id FROM invoices WHERE token = ?`, tok).Scan(&id); err != nil {
				return err
			}
			if err := insertInvoiceEvent(ctx, tx, id, *event, now); err != nil {
				return err
			}
		}
		if out, err = scanInvoice(tx.QueryRowContext(ctx, invoiceSelect+` WHERE token = ?`, tok)); err != nil {
			return err
		}
		return db.emitInvoice(ctx, tx, unitID, orderID, "invoice.issued", out, now)
	})
	return out, wrap("save invoice", err)
}

// insertAuthorized writes an authorized invoice of the order, and the
// order's nf fields saying so.
func insertAuthorized(ctx context.Context, tx *sql.Tx, tok string, orderID, unitID int64, in NewInvoice, statusText string, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO invoices (token, order_id, unit_id, kind, status, series, number, access_key, verification,
		protocol, xml, issued_at, status_code, status_text) VALUES (?, ?, ?, ?, 'AUTHORIZED', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		tok, orderID, unitID, in.Kind, in.Series, in.Number, nullString(in.AccessKey), nullString(in.Verification), in.Protocol,
		string(in.XML), timestamp(in.Issued), nullInt(in.StatusCode), nullString(statusText)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE sales_orders SET nf = 1, date_nf = ?, nf_status_text = ?, cancel_nf = 0, date_cancel_nf = NULL,
		updated_at = ? WHERE id = ?`, timestamp(in.Issued), statusText, timestamp(now), orderID)
	return err
}

// OrderInvoice returns the latest invoice of an order of the unit: its
// note waiting for the authority's verdict (PENDING), else the last
// verdict.
func (db *DB) OrderInvoice(ctx context.Context, unitID int64, orderToken string) (Invoice, error) {
	var orderID int64
	if err := db.r.QueryRowContext(ctx, `SELECT id FROM sales_orders WHERE unit_id = ? AND token = ?`, unitID, orderToken).Scan(&orderID); err != nil {
		return Invoice{}, wrap("order invoice", notFound(err))
	}
	i, err := db.latestInvoice(ctx, orderID)
	return i, wrap("order invoice", err)
}

// latestInvoice is an order's invoice as OrderInvoice answers it.
func (db *DB) latestInvoice(ctx context.Context, orderID int64) (Invoice, error) {
	var i Invoice
	var issued, signed string
	err := db.r.QueryRowContext(ctx, `SELECT COALESCE(t.token, ''), t.kind, t.series, t.number, t.access_key, t.issued_at, t.signed
		FROM invoice_transmissions t WHERE t.order_id = ?
		AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.order_id = t.order_id AND i.status = 'AUTHORIZED')`, orderID).
		Scan(&i.Token, &i.Kind, &i.Series, &i.Number, &i.AccessKey, &issued, &signed)
	switch {
	case err == nil:
		i.Status, i.XML, i.StatusText = InvoicePending, signed, NewText(PendingText(i.Kind))
		i.issued, _ = time.Parse(time.RFC3339Nano, issued)
		i.IssuedAt = displayTimestamp(timestamp(i.issued))
		return i, nil
	case !errors.Is(err, sql.ErrNoRows):
		return i, err
	}
	i, err = scanInvoice(db.r.QueryRowContext(ctx, invoiceSelect+` WHERE order_id = ? ORDER BY id DESC LIMIT 1`, orderID))
	return i, notFound(err)
}

// PendingText is what an order whose note waits for the authority's
// verdict says of it (nf_status_text).
func PendingText(kind string) string {
	if kind == "nfsen" || kind == "nfse" {
		return "Aguardando a autoridade da NFS-e"
	}
	return "Aguardando a SEFAZ"
}

// PublicInvoice returns the latest invoice of the active order of a public
// token, and the order's unit token (the issuer's documents are read with
// InvoiceData).
func (db *DB) PublicInvoice(ctx context.Context, publicToken string) (Invoice, int64, string, error) {
	var unitID int64
	var order string
	if err := db.r.QueryRowContext(ctx, `SELECT unit_id, token FROM sales_orders WHERE public_token = ? AND active = 1`, publicToken).
		Scan(&unitID, &order); err != nil {
		return Invoice{}, 0, "", wrap("public invoice", notFound(err))
	}
	var orderID int64
	if err := db.r.QueryRowContext(ctx, `SELECT id FROM sales_orders WHERE public_token = ?`, publicToken).Scan(&orderID); err != nil {
		return Invoice{}, 0, "", wrap("public invoice", notFound(err))
	}
	i, err := db.latestInvoice(ctx, orderID)
	return i, unitID, order, wrap("public invoice", err)
}

// CancelInvoice cancels the authorized invoice of an order of the unit
// within window of its authorization, with a reason.
// ev, when given, is the cancellation event the authority registered,
// kept with the invoice in the same transaction.
func (db *DB) CancelInvoice(ctx context.Context, unitID int64, orderToken, reason string, window time.Duration, statusText string, ev *InvoiceEvent) error {
	return wrap("cancel invoice", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var id, orderID int64
		var issued string
		err := tx.QueryRowContext(ctx, `SELECT i.id, i.order_id, i.issued_at FROM invoices i JOIN sales_orders o ON o.id = i.order_id
			WHERE o.unit_id = ? AND o.token = ? AND i.status = 'AUTHORIZED'`, unitID, orderToken).Scan(&id, &orderID, &issued)
		if errors.Is(err, sql.ErrNoRows) {
			var one int
			if tx.QueryRowContext(ctx, `SELECT 1 FROM sales_orders WHERE unit_id = ? AND token = ?`, unitID, orderToken).Scan(&one) != nil {
				return ErrNotFound
			}
			return ErrNoInvoice
		}
		if err != nil {
			return err
		}
		t, err := time.Parse(time.RFC3339, issued)
		if err != nil {
			return err
		}
		if now.Sub(t) > window {
			return ErrCancelWindow
		}
		if _, err := tx.ExecContext(ctx, `UPDATE invoices SET status = 'CANCELLED', cancelled_at = ?, cancel_reason = ?, status_text = ?,
			cancel_pending = NULL WHERE id = ?`,
			timestamp(now), reason, statusText, id); err != nil {
			return err
		}
		if ev != nil {
			if err := insertInvoiceEvent(ctx, tx, id, *ev, now); err != nil {
				return err
			}
		}
		if _, err = tx.ExecContext(ctx, `UPDATE sales_orders SET cancel_nf = 1, date_cancel_nf = ?, nf_status_text = ?, updated_at = ? WHERE id = ?`,
			timestamp(now), statusText, timestamp(now), orderID); err != nil {
			return err
		}
		inv, err := scanInvoice(tx.QueryRowContext(ctx, invoiceSelect+` WHERE id = ?`, id))
		if err != nil {
			return err
		}
		return db.emitInvoice(ctx, tx, unitID, orderID, "invoice.cancelled", inv, now)
	}))
}

// InvoiceEvent is an event an authority registered on an invoice: its
// type (110111, 110110, e101101), sequence, protocol and document.
type InvoiceEvent struct {
	Type      string `json:"type"`
	Sequence  int    `json:"sequence"`
	Protocol  string `json:"protocol"`
	XML       string `json:"-"`
	CreatedAt string `json:"created_at"`
}

func insertInvoiceEvent(ctx context.Context, tx *sql.Tx, invoiceID int64, ev InvoiceEvent, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO invoice_events (invoice_id, type, sequence, protocol, xml, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		invoiceID, ev.Type, ev.Sequence, ev.Protocol, ev.XML, timestamp(now))
	return err
}

// AddInvoiceEvent keeps an event the authority registered on the unit's
// invoice of access key (a correction letter): ErrNotFound when the unit
// has no such invoice.
func (db *DB) AddInvoiceEvent(ctx context.Context, unitID int64, key string, ev InvoiceEvent) error {
	return wrap("add invoice event", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		var id int64
		if err := tx.QueryRowContext(ctx, `SELECT id FROM invoices WHERE unit_id = ? AND access_key = ? AND status IN ('AUTHORIZED', 'CANCELLED')`, unitID, key).Scan(&id); err != nil {
			return notFound(err)
		}
		return insertInvoiceEvent(ctx, tx, id, ev, now)
	}))
}

// InvoiceEvents lists the events kept with the unit's invoice of access
// key, oldest first.
func (db *DB) InvoiceEvents(ctx context.Context, unitID int64, key string) ([]InvoiceEvent, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT e.type, e.sequence, e.protocol, e.xml, e.created_at FROM invoice_events e
		JOIN invoices i ON i.id = e.invoice_id WHERE i.unit_id = ? AND i.access_key = ? AND i.status IN ('AUTHORIZED', 'CANCELLED') ORDER BY e.id`, unitID, key)
	if err != nil {
		return nil, wrap("invoice events", err)
	}
	defer rows.Close()
	out := []InvoiceEvent{}
	for rows.Next() {
		var e InvoiceEvent
		if err := rows.Scan(&e.Type, &e.Sequence, &e.Protocol, &e.XML, &e.CreatedAt); err != nil {
			return nil, wrap("invoice events", err)
		}
		out = append(out, e)
	}
	return out, wrap("invoice events", rows.Err())
}

// emitInvoice reports an invoice's change to the unit's webhooks.
func (db *DB) emitInvoice(ctx context.Context, tx *sql.Tx, unitID, orderID int64, typ string, inv Invoice, now time.Time) error {
	var order string
	if err := tx.QueryRowContext(ctx, `SELECT token FROM sales_orders WHERE id = ?`, orderID).Scan(&order); err != nil {
		return err
	}
	return db.emit(ctx, tx, unitID, typ, map[string]any{"id_token_sales_order": order, "invoice": inv}, now)
}

// QueueInvoiceNotice queues a notice about an order's invoice.
func (db *DB) QueueInvoiceNotice(ctx context.Context, unitID int64, orderToken string, n Notice) error {
	return wrap("queue invoice notice", db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		id, err := recordID(ctx, tx, tableSalesOrders, unitID, orderToken, false)
		if err != nil {
			return err
		}
		return queueNotice(ctx, tx, unitID, id, &n, now, db.id)
	}))
}

// EnsurePublicToken gives an order of the unit its public token (the
// portal's, and its invoice documents') if it has none, and answers it.
func (db *DB) EnsurePublicToken(ctx context.Context, unitID int64, orderToken string) (string, error) {
	var tok string
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		if _, err := tx.ExecContext(ctx, `UPDATE sales_orders SET public_token = ? WHERE unit_id = ? AND token = ? AND public_token IS NULL`,
			publicPrefix+db.Name+"_"+db.secret(16), unitID, orderToken); err != nil {
			return err
		}
		return notFound(tx.QueryRowContext(ctx, `SELECT public_token FROM sales_orders WHERE unit_id = ? AND token = ?`, unitID, orderToken).Scan(&tok))
	})
	return tok, wrap("ensure public token", err)
}

// Document is a generated artefact, as test mode lists them: a charge's
// boleto line and bar code or BR Code, an invoice's key and XML.
type Document struct {
	Kind      string `json:"kind" doc:"boleto, pix, nfe, nfce, nfse or nfsen."` // boleto, pix, nfe, nfce, nfse, nfsen
	Order     string `json:"id_token_sales_order" doc:"The order the document is of."`
	Reference string `json:"reference" doc:"The charge's or invoice's token."`                     // charge or invoice token
	Key       string `json:"key" doc:"A boleto's line, a PIX BR Code or an invoice's access key."` // line, BR Code or access key
	Barcode   Text   `json:"barcode" doc:"A boleto's bar code; null for the others."`
	XML       Text   `json:"xml" doc:"An invoice's XML; null for the others."`
	CreatedAt Stamp  `json:"created_at"`
}

// Documents lists the domain's generated documents, newest first.
func (db *DB) Documents(ctx context.Context, limit int) ([]Document, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT * FROM (
			SELECT CASE WHEN c.boleto_line IS NOT NULL THEN 'boleto' ELSE 'pix' END, o.token, c.token,
				COALESCE(c.boleto_line, c.pix_payload), c.boleto_barcode, NULL, c.created_at
			FROM charges c JOIN sales_orders o ON o.id = c.order_id WHERE c.boleto_line IS NOT NULL OR c.pix_payload IS NOT NULL
			UNION ALL
			SELECT i.kind, o.token, i.token, COALESCE(i.access_key, i.verification, ''), NULL, i.xml, i.issued_at
			FROM invoices i JOIN sales_orders o ON o.id = i.order_id WHERE i.status IN ('AUTHORIZED', 'CANCELLED'))
		ORDER BY 7 DESC LIMIT ?`, limit)
	if err != nil {
		return nil, wrap("documents", err)
	}
	defer rows.Close()
	out := []Document{}
	for rows.Next() {
		var d Document
		if err := rows.Scan(&d.Kind, &d.Order, &d.Reference, &d.Key, &d.Barcode, &d.XML, &d.CreatedAt); err != nil {
			return nil, wrap("documents", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// IssuedNote is an NF-e, NFC-e or national NFS-e as the domain keeps it,
// with what happened to it since.
type IssuedNote struct {
	Kind        string
	XML         string
	Cancelled   bool
	Corrections int
}

// IssuedNotes lists every NF-e, NFC-e and national NFS-e of the domain,
// oldest first.
func (db *DB) IssuedNotes(ctx context.Context) ([]IssuedNote, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT i.kind, i.xml, i.status = 'CANCELLED',
		(SELECT count(*) FROM invoice_events e WHERE e.invoice_id = i.id AND e.type = '110110')
		FROM invoices i WHERE i.kind IN ('nfe', 'nfce', 'nfsen') AND i.status IN ('AUTHORIZED', 'CANCELLED') ORDER BY i.id`)
	if err != nil {
		return nil, wrap("issued notes", err)
	}
	defer rows.Close()
	var out []IssuedNote
	for rows.Next() {
		var n IssuedNote
		if err := rows.Scan(&n.Kind, &n.XML, &n.Cancelled, &n.Corrections); err != nil {
			return nil, wrap("issued notes", err)
		}
		out = append(out, n)
	}
	return out, wrap("issued notes", rows.Err())
}

// InvoiceByKey returns the unit's invoice of an access key.
func (db *DB) InvoiceByKey(ctx context.Context, unitID int64, key string) (Invoice, error) {
	i, err := scanInvoice(db.r.QueryRowContext(ctx, invoiceSelect+` WHERE unit_id = ? AND access_key = ? AND status IN ('AUTHORIZED', 'CANCELLED')`, unitID, key))
	return i, wrap("invoice by key", notFound(err))
}

// LastVerdict is the unit's latest invoice an authority judged,
// whatever its verdict; ErrNotFound when none.
func (db *DB) LastVerdict(ctx context.Context, unitID int64) (Invoice, error) {
	i, err := scanInvoice(db.r.QueryRowContext(ctx, invoiceSelect+` WHERE unit_id = ? ORDER BY id DESC LIMIT 1`, unitID))
	return i, wrap("last verdict", notFound(err))
}

// LastAuthorization is the unit's latest invoice an authority authorized:
// its kind, number, protocol and issue time; ErrNotFound when none.
func (db *DB) LastAuthorization(ctx context.Context, unitID int64) (Invoice, error) {
	i, err := scanInvoice(db.r.QueryRowContext(ctx, invoiceSelect+` WHERE unit_id = ? AND protocol <> '' AND status IN ('AUTHORIZED', 'CANCELLED')
		ORDER BY id DESC LIMIT 1`, unitID))
	return i, wrap("last authorization", notFound(err))
}
