package cmd

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"fincom/server/certs"
	"fincom/server/psp/local"
)

// TestUnitPSP: fincom unit psp connects a unit to a PSP it has never seen
// (trusted through --ca-file), checking the connection at once; the
// secret never lands in the domain file in clear; wrong credentials, an
// http address or a bad PIX key are refused; --remove disconnects.
func TestUnitPSP(t *testing.T) {
	// Runs alone (not parallel): it reads the PSP certificate's password from FINCOM_PSP_PFX_PASSWORD, the process's environment.
	schema := schemaForTest(t)
	data := t.TempDir()
	key := filepath.Join(t.TempDir(), "secrets.key")
	if _, err := certs.WriteKeyFile(key); err != nil {
		t.Fatal(err)
	}
	cli(t, schema, data, "domain", "create", "acme")
	unit := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Matriz", "--cnpj", "11.222.333/0001-81", "--json"))["unit_token"].(string)

	p := &local.PSP{ClientID: "acme-client", Secret: "segredo-do-cliente-0123456789"}
	mux := http.NewServeMux()
	mux.Handle("/oauth/token", p)
	mux.Handle("/api/v2/", http.StripPrefix("/api/v2", p))
	srv := httptest.NewUnstartedServer(mux)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.StartTLS()
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte(p.Secret+"\n"), 0o600)
	wrong := filepath.Join(dir, "wrong")
	os.WriteFile(wrong, []byte("outro"), 0o600)
	c, err := certs.TestCertificate("Matriz", "11222333000181", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, err := pkcs12.Modern.Encode(c.Key, c.Cert, nil, "s3nha")
	if err != nil {
		t.Fatal(err)
	}
	pfx := filepath.Join(dir, "psp.pfx")
	os.WriteFile(pfx, b, 0o600)
	t.Setenv("FINCOM_PSP_PFX_PASSWORD", "s3nha")
	args := func(secretFile string, extra ...string) []string {
		return append([]string{"unit", "psp", "acme", unit, "--base-url", srv.URL + "/api/v2", "--token-url", srv.URL + "/oauth/token",
			"--client-id", "acme-client", "--client-secret-file", secretFile, "--pfx", pfx, "--pix-key", "PIX@Acme.com.br", "--ca-file", ca,
			"--secrets-key-file", key}, extra...)
	}
	if err := cliErr(t, schema, data, args(wrong)...); err == nil || !strings.Contains(err.Error(), "client-id") {
		t.Errorf("wrong secret: %v", err)
	}
	v := jsonOut(t, cli(t, schema, data, args(secret, "--json")...))
	if v["pix_key"] != "pix@acme.com.br" || v["webhook"] != "" || p.Tokens() != 1 {
		t.Fatalf("unit psp: %v", v)
	}
	if f, _ := os.ReadFile(filepath.Join(data, "acme.db")); bytes.Contains(f, []byte(p.Secret)) {
		t.Fatal("the domain file holds the client's secret in clear")
	}
	for _, bad := range [][]string{
		{"--base-url", strings.Replace(srv.URL, "https", "http", 1)},
		{"--pix-key", "não é chave"},
	} {
		if err := cliErr(t, schema, data, args(secret, bad...)...); err == nil {
			t.Errorf("accepted %v", bad)
		}
	}
	if err := cliErr(t, schema, data, append(args(secret), "--ca-file", "")...); err == nil {
		t.Error("a PSP no root vouches for was trusted")
	}
	cli(t, schema, data, "unit", "psp", "acme", unit, "--remove")
	if err := cliErr(t, schema, data, "unit", "psp", "acme", unit, "--remove"); err == nil {
		t.Error("removed twice")
	}

	// fincom's own PSP, reached through the files it writes.
	out := t.TempDir()
	var lout safeBuffer
	lroot := newRootCmd(&app{schema: schema, out: &lout, errOut: &lout})
	lroot.SetArgs([]string{"unit", "psp-local", "--addr", "127.0.0.1:0", "--out", out})
	lctx, lcancel := context.WithCancel(context.Background())
	ldone := make(chan error, 1)
	go func() { ldone <- lroot.ExecuteContext(lctx) }()
	defer func() { lcancel(); <-ldone }()
	var base string
	re := regexp.MustCompile(`local PSP on (https://\S+):`)
	for i := 0; i < 1500 && base == ""; i++ {
		if m := re.FindStringSubmatch(lout.String()); m != nil {
			base = m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	v = jsonOut(t, cli(t, schema, data, "unit", "psp", "acme", unit, "--base-url", base+"/api/v2", "--token-url", base+"/oauth/token",
		"--client-id", "local-client", "--client-secret-file", filepath.Join(out, "client-secret"), "--pfx", pfx, "--pix-key", "11222333000181",
		"--ca-file", filepath.Join(out, "ca.pem"), "--secrets-key-file", key, "--public-url", "https://fincom.example", "--json"))
	if v["pix_key"] != "11222333000181" || !strings.HasPrefix(v["webhook"].(string), "https://fincom.example/api/v1/psp/fcw_acme_") {
		t.Fatalf("unit psp at the local PSP: %v (%s)", v, lout.String())
	}
	if err := cliErr(t, schema, data, "unit", "psp-local", "--addr", "0.0.0.0:0", "--out", out); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a local PSP on every address: %v", err)
	}
}
