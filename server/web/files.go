package web

import (
	"bytes"
	"encoding/xml"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"fincom/store"
)

var (
	errFileType     = NewError(http.StatusUnsupportedMediaType, "Unsupported file type. Send PDF, image (PNG, JPEG, GIF, WebP) or XML.")
	ErrFileTooLarge = NewError(http.StatusRequestEntityTooLarge, textFileTooLarge)
	ErrNoFiles      = NewError(http.StatusBadRequest, textNoFiles)
	errFileName     = NewError(http.StatusBadRequest, "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes).")
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
// well-formed XML element or declaration, other than HTML or SVG.
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
		if el, ok := tok.(xml.StartElement); ok {
			// Markup a browser would run (HTML, SVG) is not a document
			// fincom keeps, however well-formed.
			switch strings.ToLower(el.Name.Local) {
			case "html", "svg":
				return false
			}
			return el.Name.Space != "http://www.w3.org/1999/xhtml" && el.Name.Space != "http://www.w3.org/2000/svg"
		}
	}
}

// goodFileName reports whether a part's file name, as the client sent
// it, is a plain name. fincom stores names in the domain file and never on
// disk, but a client sending folders or control characters has a bug it
// should hear about.
func goodFileName(name string) bool {
	if name == "" || len(name) > 255 || !utf8.ValidString(name) || name == "." || name == ".." {
		return false
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f || c == '/' || c == '\\' {
			return false
		}
	}
	return true
}

// FileRule is what a route accepts as attachments, and its one text for
// anything else; the route table names a route's (Route.Files), which the
// document lists and the handler reads by.
type FileRule struct {
	types map[string]bool // sniffed content types
	err   *Error          // 415 with the route's text
}

var (
	// DocumentFiles: expenses, income, the screening inbox and document
	// reading take PDF, images and XML documents.
	DocumentFiles = FileRule{types: map[string]bool{"application/pdf": true, "image/png": true, "image/jpeg": true, "image/gif": true,
		"image/webp": true, "application/xml": true}, err: errFileType}
	// ContractFiles: a contract's attachments are PDF or images (spec,
	// Limits), with the spec's own text.
	ContractFiles = FileRule{types: map[string]bool{"application/pdf": true, "image/png": true, "image/jpeg": true, "image/gif": true,
		"image/webp": true}, err: errContractFileType}
)

// ReadFiles checks the request's `files` parts by its route's rule
// (Route.Files; a route without one takes no file).
func (r *Request) ReadFiles() ([]store.NewFile, error) {
	if r.Route.Files == nil {
		if len(r.Body.Files) > 0 {
			return nil, errFileType
		}
		return nil, nil
	}
	return ReadFiles(r.Body.Files, *r.Route.Files)
}

// ReadFiles checks the request's `files` parts: each a plain name, within
// maxFileBytes and of a type the route's rule accepts (its own 415 text
// otherwise; TestFileRulesPerRoute).
func ReadFiles(parts []filePart, rule FileRule) ([]store.NewFile, error) {
	out := make([]store.NewFile, 0, len(parts))
	for _, p := range parts {
		if !goodFileName(p.Name) {
			return nil, errFileName
		}
		if p.TooLarge {
			return nil, ErrFileTooLarge
		}
		ct := sniff(p.Data)
		if !rule.types[ct] {
			return nil, rule.err
		}
		out = append(out, store.NewFile{Name: p.Name, ContentType: ct, Data: p.Data})
	}
	return out, nil
}

// DocumentFile checks one file a portal form sends as the API's routes
// check their `files` parts under DocumentFiles: a plain name, at most
// maxFileBytes, a PDF, an image or XML by its bytes.
func DocumentFile(name string, data []byte) (store.NewFile, error) {
	files, err := ReadFiles([]filePart{{Name: name, Data: data, TooLarge: len(data) > maxFileBytes}}, DocumentFiles)
	if err != nil {
		return store.NewFile{}, err
	}
	return files[0], nil
}

// FileRequest is the body of the file downloads (fincom routes): the
// record's token and the file's, as the record's listing shows them.
type FileRequest struct {
	IDToken   string `json:"id_token" alias:"token" required:"true" doc:"The record's token."`
	FileToken string `json:"file_token" alias:"id_token_file" required:"true" doc:"The file's token, as its listing gives it."`
}

// StoredTypes are the types fincom keeps files of (sniff), hence those a
// download answers.
const StoredTypes = "application/pdf,image/png,image/jpeg,image/gif,image/webp,application/xml"

// Download answers a stored file's bytes. It is sent as an attachment,
// never to be rendered in place, with its SHA-256 as its ETag (the
// listings show the same digest).
type Download struct{ store.File }

func (d Download) Write(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", d.ContentType)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": d.Name}))
	h.Set("Content-Length", strconv.Itoa(len(d.Data)))
	h.Set("ETag", `"`+d.SHA256+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	w.WriteHeader(http.StatusOK)
	w.Write(d.Data)
}
