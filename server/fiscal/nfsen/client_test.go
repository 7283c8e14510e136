package nfsen

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
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
	"fincom/server/fiscal/nfsen/local"
	"fincom/server/fiscal/sefaz"
	"fincom/server/needs"
)

// localSystem is the national system of fincom's own on loopback with
// mutual TLS (its Sefin address as the national one's, with the
// /SefinNacional prefix), and a client whose endpoints point at it.
func localSystem(t *testing.T, h http.Handler) (*Client, certs.Certificate) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	e, err := sefaz.Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Override([]byte(`{"nfse": {"homologacao": {"sefin": "` + srv.URL + `/SefinNacional"}}}`)); err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	cert, err := certs.TestCertificate("Acme Serviços Ltda", "11222333000181", time.Now().AddDate(0, -1, 0))
	if err != nil {
		t.Fatal(err)
	}
	return &Client{Endpoints: e, Roots: roots, Timeout: 5 * time.Second}, cert
}

// signedDPS is a national DPS of number n, signed with cert.
func signedDPS(t *testing.T, cert certs.Certificate, n int) (fiscal.Invoice, []byte) {
	t.Helper()
	d := decimal.RequireFromString
	inv := fiscal.Invoice{Kind: fiscal.NFSeN, Series: 1, Number: n, Code: "123456789", Issued: time.Now(),
		Emitter: fiscal.Party{Register: "11222333000181", Name: "Acme Serviços Ltda", IM: "1234", Address: "Rua Vergueiro", Number: "1000",
			Neighborhood: "Paraíso", CityIBGE: "3550308", City: "São Paulo", State: "SP", Zip: "04101000"},
		Profile: fiscal.Profile{CRT: fiscal.SimplesNacional},
		Recipient: fiscal.Party{Register: "11444777000161", Name: "Alfa Comércio Ltda", Address: "Av. Paulista", Number: "1500",
			Neighborhood: "Bela Vista", CityIBGE: "3550308", City: "São Paulo", State: "SP", Zip: "01310100"},
		Total: d("1500"),
		Service: fiscal.Service{Code: "01.07", Description: "Instalação de rede", Location: "3550308", Gross: d("1500"), ISSRate: d("5"),
			ISSAmount: d("75"), Retentions: d("22.50"), Net: d("1477.50"), Withheld: fiscal.Withholdings{IRRF: d("22.50")}}}
	doc, err := fiscal.BuildDPS(inv)
	if err != nil {
		t.Fatal(err)
	}
	if doc, err = fiscal.Sign(doc, fiscal.DPSID(inv), cert); err != nil {
		t.Fatal(err)
	}
	return inv, doc
}

// TestIssueAndCancel: a DPS goes to POST /nfse as gzip+base64 over mutual
// TLS; the system's note (valid by the NFSe schema, signed by the system,
// carrying the DPS) comes back with its 50-digit key, which xmllint and
// xmlsec1 accept too; a second sending of the same DPS is refused and
// GET /dps finds the note; the cancellation e101101 is registered once.
func TestIssueAndCancel(t *testing.T) {
	sys := &local.System{}
	c, cert := localSystem(t, sys)
	ctx := context.Background()
	inv, dps := signedDPS(t, cert, 7)
	n, err := c.Issue(ctx, cert, dps, sefaz.Homologacao)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Key) != 50 || !fiscal.ValidNationalKey(n.Key) || n.DPSID != fiscal.DPSID(inv) || n.Number == "" {
		t.Fatalf("issued %+v", n)
	}
	judge(t, "NFSe_v1.00.xsd", n.NFSe, "infNFSe", "DPS")
	_, err = c.Issue(ctx, cert, dps, sefaz.Homologacao)
	var r *Refusal
	if !errors.As(err, &r) || r.Problems[0].Code != local.CodeDuplicate || sys.Issued() != 1 {
		t.Fatalf("the same DPS again: %v", err)
	}
	key, ok, err := c.Find(ctx, cert, n.DPSID, sefaz.Homologacao)
	if err != nil || !ok || key != n.Key {
		t.Fatalf("find: %s %v %v", key, ok, err)
	}
	again, err := c.Note(ctx, cert, key, n.DPSID, sefaz.Homologacao)
	if err != nil || !bytes.Equal(again.NFSe, n.NFSe) {
		t.Fatalf("note: %v", err)
	}
	if _, ok, err := c.Find(ctx, cert, fiscal.DPSID(fiscal.Invoice{Series: 1, Number: 8, Emitter: inv.Emitter}), sefaz.Homologacao); err != nil || ok {
		t.Fatalf("an unsent DPS is found: %v %v", ok, err)
	}
	x := Cancellation{Key: n.Key, Author: "11222333000181", Code: fiscal.CancelOther, Reason: "Serviço cobrado em duplicidade", At: time.Now()}
	ev, err := c.Cancel(ctx, cert, x, sefaz.Homologacao)
	if err != nil {
		t.Fatal(err)
	}
	judge(t, "evento_v1.00.xsd", ev.XML, "infEvento", "pedRegEvento")
	if _, err := c.Cancel(ctx, cert, x, sefaz.Homologacao); !errors.As(err, &r) || r.Problems[0].Code != local.CodeCancelled {
		t.Fatalf("second cancellation: %v", err)
	}
	if v, err := c.Status(ctx, cert, sefaz.Homologacao); err != nil || v == "" {
		t.Fatalf("status: %q %v", v, err)
	}
}

// TestRefusals: the system's refusals reach the caller with their codes:
// another firm's certificate, a production DPS in produção restrita, a
// forced refusal; a DPS invalid by its schema never leaves.
func TestRefusals(t *testing.T) {
	sys := &local.System{}
	c, cert := localSystem(t, sys)
	ctx := context.Background()
	other, err := certs.TestCertificate("Outra Ltda", "11444777000161", time.Now().AddDate(0, -1, 0))
	if err != nil {
		t.Fatal(err)
	}
	_, dps := signedDPS(t, other, 1)
	var r *Refusal
	if _, err := c.Issue(ctx, other, dps, sefaz.Homologacao); !errors.As(err, &r) || r.Problems[0].Code != local.CodeCert {
		t.Fatalf("another firm's certificate: %v", err)
	}
	inv, _ := signedDPS(t, cert, 2)
	inv.Production = true
	prod, _ := fiscal.BuildDPS(inv)
	prod, _ = fiscal.Sign(prod, fiscal.DPSID(inv), cert)
	if _, err := c.Issue(ctx, cert, prod, sefaz.Homologacao); !errors.As(err, &r) || r.Problems[0].Code != local.CodeEnv {
		t.Fatalf("production DPS: %v", err)
	}
	sys.RejectNext(312, "Código de tributação nacional inexistente.")
	_, dps = signedDPS(t, cert, 3)
	_, err = c.Issue(ctx, cert, dps, sefaz.Homologacao)
	if !errors.As(err, &r) || r.Code() != 312 || !strings.Contains(r.Error(), "E0312: Código de tributação") {
		t.Fatalf("forced refusal: %v", err)
	}
	bad := bytes.Replace(dps, []byte("<tpAmb>2</tpAmb>"), []byte("<tpAmb>7</tpAmb>"), 1)
	if _, err := c.Issue(ctx, cert, bad, sefaz.Homologacao); !errors.Is(err, ErrMessage) {
		t.Fatalf("invalid DPS: %v", err)
	}
	if sys.Issued() != 0 || len(sys.Received()) != 3 {
		t.Fatalf("issued %d, calls %v", sys.Issued(), sys.Received())
	}
}

// TestHostileAnswers: an answer that is not the system's is refused with
// ErrAnswer: not JSON, too large, a DTD, a note that is not signed or is
// signed by someone else, another DPS's note, a key that is not one.
func TestHostileAnswers(t *testing.T) {
	sys := &local.System{}
	good, cert := localSystem(t, sys)
	ctx := context.Background()
	_, dps := signedDPS(t, cert, 1)
	n, err := good.Issue(ctx, cert, dps, sefaz.Homologacao)
	if err != nil {
		t.Fatal(err)
	}
	_, other := signedDPS(t, cert, 2)
	unsigned := append(append([]byte(nil), n.NFSe[:bytes.LastIndex(n.NFSe, []byte("<Signature xmlns"))]...), "</NFSe>"...)
	forged, err := fiscal.Sign(unsigned, "NFS"+n.Key, cert)
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string][2]string{
		"not JSON":    {`<html>hello</html>`, "invalid character"},
		"too large":   {`{"x":"` + strings.Repeat("a", maxAnswer) + `"}`, "larger than"},
		"bad key":     {`{"chaveAcesso":"` + n.Key[:49] + `7","nfseXmlGZipB64":"` + mustPack(t, n.NFSe) + `"}`, "answered for"},
		"DTD":         {`{"nfseXmlGZipB64":"` + mustPack(t, append([]byte(`<!DOCTYPE x [<!ENTITY a "b">]>`), n.NFSe...)) + `"}`, "DTD"},
		"tampered":    {`{"nfseXmlGZipB64":"` + mustPack(t, bytes.Replace(n.NFSe, []byte("1500.00"), []byte("1.00"), 1)) + `"}`, "signature"},
		"self-signed": {`{"nfseXmlGZipB64":"` + mustPack(t, forged) + `"}`, "its own provider"},
		"not base64":  {`{"nfseXmlGZipB64":"%%%"}`, "base64"},
		"not a note":  {`{"nfseXmlGZipB64":"` + mustPack(t, dps) + `"}`, "NFSe"},
	}
	for name, a := range answers {
		c, _ := localSystem(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(a[0])) }))
		if _, err := c.Note(ctx, cert, n.Key, n.DPSID, sefaz.Homologacao); !errors.Is(err, ErrAnswer) || !strings.Contains(err.Error(), a[1]) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The note of DPS 1 answered to DPS 2 is another DPS's.
	c, _ := localSystem(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"chaveAcesso":"` + n.Key + `","nfseXmlGZipB64":"` + mustPack(t, n.NFSe) + `"}`))
	}))
	if _, err := c.Issue(ctx, cert, other, sefaz.Homologacao); !errors.Is(err, ErrAnswer) || !strings.Contains(err.Error(), "does not carry") {
		t.Errorf("another DPS's note: %v", err)
	}
	// A production note signed by a test certificate is refused.
	good.Endpoints.NFSe[sefaz.Producao]["sefin"] = good.Endpoints.NFSe[sefaz.Homologacao]["sefin"]
	if _, err := good.Note(ctx, cert, n.Key, n.DPSID, sefaz.Producao); !errors.Is(err, ErrAnswer) || !strings.Contains(err.Error(), "test certificate") {
		t.Errorf("a test-signed production note: %v", err)
	}
}

func mustPack(t *testing.T, doc []byte) string {
	t.Helper()
	s, err := pack(doc)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// judge has xmllint validate a document against its official schema and
// xmlsec1 verify its signature (over the element named id) and the
// signature of the provider's document inside it (inner): tools that know
// nothing of fincom.
func judge(t *testing.T, schema string, doc []byte, id, inner string) {
	t.Helper()
	needs.Tool(t, "xmllint", needs.XmllintInstall)
	needs.Tool(t, "xmlsec1", needs.Xmlsec1Install)
	dir := t.TempDir()
	file := filepath.Join(dir, "doc.xml")
	if err := os.WriteFile(file, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	xsd := filepath.Join("..", "schemas", "nfse-nacional-1.00", schema)
	if out, err := exec.Command("xmllint", "--noout", "--schema", xsd, file).CombinedOutput(); err != nil {
		t.Fatalf("xmllint: %v\n%s", err, out)
	}
	for _, node := range []string{"/*/*[local-name()='Signature']", "//*[local-name()='" + inner + "']/*[local-name()='Signature']"} {
		if out, err := exec.Command("xmlsec1", "--verify", "--insecure", "--id-attr:Id", id, "--id-attr:Id", "infDPS",
			"--id-attr:Id", "infPedReg", "--node-xpath", node, file).CombinedOutput(); err != nil {
			t.Fatalf("xmlsec1 %s: %v\n%s", node, err, out)
		}
	}
}
