package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"fincom/server/docread"
	"fincom/server/web"
	"fincom/store"
)

// screenings handles the routes of screenings (routes.go).
type screenings struct{ *API }

var (
	errUnreadable       = web.NewError(http.StatusUnprocessableEntity, "Could not read the document.")
	errNoOCR            = web.NewError(http.StatusUnprocessableEntity, "Images need an OCR engine, and none is configured. Send the XML or a PDF with text.")
	errOneFile          = web.NewError(http.StatusBadRequest, "Send exactly one file.")
	errScreeningMissing = web.NewError(http.StatusNotFound, "Screening not found or not pending.")
)

// oneFile reads the request's single `files` part.
func oneFile(r *web.Request) (store.NewFile, error) {
	switch len(r.Body.Files) {
	case 0:
		return store.NewFile{}, web.ErrNoFiles
	case 1:
	default:
		return store.NewFile{}, errOneFile
	}
	files, err := r.ReadFiles()
	if err != nil {
		return store.NewFile{}, err
	}
	return files[0], nil
}

// getOCRDataByFile reads a document (multipart `files`, one file) into
// expense fields with a confidence each: NF-e/NFC-e and NFS-e XML, or a
// PDF's text (boleto line, CNPJ, due date, total). Images answer 422: no
// OCR engine is built in.
func (s screenings) getOCRDataByFile(r *web.Request) (any, error) {
	f, err := oneFile(r)
	if err != nil {
		return nil, err
	}
	res, err := docread.Read(f.ContentType, f.Data, r.DB.Now())
	switch {
	case errors.Is(err, docread.ErrNoOCR):
		return nil, errNoOCR
	case err != nil:
		return nil, errUnreadable
	}
	return res, nil
}

type screeningRequest struct {
	Note string `json:"note" alias:"observation" text:"multiline" doc:"A note kept with the document (several lines)."`
}

// insertScreening puts a received document (one file) in the unit's inbox
// with what fincom could read from it; an unreadable document is kept too,
// with kind "unread", for a person to triage.
func (s screenings) insertScreening(r *web.Request, q *screeningRequest) (any, error) {
	f, err := oneFile(r)
	if err != nil {
		return nil, err
	}
	res, err := docread.Read(f.ContentType, f.Data, r.DB.Now())
	if err != nil {
		res = docread.Result{Kind: "unread", Fields: map[string]docread.Field{}, Items: []docread.Item{}}
	}
	extracted, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	token, err := r.DB.InsertScreening(r.Ctx, r.Unit.ID, f, extracted, strings.TrimSpace(q.Note))
	if err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Document received for screening.", Token: token}, nil
}

type listScreeningsRequest struct {
	Status string `json:"status" enum:"pending,converted,discarded" doc:"Only screenings of this status."`
	web.PageRequest
}

// listScreenings (a fincom route) answers the unit's inbox, newest first,
// optionally by status.
func (s screenings) listScreenings(r *web.Request, q *listScreeningsRequest) (any, error) {
	pg := q.StorePage()
	list, total, err := r.DB.Screenings(r.Ctx, r.Unit.ID, q.Status, pg)
	return web.PageOf(list, total, pg, err)
}

// discardScreening (a fincom route) takes a pending document out of the
// inbox.
func (s screenings) discardScreening(r *web.Request, q *web.IdRequest) (any, error) {
	if err := r.DB.SetScreeningStatus(r.Ctx, r.Unit.ID, q.IDToken, "pending", "discarded"); err != nil {
		return nil, err
	}
	return web.TokenAnswer{Message: "Screening discarded.", Token: q.IDToken}, nil
}

// What the OpenAPI document says of this file's routes (their desc in
// routes.go).
const (
	docOCR = "Reads one document (multipart, one `files` part) into an expense's fields, each with a confidence: " +
		"NF-e and NFC-e XML (supplier, total, issue date, access key, the first installment's due date, " +
		"items), national and ABRASF NFS-e XML, all with confidence 1; the text of a PDF: a boleto line " +
		"whose check digits hold (0.99), an access key with a valid check digit (0.95), the first valid CNPJ " +
		"(0.9), a due date and total next to their usual labels (0.7). XML entities are refused, never " +
		"expanded; compressed PDF streams are bounded. Images answer 422 `Images need an OCR engine, and " +
		"none is configured. …`; unreadable input 422 `Could not read the document.`."
	docInsertScreening = "Puts a received document (multipart, one file; optional `note`) in the unit's screening inbox as " +
		"`pending`, with what fincom read from it; an unreadable one is kept too, with `kind` `unread`, for " +
		"a person. `/insert_expense` with `id_token_screening` turns it into an expense."
	docListScreenings = "The screening inbox, newest first, optionally by `status` (`pending`, `converted`, `discarded`): " +
		"`[{token, status, file_name, content_type, size, extracted, note, created_date}]`."
	docDiscardScreening = "Takes a pending document (`id_token`) out of the inbox (404 `Screening not found or not pending.`)."
)
