package fincomtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestStart(t *testing.T) {
	f := Start(t, Options{Now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)})
	body := fmt.Sprintf(`{"access_token":%q,"unit_token":%q,"type":"legal","register":"11444777000161","socialReason":"Cliente SA"}`, f.AccessToken, f.UnitToken)
	resp, err := http.Post(f.URL+"/insert_contact", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != 200 || out["success"] != true {
		t.Fatalf("%d %v", resp.StatusCode, out)
	}
}
