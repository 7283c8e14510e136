package psp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"fincom/server/certs"
	"fincom/server/psp/apipix"
	"fincom/server/psp/local"
)

// localPSP is a PSP of fincom's own on loopback with mutual TLS, and a
// client of it.
func localPSP(t *testing.T, h http.Handler, secret string) *Client {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	cert, err := certs.TestCertificate("Acme Matriz", "11222333000181", time.Now().AddDate(0, -1, 0))
	if err != nil {
		t.Fatal(err)
	}
	return &Client{BaseURL: srv.URL + "/api/v2", TokenURL: srv.URL + "/oauth/token", ClientID: "acme:client", Secret: secret, Cert: cert,
		Roots: roots, Timeout: 5 * time.Second}
}

// TestToken: the token is fetched with the client's credentials over
// mutual TLS, cached while it lives, fetched again once when the PSP
// answers 401; wrong credentials are a clear error.
func TestToken(t *testing.T) {
	psp := &local.PSP{ClientID: "acme:client", Secret: "s3cr&t/+"}
	api := http.StripPrefix("/api/v2", psp)
	mux := http.NewServeMux()
	mux.Handle("/oauth/token", psp)
	mux.Handle("/api/v2/", api)
	c := localPSP(t, mux, "s3cr&t/+")
	ctx := context.Background()
	psp.SetWebhook("pix@acme.com.br", "https://fincom.example/psp/abc/pix")
	for range 3 {
		u, err := c.Webhook(ctx, "pix@acme.com.br")
		if err != nil || u != "https://fincom.example/psp/abc/pix" {
			t.Fatalf("webhook: %q %v", u, err)
		}
	}
	if psp.Tokens() != 1 {
		t.Fatalf("%d tokens for three calls", psp.Tokens())
	}
	psp.RevokeTokens()
	if u, err := c.Webhook(ctx, "other@acme.com.br"); err != nil || u != "" || psp.Tokens() != 2 {
		t.Fatalf("after a 401: %q %v (%d tokens)", u, err, psp.Tokens())
	}
	wrong := localPSP(t, mux, "wrong")
	if _, err := wrong.Token(ctx); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("wrong secret: %v", err)
	}
}

// TestHostileAnswers: a PSP's answer that is not one is a clear error; a
// problem is a *Problem with its title and detail.
func TestHostileAnswers(t *testing.T) {
	for name, tc := range map[string]struct {
		token, body string
		status      int
		want        string
	}{
		"no bearer":  {`{"access_token":"x","token_type":"mac","expires_in":60}`, `{}`, 200, "no bearer token"},
		"not json":   {`<html>`, `{}`, 200, "no bearer token"},
		"huge":       {`{"access_token":"x","token_type":"Bearer","expires_in":60}`, `{"webhookUrl":"` + strings.Repeat("a", maxAnswer) + `"}`, 200, "larger than"},
		"problem":    {`{"access_token":"x","token_type":"Bearer","expires_in":60}`, `{"title":"Chave inválida","status":400,"detail":"A chave não pertence ao usuário."}`, 400, "Chave inválida: A chave não pertence"},
		"no webhook": {`{"access_token":"x","token_type":"Bearer","expires_in":60}`, `{"chave":"k"}`, 200, "no webhookUrl"},
	} {
		c := localPSP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/oauth/token" {
				w.Write([]byte(tc.token))
				return
			}
			w.WriteHeader(tc.status)
			w.Write([]byte(tc.body))
		}), "s")
		if _, err := c.Webhook(context.Background(), "k"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCobV: a charge with a due date is created at the PSP with a body the
// published schema holds, answered with its BR Code; the same PUT after a
// lost answer is the same charge, never a second one; the PSP removes it
// on request; a body the schema refuses never leaves.
func TestCobV(t *testing.T) {
	psp := &local.PSP{ClientID: "acme:client", Secret: "s"}
	mux := http.NewServeMux()
	mux.Handle("/oauth/token", psp)
	mux.Handle("/api/v2/", http.StripPrefix("/api/v2", psp))
	c := localPSP(t, mux, "s")
	ctx := context.Background()
	var b CobV
	b.Calendario.DataDeVencimento, b.Calendario.ValidadeAposVencimento = "2026-12-10", 30
	b.Devedor.CNPJ, b.Devedor.Nome = "11444777000161", "Alfa Comércio Ltda"
	b.Valor.Original, b.Valor.Multa = "35.00", &Modality{Modalidade: 2, ValorPerc: "2.00"}
	b.Chave, b.SolicitacaoPagador = "pix@acme.com.br", "Pedido 12"
	txid := "FINCOM0123456789ABCDEFGHIJ"
	cob, err := c.PutCobV(ctx, txid, b)
	if err != nil || cob.Status != Active || cob.PixCopiaECola == "" {
		t.Fatalf("put: %+v %v", cob, err)
	}
	again, err := c.PutCobV(ctx, txid, b)
	if err != nil || again.PixCopiaECola != cob.PixCopiaECola {
		t.Fatalf("the same PUT again: %+v %v", again, err)
	}
	other := b
	other.Valor.Original = "36.00"
	if _, err := c.PutCobV(ctx, txid, other); err == nil {
		t.Fatal("another charge under a used txid")
	}
	if got, err := c.Remove(ctx, WithDue, txid); err != nil || got.Status != Removed {
		t.Fatalf("remove: %+v %v", got, err)
	}
	if st, _, _ := psp.Charge(txid); st != Removed {
		t.Fatalf("the PSP holds the charge %s", st)
	}
	bad := b
	bad.Valor.Original = "35"
	if _, err := c.PutCobV(ctx, "FINCOM0123456789ABCDEFGHIK", bad); !errors.Is(err, apipix.ErrMessage) {
		t.Fatalf("an invalid body: %v", err)
	}
	if _, ok := func() (string, bool) { _, _, ok := psp.Charge("FINCOM0123456789ABCDEFGHIK"); return "", ok }(); ok {
		t.Fatal("an invalid body reached the PSP")
	}
}

// TestCheckCobLocation: an active charge without pixCopiaECola is taken
// when its location can make a BR Code (a host and path, no scheme, at
// most 77 characters), and refused otherwise.
func TestCheckCobLocation(t *testing.T) {
	for loc, ok := range map[string]bool{"pix.example.com/qr/v2/9d36b84f": true, "pix.example.com:8443/qr/abc": true, "": false,
		"https://pix.example.com/qr/x": false, "pix.example.com": false, "pix.example.com/" + strings.Repeat("a", 80): false, "pix example/x": false} {
		c := Cob{Txid: "t", Status: Active}
		c.Loc.Location = loc
		if err := checkCob(c, "t"); (err == nil) != ok {
			t.Errorf("location %q: %v", loc, err)
		}
	}
}
