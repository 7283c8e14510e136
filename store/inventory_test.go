package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// reportsAgree fails the test when the kept monthly totals answer another
// report than the movements themselves, for every year, kind and product
// filter a test touches.
func reportsAgree(t *testing.T, db *DB, unitID int64, products []string, step string) {
	t.Helper()
	ctx := context.Background()
	for _, year := range []int{2025, 2026} {
		for _, byValue := range []bool{false, true} {
			for _, product := range append([]string{""}, products...) {
				kept, err := db.InventoryReport(ctx, unitID, year, byValue, "", product)
				if err != nil {
					t.Fatal(err)
				}
				summed, err := db.movementsReport(ctx, unitID, year, byValue, "", product)
				if err != nil {
					t.Fatal(err)
				}
				a, _ := json.Marshal(kept)
				b, _ := json.Marshal(summed)
				if string(a) != string(b) {
					t.Fatalf("%s: report %d value=%v product=%q from the totals:\n%s\nfrom the movements:\n%s", step, year, byValue, product, a, b)
				}
			}
		}
	}
}

// TestInventoryTotalsFollowMovements: the yearly report reads the kept
// monthly totals; after any sequence of inserts, changes (of product,
// type, quantity, value and month), disables and enables, refused ones
// included, it answers what summing the movements answers.
func TestInventoryTotalsFollowMovements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, u := newUnit(t)
	var products []string
	for i := 0; i < 3; i++ {
		tok, err := db.InsertProduct(ctx, u.ID, ProductFields{Description: fmt.Sprintf("Produto %d", i), Type: "product", UsageType: "00",
			MonetaryValue: NewMoney(decimal.NewFromInt(10))})
		if err != nil {
			t.Fatal(err)
		}
		products = append(products, tok)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	random := func(f *MovementFields) {
		f.ProductToken = products[rng.IntN(len(products))]
		f.Type = []string{"in", "in", "out"}[rng.IntN(3)]
		f.Quantity = Decimal{decimal.New(int64(1+rng.IntN(50_000)), -3)}
		f.UnitaryValue = NewMoney(decimal.New(int64(rng.IntN(100_000)), -2))
		f.DateInOut = start.AddDate(0, 0, rng.IntN(730)).Format(time.DateOnly)
	}
	var tokens []string
	refused := 0
	for step := 0; step < 400; step++ {
		var err error
		switch op := rng.IntN(10); {
		case op < 5 || len(tokens) == 0:
			var f MovementFields
			random(&f)
			var tok string
			if tok, err = db.InsertMovement(ctx, u.ID, f); err == nil {
				tokens = append(tokens, tok)
			}
		case op < 8:
			err = db.UpdateMovement(ctx, u.ID, tokens[rng.IntN(len(tokens))], func(f *MovementFields) error {
				// Sometimes one field, sometimes all of them.
				switch rng.IntN(4) {
				case 0:
					f.DateInOut = start.AddDate(0, 0, rng.IntN(730)).Format(time.DateOnly)
				case 1:
					f.Quantity = Decimal{decimal.New(int64(1+rng.IntN(50_000)), -3)}
				case 2:
					f.UnitaryValue = NewMoney(decimal.New(int64(rng.IntN(100_000)), -2))
				default:
					random(f)
				}
				return nil
			})
		default:
			err = db.SetMovementActive(ctx, u.ID, tokens[rng.IntN(len(tokens))], rng.IntN(2) == 0)
		}
		if errors.Is(err, ErrInsufficientStock) {
			refused++
		} else if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if step%20 == 19 {
			reportsAgree(t, db, u.ID, products, fmt.Sprintf("step %d", step))
		}
	}
	if refused == 0 || refused > 200 {
		t.Fatalf("%d of 400 changes refused: the sequence should mix refusals in, not be made of them", refused)
	}
	var rows int
	if err := db.w.QueryRowContext(ctx, `SELECT count(*) FROM inventory_month_totals`).Scan(&rows); err != nil || rows == 0 {
		t.Fatalf("%d rows of totals, %v", rows, err)
	}
}

// TestInventoryTotalsOfExistingMovements: a file whose movements were
// written before the totals were kept gets them summed when it is
// migrated (migration 23's Go step).
func TestInventoryTotalsOfExistingMovements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, u := newUnit(t)
	product, err := db.InsertProduct(ctx, u.ID, ProductFields{Description: "Farinha", Type: "product", UsageType: "00", MonetaryValue: NewMoney(decimal.NewFromInt(3))})
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for i, m := range []struct{ typ, qty, value, date string }{
		{"in", "100", "0.35", "2025-12-31"}, {"in", "1.333", "0.07", "2026-01-10"}, {"out", "30.5", "0.50", "2026-01-20"}, {"in", "2", "1.25", "2026-01-21"},
	} {
		f := MovementFields{ProductToken: product, Type: m.typ, Quantity: Decimal{decimal.RequireFromString(m.qty)},
			UnitaryValue: NewMoney(decimal.RequireFromString(m.value)), DateInOut: m.date}
		if last, err = db.InsertMovement(ctx, u.ID, f); err != nil {
			t.Fatalf("movement %d: %v", i, err)
		}
	}
	if err := db.SetMovementActive(ctx, u.ID, last, false); err != nil {
		t.Fatal(err)
	}
	want, err := db.movementsReport(ctx, u.ID, 2026, true, "", "")
	if err != nil || len(want) != 2 {
		t.Fatalf("%v %v", want, err)
	}
	if _, err := db.w.ExecContext(ctx, `DROP TABLE inventory_month_totals`); err != nil {
		t.Fatal(err)
	}
	rewind(t, db, 22)
	if _, err := migrate(ctx, db.w, "", time.Now()); err != nil {
		t.Fatal(err)
	}
	reportsAgree(t, db, u.ID, []string{product}, "after migrating")
	got, _ := db.InventoryReport(ctx, u.ID, 2026, true, "", "")
	if len(got) != 2 || got[0].Total.String() != "0.09331" || got[1].Total.String() != "15.25" {
		t.Fatalf("report %+v", got)
	}
}
