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
	dir, u, run, queue := sampleQueue(t, "300", "7")
	runOn := func(cases, out string) {
		t.Helper()
		if c, _, e := apeval(t, "", "run", "--dataset", cases, "--policy", filepath.Join(u, "policy.toml"), "--out", out, "--quiet", "--format", "tsv"); c != 1 && c != 3 {
			t.Fatalf("run %s: exit %d\n%s", out, c, e)
		}
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
	// The same pilot's labels kept in their labels file (as label serve
	// writes it) rather than imported: plan --pilot-labels counts them
	// and names label queue --labels FILE, which queues the same 18
	// pairs, none the file labels, with the stratum sizes of the file's
	// lines (one design: report --labels takes both files).
	c, out, e := apeval(t, "", "plan", run, "--labels", "300", "--reps", "10", "--json", "--pilot-labels", pilotLabels)
	var p plan
	if c != 0 || json.Unmarshal([]byte(out), &p) != nil || !strings.Contains(e, "plan: 39 labels of --pilot-labels count as the pilot's") {
		t.Fatalf("plan --pilot-labels: exit %d\n%s%s", c, out, e)
	}
	want := "apeval label queue " + run + " --rule commit-message-style --reach 40 --labels " + pilotLabels
	var named bool
	for _, p := range p.Plans {
		if f := p.First; f != nil {
			named = true
			if f.Command != want || f.Labels != 18 {
				t.Errorf("from the labels file: first stage %+v, want %q and 18 labels", *f, want)
			}
		}
	}
	if !named {
		t.Error("from the labels file: no first stage")
	}
	first := filepath.Join(dir, "first-file.jsonl")
	if c, _, e := apeval(t, "", "label", "queue", run, "--rule", "commit-message-style", "--reach", "40", "--labels", pilotLabels, "--out", first); c != 0 {
		t.Fatalf("label queue --labels: exit %d\n%s", c, e)
	}
	type line struct {
		Rule    string `json:"rule_id"`
		Case    string `json:"case_id"`
		Stratum string `json:"stratum"`
		Size    int64  `json:"stratum_size"`
	}
	read := func(f string) []line {
		b, _ := os.ReadFile(f)
		var out []line
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var x line
			if json.Unmarshal([]byte(l), &x) != nil {
				t.Fatalf("%s: %q", f, l)
			}
			out = append(out, x)
		}
		return out
	}
	inPilot, size := map[string]bool{}, map[string]int64{}
	for _, l := range read(pilotLabels) {
		inPilot[l.Case] = true
		size[l.Rule+" "+l.Stratum] = l.Size
	}
	got := read(first)
	if len(got) != 18 {
		t.Errorf("label queue --labels queued %d, the plan names 18", len(got))
	}
	for _, l := range got {
		if k := l.Rule + " " + l.Stratum; inPilot[l.Case] || size[k] != l.Size || !disagreeing(l.Stratum) {
			t.Errorf("queued %+v (in the pilot's file: %v; its stratum_size there %d)", l, inPilot[l.Case], size[k])
		}
	}
	firstLabels := filepath.Join(dir, "first-file-labels.jsonl")
	oracleLabels(t, first, firstLabels)
	c, out, e = apeval(t, "", "plan", run, "--labels", "300", "--reps", "10", "--json", "--pilot-labels", pilotLabels, "--pilot-labels", firstLabels)
	p = plan{} // Unmarshal keeps a field the JSON leaves out
	if c != 0 || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("plan again: exit %d\n%s%s", c, out, e)
	}
	for _, p := range p.Plans {
		if p.Rule == "commit-message-style" && p.First != nil {
			t.Errorf("after the first stage from files: %s %s asks for %+v", p.Judge, p.Criterion, *p.First)
		}
	}
	for _, bad := range [][]string{
		{"--budget", "10", "--reach", "40"},
		{"--reach", "0"},
		{"--reach", "40", "--weak-labels", filepath.Join(u, "cases.jsonl")},
		{"--budget", "10", "--labels", pilotLabels},
	} {
		if c, _, e := apeval(t, "", append([]string{"label", "queue", run}, bad...)...); c != 2 || !strings.Contains(e, "--reach") {
			t.Errorf("label queue %v: exit %d, %s", bad, c, e)
		}
	}
	if c, _, e := apeval(t, "", "plan", run, "--pilot-labels", pilotLabels); c != 2 || !strings.Contains(e, "--pilot-labels") {
		t.Errorf("plan --pilot-labels without --labels N: exit %d, %s", c, e)
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
