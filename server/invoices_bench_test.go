package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkIssueNFeTestMode is /generate_nf of an NF-e in test mode, as an
// integrator's suite calls it: the note built, signed, sent to the
// domain's local SEFAZ over mutual TLS and its nfeProc stored. It reports
// the median besides the mean (README, Performance).
func BenchmarkIssueNFeTestMode(b *testing.B) {
	s, _ := newTestModeServer(b)
	h := s.Handler()
	order := strings.Replace(productOrder, `"local_destino":2`, `"local_destino":1`, 1)
	for _, c := range []string{"{{contact1}}", "{{contact2}}"} {
		if rec := do(h, http.MethodPost, "/update_contact", strings.Replace(withAddress, "{{contact1}}", c, 1)); rec.Code != http.StatusOK {
			b.Fatalf("contact: %d %s", rec.Code, rec.Body)
		}
	}
	newOrder := func() string {
		rec := do(h, http.MethodPost, "/insert_sales_order", order)
		var out struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &out) != nil {
			b.Fatalf("order: %d %s", rec.Code, rec.Body)
		}
		return out.Data.ID
	}
	issue := func(id string) {
		rec := do(h, http.MethodPost, "/generate_nf", `{`+auth+`,"id_token":"`+id+`"}`)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"AUTHORIZED"`) {
			b.Fatalf("issue: %d %s", rec.Code, rec.Body)
		}
	}
	issue(newOrder()) // the unit's test certificate is made at its first note
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = newOrder()
	}
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for _, id := range ids {
		start := time.Now()
		issue(id)
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
}
