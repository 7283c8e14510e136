package sales

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/billing"
	"fincom/server/problem"
	"fincom/server/web"
	"fincom/store"
)

// salesDay is the tests' clock.
var salesDay = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// fixture is a domain on a real SQLite file with a unit (its PIX key and
// city), a customer, an income category, two products and a service, and
// the payment methods by key.
type fixture struct {
	db                     *store.DB
	unit, bare             store.Unit
	contact, category      string
	account                string
	screw, nut, consulting string
	methods                map[string]string
	svc                    *Service
	orderCount             func() int
	order                  func(token string) store.SalesOrderDetail
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	ctx := context.Background()
	schema, err := os.ReadFile("../../schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := store.OpenDomains(t.TempDir(), store.Options{Rules: billing.Rules{}, Schema: string(schema), Now: func() time.Time { return salesDay }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	if err := ds.Create(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	f := fixture{db: db, methods: map[string]string{}}
	if f.unit, err = db.CreateUnit(ctx, store.UnitInput{Name: "Matriz", CityIBGE: "3550308", Profile: store.UnitProfile{PixKey: "pix@acme.com.br"}}); err != nil {
		t.Fatal(err)
	}
	if f.bare, err = db.CreateUnit(ctx, store.UnitInput{Name: "Filial sem chave"}); err != nil {
		t.Fatal(err)
	}
	if f.contact, err = db.InsertContact(ctx, f.unit.ID, store.ContactFields{Type: "legal", Register: "11444777000161", SocialReason: "Cliente SA",
		Address: "Avenida Paulista", Number: "1000", Neighborhood: "Bela Vista", City: "São Paulo", State: "SP", ZipCode: "01310100"}); err != nil {
		t.Fatal(err)
	}
	if f.category, err = db.InsertCategory(ctx, f.unit.ID, store.CategoryFields{ModuleType: "in", Name: "Vendas"}); err != nil {
		t.Fatal(err)
	}
	banks, err := db.Banks(ctx, "CB")
	if err != nil {
		t.Fatal(err)
	}
	types, err := db.BankTypes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f.account, err = db.InsertBankAccount(ctx, f.unit.ID, store.BankAccountFields{BankToken: banks[0].Token, BankTypeToken: types[0].Token,
		Agency: "1234", CurrentAccount: "56789", DvConta: "0", NickName: "Conta corrente"}); err != nil {
		t.Fatal(err)
	}
	product := func(desc, typ, price string) string {
		t.Helper()
		tok, err := db.InsertProduct(ctx, f.unit.ID, store.ProductFields{Description: desc, Type: typ, MonetaryValue: money(price), UsageType: "00",
			NCM: "73181500", CFOP: "5102", Unit: "UN"})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	f.screw, f.nut, f.consulting = product("Parafuso", "product", "0.33"), product("Porca", "product", "1.10"), product("Consultoria", "service", "150.00")
	methods, err := db.PaymentMethods(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range methods {
		f.methods[m.PaymentKey] = m.Token
	}
	f.svc = &Service{Billing: &billing.Service{Log: slog.New(slog.DiscardHandler)}}
	f.orderCount = func() int {
		t.Helper()
		var n int
		for _, u := range []store.Unit{f.unit, f.bare} {
			orders, err := db.SalesOrders(ctx, u, store.SalesOrderFilter{From: "2000-01-01", To: "2100-01-01"}).All()
			if err != nil {
				t.Fatal(err)
			}
			n += len(orders)
		}
		return n
	}
	f.order = func(token string) store.SalesOrderDetail {
		t.Helper()
		o, err := db.SalesOrder(ctx, f.unit.ID, token)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	return f
}

func money(s string) store.Money { return store.NewMoney(decimal.RequireFromString(s)) }

// base is an order of the fixture's unit paid by transfer... as the
// caller reads it, before its case changes it.
func (f fixture) base() Order {
	return Order{SalesOrderFields: store.SalesOrderFields{ContactToken: f.contact, CategoryToken: f.category, PaymentTypeToken: f.methods["BOLETO"],
		Description: "Venda", Value: money("100.00"), Quantity: store.Decimal{Decimal: decimal.NewFromInt(1)}, EstimatedPaymentDate: "2026-12-10",
		InstallmentCredit: 1, Installments: 1, FreightMode: 9, LocalDestino: 1}}
}

// TestCreate: the order's rules wherever it comes from. A priced order's
// value is its lines' at the catalogue's prices to the cent and its blank
// description its items'; a PIX order takes the unit's key; a service's
// ISS is computed from its rate; the missing fields are listed at once,
// the caller's first; notice addresses, the caller's format refusal, the
// ISS rate and the installments are refused with their texts; a role that
// may not make the order, or charge or invoice it when asked, is refused
// before anything is written.
func TestCreate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	qty := func(s string) store.Decimal { return store.Decimal{Decimal: decimal.RequireFromString(s)} }
	rate := func(s string) *decimal.Decimal { d := decimal.RequireFromString(s); return &d }
	for _, c := range []struct {
		name   string
		role   store.Role
		unit   store.Unit
		change func(o *Order)
		err    string // the refusal's text ("" made)
		field  string // a missing-fields refusal's list, or a named field's text
		check  func(t *testing.T, o store.SalesOrderDetail)
	}{
		{name: "priced to the cent", change: func(o *Order) {
			o.Priced, o.Description, o.Value = true, "", money("999.99")
			o.NFKind = "nfe"
			o.Products = []store.OrderProduct{{Token: f.screw, Quantity: qty("7")}, {Token: f.nut, Quantity: qty("2.5")}}
		}, check: func(t *testing.T, o store.SalesOrderDetail) {
			if o.Value.StringFixed(2) != "5.06" || o.Description != "Parafuso e outros 1 itens" {
				t.Errorf("priced: %s %q", o.Value.StringFixed(2), o.Description)
			}
		}},
		{name: "a service priced by its quantity, its ISS from its rate", change: func(o *Order) {
			o.Priced, o.NFKind, o.StockItemToken, o.Quantity = true, "nfsen", f.consulting, qty("3")
			o.ServiceID, o.ServiceCod, o.ISSRate = "01.07", "01.07", rate("2.5")
		}, check: func(t *testing.T, o store.SalesOrderDetail) {
			if o.Value.StringFixed(2) != "450.00" || o.Description != "Venda" {
				t.Errorf("service: %s %q", o.Value.StringFixed(2), o.Description)
			}
		}},
		{name: "a sale of goods under the unit's goods category", change: func(o *Order) {
			o.UnitDefaults, o.CategoryToken, o.NFKind = true, "", "nfe"
			o.Products = []store.OrderProduct{{Token: f.screw, Quantity: qty("1")}}
		}, check: func(t *testing.T, o store.SalesOrderDetail) {
			if o.Category != "Venda de produtos" {
				t.Errorf("the goods' category: %q", o.Category)
			}
		}},
		{name: "a service under the unit's services category, a transfer into the order's account", change: func(o *Order) {
			o.UnitDefaults, o.CategoryToken, o.StockItemToken = true, "", f.consulting
			o.PaymentTypeToken, o.BankAccountToken = f.methods["TRANSFER"], f.account
		}, check: func(t *testing.T, o store.SalesOrderDetail) {
			if o.Category != "Prestação de serviços" || o.ChargeConfig.IDTokenBankAccountPayment.String != f.account {
				t.Errorf("the service's category %q, the transfer's account %q", o.Category, o.ChargeConfig.IDTokenBankAccountPayment.String)
			}
		}},
		{name: "a transfer without its account, the API's way", change: func(o *Order) {
			o.PaymentTypeToken, o.BankAccountToken = f.methods["TRANSFER"], f.account
		}, err: "Missing required fields", field: "charge.bankAccountPayment"},
		{name: "PIX takes the unit's key", change: func(o *Order) { o.PaymentTypeToken = f.methods["PIX"] }, check: func(t *testing.T, o store.SalesOrderDetail) {
			if o.PixKey.String != "pix@acme.com.br" {
				t.Errorf("the PIX key: %q", o.PixKey.String)
			}
		}},
		{name: "PIX in a unit without a key", unit: f.bare, change: func(o *Order) { o.PaymentTypeToken = f.methods["PIX"] },
			err: "Missing required fields", field: "charge.charge_pix_key"},
		{name: "every missing field at once, the caller's first", change: func(o *Order) {
			o.Missing = []string{"pv.value"}
			o.NFKind, o.EstimatedPaymentDate, o.PaymentTypeToken = "nfse", "", f.methods["TRANSFER"]
			o.Format = errors.New("not reached")
		}, err: "Missing required fields",
			field: "pv.value pv.id_token_stock_item faturamento.estimated_payment_date charge.bankAccountPayment nf.service_id_token"},
		{name: "an NF-e without products", change: func(o *Order) { o.NFKind = "nfce" }, err: "Missing required fields", field: "pv.products"},
		{name: "a notice address", change: func(o *Order) { o.NotifyEmailNF = "fiscal@" }, err: "Invalid pv.notify_email_nf. Use an e-mail address."},
		{name: "the caller's format refusal after the addresses", change: func(o *Order) {
			o.Format = problem.New(problem.Unprocessable, web.TextInvalidParameterFormat)
		}, err: web.TextInvalidParameterFormat},
		{name: "an ISS rate past the law's ceiling", change: func(o *Order) {
			o.NFKind, o.StockItemToken, o.ServiceID, o.ISSRate = "nfsen", f.consulting, "01.07", rate("5.5")
		}, err: ErrISSRate.Text},
		{name: "a thousand installments", change: func(o *Order) { o.Installments = 1000 }, err: store.ErrInvalidValue.Error()},
		{name: "the accountant", role: store.RoleAccountant, err: ErrMayNot.Text},
		{name: "finance makes no order", role: store.RoleFinance, err: ErrMayNot.Text},
		{name: "sales may not invoice it", role: store.RoleSales, change: func(o *Order) {
			o.NFKind, o.Issue = "nfe", true
			o.Products = []store.OrderProduct{{Token: f.screw, Quantity: qty("1")}}
		}, err: ErrMayNot.Text},
		{name: "sales makes it without its invoice", role: store.RoleSales, change: func(o *Order) {
			o.NFKind = "nfe"
			o.Products = []store.OrderProduct{{Token: f.screw, Quantity: qty("1")}}
		}},
	} {
		o := f.base()
		if c.change != nil {
			c.change(&o)
		}
		role, unit := c.role, c.unit
		if role == "" {
			role = store.RoleOwner
		}
		if unit.ID == 0 {
			unit = f.unit
		}
		before := f.orderCount()
		got, err := f.svc.Create(ctx, f.db, unit, role, o)
		if c.err != "" {
			var p *problem.Problem
			text := ""
			if err != nil {
				text = err.Error()
			}
			if errors.As(err, &p) {
				text = p.Text
			}
			if !strings.Contains(text, c.err) {
				t.Errorf("%s: %v, want %q", c.name, err, c.err)
			}
			if c.field != "" && (p == nil || !strings.Contains(strings.Join(missingOf(p), " "), c.field)) {
				t.Errorf("%s: %+v, want the fields %q", c.name, p, c.field)
			}
			if n := f.orderCount(); n != before {
				t.Errorf("%s: refused, and %d orders were written", c.name, n-before)
			}
			continue
		}
		if err != nil || !got.Made || got.Token == "" || !strings.HasPrefix(got.Code, "PV-") {
			t.Errorf("%s: %+v %v", c.name, got, err)
			continue
		}
		if c.check != nil {
			c.check(t, f.order(got.Token))
		}
	}
}

// missingOf is a missing-fields refusal's list, as the API answers it.
func missingOf(p *problem.Problem) []string {
	var d struct {
		MissingFields []string `json:"missing_fields"`
	}
	b, _ := json.Marshal(p.Details)
	json.Unmarshal(b, &d)
	return d.MissingFields
}
