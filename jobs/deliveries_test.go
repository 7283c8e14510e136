package jobs

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/billing"
	"fincom/store"
)

// hangingEndpoint accepts connections and reads each request, but never
// answers: the endpoint of a tenant whose service is down.
type hangingEndpoint struct {
	ln    net.Listener
	mu    sync.Mutex
	posts map[string]int // by X-Fincom-Delivery
}

func newHangingEndpoint(t *testing.T) *hangingEndpoint {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &hangingEndpoint{ln: ln, posts: map[string]int{}}
	var conns []net.Conn
	var mu sync.Mutex
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() {
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				e.mu.Lock()
				e.posts[req.Header.Get("X-Fincom-Delivery")]++
				e.mu.Unlock()
			}()
		}
	}()
	return e
}

func (e *hangingEndpoint) counts() (posts, most int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, n := range e.posts {
		posts += n
		most = max(most, n)
	}
	return posts, most
}

// TestSlowEndpointHoldsNoOneElse: one domain with 20 webhooks to an
// endpoint that never answers does not hold another domain's webhook or
// e-mail, which are delivered within seconds; the slow domain has at most
// postsPerDomain posts in flight and each event is posted once per
// attempt, however many passes run meanwhile.
func TestSlowEndpointHoldsNoOneElse(t *testing.T) {
	schema, err := os.ReadFile("../schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	ds, err := store.OpenDomains(t.TempDir(), store.Options{Rules: billing.Rules{}, Schema: string(schema), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	ctx := context.Background()
	hanging := newHangingEndpoint(t)
	received := make(chan string, 10)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		received <- r.Header.Get("X-Fincom-Event")
	}))
	defer receiver.Close()
	mail := newSMTPServer(t, 0)
	order := func(name, url string, hooks int, notify string) {
		t.Helper()
		if err := ds.Create(ctx, name); err != nil {
			t.Fatal(err)
		}
		db, release, err := ds.Acquire(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		u, _ := db.CreateUnit(ctx, store.UnitInput{Name: name})
		for range hooks {
			if _, _, err := db.InsertWebhook(ctx, u.ID, url, "s", []string{"*"}); err != nil {
				t.Fatal(err)
			}
		}
		contact, _ := db.InsertContact(ctx, u.ID, store.ContactFields{Type: "natural_person", Register: "52998224725", FullName: "Maria"})
		cats, _ := db.Categories(ctx, u.ID, "in", "Venda")
		methods, _ := db.PaymentMethods(ctx)
		tok, _, err := db.InsertSalesOrder(ctx, u.ID, store.SalesOrderFields{ContactToken: contact, CategoryToken: cats[0].Token,
			PaymentTypeToken: methods[0].Token, Description: "Mensalidade", Value: store.NewMoney(decimal.NewFromInt(100)),
			Quantity: store.Decimal{Decimal: decimal.NewFromInt(1)}, InstallmentCredit: 1, Installments: 1, FreightMode: 9, LocalDestino: 1,
			EstimatedPaymentDate: "2026-12-10"})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := db.PrepareCharges(ctx, u.ID, tok, nil)
		if err != nil {
			t.Fatal(err)
		}
		var n *store.Notice
		if notify != "" {
			n = &store.Notice{Kind: "charge_created", To: notify, Subject: "Cobrança", Body: "Olá"}
		}
		if err := db.CompleteCharge(ctx, plan.Charges[0].Token, store.IssuedCharge{Ref: "x"}, n); err != nil {
			t.Fatal(err)
		}
	}
	// alfa is visited first: a pass that worked domains in turn would
	// hold beta behind alfa's 20 hanging posts.
	order("alfa", "http://"+hanging.ln.Addr().String()+"/hook", 20, "")
	order("beta", receiver.URL, 1, "cliente@example.com")

	smtp, err := ParseSMTP("smtp://"+mail.ln.Addr().String(), "Acme <cobranca@acme.example>")
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Domains: ds, Log: slog.New(slog.DiscardHandler), Sender: smtp, WebhookAllowPrivate: true, DeliveryEvery: 50 * time.Millisecond}
	run, stop := context.WithCancel(ctx)
	wait := r.startDeliveries(run)
	defer func() {
		stop()
		wait()
	}()
	start := time.Now()
	deadline := time.After(5 * time.Second)
	events := map[string]bool{}
	for len(events) < 2 || len(mail.messages()) == 0 {
		select {
		case e := <-received:
			events[e] = true
		case <-deadline:
			t.Fatalf("after 5 s: events %v, %d e-mails", events, len(mail.messages()))
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Logf("the other domain's webhooks and e-mail delivered in %v", time.Since(start).Round(time.Millisecond))
	time.Sleep(500 * time.Millisecond) // ten more passes
	if posts, most := hanging.counts(); posts > postsPerDomain || most > 1 {
		t.Fatalf("the slow endpoint got %d posts (at most %d in flight), one event %d times", posts, postsPerDomain, most)
	}
}
