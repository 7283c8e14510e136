package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// body is a request body read into its top-level fields. Values stay raw
// until a handler decodes them into its request struct, so that aliases and
// types are checked against what the route declares.
type body struct {
	fields map[string]json.RawMessage
	// form marks fields that came from plain multipart form fields: their
	// text may stand for a number or a boolean.
	form  map[string]bool
	files []*multipart.FileHeader
}

// str returns a top-level string field, trying each name in turn; a
// non-string value counts as absent.
func (b body) str(names ...string) string {
	for _, n := range names {
		raw, ok := b.fields[n]
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

// readBody reads a JSON object, or a multipart form whose `metadata` part is
// a JSON object, within the server's size limits.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (body, error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		return s.readMultipart(w, r)
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxJSONBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return body{}, errBodyTooLarge
		}
		return body{}, errInvalidJSON
	}
	b := body{fields: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(raw)) == 0 {
		// An empty body is an empty object: the route then answers its own
		// "missing parameters" text.
		return b, nil
	}
	if err := parseObject(raw, &b.fields); err != nil {
		return body{}, err
	}
	return b, nil
}

// maxDepth bounds the nesting of request bodies: fincom's deepest shape
// (a sales order's taxes) is four levels.
const maxDepth = 32

// checkStructure walks the body's tokens once: depth and duplicate keys.
func checkStructure(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers are judged by the field that reads them
	type frame struct {
		keys   map[string]bool
		object bool
		key    bool // next string token in this object is a key
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

func (s *Server) readMultipart(w http.ResponseWriter, r *http.Request) (body, error) {
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxMultipartBytes)
	// Files past 8 MiB spill to temporary files, removed after the request.
	if err := r.ParseMultipartForm(8 << 20); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return body{}, errBodyTooLarge
		}
		return body{}, errInvalidJSON
	}
	b := body{fields: map[string]json.RawMessage{}, form: map[string]bool{}}
	form := r.MultipartForm
	var meta []byte
	if v := form.Value["metadata"]; len(v) > 0 {
		meta = []byte(v[0])
	} else if f := form.File["metadata"]; len(f) > 0 {
		// Some clients send the JSON part as a file with type application/json.
		fh, err := f[0].Open()
		if err != nil {
			return body{}, errInvalidJSON
		}
		meta, err = io.ReadAll(io.LimitReader(fh, s.cfg.MaxJSONBytes+1))
		fh.Close()
		if err != nil || int64(len(meta)) > s.cfg.MaxJSONBytes {
			return body{}, errBodyTooLarge
		}
	}
	if meta != nil {
		if err := parseObject(meta, &b.fields); err != nil {
			return body{}, err
		}
	}
	for k, v := range form.Value {
		if _, ok := b.fields[k]; ok || k == "metadata" || len(v) == 0 {
			continue
		}
		enc, _ := json.Marshal(v[0])
		b.fields[k] = enc
		b.form[k] = true
	}
	b.files = form.File["files"]
	return b, nil
}

// fieldInfo describes one field of a request struct: its JSON name, the
// aliases its `alias` tag declares (comma-separated), and whether it is a
// group (a nested object decoded with the same rules; `decode:"group,flat"`
// also reads the group's fields from the top level when the object is
// absent, the spec's legacy flat form). Fields of embedded structs count as
// the outer struct's.
type fieldInfo struct {
	index   []int
	name    string
	aliases []string
	group   bool
	flat    bool
}

// decoder decodes request bodies into request structs. It reads each
// struct's tags once and keeps them.
type decoder struct {
	types sync.Map // reflect.Type -> []fieldInfo
}

func (d *decoder) fieldsOf(t reflect.Type) []fieldInfo {
	if v, ok := d.types.Load(t); ok {
		return v.([]fieldInfo)
	}
	var out []fieldInfo
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			for _, inner := range d.fieldsOf(f.Type) {
				inner.index = append([]int{i}, inner.index...)
				out = append(out, inner)
			}
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		kind, opt, _ := strings.Cut(f.Tag.Get("decode"), ",")
		fi := fieldInfo{index: []int{i}, name: name, group: kind == "group", flat: opt == "flat"}
		if a := f.Tag.Get("alias"); a != "" {
			fi.aliases = strings.Split(a, ",")
		}
		out = append(out, fi)
	}
	d.types.Store(t, out)
	return out
}

var errFormat = errors.New("wrong field type")

// decode fills dst (a pointer to a struct) from fields. The canonical name
// wins over an alias; unknown fields are ignored (old clients send extras);
// a value of the wrong type is errFormat.
func (d *decoder) decode(fields map[string]json.RawMessage, form map[string]bool, dst any) error {
	v := reflect.ValueOf(dst).Elem()
	for _, fi := range d.fieldsOf(v.Type()) {
		key := fi.name
		raw, ok := fields[key]
		for _, a := range fi.aliases {
			if ok {
				break
			}
			key = a
			raw, ok = fields[a]
		}
		fv := v.FieldByIndex(fi.index)
		if fi.group {
			inner := fields
			if ok && string(raw) != "null" {
				inner = nil
				if err := json.Unmarshal(raw, &inner); err != nil {
					return errFormat
				}
			} else if !fi.flat {
				continue
			}
			target := fv
			if fv.Kind() == reflect.Pointer {
				fv.Set(reflect.New(fv.Type().Elem()))
				target = fv.Elem()
			}
			if err := d.decode(inner, form, target.Addr().Interface()); err != nil {
				return err
			}
			continue
		}
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
			if !form[key] || !unquoteInto(raw, fv) {
				return errFormat
			}
		}
	}
	return nil
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
