package web

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// info is what the request log line needs from deeper in the request: the
// route pattern (never the path, which may hold a public token) and the
// domain.
type info struct {
	route  string
	Domain string
	path   string // as asked for: the router rewrites r.URL.Path when it redirects
}

type infoKey struct{}

func RequestInfo(ctx context.Context) *info {
	if i, ok := ctx.Value(infoKey{}).(*info); ok {
		return i
	}
	return &info{}
}

type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// LogRequests writes one structured line per request: method, route,
// status, duration. Tokens travel in bodies and are never logged.
func LogRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		i := &info{route: "unmatched", path: r.URL.EscapedPath()}
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			// An answer cut short (the client left mid-answer) still gets
			// its line, as 499; net/http then drops the connection.
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					sw.status = StatusClientClosed
				}
				logRequest(log, r, i, sw, start)
				panic(v)
			}
		}()
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), infoKey{}, i)))
		logRequest(log, r, i, sw, start)
	})
}

// StatusClientClosed is nginx's status for a request whose client left
// before its answer; it only ever reaches the log.
const StatusClientClosed = 499

func logRequest(log *slog.Logger, r *http.Request, i *info, sw *statusWriter, start time.Time) {
	switch p := strings.TrimPrefix(r.URL.Path, Prefix); {
	case i.route != "unmatched":
	case p == "/health", p == "/openapi.json", p == "/docs":
		i.route = p
	case r.Method == http.MethodOptions:
		i.route = "OPTIONS"
	case strings.HasPrefix(r.URL.Path, "/portal/"):
		// A portal page: its path below (record tokens, never the
		// sign-in link's secret, which is in the query).
		i.route = "portal"
	}
	// Typed attributes: every request writes this line, and a list of
	// values boxed as interfaces costs an allocation each.
	attrs := [7]slog.Attr{slog.String("method", r.Method), slog.String("route", i.route), slog.String("domain", i.Domain),
		slog.Int("status", sw.status), slog.Int("bytes", sw.bytes), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000)}
	n := 6
	if i.route == "unmatched" || i.route == "portal" {
		// Which path was asked for: a client's typo, a probe. Bounded; the
		// JSON handler escapes what it holds (TestUnknownPathsLogged).
		p := RedactTokens(i.path)
		if len(p) > 200 {
			p = p[:200] + "…"
		}
		attrs[n] = slog.String("path", p)
		n++
	}
	log.LogAttrs(context.Background(), slog.LevelInfo, "request", attrs[:n]...)
}

// tokenShaped is a fincom token in a path (fcp_acme_…, fca_…): a public
// order's token in a mistyped payment-page address is a live secret.
var tokenShaped = regexp.MustCompile(`fc[a-z]_[^/]*`)

// RedactTokens keeps each token's kind and drops the rest, so the log
// still tells which kind of address was asked for (TestUnknownPathsLogged).
func RedactTokens(path string) string {
	return tokenShaped.ReplaceAllStringFunc(path, func(t string) string { return t[:4] + "…" })
}
