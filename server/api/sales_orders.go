package api

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/shopspring/decimal"

	"fincom/server/registers"
	"fincom/server/web"
	"fincom/store"
)

// salesOrders handles the routes of sales orders (routes.go).
type salesOrders struct{ *API }

// orderFormat is the order's 422 "Invalid parameter format", naming the
// field in details.field as a decode failure does (TestOrderFormatNamesField).
func orderFormat(field string) error {
	return &web.Error{Status: http.StatusUnprocessableEntity, Text: web.TextInvalidParameterFormat, Details: web.FieldDetails{Field: field}}
}

var (
	errDatesRequired = web.NewError(http.StatusBadRequest, "Parâmetros de data são obrigatórios.")
)

// taxFields are the number fields of group `nf`, all optional, default
// 0.00 (spec). They may also come nested in nf.impostos (taxes) and
// nf.retencoes (retentions).
type taxFields struct {
	TaxServiceGrossAmount          *store.Money `json:"tax_service_gross_amount"`
	TaxServiceDeductionAmount      *store.Money `json:"tax_service_deduction_amount"`
	TaxServiceUncondDiscountAmount *store.Money `json:"tax_service_uncond_discount_amount"`
	TaxServiceCondDiscountAmount   *store.Money `json:"tax_service_cond_discount_amount"`
	TaxServiceBaseAmount           *store.Money `json:"tax_service_base_amount"`
	TaxIssRatePercent              *store.Money `json:"tax_iss_rate_percent"`
	TaxIssAmount                   *store.Money `json:"tax_iss_amount"`
	NetReceivableAmount            *store.Money `json:"net_receivable_amount"`
	RetPisRatePercent              *store.Money `json:"ret_pis_rate_percent"`
	RetPisAmount                   *store.Money `json:"ret_pis_amount"`
	RetCofinsRatePercent           *store.Money `json:"ret_cofins_rate_percent"`
	RetCofinsAmount                *store.Money `json:"ret_cofins_amount"`
	RetCsllRatePercent             *store.Money `json:"ret_csll_rate_percent"`
	RetCsllAmount                  *store.Money `json:"ret_csll_amount"`
	RetIrRatePercent               *store.Money `json:"ret_ir_rate_percent"`
	RetIrAmount                    *store.Money `json:"ret_ir_amount"`
	RetInssRatePercent             *store.Money `json:"ret_inss_rate_percent"`
	RetInssAmount                  *store.Money `json:"ret_inss_amount"`
	RetOtherRatePercent            *store.Money `json:"ret_other_rate_percent"`
	RetOtherAmount                 *store.Money `json:"ret_other_amount"`
	RetTotalAmount                 *store.Money `json:"ret_total_amount"`
}

type orderProduct struct {
	Token    string        `json:"token" alias:"id_token"`
	Quantity store.Decimal `json:"quantity" alias:"qty"`
}

// The four groups of /insert_sales_order (spec). Each may also be sent
// flat at the top level (the legacy form).
type orderPV struct {
	Contact           string           `json:"id_token_contact" alias:"id_contact" required:"true"`
	StockItem         string           `json:"id_token_stock_item" alias:"id_stock_item"`
	Products          *[]orderProduct  `json:"products"`
	ProductIDTokens   *[]string        `json:"product_id_tokens"`
	ProductQtys       *[]store.Decimal `json:"product_qtys"`
	Description       string           `json:"description" required:"true"`
	Value             *store.Money     `json:"value" required:"true"`
	Quantity          *store.Decimal   `json:"quantity"`
	ObservationSales  string           `json:"observation_sales" text:"multiline"`
	NotifyEmailCharge string           `json:"notify_email_charge" format:"email"`
	NotifyEmailNF     string           `json:"notify_email_nf" format:"email"`
	NotifyEmailAlert  string           `json:"notify_email_alert" format:"email"`
}

type orderFaturamento struct {
	Category             string `json:"id_token_category" required:"true"`
	EstimatedPaymentDate string `json:"estimated_payment_date" format:"date"`
	BankAccount          string `json:"id_token_bank_account"`
	Project              string `json:"id_token_project"`
	Recurrence           bool   `json:"recurrence"`
	InAutomation         bool   `json:"in_automation"`
	Conciliation         bool   `json:"conciliation"`
}

type orderCharge struct {
	PaymentType          string       `json:"payment_type" required:"true"`
	ProviderBank         *string      `json:"provider_bank" enum:"provider_a,provider_b,provider_c"`
	GenerateProviderA    bool         `json:"generate_with_provider_a"`
	GenerateProviderAAlt bool         `json:"generate_provider_a_alt"`
	GenerateProviderB    bool         `json:"generate_provider_b"`
	GenerateProviderC    bool         `json:"generate_provider_c"`
	InstallmentCredit    *web.FlexInt `json:"installment_credit"`
	Installments         *web.FlexInt `json:"installments" alias:"installment"`
	PixKey               web.PixKey   `json:"charge_pix_key" alias:"pix_key"`
	NotifyDaysCharge     *web.FlexInt `json:"notify_days_charge"`
	BankAccountPayment   string       `json:"bankAccountPayment" alias:"id_token_bank_account_payment"`
	EstimatedPaymentDate string       `json:"estimated_payment_date" format:"date"`
	// PIX automático (spec, /insert_contract's sales_order).
	ChargeOnPixAcceptance bool   `json:"generateChargeOnPixAutomaticAcceptance"`
	RequestedPaymentMode  string `json:"requested_payment_mode" enum:"PIX_AUTOMATICO,PIX,BOLETO,CREDIT_CARD,DEBIT_CARD,TRANSFER,CASH"`
}

type orderNF struct {
	Kind              string          `json:"nf_kind" enum:"nfse,nfsen,nfe,nfce"`
	GenerateNFWebhook bool            `json:"generateNFWebhook"`
	TipoDocumento     *web.FlexString `json:"tipo_documento" enum:"0,1"`
	FinalidadeEmissao *web.FlexString `json:"finalidade_emissao" enum:"1,2,3,4"`
	PresencaComprador *web.FlexString `json:"presenca_comprador" enum:"0,1,2,3,4,9"`
	ConsumidorFinal   *web.FlexString `json:"consumidor_final" enum:"0,1"`
	ServiceAssocID    string          `json:"service_assoc_id_token" alias:"service_assoc_id"`
	ServiceID         string          `json:"service_id_token" alias:"service_id"`
	ServiceCod        string          `json:"service_cod" alias:"service_code"`
	ServiceLocation   string          `json:"service_location"`
	FreightMode       *web.FlexString `json:"freight_mode" enum:"0,1,2,9"`
	FreightTotal      *store.Money    `json:"freight_total"`
	LocalDestino      *web.FlexString `json:"local_destino" enum:"1,2,3"`
	taxFields
	Impostos  *taxFields `json:"impostos" decode:"group"`
	Retencoes *taxFields `json:"retencoes" decode:"group"`
}

type salesOrderRequest struct {
	PV          orderPV          `json:"pv" decode:"group,flat"`
	Faturamento orderFaturamento `json:"faturamento" decode:"group,flat"`
	Charge      orderCharge      `json:"charge" decode:"group,flat"`
	NF          orderNF          `json:"nf" decode:"group,flat"`
}

// missingFields collects the absent required fields, dotted as group.field.
type missingFields []string

func (m *missingFields) need(ok bool, field string) {
	if !ok {
		*m = append(*m, field)
	}
}

func (m missingFields) err() error {
	if len(m) == 0 {
		return nil
	}
	return web.MissingFieldsError(m)
}

// enum checks an optional code against its allowed values and answers the
// stored text, or the default.
func enum(v *web.FlexString, def string, allowed ...string) (string, bool) {
	if v == nil || *v == "" {
		return def, true
	}
	for _, a := range allowed {
		if string(*v) == a {
			return a, true
		}
	}
	return "", false
}

// fields validates the request and builds the order. paymentKey is the
// payment_key of charge.payment_type ("" when unknown).
//
// unitPixKey is the unit's own PIX key: an order that gives none takes it.
func (q *salesOrderRequest) fields(dec *web.Decoder, paymentKey, unitPixKey string) (store.SalesOrderFields, error) {
	pv, fat, ch, nf := &q.PV, &q.Faturamento, &q.Charge, &q.NF
	f := store.SalesOrderFields{
		ContactToken: pv.Contact, StockItemToken: pv.StockItem, CategoryToken: fat.Category, ProjectToken: fat.Project,
		BankAccountToken: fat.BankAccount, BankAccountPaymentToken: ch.BankAccountPayment, PaymentTypeToken: ch.PaymentType,
		Description: strings.TrimSpace(pv.Description), EstimatedPaymentDate: fat.EstimatedPaymentDate,
		Recurrence: fat.Recurrence, InAutomation: fat.InAutomation, Conciliation: fat.Conciliation,
		PixKey: string(ch.PixKey), NotifyEmailCharge: pv.NotifyEmailCharge, NotifyEmailNF: pv.NotifyEmailNF,
		NotifyEmailAlert: pv.NotifyEmailAlert, ObservationSales: pv.ObservationSales, NFKind: nf.Kind,
		GenerateNFWebhook: nf.GenerateNFWebhook, ServiceAssocID: nf.ServiceAssocID, ServiceID: nf.ServiceID,
		ServiceCod: nf.ServiceCod, ServiceLocation: nf.ServiceLocation,
		Quantity: store.Decimal{Decimal: decimal.NewFromInt(1)}, InstallmentCredit: 1, Installments: 1,
	}
	if f.EstimatedPaymentDate == "" {
		f.EstimatedPaymentDate = ch.EstimatedPaymentDate
	}
	if f.PixKey == "" && (paymentKey == "PIX" || paymentKey == "PIX_AUTOMATICO") {
		f.PixKey = unitPixKey
	}
	// Products: pv.products, or the legacy product_id_tokens + product_qtys.
	if pv.Products != nil {
		for _, p := range *pv.Products {
			f.Products = append(f.Products, store.OrderProduct{Token: p.Token, Quantity: p.Quantity})
		}
	} else if pv.ProductIDTokens != nil {
		qtys := []store.Decimal{}
		if pv.ProductQtys != nil {
			qtys = *pv.ProductQtys
		}
		if len(qtys) != len(*pv.ProductIDTokens) {
			return f, orderFormat("pv.product_qtys")
		}
		for i, tok := range *pv.ProductIDTokens {
			f.Products = append(f.Products, store.OrderProduct{Token: tok, Quantity: qtys[i]})
		}
	}

	// The fields every order needs, then those that depend on others:
	// all listed at once.
	// The fields every sales order needs, wherever it is sent
	// (/insert_sales_order, a contract's sales_order): its groups' required
	// tags, which the document publishes too.
	m := missingFields(dec.Missing(q, nil))
	service := nf.Kind == "nfse" || nf.Kind == "nfsen"
	m.need(!service || pv.StockItem != "", "pv.id_token_stock_item")
	m.need(!(nf.Kind == "nfe" || nf.Kind == "nfce") || len(f.Products) > 0, "pv.products")
	m.need(f.EstimatedPaymentDate != "", "faturamento.estimated_payment_date")
	m.need(!(paymentKey == "PIX" || paymentKey == "PIX_AUTOMATICO") || f.PixKey != "", "charge.charge_pix_key")
	m.need(paymentKey != "TRANSFER" || ch.BankAccountPayment != "", "charge.bankAccountPayment")
	m.need(!service || nf.ServiceID != "", "nf.service_id_token")
	if err := m.err(); err != nil {
		return f, err
	}

	// Notice addresses: checked as a contact's e-mail is, the field named.
	for _, e := range []struct {
		name string
		v    *string
	}{{"pv.notify_email_charge", &f.NotifyEmailCharge}, {"pv.notify_email_nf", &f.NotifyEmailNF}, {"pv.notify_email_alert", &f.NotifyEmailAlert}} {
		*e.v = strings.TrimSpace(*e.v)
		if *e.v != "" && (!registers.ValidEmail(*e.v) || len(*e.v) > web.MaxShortText) {
			return f, web.NewError(http.StatusBadRequest, fmt.Sprintf("Invalid %s. Use an e-mail address.", e.name))
		}
	}

	// Formats: 422 "Invalid parameter format".
	if d, err := store.ParseDateISO(f.EstimatedPaymentDate); err != nil {
		return f, orderFormat("faturamento.estimated_payment_date")
	} else {
		f.EstimatedPaymentDate = d.ISO()
	}
	f.Value = store.NewMoney(pv.Value.Round(2))
	if f.Value.IsNegative() {
		return f, orderFormat("pv.value")
	}
	if pv.Quantity != nil {
		if !pv.Quantity.IsPositive() {
			return f, orderFormat("pv.quantity")
		}
		f.Quantity = *pv.Quantity
	}
	for i, p := range f.Products {
		switch {
		case pv.Products == nil && p.Token == "":
			return f, orderFormat(fmt.Sprintf("pv.product_id_tokens[%d]", i))
		case pv.Products == nil && !p.Quantity.IsPositive():
			return f, orderFormat(fmt.Sprintf("pv.product_qtys[%d]", i))
		case p.Token == "":
			return f, orderFormat(fmt.Sprintf("pv.products[%d].token", i))
		case !p.Quantity.IsPositive():
			return f, orderFormat(fmt.Sprintf("pv.products[%d].quantity", i))
		}
	}
	for _, c := range []struct {
		name string
		v    *web.FlexInt
		dst  *int
		min  int
	}{{"charge.installment_credit", ch.InstallmentCredit, &f.InstallmentCredit, 1}, {"charge.installments", ch.Installments, &f.Installments, 1},
		{"charge.notify_days_charge", ch.NotifyDaysCharge, &f.NotifyDaysCharge, 0}} {
		if c.v != nil {
			if int(*c.v) < c.min || int(*c.v) > 999 {
				return f, orderFormat(c.name)
			}
			*c.dst = int(*c.v)
		}
	}
	switch nf.Kind {
	case "", "nfse", "nfsen", "nfe", "nfce":
	default:
		return f, orderFormat("nf.nf_kind")
	}
	switch ch.RequestedPaymentMode {
	case "", "PIX_AUTOMATICO", "PIX", "BOLETO", "CREDIT_CARD", "DEBIT_CARD", "TRANSFER", "CASH":
		f.RequestedPaymentMode, f.ChargeOnPixAcceptance = ch.RequestedPaymentMode, ch.ChargeOnPixAcceptance
	default:
		return f, orderFormat("charge.requested_payment_mode")
	}
	provider, err := providerOf(ch)
	if err != nil {
		return f, err
	}
	f.ProviderBank = provider
	var ok [6]bool
	var freight, destino string
	f.TipoDocumento, ok[0] = enum(nf.TipoDocumento, "", "0", "1")
	f.FinalidadeEmissao, ok[1] = enum(nf.FinalidadeEmissao, "", "1", "2", "3", "4")
	f.PresencaComprador, ok[2] = enum(nf.PresencaComprador, "", "0", "1", "2", "3", "4", "9")
	f.ConsumidorFinal, ok[3] = enum(nf.ConsumidorFinal, "", "0", "1")
	freight, ok[4] = enum(nf.FreightMode, "9", "0", "1", "2", "9")
	destino, ok[5] = enum(nf.LocalDestino, "1", "1", "2", "3")
	for i, v := range ok {
		if !v {
			return f, orderFormat([]string{"nf.tipo_documento", "nf.finalidade_emissao", "nf.presenca_comprador", "nf.consumidor_final",
				"nf.freight_mode", "nf.local_destino"}[i])
		}
	}
	f.FreightMode, f.LocalDestino = int(freight[0]-'0'), int(destino[0]-'0')
	if nf.FreightTotal != nil {
		if nf.FreightTotal.IsNegative() {
			return f, orderFormat("nf.freight_total")
		}
		f.FreightTotal = store.NewMoney(nf.FreightTotal.Round(2))
	}
	// Taxes: flat in nf win; nested nf.impostos and nf.retencoes fill the
	// rest; 0.00 otherwise.
	for j, src := range []*taxFields{&nf.taxFields, nf.Impostos, nf.Retencoes} {
		if src == nil {
			continue
		}
		// Matched by name: the request lists them in the spec's input
		// order, the store in its listing's.
		v := reflect.ValueOf(src).Elem()
		for i := range v.NumField() {
			in, _ := v.Field(i).Interface().(*store.Money)
			out := f.Taxes.Amount(v.Type().Field(i).Tag.Get("json"))
			if in != nil && out != nil && out.IsZero() {
				if in.IsNegative() {
					return f, orderFormat([]string{"nf.", "nf.impostos.", "nf.retencoes."}[j] + v.Type().Field(i).Tag.Get("json"))
				}
				*out = store.NewMoney(in.Round(2))
			}
		}
	}
	return f, nil
}

// providerOf reads provider_bank or its equivalent flags.
func providerOf(ch *orderCharge) (string, error) {
	p := ""
	if ch.ProviderBank != nil {
		p = *ch.ProviderBank
	}
	switch p {
	case "", "provider_a", "provider_b", "provider_c":
	default:
		return "", orderFormat("charge.provider_bank")
	}
	for _, flag := range []struct {
		on   bool
		name string
	}{{ch.GenerateProviderA || ch.GenerateProviderAAlt, "provider_a"}, {ch.GenerateProviderB, "provider_b"}, {ch.GenerateProviderC, "provider_c"}} {
		if flag.on {
			if p != "" && p != flag.name {
				return "", orderFormat("charge.provider_bank")
			}
			p = flag.name
		}
	}
	return p, nil
}

// insertSalesOrder creates an order from the grouped or the flat form and
// answers {success, message, data: {id, cod_orders}}.
func (s salesOrders) insertSalesOrder(r *web.Request, q *salesOrderRequest) (any, error) {
	key, err := r.DB.PaymentKey(r.Ctx, q.Charge.PaymentType)
	if err != nil {
		return nil, err
	}
	prof, err := r.DB.UnitProfile(r.Ctx, r.Unit.ID)
	if err != nil {
		return nil, err
	}
	f, err := q.fields(r.Dec, key, prof.PixKey)
	if err != nil {
		return nil, err
	}
	token, code, err := r.DB.InsertSalesOrder(r.Ctx, r.Unit.ID, f)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Sales order created successfully.", Data: orderCreated{ID: token, CodOrders: code}}, nil
}

type orderCreated struct {
	ID        string `json:"id"`
	CodOrders string `json:"cod_orders"`
}

type listSalesOrdersRequest struct {
	DateFrom   string `json:"date_from" format:"date"`
	DateTo     string `json:"date_to" format:"date"`
	Project    string `json:"id_token_project"`
	Contact    string `json:"id_token_contact"`
	StockItem  string `json:"id_token_stock_item"`
	Active     *bool  `json:"active"`
	Category   string `json:"id_token_category"`
	CodeOrders string `json:"code_orders" alias:"cod_orders"`
}

func (q *listSalesOrdersRequest) Validate() error {
	if q.DateFrom == "" || q.DateTo == "" {
		return errDatesRequired
	}
	from, err1 := store.ParseDateISO(q.DateFrom)
	to, err2 := store.ParseDateISO(q.DateTo)
	if err1 != nil || err2 != nil {
		return errDatesRequired
	}
	q.DateFrom, q.DateTo = from.ISO(), to.ISO()
	return nil
}

// listSalesOrders answers the unit's orders whose estimated payment date is
// between date_from and date_to, with every field of the spec's record.
func (s salesOrders) listSalesOrders(r *web.Request, q *listSalesOrdersRequest) (any, error) {
	return r.DB.SalesOrders(r.Ctx, r.Unit, store.SalesOrderFilter{From: q.DateFrom, To: q.DateTo,
		ProjectToken: q.Project, ContactToken: q.Contact, StockItemToken: q.StockItem, CategoryToken: q.Category,
		CodeOrders: q.CodeOrders, Active: q.Active}).Map(s.withXMLURL), nil
}

// withXMLURL sets the address of the order's invoice XML, once it has an
// invoice.
func (s salesOrders) withXMLURL(o *store.SalesOrder) {
	if o.NFStatus.Valid && o.Public() != "" {
		o.NFXMLURL = store.NewText(s.Links.InvoiceXML(o.Public()))
	}
}

// getSalesOrderByID answers one order (active or not) with the listing's
// fields plus its charge and invoice configuration and its recurrence
// origin.
func (s salesOrders) getSalesOrderByID(r *web.Request, q *web.IdRequest) (any, error) {
	o, err := r.DB.SalesOrder(r.Ctx, r.Unit.ID, q.IDToken)
	if err != nil {
		return nil, err
	}
	charges, err := r.DB.SalesOrderCharges(r.Ctx, r.Unit.ID, q.IDToken)
	if err != nil {
		return nil, err
	}
	events, err := r.DB.PortalEvents(r.Ctx, r.Unit.ID, q.IDToken)
	if err != nil {
		return nil, err
	}
	s.withXMLURL(&o.SalesOrder)
	d := orderDetail{SalesOrderDetail: o, Charges: charges, PortalEvents: events}
	if o.PublicToken.Valid {
		d.PaymentURL = store.NewText(s.Links.Payment(o.PublicToken.String))
	}
	inv, err := r.DB.OrderInvoice(r.Ctx, r.Unit.ID, q.IDToken)
	if err == nil {
		a := invoices(s).invoiceAnswer(q.IDToken, o.PublicToken.String, inv)
		d.Invoice = &a
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	return d, nil
}

// orderDetail is /get_sales_order_by_id's data: the order, every charge it
// had (cancelled ones too) and its payment page.
type orderDetail struct {
	store.SalesOrderDetail
	Charges    []store.Charge `json:"charges"`
	PaymentURL store.Text     `json:"payment_url"`
	// Invoice is the latest invoice (authorized or cancelled), with links
	// to its XML and DANFE.
	Invoice *invoiceAnswer `json:"invoice"`
	// PortalEvents is what the payer did on the portal (viewed, copied,
	// opened the boleto, a refused payment), oldest first.
	PortalEvents []store.PortalEvent `json:"portal_events"`
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docListSalesOrders = "The unit's sales orders whose `estimated_payment_date` falls between `date_from` and `date_to` " +
		"(both required: 400 `Parâmetros de data são obrigatórios.`), optionally by `id_token_project`, " +
		"`id_token_contact`, `id_token_stock_item` (a service order of that service or a product order with " +
		"that product among its lines), `id_token_category`, `code_orders` (exact `cod_orders`) " +
		"and `active` (filters only when sent). Every field of the spec's record: `created_date_hours` and " +
		"the `date_*` fields as `DD/MM/YYYY HH:mm` in São Paulo time (or null), `estimated_payment_date` as " +
		"an ISO 8601 timestamp, money as decimal strings, `quantity` as a decimal string, `freight_mode` and " +
		"`local_destino` as numbers; `products` is the order's lines as sold, `[{token, code, description, ncm, cfop, unit, " +
		"quantity, unit_value, total}]` (the catalogue's later changes do not touch them), or " +
		"null, `products_qty` the quantities joined by commas; `charge_status` is `NONE` until a charge " +
		"exists. Bad or missing tokens answer 403 `Invalid data`; 500 `Erro desconhecido`."
	docInsertSalesOrder = "Creates a sales order from the groups `pv`, `faturamento`, `charge` and `nf` (spec), or the legacy " +
		"flat form (a group's fields at the top level; a group object, when sent, wins). Synonyms: " +
		"`installments`/`installment`, `charge_pix_key`/`pix_key`, " +
		"`bankAccountPayment`/`id_token_bank_account_payment`, `service_id_token`/`service_id`, " +
		"`service_assoc_id_token`/`service_assoc_id`, `service_cod`/`service_code`, " +
		"`id_token_contact`/`id_contact`, `id_token_stock_item`/`id_stock_item`; " +
		"`charge.estimated_payment_date` stands in for `faturamento.estimated_payment_date`; the " +
		"`generate_*` flags equal `provider_bank`; products as `pv.products` or `product_id_tokens` + " +
		"`product_qtys`; taxes flat in `nf` or nested in `nf.impostos` / `nf.retencoes` (flat wins). Numbers " +
		"are accepted as JSON numbers or numeric strings.\n\nRequired (400 `Missing required fields`, with " +
		"`details: {missing_fields: [\"group.field\", ...], group}`): `pv.id_token_contact`, " +
		"`pv.description`, `pv.value`, `faturamento.id_token_category`, " +
		"`faturamento.estimated_payment_date`, `charge.payment_type`; `pv.id_token_stock_item` and " +
		"`nf.service_id_token` for `nfse`/`nfsen`; `pv.products` for `nfe`/`nfce`; `charge.charge_pix_key` " +
		"for PIX; `charge.bankAccountPayment` for transfers. 422 `Invalid parameter format`: a field of the " +
		"wrong type, `installment_credit` or `installments` < 1, a negative tax, a date that is not " +
		"`YYYY-MM-DD`, or a code outside its list. 403 `Invalid data`: bad tokens, or related records that " +
		"are not active records of the unit. 500 `Erro ao inserir pedido`.\n\nDefaults: `quantity` 1, " +
		"`freight_mode` 9, `freight_total` 0.00, `local_destino` 1, taxes 0.00, `installment_credit` and " +
		"`installments` 1. `cod_orders` is `PV-000001`, `PV-000002`, … per unit: sequential, never reused. " +
		"With `recurrence`, a copy of the order is made on day 1 of each month, due the same day of the " +
		"month as many months later (clamped to the month's end)."
	docGetSalesOrder = "One order (`id_token`), active or not: the listing's fields plus `origin_id_token` (the recurring " +
		"order it was copied from), `charge_config`, `invoice_config`, every charge it had (cancelled ones " +
		"too), its payment page, its latest invoice with links to its XML and DANFE, and what the payer did " +
		"on the portal (`portal_events`)."
	docSetSalesOrderActive = "Enables or disables an order (`id_token`); idempotent. A disabled order is not charged nor " +
		"invoiced, and the portal does not show it."
)
