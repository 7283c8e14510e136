package cmd

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fincom/server/certs"
	"fincom/server/needs"
)

// freePort answers a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// serving runs `fincom serve` in-process with args until the test ends,
// once it said where it listens; its standard output and log.
func serving(t *testing.T, schema, data string, args ...string) (out, log *safeBuffer) {
	t.Helper()
	out, log = &safeBuffer{}, &safeBuffer{}
	a := &app{schema: schema, out: out, errOut: log}
	root := newRootCmd(a)
	root.SetArgs(append(append([]string{"serve"}, args...), "--data", data))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	for i := 0; i < 1000 && !strings.Contains(out.String(), "listening on"); i++ {
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v\n%s", err, log.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if !strings.Contains(out.String(), "listening on") {
		t.Fatalf("serve did not start: %s %s", out.String(), log.String())
	}
	return out, log
}

// tlsClient calls https://fincom.test:PORT at the loopback address,
// trusting roots.
func tlsClient(roots *x509.CertPool, addr string) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots},
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, network, addr)
			}}}
}

// servedSerial is the serial number of the certificate fincom shows for
// fincom.test at addr (verified against roots).
func servedSerial(t *testing.T, roots *x509.CertPool, addr string) string {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{ServerName: "fincom.test", RootCAs: roots})
	if err != nil {
		return "error: " + err.Error()
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].SerialNumber.String()
}

// TestHTTPSByACME: `serve --https fincom.test` obtains its certificate
// from Pebble (Let's Encrypt's ACME test server, on loopback, its
// challenges pointed at fincom's ports and its DNS answering loopback):
// the API and the portal answer over HTTPS with Pebble's root, with HSTS
// and Secure cookies; plain HTTP only redirects; the ACME cache is its
// owner's alone; Pebble's short-lived certificates are renewed while
// fincom serves.
func TestHTTPSByACME(t *testing.T) {
	t.Parallel()
	pebble := needs.Tool(t, "pebble", needs.PebbleInstall)
	challtest := needs.Tool(t, "pebble-challtestsrv", needs.PebbleInstall)
	dir := t.TempDir()
	// Pebble's own API is served with a loopback certificate fincom is
	// told to trust (--ca-file), as a firm's internal CA would be.
	api, err := certs.Loopback(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	key, _ := x509.MarshalPKCS8PrivateKey(api.PrivateKey)
	apiCert, apiKey := filepath.Join(dir, "api.pem"), filepath.Join(dir, "api.key")
	os.WriteFile(apiCert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Leaf.Raw}), 0o600)
	os.WriteFile(apiKey, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600)
	dns, acmePort, mgmt, httpsPort, httpPort := freePort(t), freePort(t), freePort(t), freePort(t), freePort(t)
	dnsSrv := exec.Command(challtest, "-dnsserver", "127.0.0.1:"+dns, "-defaultIPv4", "127.0.0.1", "-defaultIPv6", "", "-http01", "",
		"-https01", "", "-tlsalpn01", "", "-doh", "", "-management", "127.0.0.1:"+freePort(t))
	config := map[string]any{"pebble": map[string]any{"listenAddress": "127.0.0.1:" + acmePort, "managementListenAddress": "127.0.0.1:" + mgmt,
		"certificate": apiCert, "privateKey": apiKey, "httpPort": mustAtoi(httpPort), "tlsPort": mustAtoi(httpsPort),
		"externalAccountBindingRequired": false, "keyAlgorithm": "ecdsa",
		// Short-lived: renewed while the test runs.
		"profiles": map[string]any{"default": map[string]any{"description": "short-lived", "validityPeriod": 60}}}}
	b, _ := json.Marshal(config)
	os.WriteFile(filepath.Join(dir, "pebble.json"), b, 0o600)
	acmeSrv := exec.Command(pebble, "-config", filepath.Join(dir, "pebble.json"), "-dnsserver", "127.0.0.1:"+dns)
	acmeSrv.Env = append(os.Environ(), "PEBBLE_VA_NOSLEEP=1", "PEBBLE_WFE_NONCEREJECT=0")
	var pebbleLog safeBuffer
	acmeSrv.Stdout, acmeSrv.Stderr = &pebbleLog, &pebbleLog
	for _, c := range []*exec.Cmd{dnsSrv, acmeSrv} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	}
	apiRoots := x509.NewCertPool()
	apiRoots.AddCert(api.Leaf)
	pebbleClient := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: apiRoots}}}
	var pebbleRoot []byte
	for i := 0; i < 300 && pebbleRoot == nil; i++ {
		if resp, err := pebbleClient.Get("https://127.0.0.1:" + mgmt + "/roots/0"); err == nil {
			if resp.StatusCode == 200 {
				pebbleRoot, _ = io.ReadAll(resp.Body)
			}
			resp.Body.Close()
		}
		time.Sleep(20 * time.Millisecond)
	}
	if pebbleRoot == nil {
		t.Fatalf("pebble did not start: %s", pebbleLog.String())
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pebbleRoot)

	schema := schemaForTest(t)
	data := t.TempDir()
	cli(t, schema, data, "domain", "create", "acme")
	unit := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Matriz", "--cnpj", "11.222.333/0001-81", "--json"))["unit_token"].(string)
	access := jsonOut(t, cli(t, schema, data, "token", "create", "acme", "--json"))["access_token"].(string)
	out, log := serving(t, schema, data, "--https", "fincom.test", "--https-addr", "127.0.0.1:"+httpsPort, "--http-addr", "127.0.0.1:"+httpPort,
		"--acme-directory", "https://127.0.0.1:"+acmePort+"/dir", "--acme-email", "ti@acme.com.br", "--ca-file", apiCert, "--acme-renew-before", "58s")
	if !strings.Contains(out.String(), "listening on https://fincom.test:"+httpsPort+"/api/v1") {
		t.Fatalf("serve says: %s", out.String())
	}
	for i := 0; i < 1000 && !strings.Contains(log.String(), `"msg":"https certificate"`); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(log.String(), `"msg":"https certificate"`) {
		t.Fatalf("no certificate obtained:\n%s\npebble:\n%s", log.String(), pebbleLog.String())
	}
	c := tlsClient(roots, "127.0.0.1:"+httpsPort)
	base := "https://fincom.test:" + httpsPort
	resp, err := c.Post(base+"/api/v1/get_contacts", "application/json", strings.NewReader(fmt.Sprintf(`{"access_token":%q,"unit_token":%q}`, access, unit)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Strict-Transport-Security") != "max-age=31536000" {
		t.Fatalf("the API over https: %d %v", resp.StatusCode, resp.Header)
	}
	resp, err = c.Get(base + "/portal/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 400 || len(resp.Cookies()) == 0 {
		t.Fatalf("the portal over https: %d %v", resp.StatusCode, resp.Header)
	}
	for _, ck := range resp.Cookies() {
		if !ck.Secure {
			t.Errorf("cookie %s not Secure", ck.Name)
		}
	}
	// Plain HTTP: a redirect for a GET, a refusal for anything else.
	plain := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+httpPort+"/portal/?unit=x", nil)
	req.Host = "fincom.test"
	resp, err = plain.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != base+"/portal/?unit=x" {
		t.Fatalf("plain GET: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	req, _ = http.NewRequest(http.MethodPost, "http://127.0.0.1:"+httpPort+"/api/v1/get_contacts", strings.NewReader("{}"))
	req.Host = "fincom.test"
	if resp, err = plain.Do(req); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("plain POST: %v %v", resp, err)
	}
	resp.Body.Close()
	// The cache: its owner's alone.
	st, err := os.Stat(filepath.Join(data, "_acme"))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("the ACME cache: %v %v", st, err)
	}
	files, _ := os.ReadDir(filepath.Join(data, "_acme"))
	for _, f := range files {
		if info, _ := f.Info(); info.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is readable by others: %v", f.Name(), info.Mode())
		}
	}
	// Renewal: a one-minute certificate renewed 58 s before its end (within
	// 6 s of its issue, with autocert's jitter); the next handshake shows
	// the new one.
	first := servedSerial(t, roots, "127.0.0.1:"+httpsPort)
	if strings.HasPrefix(first, "error") {
		t.Fatal(first)
	}
	renewed := ""
	for i := 0; i < 1500 && renewed == ""; i++ {
		if s := servedSerial(t, roots, "127.0.0.1:"+httpsPort); s != first && !strings.HasPrefix(s, "error") {
			renewed = s
		}
		time.Sleep(20 * time.Millisecond)
	}
	if renewed == "" {
		t.Fatalf("the certificate was not renewed:\n%s", log.String())
	}
}

func mustAtoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// TestHTTPSWithoutACME: an ACME server that does not answer, or answers
// what is no ACME directory, leaves fincom serving (plain HTTP
// redirects), with a log line naming the domain, the server and the next
// try; the process stops cleanly.
func TestHTTPSWithoutACME(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	wrong := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(wrong.Close)
	for _, directory := range []string{"https://127.0.0.1:" + freePort(t) + "/dir", wrong.URL + "/directory"} {
		data := t.TempDir()
		httpsPort, httpPort := freePort(t), freePort(t)
		_, log := serving(t, schema, data, "--https", "fincom.test", "--https-addr", "127.0.0.1:"+httpsPort, "--http-addr", "127.0.0.1:"+httpPort,
			"--acme-directory", directory)
		for i := 0; i < 500 && !strings.Contains(log.String(), "no certificate for the domain yet"); i++ {
			time.Sleep(20 * time.Millisecond)
		}
		if l := log.String(); !strings.Contains(l, "no certificate for the domain yet") || !strings.Contains(l, `"domain":"fincom.test"`) ||
			!strings.Contains(l, `"retry_in":"10s"`) || !strings.Contains(l, `"acme":"`+directory+`"`) {
			t.Fatalf("%s: the log:\n%s", directory, l)
		}
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+httpPort+"/health", nil)
		req.Host = "fincom.test"
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil || resp.StatusCode != http.StatusMovedPermanently {
			t.Fatalf("%s: plain HTTP while without a certificate: %v %v", directory, resp, err)
		}
		resp.Body.Close()
	}
}

// certFor writes a certificate for fincom.test signed by ca (a new CA when
// nil) to cert and key, answering the CA and the certificate's serial.
func certFor(t *testing.T, ca *tls.Certificate, certFile, keyFile string) (*tls.Certificate, string) {
	t.Helper()
	if ca == nil {
		c, err := certs.Loopback(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		ca = &c
	}
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: "fincom.test"}, DNSNames: []string{"fincom.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Leaf, &k.PublicKey, ca.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalPKCS8PrivateKey(k)
	// Written beside and renamed, as a renewing tool does.
	os.WriteFile(certFile+".new", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile+".new", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600)
	os.Rename(keyFile+".new", keyFile)
	os.Rename(certFile+".new", certFile)
	return ca, serial.String()
}

// TestHTTPSWithOwnCertificate: `serve --tls-cert --tls-key` serves the
// firm's certificate, and the new one once the files change; files that
// do not load keep the one served, said in the log.
func TestHTTPSWithOwnCertificate(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	data, dir := t.TempDir(), t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	ca, first := certFor(t, nil, certFile, keyFile)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--https", "fincom.test", "--addr", "127.0.0.1:0"}, "--https-addr"},
		{[]string{"--tls-cert", certFile}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-cert", certFile, "--tls-key", keyFile, "--https", "fincom.test"}, "use one of them"},
		{[]string{"--https", "localhost"}, "a domain name"},
	} {
		if err := cliErr(t, schema, t.TempDir(), append([]string{"serve"}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("serve %v: %v", c.args, err)
		}
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.Leaf)
	httpsPort := freePort(t)
	out, log := serving(t, schema, data, "--tls-cert", certFile, "--tls-key", keyFile, "--https-addr", "127.0.0.1:"+httpsPort,
		"--http-addr", "127.0.0.1:"+freePort(t))
	if !strings.Contains(out.String(), "listening on https://fincom.test:"+httpsPort+"/api/v1") {
		t.Fatalf("serve says: %s", out.String())
	}
	addr := "127.0.0.1:" + httpsPort
	if s := servedSerial(t, roots, addr); s != first {
		t.Fatalf("served %s, want %s", s, first)
	}
	_, second := certFor(t, ca, certFile, keyFile)
	got := ""
	for i := 0; i < 200 && got != second; i++ {
		time.Sleep(20 * time.Millisecond)
		got = servedSerial(t, roots, addr)
	}
	if got != second {
		t.Fatalf("after the files changed: %s, want %s", got, second)
	}
	os.WriteFile(certFile, []byte("not a certificate"), 0o600)
	time.Sleep(1100 * time.Millisecond)
	if s := servedSerial(t, roots, addr); s != second || !strings.Contains(log.String(), "do not load") {
		t.Fatalf("after a broken file: %s\n%s", s, log.String())
	}
}

// pemCert is a self-signed certificate for fincom.test ending at end, as
// PEM (its key first, as autocert's cache keeps them).
func pemCert(t *testing.T, end time.Time) []byte {
	t.Helper()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "fincom.test"}, DNSNames: []string{"fincom.test"},
		NotBefore: end.Add(-90 * 24 * time.Hour), NotAfter: end}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(k)
	return append(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
}

// TestInstallAndDoctor: `fincom install` writes the unit for the flags
// given (a dedicated user, this data directory and secrets key file,
// restarted on failure, the descriptors, the right to bind 443 for
// --https; no SMTP password in it) and says how to enable it; `fincom
// doctor` says whether the unit serves the data directory it checks, and
// how long the ACME cache's and --tls-cert's certificates last.
func TestInstallAndDoctor(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	data, dir := t.TempDir(), t.TempDir()
	cli(t, schema, data, "domain", "create", "acme")
	key := filepath.Join(dir, "secrets key")
	os.WriteFile(key, make([]byte, 32), 0o600)
	unitFile := filepath.Join(dir, "fincom.service")
	out := cli(t, schema, data, "install", "--unit-file", unitFile, "--secrets-key-file", key, "--https", "fincom.test,www.fincom.test",
		"--acme-email", "ti@acme.com.br", "--smtp-url", "smtp://fin:s3cr3t@mail.acme.com.br:587", "--binary", "/usr/local/bin/fincom")
	if !strings.Contains(out, "wrote "+unitFile) || !strings.Contains(out, "systemctl daemon-reload\n  systemctl enable --now fincom") ||
		!strings.Contains(out, "FINCOM_SMTP_URL") {
		t.Fatalf("install says: %s", out)
	}
	b, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	for _, want := range []string{"User=fincom\n", "Group=fincom\n", "Restart=on-failure\n", "LimitNOFILE=65536\n", "AmbientCapabilities=CAP_NET_BIND_SERVICE\n",
		"ExecStart=/usr/local/bin/fincom --data " + data + ` --secrets-key-file "` + key + `" serve`, "--https=fincom.test,www.fincom.test",
		"--acme-email=ti@acme.com.br", "ReadWritePaths=" + data + "\n", "WantedBy=multi-user.target\n"} {
		if !strings.Contains(unit, want) {
			t.Errorf("the unit lacks %q:\n%s", want, unit)
		}
	}
	if strings.Contains(unit, "s3cr3t") || strings.Contains(unit, "smtp-url") {
		t.Errorf("the unit carries the SMTP password:\n%s", unit)
	}
	if got, flags := unitDataDir(unit); got != data || flags["secrets-key-file"] != key {
		t.Errorf("the unit read back: %q %v", got, flags)
	}
	// Plain HTTP on a high port needs no capability.
	plain := cli(t, schema, data, "install", "--dry-run", "--addr", "127.0.0.1:8080")
	if strings.Contains(plain, "AmbientCapabilities") || !strings.Contains(plain, "serve --addr=127.0.0.1:8080") {
		t.Errorf("a plain unit:\n%s", plain)
	}

	// Doctor: the unit's data directory, and the certificates.
	os.MkdirAll(filepath.Join(data, "_acme"), 0o700)
	os.WriteFile(filepath.Join(data, "_acme", "acme_account+key"), []byte("key"), 0o600)
	os.WriteFile(filepath.Join(data, "_acme", "fincom.test"), pemCert(t, testDay.AddDate(0, 0, 60)), 0o600)
	tlsCert := filepath.Join(dir, "own.pem")
	os.WriteFile(tlsCert, pemCert(t, testDay.AddDate(0, 0, 5)), 0o600)
	type finding struct{ File, Level, Message string }
	doctor := func(dataDir string, args ...string) (string, []finding) {
		var v struct {
			Status   string    `json:"status"`
			Findings []finding `json:"findings"`
		}
		json.Unmarshal([]byte(cli(t, schema, dataDir, append([]string{"doctor", "--json", "--unit-file", unitFile}, args...)...)), &v)
		return v.Status, v.Findings
	}
	status, fs := doctor(data, "--tls-cert", tlsCert)
	want := map[string]string{unitFile: "ok the service serves this data directory",
		filepath.Join(data, "_acme", "fincom.test"): "ok the certificate of fincom.test is valid until 2027-01-21 (60 days)",
		tlsCert: "warning the certificate of fincom.test ends on 2026-11-27, in 5 days, and has not been renewed"}
	for _, f := range fs {
		if w, ok := want[f.File]; ok {
			if got := f.Level + " " + f.Message; got != w {
				t.Errorf("%s: %s, want %s", f.File, got, w)
			}
			delete(want, f.File)
		}
	}
	if status != "warning" || len(want) > 0 {
		t.Errorf("doctor: %s, missing %v: %+v", status, want, fs)
	}
	other := t.TempDir()
	if _, fs := doctor(other); len(fs) == 0 || fs[len(fs)-1].Level != "warning" || !strings.Contains(fs[len(fs)-1].Message, "serves the data directory \""+data) {
		t.Errorf("doctor of another directory: %+v", fs)
	}
	os.WriteFile(tlsCert, pemCert(t, testDay.AddDate(0, 0, -1)), 0o600)
	if err := cliErr(t, schema, data, "doctor", "--unit-file", unitFile, "--tls-cert", tlsCert); err == nil {
		t.Errorf("doctor with an ended certificate passed")
	}
}
