// Package needs is what fincom's tests need from outside Go (a program,
// the npm judges, a long run) and the report of what they skipped for it.
//
// A test that needs a tool asks Tool (or Judges); without it the test
// fails under CI=1 and otherwise skips with one line naming what to
// install. Each package's TestMain runs its tests through Run, which, at
// the end, prints "N tests skipped: NAMES (install: …)" for the tests
// skipped for a missing tool. `go test ./...` shows a passing package's
// output only with -v, so the report is written to the go command's own
// output (its standard output, a terminal or a pipe) on Linux; elsewhere,
// or when that output is a file, it is the package's own (go test -v).
package needs

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// skipped are the tests skipped for a missing tool, with what installs it.
var skipped struct {
	mu      sync.Mutex
	tests   map[string]bool
	install map[string]bool
}

// Tool answers the path of the program name, which install installs: in CI
// (CI set) its absence fails the test, elsewhere it skips it.
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" is not installed", install)
	}
	return path
}

// Missing fails the test in CI and elsewhere skips it, saying what is
// missing and what installs it; Run's report lists it.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (install: %s); CI runs every test", what, install)
		return
	}
	skipped.mu.Lock()
	if skipped.tests == nil {
		skipped.tests, skipped.install = map[string]bool{}, map[string]bool{}
	}
	skipped.tests[strings.SplitN(t.Name(), "/", 2)[0]] = true
	skipped.install[install] = true
	skipped.mu.Unlock()
	t.Skipf("%s (install: %s)", what, install)
}

// JudgesInstall installs the npm judges (.ci/judges).
const JudgesInstall = ".ci/install npm"

// Judges answers the directory of the npm judges (.ci/judges), skipping
// the test as Missing does when their packages are not installed.
func Judges(t testing.TB) string {
	t.Helper()
	judges := ciDir(t, "judges")
	if _, err := os.Stat(filepath.Join(judges, "node_modules")); err != nil {
		Missing(t, "the npm judges are not installed", JudgesInstall)
	}
	return judges
}

// Prism answers Stoplight Prism's command: $FINCOM_PRISM, else the one
// .ci/install puts in .ci/prism; the test skips as Missing does without.
func Prism(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("FINCOM_PRISM"); bin != "" {
		return bin
	}
	bin := filepath.Join(ciDir(t, "prism"), "node_modules", ".bin", "prism")
	if _, err := os.Stat(bin); err != nil {
		Missing(t, "Stoplight Prism is not installed", PrismInstall)
	}
	return bin
}

// ciDir is the repository's .ci/<name>, found from the test's directory
// up.
func ciDir(t testing.TB, name string) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		d := filepath.Join(dir, ".ci", name)
		if _, err := os.Stat(filepath.Join(d, "package.json")); err == nil {
			return d
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no .ci/%s above the test's directory", name)
		}
		dir = parent
	}
}

// Long reports whether the long suites run in full (FINCOM_LONG set, as
// .ci/run sets it); otherwise they run a short form asserting the same.
func Long() bool { return os.Getenv("FINCOM_LONG") != "" }

// Run runs the package's tests and then reports what was skipped for a
// missing tool; it answers the exit code for os.Exit.
func Run(m *testing.M) int {
	code := m.Run()
	tell(2)
	return code
}

// Tell prints the skip report, for a TestMain that does more after its
// tests than Run does.
func Tell() { tell(2) }

// tell prints the report of the package whose TestMain is depth frames
// up.
func tell(depth int) {
	if line := Report(); line != "" {
		_, file, _, _ := runtime.Caller(depth)
		say(importPath(filepath.Dir(file)) + ": " + line + "\n")
	}
}

// Skipped records what a TestMain's own check (not a test) left undone
// for a missing tool: name says what, install what installs it. In CI it
// answers an error to fail the run with.
func Skipped(name, what, install string) error {
	if os.Getenv("CI") != "" {
		return fmt.Errorf("%s: %s (install: %s); CI runs every check", name, what, install)
	}
	skipped.mu.Lock()
	defer skipped.mu.Unlock()
	if skipped.tests == nil {
		skipped.tests, skipped.install = map[string]bool{}, map[string]bool{}
	}
	skipped.tests[name] = true
	skipped.install[install] = true
	return nil
}

// Report is the skip report: "" when nothing was skipped for a tool.
func Report() string {
	skipped.mu.Lock()
	defer skipped.mu.Unlock()
	if len(skipped.tests) == 0 {
		return ""
	}
	names, installs := keys(skipped.tests), keys(skipped.install)
	word := "tests"
	if len(names) == 1 {
		word = "test"
	}
	return fmt.Sprintf("%d %s skipped: %s (install: %s)", len(names), word, strings.Join(names, ", "), strings.Join(installs, "; "))
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// say writes the report where the person who ran go test reads it: the go
// command's standard output when the go command is the parent and that
// output is a terminal, a pipe or a file it appends to (a line written
// into a file go overwrites from its own offset would be lost), else the
// test binary's own (go test -v shows it).
func say(line string) {
	parent := fmt.Sprintf("/proc/%d/", os.Getppid())
	if comm, err := os.ReadFile(parent + "comm"); err == nil && strings.TrimSpace(string(comm)) == "go" {
		if fi, err := os.Stat(parent + "fd/1"); err == nil && (!fi.Mode().IsRegular() || appends(parent+"fdinfo/1")) {
			if f, err := os.OpenFile(parent+"fd/1", os.O_WRONLY|os.O_APPEND, 0); err == nil {
				_, err = f.WriteString(line)
				f.Close()
				if err == nil {
					return
				}
			}
		}
	}
	fmt.Print(line)
}

// appends reports whether the descriptor fdinfo tells of was opened to
// append (a shell's >>): a line written there lands after go's own.
func appends(fdinfo string) bool {
	b, err := os.ReadFile(fdinfo)
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "flags:"); ok {
			flags, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&syscall.O_APPEND != 0
		}
	}
	return false
}

// importPath is the import path of the package in dir, from its module's
// go.mod; the directory itself when none is found.
func importPath(dir string) string {
	if !filepath.IsAbs(dir) {
		// go test -trimpath names files by their import path.
		return filepath.ToSlash(dir)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if mod, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			for _, l := range strings.Split(string(mod), "\n") {
				if name, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
					rel, _ := filepath.Rel(d, dir)
					return filepath.ToSlash(filepath.Join(strings.TrimSpace(name), rel))
				}
			}
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// What installs each outside tool the tests use (Debian's packages, the
// npm judges, the Go-built servers); .ci/run installs them all.
const (
	ChromiumInstall   = ".ci/install system (apt-get install chromium)"
	XmllintInstall    = ".ci/install system (apt-get install libxml2-utils)"
	Xmlsec1Install    = ".ci/install system (apt-get install xmlsec1)"
	PDFToolsInstall   = ".ci/install system (apt-get install poppler-utils zbar-tools)"
	PrismInstall      = ".ci/install npm"
	VersitygwInstall  = ".ci/install go (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)"
	LitestreamInstall = ".ci/install go (go install github.com/benbjohnson/litestream/cmd/litestream@v0.5.18)"
	PebbleInstall     = ".ci/install go (go install github.com/letsencrypt/pebble/v2/cmd/pebble@v2.10.3 github.com/letsencrypt/pebble/v2/cmd/pebble-challtestsrv@v2.10.3)"
)

// Soak is what a long suite (a soak of load, crashes or outages) asks
// first: -short skips it; by default it runs its short form, a few
// seconds asserting the same promises on fewer iterations; under
// FINCOM_LONG (.ci/run) it runs in full, and Soak answers true.
func Soak(t testing.TB) (full bool) {
	t.Helper()
	if testing.Short() {
		t.Skip("a long suite: go test without -short runs its short form, FINCOM_LONG=1 in full")
	}
	return Long()
}

// Outside is what a test driving an outside program (a browser, the npm
// judges, a validator server) asks first: -short skips it.
func Outside(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("drives an outside program: go test without -short runs it")
	}
}

// Parallel lets n parallel tests per processor run at once, unless
// -parallel was given: for a package whose tests mostly wait (on child
// processes, loopback servers, a retry's real seconds) rather than
// compute, the default of one per processor leaves the machine idle.
// Call it in TestMain before m.Run (flags parsed).
func Parallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(n*runtime.GOMAXPROCS(0)))
	}
}

// Slow is what a test that waits real seconds (a background loop's turn,
// a replica's lag) asks first: -short skips it, saying why.
func Slow(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s: go test without -short runs it", why)
	}
}
