package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Finding is one line of a doctor report.
type Finding struct {
	Domain  string `json:"domain,omitempty"`
	File    string `json:"file"`
	Level   string `json:"level"` // ok, warning, error
	Message string `json:"message"`
}

// Doctor checks every file of the data directory: each domain's integrity
// (PRAGMA integrity_check), schema version and WAL size, and files that
// belong to no domain (leftover temporary files, WAL files without their
// database).
func (d *Domains) Doctor(ctx context.Context) ([]Finding, error) {
	entries, err := os.ReadDir(d.dir)
	if err != nil {
		return nil, wrap("doctor", err)
	}
	var out []Finding
	dbs := map[string]bool{}
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".db"); ok && ValidDomainName(n) {
			dbs[n] = true
		}
	}
	for _, e := range entries {
		name := e.Name()
		full := filepath.Join(d.dir, name)
		switch {
		case name == "_system.db" || name == ".fincom.lock" || strings.HasPrefix(name, "_system.db-") || name == "_snapshots" || name == "backups" ||
			name == "_restore" || name == "_throwaway" || name == ".fincom-installation" || name == ".fincom-replica-marks.json" || name == "_acme":
			// fincom's own: the system file, the lock, test mode's
			// snapshots and markers, scheduled backups, restores being
			// handed to the server, the installation id of a replicated
			// directory, the record of its replicas' marks and the ACME
			// cache of serve --https.
		case strings.HasSuffix(name, ".db") && dbs[strings.TrimSuffix(name, ".db")]:
			n := strings.TrimSuffix(name, ".db")
			f := Finding{Domain: n, File: name, Level: "ok"}
			var msgs []string
			if err := CheckFile(ctx, full); err != nil {
				f.Level, msgs = "error", append(msgs, err.Error())
			} else if stamped, err := DomainOf(ctx, full); err != nil || stamped != n {
				f.Level, msgs = "error", append(msgs, fmt.Sprintf("stamped for domain %q, not %q: its tokens name another domain", stamped, n))
			} else {
				conn, err := sql.Open("sqlite", fileURI(full, "mode=ro"))
				if err == nil {
					var v int
					conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
					defer conn.Close()
					msgs = append(msgs, fmt.Sprintf("integrity ok, schema %d of %d", v, SchemaVersion()))
					if v < SchemaVersion() {
						f.Level, msgs = "warning", append(msgs, "older schema: run fincom migrate")
					}
					if exp := expiringCertificates(ctx, conn, d.opts.Now()); len(exp) > 0 {
						f.Level, msgs = "warning", append(msgs, exp...)
					}
					if w := waitingTransmissions(ctx, conn, d.opts.Now()); len(w) > 0 {
						f.Level, msgs = "warning", append(msgs, w...)
					}
					if w := unfinishedAtAuthority(ctx, conn, d.opts.Now()); len(w) > 0 {
						f.Level, msgs = "warning", append(msgs, w...)
					}
				}
			}
			if st, err := os.Stat(full + "-wal"); err == nil {
				msgs = append(msgs, fmt.Sprintf("WAL %d bytes", st.Size()))
				if st.Size() > 64<<20 {
					f.Level = "warning"
					msgs = append(msgs, "large WAL: a long reader may be holding checkpoints back")
				}
			}
			f.Message = strings.Join(msgs, "; ")
			out = append(out, f)
		case strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".db-litestream"):
			// Litestream's local state of a replicated file (serve
			// --replicate), kept while its file is.
			base := strings.TrimSuffix(strings.TrimPrefix(name, "."), "-litestream")
			if base != "_system.db" && !dbs[strings.TrimSuffix(base, ".db")] {
				out = append(out, Finding{File: name, Level: "warning", Message: "Litestream's state of a file that is gone (safe to delete)"})
			}
		case strings.HasSuffix(name, ".db-wal") || strings.HasSuffix(name, ".db-shm"):
			base := strings.TrimSuffix(strings.TrimSuffix(name, "-wal"), "-shm")
			if !dbs[strings.TrimSuffix(base, ".db")] {
				out = append(out, Finding{File: name, Level: "warning", Message: "WAL or shared-memory file without its database"})
			}
		default:
			out = append(out, Finding{File: name, Level: "warning", Message: "not a fincom file (a leftover temporary or a foreign file)"})
		}
	}
	return out, nil
}
