package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanFirstStageIsLabelQueueReach, as a user on the embedded sample:
// a pilot holding the first 40 labels of a queue (the sample's own
// labels, imported) has a stratum where the judges disagree with 1 label
// of 11 pairs; `plan --labels` names the first stage's command, and that
// command queues exactly the number it names, only where the judges
// disagree; labeled and imported, the plan asks for no first stage.
// (docs/labeling.md, "Draw the queue", quotes it.)
func TestPlanFirstStageIsLabelQueueReach(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	u, run := filepath.Join(dir, "u"), filepath.Join(dir, "run")
	if c, _, e := apeval(t, "", "datasets", "sample", "--unlabeled", "--out", u); c != 0 {
		t.Fatal(e)
	}
	runOn := func(cases, out string) {
		t.Helper()
		if c, _, e := apeval(t, "", "run", "--dataset", cases, "--policy", filepath.Join(u, "policy.toml"), "--out", out, "--quiet", "--format", "tsv"); c != 1 && c != 3 {
			t.Fatalf("run %s: exit %d\n%s", out, c, e)
		}
	}
	runOn(filepath.Join(u, "cases.jsonl"), run)
	queue := filepath.Join(dir, "queue.jsonl")
	if c, _, e := apeval(t, "", "label", "queue", run, "--budget", "300", "--seed", "7", "--out", queue); c != 0 {
		t.Fatal(e)
	}
	b, err := os.ReadFile(queue)
	if err != nil {
		t.Fatal(err)
	}
	head := filepath.Join(dir, "head.jsonl")
	if err := os.WriteFile(head, bytes.Join(bytes.SplitAfter(b, []byte("\n"))[:40], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	// import adds labels to the dataset and runs it again: the pilot.
	imported := func(cases, labels, out string) string {
		t.Helper()
		if c, _, e := apeval(t, "", "datasets", "label-import", "--dataset", cases, "--labels", labels, "--out", out); c != 0 {
			t.Fatal(e)
		}
		dir := strings.TrimSuffix(out, ".jsonl")
		runOn(out, dir)
		return dir
	}
	pilotLabels := filepath.Join(dir, "pilot-labels.jsonl")
	oracleLabels(t, head, pilotLabels)
	pilot := imported(filepath.Join(u, "cases.jsonl"), pilotLabels, filepath.Join(dir, "pilot.jsonl"))

	type plan struct {
		Plans []struct {
			Judge, Rule, Criterion, Reason string
			First                          *struct {
				Rule    string `json:"rule"`
				Labels  int    `json:"labels"`
				Reach   int    `json:"reach"`
				Command string `json:"command"`
			} `json:"label_first"`
		} `json:"plans"`
	}
	planOf := func(dir string) plan {
		t.Helper()
		c, out, e := apeval(t, "", "plan", dir, "--labels", "300", "--reps", "10", "--json")
		var p plan
		if c != 0 || json.Unmarshal([]byte(out), &p) != nil {
			t.Fatalf("plan %s: exit %d\n%s%s", dir, c, out, e)
		}
		return p
	}
	firsts := 0
	for _, p := range planOf(pilot).Plans {
		f := p.First
		if f == nil {
			continue
		}
		firsts++
		want := "apeval label queue " + pilot + " --rule " + f.Rule + " --reach 40"
		if f.Rule != p.Rule || f.Reach != 40 || f.Command != want || !strings.Contains(p.Reason, "`"+want+"` queues them") {
			t.Errorf("%s %s %s: first stage %+v, reason %q", p.Judge, p.Rule, p.Criterion, *f, p.Reason)
			continue
		}
		first := filepath.Join(dir, "first-"+f.Rule+".jsonl")
		c, _, e := apeval(t, "", "label", "queue", pilot, "--rule", f.Rule, "--reach", "40", "--out", first)
		if c != 0 || !strings.Contains(e, "--reach 40: each stratum where the judges disagree") {
			t.Fatalf("label queue --reach: exit %d\n%s", c, e)
		}
		b, _ := os.ReadFile(first)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != f.Labels {
			t.Errorf("%s: the plan names %d labels, the queue holds %d", f.Rule, f.Labels, len(lines))
		}
		for _, l := range lines {
			var q struct{ Stratum string }
			if json.Unmarshal([]byte(l), &q) != nil || !disagreeing(q.Stratum) {
				t.Errorf("%s: queued where the judges agree: %s", f.Rule, l)
			}
		}
		t.Logf("%s: %d labels, %s", f.Rule, f.Labels, p.Reason)
		// docs/labeling.md tells this story with these numbers.
		if f.Rule != "commit-message-style" || f.Labels != 18 || !strings.Contains(e, "commit-message-style  A:no_match B:match     10     1        10") {
			t.Errorf("docs/labeling.md says 18 labels of commit-message-style, 10 where A:no_match B:match: %+v\n%s", *f, e)
		}
		// The first stage labeled and imported: no first stage asked.
		firstLabels := filepath.Join(dir, "first-labels.jsonl")
		oracleLabels(t, first, firstLabels)
		again := imported(filepath.Join(dir, "pilot.jsonl"), firstLabels, filepath.Join(dir, "second.jsonl"))
		for _, p := range planOf(again).Plans {
			if p.Rule == f.Rule && p.First != nil {
				t.Errorf("after the first stage: %s %s asks for %+v", p.Judge, p.Criterion, *p.First)
			}
		}
		break
	}
	if firsts == 0 {
		t.Fatal("no plan asked for a first stage")
	}
	for _, bad := range [][]string{
		{"--budget", "10", "--reach", "40"},
		{"--reach", "0"},
		{"--reach", "40", "--weak-labels", filepath.Join(u, "cases.jsonl")},
	} {
		if c, _, e := apeval(t, "", append([]string{"label", "queue", run}, bad...)...); c != 2 || !strings.Contains(e, "--reach") {
			t.Errorf("label queue %v: exit %d, %s", bad, c, e)
		}
	}
}

// disagreeing says whether a stratum name ("A:match B:no_match") holds
// different results.
func disagreeing(stratum string) bool {
	var first string
	for i, f := range strings.Fields(stratum) {
		_, r, _ := strings.Cut(f, ":")
		if i == 0 {
			first = r
		} else if r != first {
			return true
		}
	}
	return false
}
