package server

import (
	"encoding/json"
	"testing"
)

// BenchmarkContractPreview renders a contract with the default template
// (unit, contact, contract and order placeholders, amount in words)
// through the real handler. It has no bare baseline: the preview is
// rendering (html/template and fincom's placeholders) rather than SQL and
// encoding, so a baseline would be the same code under another name.
func BenchmarkContractPreview(b *testing.B) {
	s, _ := newTestServer(b)
	h := s.Handler()
	rec := doMultipart(h, "/insert_contract", contractMeta, map[string][]byte{"assinado.pdf": testFile(b, "boleto.pdf")})
	if rec.Code != 200 {
		b.Fatalf("insert: %d %s", rec.Code, rec.Body.String())
	}
	var out struct {
		Data []struct {
			ID string `json:"id_token"`
		} `json:"data"`
	}
	list := do(h, "POST", "/list_contracts", `{`+auth+`}`)
	if err := json.Unmarshal(list.Body.Bytes(), &out); err != nil || len(out.Data) != 1 {
		b.Fatalf("list: %v %s", err, list.Body.String())
	}
	body := expand(`{` + auth + `,"id_contract":"` + out.Data[0].ID + `","preview_context":{"responsible":"Ana Lima"}}`)
	b.ResetTimer()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			benchPost(b, h, "/get_contract_preview", body)
		}
	})
}
