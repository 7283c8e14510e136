package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"fincom/server/web"
	"fincom/store"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestLogsHoldNoSecrets: after successes, failures, a forced 500 and a
// panic-free hostile body, the log holds no access or unit token, no
// technical token and no CPF/CNPJ in full.
func TestLogsHoldNoSecrets(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	now := fixedNow
	s, ds := newTestServerAt(t, &now, Config{Version: "test", TestMode: true, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	h := s.Handler()
	// A portal sign-in link, followed and spent: its secret is in the
	// query and the form, never in the log.
	db, release := acquire(t, ds)
	db.CreateUser(context.Background(), "Ana", "ana@example.com")
	link, err := db.RequestLoginLink(context.Background(), "ana@example.com", nil)
	release()
	if err != nil {
		t.Fatal(err)
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/portal/link?t="+link, nil))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/portal/link", strings.NewReader("t="+link)))
	post(t, h, "/insert_contact", `{`+auth+`,"type":"natural_person","register":"123.456.789-09","fullName":"Maria"}`)
	do(h, http.MethodPost, "/insert_contact", `{`+auth+`,"type":"legal","register":"11.444.777/0001-62","socialReason":"X"}`)
	do(h, http.MethodPost, "/get_contacts", `{"access_token":"{{revoked}}","unit_token":"{{unitA}}"}`)
	do(h, http.MethodPost, "/get_category_median", `{"token_tec":"{{tec}}","unit_token":"{{unitA}}","id_token_category":"{{category1}}"}`)
	do(h, http.MethodPost, "/get_contacts", `{"access_token":"{{access}}","unit_token":"{{unitA}}","search":`+strings.Repeat("[", 100)+`}`)
	// A forced internal error, logged with its cause.
	post(t, h, "/_test/faults", `{"access_token":"{{access}}","rules":[{"route":"/get_contacts","probability":1,"status":500,"text":"Something went wrong. Please try again later."}]}`)
	do(h, http.MethodPost, "/get_contacts", `{`+auth+`}`)
	time.Sleep(10 * time.Millisecond)
	out := logs.b.String()
	if !strings.Contains(out, `"route":"portal","domain":"","status":200`) {
		t.Errorf("the portal's pages are not logged as such: %s", out)
	}
	if !strings.Contains(out, `"route"`) {
		t.Fatalf("no request log: %s", out)
	}
	for _, secret := range []string{link, link[len("fcl_acme_"):], fx.tokens["access"], fx.tokens["unitA"], fx.tokens["revoked"], fx.tokens["tec"],
		"12345678909", "123.456.789-09", "11444777000162", "11.444.777/0001-62"} {
		if secret != "" && strings.Contains(out, secret) {
			t.Errorf("the log holds %q", secret)
		}
	}
}

// brokenPipe is a client that leaves after the first piece of its answer.
type brokenPipe struct {
	*httptest.ResponseRecorder
	writes int
}

func (b *brokenPipe) Write(p []byte) (int, error) {
	if b.writes++; b.writes > 1 {
		return 0, syscall.EPIPE
	}
	return b.ResponseRecorder.Write(p)
}

// TestClientGoneIsNotAnError: a client that leaves before its answer, or
// in the middle of it, is logged as 499 and not as an internal error or a
// panic; an answer cut short is aborted (net/http then drops the
// connection), never ended as if whole.
func TestClientGoneIsNotAnError(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	now := fixedNow
	s, ds := newTestServerAt(t, &now, Config{Version: "test", Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	h := s.Handler()
	// Enough contacts for an answer of several 32 KiB pieces.
	db, release := acquire(t, ds)
	units, _ := db.Units(context.Background())
	for i := range 200 {
		if _, err := db.InsertContact(context.Background(), units[0].ID, store.ContactFields{Type: "natural_person",
			Register: cpf(200_000 + i), FullName: fmt.Sprintf("Cliente com um nome longo %05d", i),
			Email: fmt.Sprintf("cliente%d@example.com", i), Phone: "11999990000"}); err != nil {
			t.Fatal(err)
		}
	}
	release()
	body := expand(`{` + auth + `}`)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, web.Prefix+"/get_contacts", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(httptest.NewRecorder(), req)

	req = httptest.NewRequest(http.MethodPost, web.Prefix+"/get_contacts", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	func() {
		defer func() {
			if v := recover(); v != http.ErrAbortHandler {
				t.Errorf("a failed answer ended with %v, want http.ErrAbortHandler", v)
			}
		}()
		h.ServeHTTP(&brokenPipe{ResponseRecorder: httptest.NewRecorder()}, req)
	}()

	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if m["level"] != "INFO" {
			t.Errorf("logged as %v: %s", m["level"], l)
		}
		if m["route"] == "/get_contacts" {
			lines = append(lines, m)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("%d request lines, want 2: %s", len(lines), logs.b.String())
	}
	for _, m := range lines {
		if m["status"] != float64(web.StatusClientClosed) {
			t.Errorf("status %v, want 499: %v", m["status"], m)
		}
	}
}

// TestUnknownPathsLogged: a request to no route is logged with the path it
// asked for (bounded, escaped), so an operator sees a client's typo.
func TestUnknownPathsLogged(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	now := fixedNow
	s, _ := newTestServerAt(t, &now, Config{Version: "test", Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	h := s.Handler()
	long := strings.Repeat("a", 500)
	for _, p := range []string{"/get_contact", "/x%0A\"}{injected", "/" + long} {
		if rec := do(h, http.MethodPost, p, `{}`); rec.Code != http.StatusNotFound {
			t.Fatalf("%s: %d", p, rec.Code)
		}
	}
	// A payment page's address with a trailing slash matches no route: the
	// public token it holds is a live secret, and only its kind is logged.
	for _, p := range []string{"/sales_orders/public_payment/fcp_acme_0123456789abcdef/", "/x/fca_acme_secret-token%2F/y"} {
		if rec := do(h, http.MethodGet, p, ``); rec.Code == http.StatusOK {
			t.Fatalf("%s: %d", p, rec.Code)
		}
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		lines = append(lines, m)
	}
	want := []string{web.Prefix + "/get_contact", web.Prefix + "/x%0A%22%7D%7Binjected", web.Prefix + "/" + long[:200-len(web.Prefix)-1] + "…",
		web.Prefix + "/sales_orders/public_payment/fcp_…/", web.Prefix + "/x/fca_…/y"}
	if out := logs.b.String(); strings.Contains(out, "0123456789abcdef") || strings.Contains(out, "secret-token") {
		t.Errorf("the log holds a token: %s", out)
	}
	for i, w := range want {
		if i >= len(lines) || lines[i]["route"] != "unmatched" || lines[i]["path"] != w {
			t.Errorf("line %d: %v, want path %q", i, lines[min(i, len(lines)-1)], w)
		}
	}
}

// appliedLog is a server's log, read for the payments that arrived at
// billing.Service.ApplyPayments (its "payment applied" records): each
// payment channel's test shows its payments get there.
type appliedLog struct{ lockedBuffer }

func (l *appliedLog) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(l, nil)) }

// vias answers the channel of each payment applied so far, in order.
func (l *appliedLog) vias(t *testing.T) []string {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []string{}
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		var r struct{ Msg, Via string }
		if line == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if r.Msg == "payment applied" {
			out = append(out, r.Via)
		}
	}
	return out
}

// want fails the test unless the payments applied so far came by vias.
func (l *appliedLog) want(t *testing.T, vias ...string) {
	t.Helper()
	if got := l.vias(t); strings.Join(got, ",") != strings.Join(vias, ",") {
		t.Errorf("payments applied via %v, want %v", got, vias)
	}
}
