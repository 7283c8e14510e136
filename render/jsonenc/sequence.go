package jsonenc

import (
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"
)

// Sequence is a JSON array whose elements are read while it is written
// (store.Listing): EachValue hands them over in order and stops at
// yield's first error.
type Sequence interface {
	EachValue(yield func(any) error) error
}

var sequenceType = reflect.TypeFor[Sequence]()

// readAhead is how many elements the reading goroutine hands over at a
// time: enough that handing over is rare (a month is a thousand rows),
// few enough that the first bytes leave early.
const readAhead = 32

// errStopped tells a sequence's reader that the writer has given up.
var errStopped = errors.New("jsonenc: writing stopped")

// encodeSequence reads the sequence on its own goroutine while this one
// encodes and writes what has been read: a month's listing is SQLite's
// stepping and its JSON in about equal parts, and on two cores the two
// overlap instead of adding up. It returns once the reader has finished,
// so whatever the sequence holds open (a read transaction) is closed by
// then.
func encodeSequence(st *state, v reflect.Value) error {
	seq := v.Interface().(Sequence)
	batches := make(chan []any, 2)
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(batches)
		defer func() {
			// A panic here would end the process: it becomes the
			// answer's error, as a handler's panic does.
			if p := recover(); p != nil {
				readErr = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			}
		}()
		hand := func(batch []any) error {
			select {
			case batches <- batch:
				return nil
			case <-stop:
				return errStopped
			}
		}
		batch := make([]any, 0, readAhead)
		readErr = seq.EachValue(func(x any) error {
			batch = append(batch, x)
			if len(batch) < readAhead {
				return nil
			}
			err := hand(batch)
			batch = make([]any, 0, readAhead)
			return err
		})
		if readErr == nil && len(batch) > 0 {
			readErr = hand(batch)
		}
	}()

	stopReader := sync.OnceFunc(func() { close(stop) })
	defer func() {
		// A panic while writing (a bug) still stops the reader and waits
		// for it, or it would hold its read transaction for ever.
		if p := recover(); p != nil {
			stopReader()
			for range batches {
			}
			panic(p)
		}
	}()
	var writeErr error
	st.b = append(st.b, '[')
	n := 0
	var lastType reflect.Type
	var enc encoder
	for batch := range batches {
		if writeErr != nil {
			continue // the reader is stopping; wait for it
		}
		for _, x := range batch {
			if n > 0 {
				st.b = append(st.b, ',')
			}
			n++
			if writeErr = st.element(x, &lastType, &enc); writeErr != nil {
				stopReader()
				break
			}
		}
	}
	// batches is closed: the reader has returned and set readErr.
	if writeErr != nil {
		return writeErr
	}
	if readErr != nil {
		return readErr
	}
	st.b = append(st.b, ']')
	return nil
}

// element encodes one element of a sequence and flushes a full buffer.
// Elements are usually all of one type, whose encoder is looked up once.
func (st *state) element(x any, lastType *reflect.Type, enc *encoder) error {
	if x == nil {
		st.b = append(st.b, "null"...)
	} else {
		rv := reflect.ValueOf(x)
		if rv.Type() != *lastType {
			*lastType, *enc = rv.Type(), encoderOf(rv.Type())
		}
		if err := (*enc)(st, rv); err != nil {
			return err
		}
	}
	if len(st.b) >= flushAt {
		return st.flush()
	}
	return nil
}
