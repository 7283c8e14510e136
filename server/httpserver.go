package server

import (
	"log/slog"
	"net/http"
	"time"
)

// Timeouts bound how long one client may hold a connection: slow clients
// (slowloris) are cut instead of tying up the server.
type Timeouts struct {
	ReadHeader time.Duration // request line and headers
	Read       time.Duration // the whole request, body included
	Write      time.Duration // from the end of the headers to the end of the answer
	Idle       time.Duration // between requests of a kept-alive connection
}

// DefaultTimeouts are fincom serve's: generous for a 25 MiB upload on a
// slow line, short enough that a trickle of bytes cannot hold a connection.
func DefaultTimeouts() Timeouts {
	return Timeouts{ReadHeader: 10 * time.Second, Read: 60 * time.Second, Write: 60 * time.Second, Idle: 120 * time.Second}
}

// NewHTTPServer is the http.Server fincom serves h with: the timeouts, a
// 64 KiB header limit, and net/http's own complaints in log.
func NewHTTPServer(h http.Handler, t Timeouts, log *slog.Logger) *http.Server {
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    64 << 10,
	}
	if log != nil {
		hs.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	}
	return hs
}
