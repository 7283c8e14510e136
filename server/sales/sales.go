// Package sales is how a sales order is made, whoever makes it: the API's
// /insert_sales_order, a contract's order and the portal's new order read
// their own shapes into an Order, and Create (Prepare for a contract's,
// which the contract makes later) holds the order's rules: the fields
// each kind of order needs, its notice addresses, its value (its lines at
// the catalogue's prices when the caller asks), the unit's defaults, a
// service's ISS, and who may charge and invoice it on saving.
package sales

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"fincom/server/access"
	"fincom/server/billing"
	"fincom/server/invoicing"
	"fincom/server/problem"
	"fincom/server/registers"
	"fincom/store"
)

// Order is an order as its caller read it.
type Order struct {
	store.SalesOrderFields
	// Missing are the required fields the caller's reading found absent
	// (group.field): the spec lists every missing field at once, these
	// first. Format is the caller's first refusal of a field's format,
	// answered after the missing fields and the notice addresses, as the
	// spec orders them.
	Missing []string
	Format  error
	// Priced: the order's value is its lines' (Products, or its service
	// and Quantity) at the unit's catalogue prices, whatever Value says,
	// and a blank description is its items' (the portal's form).
	Priced bool
	// UnitDefaults: what the order leaves blank takes the unit's default
	// (the portal's form; the spec's routes require them): its category,
	// the unit's first active one of the DRE group of what it sells
	// (goods 101, services 102); a transfer's account, the order's.
	UnitDefaults bool
	// ISSRate is a service's ISS rate in percent, on the whole value, no
	// retention: its NFS-e amounts are computed from it (nil: as sent).
	ISSRate *decimal.Decimal
	// Charge and Issue ask for its charges and its invoice on saving.
	Charge, Issue bool
	// FormKey is the one-time key of the form that sent it ("" none): the
	// same key again makes nothing (Created.Made false).
	FormKey string
}

// Created is what Create did: the order, whether this call made it (a
// form sent again finds the one its key made), and each step asked on
// saving, done or refused with the refusal its route gives.
type Created struct {
	Token, Code         string
	Made                bool
	Charged, Invoiced   bool
	ChargeErr, IssueErr error
}

// Service makes orders, charging and invoicing them through billing and
// invoicing.
type Service struct {
	Billing  *billing.Service
	Invoices *invoicing.Service
}

// The order's refusals of its own (the spec's texts where it has them).
var (
	ErrNotifyEmail = problem.New(problem.Invalid, "Invalid "+problem.FieldPlaceholder+". Use an e-mail address.")
	ErrISSRate     = problem.New(problem.Unprocessable, "The ISS rate is 2% to 5% (the floor and ceiling of LC 116), with up to two decimal places.")
	// ErrMayNot: the role may not make the order, or a step asked of it.
	ErrMayNot = problem.New(problem.Forbidden, "Your role on this unit may not make this order, or charge or invoice it.")
)

// notifyFields are the order's notice addresses, as refusals name them.
var notifyFields = []string{"pv.notify_email_charge", "pv.notify_email_nf", "pv.notify_email_alert"}

// NotifyEmailOf names the notice address err refuses ("" none).
func NotifyEmailOf(err error) string {
	for _, name := range notifyFields {
		if errors.Is(err, problem.Named(ErrNotifyEmail, name)) {
			return name
		}
	}
	return ""
}

// MaxInstallments is the most charges an order's value is split into.
const MaxInstallments = 999

// Create makes the order in the unit for a user of role who: it checks
// and completes it (Prepare) and writes it in one transaction (once per
// form key), then, when asked, issues its charges (billing) and, unless
// they were refused, its invoice (invoicing). A step the role may not take
// refuses the whole order before anything is written; a step refused by
// its rules or an outside party leaves the order saved and says why in
// Created.
func (s *Service) Create(ctx context.Context, db *store.DB, unit store.Unit, who store.Role, o Order) (Created, error) {
	unitID := unit.ID
	if !access.May(who, access.Sales) || o.Charge && !access.May(who, access.Charges) || o.Issue && o.NFKind != "" && !access.May(who, access.Invoices) {
		return Created{}, ErrMayNot
	}
	f, err := Prepare(ctx, db, unit, o)
	if err != nil {
		return Created{}, err
	}
	var c Created
	c.Token, c.Code, c.Made, err = db.InsertSalesOrderOnce(ctx, unitID, o.FormKey, f)
	if err != nil || !c.Made {
		return c, err
	}
	if o.Charge {
		if c.ChargeErr = s.Billing.IssueCharges(ctx, db, unitID, c.Token); c.ChargeErr == nil {
			c.Charged = true
		}
	}
	if o.Issue && f.NFKind != "" && c.ChargeErr == nil {
		if _, c.IssueErr = s.Invoices.Issue(ctx, db, unitID, c.Token); c.IssueErr == nil {
			c.Invoiced = true
		}
	}
	return c, nil
}

// Prepare checks an order of the unit and completes it as it is stored:
// the PIX key of a PIX order that gives none is the unit's; a priced
// order's value and blank description are its items'; the unit's
// defaults fill what it leaves blank, when asked; a service's ISS is
// computed from its rate; then the fields its kind needs (400 Missing
// required fields, every one at once), its notice addresses, the caller's
// format refusal, and its bounds.
func Prepare(ctx context.Context, db *store.DB, unit store.Unit, o Order) (store.SalesOrderFields, error) {
	f, unitID := o.SalesOrderFields, unit.ID
	key, err := db.PaymentKey(ctx, f.PaymentTypeToken)
	if err != nil {
		return f, err
	}
	pix := key == "PIX" || key == "PIX_AUTOMATICO"
	if f.PixKey == "" && pix {
		prof, err := db.UnitProfile(ctx, unitID)
		if err != nil {
			return f, err
		}
		f.PixKey = prof.PixKey
	}
	if o.Priced {
		if err := price(ctx, db, unitID, &f); err != nil {
			return f, err
		}
	}
	if o.UnitDefaults {
		if f.CategoryToken == "" {
			group := int64(store.GroupGoods)
			if len(f.Products) == 0 {
				group = store.GroupServices
			}
			if f.CategoryToken, err = db.FirstOfGroup(ctx, unitID, group); err != nil {
				return f, err
			}
		}
		if key == "TRANSFER" && f.BankAccountPaymentToken == "" {
			f.BankAccountPaymentToken = f.BankAccountToken
		}
	}

	service := f.NFKind == "nfse" || f.NFKind == "nfsen"
	missing := append([]string(nil), o.Missing...)
	need := func(ok bool, field string) {
		if !ok {
			missing = append(missing, field)
		}
	}
	need(!service || f.StockItemToken != "", "pv.id_token_stock_item")
	need(!(f.NFKind == "nfe" || f.NFKind == "nfce") || len(f.Products) > 0, "pv.products")
	need(f.EstimatedPaymentDate != "", "faturamento.estimated_payment_date")
	need(!pix || f.PixKey != "", "charge.charge_pix_key")
	need(key != "TRANSFER" || f.BankAccountPaymentToken != "", "charge.bankAccountPayment")
	need(!service || f.ServiceID != "", "nf.service_id_token")
	if len(missing) > 0 {
		return f, problem.MissingFields(missing)
	}

	// Notice addresses: checked as a contact's e-mail is, the field named.
	for _, e := range []struct {
		name string
		v    *string
	}{{notifyFields[0], &f.NotifyEmailCharge}, {notifyFields[1], &f.NotifyEmailNF}, {notifyFields[2], &f.NotifyEmailAlert}} {
		*e.v = strings.TrimSpace(*e.v)
		if *e.v != "" && !registers.ValidEmail(*e.v) {
			return f, problem.Named(ErrNotifyEmail, e.name)
		}
	}
	if o.Format != nil {
		return f, o.Format
	}
	if f.Value.IsNegative() || !store.InMoneyRange(f.Value.Decimal) || !store.InMoneyRange(f.FreightTotal.Decimal) {
		return f, store.ErrMoneyRange
	}
	if f.Installments < 1 || f.Installments > MaxInstallments {
		return f, store.ErrInvalidValue
	}
	if o.ISSRate != nil {
		if err := issOn(&f, *o.ISSRate, unit.CityIBGE); err != nil {
			return f, err
		}
	}
	return f, nil
}

// price sets a priced order's value to its lines' total at the unit's
// catalogue prices (its products', or its service's times its quantity),
// and a blank description to its items'.
func price(ctx context.Context, db *store.DB, unitID int64, f *store.SalesOrderFields) error {
	stock, err := db.StockItems(ctx, unitID)
	if err != nil {
		return err
	}
	find := func(token string) *store.StockItem {
		for i := range stock {
			if stock[i].ID == token {
				return &stock[i]
			}
		}
		return nil
	}
	var total decimal.Decimal
	var names []string
	lines := f.Products
	if f.StockItemToken != "" && len(lines) == 0 {
		lines = []store.OrderProduct{{Token: f.StockItemToken, Quantity: f.Quantity}}
	}
	for i, l := range lines {
		it := find(l.Token)
		if it == nil {
			field := "pv.id_token_stock_item"
			if len(f.Products) > 0 {
				field = "pv.products[" + strconv.Itoa(i) + "].token"
			}
			return &store.RefError{Field: field}
		}
		total = total.Add(store.LineTotal(l.Quantity, it.MonetaryValue).Decimal)
		names = append(names, it.Description)
	}
	if !store.InMoneyRange(total) {
		return store.ErrMoneyRange
	}
	f.Value = store.NewMoney(total)
	if f.Description == "" && len(names) > 0 {
		f.Description = names[0]
		if len(names) > 1 {
			f.Description += " e outros " + strconv.Itoa(len(names)-1) + " itens"
		}
	}
	return nil
}

// issOn sets a service order's NFS-e amounts for an ISS of rate percent
// on its whole value, rendered where the unit is (its city), no
// retention; the service's list item is its id and code.
func issOn(f *store.SalesOrderFields, rate decimal.Decimal, city string) error {
	if rate.LessThan(decimal.NewFromInt(2)) || rate.GreaterThan(decimal.NewFromInt(5)) || rate.Exponent() < -2 {
		return ErrISSRate
	}
	if f.ServiceID == "" {
		f.ServiceID = f.ServiceCod
	}
	if f.ServiceCod == "" {
		f.ServiceCod = f.ServiceID
	}
	f.ServiceLocation = city
	f.Taxes.TaxServiceGrossAmount, f.Taxes.TaxServiceBaseAmount = f.Value, f.Value
	f.Taxes.TaxIssRatePercent = store.NewMoney(rate)
	f.Taxes.TaxIssAmount = store.NewMoney(f.Value.Mul(rate).Div(decimal.NewFromInt(100)).Round(2))
	f.Taxes.NetReceivableAmount = f.Value
	return nil
}
