package replica

import (
	"bytes"
	"errors"
	"testing"

	"github.com/superfly/ltx"
)

// TestSealer: a sealed object opens only with its key and under its own
// name; a bit flipped, another key or another object's name is refused.
func TestSealer(t *testing.T) {
	s, err := NewSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewSealer(bytes.Repeat([]byte{8}, 32))
	plain := []byte("LTX… Venda sigilosa")
	sealed, err := s.seal(plain, "books/acme.db/0000/a.ltx")
	if err != nil || bytes.Contains(sealed, []byte("sigilosa")) || s.plainSize(int64(len(sealed))) != int64(len(plain)) {
		t.Fatalf("sealed %q %v", sealed, err)
	}
	if got, err := s.open(sealed, "books/acme.db/0000/a.ltx"); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("opened %q %v", got, err)
	}
	flipped := append([]byte{}, sealed...)
	flipped[len(flipped)-1] ^= 1
	for name, c := range map[string]struct {
		s    *Sealer
		body []byte
		key  string
	}{
		"a bit flipped":        {s, flipped, "books/acme.db/0000/a.ltx"},
		"another key":          {other, sealed, "books/acme.db/0000/a.ltx"},
		"another object":       {s, sealed, "books/beta.db/0000/a.ltx"},
		"an object not sealed": {s, plain, "books/acme.db/0000/a.ltx"},
	} {
		if _, err := c.s.open(c.body, c.key); !errors.Is(err, ErrSealed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := NewSealer([]byte("short")); err == nil {
		t.Error("a short key accepted")
	}
}

// TestParseURL: the replica URL's parts, and what is refused.
func TestParseURL(t *testing.T) {
	got, err := ParseURL("s3://fincom/books/main?endpoint=https://s3.example.com&region=sa-east-1&force-path-style=true")
	if err != nil || got != (Target{Bucket: "fincom", Prefix: "books/main", Endpoint: "https://s3.example.com", Region: "sa-east-1", ForcePathStyle: true}) {
		t.Fatalf("%+v %v", got, err)
	}
	for _, bad := range []string{"file:///tmp/x", "s3:///books", "s3://b/p?endpoint=ftp://x", "s3://b/p?force-path-style=maybe"} {
		if _, err := ParseURL(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestReach: a replica's objects reach as far as they run without a gap
// from its first transaction, across levels; a gap ends them.
func TestReach(t *testing.T) {
	f := func(minTXID, maxTXID ltx.TXID) *ltx.FileInfo {
		return &ltx.FileInfo{MinTXID: minTXID, MaxTXID: maxTXID}
	}
	for name, c := range map[string]struct {
		files []*ltx.FileInfo
		want  ltx.TXID
	}{
		"none":                {nil, 0},
		"a snapshot and more": {[]*ltx.FileInfo{f(1, 5), f(6, 6), f(7, 9)}, 9},
		"levels overlapping":  {[]*ltx.FileInfo{f(1, 1), f(1, 8), f(2, 2), f(9, 9), f(3, 3)}, 9},
		"the newest deleted":  {[]*ltx.FileInfo{f(1, 5), f(6, 6)}, 6},
		"a gap":               {[]*ltx.FileInfo{f(1, 5), f(8, 9)}, 5},
		"no first":            {[]*ltx.FileInfo{f(2, 5)}, 0},
	} {
		if got := reach(c.files).TXID; got != c.want {
			t.Errorf("%s: reaches %s, want %s", name, got, c.want)
		}
	}
}

// TestBehindRecord: a bucket's mark behind what this directory wrote, or
// gone, is a rollback; at or past it, or nothing recorded, is not.
func TestBehindRecord(t *testing.T) {
	m := func(n ltx.TXID) Mark { return Mark{TXID: n} }
	for name, c := range map[string]struct {
		bucket           Mark
		marked, recorded bool
		record           Mark
		rolled           bool
	}{
		"in step":          {m(7), true, true, m(7), false},
		"ahead":            {m(9), true, true, m(7), false},
		"behind":           {m(5), true, true, m(7), true},
		"the mark deleted": {Mark{}, false, true, m(7), true},
		"nothing recorded": {m(5), true, false, Mark{}, false},
		"a reset record":   {Mark{}, false, true, Mark{}, false},
	} {
		err := behindRecord("acme.db", c.bucket, c.marked, c.record, c.recorded)
		if got := errors.Is(err, ErrRolledBack); got != c.rolled {
			t.Errorf("%s: %v", name, err)
		}
	}
}
