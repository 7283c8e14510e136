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
	t.Parallel()
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

// TestSeededStart: with a seed, two instances answer the same tokens, and
// the test-mode routes are served.
func TestSeededStart(t *testing.T) {
	t.Parallel()
	post := func(f *Instance, path, body string) string {
		resp, err := http.Post(f.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, out)
		}
		b, _ := json.Marshal(out)
		return string(b)
	}
	var answers []string
	for i := 0; i < 2; i++ {
		f := Start(t, Options{Now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), Seed: 99})
		body := fmt.Sprintf(`{"access_token":%q,"unit_token":%q,"type":"legal","register":"11444777000161","socialReason":"Cliente SA"}`, f.AccessToken, f.UnitToken)
		answers = append(answers, f.AccessToken+" "+post(f, "/insert_contact", body)+" "+post(f, "/_test/domains", `{"label":"a"}`))
	}
	if answers[0] != answers[1] {
		t.Fatalf("seeded instances differ:\n%s\n%s", answers[0], answers[1])
	}
}

// TestClockRunsJobs: in an instance, advancing the clock runs the
// scheduler's jobs of the days it crosses, as `fincom serve --test-mode`
// does.
func TestClockRunsJobs(t *testing.T) {
	t.Parallel()
	f := Start(t, Options{Now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)})
	resp, err := http.Post(f.URL+"/_test/clock", "application/json", strings.NewReader(fmt.Sprintf(`{"access_token":%q,"advance":"P10D"}`, f.AccessToken)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			Jobs [][]struct {
				Job  string `json:"job"`
				Date string `json:"date"`
			} `json:"jobs"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if len(out.Data.Jobs) != 10 || out.Data.Jobs[len(out.Data.Jobs)-1][0].Date != "2026-12-02" {
		t.Fatalf("jobs run: %+v", out.Data.Jobs)
	}
}
