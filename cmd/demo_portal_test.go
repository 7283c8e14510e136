package cmd

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"fincom/server"
	"fincom/server/portal"
	"fincom/store"
)

// preselected signs in to the demo's portal as its user and sends, for
// every open statement line of the unit whose page preselects a pairing,
// that pairing: each must be accepted.
func preselected(t *testing.T, a *app, ds *store.Domains, db *store.DB, unit string) {
	t.Helper()
	ctx := context.Background()
	sys, err := store.OpenSystem(a.dataDir, store.DurabilityFull, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	keys, err := a.keyring(true)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(ds, sys, server.Config{Version: "test", TestMode: true, Keyring: keys})
	if err != nil {
		t.Fatal(err)
	}
	link, err := db.RequestLoginLink(ctx, "ana@demo.fincom.local", nil)
	if err != nil {
		t.Fatal(err)
	}
	secret, sess, err := db.StartSession(ctx, link)
	if err != nil {
		t.Fatal(err)
	}
	get := func(method, path string, form url.Values) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		req.RemoteAddr = "127.0.0.1:1234"
		req.AddCookie(&http.Cookie{Name: portal.SessionCookie, Value: secret})
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		return rec
	}
	page := get(http.MethodGet, "/portal/statement?unit="+unit, nil).Body.String()
	forms := regexp.MustCompile(`(?s)<form method="post" action="(/portal/statement/[^"?]+)\?unit=[^"]+">\s*<input type="hidden" name="csrf" value="[^"]+"><input type="hidden" name="action" value="match">.*?</select>`).FindAllStringSubmatch(page, -1)
	if len(forms) == 0 {
		t.Fatalf("the demo's statement offers no pairing:\n%s", page)
	}
	sent := 0
	for _, f := range forms {
		// What a browser sends untouched: the option marked selected,
		// else the first (a disabled placeholder: nothing).
		m := regexp.MustCompile(`<option value="([^"]+)" selected>`).FindStringSubmatch(f[0])
		if m == nil && !strings.Contains(f[0], `<option value="" selected disabled>`) {
			m = regexp.MustCompile(`<option value="([^"]+)"`).FindStringSubmatch(f[0])
		}
		if m == nil {
			continue // nothing preselected: the person chooses
		}
		sent++
		rec := get(http.MethodPost, f[1]+"?unit="+unit, url.Values{"csrf": {sess.CSRF}, "action": {"match"}, "pair": {html.UnescapeString(m[1])}})
		if rec.Code != http.StatusSeeOther {
			t.Errorf("the preselected pairing %s of %s was refused: %d\n%s", m[1], f[1], rec.Code, rec.Body)
		}
	}
	t.Logf("%d of %d lines preselect a pairing", sent, len(forms))
}
