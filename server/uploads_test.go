package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fincom/server/web"
)

// bigUpload is a multipart body: the metadata part and one `files` part of
// size bytes.
func bigUpload(meta string, size int) (string, []byte) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("metadata", expand(meta))
	fw, _ := mw.CreateFormFile("files", "grande.pdf")
	fw.Write([]byte("%PDF-1.4\n"))
	fw.Write(make([]byte, size))
	mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

// spills lists the temporary files net/http's form parsing leaves.
func spills(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "multipart-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestUploadsLeaveNoFiles: no multipart body, with or without tokens,
// answered, refused, or cut off by its client, leaves a file behind in
// the temporary directory.
func TestUploadsLeaveNoFiles(t *testing.T) {
	// Runs alone (not parallel): it sets TMPDIR for the process and looks for files spilled there.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s, _ := newTestServer(t)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	send := func(meta string, size int) int {
		ct, b := bigUpload(meta, size)
		resp, err := http.Post(srv.URL+web.Prefix+"/insert_expense", ct, bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	expense := `{` + auth + `,"description":"Anexo","value":10,"due_date":"2026-12-01"}`
	for _, c := range []struct {
		name, meta string
		size, want int
	}{
		{"anonymous, 24 MiB", `{}`, 24 << 20, 400},
		{"revoked token, 20 MiB", `{"access_token":"{{revoked}}","unit_token":"{{unitA}}","description":"x","value":1,"due_date":"2026-12-01"}`, 20 << 20, 403},
		{"a file over 10 MiB", expense, 12 << 20, 413},
		{"a body over --max-upload", expense, 30 << 20, 413},
		{"accepted, 9 MiB", expense, 9 << 20, 200},
	} {
		if got := send(c.meta, c.size); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	// A client that leaves in the middle of a 20 MiB body.
	ct, b := bigUpload(expense, 20<<20)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST %s/insert_expense HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", web.Prefix, ct, len(b))
	conn.Write(b[:12<<20])
	conn.Close()
	srv.Close() // waits for the handler of the cut request
	if left := spills(t, tmp); len(left) > 0 {
		t.Fatalf("left in the temporary directory: %v", left)
	}
}

// TestConcurrentUploadsStayInBudget: sixteen clients sending 20 MiB each
// at once hold no more than the upload budget (here 48 MiB) of bodies in
// memory; each is answered.
func TestConcurrentUploadsStayInBudget(t *testing.T) {
	// Runs alone (not parallel): it measures the process's heap (and sets its GC percent).
	defer debug.SetGCPercent(debug.SetGCPercent(20)) // garbage would blur the measure
	now := fixedNow
	const budget = 48 << 20
	s, _ := newTestServerAt(t, &now, Config{Version: "test", UploadMemory: budget})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	ct, b := bigUpload(`{}`, 20<<20) // no tokens: read whole, then refused
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	ctx, stop := context.WithCancel(context.Background())
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for ctx.Err() == nil {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	codes := make([]int, 16)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(srv.URL+web.Prefix+"/insert_expense", ct, bytes.NewReader(b))
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	stop()
	<-sampled
	for i, c := range codes {
		if c != http.StatusBadRequest {
			t.Errorf("upload %d: %d", i, c)
		}
	}
	grew := int64(peak.Load()) - int64(base.HeapInuse)
	t.Logf("heap in use grew by %d MiB at the peak (budget %d MiB)", grew>>20, budget>>20)
	if grew > budget+32<<20 {
		t.Fatalf("heap in use grew by %d MiB for a budget of %d MiB", grew>>20, budget>>20)
	}
}

// TestPortalUploadsLeaveNoFiles: the portal's uploads (a statement, a
// return file, notes) are read in memory as the API's are: none, sent with
// its form's token or without, over the limit, or to a sign-in form that
// takes no file, leaves a file in the temporary directory.
func TestPortalUploadsLeaveNoFiles(t *testing.T) {
	// Runs alone (not parallel): it sets TMPDIR for the process and looks for files spilled there.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s, ds := newTestServer(t)
	b := signedIn(t, s, ds)
	session := csrf(t, b.do("GET", "/portal/import", nil).Body.String())
	unit := "?unit=" + fx.tokens["unitA"]
	big := func(n int) namedFile { return namedFile{"extrato.ofx", bytes.Repeat([]byte("OFXHEADER:100\n"), n/14)} }
	for _, c := range []struct {
		name, path string
		fields     map[string]string
		file       namedFile
		want       int
	}{
		{"a 6 MiB statement", "/portal/import/statement" + unit, map[string]string{"csrf": session, "account": fx.tokens["account1"]}, big(6 << 20), 400},
		{"6 MiB of notes", "/portal/import/nfe" + unit, map[string]string{"csrf": session}, big(6 << 20), 200},
		{"6 MiB without the form's token", "/portal/import/return" + unit, map[string]string{}, big(6 << 20), 403},
		{"a body over the limit", "/portal/import/statement" + unit, map[string]string{"csrf": session}, big(9 << 20), 413},
		{"6 MiB to the sign-in", "/portal/login", map[string]string{}, big(6 << 20), 403},
	} {
		if rec := b.uploadMany(c.path, c.fields, c.file); rec.Code != c.want {
			t.Errorf("%s: %d, want %d\n%.300s", c.name, rec.Code, c.want, rec.Body)
		}
	}
	if left := spills(t, tmp); len(left) > 0 {
		t.Fatalf("left in the temporary directory: %v", left)
	}
}
