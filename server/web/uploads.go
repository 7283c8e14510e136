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
	errUploadsBusy      = NewError(http.StatusServiceUnavailable, textUploadsBusy)
)

// uploadWait is how long a multipart body waits for room in the upload
// budget before it is answered 503.
const uploadWait = 15 * time.Second

// uploadBudget bounds the memory that the multipart bodies being read hold
// at once (serve --upload-memory). A body reserves its Content-Length (or
// --max-upload when it does not say) before a byte is read and gives it
// back when its request ends: sixteen clients sending 20 MiB each at once
// take turns instead of holding 320 MiB (TestConcurrentUploadsStayInBudget).
type uploadBudget struct {
	sem       *semaphore.Weighted
	total     int64
	perUpload int64
}

func NewUploadBudget(total, perUpload int64) *uploadBudget {
	total = max(total, perUpload)
	return &uploadBudget{sem: semaphore.NewWeighted(total), total: total, perUpload: perUpload}
}

// reserve takes room for a body of contentLength bytes (unknown: <= 0) and
// answers the function that gives it back.
func (u *uploadBudget) reserve(ctx context.Context, contentLength int64) (func(), error) {
	n := u.perUpload
	if contentLength > 0 && contentLength < n {
		n = contentLength
	}
	wait, cancel := context.WithTimeout(ctx, uploadWait)
	defer cancel()
	if err := u.sem.Acquire(wait, n); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // the client left: logged as 499
		}
		return nil, errUploadsBusy
	}
	return func() { u.sem.Release(n) }, nil
}
