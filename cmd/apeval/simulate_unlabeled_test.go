package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/judge/judgetest"
)

// simulate --operating-points / --write-patch on a run without labels (an
// import of real sessions): a threshold is chosen from labeled pairs, so
// there is none to choose. The points table was left out without a word
// and --write-patch wrote an empty patch, exit 0; now stderr says why, and
// --write-patch is exit 2 with no file.
func TestSimulateOperatingPointsWithoutLabels(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	for i := range 12 {
		cmd := "ls"
		if i%3 == 0 {
			cmd = "rm -rf build"
		}
		fmt.Fprintf(&b, `{"id":"c%d","session_id":"s%d","seq":%d,"tool":{"name":"Bash","category":"command_execution","arguments":{"command":%q}}}`+"\n", i, i/3, i%3+1, cmd)
	}
	ds := filepath.Join(dir, "cases.jsonl")
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(ds, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pol, []byte(twoRulePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := judgetest.NewOpenAI(judgetest.Options{Model: "m"}) // keyword answers with confidences
	t.Cleanup(srv.Close)
	run := filepath.Join(dir, "run")
	if code, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:m", "--openai-base-url", srv.URL+"/v1",
		"--no-cache", "--out", run, "--format", "tsv"); code == exitUsage {
		t.Fatalf("run: exit 2\n%s", stderr)
	}
	code, _, stderr := apeval(t, "", "simulate", run, "--operating-points", "--format", "tsv")
	if code != 0 || !strings.Contains(stderr, "--operating-points: no judged rule of the run has a labeled pair") {
		t.Errorf("--operating-points: exit %d, stderr %q; want exit 0 saying there are no labeled pairs", code, stderr)
	}
	patch := filepath.Join(dir, "patch.toml")
	code, _, stderr = apeval(t, "", "simulate", run, "--write-patch", patch, "--format", "tsv")
	if code != exitUsage || !strings.Contains(stderr, "--write-patch: no judged rule of the run has a labeled pair") || !strings.Contains(stderr, "no patch written") {
		t.Errorf("--write-patch: exit %d, stderr %q; want exit 2, no patch written", code, stderr)
	}
	if _, err := os.Stat(patch); !os.IsNotExist(err) {
		t.Errorf("a patch was written (%v)", err)
	}
}
