package server

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"fincom/server/needs"
	"fincom/server/openapi"
	"fincom/server/problem"
	"fincom/server/web"
)

var propertyBudget = flag.Duration("property-budget", 0, "how long TestPropertiesFromDocument draws random values (0: 20 s under FINCOM_LONG, 2 s by default, none with -short)")

// TestPropertiesFromDocument generates requests from the served document
// itself, for every private route: each property of its body at its
// boundaries (null, blank, the wrong JSON type, one character past its
// maxLength, left out when required) and then random values of every kind
// drawn from a fixed seed for -property-budget (20 s under FINCOM_LONG,
// 2 s by default, none with -short). No request may fail the
// server (5xx); every request the schema refuses is refused (4xx); and
// every answer is held to the document (checkContract, through do).
func TestPropertiesFromDocument(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	type route struct {
		path     string
		props    map[string]map[string]any
		required map[string]bool
		names    []string
	}
	var routes []route
	for _, b := range documentedBodies(t, s, h) {
		r := route{path: b.route.Path, props: b.props, required: b.required}
		for name := range r.props {
			if name != "access_token" && name != "unit_token" && name != "unit_tokens" && name != "token_tec" {
				r.names = append(r.names, name)
			}
		}
		sort.Strings(r.names)
		routes = append(routes, r)
	}
	tokens := map[string]any{"access_token": expand("{{access}}"), "unit_token": expand("{{unitA}}")}
	send := func(r route, fields map[string]any, schemaInvalid bool, what string) {
		t.Helper()
		b, _ := json.Marshal(fields)
		rec := do(h, http.MethodPost, r.path, string(b))
		if rec.Code >= 500 {
			t.Errorf("%s, %s: %d %s\nrequest: %.300s", r.path, what, rec.Code, rec.Body, b)
		}
		if schemaInvalid && rec.Code < 400 {
			t.Errorf("%s, %s: the document refuses it, the server answered %d %.300s\nrequest: %.300s", r.path, what, rec.Code, rec.Body, b)
		}
	}
	with := func(name string, v any) map[string]any {
		out := map[string]any{}
		for k, x := range tokens {
			out[k] = x
		}
		if name != "" {
			out[name] = v
		}
		return out
	}
	cases := 0
	for _, r := range routes {
		for _, name := range r.names {
			p := r.props[name]
			types := typesOf(p)
			// The wrong JSON type: an object where none is taken, else
			// a list.
			wrong := any(map[string]any{"x": 1})
			if types["object"] {
				wrong = []any{1}
			}
			if !types["array"] || !types["object"] {
				send(r, with(name, wrong), !types[jsonType(wrong)], name+" of the wrong type")
			}
			// null: taken as not sent where the document allows it,
			// else refused.
			send(r, with(name, nil), !types["null"], name+" null")
			if n, ok := p["maxLength"].(float64); ok {
				send(r, with(name, strings.Repeat("é", int(n)+1)), true, name+" past its maxLength")
			}
			cases += 4
		}
		for name := range r.required {
			if r.props[name] != nil && name != "access_token" && name != "unit_token" {
				send(r, with("", nil), true, "without "+name)
				cases++
				break
			}
		}
	}
	// Random values of every kind, from a fixed seed.
	rng := rand.New(rand.NewPCG(38, 2026))
	budget := *propertyBudget
	switch {
	case budget > 0:
	case needs.Long():
		budget = 20 * time.Second
	case !testing.Short():
		budget = 2 * time.Second
	}
	deadline := time.Now().Add(budget)
	for time.Now().Before(deadline) {
		r := routes[rng.IntN(len(routes))]
		if len(r.names) == 0 {
			continue
		}
		fields := with("", nil)
		for range 1 + rng.IntN(4) {
			fields[r.names[rng.IntN(len(r.names))]] = randomValue(rng)
		}
		send(r, fields, false, fmt.Sprintf("random %v", fields))
		cases++
	}
	t.Logf("%d routes, %d requests", len(routes), cases)
	if len(routes) < 100 {
		t.Fatalf("only %d routes", len(routes))
	}
}

// typesOf are the JSON types a property's schema takes ("" none said).
func typesOf(p map[string]any) map[string]bool {
	out := map[string]bool{}
	add := func(v any) {
		switch x := v.(type) {
		case string:
			out[x] = true
			if x == "number" {
				out["integer"] = true
			}
		case []any:
			for _, y := range x {
				out[y.(string)] = true
			}
		}
	}
	add(p["type"])
	for _, k := range []string{"anyOf", "oneOf"} {
		for _, alt := range asList(p[k]) {
			add(asMap(alt)["type"])
			if asMap(alt)["$ref"] != nil || asMap(alt)["properties"] != nil {
				out["object"] = true
			}
		}
	}
	if p["type"] == nil && p["anyOf"] == nil && p["oneOf"] == nil {
		// No type said: anything goes.
		for _, k := range []string{"string", "number", "integer", "boolean", "object", "array", "null"} {
			out[k] = true
		}
	}
	if p["properties"] != nil {
		out["object"] = true
	}
	return out
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return ""
}

// randomValue is a JSON value of any kind, often at an edge.
func randomValue(rng *rand.Rand) any {
	switch rng.IntN(12) {
	case 0:
		return -0.5
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return []float64{0, -1, 1e308, -1e308, 0.001, 9999999999.99, 10000000000, 1e-9}[rng.IntN(8)]
	case 3:
		return rng.Int64()
	case 4:
		return []any{"x", 1, 2.5}
	case 5:
		return map[string]any{"a": "b"}
	case 6:
		return strings.Repeat("a", rng.IntN(6000))
	case 7:
		return []string{"0", "-1", "1e400", "NaN", "null", "true", "00/00/0000", "31/02/2026", "2026-13-45", "99999999999999"}[rng.IntN(10)]
	case 8:
		return []string{"é", "😀", "\u202e", "\x00", "\x1b[31m", "<script>", "' OR 1=1 --", "../../etc/passwd", "%00"}[rng.IntN(9)]
	case 9:
		return fmt.Sprintf("%d,%02d", rng.IntN(100000), rng.IntN(100))
	case 10:
		return "fcu_acme_" + fmt.Sprint(rng.Int64())
	}
	return "00000000-0000-4000-8000-" + fmt.Sprintf("%012d", rng.IntN(200))
}

// documentedBody is a private POST route's JSON body as the served
// document describes it: each top-level property's schema (the parts that
// speak of it merged, references resolved) and the names it requires
// outright (not within an anyOf).
type documentedBody struct {
	route    *web.Route
	props    map[string]map[string]any
	required map[string]bool
}

// documentedBodies reads the served document's request bodies.
func documentedBodies(t *testing.T, s *Server, h http.Handler) []documentedBody {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(do(h, http.MethodGet, "/openapi.json", "").Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	components := doc["components"].(map[string]any)["schemas"].(map[string]any)
	resolve := func(sch map[string]any) map[string]any {
		for {
			ref, ok := sch["$ref"].(string)
			if !ok {
				return sch
			}
			sch = components[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
		}
	}
	var walk func(sch map[string]any, b *documentedBody)
	walk = func(sch map[string]any, b *documentedBody) {
		sch = resolve(sch)
		for _, part := range asList(sch["allOf"]) {
			walk(part.(map[string]any), b)
		}
		for name, p := range asMap(sch["properties"]) {
			merged := b.props[name]
			if merged == nil {
				merged = map[string]any{}
				b.props[name] = merged
			}
			r := resolve(p.(map[string]any))
			for k, v := range r {
				if _, has := merged[k]; !has {
					merged[k] = v
				}
			}
			// A group that may be null, or a described reference: its
			// object's words too.
			for _, alt := range append(asList(r["anyOf"]), asList(r["allOf"])...) {
				if asMap(alt)["$ref"] == nil {
					continue
				}
				for k, v := range resolve(asMap(alt)) {
					if _, has := merged[k]; !has {
						merged[k] = v
					}
				}
			}
		}
		for _, r := range asList(sch["required"]) {
			b.required[r.(string)] = true
		}
	}
	var out []documentedBody
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.MethodOf() != http.MethodPost || rt.Auth == web.AuthPublic || rt.Auth == web.AuthDomain {
			continue
		}
		op := asMap(asMap(doc["paths"].(map[string]any)[openapi.OpenAPIPath(rt.Path)])["post"])
		media := asMap(asMap(asMap(op["requestBody"])["content"])["application/json"])
		if media == nil {
			continue
		}
		b := documentedBody{route: rt, props: map[string]map[string]any{}, required: map[string]bool{}}
		walk(asMap(media["schema"]), &b)
		out = append(out, b)
	}
	return out
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestOrderRequiredAsDocumented: the fields /insert_sales_order refuses
// as missing from an empty order are those its document's groups name
// required (one declaration, the groups' required tags), and beside them
// only the payment date, which may come in faturamento or in charge and
// so is told in words.
func TestOrderRequiredAsDocumented(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	documented := map[string]bool{}
	for _, b := range documentedBodies(t, s, h) {
		if b.route.Path != "/insert_sales_order" {
			continue
		}
		for _, group := range []string{"pv", "faturamento", "charge", "nf"} {
			for _, f := range asList(b.props[group]["required"]) {
				documented[group+"."+f.(string)] = true
			}
		}
	}
	if len(documented) == 0 {
		t.Fatal("the document names no required field of /insert_sales_order")
	}
	rec := do(h, http.MethodPost, "/insert_sales_order", expand(`{`+auth+`,"pv":{},"faturamento":{},"charge":{}}`))
	var answer struct {
		Details struct {
			MissingFields []string `json:"missing_fields"`
		} `json:"details"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil || rec.Code != http.StatusBadRequest {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	missing := map[string]bool{}
	for _, f := range answer.Details.MissingFields {
		missing[f] = true
		if !documented[f] && f != "faturamento.estimated_payment_date" {
			t.Errorf("%s is refused as missing but not documented as required", f)
		}
	}
	for f := range documented {
		if !missing[f] {
			t.Errorf("%s is documented as required but not refused as missing", f)
		}
	}
}

// TestRequiredNeverNull: no field the document requires of a request
// offers null, which the decoder reads as not sent and refuses as missing
// (a route's own needs of a struct it shares with its update included).
func TestRequiredNeverNull(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	for _, b := range documentedBodies(t, s, s.Handler()) {
		for name := range b.required {
			p := b.props[name]
			if p == nil {
				t.Errorf("%s requires %s, which it does not describe", b.route.Path, name)
				continue
			}
			if typesOf(p)["null"] || slices.Contains(asList(p["enum"]), nil) {
				t.Errorf("%s requires %s but offers null: %v", b.route.Path, name, p)
			}
		}
	}
}

var verboseBoundaries = flag.Bool("boundaries-verbose", false, "TestBoundariesOfExamples lists the changes the document takes and the server refuses")

// TestBoundariesOfExamples changes one field at a time of every route's
// request example (a body the server takes, on the records the examples
// name): null, the wrong JSON type, blank, past its maxLength, outside its
// pattern, its enum or its format, or left out. Every change the
// document's schema refuses must be refused by the server (4xx), so that
// a rule the document states is one the server applies; none may fail the
// server (5xx).
func TestBoundariesOfExamples(t *testing.T) {
	t.Parallel()
	s, h, _, fill := exampleServer(t)
	docs := map[string]documentedBody{}
	for _, b := range documentedBodies(t, s, h) {
		docs[b.route.Path] = b
	}
	refused, cases := 0, 0
	for _, rt := range s.routes {
		b, ok := docs[rt.Path]
		if !ok || rt.Doc.Example == "" || rt.Doc.ExampleFile != "" || strings.HasPrefix(rt.Path, "/_test/") {
			continue
		}
		var base map[string]any
		if err := json.Unmarshal([]byte(fill.Replace(rt.Doc.Example)), &base); err != nil {
			t.Fatalf("%s: %v", rt.Path, err)
		}
		var names []string
		for name := range b.props {
			if name != "access_token" && name != "unit_token" && name != "unit_tokens" && name != "token_tec" {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			for what, v := range boundaryValues(b.props[name]) {
				body := map[string]any{}
				for k, x := range base {
					body[k] = x
				}
				if v == leaveOut {
					delete(body, name)
				} else {
					body[name] = v
				}
				raw, _ := json.Marshal(body)
				invalid := requestViolation(rt.Path, raw) != nil
				rec := do(h, http.MethodPost, rt.Path, string(raw))
				if rec.Code >= 500 {
					t.Errorf("%s, %s %s: %d %s", rt.Path, name, what, rec.Code, rec.Body)
				}
				if !invalid {
					if rec.Code >= 400 && *verboseBoundaries {
						t.Logf("%s, %s %s: the document takes it, the server answered %d %.200s", rt.Path, name, what, rec.Code, rec.Body)
					}
					continue
				}
				cases++
				if rec.Code < 400 {
					t.Errorf("%s, %s %s: the document refuses it, the server answered %d %.200s", rt.Path, name, what, rec.Code, rec.Body)
				} else {
					refused++
				}
			}
		}
	}
	t.Logf("%d requests the document refuses, %d refused", cases, refused)
	if cases < 300 {
		t.Fatalf("only %d changes the document refuses", cases)
	}
}

// leaveOut marks the boundary of a field left out of the body.
var leaveOut = &struct{}{}

// boundaryValues are the values at the edges of a property's schema, by
// name.
func boundaryValues(p map[string]any) map[string]any {
	out := map[string]any{"null": nil, "left out": leaveOut, "blank": "", "an object": map[string]any{"x": 1}, "a list": []any{1},
		"a number": 7, "true": true, "a text": "zz-not-a-value", "an impossible date": "2026-02-30", "a date out of form": "30/02/2026"}
	var strs []map[string]any
	strs = append(strs, p)
	for _, k := range []string{"anyOf", "oneOf"} {
		for _, alt := range asList(p[k]) {
			strs = append(strs, asMap(alt))
		}
	}
	for _, s := range strs {
		if n, ok := s["maxLength"].(float64); ok {
			out["past its maxLength"] = strings.Repeat("é", int(n)+1)
		}
		if pat, ok := s["pattern"].(string); ok {
			re, err := regexp.Compile(pat)
			if err != nil {
				continue
			}
			for _, c := range []string{"#", "x", "0", "00000", "ABC-123", "9999-99-99", " 1 ", "1.234,56", "a@b"} {
				if !re.MatchString(c) {
					out["outside its pattern ("+c+")"] = c
					break
				}
			}
		}
	}
	return out
}

// TestEveryPropertyDescribed: every property of the served document (test
// mode's routes included), in every request body and every JSON answer,
// groups, items and components too, says in words what it is.
func TestEveryPropertyDescribed(t *testing.T) {
	t.Parallel()
	s, _ := newTestModeServer(t)
	var doc map[string]any
	if err := json.Unmarshal(do(s.Handler(), http.MethodGet, "/openapi.json", "").Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	components := doc["components"].(map[string]any)["schemas"].(map[string]any)
	resolve := func(sch map[string]any) map[string]any {
		for sch["$ref"] != nil {
			sch = asMap(components[strings.TrimPrefix(sch["$ref"].(string), "#/components/schemas/")])
		}
		return sch
	}
	seen := map[string]bool{}
	described := 0
	var walk func(where string, sch map[string]any)
	walk = func(where string, sch map[string]any) {
		if ref, ok := sch["$ref"].(string); ok {
			if seen[ref] {
				return
			}
			seen[ref] = true
		}
		sch = resolve(sch)
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			for _, part := range asList(sch[k]) {
				walk(where, asMap(part))
			}
		}
		if items := asMap(sch["items"]); items != nil {
			walk(where+"[]", items)
		}
		for name, p := range asMap(sch["properties"]) {
			p := asMap(p)
			// A reference is told by its component, whose properties are
			// each walked.
			if d, _ := p["description"].(string); strings.TrimSpace(d) == "" && p["$ref"] == nil {
				if d, _ := resolve(p)["description"].(string); strings.TrimSpace(d) == "" {
					t.Errorf("%s.%s has no description", where, name)
				}
			}
			described++
			walk(where+"."+name, p)
		}
	}
	for path, item := range asMap(doc["paths"]) {
		for method, op := range asMap(item) {
			media := asMap(asMap(asMap(asMap(op)["requestBody"])["content"])["application/json"])
			if media != nil {
				walk(path, asMap(media["schema"]))
			}
			for status, resp := range asMap(asMap(op)["responses"]) {
				if media := asMap(asMap(asMap(resp)["content"])["application/json"]); media != nil {
					walk(method+" "+path+" "+status, asMap(media["schema"]))
				}
			}
		}
	}
	if described < 1500 {
		t.Fatalf("only %d properties", described)
	}
}

// TestFieldTextsAsListed: the decoder's refusal of a field outside its
// choices or range is answered in the text the document lists for the
// route (web.Route.FieldErrors), sent on the route's example.
func TestFieldTextsAsListed(t *testing.T) {
	t.Parallel()
	s, h, _, fill := exampleServer(t)
	checked := 0
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.Doc.Example == "" || rt.Doc.ExampleFile != "" || strings.HasPrefix(rt.Path, "/_test/") {
			continue
		}
		for _, ft := range rt.FieldTexts() {
			field, e := ft.Field, ft.Err
			if strings.ContainsAny(field, ".[") || !strings.Contains(e.Text, ". Use ") {
				continue
			}
			want := strings.ReplaceAll(e.Text, problem.FieldPlaceholder, field)
			var body map[string]any
			if err := json.Unmarshal([]byte(fill.Replace(rt.Doc.Example)), &body); err != nil {
				t.Fatal(err)
			}
			body[field] = "zz-not-a-value"
			if strings.Contains(e.Text, "whole number") {
				body[field] = 1 << 40
			}
			raw, _ := json.Marshal(body)
			rec := do(h, rt.MethodOf(), rt.Path, string(raw))
			var got struct{ Error, Message string }
			json.Unmarshal(rec.Body.Bytes(), &got)
			if rec.Code != web.StatusOf(e) || (got.Error != want && got.Message != want) {
				t.Errorf("%s %s: %d %s; listed %d %q", rt.Path, field, rec.Code, rec.Body, web.StatusOf(e), want)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d texts checked", checked)
	}
}
