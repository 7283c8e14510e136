package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"fincom/server/api"
	"fincom/server/testmode"
	"fincom/server/web"
)

func TestHTTPEdges(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	check := func(name string, rec *httptest.ResponseRecorder, status int, text string) {
		t.Helper()
		var b map[string]any
		json.Unmarshal(rec.Body.Bytes(), &b)
		got, _ := b["error"].(string)
		if rec.Code != status || got != text {
			t.Errorf("%s: %d %s, want %d %q", name, rec.Code, rec.Body.String(), status, text)
		}
	}
	big := `{"access_token":"{{access}}","unit_token":"{{unitA}}","search":"` + strings.Repeat("x", 1<<20) + `"}`
	check("too large", do(h, http.MethodPost, "/get_contacts", big), 413, "Request body too large.")
	check("unknown route", do(h, http.MethodPost, "/no_such_route", `{}`), 404, "Route not found.")
	check("wrong method", do(h, http.MethodGet, "/get_contacts", ``), 405, "Method not allowed.")
	check("string body", do(h, http.MethodPost, "/get_contacts", `"hello"`), 400, "Invalid JSON body.")
	check("null body", do(h, http.MethodPost, "/get_contacts", `null`), 400, "Invalid JSON body.")
	check("two objects", do(h, http.MethodPost, "/get_contacts", `{}{}`), 400, "Invalid JSON body.")
	deep := strings.Repeat(`{"a":`, 20000) + `1` + strings.Repeat(`}`, 20000)
	check("deep nesting", do(h, http.MethodPost, "/get_contacts", deep), 400, "Invalid JSON body.")
	// Invalid UTF-8 is not JSON (RFC 8259); encoding/json would silently
	// replace it, so it is refused before.
	check("invalid utf8", do(h, http.MethodPost, "/get_contacts", "{\"access_token\":\"{{access}}\",\"unit_token\":\"{{unitA}}\",\"search\":\"\xff\"}"), 400, "Invalid JSON body.")

	rec := do(h, http.MethodGet, "/health", ``)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"data_dir_ok":true`) || !strings.Contains(rec.Body.String(), `"version":"test"`) {
		t.Errorf("health: %d %s", rec.Code, rec.Body.String())
	}
	// Duplicate keys are refused: which one a parser keeps differs between
	// parsers, and a proxy and fincom must never read two bodies.
	check("duplicate keys", do(h, http.MethodPost, "/get_contacts", `{"access_token":"x","access_token":"{{access}}","unit_token":"{{unitA}}"}`), 400, "Invalid JSON body.")
}

// TestMultipart: routes that take files read tokens and fields from the JSON
// part `metadata`, and plain form fields too.
func TestMultipart(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	send := func(parts map[string]string, file bool) *httptest.ResponseRecorder {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for k, v := range parts {
			mw.WriteField(k, expand(v))
		}
		if file {
			fw, _ := mw.CreateFormFile("files", "a.pdf")
			fw.Write([]byte("%PDF-1.4\n"))
		}
		mw.Close()
		req := httptest.NewRequest(http.MethodPost, web.Prefix+"/insert_project", &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		checkContract(http.MethodPost, "/insert_project", nil, rec)
		return rec
	}
	if rec := send(map[string]string{"metadata": `{` + auth + `,"name":"Via metadata","budget":10}`}, true); rec.Code != 200 {
		t.Fatalf("metadata: %d %s", rec.Code, rec.Body.String())
	}
	// Form fields: "12.5" stands for a number.
	if rec := send(map[string]string{"access_token": "{{access}}", "unit_token": "{{unitA}}", "name": "Via form", "budget": "12.5"}, false); rec.Code != 200 {
		t.Fatalf("form: %d %s", rec.Code, rec.Body.String())
	}
	if rec := send(map[string]string{"metadata": `[1]`}, false); rec.Code != 400 {
		t.Fatalf("bad metadata: %d %s", rec.Code, rec.Body.String())
	}
	out := post(t, h, "/get_projects", `{`+auth+`}`)
	if n := len(out["data"].([]any)); n != 3 {
		t.Fatalf("projects = %d, want 3", n)
	}

	small, err := New(s.domains, s.system, Config{MaxMultipartBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("metadata", strings.Repeat("x", 1000))
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, web.Prefix+"/insert_project", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	rec := httptest.NewRecorder()
	small.Handler().ServeHTTP(rec, req)
	if rec.Code != 413 {
		t.Fatalf("multipart limit: %d %s", rec.Code, rec.Body.String())
	}
}

// TestAliases: the canonical name wins over its alias.
func TestAliases(t *testing.T) {
	t.Parallel()
	var d web.Decoder
	var q web.IdRequest
	err := d.Fill(map[string]json.RawMessage{"token": []byte(`"alias"`), "id_token": []byte(`"canonical"`)}, nil, &q)
	if err != nil || q.IDToken != "canonical" {
		t.Fatalf("got %q, %v", q.IDToken, err)
	}
	q = web.IdRequest{}
	if err := d.Fill(map[string]json.RawMessage{"token": []byte(`"alias"`)}, nil, &q); err != nil || q.IDToken != "alias" {
		t.Fatalf("alias: got %q, %v", q.IDToken, err)
	}
	var fe *web.FieldError
	if err := d.Fill(map[string]json.RawMessage{"token": []byte(`5`)}, nil, &q); !errors.As(err, &fe) || fe.Field != "token" || !errors.Is(err, web.ErrFormat) {
		t.Fatalf("wrong type: %v", err)
	}
}

// FuzzDecode feeds arbitrary bodies to every route's decoding: it
// must answer a JSON envelope, never panic or 500.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `null`, `{"access_token":"{{access}}","unit_token":"{{unitA}}","type":"legal","register":"11222333000181","socialReason":"X"}`,
		`{"access_token":"{{access}}","unit_token":"{{unitA}}","id_token":5}`, `{"budget":1e999}`, "\xff\xfe", `{"a":{"b":[1,2,{"c":null}]}}`,
	} {
		f.Add(seed)
	}
	s, _ := newTestServer(f)
	h := s.Handler()
	paths := make([]string, 0, len(s.routes))
	for _, rt := range s.routes {
		paths = append(paths, rt.Path)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, p := range paths {
			rec := do(h, http.MethodPost, p, body)
			if rec.Code >= 500 {
				t.Fatalf("%s answered %d to %q: %s", p, rec.Code, body, rec.Body.String())
			}
			var env map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
				t.Fatalf("%s: not JSON: %s", p, rec.Body.String())
			}
		}
	})
}

// TestRequiredFieldsResolve: every field a route needs names a field of its
// request struct that can be blank (a text, a pointer, a list), so the
// decoder's check can fail; every enum is on a text or code field.
func TestRequiredFieldsResolve(t *testing.T) {
	t.Parallel()
	var dec web.Decoder
	for _, rt := range append((&api.API{}).RouteTable(), (&testmode.Mode{}).TestRoutes()...) {
		if rt.Do.Req == nil {
			if rt.Need != nil {
				t.Errorf("%s needs %v but decodes no request", rt.Path, rt.Need)
			}
			continue
		}
		v := reflect.New(rt.Do.Req).Elem()
		for _, name := range append(dec.Required(rt.Do.Req), rt.Need...) {
			f, ok := dec.Lookup(v, name)
			if !ok {
				t.Errorf("%s: needed field %q is not in %s", rt.Path, name, rt.Do.Req)
				continue
			}
			switch f.Kind() {
			case reflect.String, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			default:
				t.Errorf("%s: needed field %q is a %s, which is never blank", rt.Path, name, f.Kind())
			}
		}
		var walk func(t reflect.Type)
		walk = func(typ reflect.Type) {
			for _, fi := range dec.FieldsOf(typ) {
				ft := typ.FieldByIndex(fi.Index).Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if fi.Group {
					walk(ft)
					continue
				}
				if fi.Choices != nil && ft.Kind() != reflect.String {
					t.Errorf("%s: enum on %s, a %s", rt.Path, fi.Name, ft.Kind())
				}
			}
		}
		walk(rt.Do.Req)
	}
}

// TestFormatErrorNamesField: a field of the wrong type answers the
// route's own text, with the field in details.field.
func TestFormatErrorNamesField(t *testing.T) {
	t.Parallel()
	named := func(field string) func(t *testing.T, r map[string]any) {
		return func(t *testing.T, r map[string]any) {
			t.Helper()
			if d, _ := r["details"].(map[string]any); d == nil || d["field"] != field {
				t.Errorf("details %v, want field %q", r["details"], field)
			}
		}
	}
	run(t, []scenario{
		{name: "top level", path: "/insert_bank_account", body: `{` + auth + `,` + newAccount + `,"opening_balance":"lots"}`, status: 400, text: "Invalid parameter format", check: named("opening_balance")},
		{name: "in a group, route's own status", path: "/insert_sales_order", body: strings.Replace(serviceOrder, `"recurrence":true`, `"recurrence":"yes"`, 1), status: 422, text: "Invalid parameter format", check: named("faturamento.recurrence")},
		{name: "alias as sent", path: "/get_categories", body: `{` + auth + `,"module_type":7}`, status: 400, text: "Invalid parameter format", check: named("module_type")},
	})
}

// TestHealthNamesNoTenant: anonymous, /health says whether the server
// serves and nothing of what it holds; the technical token as a bearer
// also gets the open domains; any other Authorization is refused.
func TestHealthNamesNoTenant(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	get := func(auth string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, web.Prefix+"/health", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		checkContract("GET", web.Prefix+"/health", nil, rec)
		return rec
	}
	if rec := get(""); rec.Code != 200 || strings.Contains(rec.Body.String(), "open_domains") || !strings.Contains(rec.Body.String(), `"status":"ok"`) {
		t.Errorf("anonymous: %d %s", rec.Code, rec.Body)
	}
	if rec := get("Bearer " + fx.tokens["tec"]); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"open_domains":`) {
		t.Errorf("with the technical token: %d %s", rec.Code, rec.Body)
	}
	for _, bad := range []string{"Bearer " + fx.tokens["access"], "Bearer nada", "Basic " + fx.tokens["tec"]} {
		if rec := get(bad); rec.Code != 401 || !strings.Contains(rec.Body.String(), web.TextHealthToken) {
			t.Errorf("%q: %d %s", bad, rec.Code, rec.Body)
		}
	}
}
