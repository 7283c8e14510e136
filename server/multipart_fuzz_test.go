package server

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"testing"

	"fincom/server/web"
)

// FuzzMultipart feeds the multipart reader and the routes that take files
// arbitrary metadata, file names, part headers and file bytes, well
// framed or (raw) as the whole body: every answer is a JSON envelope below
// 500, never a panic.
func FuzzMultipart(f *testing.F) {
	pdf := testFile(f, "boleto.pdf")
	xml := testFile(f, "nfe.xml")
	for _, seed := range []struct {
		meta, name, ctype string
		data              []byte
		raw               bool
	}{
		{`{"access_token":"{{access}}","unit_token":"{{unitA}}","description":"X","value":1,"due_date":"2026-11-05"}`, "boleto.pdf", "application/pdf", pdf, false},
		{`{"access_token":"{{access}}","unit_token":"{{unitA}}"}`, "nfe.xml", "text/xml", xml, false},
		{`{"access_token":"{{access}}","unit_token":"{{unitA}}","id_token_contact":"{{contact1}}","contract_name":"C","validity_start":"2026-12-01"}`, "../x.pdf", "image/png", pdf[:100], false},
		{"", "", "", []byte("--B\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.pdf\"\r\n\r\n%PDF-1.4\r\n--B--\r\n"), true},
		{"", "", "", []byte("--B\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n{\"a\":1}\r\n--B"), true},
	} {
		f.Add(seed.meta, seed.name, seed.ctype, seed.data, seed.raw)
	}
	s, _ := newTestServer(f)
	h := s.Handler()
	paths := []string{"/insert_expense", "/insert_expense_files", "/get_ocr_data_by_file", "/insert_screening", "/insert_contract"}
	f.Fuzz(func(t *testing.T, meta, name, ctype string, data []byte, raw bool) {
		var body bytes.Buffer
		contentType := "multipart/form-data; boundary=B"
		if raw {
			body.Write(data)
		} else {
			mw := multipart.NewWriter(&body)
			mw.WriteField("metadata", expand(meta))
			hdr := textproto.MIMEHeader{}
			hdr.Set("Content-Disposition", `form-data; name="files"; filename="`+name+`"`)
			hdr.Set("Content-Type", ctype)
			if w, err := mw.CreatePart(hdr); err == nil {
				w.Write(data)
			}
			mw.Close()
			contentType = mw.FormDataContentType()
		}
		for _, p := range paths {
			req := httptest.NewRequest(http.MethodPost, web.Prefix+p, bytes.NewReader(body.Bytes()))
			req.Header.Set("Content-Type", contentType)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			checkContract(http.MethodPost, p, nil, rec)
			if rec.Code >= 500 {
				t.Fatalf("%s answered %d: %s", p, rec.Code, rec.Body.String())
			}
			var env map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
				t.Fatalf("%s: not JSON: %s", p, rec.Body.String())
			}
		}
	})
}
