package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// A pair with an unknown answer (or a failed call) and a no_match label
// is neither an FP nor a TN (DESIGN §6): report --labels counts TN as the
// run does. On the sample with its one unlabeled pair labeled (every
// label weighing 1), every judge × rule's TN equals the run's and the
// count taken by hand from decisions.parquet; commit-message-style of
// qwen2.5:3b is 560 (its one unknown answer on a no_match label made 561
// on the labeled path before).
func TestLabeledTNCountsAsUnweighted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if c, _, e := apeval(t, "", "run", "--out", run, "--quiet", "--format", "tsv"); c != 1 && c != 3 {
		t.Fatalf("run: exit %d\n%s", c, e)
	}
	// The sample's one unlabeled pair (irreversible-delete, both judges
	// undecided), labeled no_match: no TN for either judge.
	one := filepath.Join(dir, "one.jsonl")
	if err := os.WriteFile(one, []byte(`{"schema":"apeval.labels/v1","case_id":"c1254","rule_id":"irreversible-delete","stratum":"A:undecided B:undecided","stratum_size":1,"order":1,"label":"no_match","labeler":"ana","time":"2026-12-07T15:00:00Z"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "weighted")
	if c, _, e := apeval(t, "", "report", run, "--labels", one, "--out", out, "--format", "tsv"); c != 1 && c != 3 {
		t.Fatalf("report --labels: exit %d\n%s", c, e)
	}

	// By hand, from decisions.parquet: per judge × rule, TN (label
	// no_match, result no_match) and the undecided negatives.
	type key struct{ judge, rule string }
	tn, undecided := map[key]int64{}, map[key]int64{}
	if _, err := rundir.ReadRun(run, func(r *replay.Result) error {
		for _, rr := range r.Rules {
			label := rr.Label
			if r.CaseID == "c1254" && rr.RuleID == "irreversible-delete" {
				label = datasets.LabelNoMatch
			}
			if rr.Status == core.StatusMissing || label != datasets.LabelNoMatch {
				continue
			}
			k := key{r.Judge, rr.RuleID}
			switch rr.Result {
			case core.NoMatch:
				tn[k]++
			case core.Match:
			default:
				undecided[k]++
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	var plain, labeled metrics.Summary
	readJSON(t, filepath.Join(run, "summary.json"), &plain)
	readJSON(t, filepath.Join(out, "summary.json"), &labeled)
	if labeled.Sample == nil {
		t.Fatal("report --labels: no labeled sample in summary.json")
	}
	const judge3b, rule = "recorded/ollama/qwen2.5:3b", "commit-message-style"
	if k := (key{judge3b, rule}); tn[k] != 560 || undecided[k] == 0 {
		t.Fatalf("decisions.parquet: %s %s TN %d, undecided negatives %d; want 560 and at least 1", judge3b, rule, tn[k], undecided[k])
	}
	rows := 0
	for _, js := range labeled.Judges {
		for _, r := range js.Rules {
			k := key{js.Judge, r.RuleID}
			p := plain.Judge(js.Judge).Rule(r.RuleID)
			if r.TN != tn[k] || p.TN != tn[k] || r.Sample == nil || r.Sample.TN != float64(tn[k]) {
				t.Errorf("%s %s: TN labeled %d (weighted %v), unweighted %d, by hand %d (%d undecided negatives)",
					js.Judge, r.RuleID, r.TN, r.Sample, p.TN, tn[k], undecided[k])
			}
			rows++
		}
	}
	if rows < 20 {
		t.Errorf("%d rule rows", rows)
	}
}
