package api

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/shopspring/decimal"

	"fincom/server/problem"
	"fincom/server/sales"
	"fincom/server/web"
	"fincom/store"
)

// salesOrders handles the routes of sales orders (routes.go).
type salesOrders struct{ *API }

// orderFormat is the order's 422 "Invalid parameter format", naming the
// field in details.field as a decode failure does (TestOrderFormatNamesField).
func orderFormat(field string) error {
	return &web.Error{Code: problem.Unprocessable, Text: web.TextInvalidParameterFormat, Details: web.FieldDetails{Field: field}}
}

var (
	errDatesRequired = web.NewError(http.StatusBadRequest, "Parâmetros de data são obrigatórios.")
)

// taxFields are the number fields of group `nf`, all optional, default
// 0.00 (spec). They may also come nested in nf.impostos (taxes) and
// nf.retencoes (retentions).
type taxFields struct {
	TaxServiceGrossAmount          *store.Money `json:"tax_service_gross_amount" doc:"The service's gross value."`
	TaxServiceDeductionAmount      *store.Money `json:"tax_service_deduction_amount" doc:"Deductions from the ISS base."`
	TaxServiceUncondDiscountAmount *store.Money `json:"tax_service_uncond_discount_amount" doc:"The unconditional discount."`
	TaxServiceCondDiscountAmount   *store.Money `json:"tax_service_cond_discount_amount" doc:"The conditional discount."`
	TaxServiceBaseAmount           *store.Money `json:"tax_service_base_amount" doc:"The ISS base."`
	TaxIssRatePercent              *store.Money `json:"tax_iss_rate_percent" doc:"The ISS rate, in percent."`
	TaxIssAmount                   *store.Money `json:"tax_iss_amount" doc:"The ISS due."`
	NetReceivableAmount            *store.Money `json:"net_receivable_amount" doc:"What the taker pays: the value less ret_total_amount."`
	RetPisRatePercent              *store.Money `json:"ret_pis_rate_percent" doc:"The PIS retained, in percent."`
	RetPisAmount                   *store.Money `json:"ret_pis_amount" doc:"The PIS retained."`
	RetCofinsRatePercent           *store.Money `json:"ret_cofins_rate_percent" doc:"The COFINS retained, in percent."`
	RetCofinsAmount                *store.Money `json:"ret_cofins_amount" doc:"The COFINS retained."`
	RetCsllRatePercent             *store.Money `json:"ret_csll_rate_percent" doc:"The CSLL retained, in percent."`
	RetCsllAmount                  *store.Money `json:"ret_csll_amount" doc:"The CSLL retained."`
	RetIrRatePercent               *store.Money `json:"ret_ir_rate_percent" doc:"The income tax (IR) retained, in percent."`
	RetIrAmount                    *store.Money `json:"ret_ir_amount" doc:"The income tax (IR) retained."`
	RetInssRatePercent             *store.Money `json:"ret_inss_rate_percent" doc:"The INSS retained, in percent."`
	RetInssAmount                  *store.Money `json:"ret_inss_amount" doc:"The INSS retained."`
	RetOtherRatePercent            *store.Money `json:"ret_other_rate_percent" doc:"Other retentions, in percent."`
	RetOtherAmount                 *store.Money `json:"ret_other_amount" doc:"Other retentions."`
	RetTotalAmount                 *store.Money `json:"ret_total_amount" doc:"Every retention together."`
}

type orderProduct struct {
	Token    string        `json:"token" alias:"id_token" doc:"The product's token."`
	Quantity store.Decimal `json:"quantity" alias:"qty" doc:"The quantity sold, up to three decimal places."`
}

// The four groups of /insert_sales_order (spec). Each may also be sent
// flat at the top level (the legacy form).
type orderPV struct {
	Contact           string           `json:"id_token_contact" alias:"id_contact" required:"true"`
	StockItem         string           `json:"id_token_stock_item" alias:"id_stock_item"`
	Products          *[]orderProduct  `json:"products" doc:"The goods sold (NF-e, NFC-e): each a product's token and quantity."`
	ProductIDTokens   *[]string        `json:"product_id_tokens" doc:"The legacy form of products: the products' tokens, beside product_qtys."`
	ProductQtys       *[]store.Decimal `json:"product_qtys" doc:"The legacy form of products: each product's quantity, in product_id_tokens' order."`
	Description       string           `json:"description" required:"true" doc:"What is sold, as the invoice says it."`
	Value             *store.Money     `json:"value" required:"true" doc:"The order's gross value, a decimal with up to two places."`
	Quantity          *store.Decimal   `json:"quantity" doc:"The quantity of the main item (default 1)."`
	ObservationSales  string           `json:"observation_sales" text:"multiline" doc:"Internal notes (several lines)."`
	NotifyEmailCharge string           `json:"notify_email_charge" format:"email" doc:"Where charge notices are e-mailed."`
	NotifyEmailNF     string           `json:"notify_email_nf" format:"email" doc:"Where the invoice is e-mailed."`
	NotifyEmailAlert  string           `json:"notify_email_alert" format:"email" doc:"Where other alerts are e-mailed."`
}

type orderFaturamento struct {
	Category             string `json:"id_token_category" required:"true"`
	EstimatedPaymentDate string `json:"estimated_payment_date" format:"date" doc:"The day the payment is due (or charge.estimated_payment_date)."`
	BankAccount          string `json:"id_token_bank_account"`
	Project              string `json:"id_token_project"`
	Recurrence           bool   `json:"recurrence" doc:"true: the order is copied on day 1 of each month, due dates moved a month."`
	InAutomation         bool   `json:"in_automation" doc:"true: the income entry is recorded when the charge is issued."`
	Conciliation         bool   `json:"conciliation" doc:"true: the entry is reconciled automatically when paid."`
}

type orderCharge struct {
	PaymentType          string       `json:"payment_type" required:"true"`
	ProviderBank         *string      `json:"provider_bank" enum:"provider_a,provider_b,provider_c" doc:"The bank agreement that issues the boleto; absent: a charge without bank integration."`
	GenerateProviderA    bool         `json:"generate_with_provider_a" alias:"generate_provider_a" doc:"The legacy flag for provider_bank provider_a."`
	GenerateProviderAAlt bool         `json:"generate_provider_a_alt" doc:"The legacy flag for provider_a's other agreement."`
	GenerateProviderB    bool         `json:"generate_provider_b" alias:"generate_with_provider_b" doc:"The legacy flag for provider_bank provider_b."`
	GenerateProviderC    bool         `json:"generate_provider_c" alias:"generate_with_provider_c" doc:"The legacy flag for provider_bank provider_c."`
	InstallmentCredit    *web.FlexInt `json:"installment_credit" doc:"The card installments (1 or more)."`
	Installments         *web.FlexInt `json:"installments" alias:"installment" doc:"The charges the value is split into, monthly from the due date (default 1)."`
	PixKey               web.PixKey   `json:"charge_pix_key" alias:"pix_key" doc:"The PIX key paid: a CPF or CNPJ with or without its mask, an e-mail (up to 77 characters), a phone with +55 or its area code, or a random key; stored as the DICT registers it. Required for PIX."`
	NotifyDaysCharge     *web.FlexInt `json:"notify_days_charge" doc:"Days before the due date when the charge notice is e-mailed (default 0)."`
	BankAccountPayment   string       `json:"bankAccountPayment" alias:"id_token_bank_account_payment" doc:"The bank account a transfer is paid into (required for a transfer)."`
	EstimatedPaymentDate string       `json:"estimated_payment_date" format:"date" doc:"The day the payment is due, when faturamento does not give it."`
	// PIX automático (spec, /insert_contract's sales_order).
	ChargeOnPixAcceptance bool   `json:"generateChargeOnPixAutomaticAcceptance" doc:"true: a PIX automático contract's first charge is issued when the payer accepts the recurrence."`
	RequestedPaymentMode  string `json:"requested_payment_mode" enum:"PIX_AUTOMATICO,PIX,BOLETO,CREDIT_CARD,DEBIT_CARD,TRANSFER,CASH" doc:"How the payer is to pay; PIX_AUTOMATICO for a recurring PIX contract."`
}

type orderNF struct {
	Kind              string          `json:"nf_kind" enum:"nfse,nfsen,nfe,nfce" doc:"The invoice issued: nfse (municipal NFS-e), nfsen (national NFS-e), nfe (NF-e) or nfce (NFC-e)."`
	GenerateNFWebhook bool            `json:"generateNFWebhook" doc:"true: the invoice is issued when the payment is confirmed."`
	TipoDocumento     *web.FlexString `json:"tipo_documento" enum:"0,1" doc:"The NF-e's tpNF: 0 entry, 1 exit."`
	FinalidadeEmissao *web.FlexString `json:"finalidade_emissao" enum:"1,2,3,4" doc:"The NF-e's finNFe: 1 normal, 2 complementary, 3 adjustment, 4 return."`
	PresencaComprador *web.FlexString `json:"presenca_comprador" enum:"0,1,2,3,4,9" doc:"The NF-e's indPres: 0 not applicable, 1 in person, 2 internet, 3 tele-service, 4 home delivery, 9 other."`
	ConsumidorFinal   *web.FlexString `json:"consumidor_final" enum:"0,1" doc:"The NF-e's indFinal: 0 no, 1 final consumer."`
	ServiceAssocID    string          `json:"service_assoc_id_token" alias:"service_assoc_id" doc:"The associated service's id, as the municipality knows it."`
	ServiceID         string          `json:"service_id_token" alias:"service_id" doc:"The service's id in the municipality's list (required for nfse and nfsen)."`
	ServiceCod        string          `json:"service_cod" alias:"service_code" doc:"The service's item of LC 116 (01.07)."`
	ServiceLocation   string          `json:"service_location" doc:"The IBGE code of the municipality where the service is rendered."`
	FreightMode       *web.FlexString `json:"freight_mode" enum:"0,1,2,9" doc:"The NF-e's modFrete: 0 by the issuer, 1 by the recipient, 2 by third parties, 9 no freight (default)."`
	FreightTotal      *store.Money    `json:"freight_total" doc:"The freight charged, a decimal (default 0.00)."`
	LocalDestino      *web.FlexString `json:"local_destino" enum:"1,2,3" doc:"The NF-e's idDest: 1 internal (default), 2 interstate, 3 foreign."`
	taxFields
	Impostos  *taxFields `json:"impostos" decode:"group" doc:"The tax fields, grouped (instead of beside nf_kind)."`
	Retencoes *taxFields `json:"retencoes" decode:"group" doc:"The retention fields, grouped (instead of beside nf_kind)."`
}

type salesOrderRequest struct {
	PV          orderPV          `json:"pv" decode:"group,flat" doc:"The sale: customer, items and value (or its fields at the top level, the legacy form)."`
	Faturamento orderFaturamento `json:"faturamento" decode:"group,flat" doc:"The billing: category, due date, account, project, recurrence."`
	Charge      orderCharge      `json:"charge" decode:"group,flat" doc:"The charge: payment type, bank agreement, installments, PIX key."`
	NF          orderNF          `json:"nf" decode:"group,flat" doc:"The invoice: its kind, fiscal codes, taxes and retentions."`
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

// order reads the request as the order it sends (sales.Order): its
// fields, the required ones absent (the decoder's), and its first format
// refusal (422 Invalid parameter format, the field named), which sales
// answers after the missing fields and the notice addresses, as the spec
// orders them. Products as pv.products or the legacy product_id_tokens
// and product_qtys, whose lengths must agree.
func (q *salesOrderRequest) order(dec *web.Decoder) (sales.Order, error) {
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
			return sales.Order{}, orderFormat("pv.product_qtys")
		}
		for i, tok := range *pv.ProductIDTokens {
			f.Products = append(f.Products, store.OrderProduct{Token: tok, Quantity: qtys[i]})
		}
	}
	o := sales.Order{SalesOrderFields: f, Missing: dec.Missing(q, nil)}
	o.Format = q.formats(&o.SalesOrderFields)
	return o, nil
}

// formats checks the request's fields of a closed format (422 Invalid
// parameter format, naming the first at fault) and stores each as the
// order keeps it.
func (q *salesOrderRequest) formats(f *store.SalesOrderFields) error {
	pv, ch, nf := &q.PV, &q.Charge, &q.NF
	// Formats: 422 "Invalid parameter format".
	if d, err := store.ParseDateISO(f.EstimatedPaymentDate); err != nil {
		return orderFormat("faturamento.estimated_payment_date")
	} else {
		f.EstimatedPaymentDate = d.ISO()
	}
	if pv.Value != nil {
		f.Value = store.NewMoney(pv.Value.Round(2))
	}
	if f.Value.IsNegative() {
		return orderFormat("pv.value")
	}
	if pv.Quantity != nil {
		if !pv.Quantity.IsPositive() {
			return orderFormat("pv.quantity")
		}
		f.Quantity = *pv.Quantity
	}
	for i, p := range f.Products {
		switch {
		case pv.Products == nil && p.Token == "":
			return orderFormat(fmt.Sprintf("pv.product_id_tokens[%d]", i))
		case pv.Products == nil && !p.Quantity.IsPositive():
			return orderFormat(fmt.Sprintf("pv.product_qtys[%d]", i))
		case p.Token == "":
			return orderFormat(fmt.Sprintf("pv.products[%d].token", i))
		case !p.Quantity.IsPositive():
			return orderFormat(fmt.Sprintf("pv.products[%d].quantity", i))
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
				return orderFormat(c.name)
			}
			*c.dst = int(*c.v)
		}
	}
	switch nf.Kind {
	case "", "nfse", "nfsen", "nfe", "nfce":
	default:
		return orderFormat("nf.nf_kind")
	}
	switch ch.RequestedPaymentMode {
	case "", "PIX_AUTOMATICO", "PIX", "BOLETO", "CREDIT_CARD", "DEBIT_CARD", "TRANSFER", "CASH":
		f.RequestedPaymentMode, f.ChargeOnPixAcceptance = ch.RequestedPaymentMode, ch.ChargeOnPixAcceptance
	default:
		return orderFormat("charge.requested_payment_mode")
	}
	provider, err := providerOf(ch)
	if err != nil {
		return err
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
			return orderFormat([]string{"nf.tipo_documento", "nf.finalidade_emissao", "nf.presenca_comprador", "nf.consumidor_final",
				"nf.freight_mode", "nf.local_destino"}[i])
		}
	}
	f.FreightMode, f.LocalDestino = int(freight[0]-'0'), int(destino[0]-'0')
	if nf.FreightTotal != nil {
		if nf.FreightTotal.IsNegative() {
			return orderFormat("nf.freight_total")
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
					return orderFormat([]string{"nf.", "nf.impostos.", "nf.retencoes."}[j] + v.Type().Field(i).Tag.Get("json"))
				}
				*out = store.NewMoney(in.Round(2))
			}
		}
	}
	return nil
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
	o, err := q.order(r.Dec)
	if err != nil {
		return nil, err
	}
	c, err := s.Sales().Create(r.Ctx, r.DB, r.Unit, r.Role(), o)
	if err != nil {
		return nil, err
	}
	return web.WithMessage{Message: "Sales order created successfully.", Data: orderCreated{ID: c.Token, CodOrders: c.Code}}, nil
}

type orderCreated struct {
	ID        string `json:"id" doc:"The order's token."`
	CodOrders string `json:"cod_orders" doc:"The order's code in the unit (PV-000001)."`
}

type listSalesOrdersRequest struct {
	DateFrom   string `json:"date_from" format:"date" doc:"Orders created on or after this day (required)."`
	DateTo     string `json:"date_to" format:"date" doc:"Orders created on or before this day (required)."`
	Project    string `json:"id_token_project"`
	Contact    string `json:"id_token_contact"`
	StockItem  string `json:"id_token_stock_item"`
	Active     *bool  `json:"active" doc:"true or false: only orders in that state; absent: all."`
	Category   string `json:"id_token_category"`
	CodeOrders string `json:"code_orders" alias:"cod_orders" doc:"Only the order of this code (PV-000001)."`
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
	Charges    []store.Charge `json:"charges" doc:"Every charge the order had, cancelled ones too, by installment."`
	PaymentURL store.Text     `json:"payment_url" doc:"The order's public payment page; null before its first charge."`
	// Invoice is the latest invoice (authorized or cancelled), with links
	// to its XML and DANFE.
	Invoice *invoiceAnswer `json:"invoice" doc:"The order's latest invoice, with links to its XML and DANFE; null before any."`
	// PortalEvents is what the payer did on the portal (viewed, copied,
	// opened the boleto, a refused payment), oldest first.
	PortalEvents []store.PortalEvent `json:"portal_events" doc:"What the payer did on the payment page (viewed it, copied the PIX code, opened the boleto, a refused payment), oldest first."`
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
