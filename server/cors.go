package server

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// CORS: browser apps of integrators call the API from their own origins.
// fincom sends no cookie and reads its tokens from the body, so what CORS
// guards is which pages may read its answers; none may unless the operator
// lists their origin (serve --cors-origin), and "*" lets every page read
// them (test mode's stand-ins, never a production default).

// ParseOrigins checks the operator's allow-list: each an origin
// (scheme://host[:port], http or https, no path), or "*" alone.
func ParseOrigins(list []string) ([]string, error) {
	var out []string
	for _, o := range list {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o == "*" {
			out = append(out, o)
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("--cors-origin %q: use an origin such as https://app.example.com (scheme, host and port only)", o)
		}
		out = append(out, u.Scheme+"://"+strings.ToLower(u.Host))
	}
	if slices.Contains(out, "*") && len(out) > 1 {
		return nil, fmt.Errorf("--cors-origin: \"*\" lets every origin in; list it alone")
	}
	return out, nil
}

// corsOrigin answers the Access-Control-Allow-Origin for a request's
// Origin, "" when it is not allowed.
func (s *Server) corsOrigin(r *http.Request) string {
	origin := r.Header.Get("Origin")
	if origin == "" || len(s.cfg.CORSOrigins) == 0 {
		return ""
	}
	if s.cfg.CORSOrigins[0] == "*" {
		return "*"
	}
	if slices.Contains(s.cfg.CORSOrigins, strings.ToLower(origin)) {
		return origin
	}
	return ""
}

// withCORS adds the CORS headers of an allowed origin to every answer.
func (s *Server) withCORS(next http.Handler) http.Handler {
	if len(s.cfg.CORSOrigins) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Origin")
		if o := s.corsOrigin(r); o != "" {
			w.Header().Set("Access-Control-Allow-Origin", o)
			w.Header().Set("Access-Control-Expose-Headers", "Content-Disposition")
		}
		next.ServeHTTP(w, r)
	})
}

// options answers OPTIONS on a route: 204 with Allow (set by the router)
// and, for an allowed origin's preflight, the methods and headers it may
// use (TestOptionsAndCORS).
func (s *Server) options(w http.ResponseWriter, r *http.Request) {
	if s.corsOrigin(r) != "" && r.Header.Get("Access-Control-Request-Method") != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Methods", h.Get("Allow"))
		h.Set("Access-Control-Allow-Headers", "Content-Type")
		h.Set("Access-Control-Max-Age", "600")
	}
	w.WriteHeader(http.StatusNoContent)
}
