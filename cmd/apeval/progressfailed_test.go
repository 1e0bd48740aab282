package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// lastProgress is the last progress line of a run's stderr (not a
// terminal: "apeval: N cases, …, K failed").
func lastProgress(t *testing.T, stderr string) string {
	t.Helper()
	var last string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, " in flight, ") {
			last = l
		}
	}
	if last == "" {
		t.Fatalf("no progress line in stderr:\n%s", stderr)
	}
	return last
}

var failedCount = regexp.MustCompile(`, (\d+) failed`)

// The progress line's "failed" counts the judges' failed calls, as the
// table's "calls (cached, failed)" does: not the calls Ctrl-C cut short
// (they are said apart, as interrupted), and not the none judge's
// answers (it calls nothing). A live judge (OpenAI wire format on
// httptest) answers the first 12 calls; on the 13th the run is
// interrupted while 4 calls are in flight.
func TestProgressFailedIsJudgeFailures(t *testing.T) {
	t.Parallel()
	t.Run("interrupted", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		ds := liveDataset(t, dir, 60)
		pol := filepath.Join(dir, "policy.toml")
		if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
				http.NotFound(w, r)
				return
			}
			body := readBody(r)
			if k := n.Add(1); k > 12 {
				if k == 16 {
					cancel() // Ctrl-C, with calls in flight
				}
				<-r.Context().Done()
				return
			}
			content, _ := json.Marshal(judgeAnswer(promptText(body), false))
			fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":%s}}]}`, content)
		}))
		defer srv.Close()
		code, _, stderr := apevalCtx(t, ctx, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:m", "--openai-base-url", srv.URL+"/v1",
			"--no-cache", "--concurrency", "4", "--timeout", "1m", "--out", filepath.Join(dir, "run"))
		if code != exitInterrupted {
			t.Fatalf("exit %d, want 130:\n%s", code, stderr)
		}
		line := lastProgress(t, stderr)
		if m := failedCount.FindStringSubmatch(line); m == nil || m[1] != "0" {
			t.Errorf("the last progress line counts cancelled calls as failed: %q", line)
		}
		if n.Load() < 14 {
			t.Fatalf("only %d requests: the interrupt did not find calls in flight", n.Load())
		}
	})
	// A budget stops the run: the calls it did not send are neither
	// calls nor failures (their cases are not reported).
	t.Run("budget", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		ds := liveDataset(t, dir, 20)
		pol := filepath.Join(dir, "policy.toml")
		if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
				http.NotFound(w, r)
				return
			}
			content, _ := json.Marshal(judgeAnswer(promptText(readBody(r)), false))
			fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":%s}}]}`, content)
		}))
		defer srv.Close()
		code, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:m", "--openai-base-url", srv.URL+"/v1",
			"--no-cache", "--concurrency", "1", "--max-calls", "5", "--out", filepath.Join(dir, "run"))
		if code != exitUsage || !strings.Contains(stderr, "--max-calls 5 reached") {
			t.Fatalf("exit %d, want 2 (budget):\n%s", code, stderr)
		}
		line := lastProgress(t, stderr)
		if m := failedCount.FindStringSubmatch(line); m == nil || m[1] != "0" || !strings.Contains(line, " 5 calls") {
			t.Errorf("the calls the budget did not send are counted: %q", line)
		}
	})
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		ds := liveDataset(t, dir, 20)
		pol := filepath.Join(dir, "policy.toml")
		if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "none", "--out", filepath.Join(dir, "run"), "--format", "table")
		if code == exitUsage {
			t.Fatalf("exit 2:\n%s", stderr)
		}
		line := lastProgress(t, stderr)
		if m := failedCount.FindStringSubmatch(line); m == nil || m[1] != "0" || !strings.Contains(line, " 0 calls") {
			t.Errorf("the none judge's answers are counted as failed calls: %q\n%s", line, stdout)
		}
		if !regexp.MustCompile(`calls \(cached, failed\) +0 \(0, 0\)`).MatchString(stdout) {
			t.Errorf("the table does not say 0 calls:\n%s", stdout)
		}
	})
}
