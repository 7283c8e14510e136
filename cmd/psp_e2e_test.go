package cmd

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/psp/local"
	"fincom/store"
)

// TestServePaidThroughAPSPItHasNeverSeen is the PSP's Done-when: a
// production server whose unit is connected (fincom unit psp) to a PSP it
// has never seen, which holds every body to the published API Pix
// (serve --ca-file --public-url --psp-poll), registers its webhook,
// creates the charge there and shows the PSP's code, is paid after a
// webhook only once the PSP confirms the Pix, ignores a forged webhook,
// finds a payment whose webhook never came, and removes a cancelled
// charge at the PSP.
func TestServePaidThroughAPSPItHasNeverSeen(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	data := t.TempDir()
	key := filepath.Join(t.TempDir(), "secrets.key")
	if _, err := certs.WriteKeyFile(key); err != nil {
		t.Fatal(err)
	}
	access := jsonOut(t, cli(t, schema, data, "domain", "create", "acme", "--json"))["access_token"].(string)
	unit := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Matriz", "--cnpj", "11.222.333/0001-81", "--json"))["unit_token"].(string)
	ds, err := store.OpenDomains(data, store.Options{Rules: billing.Rules{}, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	db, release, err := ds.Acquire(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	u, _ := db.UnitByToken(ctx, unit)
	contact, err := db.InsertContact(ctx, u.ID, store.ContactFields{Type: "legal", Register: "11444777000161", SocialReason: "Alfa Comércio Ltda"})
	if err != nil {
		t.Fatal(err)
	}
	category, err := db.InsertCategory(ctx, u.ID, store.CategoryFields{ModuleType: "in", Name: "Vendas", GroupCode: 102})
	if err != nil {
		t.Fatal(err)
	}
	release()
	ds.Close()

	// The PSP: known to the server only by its addresses and its CA.
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
	os.WriteFile(secret, []byte(p.Secret), 0o600)
	cert, err := certs.TestCertificate("Matriz", "11222333000181", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, err := pkcs12.Modern.Encode(cert.Key, cert.Cert, nil, "s3nha")
	if err != nil {
		t.Fatal(err)
	}
	pfx := filepath.Join(dir, "psp.pfx")
	os.WriteFile(pfx, b, 0o600)
	password := filepath.Join(dir, "password")
	os.WriteFile(password, []byte("s3nha"), 0o600)
	cli(t, schema, data, "unit", "psp", "acme", unit, "--base-url", srv.URL+"/api/v2", "--token-url", srv.URL+"/oauth/token",
		"--client-id", "acme-client", "--client-secret-file", secret, "--pfx", pfx, "--password-file", password, "--pix-key", "11222333000181", "--ca-file", ca,
		"--secrets-key-file", key)
	if p.Webhook("11222333000181") != "" {
		t.Fatal("a webhook registered without a public URL")
	}

	base, _, _ := serveInProcess(t, schema, "--data", data, "--secrets-key-file", key, "--ca-file", ca,
		"--public-url", "https://fincom.example", "--psp-poll", "100ms")
	call := func(path, body string) (int, map[string]any) {
		t.Helper()
		return postJSON(t, base+path, body)
	}
	tokens := fmt.Sprintf(`"access_token":%q,"unit_token":%q`, access, unit)
	charge := func() (order string, c map[string]any) {
		t.Helper()
		code, m := call("/insert_sales_order", `{`+tokens+`,"pv":{"id_token_contact":"`+contact+`","description":"Consultoria","value":350},`+
			`"faturamento":{"id_token_category":"`+category+`","estimated_payment_date":"2026-12-28"},`+
			`"charge":{"payment_type":"fb3245d4-428b-51de-95df-55e8263d2292","charge_pix_key":"pix@acme.com.br"}}`)
		if code != 200 {
			t.Fatalf("insert_sales_order: %d %v", code, m)
		}
		order = m["data"].(map[string]any)["id"].(string)
		code, m = call("/generate_charge", `{`+tokens+`,"id_token":"`+order+`"}`)
		if code != 200 {
			t.Fatalf("generate_charge: %d %v", code, m)
		}
		return order, m["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)
	}
	status := func(order string) string {
		_, m := call("/get_sales_order_by_id", `{`+tokens+`,"id_token":"`+order+`"}`)
		return m["data"].(map[string]any)["charges"].([]any)[0].(map[string]any)["status"].(string)
	}

	// Its webhook registered, by the server's poll.
	var hook string
	for i := 0; i < 1500 && hook == ""; i++ {
		hook = p.Webhook("11222333000181")
		time.Sleep(10 * time.Millisecond)
	}
	path, ok := strings.CutPrefix(hook, "https://fincom.example/api/v1")
	if !ok || !strings.HasPrefix(path, "/psp/fcw_acme_") {
		t.Fatalf("the webhook registered: %q", hook)
	}
	order, c := charge()
	txid := c["pix_txid"].(string)
	if st, amount, held := p.Charge(txid); !held || st != "ATIVA" || amount != "350.00" || !strings.Contains(c["pix_payload"].(string), "/qr/v2/cobv/") {
		t.Fatalf("the charge at the PSP: %s %s %v; the order shows %v", st, amount, held, c["pix_payload"])
	}
	forged := `{"pix":[{"endToEndId":"E12345678202611221200ABCDEFGHIJK","txid":"` + txid + `","valor":"350.00"}]}`
	if code, _ := call(path+"/pix", forged); code != 200 || status(order) != "PENDING" {
		t.Fatalf("a forged webhook: %d, the charge %s", code, status(order))
	}
	_, _, body, _ := p.Pay(txid, "350.00", time.Now())
	if code, m := call(path+"/pix", string(body)); code != 200 || status(order) != "PAID" {
		t.Fatalf("the PSP's webhook: %d %v, the charge %s", code, m, status(order))
	}

	missed, c := charge()
	p.Pay(c["pix_txid"].(string), "350.00", time.Now())
	for i := 0; i < 1500 && status(missed) != "PAID"; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if status(missed) != "PAID" {
		t.Fatal("the poll did not find a payment whose webhook never came")
	}

	cancelled, c := charge()
	if code, m := call("/cancel_charge", `{`+tokens+`,"id_token":"`+cancelled+`"}`); code != 200 {
		t.Fatalf("cancel_charge: %d %v", code, m)
	}
	if st, _, _ := p.Charge(c["pix_txid"].(string)); st != "REMOVIDA_PELO_USUARIO_RECEBEDOR" {
		t.Fatalf("the cancelled charge at the PSP: %s", st)
	}
}
