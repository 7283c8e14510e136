package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"fincom/server/api"
	"fincom/server/openapi"
	"fincom/server/testmode"
	"fincom/server/web"
)

const openAPIGolden = "../testdata/openapi.json"

// TestOpenAPIDocument keeps testdata/openapi.json (the file CI lints) equal
// to the document the server serves in test mode, which documents every
// route; -update rewrites it.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	now := fixedNow
	s, _ := newTestServerAt(t, &now, Config{Version: "test", TestMode: true})
	rec := do(s.Handler(), http.MethodGet, "/openapi.json", "")
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("GET /openapi.json: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	if *update {
		if err := os.WriteFile(openAPIGolden, rec.Body.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(openAPIGolden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rec.Body.Bytes(), want) {
		t.Fatalf("the served document differs from %s (run go test ./server -update)", openAPIGolden)
	}
}

// TestOpenAPIRoutes: every registered route is documented and every
// documented operation is served (not "route not found"), in test mode and
// out of it.
func TestOpenAPIRoutes(t *testing.T) {
	t.Parallel()
	for _, testMode := range []bool{false, true} {
		now := fixedNow
		s, _ := newTestServerAt(t, &now, Config{Version: "test", TestMode: testMode})
		var doc struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(openapiOf(t, s), &doc); err != nil {
			t.Fatal(err)
		}
		documented := map[string]bool{}
		for p, ops := range doc.Paths {
			for m := range ops {
				documented[strings.ToUpper(m)+" "+p] = true
			}
		}
		registered := map[string]bool{"GET /health": true, "GET /openapi.json": true, "GET /docs": true}
		for _, rt := range s.routes {
			registered[rt.MethodOf()+" "+openapi.OpenAPIPath(rt.Path)] = true
		}
		for op := range registered {
			if !documented[op] {
				t.Errorf("test mode %v: %s is registered but not documented", testMode, op)
			}
		}
		h := s.Handler()
		for op := range documented {
			if !registered[op] {
				t.Errorf("test mode %v: %s is documented but not in the route table", testMode, op)
			}
			method, path, _ := strings.Cut(op, " ")
			rec := do(h, method, strings.ReplaceAll(path, "{token}", "x"), "")
			if rec.Code == http.StatusNotFound && strings.Contains(rec.Body.String(), "Route not found.") || rec.Code == http.StatusMethodNotAllowed {
				t.Errorf("test mode %v: %s is documented but not served: %d", testMode, op, rec.Code)
			}
		}
		if len(registered) < 100 {
			t.Fatalf("only %d routes registered", len(registered))
		}
	}
}

// TestContractCatchesMismatches proves the contract check can fail: answers
// with a missing field, an extra field, a wrong type or an undocumented
// status are violations.
func TestContractCatchesMismatches(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path   string
		status int
		body   string
		ok     bool
	}{
		{"/get_contacts", 200, `{"success":true,"data":[]}`, true},
		{"/get_contacts", 200, `{"success":true,"data":null}`, false},
		{"/get_contacts", 200, `{"success":true,"data":[{"id_token":"x"}]}`, false},
		{"/get_contacts", 200, `{"success":true,"data":[],"extra":1}`, false},
		{"/insert_contact", 200, `{"success":true,"message":"ok","token":7}`, false},
		{"/insert_contact", 400, `{"success":false,"error":"Invalid CPF."}`, true},
		{"/insert_contact", 400, `{"success":false,"message":"Invalid CPF."}`, false},
		{"/insert_contract", 400, `{"success":false,"message":"Missing parameters","data":null}`, true},
		{"/insert_contract", 500, `{"success":false,"error":"Internal server error","data":null}`, true},
		{"/cash_flow", 200, `{"success":true,"data":{}}`, false},
	} {
		rec := httptest.NewRecorder()
		rec.Header().Set("Content-Type", "application/json; charset=utf-8")
		rec.WriteHeader(c.status)
		rec.WriteString(c.body)
		got := !violated(http.MethodPost, web.Prefix+c.path, nil, rec)
		if got != c.ok {
			t.Errorf("%s %d %s: valid = %v, want %v", c.path, c.status, c.body, got, c.ok)
		}
	}
}

// TestContractCatchesUnlistedTexts proves the text check can fail: a
// refusal answered in a text its status does not list is a violation; a
// listed text, or a listed template with its field named, is not.
func TestContractCatchesUnlistedTexts(t *testing.T) {
	t.Parallel()
	control := "Texts may not hold control characters (such as NUL); only notes and observations take line breaks and tabs."
	for _, c := range []struct {
		status int
		text   string
		ok     bool
	}{
		{400, "Invalid CPF.", true},
		{400, "Invalid socialReason. " + control, true},
		{400, "Invalid pv.products[0].token. " + control, true},
		{400, "Invalid CPF. Or is it?", false},
		{400, "Invalid social reason. " + control, false},
		{404, "Invalid CPF.", false},
	} {
		rec := httptest.NewRecorder()
		rec.Header().Set("Content-Type", "application/json; charset=utf-8")
		rec.WriteHeader(c.status)
		raw, _ := json.Marshal(map[string]any{"success": false, "error": c.text})
		rec.Write(raw)
		got := !violated(http.MethodPost, web.Prefix+"/insert_contact", nil, rec)
		if got != c.ok {
			t.Errorf("%d %q: valid = %v, want %v", c.status, c.text, got, c.ok)
		}
	}
}

// TestContractCatchesStrictRequests proves the request check can fail: a
// request the server accepted that the document refuses is a violation;
// an alias the document tells of is not.
func TestContractCatchesStrictRequests(t *testing.T) {
	t.Parallel()
	ok := `{"success":true,"message":"Contact created successfully.","token":"x"}`
	for _, c := range []struct {
		body  string
		valid bool
	}{
		{`{"access_token":"a","unit_token":"u","type":"legal","register":"11222333000181","socialReason":"Beta"}`, true},
		{`{"access_token":"a","unit_token":"u","type":"legal","register":"11222333000181","social_reason":"Beta"}`, true},
		{`{"access_token":"a","unit_token":"u","type":"company","register":"11222333000181"}`, false},
		{`{"access_token":"a","unit_token":"u","type":"legal"}`, false},
	} {
		rec := httptest.NewRecorder()
		rec.Header().Set("Content-Type", "application/json; charset=utf-8")
		rec.WriteHeader(http.StatusOK)
		rec.WriteString(ok)
		got := !violated(http.MethodPost, web.Prefix+"/insert_contact", []byte(c.body), rec)
		if got != c.valid {
			t.Errorf("%s: valid = %v, want %v", c.body, got, c.valid)
		}
	}
}

// violated reports whether the contract check finds a violation in an
// answer, without recording it: the tests that prove the check can fail.
func violated(method, path string, reqBody []byte, rec *httptest.ResponseRecorder) bool {
	return len(judgeAnswer(method, path, reqBody, rec).violations) > 0
}

// contract validates every answer the tests' do and doMultipart get against
// the OpenAPI document; TestMain fails the run on any violation, so every
// scenario test is also a contract test.
var contract struct {
	once       sync.Once
	err        error
	compiler   *jsonschema.Compiler
	paths      map[string]map[string]docOperation
	mu         sync.Mutex
	schemas    map[string]*jsonschema.Schema
	violations []string
	ranged     map[string]string // "METHOD /path status": an answer's body
	checked    int
}

// docOperation is what the contract check reads of an operation.
type docOperation struct {
	Responses map[string]struct {
		Content map[string]json.RawMessage `json:"content"`
		Texts   []string                   `json:"x-fincom-texts"`
	} `json:"responses"`
}

func loadContract() {
	raw, err := os.ReadFile(openAPIGolden)
	if err != nil {
		contract.err = err
		return
	}
	var doc struct {
		Paths map[string]map[string]docOperation `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		contract.err = err
		return
	}
	contract.paths = doc.Paths
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		contract.err = err
		return
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("file:///openapi.json", inst); err != nil {
		contract.err = err
		return
	}
	contract.compiler = c
	contract.schemas = map[string]*jsonschema.Schema{}
	contract.ranged = map[string]string{}
}

// jsonPointerEscape escapes a JSON Pointer token.
func jsonPointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// checkContract validates one JSON answer and, when the server accepted
// the request (2xx), the request too: a document stricter than the server
// would make validating proxies and typed clients refuse what works.
func checkContract(method, path string, reqBody []byte, rec *httptest.ResponseRecorder) {
	j := judgeAnswer(method, path, reqBody, rec)
	contract.mu.Lock()
	defer contract.mu.Unlock()
	if j.checked {
		contract.checked++
	}
	if j.ranged != "" {
		contract.ranged[j.ranged] = rec.Body.String()
	}
	contract.violations = append(contract.violations, j.violations...)
}

// judgment is what the contract check found of one answer.
type judgment struct {
	checked    bool     // the answer is of a documented operation
	ranged     string   // "METHOD /path status" of a status listed only by its range
	violations []string // what breaks the document
}

// schemaAt is the compiled schema at ptr (compiled once; the compiler is
// not safe for concurrent use, a compiled schema is).
func schemaAt(ptr string) (*jsonschema.Schema, error) {
	contract.mu.Lock()
	defer contract.mu.Unlock()
	if sch := contract.schemas[ptr]; sch != nil {
		return sch, nil
	}
	sch, err := contract.compiler.Compile(ptr)
	if err == nil {
		contract.schemas[ptr] = sch
	}
	return sch, err
}

// judgeAnswer holds an answer (and, when it succeeded, its request) to the
// document; the tests run in parallel, so it records nothing itself.
func judgeAnswer(method, path string, reqBody []byte, rec *httptest.ResponseRecorder) (j judgment) {
	contract.once.Do(loadContract)
	if contract.err != nil {
		return j
	}
	media, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type"))
	route := strings.TrimPrefix(path, web.Prefix)
	docPath := ""
	for p := range contract.paths {
		if pathMatches(p, route) {
			docPath = p
		}
	}
	op := strings.ToLower(method)
	if _, ok := contract.paths[docPath][op]; !ok || *update {
		// Not a route ("route not found", "method not allowed"), or the
		// document is being rewritten.
		return j
	}
	ops := contract.paths[docPath]
	status := fmt.Sprint(rec.Code)
	ranged := false
	if _, ok := ops[op].Responses[status]; !ok {
		status, ranged = status[:1]+"XX", true
	}
	resp, ok := ops[op].Responses[status]
	j.checked = true
	violation := func(format string, a ...any) { j.violations = append(j.violations, fmt.Sprintf(format, a...)) }
	if ranged && rec.Code != http.StatusInternalServerError {
		// Every status a route answers is listed, with its texts; only
		// the 500 is the 5XX range's (its text the route's own).
		j.ranged = fmt.Sprintf("%s %s %d", method, docPath, rec.Code)
	}
	if !ok {
		violation("%s %s: status %d is not documented", method, route, rec.Code)
		return j
	}
	if media == "" && rec.Body.Len() == 0 {
		return j
	}
	if media != "application/json" {
		// A page, a file or a document: its status and type are the
		// document's.
		if _, listed := resp.Content[media]; !listed && rec.Code != http.StatusNoContent && rec.Code != http.StatusNotModified {
			violation("%s %s: status %d answers %s, which the document does not list", method, route, rec.Code, media)
		}
		return j
	}
	if resp.Content["application/json"] == nil {
		violation("%s %s: status %d is not documented as JSON", method, route, rec.Code)
		return j
	}
	ptr := "file:///openapi.json#/paths/" + jsonPointerEscape(docPath) + "/" + op + "/responses/" + status + "/content/application~1json/schema"
	sch, err := schemaAt(ptr)
	if err != nil {
		violation("%s %s: compile %s: %v", method, route, ptr, err)
		return j
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec.Body.Bytes()))
	if err == nil {
		err = sch.Validate(inst)
	}
	if err != nil {
		body := rec.Body.String()
		if len(body) > 400 {
			body = body[:400] + "..."
		}
		violation("%s %s %d: %v\nbody: %s", method, route, rec.Code, err, body)
	}
	if rec.Code >= 400 && rec.Code != http.StatusInternalServerError && !ranged && !strings.Contains(rec.Body.String(), `"Route not found."`) {
		// (A production server has no test routes: not a route.)
		var e struct{ Error, Message string }
		if json.Unmarshal(rec.Body.Bytes(), &e) == nil {
			text := e.Error + e.Message
			if !slices.ContainsFunc(resp.Texts, func(listed string) bool { return textMatches(listed, text) }) {
				violation("%s %s %d: the text %q is not listed for the status", method, route, rec.Code, text)
			}
		}
	}
	if rec.Code/100 != 2 || len(bytes.TrimSpace(reqBody)) == 0 || !json.Valid(reqBody) {
		return j
	}
	ptr = "file:///openapi.json#/paths/" + jsonPointerEscape(docPath) + "/" + op + "/requestBody/content/application~1json/schema"
	if sch, err = schemaAt(ptr); err != nil {
		// The operation takes no JSON body (a GET).
		return j
	}
	if inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(canonicalNames(method, route, reqBody))); err == nil {
		err = sch.Validate(inst)
	}
	if err != nil {
		body := string(reqBody)
		if len(body) > 400 {
			body = body[:400] + "..."
		}
		violation("%s %s accepted a request the document refuses: %v\nrequest: %s", method, route, err, body)
	}
	return j
}

// pathMatches reports whether a request's path is the document's path,
// whose {param} segments stand for any one segment (/psp/{secret}/pix).
func pathMatches(doc, route string) bool {
	d, r := strings.Split(doc, "/"), strings.Split(route, "/")
	if len(d) != len(r) {
		return false
	}
	for i := range d {
		if d[i] != r[i] && !(strings.HasPrefix(d[i], "{") && strings.HasSuffix(d[i], "}") && r[i] != "") {
			return false
		}
	}
	return true
}

// textMatches reports whether an answered error text is the listed one,
// whose placeholders ({field}, the name of the field refused as sent)
// stand for any name.
func textMatches(listed, text string) bool {
	if !strings.Contains(listed, "{") {
		return listed == text
	}
	re := regexp.QuoteMeta(listed)
	re = placeholder.ReplaceAllString(re, `\S+?`)
	ok, _ := regexp.MatchString("^"+re+"$", text)
	return ok
}

var placeholder = regexp.MustCompile(`\\\{[a-z_]+\\\}`)

// answerViolation validates an answer body against the document's schema
// of the route's answer of that status.
func answerViolation(method, route string, status int, body []byte) error {
	contract.once.Do(loadContract)
	contract.mu.Lock()
	defer contract.mu.Unlock()
	if contract.err != nil {
		return contract.err
	}
	ptr := "file:///openapi.json#/paths/" + jsonPointerEscape(openapi.OpenAPIPath(route)) + "/" + strings.ToLower(method) +
		"/responses/" + fmt.Sprint(status) + "/content/application~1json/schema"
	sch, err := contract.compiler.Compile(ptr)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// requestViolation validates a JSON request body against the document's
// schema of the route's body.
func requestViolation(route string, body []byte) error {
	contract.once.Do(loadContract)
	contract.mu.Lock()
	defer contract.mu.Unlock()
	if contract.err != nil {
		return contract.err
	}
	ptr := "file:///openapi.json#/paths/" + jsonPointerEscape(openapi.OpenAPIPath(route)) + "/post/requestBody/content/application~1json/schema"
	sch, err := contract.compiler.Compile(ptr)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(canonicalNames(http.MethodPost, route, body)))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// canonicalNames renames the aliases a request used to the names the
// document lists: a required field is required under its canonical name
// (client generators cannot read "one of these names"), and the document
// tells each alias in the field's description.
func canonicalNames(method, route string, body []byte) []byte {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return body
	}
	var dec web.Decoder
	for _, rt := range append((&api.API{}).RouteTable(), (&testmode.Mode{}).TestRoutes()...) {
		if rt.MethodOf() != method || rt.Path != route || rt.Do.Req == nil {
			continue
		}
		renameAliases(&dec, fields, rt.Do.Req)
	}
	out, _ := json.Marshal(fields)
	return out
}

// renameAliases renames, in fields, the aliases of t's fields and of its
// groups' (within the group's object, or at the top level for a group
// read flat).
func renameAliases(dec *web.Decoder, fields map[string]json.RawMessage, t reflect.Type) {
	for _, fi := range dec.FieldsOf(t) {
		for _, a := range fi.Aliases {
			if v, ok := fields[a]; ok {
				if _, has := fields[fi.Name]; !has {
					fields[fi.Name] = v
				}
				delete(fields, a)
			}
		}
		if !fi.Group {
			continue
		}
		f := t.FieldByIndex(fi.Index)
		gt := f.Type
		if gt.Kind() == reflect.Pointer {
			gt = gt.Elem()
		}
		var inner map[string]json.RawMessage
		if raw, ok := fields[fi.Name]; ok && json.Unmarshal(raw, &inner) == nil && inner != nil {
			renameAliases(dec, inner, gt)
			fields[fi.Name], _ = json.Marshal(inner)
		} else if f.Tag.Get("decode") == "group,flat" {
			renameAliases(dec, fields, gt)
		}
	}
}

// contractReport answers the violations seen, for TestMain.
func contractReport() (checked int, report string) {
	contract.mu.Lock()
	defer contract.mu.Unlock()
	if contract.err != nil {
		return 0, "openapi contract: " + contract.err.Error()
	}
	seen := map[string]bool{}
	var lines []string
	for _, v := range contract.violations {
		if !seen[v] {
			seen[v] = true
			lines = append(lines, v)
		}
	}
	for k, body := range contract.ranged {
		if len(body) > 200 {
			body = body[:200] + "..."
		}
		lines = append(lines, fmt.Sprintf("%s is answered but not listed (only its range): %s", k, body))
	}
	sort.Strings(lines)
	if len(lines) > 40 {
		lines = append(lines[:40], fmt.Sprintf("... and %d more", len(lines)-40))
	}
	return contract.checked, strings.Join(lines, "\n")
}

// TestTokenSourcesAreRoutes: the routes the document names as listing a
// field's tokens are routes.
func TestTokenSourcesAreRoutes(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	paths := map[string]bool{}
	for _, rt := range s.routes {
		paths[rt.Path] = true
	}
	for field, src := range openapi.TokenSources {
		if !paths[strings.Trim(src, "`")] {
			t.Errorf("%s: %s is no route", field, src)
		}
	}
}

// openapiOf is the server's OpenAPI document.
func openapiOf(t testing.TB, s *Server) []byte {
	t.Helper()
	doc, _, err := s.Docs()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
