package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/reports/rundir"
)

// --max-calls 10 at --concurrency 8 against a counting server: at most 10
// requests arrive, the run exits 2 naming the budget, its reports say
// partial, and reruns on the same cache continue where it stopped until
// every case is done — no request is ever made twice.
func TestMaxCallsFailsClosedAndRerunContinues(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 40)
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte(livePolicy), 0o644)
	srv := newOpenAIServer(t, 20*time.Millisecond, false)
	cache := filepath.Join(dir, "cache")
	args := func(out string) []string {
		return []string{"run", "--dataset", ds, "--policy", pol, "--judge", "openai:judge-large",
			"--openai-base-url", srv.URL + "/v1", "--cache", cache, "--concurrency", "8", "--max-calls", "10",
			"--out", filepath.Join(dir, out), "-q"}
	}
	code, _, stderr := apeval(t, "", args("r1")...)
	if n := srv.calls.Load(); n > 10 || n < 8 {
		t.Fatalf("%d requests arrived, want at most 10 (and the budget used)", n)
	}
	if code != exitUsage || !strings.Contains(stderr, "stopped: budget --max-calls 10 reached;") || strings.Contains(stderr, "budget budget") || !strings.Contains(stderr, "partial") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	info, err := rundir.ReadRunInfo(filepath.Join(dir, "r1"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Partial != "budget --max-calls 10 reached" || info.Budget == nil || info.Budget.Calls > 10 {
		t.Fatalf("run.json partial %q budget %+v", info.Partial, info.Budget)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "r1", "summary.md"))
	if !strings.Contains(string(md), "partial") || !strings.Contains(string(md), "--max-calls 10") {
		t.Fatalf("summary.md does not say partial:\n%s", md)
	}
	first := len(readResults(t, filepath.Join(dir, "r1")))
	if first == 0 || first >= 40 {
		t.Fatalf("first run kept %d cases", first)
	}
	// Every kept case was answered: no case carries a call that was not sent.
	for _, r := range readResults(t, filepath.Join(dir, "r1")) {
		for _, c := range r.Calls {
			if c.Status != "ok" {
				t.Fatalf("kept case %s has a %s call: %s", r.CaseID, c.Status, c.Error)
			}
		}
	}

	// Reruns: each sends at most 10 more, none repeats an answered call.
	prev, runs := first, 1
	for code == exitUsage && runs < 8 {
		runs++
		before := srv.calls.Load()
		out := "r" + string(rune('0'+runs))
		code, _, stderr = apeval(t, "", args(out)...)
		if d := srv.calls.Load() - before; d > 10 {
			t.Fatalf("rerun %d sent %d requests", runs, d)
		}
		n := len(readResults(t, filepath.Join(dir, out)))
		if n <= prev && code == exitUsage {
			t.Fatalf("rerun %d kept %d cases, the run before %d: it did not continue (%s)", runs, n, prev, stderr)
		}
		t.Logf("run %d: exit %d, %d cases, %d requests so far", runs, code, n, srv.calls.Load())
		prev = n
	}
	if code == exitUsage || prev != 40 {
		t.Fatalf("after %d runs: exit %d, %d cases; %s", runs, code, prev, stderr)
	}
	if srv.calls.Load() != 40 {
		t.Fatalf("%d requests for 40 calls: some were sent twice", srv.calls.Load())
	}
}

// --budget-usd needs prices, and a server without usage is flagged.
func TestBudgetUSDNeedsPricesAndFlagsNoUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 10)
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte(livePolicy), 0o644)
	ol := newOllamaServer(t, 0) // reports eval counts
	base := []string{"run", "--dataset", ds, "--policy", pol, "--judge", "ollama:tiny-judge", "--ollama-host", ol.URL,
		"--no-cache", "-q", "--budget-usd", "1"}
	code, _, stderr := apeval(t, "", append(base, "--out", filepath.Join(dir, "a"))...)
	if code != exitUsage || !strings.Contains(stderr, "--budget-usd: judge ollama:tiny-judge has no prices") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, _, stderr = apeval(t, "", append(base, "--out", filepath.Join(dir, "b"), "--judge-option", "price_in=1", "--judge-option", "price_out=10")...)
	if code == exitUsage {
		t.Fatalf("priced run: exit 2: %s", stderr)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "b", "run.json"))
	var info struct {
		Budget struct {
			Calls int64   `json:"calls_sent"`
			USD   float64 `json:"usd_spent"`
		} `json:"budget"`
	}
	json.Unmarshal(raw, &info)
	// 10 calls of 120 prompt and 30 completion tokens at $1 / $10 per million.
	if info.Budget.Calls != 10 || abs(info.Budget.USD-10*(120*1+30*10)/1e6) > 1e-12 {
		t.Fatalf("budget %+v", info.Budget)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// A judge that reports no token counts under --budget-usd is flagged in
// run.json, on stderr and in summary.md, and its calls are not free.
func TestBudgetUSDFlagsJudgesWithoutUsage(t *testing.T) {
	dir := t.TempDir()
	ds := liveDataset(t, dir, 6)
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte(livePolicy), 0o644)
	noUsage := newNoUsageServer(t)
	out := filepath.Join(dir, "r")
	code, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:judge-large@"+noUsage.URL+"/v1",
		"--no-cache", "-q", "--budget-usd", "5", "--judge-option", "price_in=1", "--out", out)
	if code == exitUsage {
		t.Fatalf("exit 2: %s", stderr)
	}
	if !strings.Contains(stderr, "6 call(s) reported no token counts") {
		t.Errorf("stderr: %s", stderr)
	}
	info, _ := rundir.ReadRunInfo(out)
	if info.Budget == nil || info.Budget.Unmetered != 6 || info.Budget.USD <= 0 {
		t.Fatalf("budget %+v", info.Budget)
	}
	md, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if !strings.Contains(string(md), "reported no token counts") {
		t.Errorf("summary.md does not flag it")
	}
}

// A run a budget stopped says so on its progress line: the cases judged
// out of the dataset's and those the budget skipped (their calls were not
// sent), not "20/20 cases (100%)". The counts agree with the cases the
// run directory keeps and the "stopped:" line, in cases (not results)
// with two judges too: that line used to subtract results from cases
// ("the -15 finished cases" with two judges). A live judge (OpenAI wire format on
// httptest) answers every call.
func TestProgressLineSaysWhatABudgetStopped(t *testing.T) {
	t.Parallel()
	progressCases := regexp.MustCompile(`apeval: (\d+)/20 cases \((\d+)%\), (\d+) skipped by the budget \(calls not sent\), `)
	stopped := regexp.MustCompile(`the (\d+) finished cases are in .*\((\d+) left out: their calls were not sent\)`)
	for _, judges := range [][]string{{"openai:m"}, {"openai:m", "openai:n"}} {
		t.Run(strings.Join(judges, "+"), func(t *testing.T) {
			t.Parallel()
			dir, ds, pol := liveRun(t, 20)
			srv := chatJudge(t, answerNo)
			out := filepath.Join(dir, "run")
			args := []string{"run", "--dataset", ds, "--policy", pol, "--openai-base-url", srv.URL + "/v1",
				"--no-cache", "--concurrency", "1", "--max-calls", "5", "--out", out}
			for _, j := range judges {
				args = append(args, "--judge", j)
			}
			code, _, stderr := apeval(t, "", args...)
			if code != exitUsage || !strings.Contains(stderr, "--max-calls 5 reached") {
				t.Fatalf("exit %d, want 2 (budget):\n%s", code, stderr)
			}
			line := lastProgress(t, stderr)
			m := progressCases.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("the last progress line does not say what the budget skipped: %q", line)
			}
			judged, pct, skipped := atoiT(t, m[1]), atoiT(t, m[2]), atoiT(t, m[3])
			s := stopped.FindStringSubmatch(stderr)
			if s == nil {
				t.Fatalf("no stopped line:\n%s", stderr)
			}
			finished, left := atoiT(t, s[1]), atoiT(t, s[2])
			if judged+skipped != 20 || judged != finished || skipped != left || judged >= 20 || pct != judged*100/20 {
				t.Errorf("progress %q (judged %d, skipped %d) against stopped: %d finished, %d left out", line, judged, skipped, finished, left)
			}
			// The run directory keeps the judged cases for every judge.
			kept := map[string]int{}
			for _, r := range readResults(t, out) {
				kept[r.CaseID]++
			}
			full := 0
			for _, n := range kept {
				if n == len(judges) {
					full++
				}
			}
			if full != finished {
				t.Errorf("%d cases kept for every judge, the line says %d finished", full, finished)
			}
		})
	}
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
