package server

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

var (
	// looksLikeMoment is any string an integrator would parse as a time.
	looksLikeMoment = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}`)
	// spMoment is the one format answers give a recorded moment.
	spMoment = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-03:00$`)
)

// TestOneTimestampFormat: every moment fincom records is answered as São
// Paulo RFC 3339, whichever route shows it and whether it came with the
// record (created_date) or later (paid_at, manifested_at, cancelled_at,
// sent_at): an integrator parses one format. estimated_payment_date is a
// day, written as the spec's ISO 8601 timestamp of its midnight UTC.
func TestOneTimestampFormat(t *testing.T) {
	t.Parallel()
	s, _ := newTestModeServer(t)
	h := s.Handler()
	post(t, h, "/insert_webhook", `{`+auth+`,"url":"https://hooks.example.com/x","events":["*"]}`)
	paid, _ := chargedOrder(t, h)
	post(t, h, "/_test/pay_charge", `{`+auth+`,"id_token":"`+paid+`"}`)
	cancelled, _ := chargedOrder(t, h)
	post(t, h, "/cancel_charge", `{`+auth+`,"id_token":"`+cancelled+`"}`)
	if rec := doMultipart(h, "/import_nfe", `{`+auth+`}`, map[string][]byte{"nota.xml": testFile(t, "nfe.xml")}); rec.Code != 200 {
		t.Fatalf("import: %d %s", rec.Code, rec.Body.String())
	}
	post(t, h, "/manifest_nfe", `{`+auth+`,"access_key":"`+purchaseKey+`","event":"ciencia"}`)
	post(t, h, "/insert_purchase_order_by_access_key", `{`+auth+`,"access_key":"`+purchaseKey+`"}`)

	domain := `{"access_token":"{{access}}"}`
	seen := map[string]bool{}
	for _, c := range []struct{ path, body string }{
		{"/list_nfes", `{` + auth + `}`},
		{"/get_sales_order_by_id", `{` + auth + `,"id_token":"` + paid + `"}`},
		{"/get_sales_order_by_id", `{` + auth + `,"id_token":"` + cancelled + `"}`},
		{"/list_purchase_orders", `{` + auth + `}`},
		{"/list_webhooks", `{` + auth + `}`},
		{"/list_webhook_deliveries", `{` + auth + `}`},
		{"/list_audit", `{` + auth + `}`},
		{"/transactions", `{` + auth + `,"from_date":"2026-11-01","to_date":"2026-12-31"}`},
		{"/_test/outbox", domain},
		{"/_test/webhooks", domain},
	} {
		rec := do(h, http.MethodPost, c.path, c.body)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", c.path, rec.Code, rec.Body.String())
		}
		var walk func(key string, v any)
		walk = func(key string, v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, e := range v {
					walk(k, e)
				}
			case []any:
				for _, e := range v {
					walk(key, e)
				}
			case string:
				if !looksLikeMoment.MatchString(v) {
					return
				}
				if lk := strings.ToLower(key); lk == "estimated_payment_date" || lk == "estimatedpaymentdate" {
					return
				}
				seen[key] = true
				if !spMoment.MatchString(v) {
					t.Errorf("%s: %s = %q, not São Paulo RFC 3339", c.path, key, v)
				}
			}
		}
		var answer any
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
			t.Fatal(err)
		}
		walk("", answer)
	}
	for _, key := range []string{"created_date", "createdDate", "paid_at", "cancelled_at", "manifested_at", "created_at", "at"} {
		if !seen[key] {
			t.Errorf("no %s seen: the test no longer looks at it", key)
		}
	}
}
