// Package webhook posts fincom's events to the endpoints units register:
// the signature, the address policy that keeps deliveries off the
// server's own network, and the client that enforces it when connecting.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Sign is the webhook signature header's value: t=<unix seconds>,
// v1=<hex HMAC-SHA256 of "<t>.<body>" with the webhook's secret>. A
// receiver recomputes it and refuses old timestamps (replays).
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// Errors of CheckURL and of a delivery refused when connecting.
var (
	ErrBadURL    = errors.New("webhook url must be an http or https address")
	ErrNotPublic = errors.New("webhook address is not public")
)

// nonPublic are the networks a webhook may not reach unless the operator
// allows it (serve --webhook-allow-private, implied by --test-mode): the
// server's own machine and network, and addresses no endpoint has.
var nonPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, p := range []string{
		"0.0.0.0/8",      // "this network", 0.0.0.0 included
		"10.0.0.0/8",     // private
		"100.64.0.0/10",  // carrier-grade NAT
		"127.0.0.0/8",    // loopback
		"169.254.0.0/16", // link-local, cloud metadata services
		"172.16.0.0/12",  // private
		"192.0.0.0/24",   // protocol assignments
		"192.168.0.0/16", // private
		"198.18.0.0/15",  // benchmarking
		"224.0.0.0/4",    // multicast
		"240.0.0.0/4",    // reserved, broadcast included
		"::/96",          // unspecified, loopback, IPv4-compatible (::a.b.c.d, deprecated)
		"100::/64",       // discard
		"2001::/32",      // Teredo: a tunnel to an IPv4 address it hides
		"2001:db8::/32",  // documentation
		"2002::/16",      // 6to4: a tunnel to the IPv4 address it carries
		"64:ff9b:1::/48", // local-use NAT64
		"fc00::/7",       // unique local
		"fe80::/10",      // link-local
		"fec0::/10",      // site-local (deprecated)
		"ff00::/8",       // multicast
	} {
		out = append(out, netip.MustParsePrefix(p))
	}
	return out
}()

// Public reports whether a webhook may post to addr: not loopback,
// private, link-local, unspecified, multicast or reserved, IPv4 written
// as IPv6 and NAT64 addresses judged by the IPv4 address they carry. An
// address with a zone (fe80::1%eth0, ::1%lo) names an interface of this
// machine, never a public endpoint: it is refused whatever it is, since
// netip.Prefix.Contains is false for zoned addresses and would let
// ::1%lo pass every prefix below (TestPublic, TestDialRefusesNonPublic).
func Public(addr netip.Addr) bool {
	if addr.Zone() != "" {
		return false
	}
	addr = addr.Unmap()
	if addr.Is6() && netip.MustParsePrefix("64:ff9b::/96").Contains(addr) {
		b := addr.As16()
		addr = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	if !addr.IsValid() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

// CheckURL checks a webhook's address at registration: http or https with
// a host, at most 2,000 characters, and unless allowPrivate a host that is
// not a non-public address or a name of this machine. A name is checked
// again, against each address it resolves to, whenever a delivery
// connects (NewClient): a name may resolve elsewhere later.
func CheckURL(raw string, allowPrivate bool) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" || len(raw) > 2000 || u.User != nil {
		return ErrBadURL
	}
	if allowPrivate {
		return nil
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if localNames[host] || strings.HasSuffix(host, ".localhost") {
		return ErrNotPublic
	}
	if hosts, err := os.ReadFile(hostsFile); err == nil && inHosts(host, hosts) {
		return ErrNotPublic
	}
	if a, err := netip.ParseAddr(host); err == nil && !Public(a) {
		return ErrNotPublic
	}
	if v4, ok := legacyIPv4(host); ok && !Public(v4) {
		return ErrNotPublic
	}
	return nil
}

// localNames are the names of this machine the hosts files of Linux
// distributions hold (Debian's ip6-localhost, Red Hat's localhost6), which
// a name server is never asked about.
var localNames = map[string]bool{"localhost": true, "localhost.localdomain": true, "localhost6": true, "localhost6.localdomain6": true,
	"ip6-localhost": true, "ip6-loopback": true, "ip6-localnet": true, "ip6-mcastprefix": true, "ip6-allnodes": true, "ip6-allrouters": true}

// hostsFile is the machine's own names, which the resolver reads before
// any name server.
const hostsFile = "/etc/hosts"

// inHosts reports whether the hosts file hosts gives host a non-public
// address (the machine's own name, a name an operator pinned to the
// private network).
func inHosts(host string, hosts []byte) bool {
	for line := range strings.SplitSeq(string(hosts), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		addr, err := netip.ParseAddr(fields[0])
		if err != nil || Public(addr) {
			continue
		}
		for _, name := range fields[1:] {
			if strings.TrimSuffix(strings.ToLower(name), ".") == host {
				return true
			}
		}
	}
	return false
}

// legacyIPv4 reads the forms of an IPv4 address that browsers and some
// resolvers still accept (2130706433, 0x7f000001, 127.1): a host written
// so is judged by the address it stands for.
func legacyIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var vals []uint64
	for _, p := range parts {
		v, err := strconv.ParseUint(p, 0, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals = append(vals, v)
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*i)
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// NewClient returns the client deliveries post with: no proxy from the
// environment, no redirects followed, timeout per delivery, TLS 1.2 or
// newer trusting roots (nil: the system's; serve passes certs.TrustPool),
// and unless allowPrivate a dialer that refuses to connect to any address
// that is not public, after name resolution (so a name that resolves to
// the server's network, at registration or later, is refused too).
func NewClient(timeout time.Duration, allowPrivate bool, roots *x509.CertPool) *http.Client {
	d := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !Public(ap.Addr()) {
				return ErrNotPublic
			}
			return nil
		}
	}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{DialContext: d.DialContext, TLSHandshakeTimeout: timeout, MaxIdleConnsPerHost: 2,
			IdleConnTimeout: 30 * time.Second, ResponseHeaderTimeout: timeout,
			TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Delivery is one event to post.
type Delivery struct {
	URL, Secret, EventID, EventType string
	Payload                         []byte
}

// Post posts a delivery once and answers the endpoint's status (0 when
// none came) and, on failure, an error whose text (Reason) is what the
// delivery log keeps.
func Post(ctx context.Context, c *http.Client, d Delivery, now time.Time) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Payload))
	if err != nil {
		return 0, ErrBadURL
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "fincom-webhooks")
	req.Header.Set("X-Fincom-Event", d.EventType)
	req.Header.Set("X-Fincom-Delivery", d.EventID)
	req.Header.Set("X-Fincom-Signature", Sign(d.Secret, now, d.Payload))
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("endpoint answered %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// Reason is what the delivery log says of a failed post: a kind, never
// the connection's own error, which would tell an outsider what answers
// at an address (a port scan through the log).
func Reason(status int, err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, ErrNotPublic):
		return "refused: the endpoint's address is not public"
	case errors.Is(err, ErrBadURL):
		return "refused: not an http or https address"
	case status != 0:
		return fmt.Sprintf("the endpoint answered %d", status)
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return "the endpoint did not answer in time"
	}
	return "could not connect to the endpoint"
}
