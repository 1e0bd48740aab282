package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// limitedChild is the child half of apevalLimited: under
// APEVAL_CHILD_FSIZE it lowers RLIMIT_FSIZE (each file at most that many
// bytes, as a nearly full disk) and runs apeval with the arguments in
// APEVAL_CHILD_ARGS, exiting with its code.
func TestLimitedChild(t *testing.T) {
	t.Parallel()
	lim := os.Getenv("APEVAL_CHILD_FSIZE")
	if lim == "" {
		t.Skip("the child half of apevalLimited")
	}
	n, err := strconv.ParseUint(lim, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		t.Fatal(err)
	}
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv("APEVAL_CHILD_ARGS")), &args); err != nil {
		t.Fatal(err)
	}
	os.Exit(Main(args, strings.NewReader(""), os.Stdout, os.Stderr))
}

// A run that fails while writing its reports leaves the earlier run as it
// was, and says how to go on.
func TestFailedReportsKeepEarlierRun(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	if code, _, stderr := apeval(t, "", "run", "--out", out, "-q", "--no-cache", "--run-id", "first"); code == exitUsage {
		t.Fatalf("first run: %s", stderr)
	}
	before := map[string][]byte{}
	var limit, largest int64
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(out, e.Name()))
		before[e.Name()] = data
		switch e.Name() {
		case "decisions.parquet", "gates.parquet", "run.json":
			limit = max(limit, int64(len(data))+4096)
		}
		largest = max(largest, int64(len(data)))
	}
	if largest <= limit {
		t.Fatalf("no report larger than the run's own files (%d ≤ %d)", largest, limit)
	}
	code, stderr := apevalLimited(t, limit, "run", "--out", out, "-q", "--no-cache", "--run-id", "second")
	if code == 0 || code == 1 {
		t.Fatalf("the limited run did not fail: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "earlier run") || !strings.Contains(stderr, "as it was") {
		t.Errorf("message does not say what happened:\n%s", stderr)
	}
	after, _ := os.ReadDir(out)
	got := map[string]bool{}
	for _, e := range after {
		got[e.Name()] = true
		data, _ := os.ReadFile(filepath.Join(out, e.Name()))
		if b, ok := before[e.Name()]; !ok || !bytes.Equal(b, data) {
			t.Errorf("%s changed or appeared", e.Name())
		}
	}
	for name := range before {
		if !got[name] {
			t.Errorf("%s of the earlier run is gone", name)
		}
	}
	// A fresh directory: the run's decisions stay, and the message names
	// the command that writes the reports.
	fresh := filepath.Join(dir, "fresh")
	code, stderr = apevalLimited(t, limit, "run", "--out", fresh, "-q", "--no-cache")
	if code == 0 || code == 1 || !strings.Contains(stderr, "apeval report "+fresh) {
		t.Fatalf("fresh directory: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := apeval(t, "", "report", fresh); code == exitUsage {
		t.Fatalf("report: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(fresh, "summary.md")); err != nil {
		t.Fatal(err)
	}
}

// A new cache on a full disk: the run says the disk is full, names
// --no-cache once, and moves nothing aside as "damaged".
func TestCacheOnFullDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 2)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	oa := newOpenAIServer(t, 0, false)
	cache := filepath.Join(dir, "cache")
	code, stderr := apevalLimited(t, 4096, "run", "--dataset", ds, "--policy", pol, "--judge", "openai:judge-large",
		"--openai-base-url", oa.URL+"/v1", "--cache", cache, "-q", "--out", filepath.Join(dir, "run"))
	if code != exitUsage || !strings.Contains(stderr, "the disk is full") || strings.Contains(stderr, "damaged") ||
		strings.Count(stderr, "--no-cache") != 1 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "*damaged*")); len(left) > 0 {
		t.Fatalf("moved aside: %v", left)
	}
}

// A second run into one directory replaces the first one's files (a chart
// the new run does not draw goes), removes a killed run's temporary files,
// and keeps files apeval does not own; a non-empty directory that is not a
// run directory is refused.
func TestRunDirReuse(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	if code, _, stderr := apeval(t, "", "run", "--out", out, "-q", "--no-cache"); code == exitUsage {
		t.Fatalf("first run: %s", stderr)
	}
	for name, body := range map[string]string{"old_chart.svg": "<svg/>", "decisions.parquet.123.tmp": "", "notes.txt": "mine"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := apeval(t, "", "run", "--out", out, "-q", "--no-cache"); code == exitUsage {
		t.Fatalf("second run: %s", stderr)
	}
	for name, want := range map[string]bool{"old_chart.svg": false, "decisions.parquet.123.tmp": false, "notes.txt": true,
		"summary.json": true, ".apeval.lock": false} {
		if _, err := os.Stat(filepath.Join(out, name)); (err == nil) != want {
			t.Errorf("%s: present=%v, want %v", name, err == nil, want)
		}
	}

	foreign := filepath.Join(dir, "mine")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "thesis.tex"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := apeval(t, "", "run", "--out", foreign, "-q", "--no-cache")
	if code != exitUsage || !strings.Contains(stderr, "not an apeval run directory") {
		t.Errorf("foreign dir: exit %d, stderr %q", code, stderr)
	}
	if entries, _ := os.ReadDir(foreign); len(entries) != 1 {
		t.Errorf("foreign dir changed: %v", entries)
	}
}

// Absurd values of the flags that size the run are usage errors (exit 2),
// not gigabytes of workers.
func TestAbsurdFlagValues(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "--concurrency", "100000"},
		{"run", "--concurrency", "10000000"},
		{"run", "--retries", "1000"},
		{"run", "--max-response-bytes", "1"},
		{"run", "--max-response-bytes", "100000000000"},
	} {
		code, _, stderr := apeval(t, "", append(args, "--out", filepath.Join(t.TempDir(), "x"), "-q")...)
		if code != exitUsage || !strings.Contains(stderr, args[1]+" must be between") {
			t.Errorf("apeval %v: exit %d, %s", args, code, stderr)
		}
	}
}

// When every judge call fails, the terminal, summary.md, summary.json and
// report.html say why, with the top error messages and their counts, and
// warn that the verdict reflects a broken setup.
func TestLoudFailures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 6)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502</h1>"+strings.Repeat("<p>x</p>", 300)+"</body></html>")
	}))
	defer srv.Close()
	out := filepath.Join(dir, "run")
	_, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:m", "--openai-base-url", srv.URL+"/v1",
		"--no-cache", "-q", "--out", out, "--format", "tsv")
	const msg = `6 × HTTP 502: the server answered with an HTML page ("502 Bad Gateway")`
	if !strings.Contains(stderr, "6 of 6 judge calls failed") || !strings.Contains(stderr, msg) || !strings.Contains(stderr, "broken judge setup") {
		t.Errorf("stderr does not say why:\n%s", stderr)
	}
	if strings.Contains(stderr, "<p>") {
		t.Errorf("stderr prints the HTML page:\n%s", stderr)
	}
	for _, f := range []string{"summary.md", "summary.json", "report.html"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.NewReplacer("&#34;", `"`, `\"`, `"`, "&quot;", `"`).Replace(string(data))
		if f != "summary.json" && !strings.Contains(text, "6 of 6 judge calls failed") || !strings.Contains(text, "502 Bad Gateway") {
			t.Errorf("%s does not carry the failure summary", f)
		}
	}
	var s struct {
		JudgeFailures []struct {
			Judge         string
			Calls, Failed int64
			Broken        bool
			TopErrors     []struct{ Count int64 } `json:"top_errors"`
		} `json:"judge_failures"`
	}
	data, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.JudgeFailures) != 1 || !s.JudgeFailures[0].Broken || s.JudgeFailures[0].Failed != 6 || s.JudgeFailures[0].TopErrors[0].Count != 6 {
		t.Errorf("judge_failures %+v", s.JudgeFailures)
	}
}

// --judge recorded:NAME naming no recording, an empty dataset (named),
// and a --tag no case carries (it replayed nothing and said INCONCLUSIVE)
// are usage errors (exit 2) that leave no run directory.
func TestRecordedNameAndEmptyDataset(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"policy.toml": twoRulePolicy,
		"empty.jsonl": "\n\n",
		"rec.jsonl":   `{"id":"a","tool":{"name":"Bash","arguments":{"command":"ls"}},"recorded":[{"judge":"ollama/qwen","latency_ms":3,"decisions":[]}]}` + "\n",
	})
	pol := filepath.Join(dir, "policy.toml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset", filepath.Join(dir, "rec.jsonl"), "--judge", "recorded:ollama/qwne"}, "the recorded judges are: ollama/qwen"},
		{[]string{"--dataset", filepath.Join(dir, "empty.jsonl"), "--judge", "none"}, filepath.Join(dir, "empty.jsonl") + ": the dataset has no cases"},
		{[]string{"--dataset", filepath.Join(dir, "empty.jsonl")}, filepath.Join(dir, "empty.jsonl") + ": the dataset has no cases"},
		{[]string{"--dataset", filepath.Join(dir, "rec.jsonl"), "--tag", "prod"}, "tag filter prod: no case of the dataset carries it, so nothing would be replayed (the dataset's tags: none)"},
	} {
		out := filepath.Join(dir, "out")
		code, _, stderr := apeval(t, "", append([]string{"run", "--policy", pol, "--out", out, "-q"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: left %s behind", tc.args, out)
		}
	}
}

// A dataset without recordings (imported logs) and no --judge is judged
// by none, the judge-down path: stderr says so, even with -q (the NO-GO
// that follows came with no word of why); an explicit --judge none says
// nothing more.
func TestNoJudgeGivenSaysNone(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"policy.toml": twoRulePolicy,
		"cases.jsonl": `{"id":"a","session_id":"s1","seq":1,"tool":{"name":"Bash","arguments":{"command":"rm -rf build"}}}` + "\n",
	})
	args := func(out string, extra ...string) []string {
		return append([]string{"run", "--dataset", filepath.Join(dir, "cases.jsonl"), "--policy", filepath.Join(dir, "policy.toml"),
			"--out", filepath.Join(dir, out), "-q", "--format", "tsv"}, extra...)
	}
	const note = "no --judge given and the dataset holds no recorded judge: judging with none"
	code, stdout, stderr := apeval(t, "", args("default")...)
	if code == exitUsage || !strings.Contains(stderr, note) || !strings.Contains(stdout, "\nnone\t") {
		t.Errorf("no --judge: exit %d, stderr %q, stdout %q; want judge none and the note", code, stderr, stdout)
	}
	code, _, stderr = apeval(t, "", args("explicit", "--judge", "none")...)
	if code == exitUsage || strings.Contains(stderr, note) {
		t.Errorf("--judge none: exit %d, stderr %q; want no note", code, stderr)
	}
}

// A response cache with bytes overwritten inside: the next run warns,
// naming --no-cache, moves the file aside and completes; no temporary file
// is left in the run directory.
func TestDamagedCacheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 30)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	oa := newOpenAIServer(t, 0, false)
	cache := filepath.Join(dir, "cache")
	args := func(out string) []string {
		return []string{"run", "--dataset", ds, "--policy", pol, "--judge", "openai:judge-large", "--openai-base-url", oa.URL + "/v1",
			"--cache", cache, "-q", "--out", filepath.Join(dir, out), "--format", "tsv"}
	}
	if code, _, stderr := apeval(t, "", args("a")...); code == exitUsage {
		t.Fatalf("first run: %s", stderr)
	}
	path := filepath.Join(cache, "judge-cache.db")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 2 * 4096; i < len(data); i++ {
		data[i] = byte(i*31 + 7)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := apeval(t, "", args("b")...)
	if code == exitUsage || strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine") {
		t.Fatalf("damaged cache: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "damaged") || !strings.Contains(stderr, "--no-cache") {
		t.Errorf("no clear message about the cache:\n%s", stderr)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, "b", "*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	if _, err := os.Stat(filepath.Join(dir, "b", "summary.json")); err != nil {
		t.Errorf("the run did not finish: %v", err)
	}
}

// apevalLimited runs apeval in a child process whose files may hold at
// most fsize bytes each (RLIMIT_FSIZE; writes past it fail with EFBIG).
func apevalLimited(t *testing.T, fsize int64, args ...string) (int, string) {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestLimitedChild$")
	cmd.Env = append(os.Environ(), "APEVAL_CHILD_FSIZE="+strconv.FormatInt(fsize, 10), "APEVAL_CHILD_ARGS="+string(a))
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}
