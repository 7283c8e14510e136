package cmd

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestIdleConnectionsUnderLowLimit: on a machine allowing the server 256
// descriptors, 300 idle keep-alive connections from one client (and 50
// that never send a request) do not stop it: /health and a domain's route
// answer within a second or two, the oldest idle connections being shed.
func TestIdleConnectionsUnderLowLimit(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	data := t.TempDir()
	access := jsonOut(t, cli(t, schema, data, "domain", "create", "acme", "--json"))["access_token"].(string)
	unit := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Matriz", "--json"))["unit_token"].(string)
	c, base := startChild(t, data, "FINCOM_TEST_NOFILE=256")
	defer func() {
		c.Process.Kill()
		c.Wait()
	}()
	addr := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/api/v1")
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range 350 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		if i >= 300 {
			continue // these send nothing
		}
		// Each is answered at once, then stays open, idle: the server sheds
		// the oldest idle ones to admit the next.
		c.SetDeadline(time.Now().Add(2 * time.Second))
		fmt.Fprintf(c, "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("request on connection %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	time.Sleep(1100 * time.Millisecond) // the silent ones count as idle after a second
	client := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	start := time.Now()
	resp, err := client.Get(base + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health under 350 idle connections: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = client.Post(base+"/get_contacts", "application/json", strings.NewReader(`{"access_token":"`+access+`","unit_token":"`+unit+`"}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a domain under 350 idle connections: %v %v", resp, err)
	}
	resp.Body.Close()
	t.Logf("answered in %v", time.Since(start).Round(time.Millisecond))
}
