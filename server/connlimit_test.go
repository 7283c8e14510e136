package server

import (
	"net"
	"net/http"
	"testing"
	"time"
)

func TestConnLimitsFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		nofile   uint64
		domains  int
		max, per int
	}{
		{256, 64, 128, 32},
		{1024, 64, 512, 128},
		{4096, 64, 2048, 512},
		{2048, 64, 832, 208}, // 64 domains need 1,216 descriptors: fewer than half are left
		{40, 64, 20, 8},
		{20, 64, 16, 8},
		{1 << 20, 64, 16384, 4096},
	} {
		if got := ConnLimitsFor(c.nofile, c.domains); got.Max != c.max || got.PerAddr != c.per {
			t.Errorf("ConnLimitsFor(%d, %d) = %+v, want %d, %d", c.nofile, c.domains, got, c.max, c.per)
		}
	}
}

// pipeConn is a connection from a given address.
type pipeConn struct {
	net.Conn
	addr   net.Addr
	closed bool
}

func (p *pipeConn) RemoteAddr() net.Addr { return p.addr }
func (p *pipeConn) Close() error         { p.closed = true; return nil }

// TestConnGuard: past a limit the oldest idle connection (of the same
// address for the per-address limit) makes room; busy ones are never
// shed, and with none idle the newcomer is turned away.
func TestConnGuard(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	hs := &http.Server{}
	g := GuardConns(nil, hs, ConnLimits{Max: 3, PerAddr: 2}).(*connGuard)
	g.now = func() time.Time { return now }
	conn := func(ip string) *pipeConn {
		return &pipeConn{addr: &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000}}
	}
	a1, a2, b1 := conn("10.0.0.1"), conn("10.0.0.1"), conn("10.0.0.2")
	for _, c := range []*pipeConn{a1, a2, b1} {
		if !g.admit(c) {
			t.Fatal("refused under the limits")
		}
		hs.ConnState(c, http.StateActive)
		now = now.Add(time.Second)
	}
	// A third from 10.0.0.1: both of its connections are busy.
	if a3 := conn("10.0.0.1"); g.admit(a3) {
		t.Fatal("admitted past the per-address limit with nothing idle")
	}
	hs.ConnState(a1, http.StateIdle)
	now = now.Add(time.Second)
	hs.ConnState(b1, http.StateIdle)
	// From 10.0.0.1 again: its idle a1 makes room (not b1, of another address).
	if a3 := conn("10.0.0.1"); !g.admit(a3) || !a1.closed || b1.closed {
		t.Fatalf("admitted %v, a1 closed %v, b1 closed %v", a3, a1.closed, b1.closed)
	}
	// A fourth address: the total limit; the oldest idle anywhere is b1.
	if c1 := conn("10.0.0.3"); !g.admit(c1) || !b1.closed || a2.closed {
		t.Fatalf("total limit: b1 closed %v, a2 closed %v", b1.closed, a2.closed)
	}
	if len(g.conns) != 3 || g.byAddr["10.0.0.1"] != 2 {
		t.Fatalf("tracked %d, 10.0.0.1 has %d", len(g.conns), g.byAddr["10.0.0.1"])
	}
}
