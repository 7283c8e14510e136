package server

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi/datamodel"
)

// apiPixValidator is the Banco Central's API Pix 2.9.0 as published, read
// by pb33f/libopenapi-validator (a validator nobody here wrote, beside the
// kin-openapi fincom's client validates its bodies with): every request
// fincom sends the local PSP and every answer that PSP gives is held to
// it (checkedByAPIPix). The document writes 14 patterns in JavaScript's
// /…/ form, read as the expression between the slashes, as fincom's own
// copy does (apipix.slashed).
var apiPixValidator = sync.OnceValues(func() (validator.Validator, error) {
	b, err := os.ReadFile("psp/apipix/apipix.yaml")
	if err != nil {
		return nil, err
	}
	b = regexp.MustCompile(`pattern: "/(.*)/"`).ReplaceAll(b, []byte(`pattern: "$1"`))
	// The document's examples are referenced where a reader looks them
	// up; libopenapi says so on every load, which is noise here.
	doc, err := libopenapi.NewDocumentWithConfiguration(b, &datamodel.DocumentConfiguration{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		return nil, err
	}
	// What the published document asks that nothing can hold, dropped as
	// fincom's own copy drops it (apipix.unrequired): RecBase's idRec (a
	// request cannot carry what the PSP assigns) and retentativa (which
	// names no property: politicaRetentativa is it), SolicRecBase's
	// pagador (defined nowhere); and PixAutomatico's valor, a string whose
	// anyOf demands an object (no value is both).
	schemas := model.Model.Components.Schemas
	for name, drop := range map[string][]string{"RecBase": {"idRec", "retentativa"}, "SolicRecBase": {"pagador"}} {
		s, ok := schemas.Get(name)
		if !ok {
			return nil, fmt.Errorf("the document has no schema %s", name)
		}
		kept := s.Schema().Required[:0:0]
		for _, r := range s.Schema().Required {
			if !slices.Contains(drop, r) {
				kept = append(kept, r)
			}
		}
		s.Schema().Required = kept
	}
	pa, ok := schemas.Get("PixAutomatico")
	if !ok {
		return nil, fmt.Errorf("the document has no schema PixAutomatico")
	}
	valor, ok := pa.Schema().Properties.Get("valor")
	if !ok {
		return nil, fmt.Errorf("PixAutomatico has no valor")
	}
	valor.Schema().AnyOf = nil
	// The payload locations' own paths are served at the location's
	// host, not under the API's base; /cobv/{pixUrlAccessToken} would
	// otherwise take every /cobv/{txid} call.
	for _, p := range []string{"/{pixUrlAccessToken}", "/cobv/{pixUrlAccessToken}", "/rec/{recUrlAccessToken}"} {
		if _, ok := model.Model.Paths.PathItems.Get(p); !ok {
			return nil, fmt.Errorf("the document has no path %s", p)
		}
		model.Model.Paths.PathItems.Delete(p)
	}
	// The mutations above are the high-level model's: rendered and read
	// again, the validator sees them.
	_, reloaded, _, err := doc.RenderAndReload()
	if err != nil {
		return nil, err
	}
	v, errs := validator.NewValidator(reloaded)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return v, nil
})

// checkedByAPIPix puts a PSP's API (mounted at /api/v2) behind a check
// of each request and answer against the API Pix document: a violation
// fails the test.
func checkedByAPIPix(t *testing.T) func(http.Handler) http.Handler {
	v, err := apiPixValidator()
	if err != nil {
		t.Fatalf("the API Pix document: %v", err)
	}
	var mu sync.Mutex
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			// As the document's server names it: https://pix.example.com/api/.
			req, _ := http.NewRequest(r.Method, "https://pix.example.com/api"+r.URL.Path, bytes.NewReader(body))
			req.Header = r.Header.Clone()
			resp := rec.Result()
			mu.Lock()
			defer mu.Unlock()
			if ok, errs := v.ValidateHttpRequestResponse(req, resp); !ok {
				var why []string
				for _, e := range errs {
					why = append(why, e.Message+": "+e.Reason)
					for _, s := range e.SchemaValidationErrors {
						why = append(why, "  "+s.KeywordLocation+" "+strings.Join(s.InstancePath, "/")+": "+s.Reason)
					}
				}
				t.Errorf("%s %s (%d) breaks the API Pix:\n%s\nrequest %s\nanswer %s %s", r.Method, r.URL.Path, rec.Code, strings.Join(why, "\n"),
					body, rec.Header().Get("Content-Type"), rec.Body.String())
			}
		})
	}
}
