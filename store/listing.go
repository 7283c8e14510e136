package store

// Listing is the rows of a listing, read when they are asked for, not
// when the listing is made: the JSON writer reads a month of entries
// while it writes the first of them (server/jsonenc), so the answer's
// first bytes leave while SQLite is still stepping, and the month is
// never whole in memory. The caller must keep the domain open until it
// has read the rows (the server releases a domain after the answer).
type Listing[T any] struct {
	each func(yield func(T) error) error
}

// Each reads the rows in order and hands each to yield, in one read
// transaction; it stops at the first error, yield's or the read's, and
// returns it.
func (l Listing[T]) Each(yield func(T) error) error {
	if l.each == nil {
		return nil
	}
	return l.each(yield)
}

// EachValue is Each for a reader that does not know T (the JSON writer's
// jsonenc.Sequence).
func (l Listing[T]) EachValue(yield func(any) error) error {
	return l.Each(func(v T) error { return yield(v) })
}

// Map is the listing with f applied to each row before it is handed on.
func (l Listing[T]) Map(f func(T)) Listing[T] {
	return Listing[T]{func(yield func(T) error) error {
		return l.Each(func(v T) error {
			f(v)
			return yield(v)
		})
	}}
}

// All reads every row.
func (l Listing[T]) All() ([]T, error) {
	out := []T{}
	err := l.Each(func(v T) error {
		out = append(out, v)
		return nil
	})
	return out, err
}

// memo remembers what a listing has displayed: rows made together (an
// import, a batch, a recurrence) share their timestamps, each parsed and
// formatted in São Paulo time once per listing (BenchmarkTransactions). A
// nil memo remembers nothing.
type memo map[string]string

func (m memo) get(stored string, display func(string) string) string {
	if m == nil {
		return display(stored)
	}
	shown, ok := m[stored]
	if !ok {
		shown = display(stored)
		m[stored] = shown
	}
	return shown
}
