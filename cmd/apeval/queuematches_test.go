package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// TestLabelQueueMatchesFollowsHint, as a user on the embedded sample
// (docs/labeling.md's walkthrough): after the queue's labels,
// access-control-notify's precision (8 match predictions of qwen2.5:3b in
// 644 pairs) is open with a hint in sessions whose labels go to the
// judge's match predictions; the command it prints queues, on a run, the
// judge's every unlabeled match prediction of the rule and nothing else
// (here on the same run: its 8, in the strata where A says match).
func TestLabelQueueMatchesFollowsHint(t *testing.T) {
	t.Parallel()
	dir, _, run, queue := sampleQueue(t, "300", "7")
	labels := filepath.Join(dir, "labels.jsonl")
	oracleLabels(t, queue, labels)
	_, out, _ := apeval(t, "", "gate", run, "--labels", labels)
	var hint string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "access-control-notify\tprecision_min") && strings.Contains(l, "qwen2.5:3b`") {
			hint = l
		}
	}
	m := regexp.MustCompile("`(apeval label queue NEW_RUN [^`]*)`: about (\\d+) labels").FindStringSubmatch(hint)
	if m == nil {
		t.Fatalf("no --matches hint for access-control-notify:\n%s", out)
	}
	args := strings.Fields(strings.Replace(m[1], "NEW_RUN", run, 1))[1:]
	next := filepath.Join(dir, "next.jsonl")
	c, _, e := apeval(t, "", append(args, "--out", next)...)
	if c != 0 {
		t.Fatalf("%s: exit %d\n%s", m[1], c, e)
	}
	if !strings.Contains(e, "--matches: every unlabeled pair A called match queued") {
		t.Errorf("the summary does not say what was queued:\n%s", e)
	}
	q, err := datasets.ReadSampleLabels([]string{next}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 8 {
		t.Errorf("%d pairs queued, want the judge's 8 match predictions", len(q))
	}
	for _, l := range q {
		if l.RuleID != "access-control-notify" || !strings.HasPrefix(l.Stratum, "A:match ") {
			t.Errorf("queued %s/%s in %s", l.CaseID, l.RuleID, l.Stratum)
		}
	}
	// Labeled, and alone, those 8 weigh 1 each: the census path decides
	// the rule as without --labels, and its hint names the same step in
	// sessions of traffic (it read "about 529 more sessions like these,
	// ≈ 605 units", no word of labels).
	nextLabels := filepath.Join(dir, "next-labels.jsonl")
	oracleLabels(t, next, nextLabels)
	_, out, _ = apeval(t, "", "gate", run, "--labels", nextLabels)
	hint = ""
	census, judge3b := false, false
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, " ") {
			judge3b = strings.HasPrefix(l, "recorded/ollama/qwen2.5:3b\t")
		}
		if !judge3b {
			continue
		}
		if strings.Contains(l, "access-control-notify\tprecision_min") {
			hint = l
		}
		// gate names the rules decided as without --labels once per
		// judge, on its note line.
		if strings.HasPrefix(l, "  note\t") && strings.Contains(l, "access-control-notify") && strings.Contains(l, "weighs 1") {
			census = true
		}
	}
	if !census {
		t.Errorf("access-control-notify is not named as decided as without --labels:\n%s", out)
	}
	if !strings.Contains(hint, "more sessions of traffic") || !strings.Contains(hint, "(`"+m[1]+"`: about ") || strings.Contains(hint, "like these") {
		t.Errorf("the census path's hint does not name %s in sessions of traffic:\n%s", m[1], out)
	}
	// With a budget or reach, or a judge the run lacks, it is refused.
	for _, bad := range [][]string{{"--budget", "10"}, {"--reach", "5"}} {
		if c, _, e := apeval(t, "", append(append(args, bad...), "--out", filepath.Join(dir, "x.jsonl"))...); c != 2 || !strings.Contains(e, "--matches") {
			t.Errorf("%v: exit %d, %s", bad, c, e)
		}
	}
	if c, _, e := apeval(t, "", "label", "queue", run, "--matches", "nosuchjudge", "--out", filepath.Join(dir, "y.jsonl")); c != 2 || !strings.Contains(e, `--matches "nosuchjudge" matches no judge`) {
		t.Errorf("unknown judge: exit %d, %s", c, e)
	}
	if _, err := os.Stat(filepath.Join(dir, "y.jsonl")); err == nil {
		t.Error("a refused queue wrote its file")
	}
}
