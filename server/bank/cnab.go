package bank

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// A CNAB 240 record is declared as the manuals print it: one field a
// line, "name start end kind [default]", positions 1-based and inclusive,
// kind 9 (numeric: right-aligned, zero-filled) or X (alphanumeric:
// left-aligned, blank-filled, upper-case ASCII). A filler is named "-".
// A remittance record declares every position from 1 to 240
// (TestLayoutsCoverEveryColumn); a return record only what fincom reads.

type field struct {
	name       string
	start, end int // 1-based, inclusive
	num        bool
	def        string
}

type record struct {
	fields []field
	byName map[string]field
	// err is a declaration line that does not read: every file written
	// with the record is refused with it (and TestLayoutsCoverEveryColumn
	// fails).
	err error
}

// recordOf reads a record's declaration.
func recordOf(spec string) record {
	r := record{byName: map[string]field{}}
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		p := strings.Fields(line)
		if len(p) < 4 {
			r.err = fmt.Errorf("cnab: bad field line %q", line)
			return r
		}
		s, err1 := strconv.Atoi(p[1])
		e, err2 := strconv.Atoi(p[2])
		if err1 != nil || err2 != nil || e < s || (p[3] != "9" && p[3] != "X") {
			r.err = fmt.Errorf("cnab: bad field line %q", line)
			return r
		}
		f := field{name: p[0], start: s, end: e, num: p[3] == "9"}
		if len(p) > 4 {
			f.def = strings.Join(p[4:], " ")
		}
		r.fields = append(r.fields, f)
		if f.name != "-" {
			r.byName[f.name] = f
		}
	}
	return r
}

// ascii is a text as CNAB files carry it: upper case, without accents,
// only printable ASCII.
func ascii(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(unicode.ToUpper(r))
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// format writes the record with vals by field name; a field not given
// takes its default, else zeros or blanks. A numeric value that does not
// fit is an error, never truncated; a text is cut to its width.
func (r record) format(vals map[string]string) (string, error) {
	if r.err != nil {
		return "", r.err
	}
	line := []byte(strings.Repeat(" ", 240))
	for _, f := range r.fields {
		v, ok := vals[f.name]
		if !ok || f.name == "-" {
			v = f.def
		}
		w := f.end - f.start + 1
		if f.num {
			if v == "" {
				v = "0"
			}
			for _, c := range v {
				if c < '0' || c > '9' {
					return "", fmt.Errorf("cnab: field %s (%d-%d) is numeric, got %q", f.name, f.start, f.end, v)
				}
			}
			if len(v) > w {
				return "", fmt.Errorf("cnab: field %s (%d-%d) holds %d digits, got %q", f.name, f.start, f.end, w, v)
			}
			v = pad(v, w)
		} else {
			v = ascii(v)
			if len(v) > w {
				v = v[:w]
			}
			v += strings.Repeat(" ", w-len(v))
		}
		copy(line[f.start-1:f.end], v)
	}
	return string(line), nil
}

// get reads a field of a 240-column line; a name the record does not
// declare reads empty (every name read is declared:
// TestLayoutsMatchManuals and the round-trip tests read them all).
func (r record) get(line, name string) string {
	f, ok := r.byName[name]
	if !ok || len(line) < f.end {
		return ""
	}
	return strings.TrimSpace(line[f.start-1 : f.end])
}

// layout is one bank's CNAB 240 collection layout.
type layout struct {
	// Manual names the document the positions come from.
	manual                                 string
	fileHeader, batchHeader, p, q, r       record
	batchTrailer, fileTrailer              record
	t, u                                   record
	movements, rejections                  map[string]string
	ourNumberInT                           func(line string) string
	paidMovements, writeoffMovements       []string
	registeredMovements, rejectedMovements []string
}
