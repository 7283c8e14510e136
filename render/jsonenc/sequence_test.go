package jsonenc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// rows is a Sequence over a slice, as store.Listing is over a query: it
// fails after failAt elements, panics at panicAt, and records how it
// ended.
type rows struct {
	items   []any
	failAt  int
	panicAt int
	ended   error // what yield last returned, or nil
	read    int
}

var errRead = errors.New("read failed")

func (r *rows) EachValue(yield func(any) error) error {
	for i, x := range r.items {
		if i == r.failAt {
			return errRead
		}
		if i == r.panicAt {
			panic("boom")
		}
		r.read++
		if err := yield(x); err != nil {
			r.ended = err
			return err
		}
	}
	return nil
}

func many(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = &inner{A: fmt.Sprintf("row %d \"quoted\"", i), B: i}
	}
	return out
}

// A sequence is written as the slice of its elements would be, whatever
// its length against the read-ahead batches, and inside other values.
func TestSequenceAsSlice(t *testing.T) {
	for _, n := range []int{0, 1, readAhead - 1, readAhead, readAhead + 1, 5*readAhead + 3, 3000} {
		items := many(n)
		if n == 1 {
			items[0] = nil // a nil element is null
		}
		got, err := appendJSON(nil, struct {
			Data any `json:"data"`
		}{&rows{items: items, failAt: -1, panicAt: -1}})
		if err != nil {
			t.Fatal(n, err)
		}
		want := std(t, struct {
			Data []any `json:"data"`
		}{items})
		if string(got) != want {
			t.Fatalf("%d elements:\n got %.200s\nwant %.200s", n, got, want)
		}
	}
}

// A read that fails midway is the answer's error (the server then sends
// an error, or cuts a started answer), never a short array passed off as
// whole.
func TestSequenceReadError(t *testing.T) {
	for _, at := range []int{0, 1, readAhead, 100} {
		got, err := appendJSON(nil, &rows{items: many(200), failAt: at, panicAt: -1})
		if !errors.Is(err, errRead) {
			t.Fatalf("fail at %d: err %v", at, err)
		}
		if strings.HasSuffix(string(got), "]") {
			t.Fatalf("fail at %d: closed the array: %.100s", at, got)
		}
	}
}

// A panic while reading is an error, not the end of the process.
func TestSequencePanic(t *testing.T) {
	_, err := appendJSON(nil, &rows{items: many(100), failAt: -1, panicAt: 40})
	if err == nil || !strings.Contains(err.Error(), "panic: boom") {
		t.Fatalf("err %v", err)
	}
}

type failingWriter struct{ after, n int }

var errWrite = errors.New("client gone")

func (w *failingWriter) Write(b []byte) (int, error) {
	if w.n++; w.n > w.after {
		return 0, errWrite
	}
	return len(b), nil
}

// When the answer cannot be written (the client left), the reader is told
// to stop and has stopped before Write returns: the read transaction it
// holds is closed with the request.
func TestSequenceWriterGone(t *testing.T) {
	r := &rows{items: many(20000), failAt: -1, panicAt: -1}
	_, started, err := Write(&failingWriter{after: 1}, nil, r)
	if !errors.Is(err, errWrite) || !started {
		t.Fatalf("err %v, started %v", err, started)
	}
	if !errors.Is(r.ended, errStopped) {
		t.Fatalf("reader ended with %v after %d of %d rows", r.ended, r.read, len(r.items))
	}
	if r.read == len(r.items) {
		t.Fatal("the reader read every row")
	}
}

type panickingWriter struct{}

func (panickingWriter) Write([]byte) (int, error) { panic("write boom") }

// A panic while writing (a bug) goes on up to the server's recovery, but
// only once the reader has been stopped and has returned: it would
// otherwise wait for ever, holding its read transaction.
func TestSequenceWriterPanics(t *testing.T) {
	r := &rows{items: many(20000), failAt: -1, panicAt: -1}
	func() {
		defer func() {
			if p := recover(); p != "write boom" {
				t.Fatalf("recovered %v", p)
			}
		}()
		Write(panickingWriter{}, nil, r)
	}()
	if !errors.Is(r.ended, errStopped) {
		t.Fatalf("reader ended with %v after %d of %d rows", r.ended, r.read, len(r.items))
	}
}
