package server

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"fincom/server/billing"
	"fincom/server/fiscal"
	"fincom/server/invoicing"
)

// testServices is NewServices with the tests' secrets key and the judged
// authority.
func testServices(o ServiceOptions) (*billing.Service, *invoicing.Service, error) {
	if o.Keyring == nil {
		o.Keyring = testKeys
	}
	b, inv, err := NewServices(o)
	if err == nil {
		inv.Authority = &judgedAuthority{inner: inv.Authority}
	}
	return b, inv, err
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
	for _, tool := range []string{"xmllint", "xmlsec1"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				return tool + " is not installed (.ci/run installs it)"
			}
			return ""
		}
	}
	dir, err := os.MkdirTemp("", "fincom-judge-")
	if err != nil {
		return err.Error()
	}
	defer os.RemoveAll(dir)
	var report []string
	seen := 0
	for i, doc := range judged.docs {
		var schema string
		var sigs []string
		switch {
		case bytes.Contains(doc, []byte("<nfeProc")):
			schema, sigs = "nfe-4.00/procNFe_v4.00.xsd", []string{"//*[local-name()='Signature']"}
		case bytes.Contains(doc, []byte("<NFSe")):
			schema, sigs = "nfse-nacional-1.00/NFSe_v1.00.xsd", []string{"/*/*[local-name()='Signature']", "//*[local-name()='DPS']/*[local-name()='Signature']"}
		default:
			continue // the municipal note: each city has its own layout
		}
		seen++
		path := filepath.Join(dir, fmt.Sprintf("doc%d.xml", i))
		if err := os.WriteFile(path, doc, 0o600); err != nil {
			return err.Error()
		}
		out, err := exec.Command("xmllint", "--noout", "--schema", filepath.Join("fiscal", "schemas", schema), path).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != path+" validates" {
			report = append(report, strings.TrimSpace(string(out)))
		}
		for _, node := range sigs {
			out, err := exec.Command("xmlsec1", "--verify", "--insecure", "--id-attr:Id", "infNFe", "--id-attr:Id", "infDPS",
				"--id-attr:Id", "infNFSe", "--node-xpath", node, path).CombinedOutput()
			if err != nil {
				report = append(report, fmt.Sprintf("%s %s: %s", path, node, lastLine(string(out))))
			}
		}
	}
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
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed (.ci/run installs poppler-utils and zbar-tools)", name)
		}
		t.Skipf("%s not installed", name)
	}
	return path
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
