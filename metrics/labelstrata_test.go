package metrics

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// TestCheckLabelStrata: labels-file lines must carry their pair's own
// stratum under the run's judges (in order, or for a queue of fewer
// judges under one ordered choice of them that fits every line); another
// run's strata, or more judges than the run has, are refused naming the
// file:line; pairs the run lacks or the dataset labels are not checked.
func TestCheckLabelStrata(t *testing.T) {
	t.Parallel()
	tab := NewPairTable(nil, nil)
	// Two judges, J1 and J2; case c1 they split (J1 match, J2 no_match),
	// c2 both no_match, c3 labeled in the dataset.
	for _, j := range []struct {
		id         string
		c1, c2, c3 string
	}{{"J1", "match", "no_match", "match"}, {"J2", "no_match", "no_match", "match"}} {
		for _, c := range []struct{ id, res, label string }{{"c1", j.c1, ""}, {"c2", j.c2, ""}, {"c3", j.c3, "match"}} {
			tab.Add(&replay.Result{CaseID: c.id, SessionID: "s", Judge: j.id, Rules: []replay.RuleResult{rr("R", "style", "judge", c.res, c.label, "ok", false, -1)}})
		}
	}
	line := func(n int, caseID, stratum string) datasets.SampleLabel {
		return datasets.SampleLabel{CaseID: caseID, RuleID: "R", Stratum: stratum, StratumSize: 1, Label: datasets.LabelNoMatch, Source: "l.jsonl:" + string(rune('0'+n))}
	}
	ok := [][]datasets.SampleLabel{
		{line(1, "c1", "A:match B:no_match"), line(2, "c2", "A:no_match B:no_match")},
		// A queue of J2 alone (label queue --judge J2), and of J2 then J1.
		{line(1, "c1", "A:no_match"), line(2, "c2", "A:no_match")},
		{line(1, "c1", "A:no_match B:match")},
		// With the weak labels' letter, which the run cannot check.
		{line(1, "c1", "A:match B:no_match W:match")},
		// A pair the run lacks, and one the dataset labels.
		{line(1, "c9", "A:match B:match"), line(2, "c3", "A:no_match B:no_match")},
	}
	for i, ls := range ok {
		if err := tab.CheckLabelStrata(ls); err != nil {
			t.Errorf("case %d: %v", i, err)
		}
	}
	bad := []struct {
		lines []datasets.SampleLabel
		want  string
	}{
		{[]datasets.SampleLabel{line(1, "c2", "A:no_match B:no_match"), line(2, "c1", "A:no_match B:no_match")},
			`l.jsonl:2: stratum: "A:no_match B:no_match" is not the pair's (case c1, rule R) in these results, whose judges answered A:match B:no_match (A = J1, B = J2)`},
		// Each line fits one judge alone, but no one judge fits both.
		{[]datasets.SampleLabel{line(1, "c1", "A:match"), line(2, "c1", "A:no_match")}, `l.jsonl:2: stratum: "A:no_match"`},
		{[]datasets.SampleLabel{line(1, "c1", "A:match B:no_match C:match")}, `l.jsonl:1: stratum: "A:match B:no_match C:match" names 3 judges; these results have 2 (A = J1, B = J2)`},
		{[]datasets.SampleLabel{line(1, "c1", "match")}, `l.jsonl:1: stratum: "match" is not a queue stratum`},
	}
	for i, b := range bad {
		err := tab.CheckLabelStrata(b.lines)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("bad %d: %v, want %q", i, err, b.want)
		}
	}
}
