package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/store"
)

// BenchmarkListSalesOrders lists one month (about 1,500 orders) among
// 50,000 orders spread over 1,000 days, through the real handler.
func BenchmarkListSalesOrders(b *testing.B) {
	s, ds := newTestServer(b)
	ctx := context.Background()
	db, release, err := ds.Acquire(ctx, "acme")
	if err != nil {
		b.Fatal(err)
	}
	units, _ := db.Units(ctx)
	methods, _ := db.PaymentMethods(ctx)
	last := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 50_000; i++ {
		f := store.SalesOrderFields{ContactToken: fx.tokens["contact1"], CategoryToken: fx.tokens["category1"],
			PaymentTypeToken: methods[0].Token, StockItemToken: fx.tokens["service1"], Description: fmt.Sprintf("Pedido %d", i),
			Value: store.NewMoney(decimal.New(int64(10000+i), -2)), Quantity: store.Decimal{Decimal: decimal.NewFromInt(1)},
			EstimatedPaymentDate: last.AddDate(0, 0, -(i % 1000)).Format(time.DateOnly), InstallmentCredit: 1, Installments: 1,
			FreightMode: 9, LocalDestino: 1}
		if _, _, err := db.InsertSalesOrder(ctx, units[0].ID, f); err != nil {
			b.Fatal(err)
		}
	}
	release()
	h := s.Handler()
	body := `{` + expand(auth) + `,"date_from":"2026-11-01","date_to":"2026-11-30"}`
	b.ResetTimer()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			benchPost(b, h, "/list_sales_orders", body)
		}
	})
}

// BenchmarkInsertSalesOrder inserts a complete service order through the
// real handler, with full durability.
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
