package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// correctionJSON is what the test reads of label correct --json.
type correctionJSON struct {
	LabelSource string `json:"label_source"`
	Post        bool   `json:"post_stratified"`
	Labels      int    `json:"labels"`
	Rows        []struct {
		Judge         string `json:"judge"`
		RuleID        string `json:"rule_id"`
		WeakPrecision struct {
			Num, Den int64
			Value    *float64
		} `json:"precision_on_weak_labels"`
		WeakRecall struct {
			Num, Den int64
			Value    *float64
		} `json:"recall_on_weak_labels"`
		Precision struct{ Estimate, Lo, Hi *float64 } `json:"precision_corrected"`
		Recall    struct{ Estimate, Lo, Hi *float64 } `json:"recall_corrected"`
		NA        string                              `json:"na"`
	} `json:"rows"`
}

// labelQueue labels a queue file's lines: match for the cases in match,
// no_match for the others; only the first n lines when n > 0.
func labelQueue(t *testing.T, queue, out string, match map[string]bool, n int) {
	t.Helper()
	data, err := os.ReadFile(queue)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if n > 0 && i >= n {
			break
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		m["label"], m["labeler"], m["time"] = "no_match", "ana", "2026-12-06T05:00:00Z"
		if match[m["case_id"].(string)] {
			m["label"] = "match"
		}
		line, _ := json.Marshal(m)
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLabelCorrect: a plain run of the vendor walk-through's sessions, a
// slice drawn with label queue --weak-labels and labeled whole by a
// person, and label correct: the candidate's figures on the weak labels
// beside the corrected ones, both hand-counted; a slice drawn without the
// weak label post-stratified; N/A on a thin slice; refusals of a slice
// from other judges, weak labels as --labels and missing weak labels.
func TestLabelCorrect(t *testing.T) {
	t.Parallel()
	dir, cases, pol := weakRunFixture(t)
	cand := "recorded/ollama/qwen2.5:3b"
	runArgs := func(out string, extra ...string) []string {
		return append([]string{"run", "--dataset", cases, "--policy", pol, "--judge", "recorded:claude-auto-mode@2.1.x",
			"--judge", "recorded:ollama/qwen2.5:3b", "--out", out, "-q"}, extra...)
	}
	run := filepath.Join(dir, "plain")
	if code, _, stderr := apeval(t, "", runArgs(run)...); code == exitUsage {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	queue, plainQueue := filepath.Join(dir, "queue.jsonl"), filepath.Join(dir, "plain-queue.jsonl")
	if code, _, stderr := apeval(t, "", "label", "queue", run, "--weak-labels", cases, "--budget", "200", "--out", queue); code != 0 {
		t.Fatalf("queue: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := apeval(t, "", "label", "queue", run, "--budget", "200", "--out", plainQueue); code != 0 {
		t.Fatalf("queue: exit %d\n%s", code, stderr)
	}
	// The person: 06, 10 and 11 should be stopped, nothing else.
	truth := map[string]bool{"cc-toolu_06Bash": true, "cc-toolu_10Bash": true, "cc-toolu_11Bash": true}
	labels, thin, plainLabels := filepath.Join(dir, "labels.jsonl"), filepath.Join(dir, "thin.jsonl"), filepath.Join(dir, "plain-labels.jsonl")
	labelQueue(t, queue, labels, truth, 0)
	labelQueue(t, queue, thin, truth, 3)
	labelQueue(t, plainQueue, plainLabels, truth, 0)

	code, stdout, stderr := apeval(t, "", "label", "correct", run, "--labels", labels, "--weak-labels", cases, "--json")
	if code != 0 {
		t.Fatalf("label correct --json: exit %d\n%s", code, stderr)
	}
	var rep correctionJSON
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.LabelSource != "weak_corrected" || rep.Labels != 13 {
		t.Errorf("label_source %q, labels %d; want weak_corrected, the queue's 13", rep.LabelSource, rep.Labels)
	}
	// By hand. On the weak labels (06 match, 07 no_match, 11 match, 13
	// no_match) the candidate (blocks 05, 07, 10, 11) has TP 11, FP 07,
	// FN 06: precision 1/2, recall 1/2. Every stratum is labeled whole,
	// so the corrected figures are the person's: TP 10, 11; FP 07 and 05
	// (the dataset's own label, the census); FN 06: precision 2/4, recall
	// 2/3.
	found := 0
	for _, r := range rep.Rows {
		if r.Judge != cand {
			continue
		}
		found++
		if r.NA != "" || r.Precision.Estimate == nil || r.Recall.Estimate == nil {
			t.Fatalf("%s: N/A %q", r.RuleID, r.NA)
		}
		if r.WeakPrecision.Num != 1 || r.WeakPrecision.Den != 2 || r.WeakRecall.Num != 1 || r.WeakRecall.Den != 2 {
			t.Errorf("%s: on weak labels precision %d/%d, recall %d/%d; want 1/2 and 1/2", r.RuleID, r.WeakPrecision.Num, r.WeakPrecision.Den, r.WeakRecall.Num, r.WeakRecall.Den)
		}
		if *r.Precision.Estimate != 0.5 || *r.Recall.Estimate != 2.0/3 || *r.Precision.Lo >= 0.5 || *r.Precision.Hi <= 0.5 {
			t.Errorf("%s: corrected precision %v [%v, %v], recall %v; want 0.5 inside its interval and 2/3", r.RuleID,
				*r.Precision.Estimate, *r.Precision.Lo, *r.Precision.Hi, *r.Recall.Estimate)
		}
	}
	if found != 2 {
		t.Errorf("%d rows for %s, want the rule and the total", found, cand)
	}

	// The tables: every line naming a figure says weak or corrected.
	code, stdout, stderr = apeval(t, "", "label", "correct", run, "--labels", labels, "--weak-labels", cases)
	if code != 0 {
		t.Fatalf("label correct: exit %d\n%s", code, stderr)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if labelFigure.MatchString(l) && !strings.Contains(l, "weak") {
			t.Errorf("a line names a figure without saying weak:\n%s", l)
		}
	}
	if !strings.Contains(stdout, "precision corrected [95%]") || !strings.Contains(stdout, "0.500 (1/2 weak)") {
		t.Errorf("tables:\n%s", stdout)
	}

	// Three labels leave strata unlabeled: N/A with the reason.
	code, stdout, _ = apeval(t, "", "label", "correct", run, "--labels", thin, "--weak-labels", cases, "--json")
	rep = correctionJSON{}
	if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil {
		t.Fatalf("thin slice: exit %d, %v", code, err)
	}
	for _, r := range rep.Rows {
		if !strings.Contains(r.NA, "lie in strata no human label reached") || r.Precision.Estimate != nil {
			t.Errorf("thin slice, %s %s: N/A %q, precision %v", r.Judge, r.RuleID, r.NA, r.Precision.Estimate)
		}
	}

	// A run on the weak labels: they come from the run. The person's own
	// label on 05 is set aside there, and no stratum of the slice covers
	// 05 (it was the census): N/A, named.
	weakRun := filepath.Join(dir, "weak")
	if code, _, stderr := apeval(t, "", runArgs(weakRun, "--weak-labels")...); code == exitUsage {
		t.Fatalf("run --weak-labels: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr = apeval(t, "", "label", "correct", weakRun, "--labels", labels, "--json")
	rep = correctionJSON{}
	if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil {
		t.Fatalf("weak run: exit %d, %v\n%s", code, err, stderr)
	}
	for _, r := range rep.Rows {
		if r.Judge == cand && (!strings.Contains(r.NA, "1 of the") || r.WeakPrecision.Den != 2) {
			t.Errorf("weak run, %s: N/A %q, weak precision %d/%d", r.RuleID, r.NA, r.WeakPrecision.Num, r.WeakPrecision.Den)
		}
	}

	// A slice drawn without --weak-labels (strata on the two judges) is
	// post-stratified: labeled whole, every cell is complete, and the
	// candidate's corrected figures are the hand count's again. One drawn on
	// the candidate alone does not match this run's strata (exit 2 below)
	// unless label correct gets the same --judge.
	code, stdout, stderr = apeval(t, "", "label", "correct", run, "--labels", plainLabels, "--weak-labels", cases, "--json")
	rep = correctionJSON{}
	if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil || !rep.Post {
		t.Fatalf("post-stratified: exit %d, %v, post %v\n%s", code, err, rep.Post, stderr)
	}
	for _, r := range rep.Rows {
		if r.Judge == cand && (r.NA != "" || r.Precision.Estimate == nil || *r.Precision.Estimate != 0.5 || *r.Recall.Estimate != 2.0/3) {
			t.Errorf("post-stratified %s: N/A %q, precision %v", r.RuleID, r.NA, r.Precision.Estimate)
		}
	}
	candQueue, candLabels := filepath.Join(dir, "cand-queue.jsonl"), filepath.Join(dir, "cand-labels.jsonl")
	if code, _, stderr := apeval(t, "", "label", "queue", run, "--judge", cand, "--budget", "200", "--out", candQueue); code != 0 {
		t.Fatalf("queue --judge: exit %d\n%s", code, stderr)
	}
	labelQueue(t, candQueue, candLabels, truth, 0)
	if code, _, stderr := apeval(t, "", "label", "correct", run, "--judge", cand, "--labels", candLabels, "--weak-labels", cases); code != 0 {
		t.Errorf("label correct --judge (the queue's): exit %d\n%s", code, stderr)
	}

	weakLines := filepath.Join(dir, "weak-lines.jsonl")
	if code, _, stderr := apeval(t, "", "label", "weak", cases, "--out", weakLines); code != 0 {
		t.Fatalf("label weak: exit %d\n%s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"label", "correct", run, "--labels", candLabels, "--weak-labels", cases}, "drawn on other judges"},
		{[]string{"label", "correct", run, "--labels", weakLines, "--weak-labels", cases}, "weak labels cannot correct weak labels"},
		{[]string{"label", "correct", run, "--labels", labels}, "--weak-labels DATASET"},
		{[]string{"label", "correct", weakRun, "--labels", labels, "--weak-labels", cases}, "drop --weak-labels"},
		{[]string{"label", "correct", run}, "needs the people's labels"},
	} {
		code, _, stderr := apeval(t, "", c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d naming %q:\n%s", c.args[2:], code, exitUsage, c.want, stderr)
		}
	}
}
