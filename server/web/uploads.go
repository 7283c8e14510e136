package web

import (
	"context"
	"net/http"
	"time"

	"golang.org/x/sync/semaphore"
)

var (
	errInvalidMultipart = NewError(http.StatusBadRequest, "Invalid multipart body. Send a JSON part named metadata and the files as parts named files.")
	errTwoMetadata      = NewError(http.StatusBadRequest, "Send one metadata part.")
	// ErrUploadsBusy: no room in the uploads' budget within uploadWait.
	ErrUploadsBusy = NewError(http.StatusServiceUnavailable, textUploadsBusy)
)

// uploadWait is how long a multipart body waits for room in the upload
// budget before it is answered 503.
const uploadWait = 15 * time.Second

// UploadBudget bounds the memory that the multipart bodies being read hold
// at once (serve --upload-memory). A body reserves its Content-Length (or
// --max-upload when it does not say) before a byte is read and gives it
// back when its request ends: sixteen clients sending 20 MiB each at once
// take turns instead of holding 320 MiB (TestConcurrentUploadsStayInBudget).
type UploadBudget struct {
	sem       *semaphore.Weighted
	total     int64
	perUpload int64
}

// NewUploadBudget is a budget of total bytes for bodies of at most
// perUpload each.
func NewUploadBudget(total, perUpload int64) *UploadBudget {
	total = max(total, perUpload)
	return &UploadBudget{sem: semaphore.NewWeighted(total), total: total, perUpload: perUpload}
}

// reserve takes room for a body of contentLength bytes (unknown: <= 0)
// and answers the function that gives it back.
func (u *UploadBudget) reserve(ctx context.Context, contentLength int64) (func(), error) {
	return u.reserveUpTo(ctx, contentLength, u.perUpload)
}

// reserveUpTo is reserve for a body of at most limit bytes.
func (u *UploadBudget) reserveUpTo(ctx context.Context, contentLength, limit int64) (func(), error) {
	n := min(limit, u.perUpload)
	if contentLength > 0 && contentLength < n {
		n = contentLength
	}
	wait, cancel := context.WithTimeout(ctx, uploadWait)
	defer cancel()
	if err := u.sem.Acquire(wait, n); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // the client left: logged as 499
		}
		return nil, ErrUploadsBusy
	}
	return func() { u.sem.Release(n) }, nil
}

// ReadForm parses a multipart form (the portal's uploads) of at most
// limit bytes into r.MultipartForm, in memory alone and within the
// budget, which it holds until free is called (after the request is
// answered). No part is ever spilled to a temporary file: the body is cut
// at limit, and limit is also what the parser may keep in memory. A body
// over the limit is an *http.MaxBytesError.
func (u *UploadBudget) ReadForm(w http.ResponseWriter, r *http.Request, limit int64) (free func(), err error) {
	if r.ContentLength > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	release, err := u.reserveUpTo(r.Context(), r.ContentLength, limit)
	if err != nil {
		return nil, err
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if err := r.ParseMultipartForm(limit); err != nil {
		if r.MultipartForm != nil {
			r.MultipartForm.RemoveAll()
		}
		release()
		return nil, err
	}
	return func() {
		r.MultipartForm.RemoveAll() // nothing is on disk; kept as a guard
		release()
	}, nil
}
