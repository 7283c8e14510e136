package store

import (
	"context"
	"testing"
)

// BenchmarkOpenDomain measures opening an existing, idle domain file: what
// the first request to a domain pays after idle closing.
func BenchmarkOpenDomain(b *testing.B) {
	ctx := context.Background()
	ds, err := OpenDomains(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	if err := ds.Create(ctx, "acme"); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		ds.CloseIdle(0)
		_, release, err := ds.Acquire(ctx, "acme")
		if err != nil {
			b.Fatal(err)
		}
		release()
	}
}
