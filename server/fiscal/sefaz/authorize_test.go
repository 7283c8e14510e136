package sefaz

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/certs"
	"fincom/server/fiscal"
	"fincom/server/fiscal/sefaz/local"
	"fincom/server/needs"
)

// localSEFAZ is fincom's own SEFAZ on loopback with mutual TLS, and a
// client whose endpoints for SP's NF-e point at it: the same client code
// that reaches a state's authorizer.
func localSEFAZ(t *testing.T, a *local.Authority) (*Client, certs.Certificate) {
	t.Helper()
	srv := httptest.NewUnstartedServer(a)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	e, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var services []string
	for _, s := range local.Services {
		services = append(services, `"`+s+`": "`+srv.URL+`/`+s+`"`)
	}
	if _, err := e.Override([]byte(`{"55": {"SP": {"homologacao": {` + strings.Join(services, ",") + `}}}}`)); err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	cert, err := certs.TestCertificate("Acme Comércio Ltda", "11222333000181", time.Now().AddDate(0, -1, 0))
	if err != nil {
		t.Fatal(err)
	}
	return &Client{Endpoints: e, Roots: roots, Timeout: 5 * time.Second, ReceiptWait: 10 * time.Millisecond}, cert
}

// signedNote is an NF-e of number n, signed with cert.
func signedNote(t *testing.T, cert certs.Certificate, n int) ([]byte, string) {
	t.Helper()
	d := decimal.RequireFromString
	inv := fiscal.Invoice{Kind: fiscal.NFe, Series: 1, Number: n, Code: "12345678", Issued: time.Now(),
		Emitter: fiscal.Party{Register: "11222333000181", Name: "Acme Comércio Ltda", Address: "Rua Vergueiro", Number: "1000",
			Neighborhood: "Paraíso", CityIBGE: "3550308", City: "São Paulo", State: "SP", Zip: "04101000", IE: "110042490114"},
		Profile: fiscal.Profile{CRT: 1},
		Recipient: fiscal.Party{Register: "11444777000161", Name: "Alfa Comércio Ltda", Address: "Av. Paulista", Number: "1500",
			Neighborhood: "Bela Vista", CityIBGE: "3550308", City: "São Paulo", State: "SP", Zip: "01310100"},
		Total: d("35.00"), FreightMode: 9, TipoDocumento: "1", Finalidade: "1", Presenca: "1", ConsumidorFinal: "1", LocalDestino: 1,
		PaymentKey: "PIX", Items: []fiscal.Item{{Code: "1", Description: "Parafuso 10mm", NCM: "73181500", CFOP: "5102", Unit: "UN",
			Quantity: d("100"), UnitValue: d("0.35"), Total: d("35.00")}}}
	key := fiscal.AccessKey(inv)
	doc, err := fiscal.BuildNFe(inv, key)
	if err != nil {
		t.Fatal(err)
	}
	if doc, err = fiscal.Sign(doc, "NFe"+key, cert); err != nil {
		t.Fatal(err)
	}
	return doc, key
}

// TestAuthorize: a note goes to SP's NFeAutorizacao4 as a lot of one,
// valid by enviNFe's schema, over mutual TLS; the authority's protNFe is
// kept whole in an nfeProc valid by procNFe's schema whose note's
// signature xmlsec1 verifies; the cancellation event is registered (135)
// once, a second one is the authority's 573.
func TestAuthorize(t *testing.T) {
	ctx := context.Background()
	a := &local.Authority{}
	c, cert := localSEFAZ(t, a)
	signed, key := signedNote(t, cert, 7)
	got, err := c.Authorize(ctx, cert, signed, key, Homologacao)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Authorized() || got.Code != 100 || len(got.Protocol) != 15 || got.Authorizer != "SP" {
		t.Fatalf("authorization: %+v", got)
	}
	proc := fiscal.Proc(signed, got.ProtNFe)
	if err := fiscal.ValidateSchema("nfeProc", proc); err != nil {
		t.Fatalf("nfeProc: %v\n%s", err, proc)
	}
	xmlsec(t, proc, "//*[local-name()='NFe']/*[local-name()='Signature']")
	// The same note again is the authority's 204: never a second note.
	again, err := c.Authorize(ctx, cert, signed, key, Homologacao)
	if err != nil || again.Code != 204 || a.Authorized() != 1 {
		t.Fatalf("sent twice: %+v %v (%d notes)", again, err, a.Authorized())
	}
	ev, err := c.Cancel(ctx, cert, Cancellation{Key: key, Protocol: got.Protocol, CNPJ: "11222333000181",
		Reason: "Pedido cancelado pelo cliente", At: time.Now()}, Homologacao)
	if err != nil || !ev.Registered() || ev.Code != 135 || ev.Protocol == "" {
		t.Fatalf("cancel: %+v %v", ev, err)
	}
	xmlsec(t, ev.Signed, "//*[local-name()='evento']/*[local-name()='Signature']")
	// A correction letter of a cancelled note is refused (218).
	cce, err := c.Correct(ctx, cert, Correction{Key: key, CNPJ: "11222333000181", Text: "Endereço de entrega: Rua Vergueiro, 1000", Sequence: 1,
		At: time.Now()}, Homologacao)
	if err != nil || cce.Registered() || cce.Code != 218 {
		t.Fatalf("correction of a cancelled note: %+v %v", cce, err)
	}
	if s, err := c.Consult(ctx, cert, key, Homologacao); err != nil || s.Code != 101 {
		t.Fatalf("consult after cancel: %+v %v", s, err)
	}
	twice, err := c.Cancel(ctx, cert, Cancellation{Key: key, Protocol: got.Protocol, CNPJ: "11222333000181",
		Reason: "Pedido cancelado pelo cliente", At: time.Now()}, Homologacao)
	if err != nil || twice.Registered() || twice.Code != 573 {
		t.Fatalf("second cancel: %+v %v", twice, err)
	}
	if _, err := c.Cancel(ctx, cert, Cancellation{Key: key, Protocol: got.Protocol, Reason: "curto", At: time.Now()}, Homologacao); err == nil {
		t.Fatal("a 5-character reason was sent")
	}
	// Through the Authority, a 573 is the cancellation registered before:
	// the consult (101) says so, and it is taken, never a refusal.
	auth := &Authority{Client: c}
	kept, err := auth.Cancel(ctx, fiscal.Cancellation{Kind: fiscal.NFe, Key: key, Protocol: got.Protocol, CNPJ: "11222333000181",
		Reason: "Pedido cancelado pelo cliente", At: time.Now(), Cert: cert})
	if err != nil || kept.Type != "110111" || !strings.Contains(string(kept.XML), "<cStat>101</cStat>") {
		t.Fatalf("a cancellation SEFAZ registered before: %+v %v", kept, err)
	}
}

// TestCorrect: a correction letter (110110) of an authorized note is
// registered (135), signed, valid by envCCe's schema; its sequence is
// taken once (573); the letter's bounds are checked before anything is
// sent.
func TestCorrect(t *testing.T) {
	ctx := context.Background()
	a := &local.Authority{}
	c, cert := localSEFAZ(t, a)
	signed, key := signedNote(t, cert, 11)
	if got, err := c.Authorize(ctx, cert, signed, key, Homologacao); err != nil || !got.Authorized() {
		t.Fatalf("authorize: %+v %v", got, err)
	}
	fix := Correction{Key: key, CNPJ: "11222333000181", Text: "Endereço de entrega: Rua Vergueiro, 1000 - fundos", Sequence: 1, At: time.Now()}
	ev, err := c.Correct(ctx, cert, fix, Homologacao)
	if err != nil || !ev.Registered() || ev.Protocol == "" {
		t.Fatalf("correction: %+v %v", ev, err)
	}
	xmlsec(t, ev.Signed, "//*[local-name()='evento']/*[local-name()='Signature']")
	if again, err := c.Correct(ctx, cert, fix, Homologacao); err != nil || again.Code != 573 {
		t.Fatalf("the same sequence again: %+v %v", again, err)
	}
	fix.Sequence = 2
	if next, err := c.Correct(ctx, cert, fix, Homologacao); err != nil || !next.Registered() {
		t.Fatalf("the next sequence: %+v %v", next, err)
	}
	for _, bad := range []Correction{{Key: key, Text: "curta", Sequence: 3}, {Key: key, Text: fix.Text, Sequence: 21}, {Key: "123", Text: fix.Text, Sequence: 3}} {
		if _, err := c.Correct(ctx, cert, bad, Homologacao); !errors.Is(err, ErrMessage) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// TestAuthorizeLostAnswer: the authority authorizes and the answer is
// lost; asking by the key (Consult) finds the protocol, so the note is
// never sent as a second one.
func TestAuthorizeLostAnswer(t *testing.T) {
	ctx := context.Background()
	a := &local.Authority{}
	c, cert := localSEFAZ(t, a)
	signed, key := signedNote(t, cert, 8)
	a.DropReplies(1)
	if _, err := c.Authorize(ctx, cert, signed, key, Homologacao); err == nil {
		t.Fatal("a dropped answer read as one")
	}
	s, err := c.Consult(ctx, cert, key, Homologacao)
	if err != nil || s.Code != 100 || s.Protocol == "" {
		t.Fatalf("consult: %+v %v", s, err)
	}
	if a.Authorized() != 1 {
		t.Fatalf("%d notes", a.Authorized())
	}
}

// TestAuthorizeRefusals: a rejection carries the note's cStat and
// xMotivo; another note under a used number is 539; a lot the authority
// receives for later is asked by its receipt (NFeRetAutorizacao4); an
// authority that is down is an error, not a refusal.
func TestAuthorizeRefusals(t *testing.T) {
	ctx := context.Background()
	a := &local.Authority{}
	c, cert := localSEFAZ(t, a)
	signed, key := signedNote(t, cert, 9)
	a.RejectNext(778, "Rejeição: Informado NCM inexistente")
	got, err := c.Authorize(ctx, cert, signed, key, Homologacao)
	if err != nil || got.Authorized() || got.Code != 778 || !strings.Contains(got.Reason, "NCM") {
		t.Fatalf("rejection: %+v %v", got, err)
	}
	a.Async = true
	got, err = c.Authorize(ctx, cert, signed, key, Homologacao)
	if err != nil || got.Code != 100 {
		t.Fatalf("by receipt: %+v %v", got, err)
	}
	if r := a.Received(); r[len(r)-1] != "NFeRetAutorizacao4" {
		t.Fatalf("services called: %v", r)
	}
	// A lot received whose verdict could not be read is no verdict: the
	// note may be authorized (never a rejection, never "not sent").
	a.Arrived = func(service string) {
		if service == "NFeRetAutorizacao4" {
			a.StoppedNext()
		}
	}
	next, nkey := signedNote(t, cert, 11)
	if got, err := c.Authorize(ctx, cert, next, nkey, Homologacao); !errors.Is(err, ErrReceived) || errors.Is(err, ErrUnavailable) {
		t.Fatalf("a receipt answered 108: %+v %v", got, err)
	}
	a.Arrived = nil
	a.SetOffline(true)
	if _, err := c.Authorize(ctx, cert, signed, key, Homologacao); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("offline: %v", err)
	}
	a.SetOffline(false)
	// A stopped service (108, 109) says nothing of the note: not a
	// rejection, an authority to ask again later.
	a.StoppedNext()
	if got, err := c.Authorize(ctx, cert, signed, key, Homologacao); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a stopped service: %+v %v", got, err)
	}
	other, err := c.Authorize(ctx, cert, signed[:0:0], key, Homologacao)
	if err == nil {
		t.Fatalf("an empty note was sent: %+v", other)
	}
	stranger, err := certs.TestCertificate("Outra Ltda", "11444777000161", time.Now().AddDate(0, -1, 0))
	if err != nil {
		t.Fatal(err)
	}
	foreign, fkey := signedNote(t, stranger, 10)
	got, err = c.Authorize(ctx, stranger, foreign, fkey, Homologacao)
	if err != nil || got.Code != 213 {
		t.Fatalf("signed by another CNPJ: %+v %v", got, err)
	}
}

// xmlsec verifies the signature at the XPath node with xmlsec1.
func xmlsec(t *testing.T, doc []byte, node string) {
	t.Helper()
	needs.Tool(t, "xmlsec1", needs.Xmlsec1Install)
	path := filepath.Join(t.TempDir(), "doc.xml")
	os.WriteFile(path, doc, 0o600)
	out, err := exec.Command("xmlsec1", "--verify", "--insecure", "--id-attr:Id", "infNFe", "--id-attr:Id", "infEvento",
		"--node-xpath", node, path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Fatalf("xmlsec1 %s: %v\n%s", node, err, out)
	}
}
