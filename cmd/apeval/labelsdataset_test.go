package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/reports/rundir"
)

// label queue records what its queue was drawn from (the run's dataset
// digest and case count, the judges by letter), label serve's labels keep
// it, and a run on another dataset warns on stderr naming both, never
// refuses; the same dataset (the run itself, or another judge's run of
// it: the CI workflow) and files written before the fields existed say
// nothing.
func TestLabelsFromAnotherDatasetWarn(t *testing.T) {
	t.Parallel()
	dir, u, run, queue := sampleQueue(t, "60", "5")
	info, err := rundir.ReadRunInfo(run)
	if err != nil {
		t.Fatal(err)
	}
	q, err := datasets.ReadSampleLabels([]string{queue}, true)
	if err != nil {
		t.Fatal(err)
	}
	wantJudges := []string{"A=recorded/ollama/qwen2.5:3b", "B=recorded/ollama/qwen2.5:7b-instruct-q4_K_M"}
	if d := info.DatasetDigest(); !strings.HasPrefix(d, "sha256:") || q[0].Dataset != d || q[0].DatasetCases != 1590 || !slices.Equal(q[0].Judges, wantJudges) {
		t.Fatalf("queue provenance %q %d %q, want the run's dataset %q, 1590 cases, %q", q[0].Dataset, q[0].DatasetCases, q[0].Judges, d, wantJudges)
	}
	labels := filepath.Join(dir, "labels.jsonl")
	n := oracleLabels(t, queue, labels)

	// The same dataset: silent about it; how many labels matched is said
	// on stderr (gate prints no table notes).
	code, _, stderr := apeval(t, "", "gate", run, "--labels", labels)
	if code == exitUsage || strings.Contains(stderr, "drawn from dataset") ||
		!strings.Contains(stderr, fmt.Sprintf("apeval: warning: --labels: all %d labels match a (case, rule) pair of these results\n", n)) {
		t.Fatalf("gate on the queue's own run: exit %d\n%s", code, stderr)
	}
	// compare says it too, on stderr (it prints no table notes either).
	code, stdout, stderr := apeval(t, "", "compare", run, "--baseline", "recorded/ollama/qwen2.5:3b", "--labels", labels)
	if code == exitUsage || strings.Contains(stdout, "--labels:") ||
		!strings.Contains(stderr, fmt.Sprintf("apeval: warning: --labels: all %d labels match a (case, rule) pair of these results\n", n)) {
		t.Fatalf("compare on the queue's own run: exit %d\n%s", code, stderr)
	}

	// The dataset changed since (its last case gone): the same case IDs,
	// another digest. Warned, with both digests; the verdict as before.
	data, err := os.ReadFile(filepath.Join(u, "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cases := bytes.SplitAfter(bytes.TrimSpace(data), []byte("\n"))
	shrunk := filepath.Join(dir, "shrunk.jsonl")
	if err := os.WriteFile(shrunk, bytes.Join(cases[:len(cases)-1], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	run2 := filepath.Join(dir, "run2")
	if c, _, e := apeval(t, "", "run", "--dataset", shrunk, "--policy", filepath.Join(u, "policy.toml"), "--out", run2, "--quiet", "--format", "tsv"); c != 1 && c != 3 {
		t.Fatalf("run: exit %d\n%s", c, e)
	}
	info2, err := rundir.ReadRunInfo(run2)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr = apeval(t, "", "gate", run2, "--labels", labels)
	want := "apeval: warning: " + labels + ":1: its queue was drawn from dataset " + q[0].Dataset[:len("sha256:")+12] + "… (1590 cases); " +
		run2 + "'s dataset is " + info2.DatasetDigest()[:len("sha256:")+12] + "… (1589 cases)"
	if code == exitUsage || strings.Count(stderr, "drawn from dataset") != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("gate on another dataset: exit %d, want once %q\n%s", code, want, stderr)
	}

	// A labels file written before the fields: read as before, silent.
	var old bytes.Buffer
	for _, l := range bytes.Split(bytes.TrimSpace(mustRead(t, labels)), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "dataset")
		delete(m, "dataset_cases")
		delete(m, "judges")
		b, _ := json.Marshal(m)
		old.Write(append(b, '\n'))
	}
	oldPath := filepath.Join(dir, "old.jsonl")
	if err := os.WriteFile(oldPath, old.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code2, _, stderr := apeval(t, "", "gate", run2, "--labels", oldPath)
	if code2 != code || strings.Contains(stderr, "drawn from dataset") {
		t.Fatalf("an old labels file: exit %d (with provenance %d)\n%s", code2, code, stderr)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
