package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"fincom/server/billing"
	"fincom/server/certs"
	"fincom/server/fiscal"
	nfselocal "fincom/server/fiscal/nfsen/local"
	"fincom/server/fiscal/sefaz"
	"fincom/server/fiscal/sefaz/local"
	"fincom/server/invoicing"
	"fincom/server/needs"
)

// testServices is NewServices with the tests' secrets key and the judged
// authority; a production server's notes go to a SEFAZ of its own on
// loopback (sefaz/local), through the same client a real one is reached
// with: no test reaches the network.
func testServices(o ServiceOptions) (*billing.Service, *invoicing.Service, error) {
	if o.Keyring == nil {
		o.Keyring = testKeys
	}
	if o.Render == nil {
		r, err := testRender()
		if err != nil {
			return nil, nil, err
		}
		o.Render = r
	}
	if !o.TestCertificates && o.Fiscal == nil {
		a := &local.Authority{}
		if err := knowSample(a); err != nil {
			return nil, nil, err
		}
		c, err := localSEFAZ(a)
		if err != nil {
			return nil, nil, err
		}
		o.Fiscal = c
	}
	if o.SignerRoots == nil {
		// The sample supplier's notes (testdata/docread/nfe.xml) are signed
		// by a certificate of its own, which the tests' operator trusts as
		// serve --ca-file would.
		roots, err := certs.SignerPool(filepath.Join("..", "testdata", "docread", "supplier.pem"))
		if err != nil {
			return nil, nil, err
		}
		o.SignerRoots = roots
	}
	b, inv, err := NewServices(o)
	if err == nil {
		inv.Authority = &judgedAuthority{inner: inv.Authority}
	}
	return b, inv, err
}

// knowSample makes a test SEFAZ know the sample supplier's note
// (testdata/docread/nfe.xml) as authorized, as SEFAZ knows every note it
// authorized: an inbox confirms it there.
func knowSample(a *local.Authority) error {
	sample, err := os.ReadFile(filepath.Join("..", "testdata", "docread", "nfe.xml"))
	if err != nil {
		return err
	}
	return a.Know(sample, false, 0)
}

// sefazServers are the local SEFAZs the tests started, closed by TestMain.
var sefazServers struct {
	mu   sync.Mutex
	list []*httptest.Server
}

// localSEFAZ is localAuthorities with a national system of its own.
func localSEFAZ(a *local.Authority) (*sefaz.Client, error) {
	return localAuthorities(a, &nfselocal.System{})
}

// loopbackTLS starts h on loopback with mutual TLS, closed by TestMain.
func loopbackTLS(h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.StartTLS()
	sefazServers.mu.Lock()
	sefazServers.list = append(sefazServers.list, srv)
	sefazServers.mu.Unlock()
	return srv
}

// localAuthorities starts a SEFAZ and a national NFS-e system on loopback
// with mutual TLS and answers a client whose addresses for SP's NF-e and
// NFC-e, AN, and the national system in both environments point at them.
func localAuthorities(a, n http.Handler) (*sefaz.Client, error) {
	srv, nat := loopbackTLS(a), loopbackTLS(n)
	e, err := sefaz.Load()
	if err != nil {
		return nil, err
	}
	var services []string
	for _, s := range local.Services {
		services = append(services, `"`+s+`": "`+srv.URL+`/`+s+`"`)
	}
	all := strings.Join(services, ",")
	envs := `{"homologacao": {` + all + `}, "producao": {` + all + `}}`
	sefin := `{"sefin": "` + nat.URL + `/SefinNacional", "adn": "` + nat.URL + `/adn"}`
	// The contingency authorizers are the same SEFAZ: no test reaches
	// the shipped addresses.
	if _, err := e.Override([]byte(`{"55": {"SP": ` + envs + `, "AN": ` + envs + `, "SVCAN": ` + envs + `, "SVCRS": ` + envs + `}, "65": {"SP": ` + envs + `}, ` +
		`"nfse": {"homologacao": ` + sefin + `, "producao": ` + sefin + `}}`)); err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	roots.AddCert(nat.Certificate())
	return &sefaz.Client{Endpoints: e, Roots: roots, Timeout: 5 * time.Second, ReceiptWait: 10 * time.Millisecond}, nil
}

// closeSEFAZs stops the local SEFAZs.
func closeSEFAZs() {
	sefazServers.mu.Lock()
	defer sefazServers.mu.Unlock()
	for _, s := range sefazServers.list {
		s.Close()
	}
}

// judgedAuthority records every document the simulated authority
// authorizes during the tests, for judgeDocuments.
type judgedAuthority struct{ inner fiscal.Authority }

var judged struct {
	mu   sync.Mutex
	docs [][]byte
}

func (j *judgedAuthority) Authorize(ctx context.Context, r fiscal.Request) (fiscal.Authorization, error) {
	a, err := j.inner.Authorize(ctx, r)
	if err == nil {
		judged.mu.Lock()
		judged.docs = append(judged.docs, a.XML)
		judged.mu.Unlock()
	}
	return a, err
}

// judgeDocuments validates every recorded NF-e, NFC-e and national NFS-e
// with xmllint against the official schemas and verifies their signatures
// with xmlsec1: tools that know nothing of fincom. It answers what they
// refuse (none judged in a whole run is itself a failure: the check would
// prove nothing).
func judgeDocuments(whole bool) string {
	judged.mu.Lock()
	defer judged.mu.Unlock()
	if len(judged.docs) == 0 {
		if whole {
			return "no fiscal document was judged"
		}
		return ""
	}
	for _, tool := range [][2]string{{"xmllint", needs.XmllintInstall}, {"xmlsec1", needs.Xmlsec1Install}} {
		if _, err := exec.LookPath(tool[0]); err != nil {
			if err := needs.Skipped("judging the fiscal documents (TestMain)", tool[0]+" is not installed", tool[1]); err != nil {
				return err.Error()
			}
			return ""
		}
	}
	dir, err := os.MkdirTemp("", "fincom-judge-")
	if err != nil {
		return err.Error()
	}
	defer os.RemoveAll(dir)
	// Each schema is read once for all its documents (xmllint takes many
	// files), and the signatures are verified a few at a time.
	var report []string
	var mu sync.Mutex
	failed := func(line string) {
		mu.Lock()
		report = append(report, line)
		mu.Unlock()
	}
	bySchema := map[string][]string{}
	type signature struct{ path, node string }
	var signatures []signature
	seen := 0
	for i, doc := range judged.docs {
		var schema string
		var sigs []string
		switch {
		case bytes.Contains(doc, []byte("<nfeProc")):
			schema, sigs = "nfe-4.00/procNFe_v4.00.xsd", []string{"//*[local-name()='Signature']"}
		case bytes.Contains(doc, []byte("<NFSe")):
			schema, sigs = "nfse-nacional-1.00/NFSe_v1.00.xsd", []string{"/*/*[local-name()='Signature']", "//*[local-name()='DPS']/*[local-name()='Signature']"}
			if bytes.Contains(doc, []byte(`<NFSe xmlns="http://www.sped.fazenda.gov.br/nfse" versao="1.01">`)) {
				// The tax reform's layout.
				schema = "nfse-nacional-1.01/NFSe_v1.01.xsd"
			}
		case bytes.Contains(doc, []byte("<procEventoNFe")) && bytes.Contains(doc, []byte("<tpEvento>110112")):
			schema, sigs = "nfe-4.00/procEventoNFe_v1.00.xsd", []string{"//*[local-name()='Signature']"}
		case bytes.Contains(doc, []byte("<procEventoNFe")) && bytes.Contains(doc, []byte("<tpEvento>110140")):
			schema, sigs = "nfe-4.00/procEPEC_v1.00.xsd", []string{"//*[local-name()='Signature']"}
		case bytes.Contains(doc, []byte("<procEventoNFe")) && bytes.Contains(doc, []byte("<tpEvento>110110")):
			schema, sigs = "nfe-4.00/procCCeNFe_v1.00.xsd", []string{"//*[local-name()='Signature']"}
		case bytes.Contains(doc, []byte("<procEventoNFe")):
			schema, sigs = "nfe-4.00/procEventoCancNFe_v1.00.xsd", []string{"//*[local-name()='Signature']"}
		case bytes.Contains(doc, []byte("<evento")) && bytes.Contains(doc, []byte("<pedRegEvento")):
			schema, sigs = "nfse-nacional-1.00/evento_v1.00.xsd", []string{"/*/*[local-name()='Signature']", "//*[local-name()='pedRegEvento']/*[local-name()='Signature']"}
		default:
			continue // the municipal note: each city has its own layout
		}
		seen++
		path := filepath.Join(dir, fmt.Sprintf("doc%d.xml", i))
		if err := os.WriteFile(path, doc, 0o600); err != nil {
			return err.Error()
		}
		bySchema[schema] = append(bySchema[schema], path)
		for _, node := range sigs {
			signatures = append(signatures, signature{path, node})
		}
	}
	work := make(chan func())
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 2) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				f()
			}
		}()
	}
	for schema, paths := range bySchema {
		work <- func() {
			out, _ := exec.Command("xmllint", append([]string{"--noout", "--schema", filepath.Join("fiscal", "schemas", schema)}, paths...)...).CombinedOutput()
			valid := map[string]bool{}
			for _, l := range strings.Split(string(out), "\n") {
				if p, ok := strings.CutSuffix(strings.TrimSpace(l), " validates"); ok {
					valid[p] = true
				}
			}
			for _, p := range paths {
				if !valid[p] {
					failed(p + " (" + schema + "): " + strings.TrimSpace(string(out)))
				}
			}
		}
	}
	for _, sig := range signatures {
		work <- func() {
			out, err := exec.Command("xmlsec1", "--verify", "--insecure", "--id-attr:Id", "infNFe", "--id-attr:Id", "infDPS",
				"--id-attr:Id", "infNFSe", "--id-attr:Id", "infEvento", "--id-attr:Id", "infPedReg", "--node-xpath", sig.node, sig.path).CombinedOutput()
			if err != nil {
				failed(fmt.Sprintf("%s %s: %s", sig.path, sig.node, lastLine(string(out))))
			}
		}
	}
	close(work)
	wg.Wait()
	if whole && seen == 0 {
		report = append(report, "no NF-e or national NFS-e was judged")
	}
	if os.Getenv("FINCOM_JUDGE_COUNT") != "" {
		fmt.Fprintf(os.Stderr, "judged %d fiscal documents\n", seen)
	}
	return strings.Join(report, "\n")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// pdfTool finds poppler's and zbar's tools: required in CI.
func pdfTool(t *testing.T, name string) string {
	t.Helper()
	return needs.Tool(t, name, needs.PDFToolsInstall)
}

// pdfToText is pdftotext's reading of a PDF.
func pdfToText(t *testing.T, b []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "doc.pdf")
	os.WriteFile(file, b, 0o600)
	out, err := exec.Command(pdfTool(t, "pdftotext"), "-layout", file, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v %s", err, out)
	}
	return string(out)
}

// zbarPDF reads the code of a PDF's first page (rasterized at 200 dpi)
// with zbarimg.
func zbarPDF(t *testing.T, b []byte, symbology string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "doc.pdf")
	os.WriteFile(file, b, 0o600)
	if out, err := exec.Command(pdfTool(t, "pdftoppm"), "-r", "200", "-png", "-f", "1", "-l", "1", "-singlefile", file, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	out, _ := exec.Command(pdfTool(t, "zbarimg"), "--raw", "-q", "-Sdisable", "-S"+symbology+".enable", filepath.Join(dir, "page.png")).Output()
	return strings.TrimSpace(string(out))
}

// Cancel forwards to the inner authority when it registers
// cancellations, and records the event kept for judgeDocuments.
func (j *judgedAuthority) Cancel(ctx context.Context, c fiscal.Cancellation) (fiscal.Event, error) {
	if inner, ok := j.inner.(fiscal.Canceller); ok {
		return judgedEvent(inner.Cancel(ctx, c))
	}
	return fiscal.Event{}, nil
}

// CancelBySubstitution forwards to the inner authority, and records the
// event kept for judgeDocuments.
func (j *judgedAuthority) CancelBySubstitution(ctx context.Context, s fiscal.Substitution) (fiscal.Event, error) {
	if inner, ok := j.inner.(fiscal.Substituter); ok {
		return judgedEvent(inner.CancelBySubstitution(ctx, s))
	}
	return fiscal.Event{}, fiscal.ErrNotConnected
}

// RegisterEPEC forwards to the inner authority when it registers EPECs,
// and records the event kept for judgeDocuments.
func (j *judgedAuthority) RegisterEPEC(ctx context.Context, r fiscal.Request) (fiscal.Event, error) {
	if inner, ok := j.inner.(fiscal.EPECRegistrar); ok {
		return judgedEvent(inner.RegisterEPEC(ctx, r))
	}
	return fiscal.Event{}, fiscal.ErrNotConnected
}

// Correct forwards to the inner authority when it registers correction
// letters, and records the event kept for judgeDocuments.
func (j *judgedAuthority) Correct(ctx context.Context, c fiscal.Correction) (fiscal.Event, error) {
	if inner, ok := j.inner.(fiscal.Corrector); ok {
		return judgedEvent(inner.Correct(ctx, c))
	}
	return fiscal.Event{}, fiscal.ErrNotConnected
}

// DANFSe forwards to the inner authority when it keeps DANFSe.
func (j *judgedAuthority) DANFSe(ctx context.Context, r fiscal.DANFSeRequest) ([]byte, error) {
	if inner, ok := j.inner.(fiscal.DANFSeSource); ok {
		return inner.DANFSe(ctx, r)
	}
	return nil, fiscal.ErrNotConnected
}

// Void forwards to the inner authority when it voids numbers (its answer,
// retInutNFe, is held to its schema by the SEFAZ client).
func (j *judgedAuthority) Void(ctx context.Context, v fiscal.Voiding) (fiscal.Event, error) {
	if inner, ok := j.inner.(fiscal.Voider); ok {
		return inner.Void(ctx, v)
	}
	return fiscal.Event{}, fiscal.ErrNotConnected
}

func judgedEvent(ev fiscal.Event, err error) (fiscal.Event, error) {
	if err == nil && len(ev.XML) > 0 {
		judged.mu.Lock()
		judged.docs = append(judged.docs, ev.XML)
		judged.mu.Unlock()
	}
	return ev, err
}

// Manifest forwards to the inner authority when it registers
// manifestations.
func (j *judgedAuthority) Manifest(ctx context.Context, m fiscal.Manifestation) (bool, string, error) {
	if inner, ok := j.inner.(fiscal.Manifester); ok {
		return inner.Manifest(ctx, m)
	}
	return false, "", errors.New("this authority registers no manifestation")
}
