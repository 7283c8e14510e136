package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
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
	var logs lockedBuffer
	now := fixedNow
	s, _ := newTestServerAt(t, &now, Config{Version: "test", TestMode: true, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	h := s.Handler()
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
	if !strings.Contains(out, `"route"`) {
		t.Fatalf("no request log: %s", out)
	}
	for _, secret := range []string{fx.tokens["access"], fx.tokens["unitA"], fx.tokens["revoked"], fx.tokens["tec"],
		"12345678909", "123.456.789-09", "11444777000162", "11.444.777/0001-62"} {
		if secret != "" && strings.Contains(out, secret) {
			t.Errorf("the log holds %q", secret)
		}
	}
}
