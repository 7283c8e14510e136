package server

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func movement(typ, qty, value, date string) call {
	return call{"/insert_inventory_movement", `{` + auth + `,"id_token_product":"{{product1}}","id_token_contact":"{{contact1}}","type":"` + typ +
		`","quantity":` + qty + `,"unitary_value":` + value + `,"lote":"L-2026-` + date[5:7] + `","validation_date":"2027-12-31","date_in_out":"` + date + `"}`}
}

func TestInventory(t *testing.T) {
	t.Parallel()
	seed := []call{movement("in", "100", "0.35", "2026-01-10"), movement("out", "30.5", "0.50", "2026-01-20"), movement("in", "1.333", "0.07", "2026-02-03")}
	run(t, []scenario{
		{name: "movements", path: "/get_inventory_moviment", before: seed, body: `{` + auth + `}`, status: 200, golden: "inventory/movements"},
		{name: "filter type", path: "/get_inventory_moviment", before: seed, body: `{` + auth + `,"module_type":"out"}`, status: 200, check: wantCount(1)},
		{name: "filter from", path: "/get_inventory_moviment", before: seed, body: `{` + auth + `,"dateRange1":"2026-01-15"}`, status: 200, check: wantCount(2)},
		{name: "filter up to", path: "/get_inventory_moviment", before: seed, body: `{` + auth + `,"dateRange2":"2026-01-15"}`, status: 200, check: wantCount(1)},
		{name: "filter lote contains", path: "/get_inventory_moviment", before: seed, body: `{` + auth + `,"lote":"-02"}`, status: 200, check: wantCount(1)},
		{name: "bad module type", path: "/get_inventory_moviment", body: `{` + auth + `,"module_type":"x"}`, status: 400, text: "Invalid module_type. Use in, out or all."},
		{name: "missing tokens", path: "/get_inventory_moviment", body: `{}`, status: 400, text: "Missing parameters"},
		{name: "unknown unit", path: "/get_inventory_moviment", body: `{"access_token":"{{access}}","unit_token":"x"}`, status: 404, text: "Unit not found"},
		{name: "report quantity", path: "/get_inventory_reports", before: seed, body: `{` + auth + `,"year":2026,"type_data":"quantity"}`, status: 200, golden: "inventory/report_quantity"},
		{name: "report value", path: "/get_inventory_reports", before: seed, body: `{` + auth + `,"year":"2026","type_data":"monetary_value"}`, status: 200, golden: "inventory/report_value"},
		{name: "report other year", path: "/get_inventory_reports", before: seed, body: `{` + auth + `,"year":2025,"type_data":"quantity"}`, status: 200, check: wantDataCount(0)},
		{name: "report missing", path: "/get_inventory_reports", body: `{` + auth + `,"year":2026}`, status: 400, text: "Parâmetros 'year' e 'type_data' são obrigatórios."},
		{name: "exit beyond stock", path: "/insert_inventory_movement", before: seed[:1], body: movement("out", "100.001", "1", "2026-03-01").body, status: 409,
			text: "Insufficient stock: this change would take the product's stock below zero."},
		{name: "disable entry below zero", path: "/disable_inventory_movement", before: seed[:2], body: `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000001"}`, status: 409,
			text: "Insufficient stock: this change would take the product's stock below zero."},
		{name: "bad quantity", path: "/insert_inventory_movement", body: movement("in", "0.0001", "1", "2026-03-01").body, status: 400, text: "Invalid quantity. It must be greater than zero, with up to 3 decimal places."},
		{name: "bad type", path: "/insert_inventory_movement", body: movement("sideways", "1", "1", "2026-03-01").body, status: 400, text: "Invalid type. Use in or out."},
		{name: "other unit product", path: "/insert_inventory_movement", body: strings.Replace(movement("in", "1", "1", "2026-03-01").body, "{{unitA}}", "{{unitB}}", 1), status: 403, text: "Invalid data"},
		{name: "update then balance", path: "/get_stock_balance", before: append(seed, call{"/update_inventory_movement", `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000002","quantity":40}`}),
			body: `{` + auth + `}`, status: 200, golden: "inventory/balance"},
		{name: "update unknown", path: "/update_inventory_movement", body: `{` + auth + `,"id_token":"x","quantity":1}`, status: 404, text: "Inventory movement not found or not updated."},
		{name: "disabled not listed", path: "/get_inventory_moviment", before: append(seed, call{"/disable_inventory_movement", `{` + auth + `,"token":"00000000-0000-4000-8001-000000000002"}`}),
			body: `{` + auth + `}`, status: 200, check: wantCount(2)},
		{name: "enabled listed again", path: "/get_inventory_moviment", before: append(seed, call{"/disable_inventory_movement", `{` + auth + `,"token":"00000000-0000-4000-8001-000000000002"}`},
			call{"/enable_inventory_movement", `{` + auth + `,"id_token":"00000000-0000-4000-8001-000000000002"}`}),
			body: `{` + auth + `}`, status: 200, check: wantCount(3)},
	})
}

func wantDataCount(n int) func(t *testing.T, r map[string]any) { return wantCount(n) }

// TestParallelExits: concurrent exits never drive the stock negative; the
// check and the write are one transaction.
func TestParallelExits(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	h := s.Handler()
	post(t, h, "/insert_inventory_movement", movement("in", "10", "1", "2026-01-01").body)
	var wg sync.WaitGroup
	codes := make(chan int, 32)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- do(h, http.MethodPost, "/insert_inventory_movement", movement("out", "1", "1", "2026-01-02").body).Code
		}()
	}
	wg.Wait()
	close(codes)
	ok := 0
	for c := range codes {
		if c == 200 {
			ok++
		} else if c != 409 {
			t.Fatalf("status %d", c)
		}
	}
	if ok != 10 {
		t.Fatalf("%d exits of 1 from a stock of 10", ok)
	}
	db, release, _ := ds.Acquire(context.Background(), "acme")
	defer release()
	b, _ := db.StockBalances(context.Background(), 1, fx.tokens["product1"])
	if b[0].Quantity.String() != "0" {
		t.Fatalf("balance %s", b[0].Quantity)
	}
}
