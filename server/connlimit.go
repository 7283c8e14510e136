package server

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// ConnLimits bound the connections a server holds, so that idle or slow
// clients can never take the descriptors the domain files need (accept
// failing with "too many open files" stopped every domain).
type ConnLimits struct {
	Max     int // connections in all
	PerAddr int // connections from one client address
}

// fdsPerDomain is what an open domain holds: the file, its WAL and its
// shared memory for the writer, the checkpointer and up to four readers
// (measured: 13 to 18).
const fdsPerDomain = 18

// ConnLimitsFor derives the limits from the descriptors the process may
// hold (nofile) and the domains it keeps open: half the descriptors, or
// fewer when the open domains' and a reserve of 64 need more of them;
// never fewer than 16 connections; one address at most a quarter.
func ConnLimitsFor(nofile uint64, maxOpenDomains int) ConnLimits {
	files := uint64(64 + fdsPerDomain*max(maxOpenDomains, 1))
	avail := nofile / 2
	if nofile > files && nofile-files < avail {
		avail = nofile - files
	}
	n := int(min(avail, 16384))
	n = max(n, 16)
	return ConnLimits{Max: n, PerAddr: max(n/4, 8)}
}

// connGuard is a listener that holds the connections within their limits.
// When a new connection would pass one, the oldest idle connection (of
// that address, for the per-address limit) is closed to make room: an
// idle keep-alive connection, or one that has sent no request for a
// second. With none idle the new connection is closed at once. So a flood
// of idle connections cannot keep /health or any domain from answering
// (TestIdleConnectionsUnderLowLimit).
type connGuard struct {
	net.Listener
	limits ConnLimits
	now    func() time.Time

	mu     sync.Mutex
	conns  map[net.Conn]*trackedConn
	byAddr map[string]int
}

type trackedConn struct {
	addr  string
	state http.ConnState
	since time.Time // of the current state
}

// GuardConns wraps ln and sets hs.ConnState to track its connections.
func GuardConns(ln net.Listener, hs *http.Server, limits ConnLimits) net.Listener {
	g := &connGuard{Listener: ln, limits: limits, now: time.Now, conns: map[net.Conn]*trackedConn{}, byAddr: map[string]int{}}
	prev := hs.ConnState
	hs.ConnState = func(c net.Conn, st http.ConnState) {
		g.track(c, st)
		if prev != nil {
			prev(c, st)
		}
	}
	return g
}

func (g *connGuard) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if g.admit(c) {
			return c, nil
		}
		c.Close()
	}
}

// admit registers c, shedding an idle connection when a limit is reached;
// false when there is no room.
func (g *connGuard) admit(c net.Conn) bool {
	addr := clientAddr(c.RemoteAddr())
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.byAddr[addr] >= g.limits.PerAddr && !g.shed(addr) {
		return false
	}
	if len(g.conns) >= g.limits.Max && !g.shed("") {
		return false
	}
	g.conns[c] = &trackedConn{addr: addr, state: http.StateNew, since: g.now()}
	g.byAddr[addr]++
	return true
}

// shed closes the oldest idle connection (of addr, when given). It is
// forgotten here at once; net/http's StateClosed for it finds nothing.
func (g *connGuard) shed(addr string) bool {
	var victim net.Conn
	var oldest time.Time
	now := g.now()
	for c, t := range g.conns {
		if addr != "" && t.addr != addr {
			continue
		}
		idle := t.state == http.StateIdle || t.state == http.StateNew && now.Sub(t.since) >= time.Second
		if idle && (victim == nil || t.since.Before(oldest)) {
			victim, oldest = c, t.since
		}
	}
	if victim == nil {
		return false
	}
	g.forget(victim)
	victim.Close()
	return true
}

func (g *connGuard) forget(c net.Conn) {
	if t, ok := g.conns[c]; ok {
		delete(g.conns, c)
		if g.byAddr[t.addr]--; g.byAddr[t.addr] <= 0 {
			delete(g.byAddr, t.addr)
		}
	}
}

func (g *connGuard) track(c net.Conn, st http.ConnState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch st {
	case http.StateClosed, http.StateHijacked:
		g.forget(c)
	default:
		if t, ok := g.conns[c]; ok && t.state != st {
			t.state, t.since = st, g.now()
		}
	}
}

// clientAddr is the address a connection counts against: its IP (the
// port differs per connection).
func clientAddr(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}
