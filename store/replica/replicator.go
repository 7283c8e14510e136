package replica

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
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
	clients map[string]*Client        // their replica clients
	// refused are the files not replicated because their replica was
	// rolled back (Client.gate), with why and since when.
	refused map[string]refusal
}

type refusal struct {
	err   error
	since time.Time
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
	r.dbs, r.clients, r.refused, r.started = map[string]*litestream.DB{}, map[string]*Client{}, map[string]refusal{}, time.Now()
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
		if r.dbs[name] != nil || r.refused[name].err != nil {
			continue
		}
		db := litestream.NewDB(filepath.Join(r.Dir, name))
		client := r.Conn.Client(name)
		client.SetLogger(r.Log)
		db.Replica = litestream.NewReplicaWithClient(db, client)
		if err := r.store.RegisterDB(db); err != nil {
			return fmt.Errorf("replica: %s: %w", name, err)
		}
		r.dbs[name], r.clients[name] = db, client
		r.Log.Info("replicating", "file", name)
	}
	for name, db := range r.dbs {
		// A file whose replica was rolled back stops: nothing more is
		// written onto that prefix until an operator looks (doctor
		// --replicate), and a shutdown does not wait on it.
		if err := r.clients[name].Refused(); err != nil && present[name] {
			db.ShutdownSyncTimeout = 0 // one last try, no retries: it is refused
			if err := r.store.UnregisterDB(ctx, db.Path()); err != nil {
				r.Log.Warn("replica: stop", "file", name, "err", err)
			}
			r.refused[name] = refusal{err: err, since: time.Now()}
			delete(r.dbs, name)
			delete(r.clients, name)
			continue
		}
		if present[name] {
			continue
		}
		if err := r.store.UnregisterDB(ctx, db.Path()); err != nil {
			r.Log.Warn("replica: stop", "file", name, "err", err)
		}
		// Its local state goes with it (the replica stays in the bucket).
		os.RemoveAll(db.MetaPath())
		delete(r.dbs, name)
		delete(r.clients, name)
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
	// Problem is why the file is not replicated at all.
	Problem string `json:"problem,omitempty" doc:"Why the file is not replicated: its replica's mark is behind what this machine wrote (the prefix rolled back); absent when none."`
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
		if err := r.clients[name].Refused(); err != nil {
			s.Problem = err.Error()
		}
		if s.LocalTXID != s.ReplicaTXID || s.Problem != "" {
			since := last
			if since.IsZero() {
				since = r.started
			}
			s.LagSeconds = int(now.Sub(since) / time.Second)
		}
		out = append(out, s)
	}
	for name, rf := range r.refused {
		out = append(out, Status{File: name, Problem: rf.err.Error(), LagSeconds: int(now.Sub(rf.since) / time.Second)})
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
	for name, db := range r.dbs {
		if r.clients[name].Refused() != nil {
			db.ShutdownSyncTimeout = 0
		}
	}
	return r.store.Close(ctx)
}

// RestoreOptions are what a restore holds the replica to: at least the
// transaction the operator recorded (ExpectTXID, zero: none), and whether
// a sealed replica without a mark is taken as it is.
type RestoreOptions struct {
	ExpectTXID    ltx.TXID
	AllowUnmarked bool
}

// Restore writes the replica of the database file name, as it stood at
// at (zero: its latest), to out, which must not exist, and answers the
// transaction restored and when it was written. A replica whose objects
// end below its mark (ErrObjectsMissing), a sealed one without a mark
// (ErrUnmarked), or one that reaches less than opt.ExpectTXID
// (ErrRolledBack) is refused before anything is written. Once the file
// restored is in place, its caller records the position as the data
// directory's mark of it (Marks.Set, reset).
func Restore(ctx context.Context, conn *Connection, name, out string, at time.Time, opt RestoreOptions) (Position, error) {
	if !strings.HasSuffix(name, ".db") {
		name += ".db"
	}
	if _, err := os.Stat(out); err == nil {
		return Position{}, fmt.Errorf("replica: %s exists", out)
	}
	client := conn.Client(name)
	client.marks = nil // it reads
	_, got, err := client.CheckMark(ctx)
	if err != nil && !(errors.Is(err, ErrUnmarked) && opt.AllowUnmarked) {
		return Position{}, fmt.Errorf("replica: restore %s: %w", name, err)
	}
	if got.TXID < opt.ExpectTXID {
		return Position{}, fmt.Errorf("replica: restore %s: %w: it reaches transaction %s (written %s), --expect-txid is %s",
			name, ErrRolledBack, got.TXID, got.At.UTC().Format(time.RFC3339), opt.ExpectTXID)
	}
	if !at.IsZero() {
		if got, err = client.coverageAt(ctx, at); err != nil {
			return Position{}, err
		}
	}
	rp := litestream.NewReplicaWithClient(nil, client)
	ro := litestream.NewRestoreOptions()
	ro.OutputPath, ro.Timestamp = out, at
	if err := rp.Restore(ctx, ro); err != nil {
		return Position{}, fmt.Errorf("replica: restore %s: %w", name, err)
	}
	return got, nil
}
