package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIBSCBSTableFlag: serve refuses a table file it cannot take, saying
// which flag and why, before it serves anything.
func TestIBSCBSTableFlag(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	data := t.TempDir()
	bad := filepath.Join(t.TempDir(), "ibscbs.json")
	os.WriteFile(bad, []byte(`{"classes": [{"code": "77700", "name": "x"}]}`), 0o600)
	for _, c := range []struct{ file, says string }{
		{bad, "a cClassTrib is 6 digits"},
		{filepath.Join(t.TempDir(), "none.json"), "no such file"},
	} {
		err := cliErr(t, schema, data, "serve", "--addr", "127.0.0.1:0", "--ibscbs-table", c.file)
		if err == nil || !strings.Contains(err.Error(), "--ibscbs-table") || !strings.Contains(err.Error(), c.says) {
			t.Errorf("serve --ibscbs-table %s: %v", c.file, err)
		}
	}
}

// TestDoctorWarnsOfTheRatesEnd: a month before the IBS and CBS rates end
// the doctor warns, naming the day; with the next year's given it does
// not.
func TestDoctorWarnsOfTheRatesEnd(t *testing.T) {
	t.Parallel()
	schema := schemaForTest(t)
	data := t.TempDir()
	cli(t, schema, data, "domain", "create", "acme")
	december := time.Date(2026, 12, 15, 12, 0, 0, 0, time.UTC)
	v := jsonOut(t, cliAt(t, december, schema, data, "doctor", "--json"))
	found := false
	for _, f := range v["findings"].([]any) {
		f := f.(map[string]any)
		if f["file"] == "ibscbs table" && f["level"] == "warning" && strings.Contains(f["message"].(string), "2026-12-31") {
			found = true
		}
	}
	if !found || v["status"] != "warning" {
		t.Fatalf("no warning of the rates' end: %v", v)
	}
	next := filepath.Join(t.TempDir(), "ibscbs.json")
	os.WriteFile(next, []byte(`{"rates": [{"from": "2027-01-01", "until": "2027-12-31", "cbs": "8.7", "ibs_uf": "0.05", "ibs_mun": "0.05"}]}`), 0o600)
	if v := jsonOut(t, cliAt(t, december, schema, data, "doctor", "--ibscbs-table", next, "--json")); v["status"] != "ok" {
		t.Fatalf("with 2027's rates: %v", v)
	}
}
