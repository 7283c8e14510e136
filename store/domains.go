package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// domainName is the strict pattern a domain name must match before it
// becomes a file name: no dots, slashes or upper case, so no traversal and no
// two names for one file on case-insensitive disks.
var domainName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// ValidDomainName reports whether name may name a domain.
func ValidDomainName(name string) bool { return domainName.MatchString(name) }

// Options configures how domain files are opened.
type Options struct {
	// Schema is schema.sql, applied in one step to a fresh file.
	Schema     string
	Durability Durability
	// Now is the clock for every stored timestamp.
	Now func() time.Time
	// NewID makes record tokens (UUIDs) of unseeded domains.
	NewID func() string
	// Seeded makes every domain's tokens and secrets reproducible from
	// Seed (serve --seed; see idSource).
	Seeded bool
	Seed   uint64
	// MaxOpen caps the domain files kept open while idle (default 64):
	// each open domain holds a few hundred kilobytes of SQLite state, so a
	// server touching a thousand domains would otherwise hold them all
	// until they idle out.
	MaxOpen int
	// Rules are the business decisions writes take in their transaction
	// (billing.Rules): a charge plan, a payment, a contract's periods.
	Rules Rules
	// WALOwner says another checkpoints the domains' WALs (serve
	// --replicate: Litestream, which copies every frame to the replica
	// before it checkpoints it away); fincom's checkpointer stays idle.
	WALOwner bool
}

// defaultMaxOpen is Options.MaxOpen's default.
const defaultMaxOpen = 64

// Domains opens domain files on demand and keeps them open while in use.
type Domains struct {
	dir  string
	opts Options

	mu     sync.Mutex
	open   map[string]*DB
	clocks map[string]*clock
	// swapping holds the domains whose file is being replaced (restore,
	// reset): their requests wait on the channel, other domains' do not.
	swapping map[string]chan struct{}
	// opening holds the domains whose file is being opened (and migrated)
	// outside d.mu, so that one slow open does not hold up the others.
	opening map[string]chan struct{}
}

// OpenDomains prepares the data directory. It refuses an SQLite older than
// MinSQLiteVersion.
func OpenDomains(dir string, opts Options) (*Domains, error) {
	v, err := SQLiteVersion()
	if err != nil {
		return nil, fmt.Errorf("sqlite version: %w", err)
	}
	if compareVersions(v, MinSQLiteVersion) < 0 {
		return nil, fmt.Errorf("sqlite %s is older than %s, which fixed a WAL corruption bug; rebuild fincom with a newer modernc.org/sqlite", v, MinSQLiteVersion)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = NewUUID
	}
	if opts.MaxOpen <= 0 {
		opts.MaxOpen = defaultMaxOpen
	}
	return &Domains{dir: dir, opts: opts, open: map[string]*DB{}, clocks: map[string]*clock{}, swapping: map[string]chan struct{}{},
		opening: map[string]chan struct{}{}}, nil
}

// Dir returns the data directory.
func (d *Domains) Dir() string { return d.dir }

func (d *Domains) path(name string) string { return filepath.Join(d.dir, name+".db") }

// Create makes a new domain file with the current schema and seed data.
func (d *Domains) Create(ctx context.Context, name string) error {
	if !ValidDomainName(name) {
		return ErrBadName
	}
	finish, err := d.creating(ctx, name)
	if err != nil {
		return wrap("create domain", err)
	}
	db, err := d.openFile(ctx, name, true)
	d.mu.Lock()
	defer d.mu.Unlock()
	finish(err != nil)
	if err != nil {
		return wrap("create domain", err)
	}
	d.evictLocked(d.opts.MaxOpen - 1)
	d.open[name] = db
	db.lastUsed.Store(time.Now().UnixNano())
	return nil
}

// creating starts a new domain's file: it is created empty under the lock
// (O_EXCL: two creates of one name fail cleanly, and an existing file is
// never taken), then filled by the caller outside the lock, as a file is
// opened (Acquire): the domain's requests wait for it meanwhile, other
// domains' go on. Migrating a new file takes tens of milliseconds, and
// throw-away test domains are made while other tests run. finish, called
// with d.mu held, ends the wait, removing the file if it failed.
func (d *Domains) creating(ctx context.Context, name string) (finish func(failed bool), err error) {
	p := d.path(name)
	// A request may be opening the name (it will find no file): the new
	// file is made after that open has given up, or both would migrate it.
	if err := d.lockSettled(ctx, name); err != nil {
		return nil, err
	}
	defer d.mu.Unlock()
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, ErrDomainExists
	}
	if err != nil {
		return nil, fmt.Errorf("create domain file: %w", err)
	}
	f.Close()
	ch := make(chan struct{})
	d.opening[name] = ch
	return func(failed bool) {
		if failed {
			os.Remove(p)
			os.Remove(p + "-wal")
			os.Remove(p + "-shm")
		}
		delete(d.opening, name)
		close(ch)
	}, nil
}

// openFile opens and migrates a domain file. A new file is stamped with its
// domain name, so that a file copied under another name is recognised.
func (d *Domains) openFile(ctx context.Context, name string, fresh bool) (*DB, error) {
	w, r, err := openDB(d.path(name), d.opts.Durability)
	if err != nil {
		return nil, err
	}
	// Files are opened outside d.mu (other domains' requests go on), but
	// the clocks' map is d.mu's.
	d.mu.Lock()
	clock := d.clockOf(name)
	d.mu.Unlock()
	db := &DB{Name: name, path: d.path(name), w: w, r: r, access: newAuthCache(), walOwned: d.opts.WALOwner, now: clock.now, id: d.opts.NewID, secret: NewSecret, rulebook: d.opts.Rules,
		restartAt: restartFrames}
	fail := func(err error) (*DB, error) {
		r.Close()
		w.Close()
		return nil, err
	}
	if _, err := migrate(ctx, w, d.opts.Schema, d.opts.Now()); err != nil {
		return fail(fmt.Errorf("domain %s: %w", name, err))
	}
	if d.opts.Seeded {
		if db.ids, err = newIDSource(ctx, w, d.opts.Seed, name); err != nil {
			return fail(err)
		}
		db.id, db.secret = db.ids.uuid, db.ids.secret
	}
	if fresh {
		if _, err := w.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('domain', ?), ('created_at', ?)`, name, timestamp(d.opts.Now())); err != nil {
			return fail(fmt.Errorf("stamp domain: %w", err))
		}
		return db, nil
	}
	var stamped string
	if err := w.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'domain'`).Scan(&stamped); err != nil {
		return fail(fmt.Errorf("domain %s: read stamp: %w", name, err))
	}
	if stamped != name {
		return fail(fmt.Errorf("file %s holds domain %q, not %q: tokens name their domain, so a domain keeps its name", d.path(name), stamped, name))
	}
	return db, nil
}

// Acquire returns the open domain, opening it when needed. The caller must
// call release when done; an idle domain (no users) may then be closed.
func (d *Domains) Acquire(ctx context.Context, name string) (db *DB, release func(), err error) {
	if !ValidDomainName(name) {
		return nil, nil, ErrNoDomain
	}
	if err := d.lockSettled(ctx, name); err != nil {
		return nil, nil, wrap("open domain", err)
	}
	db = d.open[name]
	if db == nil {
		// Opened outside the lock: other domains' requests go on.
		ch := make(chan struct{})
		d.opening[name] = ch
		d.mu.Unlock()
		db, err = d.openExisting(ctx, name)
		d.mu.Lock()
		delete(d.opening, name)
		close(ch)
		if err != nil {
			d.mu.Unlock()
			return nil, nil, wrap("open domain", err)
		}
		d.evictLocked(d.opts.MaxOpen - 1)
		d.open[name] = db
	}
	defer d.mu.Unlock()
	db.users.Add(1)
	var once sync.Once
	return db, func() {
		once.Do(func() {
			db.lastUsed.Store(time.Now().UnixNano())
			db.users.Add(-1)
		})
	}, nil
}

// lockSettled takes d.mu once the domain's file is neither being replaced
// nor opened (or created): until then it waits. On error the lock is not
// held.
func (d *Domains) lockSettled(ctx context.Context, name string) error {
	for {
		d.mu.Lock()
		ch := d.swapping[name]
		if ch == nil {
			ch = d.opening[name]
		}
		if ch == nil {
			return nil
		}
		d.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Visit is Acquire for background work that passes over every domain
// (the jobs' catch-up, the daily run, deliveries): a domain it had to open
// is closed again at release unless a request is using it by then. A pass
// over a thousand domains must not leave the last MaxOpen of them holding
// their SQLite memory (about half a megabyte each) until they idle out.
func (d *Domains) Visit(ctx context.Context, name string) (db *DB, release func(), err error) {
	d.mu.Lock()
	wasOpen := d.open[name] != nil
	d.mu.Unlock()
	db, rel, err := d.Acquire(ctx, name)
	if err != nil || wasOpen {
		return db, rel, wrap("visit domain", err)
	}
	var once sync.Once
	return db, func() {
		once.Do(func() {
			rel()
			d.mu.Lock()
			defer d.mu.Unlock()
			// Acquire counts its users under d.mu: none can appear
			// between this check and the close.
			if d.open[name] == db && db.users.Load() == 0 {
				delete(d.open, name)
				db.Close()
			}
		})
	}, nil
}

// openExisting opens the domain's file, which must exist.
func (d *Domains) openExisting(ctx context.Context, name string) (*DB, error) {
	if _, err := os.Stat(d.path(name)); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, ErrNoDomain
		}
		return nil, err
	}
	return d.openFile(ctx, name, false)
}

// swapIn replaces the domain's file by a copy of src while the server
// runs. The copy is made first; then the domain's new requests wait, its
// in-flight ones finish (held of them belong to the caller), its file is
// closed and replaced, and the waiting requests open the new one. Other
// domains are never blocked.
func (d *Domains) swapIn(ctx context.Context, name, src string, held int64) error {
	p := d.path(name)
	tmp := p + ".swap"
	if err := copyFile(src, tmp); err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := syncFile(tmp); err != nil {
		return err
	}
	d.mu.Lock()
	if d.swapping[name] != nil {
		d.mu.Unlock()
		return fmt.Errorf("domain %s: a restore or reset is already running", name)
	}
	ch := make(chan struct{})
	d.swapping[name] = ch
	// An open that started before is let finish (no new one starts now).
	for d.opening[name] != nil {
		o := d.opening[name]
		d.mu.Unlock()
		<-o
		d.mu.Lock()
	}
	db := d.open[name]
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.swapping, name)
		d.mu.Unlock()
		close(ch)
	}()
	if db != nil {
		deadline := time.Now().Add(10 * time.Second)
		for db.users.Load() > held {
			if time.Now().After(deadline) {
				return fmt.Errorf("domain %s: requests still running after 10s", name)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if db := d.open[name]; db != nil {
		delete(d.open, name)
		db.Close()
	}
	os.Remove(p + "-wal")
	os.Remove(p + "-shm")
	if err := os.Rename(tmp, p); err != nil {
		return err
	}
	return syncDir(d.dir)
}

// Names lists the domains in the data directory.
func (d *Domains) Names() ([]string, error) {
	entries, err := os.ReadDir(d.dir)
	if err != nil {
		return nil, wrap("list domains", err)
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".db"); ok && !e.IsDir() && ValidDomainName(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Exists reports whether the domain's file exists.
func (d *Domains) Exists(name string) bool {
	if !ValidDomainName(name) {
		return false
	}
	_, err := os.Stat(d.path(name))
	return err == nil
}

// CloseIdle closes domains unused for longer than idle (wall-clock time:
// this is resource housekeeping, not business time). It returns how many it
// closed.
func (d *Domains) CloseIdle(idle time.Duration) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	cutoff := time.Now().Add(-idle).UnixNano()
	n := 0
	for name, db := range d.open {
		if db.users.Load() == 0 && db.lastUsed.Load() < cutoff {
			delete(d.open, name)
			db.Close()
			n++
		}
	}
	return n
}

// evictLocked closes the least recently used idle domains until at most
// keep are open. Domains in use stay open whatever the count. d.mu is held.
func (d *Domains) evictLocked(keep int) {
	for len(d.open) > keep {
		var lru string
		var oldest int64
		for name, db := range d.open {
			if db.users.Load() == 0 && (lru == "" || db.lastUsed.Load() < oldest) {
				lru, oldest = name, db.lastUsed.Load()
			}
		}
		if lru == "" {
			return
		}
		d.open[lru].Close()
		delete(d.open, lru)
	}
}

// OpenNames lists the domains whose file is open now, in name order.
func (d *Domains) OpenNames() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	names := make([]string, 0, len(d.open))
	for n := range d.open {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// OpenCount returns how many domain files are open.
func (d *Domains) OpenCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.open)
}

// Close closes every open domain, checkpointing its WAL.
func (d *Domains) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for name, db := range d.open {
		if err := db.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", name, err))
		}
		delete(d.open, name)
	}
	return errors.Join(errs...)
}

// MigrateAll opens every domain file, which applies pending migrations, and
// reports each domain's resulting schema version.
func (d *Domains) MigrateAll(ctx context.Context) (map[string]int, error) {
	names, err := d.Names()
	if err != nil {
		return nil, wrap("migrate all", err)
	}
	out := map[string]int{}
	for _, n := range names {
		db, release, err := d.Acquire(ctx, n)
		if err != nil {
			return out, wrap("migrate all", err)
		}
		var v int
		err = db.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
		release()
		if err != nil {
			return out, wrap("migrate all", err)
		}
		out[n] = v
	}
	return out, nil
}

// CheckFile runs PRAGMA integrity_check on a database file and checks that
// its schema is exactly the one this build gives a file of its schema
// version: no table, index, trigger or view more, less or different (a
// file carrying a trigger of its own would run it on every write).
func CheckFile(ctx context.Context, path string) error {
	conn, err := sql.Open("sqlite", fileURI(path, "mode=ro&_pragma=busy_timeout("+busyMillis+")"))
	if err != nil {
		return wrap("check file", err)
	}
	defer conn.Close()
	var res string
	if err := conn.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("integrity check of %s: %s", path, res)
	}
	var v int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return wrap("check file", err)
	}
	if v > SchemaVersion() {
		return fmt.Errorf("%w: %s has schema %d, this build knows %d", ErrSchemaTooNew, path, v, SchemaVersion())
	}
	if v == 0 {
		return fmt.Errorf("%s is not a fincom domain file", path)
	}
	want, err := expectedSchema(ctx, v)
	if err != nil {
		return wrap("check file", err)
	}
	got, err := describeSchema(ctx, conn)
	if err != nil {
		return wrap("check file", err)
	}
	if d := schemaDiff(want, got); len(d) > 0 {
		return fmt.Errorf("%w: %s differs from fincom's schema %d: %s", ErrForeignSchema, path, v, strings.Join(d, ", "))
	}
	return nil
}

// DomainOf returns the domain name stamped in a domain file.
func DomainOf(ctx context.Context, path string) (string, error) {
	conn, err := sql.Open("sqlite", fileURI(path, "mode=ro"))
	if err != nil {
		return "", wrap("domain of", err)
	}
	defer conn.Close()
	var name string
	err = conn.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'domain'`).Scan(&name)
	return name, wrap("domain of", err)
}

// CheckVersions reads the schema version of every domain file from its
// header (PRAGMA user_version is the big-endian integer at offset 60) and
// refuses files newer than this build, so that the server says so at start
// rather than at a request. It opens no database: a thousand files take
// milliseconds.
func (d *Domains) CheckVersions() error {
	names, err := d.Names()
	if err != nil {
		return wrap("check versions", err)
	}
	var newer []string
	for _, n := range names {
		f, err := os.Open(d.path(n))
		if err != nil {
			return wrap("check versions", err)
		}
		var h [64]byte
		_, err = io.ReadFull(f, h[:])
		f.Close()
		if err != nil {
			continue // an empty or short file is reported when opened
		}
		if v := int(binary.BigEndian.Uint32(h[60:64])); v > SchemaVersion() {
			newer = append(newer, fmt.Sprintf("%s (schema %d)", n, v))
		}
	}
	if len(newer) > 0 {
		return fmt.Errorf("%w: this build knows schema %d, but %s; upgrade fincom", ErrSchemaTooNew, SchemaVersion(), strings.Join(newer, ", "))
	}
	return nil
}

// backupName matches a backup file of BackupAll: <domain>-<stamp>.db.
var backupName = regexp.MustCompile(`^([a-z0-9][a-z0-9-]{0,62})-(\d{8}T\d{6}Z)\.db$`)

// prune removes a domain's oldest backups beyond keep.
func prune(dir, domain string, keep int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var mine []string
	for _, e := range entries {
		if m := backupName.FindStringSubmatch(e.Name()); m != nil && m[1] == domain {
			mine = append(mine, e.Name())
		}
	}
	sort.Strings(mine) // the stamp sorts by time
	for len(mine) > keep {
		if err := os.Remove(filepath.Join(dir, mine[0])); err != nil {
			return err
		}
		mine = mine[1:]
	}
	return nil
}

// Remove deletes a domain: its file, WAL and snapshots. It must not be in
// use (ErrInUse otherwise).
func (d *Domains) Remove(name string) error {
	if !ValidDomainName(name) {
		return ErrBadName
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.opening[name] != nil {
		return ErrInUse
	}
	if db := d.open[name]; db != nil {
		if db.users.Load() > 0 {
			return ErrInUse
		}
		delete(d.open, name)
		db.Close()
	}
	delete(d.clocks, name)
	p := d.path(name)
	os.Remove(p + "-wal")
	os.Remove(p + "-shm")
	os.RemoveAll(filepath.Join(d.dir, "_snapshots", name))
	os.Remove(d.throwAwayMarker(name))
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return wrap("remove domain", err)
	}
	return nil
}
