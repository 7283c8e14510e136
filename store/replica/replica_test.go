package replica

import (
	"bytes"
	"errors"
	"testing"
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
