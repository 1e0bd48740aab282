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
	dir, ds, pol := unlabeledCases(t)
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

// A user who labeled a queue and gave it to run (--labels) saw the run's
// figures rest on those labels; simulate reads only the labels the
// dataset's cases carry, so its effective recall, friction, precision and
// recall were all "–" without a word, and the --operating-points message
// sent the user to label a queue, which simulate never reads. Now simulate
// warns that the labels file is left out, and the message names a way that
// works.
func TestSimulateSaysItLeavesALabelsFileOut(t *testing.T) {
	t.Parallel()
	dir, ds, pol := unlabeledCases(t)
	srv := judgetest.NewOpenAI(judgetest.Options{Model: "m"})
	t.Cleanup(srv.Close)
	judgeArgs := []string{"--dataset", ds, "--policy", pol, "--judge", "openai:m", "--openai-base-url", srv.URL + "/v1", "--no-cache", "--format", "tsv"}
	run := filepath.Join(dir, "run")
	if code, _, stderr := apeval(t, "", append([]string{"run", "--out", run}, judgeArgs...)...); code == exitUsage {
		t.Fatalf("run: exit 2\n%s", stderr)
	}
	queue := filepath.Join(dir, "queue.jsonl")
	if code, _, stderr := apeval(t, "", "label", "queue", run, "--budget", "6", "--seed", "1", "--out", queue); code != 0 {
		t.Fatalf("label queue: exit %d\n%s", code, stderr)
	}
	q, err := os.ReadFile(queue)
	if err != nil {
		t.Fatal(err)
	}
	var labels strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(q)), "\n") {
		lab := "no_match"
		if strings.Contains(line, `"c0"`) || strings.Contains(line, `"c3"`) {
			lab = "match"
		}
		fmt.Fprintf(&labels, `%s,"label":%q,"labeler":"ana","time":"2026-12-06T10:00:00Z"}`+"\n", strings.TrimSuffix(line, "}"), lab)
	}
	labelsFile := filepath.Join(dir, "labels-ana.jsonl")
	if err := os.WriteFile(labelsFile, []byte(labels.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	labeled := filepath.Join(dir, "labeled")
	if code, _, stderr := apeval(t, "", append([]string{"run", "--out", labeled, "--labels", labelsFile}, judgeArgs...)...); code == exitUsage {
		t.Fatalf("run --labels: exit 2\n%s", stderr)
	}
	code, _, stderr := apeval(t, "", "simulate", labeled, "--operating-points", "--format", "tsv")
	if code != 0 || !strings.Contains(stderr, "were made with --labels; simulate reads only the labels the dataset's cases carry, not a labels file") {
		t.Errorf("simulate on a run made with --labels: exit %d, stderr %q; want a warning that the labels file is left out", code, stderr)
	}
	if strings.Contains(stderr, "apeval label queue") || !strings.Contains(stderr, "apeval datasets label-import") {
		t.Errorf("--operating-points without labeled pairs: %q; want the way that reaches simulate (labels in the dataset), not a queue", stderr)
	}
	if _, _, stderr := apeval(t, "", "simulate", run, "--format", "tsv"); strings.Contains(stderr, "were made with --labels") {
		t.Errorf("simulate on a run without --labels warned: %q", stderr)
	}
}

// unlabeledCases writes 12 unlabeled Bash cases in 4 sessions (every third
// an "rm -rf build") and the two-rule policy into a temporary directory.
func unlabeledCases(t *testing.T) (dir, ds, pol string) {
	t.Helper()
	dir = t.TempDir()
	var b strings.Builder
	for i := range 12 {
		cmd := "ls"
		if i%3 == 0 {
			cmd = "rm -rf build"
		}
		fmt.Fprintf(&b, `{"id":"c%d","session_id":"s%d","seq":%d,"tool":{"name":"Bash","category":"command_execution","arguments":{"command":%q}}}`+"\n", i, i/3, i%3+1, cmd)
	}
	ds = filepath.Join(dir, "cases.jsonl")
	pol = filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(ds, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pol, []byte(twoRulePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, ds, pol
}
