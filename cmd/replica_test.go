package cmd

import (
	"bytes"
	"context"
	"crypto/x509"
	"database/sql"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superfly/ltx"

	"fincom/server/certs"
	"fincom/server/needs"
	"fincom/store"
	"fincom/store/replica"
)

// s3Server starts an S3-compatible server (versitygw, POSIX backend) on a
// loopback port with the bucket "fincom", and answers its endpoint and the
// directory it keeps objects in, and with TLS the file of the CA its
// certificate is trusted by (to give as --ca-file). Its credentials are
// the ones TestMain puts in the environment (the SDK reads them there,
// and the tests run in parallel: the environment is the process's, set
// once). Its binary is $FINCOM_VERSITYGW, else
// versitygw on the PATH or in GOPATH/bin (.ci/run builds it from its Go
// module); without one the test is skipped, except on CI.
func s3Server(t testing.TB, withTLS bool) (endpoint, root, ca string, stop func()) {
	t.Helper()
	bin := os.Getenv("FINCOM_VERSITYGW")
	if bin == "" {
		if p, err := exec.LookPath("versitygw"); err == nil {
			bin = p
		} else if gopath, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			if p := filepath.Join(strings.TrimSpace(string(gopath)), "bin", "versitygw"); fileExistsAt(p) {
				bin = p
			}
		}
	}
	if bin == "" {
		needs.Missing(t, "versitygw (an S3 server) is not installed", needs.VersitygwInstall)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	root = t.TempDir()
	os.Mkdir(filepath.Join(root, "fincom"), 0o755)
	args := []string{"--access", s3Access, "--secret", s3Secret, "--port", addr}
	endpoint = "http://" + addr
	if withTLS {
		// Its certificate is trusted through --ca-file alone, beside
		// whatever AWS_CA_BUNDLE the machine sets.
		cert, err := certs.Loopback(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		var keyFile string
		ca, keyFile = filepath.Join(dir, "ca.pem"), filepath.Join(dir, "key.pem")
		os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Leaf.Raw}), 0o600)
		os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600)
		args = append(args, "--cert", ca, "--key", keyFile)
		endpoint = "https://" + addr
	}
	gw := exec.Command(bin, append(args, "posix", root)...)
	if err := gw.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() { gw.Process.Kill(); gw.Wait() }
	t.Cleanup(stop)
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return endpoint, root, ca, stop
}

// TestReplicaSurvivesTheMachine: a server replicating to a real S3 server
// is killed (SIGKILL) and its data directory deleted; the domain restored
// from the bucket alone (fincom restore --from-replica) holds every income
// acknowledged 4 s before the loss, and so does the upstream `litestream
// restore` when its binary is at hand; a domain created while serving
// joins the bucket without a restart; with a replica key the bucket holds
// nothing of the books in clear, and fincom restores it only with the key.
func TestReplicaSurvivesTheMachine(t *testing.T) {
	t.Parallel()
	needs.Slow(t, "waits seconds for the replica to follow")
	schema := schemaForTest(t)
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			t.Parallel()
			// The keyed variant's bucket is reached over TLS, its server's
			// certificate trusted through --ca-file.
			endpoint, root, ca, _ := s3Server(t, keyed)
			prefix := fmt.Sprintf("books%v", keyed)
			url := "s3://fincom/" + prefix + "?endpoint=" + endpoint + "&region=us-east-1&force-path-style=true"
			env := []string{"FINCOM_REPLICATE=" + url}
			key := ""
			if keyed {
				key = filepath.Join(t.TempDir(), "replica.key")
				if _, err := certs.WriteKeyFile(key); err != nil {
					t.Fatal(err)
				}
				env = append(env, "FINCOM_REPLICATE_KEY_FILE="+key)
			}
			data := t.TempDir()
			access := jsonOut(t, cli(t, schema, data, "domain", "create", "acme", "--json"))["access_token"].(string)
			unit := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Loja", "--json"))["unit_token"].(string)
			tokens := fmt.Sprintf(`"access_token":%q,"unit_token":%q`, access, unit)
			// The keyed variant's commands trust the bucket's CA by flag.
			var caArgs []string
			if keyed {
				env = append(env, "FINCOM_CA_FILE="+ca)
				caArgs = []string{"--ca-file", ca}
			}
			child, base := startChild(t, data, env...)
			defer func() { child.Process.Kill(); child.Wait() }()
			client := &http.Client{Timeout: 5 * time.Second}
			acked := map[string]string{}
			var half time.Time
			for i := range 40 {
				if i == 20 {
					// A time the replica holds the first 20 at, and none of
					// the rest: a restore to it finds the 20.
					time.Sleep(2500 * time.Millisecond)
					half = time.Now()
					time.Sleep(1500 * time.Millisecond)
				}
				v := fmt.Sprintf("%d.%02d", 100+i, i)
				resp, err := client.Post(base+"/insert_income", "application/json",
					strings.NewReader(fmt.Sprintf(`{%s,"description":"Venda sigilosa %d","value":"%s","due_date":"2026-11-20"}`, tokens, i, v)))
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]any
				json.NewDecoder(resp.Body).Decode(&m)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("insert_income: %d %v", resp.StatusCode, m)
				}
				acked[m["token"].(string)] = v
			}
			// A domain created while serving joins the bucket.
			cli(t, schema, data, "domain", "create", "beta", "--json")
			joined := false
			for i := 0; i < 100 && !joined; i++ {
				joined = fileExistsAt(filepath.Join(root, "fincom", prefix, "beta.db"))
				time.Sleep(100 * time.Millisecond)
			}
			if !joined {
				t.Error("a domain created while serving is not in the bucket")
			}
			time.Sleep(4 * time.Second)
			// The health answer shows each file's replica in step to the
			// technical token, and only the worst lag to anyone.
			tec := jsonOut(t, cli(t, schema, data, "token", "tec", "--json"))["token_tec"].(string)
			health := healthOf(t, base, tec)
			inStep := false
			for _, r := range health.Data.Replication {
				if r.File == "acme.db" {
					inStep = r.Lag == 0
				}
			}
			if health.Data.Status != "ok" || !inStep || len(health.Data.Replication) != 3 {
				t.Errorf("health: %+v", health.Data)
			}
			if anon := healthOf(t, base, ""); anon.Data.Status != "ok" || len(anon.Data.Replication) != 0 || anon.Data.WorstLag == nil {
				t.Errorf("anonymous health: %+v", anon.Data)
			}
			// Restored online from its own replica (the server holds the
			// directory): the domain swapped in stays replicated.
			online := append([]string{"restore", "acme", "--from-replica", url, "--json"}, caArgs...)
			if keyed {
				online = append(online, "--replicate-key-file", key)
			}
			if v := jsonOut(t, cli(t, schema, data, online...)); v["online"] != true {
				t.Fatalf("online restore: %v", v)
			}
			code, m := postJSON(t, base+"/insert_income", fmt.Sprintf(`{%s,"description":"Venda depois da restauração","value":"77.00","due_date":"2026-11-20"}`, tokens))
			if code != 200 {
				t.Fatalf("a write after the online restore: %d %v", code, m)
			}
			acked[m["token"].(string)] = "77.00"
			time.Sleep(4 * time.Second)
			// The doctor compares each file with its replica: in step here,
			// absent from another prefix.
			doctor := append([]string{"doctor", "--replicate", url, "--json"}, caArgs...)
			if keyed {
				doctor = append(doctor, "--replicate-key-file", key) // the marks are sealed
			}
			doc := jsonOut(t, cli(t, schema, data, doctor...))
			if doc["status"] != "ok" || !strings.Contains(fmt.Sprint(doc["findings"]), "replica at transaction") {
				t.Errorf("doctor --replicate: %v", doc)
			}
			if err := cliErr(t, schema, data, append([]string{"doctor", "--replicate", strings.Replace(url, prefix, prefix+"-other", 1)}, caArgs...)...); err == nil {
				t.Error("doctor found replicas in an empty prefix")
			}
			child.Process.Kill()
			child.Wait()
			if err := os.RemoveAll(data); err != nil {
				t.Fatal(err)
			}

			if keyed {
				// Nothing of the books in clear.
				filepath.Walk(filepath.Join(root, "fincom", prefix), func(p string, fi os.FileInfo, err error) error {
					if err == nil && !fi.IsDir() {
						if b, _ := os.ReadFile(p); strings.Contains(string(b), "Venda sigilosa") || strings.Contains(string(b), "SQLite format") {
							t.Errorf("%s holds the books in clear", p)
						}
					}
					return nil
				})
			}
			// A new machine, whose data directory does not exist yet:
			// restored from the bucket alone.
			fresh := filepath.Join(t.TempDir(), "maquina-nova", "data")
			args := append([]string{"restore", "acme", "--from-replica", url}, caArgs...)
			if keyed {
				if err := cliErr(t, schema, filepath.Join(t.TempDir(), "sem-chave"), args...); err == nil {
					t.Error("a sealed replica restored without its key")
				}
				args = append(args, "--replicate-key-file", key)
			}
			cli(t, schema, fresh, args...)
			got := incomes(t, filepath.Join(fresh, "acme.db"))
			for tok, v := range acked {
				if got[tok] != v {
					t.Fatalf("income %s (%s) acknowledged 4 s before the loss is %q after the restore", tok, v, got[tok])
				}
			}
			if err := store.CheckFile(context.Background(), filepath.Join(fresh, "acme.db")); err != nil {
				t.Fatal(err)
			}
			// To a point in time.
			earlier := t.TempDir()
			cli(t, schema, earlier, append(args, "--timestamp", half.UTC().Format(time.RFC3339Nano))...)
			if n := len(incomes(t, filepath.Join(earlier, "acme.db"))); n != 20 {
				t.Errorf("restored to the time of the first 20 incomes: %d", n)
			}
			// The new machine is whole: its system file, the prefix's id,
			// nothing for the doctor to say.
			if v := jsonOut(t, cli(t, schema, fresh, "doctor", "--json")); v["status"] != "ok" || !fileExistsAt(filepath.Join(fresh, "_system.db")) {
				t.Fatalf("doctor after the restore: %v", v)
			}
			// Another data directory may not replicate to this prefix.
			other := t.TempDir()
			serveArgs := append([]string{"serve", "--addr", "127.0.0.1:0", "--replicate", url}, caArgs...)
			if keyed {
				serveArgs = append(serveArgs, "--replicate-key-file", key)
			}
			if err := cliErr(t, schema, other, serveArgs...); err == nil || !strings.Contains(err.Error(), "another installation") {
				t.Fatalf("a foreign directory on the prefix: %v", err)
			}
			// serve --restore-missing on another new machine restores
			// every domain the bucket holds before it serves.
			third := t.TempDir()
			_, _, stop := serveInProcess(t, schema, append([]string{"--data", third, "--replicate", url, "--restore-missing"}, serveArgs[5:]...)...)
			if err := stop(); err != nil {
				t.Fatalf("serve --restore-missing: %v", err)
			}
			if got := incomes(t, filepath.Join(third, "acme.db")); len(got) != len(acked) || !fileExistsAt(filepath.Join(third, "beta.db")) {
				t.Fatalf("serve --restore-missing restored %d incomes of %d", len(got), len(acked))
			}

			// The upstream CLI reads fincom's layout.
			if !keyed {
				ls := litestreamBinary()
				if ls == "" {
					needs.Missing(t, "litestream (the upstream CLI) is not installed", needs.LitestreamInstall)
				}
				out := filepath.Join(t.TempDir(), "acme.db")
				cmd := exec.Command(ls, "restore", "-o", out, strings.Replace(url, "?", "/acme.db?", 1))
				// The upstream CLI refuses to start beside AWS_CA_BUNDLE
				// ("unable to add custom RootCAs HTTPClient"); fincom's
				// client takes it (above, when the machine sets it).
				for _, e := range os.Environ() {
					if !strings.HasPrefix(e, "AWS_CA_BUNDLE=") {
						cmd.Env = append(cmd.Env, e)
					}
				}
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("litestream restore: %v\n%s", err, b)
				}
				if up := incomes(t, out); len(up) != len(got) {
					t.Fatalf("litestream restore: %d incomes, fincom's %d", len(up), len(got))
				}
			}
		})
	}
}

// TestReplicaBehindIsReported: with its bucket gone, a replicating
// server keeps answering writes and its health says the replica is
// behind.
func TestReplicaBehindIsReported(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits past the 10 s a replica may lag")
	}
	endpoint, _, _, stopS3 := s3Server(t, false)
	schema := schemaForTest(t)
	data := t.TempDir()
	access := jsonOut(t, cli(t, schema, data, "domain", "create", "acme", "--json"))["access_token"].(string)
	unit := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Loja", "--json"))["unit_token"].(string)
	child, base := startChild(t, data, "FINCOM_REPLICATE=s3://fincom/behind?endpoint="+endpoint+"&region=us-east-1&force-path-style=true")
	defer func() { child.Process.Kill(); child.Wait() }()
	income := func() {
		t.Helper()
		code, m := postJSON(t, base+"/insert_income", fmt.Sprintf(`{"access_token":%q,"unit_token":%q,"description":"Venda","value":"10.00","due_date":"2026-11-20"}`, access, unit))
		if code != 200 {
			t.Fatalf("a write with the bucket gone: %d %v", code, m)
		}
	}
	tec := jsonOut(t, cli(t, schema, data, "token", "tec", "--json"))["token_tec"].(string)
	health := func() (string, int) {
		h := healthOf(t, base, tec)
		lag := 0
		for _, r := range h.Data.Replication {
			if r.File == "acme.db" {
				lag = r.Lag
			}
		}
		return h.Data.Status, lag
	}
	income()
	time.Sleep(2 * time.Second)
	if st, lag := health(); st != "ok" || lag != 0 {
		t.Fatalf("before the loss: %s %d", st, lag)
	}
	stopS3()
	income()
	deadline := time.Now().Add(30 * time.Second)
	for st, _ := health(); st != "replica behind" && time.Now().Before(deadline); st, _ = health() {
		time.Sleep(500 * time.Millisecond)
	}
	if st, lag := health(); st != "replica behind" || lag <= 10 {
		t.Fatalf("the bucket gone for long: %s, lag %d", st, lag)
	}
	income()
}

// litestreamBinary is the upstream CLI: $FINCOM_LITESTREAM, else on the
// PATH or in GOPATH/bin ("" when none).
func litestreamBinary() string {
	if b := os.Getenv("FINCOM_LITESTREAM"); b != "" {
		return b
	}
	if p, err := exec.LookPath("litestream"); err == nil {
		return p
	}
	if gopath, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		if p := filepath.Join(strings.TrimSpace(string(gopath)), "bin", "litestream"); fileExistsAt(p) {
			return p
		}
	}
	return ""
}

// incomes reads a domain file's incomes: token -> value.
func incomes(t *testing.T, file string) map[string]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT token, value FROM entries WHERE type = 'in'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var tok, v string
		rows.Scan(&tok, &v)
		out[tok] = v
	}
	return out
}

// TestReplicatorFollowsTheDirectory: a domain file that appears joins the
// replicated set at the next sync, one that goes stops, its Litestream
// state removed with it.
func TestReplicatorFollowsTheDirectory(t *testing.T) {
	t.Parallel()
	endpoint, _, _, _ := s3Server(t, false)
	schema := schemaForTest(t)
	data := t.TempDir()
	cli(t, schema, data, "domain", "create", "acme", "--json")
	ctx := context.Background()
	conn, err := replicaConnection(ctx, "s3://fincom/follow?endpoint="+endpoint+"&region=us-east-1&force-path-style=true", "", "")
	if err != nil {
		t.Fatal(err)
	}
	rep := &replica.Replicator{Dir: data, Conn: conn}
	if err := rep.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer rep.Close(ctx)
	files := func() []string {
		var out []string
		for _, s := range rep.Statuses(time.Now()) {
			out = append(out, s.File)
		}
		return out
	}
	cli(t, schema, data, "domain", "create", "beta", "--json")
	if err := rep.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(files()); got != "[acme.db beta.db]" {
		t.Fatalf("after beta appeared: %s", got)
	}
	for _, f := range []string{"beta.db", "beta.db-wal", "beta.db-shm"} {
		os.Remove(filepath.Join(data, f))
	}
	if err := rep.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(files()); got != "[acme.db]" || fileExistsAt(filepath.Join(data, ".beta.db-litestream")) {
		t.Fatalf("after beta went: %s", got)
	}
}

// healthAnswer is what the replication tests read of /health.
type healthAnswer struct {
	Data struct {
		Status      string `json:"status"`
		WorstLag    *int   `json:"replication_lag_seconds"`
		Replication []struct {
			File    string `json:"file"`
			Lag     int    `json:"lag_seconds"`
			Problem string `json:"problem"`
		} `json:"replication"`
	} `json:"data"`
}

// healthOf asks the server at base for its health, with the technical
// token tec as a bearer (anonymous when "").
func healthOf(t *testing.T, base, tec string) healthAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/health", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tec != "" {
		req.Header.Set("Authorization", "Bearer "+tec)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h healthAnswer
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestReplicaRollbackIsRefused: the bucket's owner cannot roll a sealed
// replica back unseen. The newest objects deleted, a restore refuses and
// names the transactions missing. The whole prefix put back as it was (its
// older mark with it), the running server refuses to replicate onto it and
// says so in its health, `doctor --replicate` reports it, and a restore
// onto a new machine says which transaction it restored and refuses,
// with --expect-txid, anything older than the operator's record.
func TestReplicaRollbackIsRefused(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("replicates for seconds")
	}
	endpoint, root, _, _ := s3Server(t, false)
	schema := schemaForTest(t)
	data := t.TempDir()
	key := filepath.Join(t.TempDir(), "replica.key")
	if _, err := certs.WriteKeyFile(key); err != nil {
		t.Fatal(err)
	}
	url := "s3://fincom/roll?endpoint=" + endpoint + "&region=us-east-1&force-path-style=true"
	env := []string{"FINCOM_REPLICATE=" + url, "FINCOM_REPLICATE_KEY_FILE=" + key}
	access := jsonOut(t, cli(t, schema, data, "domain", "create", "acme", "--json"))["access_token"].(string)
	unit := jsonOut(t, cli(t, schema, data, "unit", "create", "acme", "--name", "Loja", "--json"))["unit_token"].(string)
	tec := jsonOut(t, cli(t, schema, data, "token", "tec", "--json"))["token_tec"].(string)
	prefix := filepath.Join(root, "fincom", "roll")
	copyTree := func(from, to string) {
		t.Helper()
		os.RemoveAll(to)
		if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	writes := func(base string, n int) {
		t.Helper()
		for i := range n {
			code, m := postJSON(t, base+"/insert_income", fmt.Sprintf(`{"access_token":%q,"unit_token":%q,"description":"Venda %d","value":"10.00","due_date":"2026-11-20"}`, access, unit, i))
			if code != 200 {
				t.Fatalf("a write: %d %v", code, m)
			}
		}
	}
	stop := func(child *exec.Cmd) {
		child.Process.Signal(os.Interrupt) // a last sync, then out
		child.Wait()
	}
	child, base := startChild(t, data, env...)
	writes(base, 5)
	time.Sleep(3 * time.Second)
	marked := func() ltx.TXID {
		m, _, err := replica.OpenMarks(data).Get("acme.db")
		if err != nil {
			t.Fatal(err)
		}
		return m.TXID
	}
	old := filepath.Join(t.TempDir(), "roll")
	copyTree(prefix, old) // the prefix as it stood: the owner's copy
	copied := marked()
	writes(base, 5)
	for i := 0; i < 100 && marked() <= copied; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	stop(child)
	record := marked()
	if copied == 0 || record <= copied {
		t.Fatalf("the marks recorded: %s when copied, %s at the end", copied, record)
	}
	latest := record.String()

	// The newest objects deleted: those of the last mark's transactions.
	whole := filepath.Join(t.TempDir(), "roll")
	copyTree(prefix, whole)
	objects, _ := filepath.Glob(filepath.Join(prefix, "acme.db", "*", "*.ltx"))
	deleted := 0
	for _, o := range objects {
		if _, maxTXID, err := ltx.ParseFilename(filepath.Base(o)); err == nil && maxTXID > copied {
			os.Remove(o)
			deleted++
		}
	}
	if deleted == 0 {
		t.Fatalf("no object past transaction %s among %v", copied, objects)
	}
	newMachine := filepath.Join(t.TempDir(), "maquina-nova", "data")
	err := cliErr(t, schema, newMachine, "restore", "acme", "--from-replica", url, "--replicate-key-file", key)
	if err == nil || !strings.Contains(err.Error(), "are gone") {
		t.Fatalf("a restore from a replica missing its newest objects: %v", err)
	}
	copyTree(whole, prefix)

	// The whole prefix rolled back.
	copyTree(old, prefix)
	child, base = startChild(t, data, env...)
	writes(base, 1) // still answered: the WAL holds it
	problem := ""
	for i := 0; i < 50 && problem == ""; i++ {
		for _, f := range healthOf(t, base, tec).Data.Replication {
			if f.File == "acme.db" {
				problem = f.Problem
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(problem, "rolled back") && !strings.Contains(problem, "older than what was written") {
		t.Errorf("the running server on a rolled-back prefix: health says %q", problem)
	}
	stop(child)
	var doctor map[string]any
	if err := json.Unmarshal([]byte(cliDoctor(t, schema, data, "--replicate", url, "--replicate-key-file", key)), &doctor); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(doctor["findings"]), "replica rolled back") {
		t.Errorf("doctor --replicate on a rolled-back prefix: %v", doctor)
	}
	err = cliErr(t, schema, filepath.Join(t.TempDir(), "data"), "restore", "acme", "--from-replica", url, "--replicate-key-file", key, "--expect-txid", latest)
	if err == nil || !strings.Contains(err.Error(), "--expect-txid is "+latest) {
		t.Fatalf("a restore of a rolled-back replica with --expect-txid: %v", err)
	}
	got := jsonOut(t, cli(t, schema, newMachine, "restore", "acme", "--from-replica", url, "--replicate-key-file", key, "--json"))
	if got["restored"] != true || got["txid"] == nil || got["txid"].(string) >= latest {
		t.Fatalf("a restore onto a new machine says %v (latest written %s)", got, latest)
	}
}

// cliDoctor runs `fincom doctor --json` with args, whatever it finds.
func cliDoctor(t *testing.T, schema, data string, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	a := &app{schema: schema, out: &out, errOut: &bytes.Buffer{}, now: func() time.Time { return testDay }}
	root := newRootCmd(a)
	root.SetArgs(append(append([]string{"doctor", "--json"}, args...), "--data", data))
	root.Execute()
	return out.String()
}
