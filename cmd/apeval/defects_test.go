package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/judge/judgetest"
)

// The judges' start-up warnings reach stderr with one "apeval: " prefix:
// the command layer adds it to every line a judge logs, so the judge's own
// text must not carry one too (it once read "apeval: apeval: warning: …").
func TestJudgeWarningsPrefixedOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 2)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := judgetest.NewOpenAI(judgetest.Options{Model: "served-model"})
	defer srv.Close()
	_, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:other-model",
		"--openai-base-url", srv.URL+"/v1", "--no-cache", "--out", filepath.Join(dir, "run"), "--format", "tsv")
	if !strings.Contains(stderr, "apeval: warning: "+srv.URL+"/v1 does not list model \"other-model\"") {
		t.Errorf("no start-up warning:\n%s", stderr)
	}
	if strings.Contains(stderr, "apeval: apeval:") {
		t.Errorf("doubled prefix:\n%s", stderr)
	}
}

// A secret typed into --judge exec:… (a flag's value, an environment
// assignment) reaches neither run.json, the reports, the decision files
// nor the terminal: the judge's identity shows the command masked. A
// second run of the same command pairs with the first, and --baseline
// accepts the command as typed.
func TestExecJudgeSecretsMasked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 2)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	const key, token = "abcd1234efgh5678ijkl", "sk-proj-EXAMPLEa1b2c3d4e5f6g7h8i9j0"
	script := filepath.Join(dir, "plugin.sh")
	if err := os.WriteFile(script, []byte("while read l; do echo '{\"version\":1,\"decisions\":[]}'; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := "exec:API_KEY=" + key + " sh " + script + " --token " + token
	leaks := func(what, s string) {
		t.Helper()
		if strings.Contains(s, key) || strings.Contains(s, token) {
			t.Errorf("%s carries the secret:\n%s", what, s)
		}
	}
	var runs []string
	for _, name := range []string{"a", "b"} {
		out := filepath.Join(dir, name)
		runs = append(runs, out)
		code, stdout, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", spec, "--no-cache",
			"--out", out, "--format", "table")
		if code == exitUsage {
			t.Fatalf("run: exit %d\n%s", code, stderr)
		}
		leaks("stdout", stdout)
		leaks("stderr", stderr)
		for _, f := range []string{"run.json", "summary.json", "summary.md", "report.html"} {
			data, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			leaks(f, string(data))
		}
		for _, r := range readResults(t, out) {
			leaks("decisions.parquet judge", r.Judge)
			if !strings.Contains(r.Judge, "API_KEY=[MASKED]") {
				t.Errorf("judge %q", r.Judge)
			}
		}
	}
	code, stdout, stderr := apeval(t, "", "compare", runs[0], runs[1], "--format", "tsv")
	if code == exitUsage {
		t.Errorf("compare of two runs of one exec judge: exit %d\n%s%s", code, stdout, stderr)
	}
	leaks("compare", stdout+stderr)
	code, _, stderr = apeval(t, "", "compare", runs[0], runs[1], "--baseline", spec, "--format", "tsv")
	if code == exitUsage {
		t.Errorf("compare --baseline with the command as typed: exit %d\n%s", code, stderr)
	}
	leaks("compare --baseline", stderr)
}
