package webhook

import (
	"context"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fincom/server/certs"
)

func TestPublic(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "203.0.113.10": true, "2001:4860:4860::8888": true,
		"127.0.0.1": false, "127.8.9.10": false, "10.1.2.3": false, "172.31.255.255": false, "192.168.0.10": false,
		"169.254.169.254": false, "0.0.0.0": false, "100.64.1.1": false, "224.0.0.251": false, "255.255.255.255": false,
		"::1": false, "::": false, "fd00::1": false, "fe80::1": false, "ff02::1": false, "::ffff:10.0.0.1": false,
		"64:ff9b::a00:1": false, "64:ff9b::808:808": true, "64:ff9b::7f00:1": false,
		"::1%lo": false, "fe80::1%eth0": false, "fd00:ec2::254%eth0": false, "2001:4860:4860::8888%eth0": false,
		"::ffff:127.0.0.1": false, "::ffff:169.254.169.254": false, "::ffff:8.8.8.8": true,
		"::127.0.0.1": false, "::8.8.8.8": false, "2002:7f00:1::1": false, "2002:808:808::1": false, "2001:db8::1": false,
		"100::1": false, "2001:0:4136:e378::1": false, "64:ff9b:1::a00:1": false, "fec0::1": false,
	} {
		if got := Public(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Public(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for raw, want := range map[string]error{
		"https://hooks.example.com/x": nil, "http://203.0.113.10/": nil, "ftp://x.example/": ErrBadURL, "https:///x": ErrBadURL,
		"http://127.0.0.1/": ErrNotPublic, "http://LOCALHOST./": ErrNotPublic, "http://017700000001/": ErrNotPublic,
		"http://127.1/": ErrNotPublic, "http://[::]/": ErrNotPublic, "http://10.0.0.1:8080/x": ErrNotPublic,
		"http://[::1%25lo]:8080/x": ErrNotPublic, "http://[fe80::1%25eth0]/": ErrNotPublic,
		"http://[fd00:ec2::254%25eth0]/": ErrNotPublic, "http://[::ffff:127.0.0.1]/": ErrNotPublic,
		"http://[64:ff9b::a9fe:a9fe]/": ErrNotPublic, "http://2130706433/": ErrNotPublic, "http://0x7f.1/": ErrNotPublic,
		"http://0251.0376.0251.0376/": ErrNotPublic, "http://[::ffff:a9fe:a9fe]/": ErrNotPublic,
		"http://[::127.0.0.1]/": ErrNotPublic, "http://[2002:7f00:1::1]/": ErrNotPublic, "http://[2001:db8::1]/": ErrNotPublic,
		"http://[100::1]/": ErrNotPublic, "http://ip6-localhost/": ErrNotPublic, "http://IP6-LOOPBACK./x": ErrNotPublic,
		"http://localhost6/": ErrNotPublic,
	} {
		if got := CheckURL(raw, false); !errors.Is(got, want) {
			t.Errorf("CheckURL(%s) = %v, want %v", raw, got, want)
		}
	}
	if err := CheckURL("http://127.0.0.1/", true); err != nil {
		t.Errorf("allowed private: %v", err)
	}
}

// TestDialRefusesNonPublic: a name that resolves to the server's own
// machine is refused when connecting, before anything is sent: the
// endpoint listening there sees no connection, and the delivery log's
// reason names no address or port.
func TestDialRefusesNonPublic(t *testing.T) {
	var hits atomic.Int32
	ep := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer ep.Close()
	port := ep.URL[strings.LastIndex(ep.URL, ":"):]
	c := NewClient(2*time.Second, false, nil)
	status, err := Post(context.Background(), c, Delivery{URL: "http://localhost" + port + "/hook", Secret: "s", EventID: "evt_1",
		EventType: "charge.paid", Payload: []byte(`{}`)}, time.Now())
	if !errors.Is(err, ErrNotPublic) || status != 0 {
		t.Fatalf("post to localhost: %d %v", status, err)
	}
	if got := Reason(status, err); got != "refused: the endpoint's address is not public" {
		t.Fatalf("reason %q", got)
	}
	// The same endpoint through every form an address of this machine
	// takes at connect time: zoned IPv6 loopback, IPv4 written as IPv6.
	for _, host := range []string{"[::1%25lo]", "[::ffff:127.0.0.1]", "127.0.0.1"} {
		status, err := Post(context.Background(), c, Delivery{URL: "http://" + host + port + "/hook", Payload: []byte(`{}`)}, time.Now())
		if !errors.Is(err, ErrNotPublic) || status != 0 {
			t.Fatalf("post to %s: %d %v", host, status, err)
		}
	}
	if hits.Load() != 0 {
		t.Fatal("the refused endpoint was reached")
	}
	// Allowed, the same endpoint is reached (and its status reported).
	if status, err := Post(context.Background(), NewClient(2*time.Second, true, nil), Delivery{URL: ep.URL, Payload: []byte(`{}`)}, time.Now()); err != nil || status != 200 || hits.Load() != 1 {
		t.Fatalf("allowed: %d %v, hits %d", status, err, hits.Load())
	}
}

func TestReasonNamesNoAddress(t *testing.T) {
	c := NewClient(time.Second, true, nil)
	// A port nothing listens on, on loopback: connection refused.
	_, err := Post(context.Background(), c, Delivery{URL: "http://127.0.0.1:1/x", Payload: []byte(`{}`)}, time.Now())
	if got := Reason(0, err); got != "could not connect to the endpoint" || err == nil {
		t.Fatalf("reason %q for %v", got, err)
	}
	if got := Reason(503, errors.New("endpoint answered 503")); got != "the endpoint answered 503" {
		t.Fatalf("reason %q", got)
	}
}

// FuzzCheckURL: whatever the address, an accepted webhook URL whose host
// is an address (in any form a resolver reads) names a public one.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1/", "http://[::ffff:7f00:1]/", "http://0x7f.0.0.1/", "http://2130706433/", "https://hooks.example.com/x", "http://[fe80::1%25eth0]/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if CheckURL(raw, false) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("accepted an unparsable url %q", raw)
		}
		host := strings.TrimSuffix(u.Hostname(), ".")
		if a, err := netip.ParseAddr(host); err == nil && !Public(a) {
			t.Fatalf("accepted %q: %s is not public", raw, a)
		}
		if ip := net.ParseIP(host); ip != nil {
			if a, ok := netip.AddrFromSlice(ip); ok && !Public(a) {
				t.Fatalf("accepted %q: %s is not public", raw, a)
			}
		}
		if a, ok := legacyIPv4(strings.ToLower(host)); ok && !Public(a) {
			t.Fatalf("accepted %q: %s is not public", raw, a)
		}
	})
}

// TestDeliveryTrustsCAFile: a delivery to an endpoint whose certificate
// chains to no trusted root fails; with that root in serve's --ca-file
// (certs.TrustPool) it is posted, over TLS 1.2 or newer.
func TestDeliveryTrustsCAFile(t *testing.T) {
	var hits atomic.Int32
	ep := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer ep.Close()
	d := Delivery{URL: ep.URL + "/hook", Secret: "s", EventID: "evt_1", EventType: "charge.paid", Payload: []byte(`{}`)}
	pool, err := certs.TrustPool("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Post(context.Background(), NewClient(2*time.Second, true, pool), d, time.Now()); err == nil || hits.Load() != 0 {
		t.Fatalf("an unknown authority was trusted: %v, hits %d", err, hits.Load())
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ep.Certificate().Raw}), 0o600)
	if pool, err = certs.TrustPool(ca); err != nil {
		t.Fatal(err)
	}
	if status, err := Post(context.Background(), NewClient(2*time.Second, true, pool), d, time.Now()); err != nil || status != 200 || hits.Load() != 1 {
		t.Fatalf("with --ca-file: %d %v, hits %d", status, err, hits.Load())
	}
}

// TestInHosts: a name the machine's hosts file gives a non-public address
// is this machine's (or its network's), refused at registration.
func TestInHosts(t *testing.T) {
	hosts := []byte("127.0.0.1 localhost\n::1 ip6-localhost ip6-loopback # comment\n10.0.0.5 erp.interno Erp.Filial\n203.0.113.7 parceiro.example\n# 127.0.0.1 comentado\n")
	for host, want := range map[string]bool{"ip6-localhost": true, "erp.interno": true, "erp.filial": true, "parceiro.example": false,
		"comentado": false, "hooks.example.com": false} {
		if got := inHosts(host, hosts); got != want {
			t.Errorf("inHosts(%s) = %v, want %v", host, got, want)
		}
	}
}
