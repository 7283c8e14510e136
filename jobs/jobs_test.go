package jobs

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/billing"
	"fincom/store"
)

// world is a domain with one unit, a customer and a category, on a clock
// the test moves.
type world struct {
	t      *testing.T
	now    time.Time
	ds     *store.Domains
	db     *store.DB
	runner *Runner
	unit   store.Unit
	fields store.SalesOrderFields
}

func newWorld(t *testing.T, start time.Time) *world {
	t.Helper()
	schema, err := os.ReadFile("../schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, now: start}
	w.ds, err = store.OpenDomains(t.TempDir(), store.Options{Rules: billing.Rules{}, Schema: string(schema), Now: func() time.Time { return w.now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.ds.Close() })
	ctx := context.Background()
	if err := w.ds.Create(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	db, release, err := w.ds.Acquire(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	w.db = db
	w.unit, _ = db.CreateUnit(ctx, store.UnitInput{Name: "A"})
	contact, err := db.InsertContact(ctx, w.unit.ID, store.ContactFields{Type: "natural_person", Register: "52998224725", FullName: "Maria"})
	if err != nil {
		t.Fatal(err)
	}
	product, _ := db.InsertProduct(ctx, w.unit.ID, store.ProductFields{Description: "Caderno", Type: "product", UsageType: "00"})
	cats, _ := db.Categories(ctx, w.unit.ID, "in", "Venda")
	methods, _ := db.PaymentMethods(ctx)
	w.fields = store.SalesOrderFields{ContactToken: contact, CategoryToken: cats[0].Token, PaymentTypeToken: methods[0].Token,
		Description: "Mensalidade", Value: store.NewMoney(decimal.NewFromInt(100)), Quantity: store.Decimal{Decimal: decimal.NewFromInt(1)},
		Recurrence: true, InstallmentCredit: 1, Installments: 1, FreightMode: 9, LocalDestino: 1,
		Products: []store.OrderProduct{{Token: product, Quantity: store.Decimal{Decimal: decimal.NewFromInt(3)}}}}
	w.runner = &Runner{Domains: w.ds, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return w
}

func (w *world) order(due string) string {
	w.t.Helper()
	f := w.fields
	f.EstimatedPaymentDate = due
	tok, _, err := w.db.InsertSalesOrder(context.Background(), w.unit.ID, f)
	if err != nil {
		w.t.Fatal(err)
	}
	return tok
}

// dues lists the estimated payment dates of the copies of origin.
func (w *world) copies(origin string) []string {
	w.t.Helper()
	all, err := w.db.SalesOrders(context.Background(), w.unit, store.SalesOrderFilter{From: "2000-01-01", To: "2100-01-01"}).All()
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, o := range all {
		d, err := w.db.SalesOrder(context.Background(), w.unit.ID, o.IDToken)
		if err != nil {
			w.t.Fatal(err)
		}
		if d.OriginIDToken.String == origin {
			if d.Recurrence || len(d.ProductIDTokens) != 1 || d.Value.String() != "100.00" {
				w.t.Errorf("copy %s: recurrence %v, products %v, value %s", d.CodOrders, d.Recurrence, d.ProductIDTokens, d.Value)
			}
			out = append(out, o.EstimatedPaymentDate[:10])
		}
	}
	return out
}

func (w *world) at(s string) {
	w.t.Helper()
	w.now, _ = time.Parse(time.RFC3339, s)
	if err := w.runner.CatchUp(context.Background(), "acme"); err != nil {
		w.t.Fatal(err)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRecurrenceMonthEnds(t *testing.T) {
	w := newWorld(t, time.Date(2027, 12, 20, 15, 0, 0, 0, time.UTC))
	o := w.order("2027-12-31")
	w.at("2028-01-01T03:30:00Z") // 00:30 in São Paulo, day 1
	w.at("2028-02-01T12:00:00Z")
	w.at("2028-02-15T12:00:00Z") // no day 1 since: nothing new
	w.at("2028-03-01T12:00:00Z")
	w.at("2028-03-01T13:00:00Z") // the same day again: idempotent
	if got, want := w.copies(o), []string{"2028-01-31", "2028-02-29", "2028-03-31"}; !equal(got, want) {
		t.Fatalf("copies due %v, want %v", got, want)
	}
}

func TestRecurrenceNotBeforeDay1InSaoPaulo(t *testing.T) {
	w := newWorld(t, time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC))
	o := w.order("2026-11-25")
	w.at("2026-12-01T02:59:00Z") // still 30 Nov, 23:59 in São Paulo
	if got := w.copies(o); len(got) != 0 {
		t.Fatalf("copies before day 1: %v", got)
	}
	w.at("2026-12-01T03:00:00Z")
	if got, want := w.copies(o), []string{"2026-12-25"}; !equal(got, want) {
		t.Fatalf("copies %v, want %v", got, want)
	}
}

func TestRecurrenceCatchUpAfterDowntime(t *testing.T) {
	w := newWorld(t, time.Date(2026, 1, 20, 15, 0, 0, 0, time.UTC))
	o := w.order("2026-01-31")
	other := w.order("2026-02-10") // due next month: copies keep the offset
	w.at("2026-04-15T12:00:00Z")   // the server was down on 1 Feb, 1 Mar and 1 Apr
	if got, want := w.copies(o), []string{"2026-02-28", "2026-03-31", "2026-04-30"}; !equal(got, want) {
		t.Fatalf("copies %v, want %v", got, want)
	}
	if got, want := w.copies(other), []string{"2026-03-10", "2026-04-10", "2026-05-10"}; !equal(got, want) {
		t.Fatalf("copies of other %v, want %v", got, want)
	}
	all, _ := w.db.JobRuns(context.Background(), 10)
	var runs []store.JobRun
	for _, r := range all {
		if r.Job == store.RecurrenceJob {
			runs = append(runs, r)
		}
	}
	if len(runs) != 3 || runs[0].RunDate != "2026-04-01" || runs[0].Created != 2 {
		t.Fatalf("job runs %+v", runs)
	}
}

func TestRecurrenceSkipsDisabledAndNonRecurring(t *testing.T) {
	w := newWorld(t, time.Date(2026, 1, 20, 15, 0, 0, 0, time.UTC))
	o := w.order("2026-01-25")
	if err := w.db.SetSalesOrderActive(context.Background(), w.unit.ID, o, false); err != nil {
		t.Fatal(err)
	}
	w.fields.Recurrence = false
	plain := w.order("2026-01-25")
	w.at("2026-02-01T12:00:00Z")
	if got := append(w.copies(o), w.copies(plain)...); len(got) != 0 {
		t.Fatalf("copies %v", got)
	}
	// Run directly for a day that is not a day 1: nothing is due.
	res, err := w.runner.RunDay(context.Background(), w.db, store.Date{Time: time.Date(2026, 2, 2, 0, 0, 0, 0, time.UTC)})
	for _, r := range res {
		if r.Job == store.RecurrenceJob {
			t.Fatalf("recurrence ran on 2 Feb: %v", res)
		}
	}
	if err != nil || len(res) != 3 {
		t.Fatalf("RunDay(2 Feb) = %v, %v", res, err)
	}
}

// contract makes an active monthly contract billing the world's order
// (due on the 20th) from 2026-01-15, ending on end ("" for none).
func (w *world) contract(end string, autoExtend bool) string {
	w.t.Helper()
	ctx := context.Background()
	order := w.fields
	order.Recurrence = false
	order.EstimatedPaymentDate = "2026-01-20"
	f := store.ContractFields{ContactToken: w.fields.ContactToken, Name: "Suporte", Status: "draft", ValidityStart: "2026-01-15",
		ValidityEnd: end, IsRecurring: true, RecurrenceType: "monthly", GeneratesPayment: true, AutoExtend: autoExtend}
	tok, _, err := w.db.InsertContract(ctx, w.unit.ID, f, nil, &order)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := w.db.UpdateContract(ctx, w.unit.ID, tok, func(f *store.ContractFields) error { f.Status = "active"; return nil }, nil); err != nil {
		w.t.Fatal(err)
	}
	return tok
}

func (w *world) billedDues(contract string) []string {
	w.t.Helper()
	c, err := w.db.Contract(context.Background(), w.unit.ID, contract)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, tok := range c.SalesOrders {
		o, _ := w.db.SalesOrder(context.Background(), w.unit.ID, tok)
		out = append(out, o.EstimatedPaymentDate[:10])
	}
	return out
}

// TestContractBilling bills a monthly contract across its end, with and
// without auto_extend, once per period.
func TestContractBilling(t *testing.T) {
	w := newWorld(t, time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC))
	ending := w.contract("2026-03-31", false)
	extending := w.contract("2026-03-31", true)
	w.at("2026-02-20T12:00:00Z")
	w.at("2026-04-20T12:00:00Z")
	w.at("2026-04-21T12:00:00Z") // again: nothing more
	if got, want := w.billedDues(ending), []string{"2026-01-20", "2026-02-20", "2026-03-20"}; !equal(got, want) {
		t.Fatalf("ending contract orders due %v, want %v", got, want)
	}
	if got, want := w.billedDues(extending), []string{"2026-01-20", "2026-02-20", "2026-03-20", "2026-04-20"}; !equal(got, want) {
		t.Fatalf("auto-extending contract orders due %v, want %v", got, want)
	}
	for tok, want := range map[string]string{ending: "expired", extending: "active"} {
		if c, _ := w.db.Contract(context.Background(), w.unit.ID, tok); c.Status != want {
			t.Errorf("contract status %s, want %s", c.Status, want)
		}
	}
}
