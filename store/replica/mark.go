package replica

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/superfly/ltx"
)

// A seal binds an object to its name, not to its recency: the bucket's
// owner may delete the newest objects, or put a whole prefix back as it
// was, and every object left still opens. So each file's replica carries
// a high-water mark (PREFIX/<file>/fincom-mark, sealed like the rest):
// the newest transaction written and when, put after the objects it
// covers. A restore refuses a replica whose objects end below its mark
// (objects deleted). A whole prefix rolled back brings an older mark back
// with it, which only a record outside the bucket tells: the data
// directory keeps the marks it wrote (MarksFile), the running server
// refuses to replicate onto a prefix whose mark is behind that record,
// `doctor --replicate` compares them, and `restore --from-replica` says
// which transaction it restored and refuses, with --expect-txid, anything
// older than the operator's own record.

// Mark is a replica's high-water mark: its newest transaction and when
// that transaction was written.
type Mark struct {
	TXID ltx.TXID  `json:"txid"`
	At   time.Time `json:"at"`
}

// markObject is the name of a file's mark under its replica's path.
const markObject = "fincom-mark"

// Errors of the marks.
var (
	// ErrObjectsMissing: the replica's objects end below its mark.
	ErrObjectsMissing = errors.New("objects the replica's mark covers are missing from the bucket")
	// ErrRolledBack: the replica's mark is behind what this data
	// directory wrote, or behind --expect-txid.
	ErrRolledBack = errors.New("the replica is older than what was written to it")
	// ErrUnmarked: a sealed replica without a mark (its deletion is a
	// rollback too).
	ErrUnmarked = errors.New("the sealed replica has no mark")
)

func (c *Client) markKey() string { return c.path + "/" + markObject }

// ReadMark answers the mark of the client's file; false when it has none.
func (c *Client) ReadMark(ctx context.Context) (Mark, bool, error) {
	key := c.markKey()
	out, err := c.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key)})
	var nsk *types.NoSuchKey
	if errors.As(err, &nsk) {
		return Mark{}, false, nil
	}
	if err != nil {
		return Mark{}, false, fmt.Errorf("replica: get %s: %w", key, err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(io.LimitReader(out.Body, 4096))
	if err != nil {
		return Mark{}, false, fmt.Errorf("replica: get %s: %w", key, err)
	}
	if c.seal != nil {
		if body, err = c.seal.open(body, key); err != nil {
			return Mark{}, false, err
		}
	} else if bytes.HasPrefix(body, sealMagic) {
		return Mark{}, false, fmt.Errorf("%w: %s is sealed and no key was given", ErrSealed, key)
	}
	var m Mark
	if err := json.Unmarshal(body, &m); err != nil || m.TXID == 0 {
		return Mark{}, false, fmt.Errorf("replica: %s is not a mark", key)
	}
	return m, true, nil
}

// writeMark puts the client's mark (sealed with a key).
func (c *Client) writeMark(ctx context.Context, m Mark) error {
	key := c.markKey()
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if c.seal != nil {
		if body, err = c.seal.seal(body, key); err != nil {
			return err
		}
	}
	if _, err := c.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(c.bucket), Key: aws.String(key), Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body)))}); err != nil {
		return fmt.Errorf("replica: put %s: %w", key, err)
	}
	return nil
}

// Coverage answers how far the replica's objects reach without a gap
// from its first transaction (their newest transaction and its time),
// across its levels.
func (c *Client) Coverage(ctx context.Context) (Position, error) {
	files, err := c.allFiles(ctx)
	if err != nil {
		return Position{}, err
	}
	return reach(files), nil
}

// coverageAt is Coverage of the objects written by at (a restore to a
// time).
func (c *Client) coverageAt(ctx context.Context, at time.Time) (Position, error) {
	files, err := c.allFiles(ctx)
	if err != nil {
		return Position{}, err
	}
	var before []*ltx.FileInfo
	for _, f := range files {
		if !f.CreatedAt.After(at) {
			before = append(before, f)
		}
	}
	return reach(before), nil
}

// allFiles lists the replica's LTX files of every level, with their
// times.
func (c *Client) allFiles(ctx context.Context) ([]*ltx.FileInfo, error) {
	var files []*ltx.FileInfo
	for _, level := range levelNumbers() {
		it, err := c.LTXFiles(ctx, level, 0, true)
		if err != nil {
			return nil, err
		}
		for it.Next() {
			files = append(files, it.Item())
		}
		if err := it.Close(); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// reach is the newest transaction the files lead to from the first
// without a gap, and its time.
func reach(files []*ltx.FileInfo) Position {
	sort.Slice(files, func(i, j int) bool { return files[i].MinTXID < files[j].MinTXID })
	var p Position
	for _, f := range files {
		if f.MinTXID > p.TXID+1 {
			break
		}
		if f.MaxTXID > p.TXID {
			p = Position{TXID: f.MaxTXID, At: f.CreatedAt}
		}
	}
	return p
}

// CheckMark compares a replica's objects with its mark: its mark, how
// far its objects reach, and ErrObjectsMissing when they end below it
// (ErrUnmarked: a sealed replica with objects and no mark).
func (c *Client) CheckMark(ctx context.Context) (Mark, Position, error) {
	m, marked, err := c.ReadMark(ctx)
	if err != nil {
		return m, Position{}, err
	}
	got, err := c.Coverage(ctx)
	if err != nil {
		return m, got, err
	}
	switch {
	case !marked && c.seal != nil && got.TXID != 0:
		return m, got, fmt.Errorf("%w (%s): its objects may have been rolled back; restore with --expect-txid, or --allow-unmarked to take it as it is",
			ErrUnmarked, c.path)
	case marked && got.TXID < m.TXID:
		return m, got, fmt.Errorf("%w: %s reaches transaction %s, its mark %s (written %s): transactions %s to %s are gone",
			ErrObjectsMissing, c.path, got.TXID, m.TXID, m.At.UTC().Format(time.RFC3339), got.TXID+1, m.TXID)
	}
	return m, got, nil
}

// MarksFile keeps, in the data directory, the marks it wrote to its
// replicas: the record outside the bucket a rolled-back prefix is told
// by.
const MarksFile = ".fincom-replica-marks.json"

// Marks is a data directory's record of the marks it wrote, by file.
type Marks struct {
	path string
	mu   sync.Mutex
}

// OpenMarks is the record of marks of the data directory dir.
func OpenMarks(dir string) *Marks { return &Marks{path: filepath.Join(dir, MarksFile)} }

func (m *Marks) read() (map[string]Mark, error) {
	out := map[string]Mark{}
	b, err := os.ReadFile(m.path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("replica: %s: %w", m.path, err)
	}
	return out, nil
}

// Get answers the mark recorded for file; false when none.
func (m *Marks) Get(file string) (Mark, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	all, err := m.read()
	mk, ok := all[file]
	return mk, ok, err
}

// Set records the mark written for file: raised only, unless reset (a
// restore from the replica: what the file now is).
func (m *Marks) Set(file string, mk Mark, reset bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	all, err := m.read()
	if err != nil {
		return err
	}
	if old, ok := all[file]; ok && !reset && old.TXID >= mk.TXID {
		return nil
	}
	all[file] = mk
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	tmp := m.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, m.path)
}

// behindRecord reports the rollback of a replica whose mark (marked:
// it has one) is behind the record of what this directory wrote.
func behindRecord(file string, bucket Mark, marked bool, record Mark, recorded bool) error {
	if !recorded || record.TXID == 0 || (marked && bucket.TXID >= record.TXID) {
		return nil
	}
	return fmt.Errorf("%w: the bucket's mark of %s is transaction %s, this machine wrote %s (at %s)",
		ErrRolledBack, file, bucket.TXID, record.TXID, record.At.UTC().Format(time.RFC3339))
}
