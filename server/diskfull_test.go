//go:build linux

package server

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDiskFull runs the server on a small tmpfs filled to the last few
// hundred kilobytes: inserts beyond the space answer the route's 500 text
// (never a half-written record), reads go on, every acknowledged insert
// is there, the file passes integrity_check, and once space returns,
// writes succeed again. Mounting needs root (CI runs as root and sets
// FINCOM_REQUIRE_TMPFS=1 so that the test cannot quietly skip there).
func TestDiskFull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64m"); err != nil {
		if os.Getenv("FINCOM_REQUIRE_TMPFS") != "" {
			t.Fatalf("mount tmpfs: %v", err)
		}
		t.Skipf("mount tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	now := fixedNow
	s, _ := newTestServerIn(t, dir, &now, Config{Version: "test", PublicURL: "https://fincom.test"})
	h := s.Handler()

	// Leave 1 MiB.
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	filler, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Fallocate(int(filler.Fd()), 0, 0, int64(st.Bavail)*st.Bsize-1<<20); err != nil {
		t.Fatal(err)
	}
	filler.Close()

	observation := strings.Repeat("observação longa ", 250) // 4 KB
	insert := func(i int) (int, string) {
		rec := do(h, http.MethodPost, "/insert_contact", `{`+auth+fmt.Sprintf(`,"type":"natural_person","register":%q,"fullName":"Cheio %d","observation":%q}`,
			cpf(700_000+i), i, observation))
		return rec.Code, rec.Body.String()
	}
	var acked []string
	full := false
	for i := 0; i < 2_000 && !full; i++ {
		code, body := insert(i)
		switch code {
		case http.StatusOK:
			var out struct{ Token string }
			json.Unmarshal([]byte(body), &out)
			acked = append(acked, out.Token)
		case http.StatusInternalServerError:
			if strings.TrimSpace(body) != `{"success":false,"error":"An unexpected error occurred. Please try again later."}` {
				t.Fatalf("disk full answered %s", body)
			}
			full = true
		default:
			t.Fatalf("insert %d: %d %s", i, code, body)
		}
	}
	if !full || len(acked) == 0 {
		t.Fatalf("the disk never filled (%d inserts acknowledged)", len(acked))
	}
	t.Logf("%d inserts acknowledged before the disk filled", len(acked))
	// Still full: writes keep failing cleanly, reads go on.
	for i := 0; i < 5; i++ {
		if code, body := insert(10_000 + i); code != http.StatusInternalServerError {
			t.Fatalf("insert on a full disk: %d %s", code, body)
		}
	}
	listed := func() map[string]bool {
		rec := do(h, http.MethodPost, "/get_contacts", `{`+auth+`,"search":"Cheio"}`)
		if rec.Code != http.StatusOK {
			t.Fatalf("read on a full disk: %d %s", rec.Code, rec.Body.String())
		}
		var out struct{ Data []struct{ Token string } }
		json.Unmarshal(rec.Body.Bytes(), &out)
		got := map[string]bool{}
		for _, c := range out.Data {
			got[c.Token] = true
		}
		return got
	}
	got := listed()
	for _, tok := range acked {
		if !got[tok] {
			t.Fatalf("acknowledged contact %s lost", tok)
		}
	}
	if len(got) != len(acked) {
		t.Fatalf("%d contacts listed, %d acknowledged: a failed insert was kept", len(got), len(acked))
	}
	checkIntegrity(t, filepath.Join(dir, "acme.db"))

	// Space returns: fincom writes again without a restart.
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, body := insert(20_000)
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery after space returned: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(listed()); n != len(acked)+1 {
		t.Fatalf("after recovery %d contacts, want %d", n, len(acked)+1)
	}
	checkIntegrity(t, filepath.Join(dir, "acme.db"))
}

// checkIntegrity runs PRAGMA integrity_check on a domain file beside the
// server's own connections.
func checkIntegrity(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=query_only(ON)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q %v", res, err)
	}
}
