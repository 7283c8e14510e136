package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"fincom/server/needs"
	"fincom/store"
)

// TestMain lets the test binary be fincom itself: the crash test starts it
// as a child process (FINCOM_TEST_EXEC=1) and kills it with SIGKILL.
func TestMain(m *testing.M) {
	if os.Getenv("FINCOM_TEST_EXEC") == "1" {
		if n, err := strconv.ParseUint(os.Getenv("FINCOM_TEST_NOFILE"), 10, 64); err == nil {
			// A machine whose descriptor limit is n, hard and soft.
			if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		b, err := os.ReadFile("../schema.sql")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(Execute(string(b)))
	}
	// The S3 servers' credentials (s3Server), which the SDK reads from
	// the environment: set once for the whole process, as the tests run
	// in parallel.
	os.Setenv("AWS_ACCESS_KEY_ID", s3Access)
	os.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
	// Most of these tests wait: on child servers, on SEFAZ's retry, on a
	// replica's lag.
	needs.Parallel(4)
	os.Exit(needs.Run(m))
}

// The credentials of the tests' S3 servers.
const s3Access, s3Secret = "fincom-test", "fincom-test-secret"

// startChild serves data in a child process and answers its base URL.
func startChild(t *testing.T, data string, env ...string) (*exec.Cmd, string) {
	t.Helper()
	return startChildWith(t, data, nil, env...)
}

// startChildWith is startChild with more flags for serve.
func startChildWith(t *testing.T, data string, flags []string, env ...string) (*exec.Cmd, string) {
	t.Helper()
	c := exec.Command(os.Args[0], append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data}, flags...)...)
	c.Env = append(append(os.Environ(), "FINCOM_TEST_EXEC=1"), env...)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`listening on (http://\S+)`)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go func() {
				for sc.Scan() {
				}
			}()
			return c, m[1]
		}
	}
	c.Process.Kill()
	c.Wait()
	t.Fatal("the child server did not start")
	return nil, ""
}

// TestCrashLosesNothingAcknowledged: writers insert incomes over HTTP while
// the server is killed with SIGKILL at random moments, 100 times under
// FINCOM_LONG (10 by default; -short skips it). After every restart each income answered 200 is there with its
// exact amount, every income present is whole, and at the end the file
// passes PRAGMA integrity_check.
func TestCrashLosesNothingAcknowledged(t *testing.T) {
	t.Parallel()
	cycles := 10
	if needs.Soak(t) {
		cycles = 100
	}
	schema := schemaForTest(t)
	data := t.TempDir()
	access := jsonOut(t, cli(t, schema, data, "domain", "create", "acme", "--json"))["access_token"].(string)
	unit := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Loja", "--json"))["unit_token"].(string)
	tokens := fmt.Sprintf(`"access_token":%q,"unit_token":%q`, access, unit)
	client := &http.Client{Timeout: 5 * time.Second}
	post := func(base, path, body string) (int, map[string]any, error) {
		resp, err := client.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			return resp.StatusCode, nil, err
		}
		return resp.StatusCode, m, nil
	}
	acked := map[string]string{} // token -> value
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(1, 2))
	// The last round only checks what the last kill left.
	for cycle := 0; cycle <= cycles; cycle++ {
		child, base := startChild(t, data)
		// Everything acknowledged so far is there, whole.
		code, m, err := post(base, "/transactions", `{`+tokens+`,"from_date":"2026-11-01","to_date":"2026-11-30"}`)
		if err != nil || code != 200 {
			child.Process.Kill()
			child.Wait()
			t.Fatalf("cycle %d: transactions: %d %v %v", cycle, code, m, err)
		}
		present := map[string]string{}
		for _, r := range m["data"].([]any) {
			e := r.(map[string]any)
			if e["description"] == "" || e["value"] == nil || e["due_date"] != "2026-11-20" {
				t.Fatalf("cycle %d: a partial income: %v", cycle, e)
			}
			present[e["id"].(string)] = e["value"].(string)
		}
		for tok, v := range acked {
			if present[tok] != v {
				t.Fatalf("cycle %d: acknowledged income %s (%s) lost or changed: %q", cycle, tok, v, present[tok])
			}
		}
		if cycle == cycles {
			child.Process.Kill()
			child.Wait()
			break
		}
		// Writers until the kill.
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					v := decimal.New(int64(cycle*10000+w*1000+i+1), -2).StringFixed(2)
					code, m, err := post(base, "/insert_income", fmt.Sprintf(`{%s,"description":"Venda %d-%d-%d","value":"%s","due_date":"2026-11-20"}`, tokens, cycle, w, i, v))
					if err != nil {
						return // the server is gone
					}
					if code == 200 {
						mu.Lock()
						acked[m["token"].(string)] = v
						mu.Unlock()
					} else if code >= 500 {
						t.Errorf("cycle %d: %d %v", cycle, code, m)
						return
					}
				}
			}(w)
		}
		time.Sleep(time.Duration(20+rng.IntN(120)) * time.Millisecond)
		child.Process.Kill()
		child.Wait()
		close(stop)
		wg.Wait()
	}
	if len(acked) < cycles {
		t.Fatalf("only %d writes acknowledged in %d cycles", len(acked), cycles)
	}
	if err := store.CheckFile(context.Background(), filepath.Join(data, "acme.db")); err != nil {
		t.Fatalf("integrity after %d crashes: %v", cycles, err)
	}
	t.Logf("%d cycles, %d acknowledged writes, none lost", cycles, len(acked))
}
