package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"fincom/server/web"
)

// TestOptionsAndCORS: OPTIONS answers 204 with the route's methods; pages
// of a listed origin may read answers and preflight, others get no CORS
// header; "*" lets any in; HEAD answers the GET routes without a body.
func TestOptionsAndCORS(t *testing.T) {
	t.Parallel()
	origins, err := ParseOrigins([]string{"https://app.example.com", "HTTP://LOCALHOST:5173"})
	if err != nil {
		t.Fatal(err)
	}
	now := fixedNow
	s, _ := newTestServerAt(t, &now, Config{Version: "test", CORSOrigins: origins})
	h := s.Handler()
	req := func(method, path, origin string, hdr ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, web.Prefix+path, strings.NewReader(expand(`{`+auth+`}`)))
		r.Header.Set("Content-Type", "application/json")
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	pre := req(http.MethodOptions, "/get_contacts", "https://app.example.com", "Access-Control-Request-Method", "POST")
	if pre.Code != http.StatusNoContent || pre.Header().Get("Allow") != "OPTIONS, POST" ||
		pre.Header().Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
		pre.Header().Get("Access-Control-Allow-Methods") != "OPTIONS, POST" || pre.Header().Get("Access-Control-Allow-Headers") != "Content-Type" {
		t.Errorf("preflight of a listed origin: %d %v", pre.Code, pre.Header())
	}
	if got := req(http.MethodPost, "/get_contacts", "http://localhost:5173"); got.Code != 200 || got.Header().Get("Access-Control-Allow-Origin") != "http://localhost:5173" {
		t.Errorf("POST from a listed origin: %d %v", got.Code, got.Header())
	}
	for _, o := range []string{"https://evil.example.com", "https://app.example.com.evil.com", "null"} {
		pre := req(http.MethodOptions, "/get_contacts", o, "Access-Control-Request-Method", "POST")
		got := req(http.MethodPost, "/get_contacts", o)
		if pre.Code != http.StatusNoContent || pre.Header().Get("Access-Control-Allow-Origin") != "" || pre.Header().Get("Access-Control-Allow-Methods") != "" ||
			got.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("origin %s let in: %v %v", o, pre.Header(), got.Header())
		}
	}
	if got := req(http.MethodOptions, "/nope", ""); got.Code != http.StatusNotFound {
		t.Errorf("OPTIONS on no route: %d", got.Code)
	}
	for _, p := range []string{"/health", "/openapi.json", "/docs"} {
		if got := req(http.MethodHead, p, ""); got.Code != http.StatusOK {
			t.Errorf("HEAD %s: %d", p, got.Code)
		}
	}

	// No origin listed: no CORS header, OPTIONS still answers.
	s2, _ := newTestServerAt(t, &now, Config{Version: "test"})
	r := httptest.NewRequest(http.MethodOptions, web.Prefix+"/get_contacts", nil)
	r.Header.Set("Origin", "https://app.example.com")
	r.Header.Set("Access-Control-Request-Method", "POST")
	rec := httptest.NewRecorder()
	s2.Handler().ServeHTTP(rec, r)
	if rec.Code != http.StatusNoContent || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("without --cors-origin: %d %v", rec.Code, rec.Header())
	}

	// any origin.
	any, _ := ParseOrigins([]string{"*"})
	s3, _ := newTestServerAt(t, &now, Config{Version: "test", CORSOrigins: any})
	r = httptest.NewRequest(http.MethodPost, web.Prefix+"/get_contacts", strings.NewReader(expand(`{`+auth+`}`)))
	r.Header.Set("Origin", "https://whoever.example")
	rec = httptest.NewRecorder()
	s3.Handler().ServeHTTP(rec, r)
	if rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("with *: %v", rec.Header())
	}

	for _, bad := range [][]string{{"app.example.com"}, {"https://app.example.com/path"}, {"ftp://x"}, {"*", "https://a.example"}, {"https://u:p@x.example"}} {
		if _, err := ParseOrigins(bad); err == nil {
			t.Errorf("ParseOrigins(%q) accepted", bad)
		}
	}
}
