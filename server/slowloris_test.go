package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"fincom/server/web"
)

// TestSlowClientsAreCut holds slow clients (slowloris) to the server's
// timeouts, shortened here from DefaultTimeouts so the test takes seconds:
// a client trickling its headers, or its body, loses the connection once
// its time is up, and while twenty such clients hang on, others are served
// at once.
func TestSlowClientsAreCut(t *testing.T) {
	// Runs alone (not parallel): it times a normal client beside slow ones: other tests would blur it.
	if d := DefaultTimeouts(); d.ReadHeader != 10*time.Second || d.Read != 60*time.Second {
		t.Fatalf("defaults changed (README and issue 10 say 10 s and 60 s): %+v", d)
	}
	s, _ := newTestServer(t)
	to := Timeouts{ReadHeader: 300 * time.Millisecond, Read: time.Second, Write: 2 * time.Second, Idle: time.Second}
	hs := NewHTTPServer(s.Handler(), to, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	addr := ln.Addr().String()

	// trickle opens a connection, writes head at once and then one byte
	// of tail every 50 ms until the server hangs up; it reports how long
	// the connection lived.
	trickle := func(head, tail string) <-chan time.Duration {
		done := make(chan time.Duration, 1)
		go func() {
			start := time.Now()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				done <- 0
				return
			}
			defer c.Close()
			go io.Copy(io.Discard, c)
			if _, err := io.WriteString(c, head); err != nil {
				t.Error(err)
			}
			for i := 0; ; i++ {
				time.Sleep(50 * time.Millisecond)
				if _, err := c.Write([]byte{tail[i%len(tail)]}); err != nil || time.Since(start) > 10*time.Second {
					break
				}
			}
			done <- time.Since(start)
		}()
		return done
	}
	body := expand(`{` + auth + `,"type":"natural_person","register":"52998224725","fullName":"Lento"}`)
	var slow []<-chan time.Duration
	for i := 0; i < 10; i++ {
		slow = append(slow, trickle("POST "+web.Prefix+"/insert_contact HTTP/1.1\r\nHost: fincom\r\n", "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n"))
		slow = append(slow, trickle("POST "+web.Prefix+"/insert_contact HTTP/1.1\r\nHost: fincom\r\nContent-Type: application/json\r\nContent-Length: "+
			strconv.Itoa(len(body)+100)+"\r\n\r\n"+body[:10], body[10:]))
	}
	time.Sleep(100 * time.Millisecond)
	// Others are served while the slow ones hang on.
	for i := 0; i < 5; i++ {
		start := time.Now()
		resp, err := http.Post("http://"+addr+web.Prefix+"/get_contacts", "application/json", strings.NewReader(expand(`{`+auth+`}`)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || time.Since(start) > time.Second {
			t.Fatalf("a normal client waited %s for %d", time.Since(start), resp.StatusCode)
		}
	}
	for i, c := range slow {
		lived := <-c
		// Headers: cut after ReadHeader; bodies: after Read. A second of
		// slack covers a loaded machine.
		limit := to.ReadHeader + time.Second
		if i%2 == 1 {
			limit = to.Read + time.Second
		}
		if lived > limit {
			t.Errorf("slow client %d held its connection %s (limit %s)", i, lived, limit)
		}
	}
	// The trickled inserts never completed: nothing was written.
	resp, err := http.Post("http://"+addr+web.Prefix+"/get_contacts", "application/json", strings.NewReader(expand(`{`+auth+`,"search":"Lento"}`)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if !strings.Contains(line, `"data":[]`) {
		t.Fatalf("a trickled insert was written: %s", line)
	}
}
