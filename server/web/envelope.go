package web

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"fincom/render/jsonenc"
	"fincom/store/replica"
)

// Envelope is how a route wraps its answers.
type Envelope int

const (
	// EnvDirect: {success: true, data} and {success: false, error[, details]}.
	EnvDirect Envelope = iota
	// EnvMessage: failures as {success: false, message, data: null}, and a
	// 500 as {success: false, error, data: null} (spec, /insert_contract).
	EnvMessage
	// EnvHTML: public pages; failures are pages too (404, 429, ...).
	EnvHTML
)

// TokenAnswer is the success body of inserts and changes (update,
// enable, disable, cancel, delete) that answer the record's token:
// {success: true, message, token}.
type TokenAnswer struct {
	Message string
	Token   string
}

// WithMessage is the success body {success: true, message, data}.
type WithMessage struct {
	Message string
	Data    any
}

// OkData is the nested {ok, message, data} value some routes put in data.
type OkData struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Data    any    `json:"data"`
}

type DataBody struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

type messageDataBody struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Data    any    `json:"data"`
}

type tokenBody struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Token   string `json:"token"`
}

type ErrorBody struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Details any    `json:"details,omitempty"`
}

type errorMessageBody struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Data    any    `json:"data"`
}

type errorDataBody struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Data    any    `json:"data"`
}

// successBody wraps a handler's value in the route's success envelope.
func successBody(v any) any {
	switch v := v.(type) {
	case TokenAnswer:
		return tokenBody{true, v.Message, v.Token}
	case WithMessage:
		return messageDataBody{true, v.Message, v.Data}
	case Paged:
		return pagedBody{true, v.Data, v.Page.Number, v.Page.Size, v.Total}
	default:
		return DataBody{true, v}
	}
}

// errorStatusBody turns any error into the route's status and body. An error
// that is not an *Error is a 500 with the route's internal text; its cause
// is logged here and never sent.
func (s *Mux) errorStatusBody(rt *Route, err error, log *slog.Logger) (int, any) {
	var e *Error
	if !errors.As(err, &e) {
		log.Error("internal error", "route", rt.Path, "err", err)
		e = NewError(http.StatusInternalServerError, rt.Texts.Internal)
	}
	status := StatusOf(e)
	if rt.Envelope == EnvMessage {
		if status >= 500 {
			return status, errorDataBody{false, e.Text, nil}
		}
		return status, errorMessageBody{false, e.Text, nil}
	}
	return status, ErrorBody{false, e.Text, e.Details}
}

// answerBuffers holds answer buffers between requests. An answer is
// written through one in pieces of 32 KiB (jsonenc.Write), so a buffer
// never grows much past that.
var answerBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 40<<10); return &b }}

// headerWriter sends the status line and headers before the first bytes
// of the answer.
type headerWriter struct {
	w      http.ResponseWriter
	status int
	sent   bool
}

func (h *headerWriter) Write(b []byte) (int, error) {
	if !h.sent {
		h.sent = true
		h.w.Header().Set("Content-Type", "application/json; charset=utf-8")
		h.w.Header().Set("X-Content-Type-Options", "nosniff")
		h.w.WriteHeader(h.status)
	}
	return h.w.Write(b)
}

// WriteJSON is the one place that writes a JSON response.
// Texts are written as they are (no \u003c for "<"): clients compare them
// byte for byte.
func WriteJSON(w http.ResponseWriter, status int, body any) {
	bp := answerBuffers.Get().(*[]byte)
	defer answerBuffers.Put(bp)
	hw := &headerWriter{w: w, status: status}
	// jsonenc writes what encoding/json would, with HTML escaping off,
	// faster (its package comment says why), and a long answer in pieces.
	b, started, err := jsonenc.Write(hw, *bp, body)
	*bp = b[:0]
	if err != nil {
		if started {
			// Half an answer is out: the client must not take it for a
			// whole one.
			panic(http.ErrAbortHandler)
		}
		hw.status = http.StatusInternalServerError
		b = append(b[:0], `{"success":false,"error":"`+TextSomethingWentWrong+`"}`...)
	}
	hw.Write(append(b, '\n'))
}

// TextHealthToken answers a health check whose Authorization is not the
// technical token.
const TextHealthToken = "Invalid token. Send the technical token (fincom token tec) as Authorization: Bearer, or no Authorization."

// HealthData is the answer of GET /api/v1/health.
type HealthData struct {
	Status    string `json:"status" doc:"ok; replica behind when a replica lags; data dir not writable (503)."`
	Version   string `json:"version" doc:"The server's version."`
	DataDirOK bool   `json:"data_dir_ok" doc:"true: the data directory can be written."`
	// ReplicaLag is the worst file's, replicating.
	ReplicaLag *int `json:"replication_lag_seconds,omitempty" doc:"How far behind the most lagging replica is, in seconds (serve --replicate); absent without replication."`
	// OpenDomains and Replication name what the server holds: they are
	// answered to the technical token alone (Authorization: Bearer).
	OpenDomains *int `json:"open_domains,omitempty" doc:"How many domain files are open; with the technical token only."`
	// Replication is each file's replica (serve --replicate), absent
	// without one.
	Replication []replica.Status `json:"replication,omitempty" doc:"Each file's replica (serve --replicate); with the technical token only, absent without replication."`
}
