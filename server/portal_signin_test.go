package server

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fincom/server/portal"
	"fincom/store"
)

// signInForm is the sign-in form's fields for a domain and e-mail, with
// the form's CSRF token the browser got from the sign-in page.
func signInForm(t *testing.T, b *browser, domain, email string) url.Values {
	t.Helper()
	rec := b.do("GET", "/portal/login", nil)
	return url.Values{"domain": {domain}, "email": {email}, "csrf": {csrf(t, rec.Body.String())}}
}

// TestLoginLinkSealedAtRest: the sign-in e-mail waiting in the outbox
// keeps its link sealed with the server's key: neither the domain's file
// (and its WAL) nor any listing holds the secret that signs in, and the
// mailer, opening it, sends the link that does.
func TestLoginLinkSealedAtRest(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	db, release := acquire(t, ds)
	if _, err := db.CreateUser(context.Background(), "Ana Souza", "ana@example.com"); err != nil {
		t.Fatal(err)
	}
	release()
	b := &browser{t: t, h: s.Handler(), cookies: map[string]*http.Cookie{}}
	if rec := b.do("POST", "/portal/login", signInForm(t, b, "acme", "ana@example.com")); rec.Code != 200 {
		t.Fatalf("sign-in: %d", rec.Code)
	}
	s.portal.WaitLoginMail()
	db, release = acquire(t, ds)
	mails, err := db.Outbox(context.Background(), store.EveryUnit, 5)
	release()
	if err != nil || len(mails) != 1 {
		t.Fatalf("outbox %v %v", mails, err)
	}
	secret := strings.TrimPrefix(regexpLink(t, s.portal.Unsealed(mails[0]).Body), "/portal/link?t=")
	if !strings.HasPrefix(secret, "fcl_acme_") || strings.Contains(mails[0].Body, secret) {
		t.Fatalf("listed body %q, secret %q", mails[0].Body, secret)
	}
	random := secret[len("fcl_acme_"):]
	files, _ := filepath.Glob(filepath.Join(ds.Dir(), "acme.db*"))
	if len(files) == 0 {
		t.Fatal("no domain file")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(random)) {
			t.Errorf("%s holds the sign-in link's secret", filepath.Base(f))
		}
	}
	// The link the mailer would send signs in.
	rec := b.do("GET", "/portal/link?t="+url.QueryEscape(secret), nil)
	if rec := b.do("POST", "/portal/link", url.Values{"t": {secret}, "csrf": {csrf(t, rec.Body.String())}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("the opened link does not sign in: %d", rec.Code)
	}
}

func regexpLink(t *testing.T, body string) string {
	t.Helper()
	i := strings.Index(body, "/portal/link?t=")
	if i < 0 {
		t.Fatalf("no link in %q", body)
	}
	link, _, _ := strings.Cut(body[i:], "\n")
	link, _ = url.QueryUnescape(strings.TrimSpace(link))
	return link
}

// TestSignInRateLimited: one address may ask for sign-in links 20 times a
// minute, and one domain's e-mail 5 times in 15 minutes from any
// address; past that the portal answers 429 with Retry-After, and sends
// nothing. Following links is limited per address too.
func TestSignInRateLimited(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	db, release := acquire(t, ds)
	db.CreateUser(context.Background(), "Ana Souza", "ana@example.com")
	release()
	h := s.Handler()
	walker := &browser{t: t, h: h, cookies: map[string]*http.Cookie{}, addr: "198.51.100.7"}
	form := signInForm(t, walker, "acme", "")
	codes := map[int]int{}
	var last *http.Response
	for i := 0; i < 30; i++ {
		form.Set("email", "user"+strings.Repeat("x", i)+"@example.com")
		rec := walker.do("POST", "/portal/login", form)
		codes[rec.Code]++
		last = rec.Result()
	}
	if codes[200] != 20 || codes[429] != 10 || last.Header.Get("Retry-After") == "" {
		t.Errorf("30 sign-ins from one address: %v, Retry-After %q", codes, last.Header.Get("Retry-After"))
	}
	// One user's inbox from many addresses.
	codes = map[int]int{}
	for i := 0; i < 8; i++ {
		b := &browser{t: t, h: h, cookies: map[string]*http.Cookie{}, addr: "203.0.113." + string(rune('1'+i))}
		rec := b.do("POST", "/portal/login", signInForm(t, b, "acme", "Ana@Example.com"))
		codes[rec.Code]++
		if rec.Code == 429 && !strings.Contains(rec.Body.String(), portal.PortalTooMany) {
			t.Errorf("429 page without its text")
		}
	}
	if codes[200] != 5 || codes[429] != 3 {
		t.Errorf("8 sign-ins of one user: %v", codes)
	}
	s.portal.WaitLoginMail()
	// Links: guessing from one address stops too.
	guesser := &browser{t: t, h: h, cookies: map[string]*http.Cookie{}, addr: "192.0.2.99"}
	codes = map[int]int{}
	for i := 0; i < 25; i++ {
		codes[guesser.do("GET", "/portal/link?t=fcl_acme_"+strings.Repeat("0", 64), nil).Code]++
	}
	if codes[429] != 5 {
		t.Errorf("25 link guesses: %v", codes)
	}
}

// TestSignInTiming: the sign-in answer does not wait for the user's
// lookup or the e-mail (which run after it), so its time tells nothing of
// whether the user exists: with the domain's file locked by another
// writer, asking for an existing user's link still answers at once, and
// the e-mail is queued once the lock is gone.
func TestSignInTiming(t *testing.T) {
	// Runs alone (not parallel): it compares answer times: other tests would blur them.
	s, ds := newTestServer(t)
	db, release := acquire(t, ds)
	db.CreateUser(context.Background(), "Ana Souza", "ana@example.com")
	release()
	b := &browser{t: t, h: s.Handler(), cookies: map[string]*http.Cookie{}}
	form := signInForm(t, b, "acme", "ana@example.com")
	// Another connection holds the file's write lock.
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(ds.Dir(), "acme.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	conn, err := raw.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rec := b.do("POST", "/portal/login", form)
	if d := time.Since(start); rec.Code != 200 || d > time.Second {
		t.Errorf("sign-in answered %d after %v while the file was locked", rec.Code, d)
	}
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()
	s.portal.WaitLoginMail()
	db, release = acquire(t, ds)
	mails, _ := db.Outbox(context.Background(), store.EveryUnit, 5)
	release()
	if len(mails) != 1 || mails[0].Kind != "portal_login" {
		t.Errorf("the e-mail was not queued after the lock: %v", mails)
	}
}

// signedIn is a browser signed in to the portal as a new user of acme,
// owner of every unit.
func signedIn(t *testing.T, s *Server, ds *store.Domains) *browser {
	t.Helper()
	return signedInAs(t, s, ds, "Bia", "bia@example.com", store.RoleOwner, "")
}

// signedInAs is a browser signed in as a new user of acme with a role on
// one unit (by token), or on every unit ("").
func signedInAs(t *testing.T, s *Server, ds *store.Domains, name, email string, role store.Role, unitToken string) *browser {
	t.Helper()
	ctx := context.Background()
	db, release := acquire(t, ds)
	defer release()
	createUser(t, db, name, email, role, unitToken)
	link, err := db.RequestLoginLink(ctx, email, nil)
	if err != nil {
		t.Fatal(err)
	}
	secret, _, err := db.StartSession(ctx, link)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, h: s.Handler(), cookies: map[string]*http.Cookie{portal.SessionCookie: {Name: portal.SessionCookie, Value: secret}}}
}

// TestPortalWarnsOfCertificate: the units page warns of a unit's A1
// certificate that ends within 30 days, and says so once it has ended.
func TestPortalWarnsOfCertificate(t *testing.T) {
	t.Parallel()
	s, ds := newTestServer(t)
	b := signedIn(t, s, ds)
	if body := b.do("GET", "/portal/units", nil).Body.String(); strings.Contains(body, "certificado A1") {
		t.Fatal("a warning without a certificate")
	}
	db, release := acquire(t, ds)
	units, _ := db.Units(context.Background())
	err := db.SetUnitCertificate(context.Background(), units[0].ID, store.UnitCertificate{Cert: []byte{1}, SealedKey: []byte{2}, CNPJ: "11222333000181",
		Subject: "ACME", NotBefore: fixedNow.AddDate(-1, 0, 0), NotAfter: fixedNow.AddDate(0, 0, 20)})
	release()
	if err != nil {
		t.Fatal(err)
	}
	if body := b.do("GET", "/portal/units", nil).Body.String(); !strings.Contains(body, "O certificado A1 da unidade vence em 12/12/2026") {
		t.Errorf("no warning of the certificate's end:\n%s", body)
	}
}
