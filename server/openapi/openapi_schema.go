package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"fincom/server/brdoc"
	"fincom/server/registers"
	"fincom/server/web"
	"fincom/store"
)

// Go types as JSON Schema, for the OpenAPI document (openapi.go): request
// structs (their aliases, enums, formats and patterns) and the values the
// handlers return.

// schemaGen turns Go types into JSON Schema (2020-12, OpenAPI 3.1's
// dialect), collecting named structs as components.
type schemaGen struct {
	components map[string]any
	names      map[refKey]string
	taken      map[string]refKey
	answers    map[string]json.RawMessage // answersJSON
	err        error
}

var (
	typeMoney   = reflect.TypeOf(store.Money{})
	typeNumber  = reflect.TypeOf(store.Number{})
	typeDecimal = reflect.TypeOf(store.Decimal{})
	typeDateBR  = reflect.TypeOf(store.DateBR{})
	typeText    = reflect.TypeOf(store.Text{})
	typeStamp   = reflect.TypeOf(store.Stamp{})
	typeTime    = reflect.TypeOf(time.Time{})
	typeRaw     = reflect.TypeOf(json.RawMessage{})
	typeBytes   = reflect.TypeOf([]byte{})
	typeFlexInt = reflect.TypeOf(web.FlexInt(0))
	typeCode    = reflect.TypeOf(web.Code(0))
	typeFlexStr = reflect.TypeOf(web.FlexString(""))
	typePixKey  = reflect.TypeOf(web.PixKey(""))
)

// inputs are the shapes requests accept beside the plain JSON types, as
// components: a value that may come as a number or as a numeric string is
// a oneOf of the two, which client generators turn into a union
// (oapi-codegen, ogen and openapi-typescript read it; a type list such as
// [number, string] they do not).
var inputs = map[string]map[string]any{
	"AmountInput": {"description": "An amount: a JSON number (12.5) or a decimal string (\"12.50\"), between -9999999999.99 and 9999999999.99.",
		"oneOf": []any{
			map[string]any{"type": "number", "format": "double", "minimum": -9999999999.99, "maximum": 9999999999.99},
			map[string]any{"type": "string", "pattern": `^\s*-?[0-9]{1,10}(\.[0-9]+)?\s*$`},
		}},
	"QuantityInput": {"description": "A quantity: a JSON number (2.5) or a decimal string (\"2.5\"), between -999999999.999 and 999999999.999.",
		"oneOf": []any{
			map[string]any{"type": "number", "format": "double", "minimum": -999999999.999, "maximum": 999999999.999},
			map[string]any{"type": "string", "pattern": `^\s*-?[0-9]{1,9}(\.[0-9]+)?\s*$`},
		}},
	"IntegerInput": {"description": "An integer: a JSON number (3) or a numeric string (\"3\").",
		"oneOf": []any{
			map[string]any{"type": "integer"},
			map[string]any{"type": "string", "pattern": `^-?[0-9]+$`},
		}},
	"CodeInput": {"description": "A numeric code: a JSON number (9) or a string (\"9\").",
		"oneOf": []any{
			map[string]any{"type": "integer"},
			map[string]any{"type": "string"},
		}},
}

// input refers to one of inputs, adding it to the components.
func (g *schemaGen) input(name string) map[string]any {
	g.components[name] = inputs[name]
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// schema answers the schema of t; input selects what requests accept
// (amounts as numbers or strings, unknown fields ignored) over what
// responses hold (exactly these fields).
func (g *schemaGen) schema(t reflect.Type, input bool) map[string]any {
	switch t {
	case typeMoney:
		if input {
			return g.input("AmountInput")
		}
		return map[string]any{"type": "string", "pattern": `^-?[0-9]+\.[0-9]{2}$`, "description": "Amount with two decimal places."}
	case typeNumber:
		if input {
			return g.input("AmountInput")
		}
		return map[string]any{"type": "number", "description": "An amount the spec shows as a JSON number (budget, opening_balance); every other amount is a decimal string."}
	case typeDecimal:
		if input {
			return g.input("QuantityInput")
		}
		return map[string]any{"type": "string", "pattern": `^-?[0-9]+(\.[0-9]+)?$`}
	case typeDateBR:
		return map[string]any{"type": "string", "pattern": `^[0-9]{2}/[0-9]{2}/[0-9]{4}$`, "description": "Date as DD/MM/YYYY."}
	case typeText:
		return map[string]any{"type": []string{"string", "null"}}
	case typePixKey:
		return map[string]any{"type": "string", "pattern": brdoc.PixKeyPattern}
	case typeStamp:
		return map[string]any{"type": []string{"string", "null"}, "format": "date-time",
			"description": "A moment in São Paulo time, RFC 3339 (2026-11-22T09:00:00-03:00); null until it happens."}
	case typeTime:
		return map[string]any{"type": "string", "format": "date-time"}
	case typeRaw:
		return map[string]any{"description": "Any JSON value."}
	case typeBytes:
		return map[string]any{"type": "string", "contentEncoding": "base64"}
	case typeFlexInt, typeCode:
		if input {
			return g.input("IntegerInput")
		}
	case typeFlexStr:
		if input {
			return g.input("CodeInput")
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := g.schema(t.Elem(), input)
		return orNull(s)
	case reflect.Interface:
		return map[string]any{"description": "Any JSON value."}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		// Answers write a nil slice as [] (render/jsonenc); a request may
		// send null for "not sent".
		if input {
			return map[string]any{"type": []string{"array", "null"}, "items": g.schema(t.Elem(), input)}
		}
		return map[string]any{"type": "array", "items": g.schema(t.Elem(), input)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem(), input)}
	case reflect.Struct:
		return g.ref(t, input)
	}
	g.fail(fmt.Errorf("openapi: no schema for %s", t))
	return map[string]any{}
}

func (g *schemaGen) fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

// orNull lets a schema be null too.
func orNull(s map[string]any) map[string]any {
	if ref, ok := s["$ref"]; ok {
		return map[string]any{"anyOf": []any{map[string]any{"$ref": ref}, map[string]any{"type": "null"}}}
	}
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	switch typ := s["type"].(type) {
	case string:
		out["type"] = []string{typ, "null"}
	case []string:
		if !slices.Contains(typ, "null") {
			out["type"] = append(append([]string{}, typ...), "null")
		}
	case nil:
		// No type: anything, null included.
	}
	switch enum := s["enum"].(type) {
	case []any:
		if !slices.Contains(enum, any(nil)) {
			out["enum"] = append(append([]any{}, enum...), nil)
		}
	case []string:
		list := make([]any, 0, len(enum)+1)
		for _, e := range enum {
			list = append(list, e)
		}
		out["enum"] = append(list, nil)
	}
	return out
}

// notNull undoes orNull: the schema of a field a route requires.
func notNull(s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	if alts, ok := s["anyOf"].([]any); ok && len(alts) == 2 {
		if null, _ := alts[1].(map[string]any); null["type"] == "null" {
			delete(out, "anyOf")
			for k, v := range alts[0].(map[string]any) {
				out[k] = v
			}
		}
	}
	if typ, ok := s["type"].([]string); ok {
		kept := slices.DeleteFunc(slices.Clone(typ), func(t string) bool { return t == "null" })
		if len(kept) == 1 {
			out["type"] = kept[0]
		} else {
			out["type"] = kept
		}
	}
	if enum, ok := s["enum"].([]any); ok {
		out["enum"] = slices.DeleteFunc(slices.Clone(enum), func(e any) bool { return e == nil })
	}
	return out
}

// requiredField is a field a request must send: never null (the decoder
// reads null as missing) nor blank (a blank text is missing too), so its
// day or address has its format again and a text at least one character
// that is not a space.
func requiredField(s map[string]any) map[string]any {
	out := notNull(s)
	switch out["pattern"] {
	case blankOrDay:
		delete(out, "pattern")
		out["format"] = "date"
	case blankOrEmail:
		delete(out, "pattern")
		out["format"] = "email"
	}
	if d, ok := out["description"].(string); ok {
		d = strings.TrimSpace(strings.NewReplacer(blankDayNote, "", blankEmailNote, "").Replace(d))
		if d == "" {
			delete(out, "description")
		} else {
			out["description"] = d
		}
	}
	switch enum := out["enum"].(type) {
	case []any:
		out["enum"] = slices.DeleteFunc(slices.Clone(enum), func(e any) bool { return e == "" })
	case []string:
		out["enum"] = slices.DeleteFunc(slices.Clone(enum), func(e string) bool { return e == "" })
	}
	if out["type"] == "string" && out["enum"] == nil && out["format"] == nil {
		out["minLength"] = 1
		if out["pattern"] == nil {
			out["pattern"] = `\S`
		}
	}
	return out
}

// ref answers a $ref to the struct's component, generating it once; a
// struct read in requests and written in responses gets one of each.
func (g *schemaGen) ref(t reflect.Type, input bool) map[string]any {
	if t.Name() == "" {
		return g.object(t, input)
	}
	k := refKey{t, input}
	if n, ok := g.names[k]; ok {
		return map[string]any{"$ref": "#/components/schemas/" + n}
	}
	name := componentName(t)
	switch {
	case input && !strings.HasSuffix(name, "Request"):
		name += "Input"
	case !input:
		// A request struct echoed back (the fault rules) is named for
		// what it holds.
		name = strings.TrimSuffix(name, "Request")
	}
	if other, ok := g.taken[name]; ok {
		g.fail(fmt.Errorf("openapi: two types named %s (%s, %s)", name, other.t, t))
	}
	g.taken[name] = k
	g.names[k] = name
	g.components[name] = g.object(t, input)
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

type refKey struct {
	t     reflect.Type
	input bool
}

// componentName is the Go type's name, capitalized: contactRequest ->
// ContactRequest, store.Contact -> Contact.
func componentName(t reflect.Type) string {
	n := t.Name()
	if n == "" {
		return "Anonymous"
	}
	return strings.ToUpper(n[:1]) + n[1:]
}

// object documents a struct as encoding/json and fincom's decoder see it:
// json names, omitempty, embedded structs flattened, and in requests the
// alias tag's other names.
func (g *schemaGen) object(t reflect.Type, input bool) map[string]any {
	props := map[string]any{}
	var required []string
	g.fields(t, input, props, &required)
	out := map[string]any{"type": "object", "properties": props}
	if !input {
		out["additionalProperties"] = false
	}
	if len(required) > 0 {
		sort.Strings(required)
		out["required"] = required
	}
	return out
}

func (g *schemaGen) fields(t reflect.Type, input bool, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(ft, input, props, required)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		ft := f.Type
		if input && f.Tag.Get("required") == "true" && ft.Kind() == reflect.Pointer {
			// The decoder reads null as not sent: a required field's null
			// is refused as missing, so the document offers none.
			ft = ft.Elem()
		}
		var s map[string]any
		if e := f.Tag.Get("enum"); e != "" {
			s = enumSchema(ft, strings.Split(e, ","), input)
		} else {
			s = g.schema(ft, input)
		}
		for _, k := range []string{"format", "pattern"} {
			if v := f.Tag.Get(k); v != "" {
				// On a list, the tag speaks of its items.
				if items, ok := s["items"].(map[string]any); ok {
					items[k] = v
				} else {
					s[k] = v
				}
			}
		}
		if n := web.TagMax(f); n > 0 {
			if items, ok := s["items"].(map[string]any); ok {
				items["maxLength"] = n
			} else {
				s["maxLength"] = n
			}
		}
		if input && f.Tag.Get("required") == "true" {
			s = requiredField(s) // a list's null is no list: missing
		}
		if lo, hi, ok := web.TagRange(f); ok {
			s["minimum"], s["maximum"] = lo, hi
		}
		if input && f.Tag.Get("required") != "true" {
			switch f.Type.Kind() {
			case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Map:
				// The decoder reads null as not sent, as an absent field.
				s = orNull(s)
			case reflect.Pointer, reflect.Struct:
				if strings.HasPrefix(f.Tag.Get("decode"), "group") || f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct {
					s = orNull(s) // a group sent null: not sent
				}
			}
			if f.Tag.Get("blank") != "refused" {
				s = blankIsNone(s)
			}
		}
		var notes []string
		if d := f.Tag.Get("doc"); d != "" {
			notes = append(notes, d)
		}
		if input {
			if src, ok := TokenSources[name]; ok && f.Tag.Get("doc") == "" {
				notes = append(notes, "A token "+src+" lists.")
			}
			// An alias is told, not listed: two properties for one field
			// give generated clients two fields (ogen refuses birthDate
			// beside birth_date).
			if a := f.Tag.Get("alias"); a != "" {
				notes = append(notes, "Also accepted as `"+strings.ReplaceAll(a, ",", "`, `")+"`.")
			}
		}
		if d, ok := s["description"].(string); ok && notes != nil {
			notes = append(notes, d)
		}
		if notes != nil {
			s = withDescription(s, strings.Join(notes, " "))
		}
		props[name] = s
		if input {
			if f.Tag.Get("required") == "true" {
				*required = append(*required, name)
			}
			continue
		}
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*required = append(*required, name)
		}
	}
}

// Blank dates and addresses: the day's or the address's pattern, or "",
// and what the document says of them.
const (
	blankOrDay     = `^([0-9]{4}-[0-9]{2}-[0-9]{2})?$`
	blankOrEmail   = "^(" + registers.EmailPattern + ")?$"
	blankDayNote   = "A real day, YYYY-MM-DD; blank is none."
	blankEmailNote = "An e-mail address (RFC 5322 dot-atom, at most 254 characters); blank is none."
)

// blankIsNone documents what the server does with an optional text sent
// blank: a choice blank is as not sent (the decoder's rule), a day or an
// address blank is none (a filter left open, a date or address cleared).
// So the schema admits "" beside the field's choices, and a day's or an
// address's pattern stands for its format (a format admits no "").
func blankIsNone(s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	withBlank := func(enum any) any {
		switch list := enum.(type) {
		case []string:
			if !slices.Contains(list, "") {
				return append(slices.Clone(list), "")
			}
		case []any:
			if !slices.Contains(list, any("")) {
				return append(slices.Clone(list), "")
			}
		}
		return enum
	}
	if typ := out["type"]; out["enum"] != nil && (typ == "string" || slices.Contains(asStrings(typ), "string")) {
		out["enum"] = withBlank(out["enum"])
	}
	if alts, ok := out["oneOf"].([]any); ok {
		list := make([]any, len(alts))
		for i, a := range alts {
			alt, _ := a.(map[string]any)
			if alt["type"] == "string" && alt["enum"] != nil {
				alt = map[string]any{"type": "string", "enum": withBlank(alt["enum"])}
			}
			list[i] = alt
		}
		out["oneOf"] = list
	}
	switch out["format"] {
	case "date":
		delete(out, "format")
		out["pattern"] = blankOrDay
		out = withDescription(out, blankDayNote)
	case "email":
		delete(out, "format")
		out["pattern"] = blankOrEmail
		out = withDescription(out, blankEmailNote)
	}
	return out
}

func asStrings(v any) []string {
	l, _ := v.([]string)
	return l
}

// enumSchema documents a field of closed vocabulary: a text, or a code a
// client may send as a number (flexString) in a request; a pointer may be
// null (not sent).
func enumSchema(t reflect.Type, choices []string, input bool) map[string]any {
	ptr := t.Kind() == reflect.Pointer || t == typeText
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var s map[string]any
	if t == typeFlexStr && input {
		var ints []any
		for _, c := range choices {
			var n int
			fmt.Sscan(c, &n)
			ints = append(ints, n)
		}
		s = map[string]any{"oneOf": []any{
			map[string]any{"type": "integer", "enum": ints},
			map[string]any{"type": "string", "enum": choices},
		}}
		if ptr {
			s["oneOf"] = append(s["oneOf"].([]any), map[string]any{"type": "null"})
		}
		return s
	}
	if t.Kind() == reflect.Int {
		var ints []any
		for _, c := range choices {
			var n int
			fmt.Sscan(c, &n)
			ints = append(ints, n)
		}
		return map[string]any{"type": "integer", "enum": ints}
	}
	s = map[string]any{"type": "string", "enum": choices}
	if ptr {
		s = map[string]any{"type": []string{"string", "null"}, "enum": append(append([]any{}, toAny(choices)...), nil)}
	}
	return s
}

func toAny(list []string) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = v
	}
	return out
}

func withDescription(s map[string]any, d string) map[string]any {
	if _, ok := s["$ref"]; ok {
		return map[string]any{"allOf": []any{s}, "description": d}
	}
	out := map[string]any{"description": d}
	for k, v := range s {
		if k != "description" {
			out[k] = v
		}
	}
	return out
}

// TokenSources name, for each request field that takes a record's token,
// the route that lists the tokens it takes (TestTokenSourcesAreRoutes).
var TokenSources = map[string]string{
	"id_token_contact":        "`/get_contacts`",
	"id_contact":              "`/get_contacts`",
	"id_token_category":       "`/get_categories`",
	"category_id_token":       "`/get_categories`",
	"id_token_bank_account":   "`/get_bank_account`",
	"id_token_project":        "`/get_projects`",
	"payment_type":            "`/list_payments_method`",
	"id_token_product":        "`/get_products_and_services`",
	"id_token_stock_item":     "`/list_stock_items_by_unit`",
	"id_token_bank":           "`/get_banks`",
	"id_token_bank_type":      "`/get_type_banks`",
	"id_token_template":       "`/list_contract_templates`",
	"id_token_sales_order":    "`/list_sales_orders`",
	"id_token_sales_orders":   "`/list_sales_orders`",
	"id_token_entry":          "`/transactions`",
	"id_token_screening":      "`/list_screenings`",
	"id_token_purchase_order": "`/list_purchase_orders`",
}
