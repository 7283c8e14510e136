package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"fincom/jobs"
	"fincom/server/web"
	"fincom/server/webhook"
	"fincom/store"
)

// TestWebhooks: events are queued with the change, delivered signed, and a
// failing endpoint is retried without ever failing a request.
func TestWebhooks(t *testing.T) {
	t.Parallel()
	now := fixedNow
	s, ds := newTestServerAt(t, &now, Config{PublicURL: "https://fincom.test", WebhookAllowPrivate: true})
	h := s.Handler()
	var mu sync.Mutex
	var got []map[string]any
	fail := true
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if fail {
			w.WriteHeader(503)
			return
		}
		sig := r.Header.Get("X-Fincom-Signature")
		ts := sig[2:strings.Index(sig, ",")]
		if want := webhook.Sign("s3cret", now, body); sig != want || ts == "" {
			t.Errorf("signature %s, want %s", sig, want)
		}
		var ev map[string]any
		json.Unmarshal(body, &ev)
		if ev["id"] != r.Header.Get("X-Fincom-Delivery") || ev["type"] != r.Header.Get("X-Fincom-Event") {
			t.Errorf("headers do not match %v", ev)
		}
		got = append(got, ev)
	}))
	defer receiver.Close()
	post(t, h, "/insert_webhook", `{`+auth+`,"url":"`+receiver.URL+`","secret":"s3cret","events":["sales_order.created","charge.*"]}`)
	if rec := do(h, http.MethodPost, "/insert_webhook", `{`+auth+`,"url":"ftp://x","events":["*"]}`); rec.Code != 400 {
		t.Fatalf("bad url: %d", rec.Code)
	}
	if rec := do(h, http.MethodPost, "/insert_webhook", `{`+auth+`,"url":"https://x.example","events":["order.eaten"]}`); rec.Code != 400 {
		t.Fatalf("bad event: %d", rec.Code)
	}
	id := orderWith(t, h)
	post(t, h, "/generate_charge", `{`+auth+`,"id_token":"`+id+`"}`) // requests succeed while the endpoint is down
	runner := &jobs.Runner{Domains: ds, Log: slog.New(slog.DiscardHandler), WebhookAllowPrivate: true}
	runner.DeliverWebhooks(context.Background(), true)
	// The endpoint failed the first event (sales_order.created): its
	// webhook's turn ended there, the second waits untried.
	log := post(t, h, "/list_webhook_deliveries", `{`+auth+`}`)["data"].([]any)
	first, second := log[1].(map[string]any), log[0].(map[string]any)
	if len(log) != 2 || first["status"] != "pending" || first["last_status"] != 503.0 || first["last_error"] != "the endpoint answered 503" ||
		second["attempts"] != 0.0 {
		t.Fatalf("after a failure: %v", log)
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	// The first is not due again yet (backoff); the second is posted.
	runner.DeliverWebhooks(context.Background(), true)
	mu.Lock()
	if len(got) != 1 || got[0]["type"] != "charge.created" {
		t.Fatalf("second pass delivered %v", got)
	}
	mu.Unlock()
	now = now.Add(time.Minute)
	runner.DeliverWebhooks(context.Background(), true)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[1]["type"] != "sales_order.created" {
		t.Fatalf("delivered %v", got)
	}
	log = post(t, h, "/list_webhook_deliveries", `{`+auth+`}`)["data"].([]any)
	if first := log[1].(map[string]any); first["status"] != "sent" || first["attempts"] != 2.0 {
		t.Fatalf("log %v", first)
	}
}

// TestAudit: writes are recorded with the token that made them and the
// record they changed or made; reads are not.
func TestAudit(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	made := post(t, h, "/insert_project", `{`+auth+`,"name":"Auditado"}`)["token"]
	post(t, h, "/update_project", `{`+auth+`,"id_token":"{{project1}}","name":"Novo nome"}`)
	post(t, h, "/get_projects", `{`+auth+`}`)
	do(h, http.MethodPost, "/update_project", `{`+auth+`,"id_token":"nope","name":"x"}`) // refused: not recorded
	log := post(t, h, "/list_audit", `{`+auth+`}`)["data"].([]any)
	if len(log) != 2 {
		t.Fatalf("log %v", log)
	}
	last := log[0].(map[string]any)
	if last["route"] != "/update_project" || last["record"] != fx.tokens["project1"] || !strings.HasPrefix(last["actor"].(string), "token:1 (fca_acme_") {
		t.Fatalf("entry %v", last)
	}
	// An insert's entry names the record it made.
	if first := log[1].(map[string]any); first["route"] != "/insert_project" || first["record"] != made {
		t.Fatalf("entry %v, made %v", first, made)
	}
}

// TestWebhookActive: the listing shows a unit's webhooks (never their
// secret); a disabled webhook is sent no events until it is enabled again.
func TestWebhookActive(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	tok := post(t, h, "/insert_webhook", `{`+auth+`,"url":"https://hooks.example/fincom","secret":"s3cret","events":["sales_order.created"]}`)["data"].(map[string]any)["token"].(string)
	list := post(t, h, "/list_webhooks", `{`+auth+`}`)["data"].([]any)
	if w := list[0].(map[string]any); len(list) != 1 || w["token"] != tok || w["active"] != true || w["url"] != "https://hooks.example/fincom" ||
		strings.Contains(fmt.Sprint(w), "s3cret") {
		t.Fatalf("webhooks %v", list)
	}
	post(t, h, "/disable_webhook", `{`+auth+`,"id_token":"`+tok+`"}`)
	if w := post(t, h, "/list_webhooks", `{`+auth+`}`)["data"].([]any)[0].(map[string]any); w["active"] != false {
		t.Fatalf("disabled webhook %v", w)
	}
	orderWith(t, h)
	if n := len(post(t, h, "/list_webhook_deliveries", `{`+auth+`}`)["data"].([]any)); n != 0 {
		t.Fatalf("a disabled webhook was sent %d events", n)
	}
	post(t, h, "/enable_webhook", `{`+auth+`,"token":"`+tok+`"}`)
	orderWith(t, h)
	if n := len(post(t, h, "/list_webhook_deliveries", `{`+auth+`}`)["data"].([]any)); n != 1 {
		t.Fatalf("an enabled webhook was sent %d events", n)
	}
	if rec := do(h, http.MethodPost, "/enable_webhook", `{`+auth+`,"id_token":"nope"}`); rec.Code != 404 {
		t.Fatalf("unknown webhook: %d %s", rec.Code, rec.Body.String())
	}
}

// TestEveryChangeIsAudited: a route that changes data is declared so in
// the route table (write), and its change reaches the audit log
// (discarding a screening, whose name says nothing of a change, too).
func TestEveryChangeIsAudited(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	rec := doMultipart(h, "/insert_screening", `{`+auth+`}`, map[string][]byte{"boleto.pdf": testFile(t, "boleto.pdf")})
	var sc map[string]any
	json.Unmarshal(rec.Body.Bytes(), &sc)
	post(t, h, "/discard_screening", `{`+auth+`,"id_token":"`+sc["token"].(string)+`"}`)
	log := post(t, h, "/list_audit", `{`+auth+`}`)["data"].([]any)
	if len(log) != 2 || log[0].(map[string]any)["route"] != "/discard_screening" || log[0].(map[string]any)["record"] != sc["token"] {
		t.Fatalf("log %v", log)
	}
	// reads are not writes; every verb that changes a record is.
	reads := []string{"/get_", "/list_", "/transactions", "/", "/cash_flow", "/_test/", "/sales_orders/public_payment", "/sales_orders/public_boleto",
		"/sales_orders/public_pix_qr", "/sales_orders/public_danfe", "/sales_orders/public_nf_xml"}
	for _, rt := range s.routes {
		read := false
		for _, p := range reads {
			if rt.Path == p || p != "/" && strings.HasPrefix(rt.Path, p) {
				read = true
			}
		}
		if read == rt.Write && rt.Auth != web.AuthPublic {
			t.Errorf("%s: write %v", rt.Path, rt.Write)
		}
	}
}

// TestWebhookEventsDocumented: the events the document lists for a
// delivery are exactly the ones a webhook may subscribe to.
func TestWebhookEventsDocumented(t *testing.T) {
	t.Parallel()
	found := 0
	for _, typ := range []reflect.Type{reflect.TypeFor[store.Event](), reflect.TypeFor[store.Delivery]()} {
		for i := 0; i < typ.NumField(); i++ {
			e := typ.Field(i).Tag.Get("enum")
			if e == "" || !strings.Contains(typ.Field(i).Tag.Get("json"), "type") {
				continue
			}
			found++
			listed := strings.Split(e, ",")
			if len(listed) != len(store.WebhookEvents) {
				t.Errorf("%s lists %d events, subscriptions take %d", typ, len(listed), len(store.WebhookEvents))
			}
			for _, ev := range listed {
				if !store.WebhookEvents[ev] {
					t.Errorf("%s lists %q, which no webhook can subscribe to", typ, ev)
				}
			}
		}
	}
	if found != 2 {
		t.Fatalf("%d event type fields carry the list, want 2", found)
	}
}
