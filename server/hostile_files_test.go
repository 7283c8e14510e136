package server

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"fincom/server/web"
)

// deflatedPDF is a PDF whose one content stream inflates to n zero bytes:
// a decompression bomb of about n/1000 bytes.
func deflatedPDF(n int) []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed) // 1.3 MB for 1 GiB, in a third of the time
	zero := make([]byte, 1<<20)
	for left := n; left > 0; left -= len(zero) {
		zw.Write(zero[:min(left, len(zero))])
	}
	zw.Close()
	var b bytes.Buffer
	fmt.Fprintf(&b, "%%PDF-1.4\n1 0 obj\n<< /Length %d /Filter /FlateDecode >>\nstream\n", z.Len())
	b.Write(z.Bytes())
	b.WriteString("\nendstream\nendobj\ntrailer\n<< >>\n%%EOF\n")
	return b.Bytes()
}

// rawMultipart posts body as a multipart request with boundary "B".
func rawMultipart(h http.Handler, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, web.Prefix+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "multipart/form-data; boundary=B")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	checkContract(http.MethodPost, path, nil, rec)
	return rec
}

// TestHostileFiles is the file half of issue 10's hostile input list:
// XML with external or expanding entities, decompression bombs, files
// whose content lies about their type, path-traversal and control
// character names, part floods. Each answers a clear 4xx (or, for a
// document that is merely unreadable as a bill, its 422), leaks nothing,
// and stays within a memory budget measured around the request.
func TestHostileFiles(t *testing.T) {
	// Runs alone (not parallel): it measures the process's heap around each file.
	s, _ := newTestServer(t)
	h := s.Handler()
	meta := `{` + auth + `}`
	expense := `{` + auth + `,"description":"Anexo hostil","value":10,"due_date":"2026-12-01"}`
	xxe := `<?xml version="1.0"?><!DOCTYPE nfeProc [<!ENTITY x SYSTEM "file:///etc/passwd">]><nfeProc><NFe><infNFe Id="NFe1"><emit><xNome>&x;</xNome></emit></infNFe></NFe></nfeProc>`
	laughs := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">` + func() string {
		var b strings.Builder
		for i := 1; i <= 9; i++ {
			fmt.Fprintf(&b, `<!ENTITY lol%d "%s">`, i, strings.Repeat(fmt.Sprintf("&lol%d;", i-1), 10))
		}
		return strings.ReplaceAll(b.String(), "&lol0;", "&lol;")
	}() + `]><nfeProc><xNome>&lol9;</xNome></nfeProc>`
	for _, c := range []struct {
		name, path, meta string
		files            map[string][]byte
		raw              string // a hand-made multipart body instead
		status           int
		text             string // the error text, when fixed
		budget           uint64 // bytes allocated while answering
	}{
		{name: "external entity", path: "/get_ocr_data_by_file", meta: meta, files: map[string][]byte{"nfe.xml": []byte(xxe)}, status: 422, text: "Could not read the document."},
		{name: "billion laughs", path: "/get_ocr_data_by_file", meta: meta, files: map[string][]byte{"nfe.xml": []byte(laughs)}, status: 422, text: "Could not read the document."},
		{name: "PDF bomb 1 GiB", path: "/get_ocr_data_by_file", meta: meta, files: map[string][]byte{"boleto.pdf": deflatedPDF(1 << 30)}, status: 422, text: "Could not read the document.", budget: 160 << 20},
		{name: "HTML named PDF", path: "/insert_expense", meta: expense, files: map[string][]byte{"nota.pdf": []byte("<html><script>alert(1)</script></html>")}, status: 415, text: "Unsupported file type. Send PDF, image (PNG, JPEG, GIF, WebP) or XML."},
		{name: "ELF named PNG", path: "/insert_expense", meta: expense, files: map[string][]byte{"foto.png": append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 100)...)}, status: 415, text: "Unsupported file type. Send PDF, image (PNG, JPEG, GIF, WebP) or XML."},
		{name: "SVG with script", path: "/insert_expense", meta: expense, files: map[string][]byte{"logo.svg": []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`)}, status: 415, text: "Unsupported file type. Send PDF, image (PNG, JPEG, GIF, WebP) or XML."},
		{name: "XHTML named XML", path: "/insert_expense", meta: expense, files: map[string][]byte{"nfe.xml": []byte(`<?xml version="1.0"?><x:p xmlns:x="http://www.w3.org/1999/xhtml">oi</x:p>`)}, status: 415, text: "Unsupported file type. Send PDF, image (PNG, JPEG, GIF, WebP) or XML."},
		{name: "zip named XML", path: "/get_ocr_data_by_file", meta: meta, files: map[string][]byte{"nfe.xml": append([]byte("PK\x03\x04"), make([]byte, 64)...)}, status: 415, text: "Unsupported file type. Send PDF, image (PNG, JPEG, GIF, WebP) or XML."},
		{name: "dot-dot slash", path: "/insert_expense", meta: expense, files: map[string][]byte{"../../etc/passwd": testFile(t, "boleto.pdf")}, status: 400, text: "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."},
		{name: "dot-dot backslash", path: "/insert_expense", meta: expense, files: map[string][]byte{`..\..\boot.ini`: testFile(t, "boleto.pdf")}, status: 400, text: "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."},
		{name: "absolute path", path: "/insert_expense", meta: expense, files: map[string][]byte{"/etc/shadow": testFile(t, "boleto.pdf")}, status: 400, text: "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."},
		{name: "dot-dot alone", path: "/insert_expense", meta: expense, files: map[string][]byte{"..": testFile(t, "boleto.pdf")}, status: 400, text: "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."},
		{name: "escape character", path: "/insert_expense", meta: expense, files: map[string][]byte{"nota\x1b[2J.pdf": testFile(t, "boleto.pdf")}, status: 400, text: "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."},
		{name: "tab character", path: "/insert_expense", meta: expense, files: map[string][]byte{"nota\t.pdf": testFile(t, "boleto.pdf")}, status: 400, text: "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."},
		{name: "300-byte name", path: "/insert_expense", meta: expense, files: map[string][]byte{strings.Repeat("a", 296) + ".pdf": testFile(t, "boleto.pdf")}, status: 400, text: "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."},
		{name: "plain accented name", path: "/insert_expense", meta: expense, files: map[string][]byte{"nota fiscal nº 12 (março).pdf": testFile(t, "boleto.pdf")}, status: 200},
		{name: "part flood", path: "/insert_expense", raw: strings.Repeat("--B\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\ny\r\n", 20_000) + "--B--\r\n", status: 400, text: "Invalid multipart body. Send a JSON part named metadata and the files as parts named files."},
		{name: "unterminated part", path: "/insert_expense", raw: "--B\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n{", status: 400, text: "Invalid multipart body. Send a JSON part named metadata and the files as parts named files."},
		{name: "second metadata part", path: "/insert_expense", raw: "--B\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n" + expense +
			"\r\n--B\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n{}\r\n--B--\r\n", status: 400, text: "Send one metadata part."},
		{name: "files part without a file name", path: "/insert_expense", raw: "--B\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n" + expense +
			"\r\n--B\r\nContent-Disposition: form-data; name=\"files\"\r\n\r\n%PDF-1.4\r\n--B--\r\n", status: 400, text: "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."},
		{name: "files part with an empty file name", path: "/insert_expense", raw: "--B\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n" + expense +
			"\r\n--B\r\nContent-Disposition: form-data; name=\"files\"; filename=\"\"\r\n\r\n%PDF-1.4\r\n--B--\r\n", status: 400, text: "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."},
		{name: "NUL in a file name", path: "/insert_expense", raw: "--B\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n" + expense +
			"\r\n--B\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a\x00.pdf\"\r\n\r\n%PDF-1.4\r\n--B--\r\n", status: 400, text: "Invalid file name. Send a plain name (no folders or control characters, at most 255 bytes)."},
		{name: "header flood", path: "/insert_expense", raw: "--B\r\n" + strings.Repeat("X-A: b\r\n", 20_000) + "\r\n\r\n--B--\r\n", status: 400, text: "Invalid multipart body. Send a JSON part named metadata and the files as parts named files."},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var rec *httptest.ResponseRecorder
			if c.raw != "" {
				rec = rawMultipart(h, c.path, c.raw)
			} else {
				rec = doMultipart(h, c.path, c.meta, c.files)
			}
			runtime.ReadMemStats(&after)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, c.status, rec.Body.String())
			}
			if c.text != "" && !strings.Contains(rec.Body.String(), `"`+c.text+`"`) {
				t.Fatalf("answer %s, want the text %q", rec.Body.String(), c.text)
			}
			if strings.Contains(rec.Body.String(), "root:") {
				t.Fatalf("leaked a local file: %s", rec.Body.String())
			}
			budget := c.budget
			if budget == 0 {
				budget = 64 << 20
			}
			if used := after.TotalAlloc - before.TotalAlloc; used > budget {
				t.Fatalf("allocated %d MiB answering (budget %d MiB)", used>>20, budget>>20)
			}
		})
	}
}
