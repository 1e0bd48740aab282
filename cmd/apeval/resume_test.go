package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apeval/apeval/reports/rundir"
)

// A server that fails every fifth chat request with HTTP 500 until told to
// heal; it counts every request.
func newFlakyServer(t *testing.T) (*httptest.Server, *atomic.Int64, *atomic.Bool) {
	var calls atomic.Int64
	var healed atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"judge-large","object":"model"}]}`)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body := readBody(r)
		n := calls.Add(1)
		if !healed.Load() && n%5 == 0 {
			http.Error(w, "overloaded", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		content := fmt.Sprintf("%q", judgeAnswer(promptText(body), false))
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":"judge-large","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5}}`, content)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s, &calls, &healed
}

// run --resume DIR re-sends only the calls that failed in DIR, with DIR's
// settings and judges, into a new run directory that says what it re-sent.
func TestResumeResendsOnlyFailedCalls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// One case per session: a failed call changes no later call's input
	// (the fire counts of its session), so exactly the failed calls differ.
	var b strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, `{"id":"c-%02d","session_id":"s-%02d","tool":{"name":"Bash","arguments":{"command":"rm -rf build/%d"}},"labels":{"nl-delete":"match"}}`+"\n", i, i, i)
	}
	ds := filepath.Join(dir, "cases.jsonl")
	os.WriteFile(ds, []byte(b.String()), 0o644)
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte(livePolicy), 0o644)
	srv, calls, healed := newFlakyServer(t)
	cache := filepath.Join(dir, "cache")
	first := filepath.Join(dir, "first")
	apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:judge-large", "--openai-base-url", srv.URL+"/v1",
		"--cache", cache, "--concurrency", "1", "--out", first, "-q")
	if calls.Load() != 20 {
		t.Fatalf("first run: %d requests", calls.Load())
	}
	var failed int
	for _, r := range readResults(t, first) {
		for _, c := range r.Calls {
			if c.Status == "error" {
				failed++
			}
		}
	}
	if failed != 4 {
		t.Fatalf("first run has %d failed calls, want 4", failed)
	}
	healed.Store(true)

	// The server (never taken from DIR), the cache and the output are
	// given: the rest comes from DIR.
	second := filepath.Join(dir, "second")
	code, _, stderr := apeval(t, "", "run", "--resume", first, "--openai-base-url", srv.URL+"/v1", "--cache", cache, "--out", second, "-q")
	if code == exitUsage {
		t.Fatalf("resume: exit 2: %s", stderr)
	}
	if got := calls.Load() - 20; got != 4 {
		t.Fatalf("resume sent %d requests, want the 4 that failed", got)
	}
	if !strings.Contains(stderr, "re-sent 4 call(s); 4 had failed there") {
		t.Errorf("stderr: %s", stderr)
	}
	info, err := rundir.ReadRunInfo(second)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := rundir.ReadRunInfo(first)
	if info.Resumed == nil || info.Resumed.FailedCalls != 4 || info.Resumed.Resent != 4 || info.Resumed.RunID != a.RunID {
		t.Fatalf("run.json resumed = %+v", info.Resumed)
	}
	if info.RunID == a.RunID || len(info.Judges) != 1 || info.Judges[0].Identity != a.Judges[0].Identity {
		t.Fatalf("identities: %+v vs %+v", info.Judges, a.Judges)
	}
	for _, r := range readResults(t, second) {
		for _, c := range r.Calls {
			if c.Status != "ok" {
				t.Fatalf("resumed case %s still has a %s call", r.CaseID, c.Status)
			}
		}
	}
	// A resume that changes a judge's identity is refused.
	os.WriteFile(filepath.Join(dir, "p.txt"), []byte(promptVariant("px", "X")), 0o644)
	code, _, stderr = apeval(t, "", "run", "--resume", first, "--openai-base-url", srv.URL+"/v1", "--cache", cache, "--out", filepath.Join(dir, "third"), "-q",
		"--prompt", filepath.Join(dir, "p.txt"))
	if code != exitUsage || !strings.Contains(stderr, "keeps the judges' identities") {
		t.Fatalf("changed prompt: exit %d, %s", code, stderr)
	}
	code, _, stderr = apeval(t, "", "run", "--resume", first, "--no-cache", "--out", filepath.Join(dir, "fourth"), "-q")
	if code != exitUsage || !strings.Contains(stderr, "--no-cache") {
		t.Fatalf("--no-cache: exit %d, %s", code, stderr)
	}
}

// newNoUsageServer answers like the OpenAI-compatible servers that report
// no usage.
func newNoUsageServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[]}`)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body := readBody(r)
		w.Header().Set("Content-Type", "application/json")
		content := fmt.Sprintf("%q", judgeAnswer(promptText(body), false))
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":"judge-large","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, content)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}
