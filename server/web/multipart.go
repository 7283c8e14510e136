package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/textproto"
	"strings"
)

// Multipart bodies: a JSON `metadata` part, form fields and files, read
// into memory within the server's limits.

// maxParts bounds a multipart body's parts: the largest real form (a
// metadata part and a few attachments) is far below.
const maxParts = 1000

// readMultipart streams a multipart body's parts into memory: the JSON
// part `metadata`, plain form fields, and `files` parts (each up to
// maxFileBytes; a larger one is drained and marked, never kept). Nothing
// is spilled to disk, so no temporary file can outlive a request
// (TestUploadsLeaveNoFiles); memory is bounded by --max-upload per
// request and by the server's upload budget for all of them at once
// (TestConcurrentUploadsStayInBudget).
func (s *Mux) readMultipart(w http.ResponseWriter, r *http.Request) (Body, error) {
	if r.ContentLength > s.MaxMultipart {
		return Body{}, errBodyTooLarge
	}
	free, err := s.Uploads.reserve(r.Context(), r.ContentLength)
	if err != nil {
		return Body{}, err
	}
	b, err := s.readParts(w, r)
	if err != nil {
		free()
		return Body{}, err
	}
	b.free = free
	return b, nil
}

func (s *Mux) readParts(w http.ResponseWriter, r *http.Request) (Body, error) {
	counted := &countingReader{r: http.MaxBytesReader(w, r.Body, s.MaxMultipart)}
	r.Body = counted
	mr, err := r.MultipartReader()
	if err != nil {
		return Body{}, errInvalidMultipart
	}
	b := Body{Fields: map[string]json.RawMessage{}, form: map[string]bool{}}
	values := map[string]string{}
	var meta []byte
	for n := 0; ; n++ {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Body{}, multipartError(err)
		}
		if n >= maxParts {
			return Body{}, errInvalidMultipart
		}
		cd := p.Header.Get("Content-Disposition")
		disposition, params, perr := mime.ParseMediaType(cd)
		if perr != nil || disposition != "form-data" {
			if strings.Contains(strings.ToLower(cd), "filename") {
				// A name mime cannot read (a NUL, a control character, a
				// broken quote) is a bad file name, not a bad body.
				return Body{}, errFileName
			}
			return Body{}, errInvalidMultipart
		}
		name, filename, hasFile := params["name"], params["filename"], false
		_, hasFile = params["filename"]
		switch {
		case name == "metadata":
			if meta != nil {
				return Body{}, errTwoMetadata
			}
			if meta, err = readPart(p, s.MaxJSON); err != nil {
				return Body{}, err
			}
		case name == "files":
			if !hasFile || filename == "" {
				return Body{}, errFileName
			}
			f := filePart{Name: filename}
			// Sized once from what is left of the body: io.ReadAll's
			// doubling would hold up to twice the file.
			hint := int64(maxFileBytes + 1)
			if r.ContentLength > 0 {
				hint = min(hint, r.ContentLength-counted.n)
			}
			buf := bytes.NewBuffer(make([]byte, 0, max(hint, 0)+bytes.MinRead))
			if _, err := buf.ReadFrom(io.LimitReader(p, maxFileBytes+1)); err != nil {
				return Body{}, multipartError(err)
			}
			data := buf.Bytes()
			if len(data) > maxFileBytes {
				// Drained, not kept: the handler answers 413 after it has
				// checked the tokens, as for any file it refuses.
				if _, err := io.Copy(io.Discard, p); err != nil {
					return Body{}, multipartError(err)
				}
				f.TooLarge = true
			} else {
				f.Data = data
			}
			b.Files = append(b.Files, f)
		case hasFile:
			// A file under another name is not read by any route.
			if _, err := io.Copy(io.Discard, p); err != nil {
				return Body{}, multipartError(err)
			}
		default:
			v, err := readPart(p, s.MaxJSON)
			if err != nil {
				return Body{}, err
			}
			if _, seen := values[name]; !seen {
				values[name] = string(v)
			}
		}
	}
	if meta != nil {
		if err := parseObject(meta, &b.Fields); err != nil {
			return Body{}, err
		}
	}
	for k, v := range values {
		if _, ok := b.Fields[k]; ok || k == "" {
			continue
		}
		enc, _ := json.Marshal(v)
		b.Fields[k] = enc
		b.form[k] = true
	}
	return b, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReadCloser
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }

// readPart reads a form part of at most max bytes.
func readPart(p io.Reader, max int64) ([]byte, error) {
	v, err := io.ReadAll(io.LimitReader(p, max+1))
	if err != nil {
		return nil, multipartError(err)
	}
	if int64(len(v)) > max {
		return nil, errBodyTooLarge
	}
	return v, nil
}

// multipartError answers a failure while reading the body: past
// --max-upload 413; a part header textproto refuses for a control
// character in its file name (a NUL, an escape) the file-name text;
// anything else a malformed body.
func multipartError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return errBodyTooLarge
	}
	var proto textproto.ProtocolError
	if errors.As(err, &proto) && strings.Contains(strings.ToLower(string(proto)), "filename=") {
		return errFileName
	}
	return errInvalidMultipart
}
