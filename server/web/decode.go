package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"fincom/server/brdoc"
	"fincom/store"
)

// Body is a request body read into its top-level fields. Values stay raw
// until a handler decodes them into its request struct, so that aliases and
// types are checked against what the route declares.
type Body struct {
	Fields map[string]json.RawMessage
	// form marks fields that came from plain multipart form fields: their
	// text may stand for a number or a boolean.
	form  map[string]bool
	Files []filePart
	// free gives back what a multipart body took of the upload budget;
	// the adapter calls it when the request is done.
	free func()
}

// filePart is one `files` part of a multipart body, read whole.
type filePart struct {
	Name     string // as the client sent it
	Data     []byte
	TooLarge bool // over maxFileBytes: drained, not kept
}

// str returns a top-level string field, trying each name in turn; a
// non-string value counts as absent.
func (b Body) str(names ...string) string {
	for _, n := range names {
		raw, ok := b.Fields[n]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// nonString answers the first of the names sent with a value that is
// neither a string nor null, or "".
func (b Body) nonString(names ...string) string {
	for _, n := range names {
		raw, ok := b.Fields[n]
		if !ok {
			continue
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] != '"' && string(raw) != "null" {
			return n
		}
	}
	return ""
}

// readBody reads a JSON object, or a multipart form whose `metadata` part is
// a JSON object, within the server's size limits.
func (s *Mux) readBody(w http.ResponseWriter, r *http.Request) (Body, error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		return s.readMultipart(w, r)
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.MaxJSON))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return Body{}, errBodyTooLarge
		}
		return Body{}, errInvalidJSON
	}
	b := Body{Fields: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(raw)) == 0 {
		// An empty body is an empty object: the route then answers its own
		// "missing parameters" text.
		return b, nil
	}
	if err := parseObject(raw, &b.Fields); err != nil {
		return Body{}, err
	}
	return b, nil
}

// maxDepth bounds the nesting of request bodies: fincom's deepest shape
// (a sales order's taxes) is four levels.
const maxDepth = 32

// checkStructure walks the body's bytes once: depth and duplicate keys.
// It judges valid JSON exactly (json.Unmarshal, after it, refuses what is
// not JSON at all), and reads no token as a value: every request runs it,
// and encoding/json's token reader allocated per token (TestCheckStructure
// holds it to that reader's answers).
func checkStructure(raw []byte) error {
	var stack []keyFrame
	key := false // the next string is a key of the innermost object
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '{', '[':
			if len(stack) >= maxDepth {
				return errInvalidJSON
			}
			stack = append(stack, keyFrame{object: c == '{'})
			key = c == '{'
		case '}', ']':
			if len(stack) == 0 {
				return errInvalidJSON
			}
			stack = stack[:len(stack)-1]
			key = false
		case ',':
			key = len(stack) > 0 && stack[len(stack)-1].object
		case '"':
			j, escaped := i+1, false
			for ; j < len(raw) && raw[j] != '"'; j++ {
				if raw[j] == '\\' {
					j++
					escaped = true
				}
			}
			if j >= len(raw) {
				return errInvalidJSON
			}
			if key {
				k := string(raw[i+1 : j])
				if escaped {
					// "a" and "\u0061" are one key.
					if json.Unmarshal(raw[i:j+1], &k) != nil {
						return errInvalidJSON
					}
				}
				if !stack[len(stack)-1].add(k) {
					return errInvalidJSON
				}
				key = false
			}
			i = j
		}
	}
	return nil
}

// keyFrame is an array or object checkStructure is inside, with the keys
// an object has shown: compared in turn (a body's objects hold few), then,
// past manyKeys, looked up.
type keyFrame struct {
	object bool
	keys   []string
	many   map[string]bool
}

const manyKeys = 32

// add records a key of the object; false when it was there already.
func (f *keyFrame) add(k string) bool {
	if f.many == nil && len(f.keys) < manyKeys {
		if slices.Contains(f.keys, k) {
			return false
		}
		f.keys = append(f.keys, k)
		return true
	}
	if f.many == nil {
		f.many = make(map[string]bool, 2*manyKeys)
		for _, seen := range f.keys {
			f.many[seen] = true
		}
	}
	if f.many[k] {
		return false
	}
	f.many[k] = true
	return true
}

// parseObject accepts exactly one JSON object, in valid UTF-8, nested at
// most maxDepth deep, with no key twice in any object: encoding/json would
// replace bad bytes and keep the last of two keys silently, and a client
// sending either has a bug it should hear about.
func parseObject(raw []byte, into *map[string]json.RawMessage) error {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' || !utf8.Valid(trimmed) {
		return errInvalidJSON
	}
	if err := checkStructure(trimmed); err != nil {
		return err
	}
	if err := json.Unmarshal(trimmed, into); err != nil || *into == nil {
		return errInvalidJSON
	}
	return nil
}

// fieldInfo describes one field of a request struct: its JSON name, the
// aliases its `alias` tag declares (comma-separated), and whether it is a
// group (a nested object decoded with the same rules; `decode:"group,flat"`
// also reads the group's fields from the top level when the object is
// absent, the spec's legacy flat form). Fields of embedded structs count as
// the outer struct's.
type fieldInfo struct {
	Index   []int
	Name    string
	Aliases []string
	Group   bool
	flat    bool
	// multiline (`text:"multiline"`): a text of several lines (notes,
	// observations, template HTML) may hold line breaks and tabs; every
	// other text is one line. No text holds any other control character.
	multiline bool
	// required (`required:"true"`): every route that decodes the struct
	// needs the field (a route's need adds what only it needs).
	required bool
	// max (`max:"short"`, "long" or a number; TagMax): the most characters (code points, as sent) a
	// text field holds; the OpenAPI document gives it as maxLength
	// (TestTextLimitsAsDocumented).
	max int
	// lo and hi (`range:"1,500"`; TagRange): the bounds of a whole number,
	// which the OpenAPI document gives as minimum and maximum.
	lo, hi int
	ranged bool
	// Choices (`enum:"in,out,all"`): the values a text or code field
	// takes; another is refused (choiceError) and the OpenAPI document
	// lists them. Empty is "not sent".
	//
	// An optional text sent blank is none (a choice or filter not sent, a
	// date or address cleared), and the OpenAPI document admits "" for it;
	// `blank:"refused"` marks one whose handler refuses it blank (an
	// entry's due date), which the document then does not admit
	// (TestBoundariesOfExamples holds the two together).
	Choices []string
}

// Decoder decodes request bodies into request structs. It reads each
// struct's tags once and keeps them.
type Decoder struct {
	types sync.Map // reflect.Type -> []fieldInfo
}

func (d *Decoder) FieldsOf(t reflect.Type) []fieldInfo {
	if v, ok := d.types.Load(t); ok {
		return v.([]fieldInfo)
	}
	var out []fieldInfo
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			for _, inner := range d.FieldsOf(f.Type) {
				inner.Index = append([]int{i}, inner.Index...)
				out = append(out, inner)
			}
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		kind, opt, _ := strings.Cut(f.Tag.Get("decode"), ",")
		fi := fieldInfo{Index: []int{i}, Name: name, Group: kind == "group", flat: opt == "flat", multiline: f.Tag.Get("text") == "multiline"}
		if a := f.Tag.Get("alias"); a != "" {
			fi.Aliases = strings.Split(a, ",")
		}
		fi.required = f.Tag.Get("required") == "true"
		fi.max = TagMax(f)
		fi.lo, fi.hi, fi.ranged = TagRange(f)
		if e := f.Tag.Get("enum"); e != "" {
			fi.Choices = strings.Split(e, ",")
		}
		out = append(out, fi)
	}
	d.types.Store(t, out)
	return out
}

var ErrFormat = errors.New("wrong field type")

// FieldError is a decode failure of one field: its name as sent, dotted
// below its group ("pv.value"), and the cause (errFormat, or the store's
// range errors).
type FieldError struct {
	Field string
	err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.err.Error() }
func (e *FieldError) Unwrap() error { return e.err }

// Fill fills dst (a pointer to a struct) from fields. The canonical name
// wins over an alias; unknown fields are ignored (old clients send extras);
// a value of the wrong type is a *fieldError wrapping errFormat.
func (d *Decoder) Fill(fields map[string]json.RawMessage, form map[string]bool, dst any) error {
	return d.FillIn("", fields, form, dst)
}

func (d *Decoder) FillIn(prefix string, fields map[string]json.RawMessage, form map[string]bool, dst any) error {
	v := reflect.ValueOf(dst).Elem()
	for _, fi := range d.FieldsOf(v.Type()) {
		key := fi.Name
		raw, ok := fields[key]
		for _, a := range fi.Aliases {
			if ok {
				break
			}
			key = a
			raw, ok = fields[a]
		}
		fv := v.FieldByIndex(fi.Index)
		if fi.Group {
			inner := fields
			groupPrefix := prefix
			if ok && string(raw) != "null" {
				inner = nil
				if err := json.Unmarshal(raw, &inner); err != nil {
					return &FieldError{prefix + key, ErrFormat}
				}
				groupPrefix = prefix + key + "."
			} else if !fi.flat {
				continue
			}
			target := fv
			if fv.Kind() == reflect.Pointer {
				fv.Set(reflect.New(fv.Type().Elem()))
				target = fv.Elem()
			}
			if err := d.FillIn(groupPrefix, inner, form, target.Addr().Interface()); err != nil {
				return err
			}
			continue
		}
		if !ok {
			continue
		}
		if elem, isList := structList(fv.Type()); isList && string(raw) != "null" {
			// A list of objects (pv.products): each decoded by the same
			// rules, so that its aliases apply and a wrong field is named
			// with its place (pv.products[1].quantity).
			if err := d.fillList(prefix+key, raw, form, fv, elem); err != nil {
				return err
			}
			continue
		}
		if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
			if form[key] && unquoteInto(raw, fv) {
				continue
			}
			if !errors.Is(err, store.ErrMoneyRange) && !errors.Is(err, store.ErrQuantityRange) && !errors.Is(err, brdoc.ErrPixKey) {
				err = ErrFormat
			}
			return &FieldError{prefix + key, err}
		}
		s, isText := textOf(fv)
		if isText && hasControl(s, fi.multiline) {
			return &FieldError{prefix + key, errControl}
		}
		if isText && fi.max > 0 && utf8.RuneCountInString(s) > fi.max {
			return &FieldError{prefix + key, ErrTooLong}
		}
		if n, isInt := intOf(fv); fi.ranged && isInt && (n < int64(fi.lo) || n > int64(fi.hi)) {
			return &FieldError{prefix + key, &rangeError{fi.lo, fi.hi}}
		}
		if fi.Choices != nil && isText && strings.TrimSpace(s) != "" && !slices.Contains(fi.Choices, strings.TrimSpace(s)) {
			return &FieldError{prefix + key, &choiceError{fi.Choices}}
		}
	}
	return nil
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// structList reports whether t is a list (or a pointer to one) of request
// structs: structs of tagged fields that decode themselves by no method of
// their own (store.Decimal is a struct too, and reads itself).
func structList(t reflect.Type) (reflect.Type, bool) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.Struct || reflect.PointerTo(t.Elem()).Implements(unmarshaler) {
		return nil, false
	}
	return t.Elem(), true
}

// fillList decodes a JSON array of objects into fv (a slice, or a pointer
// to one) element by element with fillIn.
func (d *Decoder) fillList(name string, raw json.RawMessage, form map[string]bool, fv reflect.Value, elem reflect.Type) error {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return &FieldError{name, ErrFormat}
	}
	list := reflect.MakeSlice(reflect.SliceOf(elem), len(items), len(items))
	for i, item := range items {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(item, &fields); err != nil || fields == nil {
			return &FieldError{fmt.Sprintf("%s[%d]", name, i), ErrFormat}
		}
		if err := d.FillIn(fmt.Sprintf("%s[%d].", name, i), fields, form, list.Index(i).Addr().Interface()); err != nil {
			return err
		}
	}
	if fv.Kind() == reflect.Pointer {
		p := reflect.New(fv.Type().Elem())
		p.Elem().Set(list)
		fv.Set(p)
		return nil
	}
	fv.Set(list)
	return nil
}

// ErrChoice is a value outside its field's choices; a route may answer it
// with its own text (errMap), else with textInvalidChoice.
var ErrChoice = errors.New("value outside the field's choices")

// choiceError is errChoice with the choices.
type choiceError struct{ choices []string }

func (e *choiceError) Error() string        { return "use " + strings.Join(e.choices, ", ") }
func (e *choiceError) Is(target error) bool { return target == ErrChoice }

// orList writes choices as a sentence does: "in, out or all".
func orList(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// missingError lists the required fields (the route's need) a request
// lacks, dotted below their group, in the order the route declares them.
type missingError struct{ fields []string }

func (e *missingError) Error() string        { return "missing " + strings.Join(e.fields, ", ") }
func (e *missingError) Is(target error) bool { return target == ErrMissing }

// Missing answers which required fields dst lacks, its struct's
// (`required:"true"`) then need (JSON names, dotted below a group): a text
// that is blank, a pointer or group that is nil, an empty list. Required
// fields are only of these kinds (TestRequiredFieldsResolve).
func (d *Decoder) Missing(dst any, need []string) []string {
	var out []string
	for _, name := range append(d.Required(reflect.TypeOf(dst).Elem()), need...) {
		v, ok := d.Lookup(reflect.ValueOf(dst).Elem(), name)
		if !ok || blank(v) {
			out = append(out, name)
		}
	}
	return out
}

// Required are the JSON names of t's fields tagged required, and of its
// groups' (dotted below the group: "pv.value"), wherever the body sends
// them (a group read flat finds them at the top).
func (d *Decoder) Required(t reflect.Type) []string {
	var out []string
	for _, fi := range d.FieldsOf(t) {
		if fi.required {
			out = append(out, fi.Name)
		}
		if fi.Group {
			gt := t.FieldByIndex(fi.Index).Type
			if gt.Kind() == reflect.Pointer {
				gt = gt.Elem()
			}
			for _, inner := range d.Required(gt) {
				out = append(out, fi.Name+"."+inner)
			}
		}
	}
	return out
}

// Lookup finds the field a dotted JSON name refers to; false when a group
// on the way is nil or the name is unknown.
func (d *Decoder) Lookup(v reflect.Value, name string) (reflect.Value, bool) {
	head, rest, dotted := strings.Cut(name, ".")
	for _, fi := range d.FieldsOf(v.Type()) {
		if fi.Name != head {
			continue
		}
		fv := v.FieldByIndex(fi.Index)
		if !dotted {
			return fv, true
		}
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				return fv, false
			}
			fv = fv.Elem()
		}
		if fv.Kind() != reflect.Struct {
			return fv, false
		}
		return d.Lookup(fv, rest)
	}
	return reflect.Value{}, false
}

// blank reports an absent value of a field a route needs.
func blank(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return strings.TrimSpace(v.String()) == ""
	case reflect.Pointer, reflect.Interface:
		return v.IsNil() || blank(v.Elem())
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	}
	return false
}

// errControl is a text holding a control character it may not hold.
var errControl = errors.New("control character in a text")

// textOf answers the text of a string field (or a pointer to one).
func textOf(fv reflect.Value) (string, bool) {
	if fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			return "", false
		}
		fv = fv.Elem()
	}
	if fv.Kind() != reflect.String {
		return "", false
	}
	return fv.String(), true
}

// hasControl reports a C0 or C1 control character or DEL in s; a
// multi-line text may hold line feeds, carriage returns and tabs. A NUL
// or an escape in a name reaches logs, e-mail headers and invoices.
func hasControl(s string, multiline bool) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			if multiline && (r == '\n' || r == '\r' || r == '\t') {
				continue
			}
			return true
		}
	}
	return false
}

// unquoteInto decodes a form field's text as JSON ("12.5", "true") into a
// non-string field.
func unquoteInto(raw json.RawMessage, fv reflect.Value) bool {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	return json.Unmarshal([]byte(s), fv.Addr().Interface()) == nil
}

// TagMax reads a field's `max` tag: the most characters its text holds
// ("short" MaxShortText, "long" MaxLongText, or a number), 0 when it has
// none (TestTextLimitsAsDocumented).
// TagRange reads a whole number's `range:"lo,hi"` tag.
func TagRange(f reflect.StructField) (lo, hi int, ok bool) {
	a, b, found := strings.Cut(f.Tag.Get("range"), ",")
	if !found {
		return 0, 0, false
	}
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	return lo, hi, err1 == nil && err2 == nil && lo <= hi
}

// intOf is the whole number a field holds, if it is one and was sent.
func intOf(fv reflect.Value) (int64, bool) {
	if fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			return 0, false
		}
		fv = fv.Elem()
	}
	switch fv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fv.Int(), true
	}
	return 0, false
}

// rangeError is a whole number outside its field's range tag.
type rangeError struct{ lo, hi int }

func (e *rangeError) Error() string { return fmt.Sprintf("use %d to %d", e.lo, e.hi) }

func TagMax(f reflect.StructField) int {
	switch tag := f.Tag.Get("max"); tag {
	case "short":
		return MaxShortText
	case "long":
		return MaxLongText
	default:
		n, err := strconv.Atoi(tag)
		if err != nil || n < 0 {
			return 0
		}
		return n
	}
}
