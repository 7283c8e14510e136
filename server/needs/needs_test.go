package needs

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// fakeT records what Missing does to a test.
type fakeT struct {
	testing.TB
	name        string
	fatal, skip string
}

func (f *fakeT) Helper()                        {}
func (f *fakeT) Name() string                   { return f.name }
func (f *fakeT) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }
func (f *fakeT) Skipf(format string, a ...any)  { f.skip = fmt.Sprintf(format, a...) }

// TestMissing: without CI a missing tool skips its test with one line
// naming what to install, and the report lists each test once with every
// install; in CI it fails the test.
func TestMissing(t *testing.T) {
	t.Setenv("CI", "")
	a := &fakeT{name: "TestPortalInBrowser/page"}
	Tool(a, "fincom-no-such-program", "apt-get install fincom-no-such-program")
	if a.fatal != "" || a.skip != "fincom-no-such-program is not installed (install: apt-get install fincom-no-such-program)" {
		t.Fatalf("skip %q, fatal %q", a.skip, a.fatal)
	}
	Missing(&fakeT{name: "TestPortalInBrowser/other"}, "axe-core is not installed", JudgesInstall)
	Missing(&fakeT{name: "TestOutsideJudges"}, "the npm judges are not installed", JudgesInstall)
	want := "2 tests skipped: TestOutsideJudges, TestPortalInBrowser (install: .ci/install npm; apt-get install fincom-no-such-program)"
	if got := Report(); got != want {
		t.Fatalf("report\n%s\nwant\n%s", got, want)
	}
	t.Setenv("CI", "1")
	c := &fakeT{name: "TestInCI"}
	Missing(c, "xmllint is not installed", "apt-get install libxml2-utils")
	if c.fatal == "" || c.skip != "" || strings.Contains(Report(), "TestInCI") {
		t.Fatalf("in CI: fatal %q, skip %q", c.fatal, c.skip)
	}
}

func TestImportPath(t *testing.T) {
	dir, _ := filepath.Abs(".")
	if got := importPath(dir); got != "fincom/server/needs" {
		t.Fatalf("importPath = %q", got)
	}
}
