// Package jsonenc writes JSON answers byte for byte as encoding/json does
// (with HTML escaping off), faster for fincom's listings: a month of sales
// orders is 500 structs of 80 fields, and encoding/json spends most of its
// time there calling each field's MarshalJSON and then checking and
// compacting what it returned. Types that know their JSON form implement
// Appender and are written in place; struct layouts are worked out once per
// type; anything this package does not handle itself (maps, floats, other
// marshalers) is handed to encoding/json, so the output never differs but
// in one rule: a nil slice is written [], not null. fincom's lists are
// never null (the OpenAPI document types them as arrays); a value that may
// be absent is a pointer, written null when nil (TestNilSliceIsEmptyList).
package jsonenc

import (
	"bytes"
	"encoding"
	"encoding/json"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Appender is a value that appends its own JSON form, which must be valid
// and compact.
type Appender interface {
	AppendJSON(b []byte) []byte
}

// NullString is a nullable text (store.Text): written as a JSON string,
// or null when it has none. Listings write tens of thousands of these.
type NullString interface {
	NullableString() (string, bool)
}

// Write writes v's JSON form to w through buf (reused, and returned for
// reuse): answers longer than flushAt go out in pieces as they are made,
// so a listing of a megabyte is never whole in memory. started reports
// whether anything reached w, which an error afterwards cannot take back.
func Write(w io.Writer, buf []byte, v any) (out []byte, started bool, err error) {
	st := &state{b: buf[:0], w: w}
	if err := st.value(v); err != nil {
		return st.b, st.flushed, err
	}
	if err := st.flush(); err != nil {
		return st.b, true, err
	}
	return st.b, st.flushed, nil
}

// flushAt is the size past which Write hands what it has to its writer.
const flushAt = 32 << 10

// state is one encoding in progress: the bytes not yet written, and where
// they go (nil for Append).
type state struct {
	b       []byte
	w       io.Writer
	flushed bool
}

func (st *state) value(v any) error {
	if v == nil {
		st.b = append(st.b, "null"...)
		return nil
	}
	rv := reflect.ValueOf(v)
	return encoderOf(rv.Type())(st, rv)
}

// flush writes the pending bytes; the answer's tail stays for the caller
// to add to.
func (st *state) flush() error {
	if st.w == nil || len(st.b) == 0 {
		return nil
	}
	st.flushed = true
	_, err := st.w.Write(st.b)
	st.b = st.b[:0]
	return err
}

type encoder func(st *state, v reflect.Value) error

// encoders caches each type's encoder, as encoding/json caches its own:
// written once per type, read by every answer after.
var encoders sync.Map // reflect.Type -> encoder

var (
	appenderType      = reflect.TypeFor[Appender]()
	nullStringType    = reflect.TypeFor[NullString]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

func encoderOf(t reflect.Type) encoder {
	if e, ok := encoders.Load(t); ok {
		return e.(encoder)
	}
	// Building an encoder looks at field types only when it runs, so a
	// recursive type does not recurse here.
	e, _ := encoders.LoadOrStore(t, newEncoder(t))
	return e.(encoder)
}

func newEncoder(t reflect.Type) encoder {
	switch {
	case t.Implements(sequenceType):
		return encodeSequence
	case t.Implements(nullStringType) && t.Kind() != reflect.Pointer:
		return func(st *state, v reflect.Value) error {
			var s string
			var ok bool
			if v.CanAddr() {
				s, ok = v.Addr().Interface().(NullString).NullableString()
			} else {
				s, ok = v.Interface().(NullString).NullableString()
			}
			if !ok {
				st.b = append(st.b, "null"...)
			} else {
				st.b = AppendString(st.b, s)
			}
			return nil
		}
	case t.Implements(appenderType):
		byAddr := t.Kind() != reflect.Pointer
		return func(st *state, v reflect.Value) error {
			switch {
			case v.Kind() == reflect.Pointer && v.IsNil():
				st.b = append(st.b, "null"...)
			case byAddr && v.CanAddr():
				// Through a pointer: boxing a struct value would allocate.
				st.b = v.Addr().Interface().(Appender).AppendJSON(st.b)
			default:
				st.b = v.Interface().(Appender).AppendJSON(st.b)
			}
			return nil
		}
	case hasOwnForm(t):
		return delegate
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(st *state, v reflect.Value) error { st.b = strconv.AppendBool(st.b, v.Bool()); return nil }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(st *state, v reflect.Value) error { st.b = strconv.AppendInt(st.b, v.Int(), 10); return nil }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(st *state, v reflect.Value) error { st.b = strconv.AppendUint(st.b, v.Uint(), 10); return nil }
	case reflect.String:
		return func(st *state, v reflect.Value) error { st.b = AppendString(st.b, v.String()); return nil }
	case reflect.Interface:
		return func(st *state, v reflect.Value) error {
			if v.IsNil() {
				st.b = append(st.b, "null"...)
				return nil
			}
			e := v.Elem()
			return encoderOf(e.Type())(st, e)
		}
	case reflect.Pointer:
		elem := t.Elem()
		var once sync.Once
		var enc encoder
		return func(st *state, v reflect.Value) error {
			if v.IsNil() {
				st.b = append(st.b, "null"...)
				return nil
			}
			once.Do(func() { enc = encoderOf(elem) })
			return enc(st, v.Elem())
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return delegate // base64
		}
		elem := t.Elem()
		return func(st *state, v reflect.Value) error {
			enc := encoderOf(elem)
			st.b = append(st.b, '[')
			for i := range v.Len() {
				if i > 0 {
					st.b = append(st.b, ',')
				}
				if err := enc(st, v.Index(i)); err != nil {
					return err
				}
				if len(st.b) >= flushAt {
					if err := st.flush(); err != nil {
						return err
					}
				}
			}
			st.b = append(st.b, ']')
			return nil
		}
	case reflect.Struct:
		if fields, ok := structFields(t); ok {
			return structEncoder(fields)
		}
	}
	return delegate
}

// delegate writes v with encoding/json.
func delegate(st *state, v reflect.Value) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v.Interface()); err != nil {
		return err
	}
	st.b = append(st.b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
	return nil
}

type field struct {
	key       []byte // `"name":`
	index     []int
	omitEmpty bool
	typ       reflect.Type
}

// structFields lists t's encoded fields in encoding/json's order, with
// embedded structs flattened. It declines (false) what it would have to
// resolve by encoding/json's precedence rules — two fields of one name —
// and tag options beyond omitempty.
func structFields(t reflect.Type) ([]field, bool) {
	var out []field
	seen := map[string]bool{}
	var walk func(t reflect.Type, index []int) bool
	walk = func(t reflect.Type, index []int) bool {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			idx := append(append([]int{}, index...), i)
			ft := sf.Type
			if sf.Anonymous && name == "" && (ft.Kind() == reflect.Struct || ft.Kind() == reflect.Pointer) {
				// Embedded structs are flattened; the rare cases with
				// their own rules (pointers, marshalers) go to
				// encoding/json.
				if ft.Kind() == reflect.Pointer || hasOwnForm(ft) || !walk(ft, idx) {
					return false
				}
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if opts != "" && opts != "omitempty" {
				return false
			}
			if name == "" {
				name = sf.Name
			}
			if seen[name] || !validName(name) {
				return false
			}
			seen[name] = true
			key := AppendString(nil, name)
			out = append(out, field{key: append(key, ':'), index: idx, omitEmpty: opts == "omitempty", typ: ft})
		}
		return true
	}
	if !walk(t, nil) {
		return nil, false
	}
	return out, true
}

// hasOwnForm reports whether t writes its JSON itself.
func hasOwnForm(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(appenderType) || t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		p.Implements(marshalerType) || p.Implements(textMarshalerType)
}

// validName is encoding/json's test for a usable tag name; anything else
// falls back to encoding/json.
func validName(s string) bool {
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c > utf8.RuneSelf):
			return false
		}
	}
	return s != ""
}

func structEncoder(fields []field) encoder {
	// The fields' encoders are looked up on first use, not here: a
	// recursive type would otherwise ask for its own encoder while it is
	// being built. Looking them up once, not per value, matters: a month's
	// listing has tens of thousands of fields.
	var once sync.Once
	encs := make([]encoder, len(fields))
	return func(st *state, v reflect.Value) error {
		once.Do(func() {
			for i, f := range fields {
				encs[i] = encoderOf(f.typ)
			}
		})
		st.b = append(st.b, '{')
		first := true
		for i := range fields {
			f := &fields[i]
			var fv reflect.Value
			if len(f.index) == 1 {
				fv = v.Field(f.index[0])
			} else {
				fv = v.FieldByIndex(f.index)
			}
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			if !first {
				st.b = append(st.b, ',')
			}
			first = false
			st.b = append(st.b, f.key...)
			if err := encs[i](st, fv); err != nil {
				return err
			}
		}
		st.b = append(st.b, '}')
		return nil
	}
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// AppendString quotes s as encoding/json does with HTML escaping off:
// quotes, backslashes and control characters escaped (\b \f \n \r \t by
// name), invalid UTF-8 replaced by U+FFFD, U+2028 and U+2029 escaped.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
