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
// interrupted with that call (and any others) in flight.
func TestProgressFailedIsJudgeFailures(t *testing.T) {
	t.Parallel()
	t.Run("interrupted", func(t *testing.T) {
		t.Parallel()
		dir, ds, pol := liveRun(t, 60)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var n atomic.Int64
		srv := chatJudge(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			if k := n.Add(1); k > 12 {
				if k == 13 {
					cancel() // Ctrl-C, with this call (at least) in flight
				}
				<-r.Context().Done()
				return
			}
			answerNo(w, r, body)
		})
		code, _, stderr := apevalCtx(t, ctx, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:m", "--openai-base-url", srv.URL+"/v1",
			"--no-cache", "--concurrency", "4", "--timeout", "1m", "--out", filepath.Join(dir, "run"))
		if code != exitInterrupted {
			t.Fatalf("exit %d, want 130:\n%s", code, stderr)
		}
		line := lastProgress(t, stderr)
		if m := failedCount.FindStringSubmatch(line); m == nil || m[1] != "0" {
			t.Errorf("the last progress line counts cancelled calls as failed: %q", line)
		}
		if n.Load() < 13 {
			t.Fatalf("only %d requests: the interrupt did not find a call in flight", n.Load())
		}
	})
	// A budget stops the run: the calls it did not send are neither
	// calls nor failures (their cases are not reported).
	t.Run("budget", func(t *testing.T) {
		t.Parallel()
		dir, ds, pol := liveRun(t, 20)
		srv := chatJudge(t, answerNo)
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
		dir, ds, pol := liveRun(t, 20)
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

// With --no-cache, the answers to calls of cases after the last one
// written at Ctrl-C are not kept (docs/judges.md "Resume" says why); a run
// that may be interrupted keeps them with a cache of its own, --cache DIR,
// which measures afresh as --no-cache does (a new DIR holds no answer) and
// which --resume then reads: only the calls no judge answered are sent
// again. A live judge (OpenAI wire format on httptest) holds the first
// call (the first case's) unanswered and answers the next 10, of later
// cases (of other sessions: any one of them holds 15); the run is
// interrupted on the 12th.
func TestInterruptedRunResumesFromItsOwnCache(t *testing.T) {
	t.Parallel()
	dir, ds, pol := liveRun(t, 60)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n, answered atomic.Int64
	var healed atomic.Bool
	srv := chatJudge(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if k := n.Add(1); !healed.Load() && (k == 1 || k > 11) {
			if k == 12 {
				cancel()
			}
			<-r.Context().Done()
			return
		}
		answered.Add(1)
		answerNo(w, r, body)
	})
	cacheDir, first := filepath.Join(dir, "cache-of-this-run"), filepath.Join(dir, "run")
	code, _, stderr := apevalCtx(t, ctx, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:m", "--openai-base-url", srv.URL+"/v1",
		"--cache", cacheDir, "--concurrency", "4", "--timeout", "1m", "-q", "--out", first)
	if code != exitInterrupted || !strings.Contains(stderr, "--cache "+cacheDir+" continues; the judges' answers already received, for later cases too, are in that cache and are not asked again") {
		t.Fatalf("exit %d, want 130:\n%s", code, stderr)
	}
	written, got := len(readResults(t, first)), answered.Load()
	if written >= int(got) {
		t.Fatalf("%d cases written, %d calls answered: no answer of a later case to keep", written, got)
	}
	healed.Store(true)
	before := n.Load()
	code, _, stderr = apeval(t, "", "run", "--resume", first, "--openai-base-url", srv.URL+"/v1", "--cache", cacheDir, "-q", "--out", filepath.Join(dir, "resumed"))
	if code == exitUsage || code == exitInterrupted {
		t.Fatalf("resume: exit %d:\n%s", code, stderr)
	}
	// 60 cases, one call each: the answered calls come from the run's
	// cache, whether or not their cases were written (an answer the
	// server sent as the interrupt came may not have been read: at most
	// the 4 calls in flight), so far fewer than the 60 − written calls a
	// resume after --no-cache sends.
	if sent := n.Load() - before; sent < 60-got || sent > 60-got+4 {
		t.Errorf("the resumed run sent %d calls, want %d (+ at most 4; %d answered, %d cases written)", sent, 60-got, got, written)
	}
}

// liveRun is a test's directory with a dataset of n live-judge cases and
// the live policy beside it.
func liveRun(t *testing.T, n int) (dir, ds, pol string) {
	t.Helper()
	dir = t.TempDir()
	ds = liveDataset(t, dir, n)
	pol = filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, ds, pol
}

// chatJudge is a live judge speaking the OpenAI wire format on httptest
// (closed with the test): answer writes the reply to each chat
// completion, whose request body it is given.
func chatJudge(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, body []byte)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		answer(w, r, readBody(r))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// answerNo writes an OpenAI chat completion whose content is the judge's
// no_match answer to the prompt in body.
func answerNo(w http.ResponseWriter, _ *http.Request, body []byte) {
	content, _ := json.Marshal(judgeAnswer(promptText(body), false))
	fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":%s}}]}`, content)
}
