package server

import (
	"bytes"
	"encoding/xml"
	"io"
	"mime/multipart"
	"net/http"

	"fincom/store"
)

var (
	errFileType     = newError(http.StatusUnsupportedMediaType, textFileType)
	errFileTooLarge = newError(http.StatusRequestEntityTooLarge, textFileTooLarge)
	errNoFiles      = newError(http.StatusBadRequest, textNoFiles)
)

// maxFileBytes is the largest single attachment (the whole body is bounded
// by --max-upload).
const maxFileBytes = 10 << 20

// sniff names a file's type from its bytes, never from its name: PDF,
// PNG, JPEG, GIF, WebP or XML. Anything else is "".
func sniff(b []byte) string {
	switch ct := http.DetectContentType(b); ct {
	case "application/pdf", "image/png", "image/jpeg", "image/gif", "image/webp":
		return ct
	}
	if isXML(b) {
		return "application/xml"
	}
	return ""
}

// isXML reports whether b starts (after an optional BOM and blanks) with a
// well-formed XML element or declaration.
func isXML(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '<' {
		return false
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if _, ok := tok.(xml.StartElement); ok {
			return true
		}
	}
}

// readFiles reads the request's `files` parts, each within maxFileBytes and
// of an accepted type.
func readFiles(fhs []*multipart.FileHeader) ([]store.NewFile, error) {
	out := make([]store.NewFile, 0, len(fhs))
	for _, fh := range fhs {
		if fh.Size > maxFileBytes {
			return nil, errFileTooLarge
		}
		f, err := fh.Open()
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
		f.Close()
		if err != nil {
			return nil, err
		}
		if len(data) > maxFileBytes {
			return nil, errFileTooLarge
		}
		ct := sniff(data)
		if ct == "" {
			return nil, errFileType
		}
		out = append(out, store.NewFile{Name: fh.Filename, ContentType: ct, Data: data})
	}
	return out, nil
}
