package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"fincom/server/web"
)

// TestTextLimitsAsDocumented reads every route's request schema from the
// served document and holds the server to each maxLength it states: a
// text of that many characters is not refused for its length, one more is
// 400 `A text field is too long.` naming the field, before anything is
// stored.
func TestTextLimitsAsDocumented(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t)
	h := s.Handler()
	checked := 0
	for _, b := range documentedBodies(t, s, h) {
		rt, fields := b.route, b.props
		for name, p := range fields {
			n, ok := p["maxLength"].(float64)
			if !ok {
				continue
			}
			for _, tc := range []struct {
				length  int
				refused bool
			}{{int(n), false}, {int(n) + 1, true}} {
				body, _ := json.Marshal(map[string]any{name: strings.Repeat("a", tc.length)})
				b := `{` + auth + `,` + string(body)[1:]
				rec := do(h, http.MethodPost, rt.Path, b)
				var got struct {
					Error   string            `json:"error"`
					Message string            `json:"message"`
					Details map[string]string `json:"details"`
				}
				json.Unmarshal(rec.Body.Bytes(), &got)
				refused := rec.Code == http.StatusBadRequest && (got.Error == "A text field is too long." || got.Message == "A text field is too long.")
				if refused != tc.refused || (refused && rt.Envelope != web.EnvMessage && got.Details["field"] != name) {
					t.Errorf("%s %s of %d characters (maxLength %d): %d %s", rt.Path, name, tc.length, int(n), rec.Code, rec.Body)
				}
				checked++
			}
		}
	}
	t.Logf("%d limits checked", checked)
	if checked < 80 {
		t.Fatalf("only %d limits checked", checked)
	}
}
