package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"reflect"
	"runtime"
	"unsafe"

	"modernc.org/libc"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// searchQuery runs a contact search on the domain's search pool: two
// reader connections whose query plans do not depend on bound values
// (SQLITE_DBCONFIG_ENABLE_QPSG), each statement prepared once.
//
// Without the setting SQLite marks a parameter compared with "=" so that
// binding 0 or 1 where something else was bound (or the reverse) prepares
// the statement again. FTS5 looks each search term up in each index
// segment with one such statement, binding the segment's id: whenever
// segment 1 sat beside others, every term of every search parsed SQL twice
// per segment, and a search after a day of inserts took 2.7 times its
// merged time (BenchmarkSearchAsItGrows; TestStablePlans holds the
// setting). The listings keep the other readers: they are planned better
// with it off (BenchmarkListSalesOrders lost 40% under it).
func (db *DB) searchQuery(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	db.stmtMu.Lock()
	if db.stmtsClosed {
		db.stmtMu.Unlock()
		return nil, errClosed
	}
	if db.search == nil {
		// A small page cache: a search reads a few index pages and its
		// hits' rows, and the pool must not weigh on a domain's memory
		// (the load script's peak for one busy domain).
		c, err := sqlite.NewConnector(fileURI(db.path, "_pragma=busy_timeout("+busyMillis+")&_pragma=query_only(ON)&_pragma=cache_size(-512)"))
		if err != nil {
			db.stmtMu.Unlock()
			return nil, err
		}
		db.search = sql.OpenDB(stablePlans{c})
		db.search.SetMaxOpenConns(searchReaders)
		db.search.SetMaxIdleConns(searchReaders)
		db.searchStmts = map[string]*sql.Stmt{}
	}
	pool, st := db.search, db.searchStmts[query]
	db.stmtMu.Unlock()
	if st == nil {
		// Prepared with no lock held: it waits for a free connection of
		// the pool (see cachedQuery).
		prepared, err := pool.PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		db.stmtMu.Lock()
		switch st = db.searchStmts[query]; {
		case db.stmtsClosed:
			db.stmtMu.Unlock()
			prepared.Close()
			return nil, errClosed
		case st != nil:
			prepared.Close()
		default:
			db.searchStmts[query], st = prepared, prepared
		}
		db.stmtMu.Unlock()
	}
	return st.QueryContext(ctx, args...)
}

// searchReaders is the size of each domain's search pool.
const searchReaders = 2

type stablePlans struct{ driver.Connector }

func (s stablePlans) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := s.Connector.Connect(ctx)
	if err != nil {
		return nil, wrap("connect", err)
	}
	if _, err := setQPSG(c, 1); err != nil {
		c.Close()
		return nil, wrap("connect", err)
	}
	return c, nil
}

// errNoHandle is returned when the driver's connection no longer has the
// fields setQPSG reads: a modernc.org/sqlite upgrade changed them, and
// TestStablePlans fails before such a build ships.
var errNoHandle = errors.New("store: cannot reach the SQLite handle of a modernc.org/sqlite connection")

// setQPSG calls sqlite3_db_config(SQLITE_DBCONFIG_ENABLE_QPSG, on, &res)
// on a modernc.org/sqlite connection (on -1 only reads) and returns the
// setting after the call. The driver offers no option for it, so the
// connection's handle is read from its unexported db and tls fields, after
// checking their types.
func setQPSG(c driver.Conn, on int32) (int32, error) {
	v := reflect.ValueOf(c)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return 0, errNoHandle
	}
	db, tls := v.Elem().FieldByName("db"), v.Elem().FieldByName("tls")
	if !db.IsValid() || db.Kind() != reflect.Uintptr || !tls.IsValid() || tls.Type() != reflect.TypeFor[*libc.TLS]() {
		return 0, errNoHandle
	}
	h := *(*uintptr)(unsafe.Pointer(db.UnsafeAddr()))
	t := *(**libc.TLS)(unsafe.Pointer(tls.UnsafeAddr()))
	if h == 0 || t == nil {
		return 0, errNoHandle
	}
	// The result is Go memory, pinned while SQLite writes it; the two
	// variadic slots (8 bytes each, libc.VaList's stride) are C memory.
	res := new(int32)
	*res = -1
	var pin runtime.Pinner
	pin.Pin(res)
	defer pin.Unpin()
	bp := libc.Xmalloc(t, 16)
	if bp == 0 {
		return 0, errors.New("store: out of memory")
	}
	defer libc.Xfree(t, bp)
	if rc := sqlite3.Xsqlite3_db_config(t, h, sqlite3.SQLITE_DBCONFIG_ENABLE_QPSG, libc.VaList(bp, on, uintptr(unsafe.Pointer(res)))); rc != sqlite3.SQLITE_OK {
		return 0, errors.New("store: sqlite3_db_config(QPSG) failed")
	}
	return *res, nil
}
