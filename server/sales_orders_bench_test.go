package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/api"
	"fincom/store"
)

// monthOrders is how many orders each month holds, whatever the
// history's size: a busy small firm's month.
const monthOrders = 500

// seedOrders gives unit A monthOrders orders estimated in November 2026
// through the store (every tenth a product order with two lines, the rest
// service orders with taxes) and months-1 earlier months of copies.
func seedOrders(b *testing.B, months int) (*Server, string) {
	b.Helper()
	s, ds := newTestServer(b)
	ctx := context.Background()
	db, release := acquire(b, ds)
	units, _ := db.Units(ctx)
	methods, _ := db.PaymentMethods(ctx)
	last := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for i := 0; i < monthOrders; i++ {
		f := store.SalesOrderFields{ContactToken: fx.tokens["contact1"], CategoryToken: fx.tokens["category1"],
			PaymentTypeToken: methods[0].Token, ProjectToken: fx.tokens["project1"], Description: fmt.Sprintf("Pedido %d", i),
			Value: store.NewMoney(decimal.New(int64(10000+i), -2)), Quantity: store.Decimal{Decimal: decimal.NewFromInt(1)},
			EstimatedPaymentDate: last.AddDate(0, 0, -(i % 30)).Format(time.DateOnly), InstallmentCredit: 1, Installments: 1,
			FreightMode: 9, LocalDestino: 1, NotifyEmailCharge: "fin@alfa.com.br", ObservationSales: "entregar à tarde"}
		if i%10 == 0 {
			f.Products = []store.OrderProduct{{Token: fx.tokens["product1"], Quantity: store.Decimal{Decimal: decimal.NewFromInt(3)}},
				{Token: fx.tokens["product1"], Quantity: store.Decimal{Decimal: decimal.New(15, -1)}}}
		} else {
			f.StockItemToken, f.ServiceCod, f.ServiceLocation = fx.tokens["service1"], "01.07", "3550308"
			f.Taxes.TaxIssRatePercent = store.NewMoney(decimal.NewFromInt(5))
			f.Taxes.TaxIssAmount = store.NewMoney(decimal.New(int64(10000+i)*5, -4).Round(2))
		}
		if _, _, err := db.InsertSalesOrder(ctx, units[0].ID, f); err != nil {
			b.Fatal(err)
		}
	}
	release()
	path := filepath.Join(ds.Dir(), "acme.db")
	copyHistory(b, ds, path, "sales_orders", months-1, map[string]string{
		"token":                  `token || '-h$k'`,
		"cod_seq":                `cod_seq + $k * 100000`,
		"cod_orders":             `'PV-H$k-' || cod_seq`,
		"estimated_payment_date": `date(estimated_payment_date, '-$k months')`,
		"recurrence":             `0`,
		"public_token":           `NULL`,
	})
	return s, path
}

var salesOrdersMonth = `,"date_from":"2026-11-01","date_to":"2026-11-30"`

// BenchmarkListSalesOrders lists November 2026 (500 orders) through the
// real handler, alone and among 50,000 orders.
func BenchmarkListSalesOrders(b *testing.B) {
	for _, months := range []int{1, 100} {
		s, _ := seedOrders(b, months)
		h := s.Handler()
		body := `{` + expand(auth) + salesOrdersMonth + `}`
		b.Run(fmt.Sprintf("month_of_%d", months*monthOrders), func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					benchPost(b, h, "/list_sales_orders", body)
				}
			})
		})
	}
}

// BenchmarkListSalesOrdersBaseline runs store.SalesOrders' SQL (the orders,
// then their lines) and the same answer with database/sql and
// encoding/json alone.
func BenchmarkListSalesOrdersBaseline(b *testing.B) {
	for _, months := range []int{1, 100} {
		s, path := seedOrders(b, months)
		db := bareDB(b, path, false)
		sameAnswer(b, s.Handler(), "/list_sales_orders", `{`+expand(auth)+salesOrdersMonth+`}`, bareSalesOrders(b, db))
		b.Run(fmt.Sprintf("month_of_%d", months*monthOrders), func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					bareSalesOrders(b, db)
				}
			})
		})
	}
}

type bareTaxes struct {
	TaxServiceGrossAmount          string `json:"tax_service_gross_amount"`
	TaxServiceDeductionAmount      string `json:"tax_service_deduction_amount"`
	TaxServiceUncondDiscountAmount string `json:"tax_service_uncond_discount_amount"`
	TaxServiceCondDiscountAmount   string `json:"tax_service_cond_discount_amount"`
	TaxIssRatePercent              string `json:"tax_iss_rate_percent"`
	TaxServiceBaseAmount           string `json:"tax_service_base_amount"`
	TaxIssAmount                   string `json:"tax_iss_amount"`
	RetPisRatePercent              string `json:"ret_pis_rate_percent"`
	RetInssRatePercent             string `json:"ret_inss_rate_percent"`
	RetCsllRatePercent             string `json:"ret_csll_rate_percent"`
	RetCofinsRatePercent           string `json:"ret_cofins_rate_percent"`
	RetIrRatePercent               string `json:"ret_ir_rate_percent"`
	RetOtherRatePercent            string `json:"ret_other_rate_percent"`
	RetPisAmount                   string `json:"ret_pis_amount"`
	RetInssAmount                  string `json:"ret_inss_amount"`
	RetCsllAmount                  string `json:"ret_csll_amount"`
	RetCofinsAmount                string `json:"ret_cofins_amount"`
	RetIrAmount                    string `json:"ret_ir_amount"`
	RetOtherAmount                 string `json:"ret_other_amount"`
	RetTotalAmount                 string `json:"ret_total_amount"`
	NetReceivableAmount            string `json:"net_receivable_amount"`
}

type bareLine struct {
	Token       string  `json:"token"`
	Code        string  `json:"code"`
	Description string  `json:"description"`
	NCM         *string `json:"ncm"`
	CFOP        *string `json:"cfop"`
	Unit        *string `json:"unit"`
	Quantity    string  `json:"quantity"`
	UnitValue   string  `json:"unit_value"`
	Total       string  `json:"total"`
}

type bareOrder struct {
	IDToken              string  `json:"id_token"`
	CreatedDateHours     string  `json:"created_date_hours"`
	Active               bool    `json:"active"`
	FreightMode          int     `json:"freight_mode"`
	FreightTotal         string  `json:"freight_total"`
	NotifyEmailCharge    *string `json:"notify_email_charge"`
	NotifyEmailNF        *string `json:"notify_email_nf"`
	NotifyEmailAlert     *string `json:"notify_email_alert"`
	LocalDestino         int     `json:"local_destino"`
	ProductsQty          *string `json:"products_qty"`
	TipoDocumento        *string `json:"tipo_documento"`
	FinalidadeEmissao    *string `json:"finalidade_emissao"`
	PresencaComprador    *string `json:"presenca_comprador"`
	ConsumidorFinal      *string `json:"consumidor_final"`
	ObservationSales     *string `json:"observation_sales"`
	IDUnit               string  `json:"id_unit"`
	IDStockItem          *string `json:"id_stock_item"`
	IDProject            *string `json:"id_project"`
	IDContact            *string `json:"id_contact"`
	IDBankAccount        *string `json:"id_bank_account"`
	PaymentType          string  `json:"payment_type"`
	Description          string  `json:"description"`
	Value                string  `json:"value"`
	IDTokenCategory      string  `json:"id_token_category"`
	Category             string  `json:"category"`
	EstimatedPaymentDate string  `json:"estimated_payment_date"`
	Recurrence           bool    `json:"recurrence"`
	Quantity             string  `json:"quantity"`
	CodOrders            string  `json:"cod_orders"`
	NF                   bool    `json:"nf"`
	Revenue              bool    `json:"revenue"`
	Charge               bool    `json:"charge"`
	CancelNF             bool    `json:"cancel_nf"`
	CancelCharge         bool    `json:"cancel_charge"`
	DateNF               *string `json:"date_nf"`
	DateRevenue          *string `json:"date_revenue"`
	DateCharge           *string `json:"date_charge"`
	DateCancelNF         *string `json:"date_cancel_nf"`
	DateCancelCharge     *string `json:"date_cancel_charge"`
	DatePayment          *string `json:"date_payment"`
	ServiceAssocID       *string `json:"service_assoc_id"`
	ServiceCod           *string `json:"service_cod"`
	ServiceLocation      *string `json:"service_location"`
	bareTaxes
	PaymentKey          string      `json:"payment_key"`
	PixKey              *string     `json:"pix_key"`
	ChargeStatus        string      `json:"charge_status"`
	NFStatusText        *string     `json:"nf_status_text"`
	NFStatus            *string     `json:"nf_status"`
	NFXMLURL            *string     `json:"nf_xml_url"`
	NFKind              string      `json:"nf_kind"`
	Products            *[]bareLine `json:"products"`
	ProductIDTokens     []string    `json:"product_id_tokens"`
	UnitName            string      `json:"unit_name"`
	UnitCityIBGE        string      `json:"unit_city_ibge"`
	UnitIM              string      `json:"unit_im"`
	StockItemName       *string     `json:"stock_item_name"`
	ProjectName         *string     `json:"project_name"`
	ContactName         *string     `json:"contact_name"`
	CustomerCityIBGE    string      `json:"customer_city_ibge"`
	NickNameBankAccount string      `json:"nick_name_bank_account"`
}

func bareSalesOrders(b *testing.B, db *sql.DB) []byte {
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	rows, err := tx.Query(`
	SELECT o.id, o.token, o.created_at, o.active, o.freight_mode, o.freight_total, o.notify_email_charge, o.notify_email_nf,
		o.notify_email_alert, o.local_destino, o.tipo_documento, o.finalidade_emissao, o.presenca_comprador,
		o.consumidor_final, o.observation_sales, un.token, st.token, pr.token, c.token, ba.token, pm.token, o.description,
		o.value, cat.token, cat.name, o.estimated_payment_date, o.recurrence, o.quantity, o.cod_orders, o.nf, o.revenue,
		o.charge, o.cancel_nf, o.cancel_charge, o.date_nf, o.date_revenue, o.date_charge, o.date_cancel_nf,
		o.date_cancel_charge, o.date_payment, o.service_assoc_id, o.service_cod, o.service_location, o.taxes,
		pm.payment_key, o.pix_key, o.charge_status, o.nf_status_text, o.nf_kind, st.type, un.name, un.city_ibge, un.im,
		st.description, pr.name, c.display_name, c.city_ibge, ba.nick_name,
		orig.token, o.provider_bank, o.installment_credit, o.installments, o.notify_days_charge, bap.token,
		o.in_automation, o.conciliation, o.generate_nf_webhook, o.service_id, o.public_token,
		CASE WHEN EXISTS (SELECT 1 FROM invoice_transmissions t WHERE t.order_id = o.id)
			AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.order_id = o.id AND i.status = 'AUTHORIZED') THEN 'PENDING'
		WHEN EXISTS (SELECT 1 FROM invoices i WHERE i.order_id = o.id AND i.status = 'AUTHORIZED' AND i.protocol = '' AND i.kind IN ('nfe', 'nfce'))
			THEN 'CONTINGENCY'
		ELSE (SELECT i.status FROM invoices i WHERE i.order_id = o.id ORDER BY i.id DESC LIMIT 1) END
	FROM sales_orders o
	JOIN units un ON un.id = o.unit_id
	JOIN categories cat ON cat.id = o.category_id
	JOIN payment_methods pm ON pm.id = o.payment_method_id
	LEFT JOIN contacts c ON c.id = o.contact_id
	LEFT JOIN products st ON st.id = o.stock_item_id
	LEFT JOIN projects pr ON pr.id = o.project_id
	LEFT JOIN bank_accounts ba ON ba.id = o.bank_account_id
	LEFT JOIN bank_accounts bap ON bap.id = o.bank_account_payment_id
	LEFT JOIN sales_orders orig ON orig.id = o.origin_id WHERE o.unit_id = ? AND o.estimated_payment_date BETWEEN ? AND ? ORDER BY o.estimated_payment_date, o.id`,
		1, "2026-11-01", "2026-11-30")
	if err != nil {
		b.Fatal(err)
	}
	dateTime := func(s *string) *string {
		if s == nil {
			return nil
		}
		t, _ := time.Parse(time.RFC3339, *s)
		v := t.In(api.SaoPaulo).Format("02/01/2006 15:04")
		return &v
	}
	orders := []*bareOrder{}
	byID := map[int64]*bareOrder{}
	for rows.Next() {
		o := &bareOrder{ProductIDTokens: []string{}}
		var id int64
		var created, taxes, date string
		var dates [6]*string
		var ignore [10]any
		var nfKind, stockType, unitIBGE, unitIM, contactIBGE, nick *string
		if err := rows.Scan(&id, &o.IDToken, &created, &o.Active, &o.FreightMode, &o.FreightTotal, &o.NotifyEmailCharge,
			&o.NotifyEmailNF, &o.NotifyEmailAlert, &o.LocalDestino, &o.TipoDocumento, &o.FinalidadeEmissao,
			&o.PresencaComprador, &o.ConsumidorFinal, &o.ObservationSales, &o.IDUnit, &o.IDStockItem, &o.IDProject,
			&o.IDContact, &o.IDBankAccount, &o.PaymentType, &o.Description, &o.Value, &o.IDTokenCategory, &o.Category,
			&date, &o.Recurrence, &o.Quantity, &o.CodOrders, &o.NF, &o.Revenue, &o.Charge, &o.CancelNF, &o.CancelCharge,
			&dates[0], &dates[1], &dates[2], &dates[3], &dates[4], &dates[5], &o.ServiceAssocID, &o.ServiceCod,
			&o.ServiceLocation, &taxes, &o.PaymentKey, &o.PixKey, &o.ChargeStatus, &o.NFStatusText, &nfKind, &stockType,
			&o.UnitName, &unitIBGE, &unitIM, &o.StockItemName, &o.ProjectName, &o.ContactName, &contactIBGE, &nick,
			&ignore[0], &ignore[1], &ignore[2], &ignore[3], &ignore[4], &ignore[5], &ignore[6], &ignore[7], &ignore[8],
			&ignore[9], new(any), &o.NFStatus); err != nil {
			b.Fatal(err)
		}
		if o.NFStatus != nil {
			// The seed issues no invoice: the baseline builds no links.
			b.Fatal("an order of the seed has an invoice")
		}
		o.CreatedDateHours = *dateTime(&created)
		o.EstimatedPaymentDate = date + "T00:00:00.000Z"
		o.DateNF, o.DateRevenue, o.DateCharge = dateTime(dates[0]), dateTime(dates[1]), dateTime(dates[2])
		o.DateCancelNF, o.DateCancelCharge, o.DatePayment = dateTime(dates[3]), dateTime(dates[4]), dateTime(dates[5])
		if err := json.Unmarshal([]byte(taxes), &o.bareTaxes); err != nil {
			b.Fatal(err)
		}
		switch {
		case nfKind != nil:
			o.NFKind = *nfKind
		case stockType != nil && *stockType == "service":
			o.NFKind = "nfse"
		default:
			o.NFKind = "nfe"
		}
		deref := func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		}
		o.UnitCityIBGE, o.UnitIM, o.CustomerCityIBGE, o.NickNameBankAccount = deref(unitIBGE), deref(unitIM), deref(contactIBGE), deref(nick)
		orders = append(orders, o)
		byID[id] = o
	}
	rows.Close()
	rows, err = tx.Query(`
		SELECT l.order_id, p.token, l.code, l.description, l.ncm, l.cfop, l.unit, l.quantity, l.unit_value, l.total
		FROM sales_orders o
		JOIN sales_order_lines l ON l.order_id = o.id
		JOIN products p ON p.id = l.product_id
		WHERE o.unit_id = ? AND o.estimated_payment_date BETWEEN ? AND ?
		ORDER BY o.estimated_payment_date, o.id, l.position`, 1, "2026-11-01", "2026-11-30")
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var l bareLine
		if err := rows.Scan(&id, &l.Token, &l.Code, &l.Description, &l.NCM, &l.CFOP, &l.Unit, &l.Quantity, &l.UnitValue, &l.Total); err != nil {
			b.Fatal(err)
		}
		o := byID[id]
		if o.Products == nil {
			o.Products = &[]bareLine{}
		}
		*o.Products = append(*o.Products, l)
		o.ProductIDTokens = append(o.ProductIDTokens, l.Token)
	}
	rows.Close()
	for _, o := range orders {
		if o.Products != nil {
			qty := make([]string, len(*o.Products))
			for i, l := range *o.Products {
				qty[i] = l.Quantity
			}
			s := strings.Join(qty, ",")
			o.ProductsQty = &s
		}
	}
	return bareWrite(b, bareData{true, orders})
}

// BenchmarkInsertSalesOrder inserts a complete service order (taxes,
// notifications, code sequence, audit) through the real handler, with
// full durability. Its baseline is BenchmarkInsertContactBaseline's one
// fsync'd statement: an order is several statements in one transaction,
// and the fsync is the floor both pay.
func BenchmarkInsertSalesOrder(b *testing.B) {
	s, _ := newTestServer(b)
	h := s.Handler()
	body := expand(serviceOrder)
	b.ResetTimer()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			benchPost(b, h, "/insert_sales_order", body)
		}
	})
}
