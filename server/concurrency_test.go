package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/billing"
	"fincom/server/needs"
	"fincom/server/web"
	"fincom/store"
)

// TestConcurrentClients: 64 clients mix writes (paid incomes and expenses)
// and reads (transactions, cash flow, contacts) through real HTTP for 30 s
// under FINCOM_LONG (2 s by default; -short skips it), first on one
// domain, then spread over 20 domains.
// Zero 5xx, no "database is locked" reaching a client, and each unit's
// cash flow equals, to the cent, the sum of the writes it acknowledged.
// Backups taken during the load restore to consistent domains.
func TestConcurrentClients(t *testing.T) {
	// Runs alone (not parallel): it loads the machine itself, and measures under that load only.
	duration := 2 * time.Second
	if needs.Soak(t) {
		duration = 30 * time.Second
	}
	for _, domains := range []int{1, 20} {
		t.Run(fmt.Sprintf("%d domains", domains), func(t *testing.T) {
			concurrentLoad(t, domains, duration)
		})
	}
}

type loadUnit struct {
	domain, tokens string
	account        string
	mu             sync.Mutex
	in, out        decimal.Decimal
}

func concurrentLoad(t *testing.T, domains int, duration time.Duration) {
	dir := t.TempDir()
	ctx := context.Background()
	ds, err := store.OpenDomains(dir, store.Options{Rules: billing.Rules{}, Schema: fx.schema, Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	sys, err := store.OpenSystem(dir, store.DurabilityFull, func() time.Time { return fixedNow })
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	defer ds.Close()
	var units []*loadUnit
	for i := 0; i < domains; i++ {
		name := fmt.Sprintf("load-%02d", i)
		if err := ds.Create(ctx, name); err != nil {
			t.Fatal(err)
		}
		db, release, err := ds.Acquire(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		access, err := db.CreateAccessToken(ctx)
		if err != nil {
			t.Fatal(err)
		}
		u, err := db.CreateUnit(ctx, store.UnitInput{Name: "Loja"})
		if err != nil {
			t.Fatal(err)
		}
		// Seeded banks and account types have the same tokens in every
		// domain.
		account, err := db.InsertBankAccount(ctx, u.ID, store.BankAccountFields{BankToken: fx.tokens["bankBB"], BankTypeToken: fx.tokens["typeChecking"],
			Agency: "1234", CurrentAccount: "99887", NickName: "Caixa", OpeningBalanceDate: "2026-01-01"})
		if err != nil {
			t.Fatal(err)
		}
		release()
		units = append(units, &loadUnit{domain: name, tokens: fmt.Sprintf(`"access_token":%q,"unit_token":%q`, access, u.Token), account: account})
	}
	s, err := New(ds, sys, Config{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}

	var requests, writes, failures atomic.Int64
	fail := func(format string, args ...any) {
		if failures.Add(1) <= 10 {
			t.Errorf(format, args...)
		}
	}
	deadline := time.Now().Add(duration)
	backups := make(chan string, 100)
	var wg sync.WaitGroup
	// Every half second, a backup of a domain under load.
	backupDir := t.TempDir()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 0; time.Now().Before(deadline) && k < cap(backups); k++ {
			time.Sleep(500 * time.Millisecond)
			u := units[k%len(units)]
			out := fmt.Sprintf("%s/%s-%d.db", backupDir, u.domain, k)
			if err := ds.Backup(ctx, u.domain, out, false); err != nil {
				fail("backup under load: %v", err)
				continue
			}
			backups <- out
		}
	}()
	for c := 0; c < 64; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				u := units[(c+i)%len(units)]
				var path, body string
				var amount decimal.Decimal
				kind := (c + i) % 5
				switch kind {
				case 0, 1: // a paid income or expense of a few reais and cents
					amount = decimal.New(int64(100+(c*7919+i*104729)%99900), -2)
					path = "/insert_income"
					if kind == 1 {
						path = "/insert_expense"
					}
					body = fmt.Sprintf(`{%s,"description":"c%d-%d","value":"%s","due_date":"2026-11-20","pay_day":"2026-11-20","id_token_bank_account":%q}`, u.tokens, c, i, amount.StringFixed(2), u.account)
				case 2:
					path, body = "/transactions", `{`+u.tokens+`,"from_date":"2026-11-19","to_date":"2026-11-21"}`
				case 3:
					path, body = "/cash_flow", `{`+u.tokens+`,"initial_date":"2026-11-01","final_date":"2026-11-30"}`
				case 4:
					path, body = "/get_contacts", `{`+u.tokens+`}`
				}
				resp, err := client.Post(srv.URL+web.Prefix+path, "application/json", strings.NewReader(body))
				if err != nil {
					fail("%s: %v", path, err)
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				requests.Add(1)
				if resp.StatusCode >= 500 || strings.Contains(strings.ToLower(string(b)), "locked") {
					fail("%s: %d %s", path, resp.StatusCode, b)
					continue
				}
				if resp.StatusCode != 200 {
					fail("%s: %d %s", path, resp.StatusCode, b)
					continue
				}
				if kind <= 1 {
					writes.Add(1)
					u.mu.Lock()
					if kind == 0 {
						u.in = u.in.Add(amount)
					} else {
						u.out = u.out.Add(amount)
					}
					u.mu.Unlock()
				}
			}
		}(c)
	}
	wg.Wait()
	close(backups)
	for _, u := range units {
		resp, err := client.Post(srv.URL+web.Prefix+"/cash_flow", "application/json",
			strings.NewReader(`{`+u.tokens+`,"initial_date":"2026-11-01","final_date":"2026-11-30"}`))
		if err != nil {
			t.Fatal(err)
		}
		var cf struct {
			Data store.CashFlow `json:"data"`
		}
		err = json.NewDecoder(resp.Body).Decode(&cf)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !cf.Data.Totals.In.Equal(u.in) || !cf.Data.Totals.Out.Equal(u.out) {
			t.Errorf("%s: cash flow in %s out %s, acknowledged in %s out %s", u.domain, cf.Data.Totals.In, cf.Data.Totals.Out, u.in.StringFixed(2), u.out.StringFixed(2))
		}
	}
	// Each backup taken under load is a sound, consistent domain.
	// and restores into a fresh data directory, where it opens and reads.
	restored, err := store.OpenDomains(t.TempDir(), store.Options{Rules: billing.Rules{}, Schema: fx.schema, Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	n := 0
	for b := range backups {
		if err := store.CheckFile(ctx, b); err != nil {
			t.Errorf("backup %s: %v", b, err)
			continue
		}
		name, err := store.DomainOf(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		if err := restored.Restore(ctx, name, b); err != nil {
			t.Errorf("restore %s: %v", b, err)
			continue
		}
		db, release, err := restored.Acquire(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Units(ctx); err != nil {
			t.Errorf("restored %s: %v", name, err)
		}
		release()
		n++
	}
	t.Logf("%d domains: %d requests (%.0f/s), %d writes, %d backups checked", domains, requests.Load(),
		float64(requests.Load())/duration.Seconds(), writes.Load(), n)
	if writes.Load() < 100 {
		t.Fatalf("only %d writes", writes.Load())
	}
}
