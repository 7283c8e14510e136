package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCheckStructure: the byte walk refuses exactly what encoding/json's
// token reader finds too deep or holding a key twice, on hand-written
// bodies and on random ones (fixed seed): keys escaped and not, nested
// objects and lists, strings holding quotes, brackets and commas.
func TestCheckStructure(t *testing.T) {
	bodies := []string{
		`{}`, `{"a":1}`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"a\"b":1,"a\"b":2}`, `{"a":"{\"a\":1,\"a\":2}"}`,
		`{"a":{"b":1},"b":{"b":2}}`, `{"a":{"b":1,"b":2}}`, `{"a":[{"k":1},{"k":1}]}`, `{"a":[{"k":1,"k":1}]}`,
		`{"a":"x,\"a\":1"}`, `{"a":"\\","a":1}`, `{"a":"\\"}`, `{"é":1,"\u00e9":2}`, `{"a":[1,[2,[3]]]}`,
		`{"x":` + strings.Repeat(`[`, maxDepth) + strings.Repeat(`]`, maxDepth) + `}`,
		`{"x":` + strings.Repeat(`[`, maxDepth-1) + strings.Repeat(`]`, maxDepth-1) + `}`,
	}
	// Many keys, the last one a repeat of the first: past the keys compared in turn.
	var many strings.Builder
	many.WriteString(`{`)
	for i := range 100 {
		fmt.Fprintf(&many, `"k%d":%d,`, i, i)
	}
	bodies = append(bodies, many.String()+`"k0":1}`, many.String()+`"k100":1}`)
	rng := rand.New(rand.NewPCG(7, 11))
	for range 3000 {
		bodies = append(bodies, randomObject(rng, 0))
	}
	for _, b := range bodies {
		if !json.Valid([]byte(b)) {
			t.Fatalf("not JSON: %s", b)
		}
		got, want := checkStructure([]byte(b)), checkByTokens([]byte(b))
		if (got == nil) != (want == nil) {
			t.Errorf("%s: byte walk %v, token reader %v", b, got, want)
		}
	}
}

// randomObject writes a JSON object of a few keys drawn from a small set
// (so that some repeat), spelled plainly or escaped, whose values are
// numbers, tricky strings, lists or objects.
func randomObject(rng *rand.Rand, depth int) string {
	var b strings.Builder
	b.WriteString("{")
	n := rng.IntN(5)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		k := []string{"a", "b", "ab"}[rng.IntN(3)]
		if rng.IntN(4) == 0 {
			k = fmt.Sprintf(`\u%04x`, k[0]) + k[1:]
		}
		fmt.Fprintf(&b, `"%s":%s`, k, randomValue(rng, depth+1))
	}
	b.WriteString("}")
	return b.String()
}

func randomValue(rng *rand.Rand, depth int) string {
	if depth > 4 {
		return "1"
	}
	switch rng.IntN(5) {
	case 0:
		return randomObject(rng, depth)
	case 1:
		return "[" + randomValue(rng, depth+1) + "," + randomObject(rng, depth+1) + "]"
	case 2:
		return []string{`"x\"y"`, `"{\"a\":1}"`, `"\\"`, `",\"a\":"`, `"]"`}[rng.IntN(5)]
	}
	return fmt.Sprint(rng.IntN(100))
}

// checkByTokens is the token reader's walk the byte walk replaced, kept
// here as the test's reference.
func checkByTokens(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		keys   map[string]bool
		object bool
		key    bool
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return errInvalidJSON
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if top != nil && top.object {
					top.key = true
				}
				if len(stack) >= maxDepth {
					return errInvalidJSON
				}
				stack = append(stack, frame{object: v == '{', key: v == '{', keys: map[string]bool{}})
				continue
			case '}', ']':
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].key = true
				}
				continue
			}
		case string:
			if top != nil && top.object && top.key {
				if top.keys[v] {
					return errInvalidJSON
				}
				top.keys[v] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.object {
			top.key = true
		}
	}
}
