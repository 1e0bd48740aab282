package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session whose seq goes backwards is refused by datasets validate as by
// run (one shared check), and a run that fails on its input leaves no run
// directory behind.
func TestValidateAndRunShareSeqCheck(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"policy.toml": twoRulePolicy,
		"back.jsonl": `{"id":"a","session_id":"s","seq":4,"tool":{"name":"Bash","arguments":{"command":"ls"}}}
{"id":"b","session_id":"s","seq":1,"tool":{"name":"Bash","arguments":{"command":"ls"}}}
`,
	})
	ds, pol := filepath.Join(dir, "back.jsonl"), filepath.Join(dir, "policy.toml")
	const want = `back.jsonl:2: session "s": seq 1 comes after seq 4`
	code, stdout, _ := apeval(t, "", "datasets", "validate", ds)
	if code != exitUsage || !strings.Contains(stdout, want) {
		t.Errorf("validate: exit %d, stdout %q; want exit 2 and %q", code, stdout, want)
	}
	out := filepath.Join(dir, "nested", "run")
	code, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "none", "--out", out, "-q")
	if code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("run: exit %d, stderr %q; want exit 2 and %q", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "nested")); !os.IsNotExist(err) {
		t.Errorf("a run that failed on its input left its directory: %v", err)
	}
}

// Zero-based sessions and a session split across two files replay.
func TestSeqZeroAndSplitSession(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"policy.toml": twoRulePolicy,
		"zero.jsonl": `{"id":"a","session_id":"s","seq":0,"tool":{"name":"Bash","arguments":{"command":"ls"}}}
{"id":"b","session_id":"s","seq":1,"tool":{"name":"Bash","arguments":{"command":"ls"}}}
{"id":"c","session_id":"t","tool":{"name":"Bash","arguments":{"command":"ls"}}}
`,
		"more.jsonl": `{"id":"d","session_id":"t","tool":{"name":"Bash","arguments":{"command":"ls"}}}
`,
	})
	out := filepath.Join(dir, "run")
	code, _, stderr := apeval(t, "", "run", "--dataset", filepath.Join(dir, "zero.jsonl"), "--dataset", filepath.Join(dir, "more.jsonl"),
		"--policy", filepath.Join(dir, "policy.toml"), "--judge", "none", "--out", out, "-q")
	if code == exitUsage {
		t.Fatalf("exit 2: %s", stderr)
	}
	seqs := map[string]int64{}
	for _, r := range readResults(t, out) {
		seqs[r.CaseID] = r.Seq
	}
	// a, b keep 0 and 1; c and d are records 3 and 4 of the whole input.
	if seqs["a"] != 0 || seqs["b"] != 1 || seqs["c"] != 3 || seqs["d"] != 4 {
		t.Errorf("seqs %v, want a=0 b=1 c=3 d=4", seqs)
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

// --judge recorded:NAME naming no recording, and an empty dataset, are
// usage errors (exit 2) that leave no run directory.
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
		{[]string{"--dataset", filepath.Join(dir, "empty.jsonl"), "--judge", "none"}, "the dataset has no cases"},
		{[]string{"--dataset", filepath.Join(dir, "empty.jsonl")}, "the dataset has no cases"},
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

// Credentials in --openai-base-url (user-info and query values) and in a
// --judge-option reach neither run.json, summary.json, the reports, the
// cache file nor the error column; requests still carry them.
func TestBaseURLSecretsStayOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 4)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	var sawKey bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawKey = sawKey || r.URL.Query().Get("key") == "QSECRET123"
		if strings.HasSuffix(r.URL.Path, "/models") {
			http.NotFound(w, r)
			return
		}
		hj, _ := w.(http.Hijacker)
		conn, _, _ := hj.Hijack()
		conn.Close() // every call fails in transport: its error quotes the URL
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://alice:PWSECRET456@", 1) + "/v1?key=QSECRET123"
	out, cache := filepath.Join(dir, "run"), filepath.Join(dir, "cache")
	_, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:m", "--openai-base-url", base,
		"--judge-option", "api_key=sk-proj-OPTSECRETq8LrT2wVb9NcX", "--cache", cache, "-q", "--out", out, "--format", "tsv")
	if !sawKey {
		t.Fatalf("the request did not carry the URL's query\n%s", stderr)
	}
	secrets := []string{"PWSECRET456", "QSECRET123", "OPTSECRET"}
	for _, s := range secrets {
		if strings.Contains(stderr, s) {
			t.Errorf("stderr carries %s", s)
		}
	}
	for _, d := range []string{out, cache} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(d, e.Name()))
			for _, s := range secrets {
				if strings.Contains(string(data), s) {
					t.Errorf("%s carries %s", e.Name(), s)
				}
			}
		}
	}
	// A judge that answers: its answers are cached, and the cache file
	// must not carry the option or the URL's credentials either.
	oa := newOpenAIServer(t, 0, false)
	good := strings.Replace(oa.URL, "http://", "http://alice:PWSECRET456@", 1) + "/v1?key=QSECRET123"
	if code, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:judge-large", "--openai-base-url", good,
		"--judge-option", "api_key=sk-proj-OPTSECRETq8LrT2wVb9NcX", "--cache", cache, "-q", "--out", filepath.Join(dir, "run2"), "--format", "tsv"); code == exitUsage {
		t.Fatalf("answering judge: %s", stderr)
	}
	for _, d := range []string{cache, filepath.Join(dir, "run2")} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(d, e.Name()))
			for _, s := range secrets {
				if strings.Contains(string(data), s) {
					t.Errorf("%s carries %s", e.Name(), s)
				}
			}
		}
	}
	errs := 0
	for _, r := range readResults(t, out) {
		for _, c := range r.Calls {
			errs++
			for _, s := range secrets {
				if strings.Contains(c.Error, s) {
					t.Errorf("error column carries %s: %s", s, c.Error)
				}
			}
		}
	}
	if errs == 0 {
		t.Error("no failed call to look at")
	}
}
