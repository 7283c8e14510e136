// Command loadseed fills a data directory for the load script (run.sh): a
// domain "load" with one unit holding the hot routes' data, through the
// store (validation and indexes as in production; durability normal, as
// seeding is not what is measured), plus any number of small extra domains
// for the memory and start-up figures. It prints shell assignments of the
// tokens.
//
//	go run ./cmd/loadseed -data DIR [-contacts N] [-months N] ...
//
// With -api it seeds a running server instead, through its API, for the
// side-by-side with PocketBase (pocketbase.sh):
//
//	loadseed -api fincom -url http://127.0.0.1:18080/api/v1 -access A -unit U -contacts 10000
//	loadseed -api pocketbase -url http://127.0.0.1:18090 -email E -password P -contacts 10000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/billing"
	"fincom/store"
)

func main() {
	data := flag.String("data", "", "data directory")
	contacts := flag.Int("contacts", 10_000, "contacts; one in 200 is named \"grupo-7\"")
	months := flag.Int("months", 100, "months of history, the last November 2026")
	entries := flag.Int("entries", 1_000, "entries per month")
	orders := flag.Int("orders", 500, "sales orders per month")
	movements := flag.Int("movements", 200_000, "inventory movements over two years (2025, 2026)")
	domains := flag.Int("domains", 0, "extra domains (d0001, d0002, ...) with one unit and one contact each")
	api := flag.String("api", "", "seed a running server through its API: fincom or pocketbase")
	base := flag.String("url", "", "with -api: the server's base URL")
	accessToken := flag.String("access", "", "with -api fincom: access token")
	unitToken := flag.String("unit", "", "with -api fincom: unit token")
	email := flag.String("email", "", "with -api pocketbase: superuser e-mail")
	password := flag.String("password", "", "with -api pocketbase: superuser password")
	flag.Parse()
	switch *api {
	case "":
	case "fincom":
		if err := seedFincom(*base, *accessToken, *unitToken, *contacts); err != nil {
			log.Fatal(err)
		}
		return
	case "pocketbase":
		token, err := seedPocketBase(*base, *email, *password, *contacts)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("PBTOKEN=%s\nPBSEARCH='%s'\n", token, pocketBaseSearch(*base, "grupo alfa"))
		return
	default:
		log.Fatalf("-api %q: fincom or pocketbase", *api)
	}
	if *data == "" {
		log.Fatal("-data is required")
	}
	schema, err := os.ReadFile(filepath.Join(filepath.Dir(os.Args[0]), "schema.sql"))
	if err != nil {
		schema = nil // migrations build the schema as well
	}
	ctx := context.Background()
	ds, err := store.OpenDomains(*data, store.Options{Rules: billing.Rules{}, Schema: string(schema), Durability: store.DurabilityNormal})
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	start := time.Now()
	access, unit := domain(ctx, ds, "load")
	db, release, err := ds.Acquire(ctx, "load")
	if err != nil {
		log.Fatal(err)
	}
	must := func(_ string, err error) {
		if err != nil {
			log.Fatal(err)
		}
	}
	contact, err := db.InsertContact(ctx, unit.ID, store.ContactFields{Type: "legal", Register: "11444777000161", SocialReason: "Alfa Comércio Ltda", FantasyName: "Alfa"})
	must("", err)
	for i := 0; i < *contacts; i++ {
		name := fmt.Sprintf("Cliente %05d", i)
		if i%200 == 7 {
			name += " grupo-7"
		}
		must(db.InsertContact(ctx, unit.ID, store.ContactFields{Type: "natural_person", Register: cpf(100_000 + i), FullName: name,
			Email: fmt.Sprintf("c%d@example.com", i), Phone: "11999990000"}))
	}
	category, err := db.InsertCategory(ctx, unit.ID, store.CategoryFields{ModuleType: "in", Name: "Vendas"})
	must("", err)
	service, err := db.InsertProduct(ctx, unit.ID, store.ProductFields{Description: "Instalação", Type: "service", UsageType: "09",
		MonetaryValue: store.NewMoney(decimal.NewFromInt(150))})
	must("", err)
	methods, err := db.PaymentMethods(ctx)
	must("", err)
	last := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for m := 0; m < *months; m++ {
		end := last.AddDate(0, -m, 0)
		end = time.Date(end.Year(), end.Month()+1, 0, 0, 0, 0, 0, time.UTC) // last day of the month
		for i := 0; i < *entries; i++ {
			due := end.AddDate(0, 0, -(i % 28)).Format(time.DateOnly)
			typ := "out"
			if i%3 == 0 {
				typ = "in"
			}
			f := store.EntryFields{Type: typ, Description: fmt.Sprintf("Lançamento %d", i), DueDate: due, CompetenceDate: due, Active: true,
				Value: store.NewMoney(decimal.New(int64(1000+i*37%50000), -2)), ContactToken: contact}
			if i%2 == 0 {
				f.PayDay = due
			}
			must(db.InsertEntry(ctx, unit.ID, f, nil, ""))
		}
		for i := 0; i < *orders; i++ {
			f := store.SalesOrderFields{ContactToken: contact, CategoryToken: category, PaymentTypeToken: methods[0].Token,
				StockItemToken: service, Description: fmt.Sprintf("Pedido %d", i), Value: store.NewMoney(decimal.New(int64(10000+i), -2)),
				Quantity: store.Decimal{Decimal: decimal.NewFromInt(1)}, EstimatedPaymentDate: end.AddDate(0, 0, -(i % 28)).Format(time.DateOnly),
				InstallmentCredit: 1, Installments: 1, FreightMode: 9, LocalDestino: 1, ServiceCod: "01.07", ServiceLocation: "3550308"}
			if _, _, err := db.InsertSalesOrder(ctx, unit.ID, f); err != nil {
				log.Fatal(err)
			}
		}
	}
	var products []string
	for i := 0; i < 200 && *movements > 0; i++ {
		p, err := db.InsertProduct(ctx, unit.ID, store.ProductFields{Description: fmt.Sprintf("Produto %03d", i), Type: "product", UsageType: "00",
			MonetaryValue: store.NewMoney(decimal.NewFromInt(10))})
		must("", err)
		products = append(products, p)
	}
	first := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < *movements; i++ {
		typ, q := "in", int64(10)
		if i%3 == 2 && i >= 600 { // every product has had ins by then
			typ, q = "out", 1
		}
		must(db.InsertMovement(ctx, unit.ID, store.MovementFields{ProductToken: products[i%200], Type: typ, Quantity: store.Decimal{Decimal: decimal.NewFromInt(q)},
			UnitaryValue: store.NewMoney(decimal.New(int64(100+i%900), -2)), DateInOut: first.AddDate(0, 0, i%730).Format(time.DateOnly)}))
	}
	// The search index as the daily jobs leave it.
	if err := db.CompactSearch(ctx); err != nil {
		log.Fatal(err)
	}
	release()
	fmt.Printf("ACCESS=%s\nUNIT=%s\nCONTACT=%s\n", access, unit.Token, contact)
	if *domains > 0 {
		f, err := os.Create(filepath.Join(*data, "domains.tokens"))
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		for i := 1; i <= *domains; i++ {
			a, u := domain(ctx, ds, fmt.Sprintf("d%04d", i))
			fmt.Fprintf(f, "%s %s\n", a, u.Token)
			if i%100 == 0 {
				ds.CloseIdle(0)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "seeded in %s\n", time.Since(start).Round(time.Second))
}

// domain creates a domain with one unit and returns an access token and
// the unit.
func domain(ctx context.Context, ds *store.Domains, name string) (string, store.Unit) {
	if err := ds.Create(ctx, name); err != nil {
		log.Fatal(err)
	}
	db, release, err := ds.Acquire(ctx, name)
	if err != nil {
		log.Fatal(err)
	}
	defer release()
	access, err := db.CreateAccessToken(ctx)
	if err != nil {
		log.Fatal(err)
	}
	u, err := db.CreateUnit(ctx, store.UnitInput{Name: "Matriz", CNPJ: "11222333000181", CityIBGE: "3550308", IM: "1234"})
	if err != nil {
		log.Fatal(err)
	}
	return access, u
}

// cpf returns the valid CPF whose first nine digits are n.
func cpf(n int) string {
	d := []byte(fmt.Sprintf("%09d", n%1_000_000_000))
	for k := 9; k <= 10; k++ {
		sum := 0
		for i := 0; i < k; i++ {
			sum += int(d[i]-'0') * (k + 1 - i)
		}
		d = append(d, byte('0'+sum*10%11%10))
	}
	return string(d)
}
