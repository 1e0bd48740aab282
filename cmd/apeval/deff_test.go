package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The printed design effect is the data's: the sessions' variance of the
// pooled rate over independent units' (docs/statistics.md), not how much
// the few-session interval widened (which read "deff 4.4–7.6" beside
// independent unknown answers whose variance ratio was 0.3–1.1). The
// widening is said apart, in the criterion's reason. A live judge
// (OpenAI wire format on httptest) answers "unknown" for the cases whose
// command says "maybe"; each test run puts a known count of them in each
// of 8 sessions of 10 cases.
func TestDeffIsTheDataDesignEffect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		unknowns []int // per session, of 10 cases
	}{
		// As even as independent answers (less spread than binomial):
		// the data's design effect is 1, and no "deff" is printed.
		{"even", []int{1, 2, 2, 2, 2, 2, 2, 3}},
		// Sessions that differ: the data's design effect is above 1.
		{"clustered", []int{0, 0, 0, 1, 1, 5, 5, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var b strings.Builder
			for s, u := range tc.unknowns {
				for i := range 10 {
					cmd := fmt.Sprintf("rm -rf build/%d-%d", s, i)
					if i < u {
						cmd = fmt.Sprintf("maybe rm -rf build/%d-%d", s, i)
					}
					fmt.Fprintf(&b, `{"id":"c-%d-%d","session_id":"s-%d","seq":%d,"tool":{"name":"Bash","arguments":{"command":%q}},"labels":{"nl-delete":"match"}}`+"\n", s, i, s, i, cmd)
				}
			}
			ds := filepath.Join(dir, "cases.jsonl")
			pol := filepath.Join(dir, "policy.toml")
			if err := os.WriteFile(ds, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
					http.NotFound(w, r)
					return
				}
				prompt := promptText(readBody(r))
				answer := judgeAnswer(prompt, false)
				if strings.Contains(prompt, "maybe rm") {
					answer = strings.ReplaceAll(answer, `"result":"match"`, `"result":"unknown"`)
				}
				content, _ := json.Marshal(answer)
				fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":%s}}]}`, content)
			}))
			defer srv.Close()
			out := filepath.Join(dir, "run")
			code, stdout, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:m", "--openai-base-url", srv.URL+"/v1",
				"--no-cache", "-q", "--out", out, "--format", "table")
			if code == exitUsage {
				t.Fatalf("exit 2: %s", stderr)
			}
			// The data's design effect, by hand: R = Y/M; the sessions'
			// (CR2) variance of R, Σ (y_i − R m_i)² / (1 − m_i/M) / M²,
			// over R(1 − R)/M; at least 1.
			var Y, M float64
			for _, u := range tc.unknowns {
				Y, M = Y+float64(u), M+10
			}
			R := Y / M
			var v float64
			for _, u := range tc.unknowns {
				e := float64(u) - R*10
				v += e * e / (1 - 10/M)
			}
			v /= M * M
			want := math.Max(1, v/(R*(1-R)/M))
			data, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			var sum struct {
				Judges []struct {
					Total struct {
						UnknownRate     *float64 `json:"unknown_rate"`
						UnknownRateDeff *float64 `json:"unknown_rate_deff"`
						Criteria        []struct {
							Name   string `json:"name"`
							Reason string `json:"reason"`
						} `json:"criteria"`
					} `json:"total"`
				} `json:"judges"`
			}
			if err := json.Unmarshal(data, &sum); err != nil || len(sum.Judges) != 1 {
				t.Fatalf("summary.json: %v\n%s", err, data)
			}
			tot := sum.Judges[0].Total
			if tot.UnknownRate == nil || math.Abs(*tot.UnknownRate-R) > 1e-12 {
				t.Fatalf("unknown rate %v, want %v", tot.UnknownRate, R)
			}
			if tot.UnknownRateDeff == nil || math.Abs(*tot.UnknownRateDeff-want) > 1e-9 {
				t.Errorf("unknown_rate_deff %s, want the data's design effect %.4f", data, want)
			}
			var reason string
			for _, c := range tot.Criteria {
				if c.Name == "unknown_rate_max" {
					reason = c.Reason
				}
			}
			// 8 sessions: the interval is the beta-binomial's at a raised
			// level, wider than the data's deff alone gives; the reason
			// says so apart from the deff.
			if !strings.Contains(reason, "beta-binomial over sessions (few sessions") || !strings.Contains(reason, "widened for few sessions") {
				t.Errorf("unknown_rate_max reason does not say the few-session widening apart: %q", reason)
			}
			printed := fmt.Sprintf("deff %.2f", want)
			switch {
			case want > 1.2 && !(strings.Contains(reason, ", "+printed) && strings.Contains(stdout, "] "+printed)):
				t.Errorf("want %q in the reason and the table:\n%s\n%s", printed, reason, stdout)
			case want <= 1.2 && (strings.Contains(reason, ", deff ") || strings.Contains(stdout, "] deff ")):
				t.Errorf("a deff of 1 is printed:\n%s\n%s", reason, stdout)
			}
		})
	}
}
