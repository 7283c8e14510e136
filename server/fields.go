package server

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text limits. The spec gives none; these keep one record small while
// leaving room for any real name, address or note.
const (
	maxShortText = 255
	maxLongText  = 5000
)

var errTooLong = newError(http.StatusBadRequest, textTooLong)

// setText copies a sent text field (trimmed) onto a stored one; nil means
// "not sent" and leaves the stored value alone.
func setText(dst *string, src *string, max int) error {
	if src == nil {
		return nil
	}
	v := strings.TrimSpace(*src)
	if utf8.RuneCountInString(v) > max {
		return errTooLong
	}
	*dst = v
	return nil
}

// sent counts the non-nil pointers among fields: update routes need at least
// one.
func sent(fields ...any) int {
	n := 0
	for _, f := range fields {
		if v := reflect.ValueOf(f); v.Kind() == reflect.Pointer && !v.IsNil() {
			n++
		}
	}
	return n
}

// code is an integer id sent as a JSON number or a numeric string (the
// spec's `category_master`).
type code int64

func (c *code) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return errFormat
	}
	*c = code(n)
	return nil
}
