package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Taxes are a sales order's service taxes and retentions (spec, group
// `nf`), each a decimal string, 0.00 when not sent.
type Taxes struct {
	TaxServiceGrossAmount          Money `json:"tax_service_gross_amount" doc:"The service's gross value. Null when not given."`
	TaxServiceDeductionAmount      Money `json:"tax_service_deduction_amount" doc:"Deductions from the ISS base. Null when not given."`
	TaxServiceUncondDiscountAmount Money `json:"tax_service_uncond_discount_amount" doc:"The unconditional discount. Null when not given."`
	TaxServiceCondDiscountAmount   Money `json:"tax_service_cond_discount_amount" doc:"The conditional discount. Null when not given."`
	TaxIssRatePercent              Money `json:"tax_iss_rate_percent" doc:"The ISS rate, in percent. Null when not given."`
	TaxServiceBaseAmount           Money `json:"tax_service_base_amount" doc:"The ISS base. Null when not given."`
	TaxIssAmount                   Money `json:"tax_iss_amount" doc:"The ISS due. Null when not given."`
	RetPisRatePercent              Money `json:"ret_pis_rate_percent" doc:"The PIS retained, in percent. Null when not given."`
	RetInssRatePercent             Money `json:"ret_inss_rate_percent" doc:"The INSS retained, in percent. Null when not given."`
	RetCsllRatePercent             Money `json:"ret_csll_rate_percent" doc:"The CSLL retained, in percent. Null when not given."`
	RetCofinsRatePercent           Money `json:"ret_cofins_rate_percent" doc:"The COFINS retained, in percent. Null when not given."`
	RetIrRatePercent               Money `json:"ret_ir_rate_percent" doc:"The income tax (IR) retained, in percent. Null when not given."`
	RetOtherRatePercent            Money `json:"ret_other_rate_percent" doc:"Other retentions, in percent. Null when not given."`
	RetPisAmount                   Money `json:"ret_pis_amount" doc:"The PIS retained. Null when not given."`
	RetInssAmount                  Money `json:"ret_inss_amount" doc:"The INSS retained. Null when not given."`
	RetCsllAmount                  Money `json:"ret_csll_amount" doc:"The CSLL retained. Null when not given."`
	RetCofinsAmount                Money `json:"ret_cofins_amount" doc:"The COFINS retained. Null when not given."`
	RetIrAmount                    Money `json:"ret_ir_amount" doc:"The income tax (IR) retained. Null when not given."`
	RetOtherAmount                 Money `json:"ret_other_amount" doc:"Other retentions. Null when not given."`
	RetTotalAmount                 Money `json:"ret_total_amount" doc:"Every retention together. Null when not given."`
	NetReceivableAmount            Money `json:"net_receivable_amount" doc:"What the taker pays: the value less ret_total_amount. Null when not given."`
}

func (t *Taxes) amounts() [21]*Money {
	return [...]*Money{&t.TaxServiceGrossAmount, &t.TaxServiceDeductionAmount, &t.TaxServiceUncondDiscountAmount,
		&t.TaxServiceCondDiscountAmount, &t.TaxIssRatePercent, &t.TaxServiceBaseAmount, &t.TaxIssAmount, &t.RetPisRatePercent,
		&t.RetInssRatePercent, &t.RetCsllRatePercent, &t.RetCofinsRatePercent, &t.RetIrRatePercent, &t.RetOtherRatePercent,
		&t.RetPisAmount, &t.RetInssAmount, &t.RetCsllAmount, &t.RetCofinsAmount, &t.RetIrAmount, &t.RetOtherAmount,
		&t.RetTotalAmount, &t.NetReceivableAmount}
}

// taxIndex is each tax field's index in amounts, by its JSON name.
var taxIndex = func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeFor[Taxes]()
	for i := range t.NumField() {
		m[t.Field(i).Tag.Get("json")] = i
	}
	return m
}()

// Amount answers the tax field of a JSON name (nil for none).
func (t *Taxes) Amount(name string) *Money {
	i, ok := taxIndex[name]
	if !ok {
		return nil
	}
	return t.amounts()[i]
}

// taxKeys are what json.Marshal writes before each of amounts' values:
// `{"tax_service_gross_amount":"`, then `","tax_service_deduction_amount":"`
// and so on.
var taxKeys = func() [21]string {
	var keys [21]string
	t := reflect.TypeFor[Taxes]()
	for i := range keys {
		sep := `","`
		if i == 0 {
			sep = `{"`
		}
		keys[i] = sep + t.Field(i).Tag.Get("json") + `":"`
	}
	return keys
}()

// readStored reads the stored column. What json.Marshal wrote is read
// directly, without encoding/json's reflection (a listing reads 21
// amounts per order: BenchmarkListSalesOrders); anything else goes
// through encoding/json (TestTaxesReadStored).
func (t *Taxes) readStored(stored string) error {
	s, amounts := stored, t.amounts()
	for i, key := range taxKeys {
		end := -1
		if strings.HasPrefix(s, key) {
			s = s[len(key):]
			end = strings.IndexByte(s, '"')
		}
		if end < 0 {
			*t = Taxes{}
			return json.Unmarshal([]byte(stored), t)
		}
		// Most amounts are zero: the zero Decimal costs no allocation.
		if v := s[:end]; v != "0.00" {
			d, err := decimal.NewFromString(v)
			if err != nil {
				return err
			}
			amounts[i].Decimal = d
		}
		s = s[end:]
	}
	if s != `"}` {
		*t = Taxes{}
		return json.Unmarshal([]byte(stored), t)
	}
	return nil
}

// OrderProduct is one product line of an order.
type OrderProduct struct {
	Token    string
	Quantity Decimal
}

// SalesOrderFields are what an order is created with; related records go
// by token and are resolved within the unit.
type SalesOrderFields struct {
	ContactToken, StockItemToken, CategoryToken, ProjectToken   string
	BankAccountToken, BankAccountPaymentToken, PaymentTypeToken string
	Products                                                    []OrderProduct
	Description                                                 string
	Value                                                       Money
	Quantity                                                    Decimal
	EstimatedPaymentDate                                        string // YYYY-MM-DD
	Recurrence, InAutomation, Conciliation                      bool
	ProviderBank                                                string
	InstallmentCredit, Installments, NotifyDaysCharge           int
	PixKey                                                      string
	NotifyEmailCharge, NotifyEmailNF, NotifyEmailAlert          string
	ObservationSales                                            string
	NFKind                                                      string
	GenerateNFWebhook                                           bool
	TipoDocumento, FinalidadeEmissao                            string
	PresencaComprador, ConsumidorFinal                          string
	ServiceAssocID, ServiceID, ServiceCod, ServiceLocation      string
	FreightMode, LocalDestino                                   int
	FreightTotal                                                Money
	Taxes                                                       Taxes
	// RequestedPaymentMode PIX_AUTOMATICO with ChargeOnPixAcceptance: the
	// cycle\'s first charge is issued when the payer accepts.
	RequestedPaymentMode  string
	ChargeOnPixAcceptance bool
}

// OrderLine is a product line as an order shows it.
// It is the line as sold: what the catalogue said of the product when the
// order was made, whatever it says now.
type OrderLine struct {
	Token       string  `json:"token" format:"uuid" doc:"The product's token."`
	Code        string  `json:"code" doc:"The product's code."`
	Description string  `json:"description" doc:"The product's description."`
	NCM         Text    `json:"ncm" doc:"The product's NCM; null when none."`
	CFOP        Text    `json:"cfop" doc:"The line's CFOP; null when none."`
	Unit        Text    `json:"unit" doc:"The unit of measure; null when none."`
	Quantity    Decimal `json:"quantity" doc:"The quantity sold."`
	UnitValue   Money   `json:"unit_value" doc:"The unit price."`
	Total       Money   `json:"total" doc:"quantity times unit_value."`
}

// orderLineColumns are an order line's columns as orderLines scans them
// (l: sales_order_lines, p: products).
const orderLineColumns = `l.order_id, p.token, l.code, l.description, l.ncm, l.cfop, l.unit, l.quantity, l.unit_value, l.total`

// SalesOrder is an order as /list_sales_orders returns it (spec, Sales
// order), field for field.
type SalesOrder struct {
	IDToken              string  `json:"id_token" format:"uuid" doc:"The order's token."`
	CreatedDateHours     string  `json:"created_date_hours" doc:"When the order was created, DD/MM/YYYY HH:mm (Brasília time)."`
	Active               bool    `json:"active" doc:"false once the order is disabled (/disable_sales_order); disabled orders are kept, not deleted."`
	FreightMode          int     `json:"freight_mode" enum:"0,1,2,9" doc:"The NF-e's modFrete: 0 by the issuer, 1 by the recipient, 2 by third parties, 9 no freight."`
	FreightTotal         Money   `json:"freight_total" doc:"The freight charged on the invoice."`
	NotifyEmailCharge    Text    `json:"notify_email_charge" format:"email" doc:"Where charge notices are e-mailed; null when none."`
	NotifyEmailNF        Text    `json:"notify_email_nf" format:"email" doc:"Where the invoice is e-mailed; null when none."`
	NotifyEmailAlert     Text    `json:"notify_email_alert" format:"email" doc:"Where other alerts are e-mailed; null when none."`
	LocalDestino         int     `json:"local_destino" enum:"1,2,3" doc:"The NF-e's idDest: 1 internal, 2 interstate, 3 foreign."`
	ProductsQty          Text    `json:"products_qty" doc:"The goods lines' quantities joined by commas, in line order; null for an order without goods lines."`
	TipoDocumento        Text    `json:"tipo_documento" doc:"The NF-e's tpNF: 0 entry, 1 exit; null when not set."`
	FinalidadeEmissao    Text    `json:"finalidade_emissao" doc:"The NF-e's finNFe: 1 normal, 2 complementary, 3 adjustment, 4 return; null when not set."`
	PresencaComprador    Text    `json:"presenca_comprador" doc:"The NF-e's indPres: 0 not applicable, 1 in person, 2 internet, 3 tele-service, 4 home delivery, 9 other; null when not set."`
	ConsumidorFinal      Text    `json:"consumidor_final" doc:"The NF-e's indFinal: 0 no, 1 final consumer; null when not set."`
	ObservationSales     Text    `json:"observation_sales" doc:"The order's internal notes; null when none."`
	IDUnit               string  `json:"id_unit" doc:"The token of the unit the order belongs to."`
	IDStockItem          Text    `json:"id_stock_item" doc:"The token of the order's main product or service (/get_products_and_services); null when none."`
	IDProject            Text    `json:"id_project" doc:"The token of the order's project (/get_projects); null when none."`
	IDContact            Text    `json:"id_contact" doc:"The customer's token (/get_contacts)."`
	IDBankAccount        Text    `json:"id_bank_account" doc:"The token of the bank account the payment goes to (/get_bank_account); null when none."`
	PaymentType          string  `json:"payment_type" doc:"The payment method's token (/list_payments_method)."`
	Description          string  `json:"description" doc:"What was sold, as the order's description."`
	Value                Money   `json:"value" doc:"The order's total."`
	IDTokenCategory      string  `json:"id_token_category" doc:"The token of the income category the order is booked under (/get_categories)."`
	Category             string  `json:"category" doc:"That category's name."`
	EstimatedPaymentDate string  `json:"estimated_payment_date" format:"date-time" doc:"When the payment is due, an ISO 8601 timestamp."`
	Recurrence           bool    `json:"recurrence" doc:"true: the order is copied on day 1 of each month."`
	Quantity             Decimal `json:"quantity" doc:"The quantity of the main item."`
	CodOrders            string  `json:"cod_orders" doc:"The order's code in the unit, in sequence (PV-000001)."`
	NF                   bool    `json:"nf" doc:"true once an invoice was issued for the order."`
	Revenue              bool    `json:"revenue" doc:"true once the order was booked as revenue."`
	Charge               bool    `json:"charge" doc:"true once a charge was issued for the order."`
	CancelNF             bool    `json:"cancel_nf" doc:"true once the order's invoice was cancelled."`
	CancelCharge         bool    `json:"cancel_charge" doc:"true once the order's charge was cancelled."`
	DateNF               Text    `json:"date_nf" doc:"When the invoice was issued, DD/MM/YYYY HH:mm; null before."`
	DateRevenue          Text    `json:"date_revenue" doc:"When the order was booked as revenue, DD/MM/YYYY HH:mm; null before."`
	DateCharge           Text    `json:"date_charge" doc:"When the charge was issued, DD/MM/YYYY HH:mm; null before."`
	DateCancelNF         Text    `json:"date_cancel_nf" doc:"When the invoice was cancelled, DD/MM/YYYY HH:mm; null before."`
	DateCancelCharge     Text    `json:"date_cancel_charge" doc:"When the charge was cancelled, DD/MM/YYYY HH:mm; null before."`
	DatePayment          Text    `json:"date_payment" doc:"When the order was paid, DD/MM/YYYY HH:mm; null before."`
	ServiceAssocID       Text    `json:"service_assoc_id" doc:"The associated service's id, as the municipality knows it; null when none."`
	ServiceCod           Text    `json:"service_cod" doc:"The service's item of LC 116 (as 01.07); null for goods."`
	ServiceLocation      Text    `json:"service_location" doc:"The IBGE code of the municipality where the service is rendered; null when none."`
	Taxes
	PaymentKey   string `json:"payment_key" enum:",BOLETO,PIX,PIX_AUTOMATICO,CREDIT_CARD,DEBIT_CARD,TRANSFER,CASH" doc:"The payment method's kind: BOLETO, PIX, PIX_AUTOMATICO, CREDIT_CARD, DEBIT_CARD, TRANSFER or CASH (blank when none)."`
	PixKey       Text   `json:"pix_key" doc:"The PIX key the customer pays to; null when none."`
	ChargeStatus string `json:"charge_status" enum:"NONE,PENDING,PAID,OVERDUE,CANCELLED" doc:"The order's charge: NONE (none issued), PENDING, PAID, OVERDUE or CANCELLED."`
	NFStatusText Text   `json:"nf_status_text" doc:"The invoice's status in words, or the authority's reason for a refusal; null before any invoice."`
	// NFStatus is the status of the order's latest invoice (Invoice), null
	// before any; NFXMLURL the address of its XML (set by the server, which
	// knows its public address: see PublicToken).
	NFStatus            Text         `json:"nf_status" enum:",PENDING,CONTINGENCY,AUTHORIZED,REJECTED,DENIED,CANCELLED" doc:"The status of the order's latest invoice; null before any."`
	NFXMLURL            Text         `json:"nf_xml_url" doc:"Where the latest invoice's XML is read (its public address); null before any."`
	NFKind              string       `json:"nf_kind" enum:"nfse,nfsen,nfe,nfce" doc:"The invoice the order issues: nfse (municipal NFS-e), nfsen (national NFS-e), nfe (NF-e) or nfce (NFC-e)."`
	Products            *[]OrderLine `json:"products" doc:"The goods sold, line by line; null for a service order."`
	ProductIDTokens     []string     `json:"product_id_tokens" doc:"The tokens of the products sold, in line order."`
	UnitName            string       `json:"unit_name" doc:"The unit's name."`
	UnitCityIBGE        string       `json:"unit_city_ibge" doc:"The IBGE code of the unit's municipality."`
	UnitIM              string       `json:"unit_im" doc:"The unit's inscrição municipal (blank when none)."`
	StockItemName       Text         `json:"stock_item_name" doc:"The main product's or service's description; null when none."`
	ProjectName         Text         `json:"project_name" doc:"The project's name; null when none."`
	ContactName         Text         `json:"contact_name" doc:"The customer's name; null when the order has no contact."`
	CustomerCityIBGE    string       `json:"customer_city_ibge" doc:"The IBGE code of the customer's municipality (blank when unknown)."`
	NickNameBankAccount string       `json:"nick_name_bank_account" doc:"The bank account's nickname (blank when none)."`

	id     int64
	public Text
}

// Public is the order's public token (its payment page and documents),
// if it has one.
func (o *SalesOrder) Public() string { return o.public.String }

// SalesOrderDetail is one order as /get_sales_order_by_id returns it: the
// listing's fields plus how its charge and invoice are configured and where
// it comes from.
type SalesOrderDetail struct {
	SalesOrder
	OriginIDToken Text `json:"origin_id_token" doc:"The token of the order this one was copied from (a monthly recurrence); null for an order created as it is."`
	// PublicToken is the payment portal's token, set with the first charge.
	PublicToken   Text          `json:"-"`
	ChargeConfig  ChargeConfig  `json:"charge_config" doc:"How the order is to be charged."`
	InvoiceConfig InvoiceConfig `json:"invoice_config" doc:"How the order's invoice is to be issued."`
}

// ChargeConfig is how the order is to be charged.
type ChargeConfig struct {
	ProviderBank              Text `json:"provider_bank" doc:"The bank agreement that issues the boleto; null for a charge without bank integration."`
	InstallmentCredit         int  `json:"installment_credit" doc:"The card installments."`
	Installments              int  `json:"installments" doc:"The charges the value is split into, monthly from the due date."`
	NotifyDaysCharge          int  `json:"notify_days_charge" doc:"Days before the due date when the charge notice is e-mailed."`
	IDTokenBankAccountPayment Text `json:"id_token_bank_account_payment" doc:"The bank account a transfer is paid into; null when none."`
	InAutomation              bool `json:"in_automation" doc:"true: the income entry is recorded when the charge is issued."`
	Conciliation              bool `json:"conciliation" doc:"true: the entry is reconciled automatically when paid."`
}

// InvoiceConfig is how the order's invoice is to be issued.
type InvoiceConfig struct {
	NFKind            string `json:"nf_kind" enum:"nfse,nfsen,nfe,nfce" doc:"The invoice the order issues: nfse (municipal NFS-e), nfsen (national NFS-e), nfe (NF-e) or nfce (NFC-e)."`
	GenerateNFWebhook bool   `json:"generateNFWebhook" doc:"true: the invoice is issued when the payment is confirmed."`
	ServiceIDToken    Text   `json:"service_id_token" doc:"The service's id in the municipality's list; null when none."`
}

// SalesOrderFilter narrows /list_sales_orders. From and To bound the
// estimated payment date (inclusive).
type SalesOrderFilter struct {
	From, To                                   string
	ProjectToken, ContactToken, StockItemToken string
	CategoryToken, CodeOrders                  string
	Active                                     *bool
}

type orderRefs struct {
	contact, stock, category, project, account, accountPay, method sql.NullInt64
	products                                                       []int64
}

func resolveOrderRefs(ctx context.Context, tx *sql.Tx, unitID int64, f SalesOrderFields) (orderRefs, error) {
	var r orderRefs
	err := resolveRefs(ctx, tx, unitID,
		ref{field: "pv.id_token_contact", token: f.ContactToken, table: tableContacts, dst: &r.contact},
		ref{field: "pv.id_token_stock_item", token: f.StockItemToken, table: tableProducts, dst: &r.stock},
		ref{field: "faturamento.id_token_category", token: f.CategoryToken, table: tableCategories, dst: &r.category, moduleType: "in"},
		ref{field: "faturamento.id_token_project", token: f.ProjectToken, table: tableProjects, dst: &r.project},
		ref{field: "faturamento.id_token_bank_account", token: f.BankAccountToken, table: tableBankAccounts, dst: &r.account},
		ref{field: "charge.bankAccountPayment", token: f.BankAccountPaymentToken, table: tableBankAccounts, dst: &r.accountPay},
		ref{field: "charge.payment_type", token: f.PaymentTypeToken, table: tablePaymentMethods, dst: &r.method})
	if err != nil {
		return r, err
	}
	for _, p := range f.Products {
		var id sql.NullInt64
		if err := resolveRefs(ctx, tx, unitID, ref{field: "pv.products", token: p.Token, table: tableProducts, dst: &id}); err != nil {
			return r, err
		}
		if !id.Valid {
			return r, &RefError{"pv.products"}
		}
		r.products = append(r.products, id.Int64)
	}
	return r, nil
}

// insertLine adds a product line to an order as sold: the product's
// code, description, NCM, CFOP, unit, IBS and CBS class and price as the catalogue says them
// now, its quantity and total (TestOrderLinesAsSold).
func insertLine(ctx context.Context, tx *sql.Tx, orderID int64, position int, productID int64, quantity Decimal) error {
	var price Money
	if err := tx.QueryRowContext(ctx, `SELECT monetary_value FROM products WHERE id = ?`, productID).Scan(&price); err != nil {
		return err
	}
	total := LineTotal(quantity, price)
	if !InMoneyRange(total.Decimal) {
		return ErrMoneyRange
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO sales_order_lines (order_id, position, product_id, code, description, ncm, cfop, unit, quantity, unit_value, total,
			ibs_cbs_class)
		SELECT ?, ?, id, code, description, ncm, cfop, unit, ?, monetary_value, ?, ibs_cbs_class FROM products WHERE id = ?`,
		orderID, position, quantity, total, productID)
	return err
}

// copyLines gives an order the lines of another, as they were sold (a
// recurrence's or a contract's copy bills what its origin sold).
func copyLines(ctx context.Context, tx *sql.Tx, toOrder, fromOrder int64) error {
	_, err := tx.ExecContext(ctx, `
		INSERT INTO sales_order_lines (order_id, position, product_id, code, description, ncm, cfop, unit, quantity, unit_value, total,
			ibs_cbs_class)
		SELECT ?, position, product_id, code, description, ncm, cfop, unit, quantity, unit_value, total, ibs_cbs_class
		FROM sales_order_lines WHERE order_id = ?`, toOrder, fromOrder)
	return err
}

// nextCounter increments and returns a per-unit counter in the write
// transaction: codes are sequential and never reused.
func nextCounter(ctx context.Context, tx *sql.Tx, unitID int64, name string) (int64, error) {
	var v int64
	err := tx.QueryRowContext(ctx, `
		INSERT INTO unit_counters (unit_id, name, value) VALUES (?, ?, 1)
		ON CONFLICT (unit_id, name) DO UPDATE SET value = value + 1
		RETURNING value`, unitID, name).Scan(&v)
	return v, err
}

// OrderCode formats an order's sequence number as its human code.
func OrderCode(seq int64) string { return fmt.Sprintf("PV-%06d", seq) }

// InsertSalesOrder creates an active order and answers its token and code.
func (db *DB) InsertSalesOrder(ctx context.Context, unitID int64, f SalesOrderFields) (token, code string, err error) {
	token = db.newToken(ctx)
	err = db.write(ctx, func(ctx context.Context, tx *sql.Tx, now time.Time) error {
		refs, err := resolveOrderRefs(ctx, tx, unitID, f)
		if err != nil {
			return err
		}
		code, err = db.insertOrder(ctx, tx, unitID, token, f, refs, sql.NullInt64{}, "", now)
		return err
	})
	if err != nil {
		return "", "", fmt.Errorf("insert sales order: %w", err)
	}
	return token, code, nil
}

func (db *DB) insertOrder(ctx context.Context, tx *sql.Tx, unitID int64, token string, f SalesOrderFields, refs orderRefs,
	origin sql.NullInt64, month string, now time.Time) (string, error) {
	seq, err := nextCounter(ctx, tx, unitID, "sales_order")
	if err != nil {
		return "", err
	}
	taxes, err := json.Marshal(f.Taxes)
	if err != nil {
		return "", err
	}
	cents := f.Value.Cents()
	res, err := tx.ExecContext(ctx, `
		INSERT INTO sales_orders (token, unit_id, cod_seq, cod_orders, origin_id, recurrence_month, contact_id, stock_item_id,
			category_id, project_id, bank_account_id, bank_account_payment_id, payment_method_id, description, value, value_cents,
			quantity, estimated_payment_date, recurrence, in_automation, conciliation, provider_bank, installment_credit,
			installments, pix_key, notify_days_charge, notify_email_charge, notify_email_nf, notify_email_alert,
			observation_sales, nf_kind, generate_nf_webhook, tipo_documento, finalidade_emissao, presenca_comprador,
			consumidor_final, service_assoc_id, service_id, service_cod, service_location, freight_mode, freight_total,
			local_destino, taxes, created_at, updated_at, requested_payment_mode, charge_on_pix_acceptance)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		token, unitID, seq, OrderCode(seq), origin, nullString(month), refs.contact, refs.stock,
		refs.category, refs.project, refs.account, refs.accountPay, refs.method, f.Description, f.Value, cents,
		f.Quantity, f.EstimatedPaymentDate, boolInt(f.Recurrence), boolInt(f.InAutomation), boolInt(f.Conciliation),
		nullString(f.ProviderBank), f.InstallmentCredit, f.Installments, nullString(f.PixKey), f.NotifyDaysCharge,
		nullString(f.NotifyEmailCharge), nullString(f.NotifyEmailNF), nullString(f.NotifyEmailAlert),
		nullString(f.ObservationSales), nullString(f.NFKind), boolInt(f.GenerateNFWebhook), nullString(f.TipoDocumento),
		nullString(f.FinalidadeEmissao), nullString(f.PresencaComprador), nullString(f.ConsumidorFinal),
		nullString(f.ServiceAssocID), nullString(f.ServiceID), nullString(f.ServiceCod), nullString(f.ServiceLocation),
		f.FreightMode, f.FreightTotal, f.LocalDestino, string(taxes), timestamp(now), timestamp(now), nullString(f.RequestedPaymentMode),
		boolInt(f.ChargeOnPixAcceptance))
	if err != nil {
		return "", err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return "", err
	}
	for i, p := range f.Products {
		if err := insertLine(ctx, tx, id, i+1, refs.products[i], p.Quantity); err != nil {
			return "", err
		}
	}
	if err := db.emit(ctx, tx, unitID, "sales_order.created", map[string]any{"id_token": token, "cod_orders": OrderCode(seq),
		"value": f.Value, "estimated_payment_date": f.EstimatedPaymentDate}, now); err != nil {
		return "", err
	}
	return OrderCode(seq), nil
}

// SetSalesOrderActive enables or disables an order of the unit.
func (db *DB) SetSalesOrderActive(ctx context.Context, unitID int64, token string, active bool) error {
	return db.setActive(ctx, "sales_orders", unitID, token, active)
}

// salesOrderList reads what a listing answers. The unit's columns are not
// in it: a listing is one unit's, and the caller has that unit (joining
// it again cost a seek and four text columns per order).
const salesOrderList = `
	SELECT o.id, o.token, o.created_at, o.active, o.freight_mode, o.freight_total, o.notify_email_charge, o.notify_email_nf,
		o.notify_email_alert, o.local_destino, o.tipo_documento, o.finalidade_emissao, o.presenca_comprador,
		o.consumidor_final, o.observation_sales, st.token, pr.token, c.token, ba.token, pm.token, o.description,
		o.value, cat.token, cat.name, o.estimated_payment_date, o.recurrence, o.quantity, o.cod_orders, o.nf, o.revenue,
		o.charge, o.cancel_nf, o.cancel_charge, o.date_nf, o.date_revenue, o.date_charge, o.date_cancel_nf,
		o.date_cancel_charge, o.date_payment, o.service_assoc_id, o.service_cod, o.service_location, o.taxes,
		pm.payment_key, o.pix_key, o.charge_status, o.nf_status_text, o.nf_kind, st.type,
		st.description, pr.name, c.display_name, c.city_ibge, ba.nick_name, o.public_token, ` + orderNFStatus

// orderNFStatus is the status of the invoice of the order o (its
// nf_status), as Invoice.Status says it: PENDING while its note waits for
// the authority, CONTINGENCY while one issued in contingency does, else
// its latest invoice's; NULL before any.
const orderNFStatus = `
		CASE WHEN EXISTS (SELECT 1 FROM invoice_transmissions t WHERE t.order_id = o.id)
			AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.order_id = o.id AND i.status = 'AUTHORIZED') THEN 'PENDING'
		WHEN EXISTS (SELECT 1 FROM invoices i WHERE i.order_id = o.id AND i.status = 'AUTHORIZED' AND i.protocol = '' AND i.kind IN ('nfe', 'nfce'))
			THEN 'CONTINGENCY'
		ELSE (SELECT i.status FROM invoices i WHERE i.order_id = o.id ORDER BY i.id DESC LIMIT 1) END`

const salesOrderJoins = `
	FROM sales_orders o
	JOIN categories cat ON cat.id = o.category_id
	JOIN payment_methods pm ON pm.id = o.payment_method_id
	LEFT JOIN contacts c ON c.id = o.contact_id
	LEFT JOIN products st ON st.id = o.stock_item_id
	LEFT JOIN projects pr ON pr.id = o.project_id
	LEFT JOIN bank_accounts ba ON ba.id = o.bank_account_id`

// salesOrderSelect reads one order whole: the listing's columns, then its
// unit's and the configuration only get-by-id answers.
const salesOrderSelect = salesOrderList + `,
		un.token, un.name, un.city_ibge, un.im,
		orig.token, o.provider_bank, o.installment_credit, o.installments, o.notify_days_charge, bap.token,
		o.in_automation, o.conciliation, o.generate_nf_webhook, o.service_id, o.public_token` + salesOrderJoins + `
	JOIN units un ON un.id = o.unit_id
	LEFT JOIN bank_accounts bap ON bap.id = o.bank_account_payment_id
	LEFT JOIN sales_orders orig ON orig.id = o.origin_id`

// displayDateTime renders a stored UTC timestamp as DD/MM/YYYY HH:mm in
// São Paulo time, the spec's display format.
func displayDateTime(stored string) string {
	t, err := time.Parse(time.RFC3339, stored)
	if err != nil {
		return stored
	}
	return t.In(saoPaulo).Format("02/01/2006 15:04")
}

// displayDateTimes displays a listing's timestamps, each once (see memo).
func displayDateTimes(m memo, dates ...*Text) {
	for _, d := range dates {
		if d.Valid {
			*d = NewText(m.get(d.String, displayDateTime))
		}
	}
}

// orderReader scans orders. A listing makes one and reuses it row after
// row: the columns that are not the order's own (its creation time, taxes,
// kind, ...) land in its fields instead of fresh variables per order.
// unit, when set, is the listing's unit (its columns are not read); shown
// displays the listing's timestamps once each.
type orderReader struct {
	unit  *Unit
	shown memo

	created, taxes, date                                   string
	stockType, unitIBGE, unitIM, contactIBGE, nick, nfKind Text
	dest                                                   []any
}

// scan fills o, which the caller allocates: a listing keeps each order
// where it was read, not a copy of it.
func (r *orderReader) scan(s scanner, o *SalesOrderDetail) error {
	r.dest = append(r.dest[:0], &o.id, &o.IDToken, &r.created, &o.Active, &o.FreightMode, &o.FreightTotal, &o.NotifyEmailCharge,
		&o.NotifyEmailNF, &o.NotifyEmailAlert, &o.LocalDestino, &o.TipoDocumento, &o.FinalidadeEmissao,
		&o.PresencaComprador, &o.ConsumidorFinal, &o.ObservationSales, &o.IDStockItem, &o.IDProject,
		&o.IDContact, &o.IDBankAccount, &o.PaymentType, &o.Description, &o.Value, &o.IDTokenCategory, &o.Category,
		&r.date, &o.Recurrence, &o.Quantity, &o.CodOrders, &o.NF, &o.Revenue, &o.Charge, &o.CancelNF, &o.CancelCharge,
		&o.DateNF, &o.DateRevenue, &o.DateCharge, &o.DateCancelNF, &o.DateCancelCharge, &o.DatePayment, &o.ServiceAssocID, &o.ServiceCod,
		&o.ServiceLocation, &r.taxes, &o.PaymentKey, &o.PixKey, &o.ChargeStatus, &o.NFStatusText, &r.nfKind, &r.stockType,
		&o.StockItemName, &o.ProjectName, &o.ContactName, &r.contactIBGE, &r.nick, &o.public, &o.NFStatus)
	if r.unit == nil {
		r.dest = append(r.dest, &o.IDUnit, &o.UnitName, &r.unitIBGE, &r.unitIM,
			&o.OriginIDToken, &o.ChargeConfig.ProviderBank, &o.ChargeConfig.InstallmentCredit, &o.ChargeConfig.Installments,
			&o.ChargeConfig.NotifyDaysCharge, &o.ChargeConfig.IDTokenBankAccountPayment, &o.ChargeConfig.InAutomation,
			&o.ChargeConfig.Conciliation, &o.InvoiceConfig.GenerateNFWebhook, &o.InvoiceConfig.ServiceIDToken, &o.PublicToken)
	}
	err := s.Scan(r.dest...)
	clear(r.dest) // the order is the caller's now
	if err != nil {
		return err
	}
	if r.unit != nil {
		o.IDUnit, o.UnitName = r.unit.Token, r.unit.Name
		r.unitIBGE, r.unitIM = NewText(r.unit.CityIBGE), NewText(r.unit.IM)
	}
	o.CreatedDateHours = r.shown.get(r.created, displayDateTime)
	o.EstimatedPaymentDate = r.date + "T00:00:00.000Z"
	displayDateTimes(r.shown, &o.DateNF, &o.DateRevenue, &o.DateCharge, &o.DateCancelNF, &o.DateCancelCharge, &o.DatePayment)
	if err := o.Taxes.readStored(r.taxes); err != nil {
		return fmt.Errorf("order taxes: %w", err)
	}
	o.NFKind = r.nfKind.String
	if o.NFKind == "" {
		// No kind was asked for: the order's items say which invoice fits.
		o.NFKind = "nfe"
		if r.stockType.String == "service" {
			o.NFKind = "nfse"
		}
	}
	o.InvoiceConfig.NFKind = o.NFKind
	if o.NFStatus.String == InvoicePending {
		o.NFStatusText = NewText(PendingText(o.NFKind))
	}
	o.UnitCityIBGE, o.UnitIM, o.CustomerCityIBGE, o.NickNameBankAccount = r.unitIBGE.String, r.unitIM.String, r.contactIBGE.String, r.nick.String
	o.ProductIDTokens = []string{}
	return nil
}

// orderLines reads rows of (order id, product token, description,
// quantity, unit value) into each order's lines, in the rows' order.
func orderLines(rows *sql.Rows) (map[int64][]OrderLine, error) {
	defer rows.Close()
	lines := map[int64][]OrderLine{}
	for rows.Next() {
		var id int64
		var l OrderLine
		if err := rows.Scan(&id, &l.Token, &l.Code, &l.Description, &l.NCM, &l.CFOP, &l.Unit, &l.Quantity, &l.UnitValue, &l.Total); err != nil {
			return nil, err
		}
		lines[id] = append(lines[id], l)
	}
	return lines, rows.Err()
}

// setLines gives an order its product lines (an order without any keeps
// products and products_qty null).
func setLines(o *SalesOrderDetail, lines []OrderLine) {
	if len(lines) == 0 {
		return
	}
	o.Products = &lines
	qty := make([]string, len(lines))
	for i, l := range lines {
		qty[i] = l.Quantity.String()
		o.ProductIDTokens = append(o.ProductIDTokens, l.Token)
	}
	o.ProductsQty = NewText(strings.Join(qty, ","))
}

// attachLines loads the product lines of one order.
func attachLines(ctx context.Context, tx *sql.Tx, o *SalesOrderDetail) error {
	rows, err := tx.QueryContext(ctx, `SELECT `+orderLineColumns+`
		FROM sales_order_lines l JOIN products p ON p.id = l.product_id
		WHERE l.order_id = ?
		ORDER BY l.position`, o.id)
	if err != nil {
		return err
	}
	lines, err := orderLines(rows)
	if err != nil {
		return err
	}
	setLines(o, lines[o.id])
	return nil
}

// SalesOrders lists the unit's orders whose estimated payment date is in
// the filter's period, by that date. The period's product lines are read
// first, in one statement, so that each order goes out whole as soon as it
// is read.
func (db *DB) SalesOrders(ctx context.Context, unit Unit, f SalesOrderFilter) Listing[*SalesOrder] {
	where := []string{"o.unit_id = ?", "o.estimated_payment_date BETWEEN ? AND ?"}
	args := []any{unit.ID, f.From, f.To}
	for _, c := range []struct{ cond, val string }{
		{"pr.token = ?", f.ProjectToken}, {"c.token = ?", f.ContactToken},
		{"cat.token = ?", f.CategoryToken}, {"o.cod_orders = ?", f.CodeOrders},
	} {
		if c.val != "" {
			where, args = append(where, c.cond), append(args, c.val)
		}
	}
	if f.StockItemToken != "" {
		// A product or service: the order's main item, or one of its lines.
		where = append(where, `(st.token = ? OR EXISTS (SELECT 1 FROM sales_order_lines l JOIN products lp ON lp.id = l.product_id
			WHERE l.order_id = o.id AND lp.token = ?))`)
		args = append(args, f.StockItemToken, f.StockItemToken)
	}
	if f.Active != nil {
		where, args = append(where, "o.active = ?"), append(args, boolInt(*f.Active))
	}
	query := salesOrderList + salesOrderJoins + ` WHERE ` + strings.Join(where, " AND ") + ` ORDER BY o.estimated_payment_date, o.id`
	return Listing[*SalesOrder]{func(yield func(*SalesOrder) error) error {
		return db.read(ctx, func(tx *sql.Tx) error {
			// The lines of every order of the period, whatever the other
			// filters: a few more lines than needed, one plain statement.
			rows, err := db.cachedQuery(ctx, tx, `SELECT `+orderLineColumns+`
				FROM sales_orders o
				JOIN sales_order_lines l ON l.order_id = o.id
				JOIN products p ON p.id = l.product_id
				WHERE o.unit_id = ? AND o.estimated_payment_date BETWEEN ? AND ?
				ORDER BY o.estimated_payment_date, o.id, l.position`, unit.ID, f.From, f.To)
			if err != nil {
				return err
			}
			lines, err := orderLines(rows)
			if err != nil {
				return err
			}
			if rows, err = db.cachedQuery(ctx, tx, query, args...); err != nil {
				return err
			}
			defer rows.Close()
			reader := &orderReader{unit: &unit, shown: memo{}}
			for rows.Next() {
				// A new value per order: the JSON writer may still hold
				// the last ones.
				o := new(SalesOrderDetail)
				if err := reader.scan(rows, o); err != nil {
					return err
				}
				setLines(o, lines[o.id])
				if err := yield(&o.SalesOrder); err != nil {
					return err
				}
			}
			return rows.Err()
		})
	}}
}

// SalesOrder returns one order of the unit, active or not.
func (db *DB) SalesOrder(ctx context.Context, unitID int64, token string) (SalesOrderDetail, error) {
	var o SalesOrderDetail
	err := db.read(ctx, func(tx *sql.Tx) error {
		if err := new(orderReader).scan(tx.QueryRowContext(ctx, salesOrderSelect+` WHERE o.unit_id = ? AND o.token = ?`, unitID, token), &o); err != nil {
			return notFound(err)
		}
		return attachLines(ctx, tx, &o)
	})
	return o, wrap("sales order", err)
}

// LineTotal is an order line's total: quantity times unit value, rounded
// half away from zero to cents, as the NF-e's vProd is.
func LineTotal(quantity Decimal, unitValue Money) Money {
	return Money{unitValue.Mul(quantity.Decimal).Round(2)}
}
