package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIBSCBSTableFlag: serve refuses a table file it cannot take, saying
// which flag and why, before it serves anything.
func TestIBSCBSTableFlag(t *testing.T) {
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
