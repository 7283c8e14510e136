// Package fincomtest starts fincom in-process for integration tests: a
// fresh data directory, one domain with one unit and an access token, a
// server on a free loopback port, all stopped by t.Cleanup.
//
//	func TestMyIntegration(t *testing.T) {
//		f := fincomtest.Start(t)
//		body := fmt.Sprintf(`{"access_token":%q,"unit_token":%q}`, f.AccessToken, f.UnitToken)
//		resp, err := http.Post(f.URL+"/get_contacts", "application/json", strings.NewReader(body))
//		...
//	}
package fincomtest

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net"
	"testing"
	"time"

	"fincom/jobs"
	"fincom/server"
	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/testmode"
	"fincom/store"
)

// Instance is a running fincom.
type Instance struct {
	// URL is the API's base address, ending in /api/v1.
	URL         string
	Domain      string
	AccessToken string
	UnitToken   string
	DataDir     string
	// Domains gives tests direct access to the data (to create more units,
	// tokens or users).
	Domains *store.Domains
}

// Options change what Start prepares.
type Options struct {
	// Now fixes the clock (zero: the wall clock).
	Now time.Time
	// UnitCNPJ and UnitCityIBGE describe the unit (defaults: a valid CNPJ
	// and São Paulo), which invoices need.
	UnitCNPJ, UnitCityIBGE string
	// Seed, when not zero, draws every token, secret and throw-away name
	// from it (as serve --seed), so that the test's answers are the same
	// every run.
	Seed uint64
}

// Start starts fincom for the test. It fails the test when anything does.
func Start(t testing.TB, opts ...Options) *Instance {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.UnitCNPJ == "" {
		o.UnitCNPJ = "11222333000181"
	}
	if o.UnitCityIBGE == "" {
		o.UnitCityIBGE = "3550308"
	}
	now := time.Now
	if !o.Now.IsZero() {
		fixed := o.Now
		now = func() time.Time { return fixed }
	}
	dir := t.TempDir()
	ds, err := store.OpenDomains(dir, store.Options{Rules: billing.Rules{}, Now: now, Seeded: o.Seed != 0, Seed: o.Seed})
	if err != nil {
		t.Fatalf("fincomtest: %v", err)
	}
	sys, err := store.OpenSystem(dir, store.DurabilityNormal, now)
	if err != nil {
		t.Fatalf("fincomtest: %v", err)
	}
	ctx := context.Background()
	inst := &Instance{Domain: "test", DataDir: dir, Domains: ds}
	if err := ds.Create(ctx, inst.Domain); err != nil {
		t.Fatalf("fincomtest: %v", err)
	}
	db, release, err := ds.Acquire(ctx, inst.Domain)
	if err != nil {
		t.Fatalf("fincomtest: %v", err)
	}
	if inst.AccessToken, err = db.CreateAccessToken(ctx); err != nil {
		t.Fatalf("fincomtest: %v", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatalf("fincomtest: %v", err)
	}
	keys, err := certs.NewKeyring(key)
	if err != nil {
		t.Fatalf("fincomtest: %v", err)
	}
	u, err := db.CreateUnit(ctx, store.UnitInput{Name: "Unidade de teste", CNPJ: o.UnitCNPJ, CityIBGE: o.UnitCityIBGE, IM: "123456",
		Profile: testmode.UnitProfile(keys)})
	if err != nil {
		t.Fatalf("fincomtest: %v", err)
	}
	release()
	inst.UnitToken = u.Token
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fincomtest: %v", err)
	}
	// Test mode is on: the /_test routes (clock, simulations, snapshots,
	// throw-away domains) are what integrators' tests need.
	// The clock's advance runs the scheduler's jobs, as `serve` wires it.
	publicURL := "http://" + ln.Addr().String()
	bill, inv, err := server.NewServices(server.ServiceOptions{PublicURL: publicURL, Keyring: keys, TestCertificates: true, Clock: ds.DomainNow})
	if err != nil {
		t.Fatalf("fincomtest: %v", err)
	}
	t.Cleanup(func() { bill.Close() })
	runner := &jobs.Runner{Domains: ds, Log: slog.New(slog.DiscardHandler), Billing: bill, WebhookAllowPrivate: true}
	srv, err := server.New(ds, sys, server.Config{Version: "fincomtest", PublicURL: publicURL, TestMode: true, Seed: o.Seed,
		Billing: bill, Invoices: inv, RunDay: func(ctx context.Context, db *store.DB, day store.Date) (any, error) {
			return runner.RunDay(ctx, db, day)
		}, Wake: runner.Wake})
	if err != nil {
		t.Fatalf("fincomtest: %v", err)
	}
	hs := server.NewHTTPServer(srv.Handler(), server.DefaultTimeouts(), nil)
	go hs.Serve(ln)
	inst.URL = "http://" + ln.Addr().String() + server.Prefix
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
		ds.Close()
		sys.Close()
	})
	return inst
}
