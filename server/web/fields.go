package web

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"fincom/server/brdoc"
)

// Text limits. The spec gives none; these keep one record small while
// leaving room for any real name, address or note.
const (
	MaxShortText = 255
	MaxLongText  = 5000
)

var ErrTooLong = NewError(http.StatusBadRequest, textTooLong)

// SetText copies a sent text field (trimmed) onto a stored one; nil means
// "not sent" and leaves the stored value alone. Its length was held to
// its field's max tag by the decoder.
func SetText(dst *string, src *string) {
	if src != nil {
		*dst = strings.TrimSpace(*src)
	}
}

// Sent counts the non-nil pointers among fields: update routes need at least
// one.
func Sent(fields ...any) int {
	n := 0
	for _, f := range fields {
		if v := reflect.ValueOf(f); v.Kind() == reflect.Pointer && !v.IsNil() {
			n++
		}
	}
	return n
}

// TagPattern compiles the `pattern` tag of a request struct's field: the
// one expression both the OpenAPI document shows and the validation
// applies (TestRequestPatterns).
func TagPattern(v any, field string) *regexp.Regexp {
	f, ok := reflect.TypeOf(v).FieldByName(field)
	if !ok || f.Tag.Get("pattern") == "" {
		panic("no pattern tag on " + reflect.TypeOf(v).String() + "." + field)
	}
	return regexp.MustCompile(f.Tag.Get("pattern"))
}

// Code is an integer id sent as a JSON number or a numeric string (the
// spec's `category_master`).
type Code int64

func (c *Code) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return ErrFormat
	}
	*c = Code(n)
	return nil
}

// FlexInt is an integer sent as a number or a numeric string (1, "1").
type FlexInt int

func (n *FlexInt) UnmarshalJSON(b []byte) error {
	v, err := strconv.Atoi(strings.Trim(string(b), `"`))
	if err != nil {
		return ErrFormat
	}
	*n = FlexInt(v)
	return nil
}

// PixKey is a PIX key as it enters (an order's, a contract's): normalized
// to the form the DICT registers, or a *fieldError wrapping
// brdoc.ErrPixKey that names the field (TestPixKeyEntersNormalized).
type PixKey string

func (k *PixKey) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return ErrFormat
	}
	if strings.TrimSpace(v) == "" {
		*k = ""
		return nil
	}
	n, _, err := brdoc.NormalizePixKey(v)
	if err != nil {
		return err
	}
	*k = PixKey(n)
	return nil
}

// FlexString is a code the spec shows as a string that clients also send
// as a number ("9" or 9).
type FlexString string

func (s *FlexString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return ErrFormat
		}
		*s = FlexString(strings.TrimSpace(v))
		return nil
	}
	if _, err := strconv.Atoi(string(b)); err != nil {
		return ErrFormat
	}
	*s = FlexString(b)
	return nil
}

// IdRequest names one record of the unit: `id_token`, alias `token`.
type IdRequest struct {
	IDToken string `json:"id_token" alias:"token" required:"true" doc:"The record's token."`
}
