package replica

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/benbjohnson/litestream"
)

// Replicator streams every database file of a data directory to its
// replica (Litestream, embedded): the domains' files and _system.db, each
// at PREFIX/<file name>. Files that appear join (Watch), files that go
// stop.
type Replicator struct {
	Dir  string
	Conn *Connection
	Log  *slog.Logger

	mu      sync.Mutex
	store   *litestream.Store
	started time.Time
	dbs     map[string]*litestream.DB // by file name
}

// levels are Litestream's compaction levels: L0 the files as written
// (every second), then 30 seconds, 5 minutes and an hour.
var levels = litestream.CompactionLevels{{Level: 0}, {Level: 1, Interval: 30 * time.Second},
	{Level: 2, Interval: 5 * time.Minute}, {Level: 3, Interval: time.Hour}}

// Start replicates the directory's database files as they are now.
func (r *Replicator) Start(ctx context.Context) error {
	if r.Log == nil {
		r.Log = slog.New(slog.DiscardHandler)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dbs, r.started = map[string]*litestream.DB{}, time.Now()
	r.store = litestream.NewStore(nil, levels)
	r.store.Logger = r.Log
	if err := r.store.Open(ctx); err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	return r.syncLocked(ctx)
}

// files are the database files of the directory.
func (r *Replicator) files() ([]string, error) {
	matches, err := filepath.Glob(filepath.Join(r.Dir, "*.db"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range matches {
		names = append(names, filepath.Base(m))
	}
	sort.Strings(names)
	return names, nil
}

// Sync makes the replicated set the directory's files: new ones join,
// removed ones stop.
func (r *Replicator) Sync(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.syncLocked(ctx)
}

func (r *Replicator) syncLocked(ctx context.Context) error {
	names, err := r.files()
	if err != nil {
		return err
	}
	present := map[string]bool{}
	for _, name := range names {
		present[name] = true
		if r.dbs[name] != nil {
			continue
		}
		db := litestream.NewDB(filepath.Join(r.Dir, name))
		db.Replica = litestream.NewReplicaWithClient(db, r.Conn.Client(name))
		if err := r.store.RegisterDB(db); err != nil {
			return fmt.Errorf("replica: %s: %w", name, err)
		}
		r.dbs[name] = db
		r.Log.Info("replicating", "file", name)
	}
	for name, db := range r.dbs {
		if present[name] {
			continue
		}
		if err := r.store.UnregisterDB(ctx, db.Path()); err != nil {
			r.Log.Warn("replica: stop", "file", name, "err", err)
		}
		// Its local state goes with it (the replica stays in the bucket).
		os.RemoveAll(db.MetaPath())
		delete(r.dbs, name)
		r.Log.Info("replication stopped", "file", name)
	}
	return nil
}

// Watch syncs the set every interval until ctx ends: a domain created
// while serving joins within that time.
func (r *Replicator) Watch(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	behind := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := r.Sync(ctx); err != nil {
				r.Log.Warn("replica: sync the files", "err", err)
			}
			// A replica that falls behind (bucket unreachable,
			// credentials refused) is said once; writes go on, the WAL
			// holding them until the bucket is back.
			now := map[string]bool{}
			for _, s := range Behind(r.Statuses(time.Now())) {
				now[s.File] = true
				if !behind[s.File] {
					r.Log.Warn("replica behind", "file", s.File, "lag_seconds", s.LagSeconds, "local_txid", s.LocalTXID, "replica_txid", s.ReplicaTXID)
				}
			}
			for f := range behind {
				if !now[f] {
					r.Log.Info("replica caught up", "file", f)
				}
			}
			behind = now
		}
	}
}

// Status is a file's replication: the transaction written locally and
// the one its replica holds, when the replica last caught up, and how far
// it is behind (0 in step).
type Status struct {
	File        string `json:"file" doc:"The domain file."`
	LocalTXID   string `json:"local_txid" doc:"The file's latest transaction."`
	ReplicaTXID string `json:"replica_txid" doc:"The latest transaction the replica holds."`
	LastSync    string `json:"last_sync" format:"date-time" doc:"When the replica last took a change (RFC 3339)."`
	LagSeconds  int    `json:"lag_seconds" doc:"How far behind the replica is, in seconds."`
}

// behindAfter is the lag past which a replica is reported behind.
const behindAfter = 10 * time.Second

// Statuses answers each replicated file's status at now.
func (r *Replicator) Statuses(now time.Time) []Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []Status{}
	for name, db := range r.dbs {
		s := Status{File: name}
		if pos, err := db.Pos(); err == nil {
			s.LocalTXID = pos.TXID.String()
		}
		if db.Replica != nil {
			s.ReplicaTXID = db.Replica.Pos().TXID.String()
		}
		last := db.LastSuccessfulSyncAt()
		if !last.IsZero() {
			s.LastSync = last.UTC().Format(time.RFC3339)
		}
		if s.LocalTXID != s.ReplicaTXID {
			since := last
			if since.IsZero() {
				since = r.started
			}
			s.LagSeconds = int(now.Sub(since) / time.Second)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}

// Behind lists the files whose replica is more than behindAfter behind.
func Behind(ss []Status) []Status {
	var out []Status
	for _, s := range ss {
		if time.Duration(s.LagSeconds)*time.Second > behindAfter {
			out = append(out, s)
		}
	}
	return out
}

// Close stops replicating, after a last sync.
func (r *Replicator) Close(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.store == nil {
		return nil
	}
	return r.store.Close(ctx)
}

// Restore writes the replica of the database file name, as it stood at
// at (zero: its latest), to out, which must not exist.
func Restore(ctx context.Context, conn *Connection, name, out string, at time.Time) error {
	if !strings.HasSuffix(name, ".db") {
		name += ".db"
	}
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("replica: %s exists", out)
	}
	rp := litestream.NewReplicaWithClient(nil, conn.Client(name))
	opt := litestream.NewRestoreOptions()
	opt.OutputPath, opt.Timestamp = out, at
	if err := rp.Restore(ctx, opt); err != nil {
		return fmt.Errorf("replica: restore %s: %w", name, err)
	}
	return nil
}
