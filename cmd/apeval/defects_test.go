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
