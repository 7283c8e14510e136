package api

import (
	"net/http"

	"fincom/server/web"
)

// entryFiles handles the routes of the attachments of expenses and income (routes.go).
type entryFiles struct{ *API }

var errFileNotFound = web.NewError(http.StatusNotFound, "File not found.")

// listEntryFiles answers an expense's or income's attachments (never their
// bytes): [{token, name, content_type, size, sha256, created_date}].
func (s entryFiles) listEntryFiles(k entryKind) web.Action {
	return web.Handle(func(r *web.Request, q *web.IdRequest) (any, error) {
		return r.DB.EntryFiles(r.Ctx, r.Unit.ID, k.typ, q.IDToken)
	})
}

// insertEntryFiles attaches the multipart `files` to an entry and answers
// {success, message, data: [file token, ...]}.
func (s entryFiles) insertEntryFiles(k entryKind) web.Action {
	return web.Handle(func(r *web.Request, q *web.IdRequest) (any, error) {
		if len(r.Body.Files) == 0 {
			return nil, web.ErrNoFiles
		}
		files, err := r.ReadFiles()
		if err != nil {
			return nil, err
		}
		tokens, err := r.DB.AddEntryFiles(r.Ctx, r.Unit.ID, k.typ, q.IDToken, files)
		if err != nil {
			return nil, err
		}
		return web.WithMessage{Message: "Files attached successfully.", Data: tokens}, nil
	})
}

// deleteFilesRequest names a record and the files to delete: `files` (an
// array of file tokens, alias `id_token_files`) or `id_token_file`.
type deleteFilesRequest struct {
	IDToken string   `json:"id_token" alias:"token" required:"true" doc:"The record whose files are removed."`
	Files   []string `json:"files" alias:"id_token_files" doc:"The tokens of the files removed."`
	File    string   `json:"id_token_file" alias:"file_token" doc:"One file's token, instead of files."`
}

func (q *deleteFilesRequest) Validate() error {
	if q.File != "" {
		q.Files = append(q.Files, q.File)
	}
	if len(q.Files) == 0 {
		return web.ErrMissing
	}
	return nil
}

// getEntryFile answers the bytes of one attachment of an entry (a fincom
// route: the spec lists files without a way to read them back).
func (s entryFiles) getEntryFile(k entryKind) web.Action {
	return web.Handle(func(r *web.Request, q *web.FileRequest) (any, error) {
		f, err := r.DB.EntryFile(r.Ctx, r.Unit.ID, k.typ, q.IDToken, q.FileToken)
		if err != nil {
			return nil, err
		}
		return web.Download{File: f}, nil
	})
}

// deleteEntryFiles removes attachments of an entry; all or none.
func (s entryFiles) deleteEntryFiles(k entryKind) web.Action {
	return web.Handle(func(r *web.Request, q *deleteFilesRequest) (any, error) {
		if err := r.DB.DeleteEntryFiles(r.Ctx, r.Unit.ID, k.typ, q.IDToken, q.Files); err != nil {
			return nil, err
		}
		return web.TokenAnswer{Message: "Files deleted successfully.", Token: q.IDToken}, nil
	})
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docListEntryFiles = "The attachments of an entry (`id_token`), never their bytes: `[{token, name, content_type, size, " +
		"sha256, created_date}]`."
	docGetEntryFile = "The bytes of one attachment (`id_token` of the entry and `file_token`, alias `id_token_file`) as " +
		"they were sent, as a download: its stored `Content-Type`, `Content-Disposition: attachment` with " +
		"its name, its SHA-256 as `ETag`, `X-Content-Type-Options: nosniff` and a sandboxing " +
		"`Content-Security-Policy`. Failures are JSON: 404 `File not found.`, or the entry's not-found text."
	docInsertEntryFiles = "Attaches the multipart `files` to an entry (`id_token` in `metadata`) and answers their tokens. The " +
		"same file rules as the inserts."
	docDeleteEntryFiles = "Deletes attachments of an entry: `id_token` and `files` (file tokens) or `id_token_file`; all or " +
		"none (404 `File not found.`). The bytes are overwritten in the domain file (`secure_delete`)."
)
