package replica

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/benbjohnson/litestream"
	"github.com/superfly/ltx"
)

// Position is where a file stands: its newest transaction and when it
// was written.
type Position struct {
	TXID ltx.TXID
	At   time.Time
}

// ReplicaPosition answers the newest transaction the bucket holds of a
// file (zero when none), across its levels.
func (c *Connection) ReplicaPosition(ctx context.Context, file string) (Position, error) {
	cl := c.Client(file)
	var p Position
	for _, level := range levelNumbers() {
		it, err := cl.LTXFiles(ctx, level, 0, false)
		if err != nil {
			return p, err
		}
		for it.Next() {
			if f := it.Item(); f.MaxTXID > p.TXID {
				p = Position{TXID: f.MaxTXID, At: f.CreatedAt}
			}
		}
		if err := it.Close(); err != nil {
			return p, err
		}
	}
	return p, nil
}

// LocalPosition answers the newest transaction Litestream has taken from
// a file's WAL, from its local state in dir (zero when it has none).
func LocalPosition(dir, file string) (Position, error) {
	var p Position
	root := filepath.Join(dir, "."+file+litestream.MetaDirSuffix)
	for _, level := range levelNumbers() {
		entries, err := os.ReadDir(litestream.LTXLevelDir(root, level))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return p, err
		}
		for _, e := range entries {
			_, maxTXID, err := ltx.ParseFilename(e.Name())
			if err != nil || maxTXID <= p.TXID {
				continue
			}
			info, err := e.Info()
			if err != nil {
				return p, err
			}
			p = Position{TXID: maxTXID, At: info.ModTime()}
		}
	}
	return p, nil
}

// levelNumbers are the levels a file's LTX files are kept at: the
// compaction levels and the snapshots'.
func levelNumbers() []int {
	out := []int{litestream.SnapshotLevel}
	for _, l := range levels {
		out = append(out, l.Level)
	}
	return out
}
