package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"fincom/store"
)

// std is what encoding/json writes for v with HTML escaping off.
func std(t testing.TB, v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

type quoted struct{ s string }

func (q quoted) AppendJSON(b []byte) []byte { return AppendString(b, q.s) }

// MarshalJSON lets encoding/json write the same thing for comparison.
func (q quoted) MarshalJSON() ([]byte, error) { return q.AppendJSON(nil), nil }

type level string

// node refers to itself: its encoder must not be needed while it is built.
type node struct {
	V    int    `json:"v"`
	Next *node  `json:"next"`
	Kids []node `json:"kids,omitempty"`
}

type inner struct {
	A string `json:"a"`
	B int    `json:"b,omitempty"`
}

type hidden struct {
	Deep bool `json:"deep"`
}

type outer struct {
	Name     string `json:"name"`
	Skip     string `json:"-"`
	private  int
	Level    level           `json:"level"`
	Q        quoted          `json:"q"`
	QP       *quoted         `json:"qp"`
	Inner    inner           `json:"inner"`
	PInner   *inner          `json:"p_inner"`
	List     []inner         `json:"list"`
	Nil      []string        `json:"nil"`
	Empty    []string        `json:"empty,omitempty"`
	Map      map[string]int  `json:"map"`
	Any      any             `json:"any"`
	Float    float64         `json:"float"`
	Bytes    []byte          `json:"bytes"`
	When     time.Time       `json:"when"`
	Raw      json.RawMessage `json:"raw"`
	U        uint8           `json:"u"`
	Untagged int
	Nested   map[string]*inner `json:"nested"`
	inner
	hidden
}

// TestAppendMatchesEncodingJSON writes values of every shape fincom's
// answers use, and some they do not, both ways.
func TestAppendMatchesEncodingJSON(t *testing.T) {
	type conflict struct {
		inner
		A string `json:"a"`
	}
	type withString struct {
		N int `json:"n,string"`
	}
	values := []any{
		nil, true, 0, -12, uint64(math.MaxUint64), "plain", "é\u2028\u2029<>&\x00\x1f\b\f\n\r\t\"\\\xff",
		[]string{"a", "b"}, []any{1, "x", nil, map[string]any{"k": []int{1}}},
		outer{Name: "n", Skip: "s", private: 1, Level: "high", Q: quoted{"q\n"}, Inner: inner{"x", 0}, List: []inner{{"y", 2}},
			Nil: []string{}, Empty: nil, Map: map[string]int{"b": 2, "a": 1}, Any: inner{"z", 3}, Float: 1.5e-7, Bytes: []byte("hi"),
			When: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), Raw: json.RawMessage(`{"r": 1}`), U: 7, Untagged: 3,
			Nested: map[string]*inner{"n": nil}, inner: inner{"embedded", 1}, hidden: hidden{true}},
		&outer{QP: &quoted{"p"}, PInner: &inner{"p", 1}, Any: []any{}, List: []inner{}, Nil: []string{}},
		conflict{inner{"deep", 1}, "shallow"},
		withString{5},
		node{1, &node{2, &node{V: 3}, []node{{V: 4}}}, nil},
		map[string]any{"success": true, "data": []outer{{List: []inner{}, Nil: []string{}}}},
	}
	for i, v := range values {
		got, err := appendJSON(nil, v)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if want := std(t, v); string(got) != want {
			t.Errorf("%d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestNilSliceIsEmptyList: a list is never null; a pointer that may be
// absent is.
func TestNilSliceIsEmptyList(t *testing.T) {
	type lists struct {
		Nil     []string         `json:"nil"`
		Omitted []string         `json:"omitted,omitempty"`
		Absent  *[]string        `json:"absent"`
		Empty   *[]string        `json:"empty"`
		Deep    [][]int          `json:"deep"`
		Items   []inner          `json:"items"`
		ByName  map[string][]int `json:"by_name"`
	}
	var empty []string
	got, err := appendJSON(nil, []any{[]int(nil), lists{Empty: &empty, Deep: [][]int{nil}, Items: []inner{}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[[],{"nil":[],"absent":null,"empty":[],"deep":[[]],"items":[],"by_name":null}]`; string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// FuzzAppendString holds AppendString to encoding/json's quoting for any
// bytes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "abc", "é\u2028", "\x00\x7f", "\xed\xa0\x80", "\"\\/<>&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendString(nil, s)), std(t, s); got != want {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	v := make([]outer, 100)
	for i := range v {
		v[i] = outer{Name: "nome com acentuação", Q: quoted{"texto"}, List: []inner{{"a", 1}}}
	}
	b.Run("jsonenc", func(b *testing.B) {
		for b.Loop() {
			appendJSON(nil, v)
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		for b.Loop() {
			std(b, v)
		}
	})
}

// TestWriteInPieces: Write's pieces make exactly appendJSON's bytes, and a
// long answer goes out before it is whole.
func TestWriteInPieces(t *testing.T) {
	rows := make([]inner, 20_000)
	for i := range rows {
		rows[i] = inner{A: "linha com acentuação", B: i}
	}
	body := struct {
		Success bool    `json:"success"`
		Data    []inner `json:"data"`
	}{true, rows}
	whole, err := appendJSON(nil, body)
	if err != nil {
		t.Fatal(err)
	}
	var w countingWriter
	tail, started, err := Write(&w, nil, body)
	if err != nil || !started || w.writes < 2 {
		t.Fatalf("err %v, started %v, %d writes", err, started, w.writes)
	}
	if got := append(w.buf.Bytes(), tail...); !bytes.Equal(got, whole) {
		t.Fatal("pieces differ from the whole")
	}
	if len(tail) >= flushAt {
		t.Fatalf("tail of %d bytes kept", len(tail))
	}
}

type countingWriter struct {
	buf    bytes.Buffer
	writes int
}

func (c *countingWriter) Write(b []byte) (int, error) {
	c.writes++
	return c.buf.Write(b)
}

// TestNullString: a store.Text is written as encoding/json writes its
// string (with HTML escaping off), or null.
func TestNullString(t *testing.T) {
	for _, s := range []string{"", "plain", `quo"te`, `back\slash`, "tab\tnl\ncr\r", "\x00\x1f", "ção <b>&", "bad\xffutf8", "\u2028\u2029", "😀"} {
		got, err := appendJSON(nil, struct {
			T store.Text `json:"t"`
		}{store.NewText(s)})
		if err != nil {
			t.Fatal(err)
		}
		var buf strings.Builder
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		var want any = s
		if s == "" {
			want = nil // empty text is null
		}
		enc.Encode(map[string]any{"t": want})
		if string(got) != strings.TrimSuffix(buf.String(), "\n") {
			t.Errorf("%q: got %s, want %s", s, got, buf.String())
		}
	}
}

// appendJSON appends v's JSON form to b, whole: the reference Write's
// pieces are compared with.
func appendJSON(b []byte, v any) ([]byte, error) {
	st := &state{b: b}
	err := st.value(v)
	return st.b, err
}
