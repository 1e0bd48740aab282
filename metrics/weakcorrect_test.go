package metrics

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// weakFixture is 12 pairs of rule R, one per session, judged by J:
//
//	c0–c3   J match,    W match      stratum "A:match W:match",       N 4
//	c4–c5   J match,    W no_match   stratum "A:match W:no_match",    N 2
//	c6–c9   J no_match, no weak      stratum "A:no_match W:undecided", N 4
//	c10–c11 J no_match, W no_match   stratum "A:no_match W:no_match", N 2
//
// and two human labels per stratum: c0 match, c1 no_match; c4 match, c5
// no_match; c6 match, c7 no_match; c10, c11 no_match.
func weakFixture() (*PairTable, map[[2]string]datasets.Label, []SampleLabel) {
	t := NewPairTable([]string{"J"}, nil)
	weak := map[[2]string]datasets.Label{}
	strata := map[int]string{}
	for i := range 12 {
		id := fmt.Sprintf("c%d", i)
		res := judge.NoMatch
		if i < 6 {
			res = judge.Match
		}
		t.Add(&replay.Result{CaseID: id, SessionID: "s" + id, Judge: "J",
			Rules: []replay.RuleResult{{RuleID: "R", Result: res, Status: judge.StatusOK}}})
		switch {
		case i < 4:
			weak[[2]string{id, "R"}] = datasets.LabelMatch
			strata[i] = "A:match W:match"
		case i < 6:
			weak[[2]string{id, "R"}] = datasets.LabelNoMatch
			strata[i] = "A:match W:no_match"
		case i < 10:
			strata[i] = "A:no_match W:undecided"
		default:
			weak[[2]string{id, "R"}] = datasets.LabelNoMatch
			strata[i] = "A:no_match W:no_match"
		}
	}
	size := map[string]int64{"A:match W:match": 4, "A:match W:no_match": 2, "A:no_match W:undecided": 4, "A:no_match W:no_match": 2}
	var labels []SampleLabel
	for i, m := range map[int]bool{0: true, 1: false, 4: true, 5: false, 6: true, 7: false, 10: false, 11: false} {
		labels = append(labels, SampleLabel{CaseID: fmt.Sprintf("c%d", i), RuleID: "R", Stratum: strata[i], StratumSize: size[strata[i]], Match: m})
	}
	return t, weak, labels
}

// TestCorrectWeakHandCount: the corrected figures and the weak labels'
// error rates equal a hand count on weakFixture. Weighted: TP = 4·½ + 2·½
// = 3, FP = 4·½ + 2·½ = 3, FN = 4·½ + 0 = 2: precision 3/6, recall 3/5.
// On the weak labels: TP 4 (c0–c3), FP 2 (c4, c5), FN 0: precision 4/6,
// recall 1. Weak match labels wrong: 2·1 of 2·2 = ½; weak no_match wrong:
// c4 of (c4, c5, c10, c11) = ¼.
func TestCorrectWeakHandCount(t *testing.T) {
	t.Parallel()
	tab, weak, labels := weakFixture()
	rep, err := tab.CorrectWeak(weak, labels, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 || rep.Rows[0].RuleID != "R" || rep.Rows[1].RuleID != AllRules {
		t.Fatalf("rows %+v", rep.Rows)
	}
	for _, r := range rep.Rows {
		if r.NA != "" || r.Precision.Estimate == nil || r.Recall.Estimate == nil {
			t.Fatalf("%s: N/A %q", r.RuleID, r.NA)
		}
		nearW(t, r.RuleID+" corrected precision", *r.Precision.Estimate, 0.5, 1e-12)
		nearW(t, r.RuleID+" corrected recall", *r.Recall.Estimate, 0.6, 1e-12)
		nearW(t, r.RuleID+" weak precision", *r.WeakPrecision.Value, 4.0/6, 1e-12)
		nearW(t, r.RuleID+" weak recall", *r.WeakRecall.Value, 1, 1e-12)
		nearW(t, r.RuleID+" weak match wrong", *r.WeakMatchWrong.Estimate, 0.5, 1e-12)
		nearW(t, r.RuleID+" weak no_match wrong", *r.WeakNoMatchWrong.Estimate, 0.25, 1e-12)
		if r.Labels != 8 || *r.Precision.Lo > 0.5 || *r.Precision.Hi < 0.5 || *r.Precision.Hi-*r.Precision.Lo < 0.1 {
			t.Errorf("%s: labels %d, precision interval [%v, %v]", r.RuleID, r.Labels, *r.Precision.Lo, *r.Precision.Hi)
		}
	}
	want := map[string][2]int64{ // stratum: disagree, labeled
		"A:match W:match": {1, 2}, "A:match W:no_match": {1, 2}, "A:no_match W:undecided": {1, 2}, "A:no_match W:no_match": {0, 2},
	}
	if len(rep.Strata) != 4 {
		t.Fatalf("strata %+v", rep.Strata)
	}
	for _, s := range rep.Strata {
		w := want[s.Stratum]
		if s.Disagree != w[0] || s.Labeled != w[1] || s.Rate == nil || *s.Rate != float64(w[0])/float64(w[1]) {
			t.Errorf("stratum %s: %+v, want disagree %d of %d", s.Stratum, s, w[0], w[1])
		}
	}
}

// TestCorrectWeakRefuses: labels of which some strata carry the weak label
// and some do not (two queues) are refused, a slice drawn on other weak
// labels is an error, and a slice that leaves a stratum unlabeled or thin
// gives N/A with the reason.
func TestCorrectWeakRefuses(t *testing.T) {
	t.Parallel()
	tab, weak, labels := weakFixture()
	plain := append([]SampleLabel(nil), labels...)
	plain[0].Stratum = "A:match"
	if _, err := tab.CorrectWeak(weak, plain, 0.95); !errors.Is(err, ErrNoWeakStrata) {
		t.Errorf("strata with and without W: err %v, want ErrNoWeakStrata", err)
	}
	other := map[[2]string]datasets.Label{}
	for k, v := range weak {
		other[k] = v
	}
	other[[2]string{"c0", "R"}] = datasets.LabelNoMatch
	if _, err := tab.CorrectWeak(other, labels, 0.95); err == nil || !strings.Contains(err.Error(), "other weak labels") {
		t.Errorf("other weak labels: err %v", err)
	}

	var noLast, thin []SampleLabel
	for _, l := range labels {
		if l.Stratum != "A:no_match W:no_match" {
			noLast = append(noLast, l)
		}
		if l.CaseID != "c7" {
			thin = append(thin, l)
		}
	}
	for name, c := range map[string]struct {
		labels []SampleLabel
		reason string
	}{
		"unlabeled stratum": {noLast, "2 of the 4 unlabeled pairs with weak label no_match lie in strata no human label reached"},
		"thin stratum":      {thin, `stratum "A:no_match W:undecided" has fewer than 2 human labels`},
	} {
		rep, err := tab.CorrectWeak(weak, c.labels, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Rows {
			if !strings.Contains(r.NA, c.reason) || r.Precision.Estimate != nil || r.Recall.Estimate != nil {
				t.Errorf("%s, %s: N/A %q, precision %v; want N/A %q", name, r.RuleID, r.NA, r.Precision.Estimate, c.reason)
			}
			if r.WeakPrecision.Value == nil {
				t.Errorf("%s, %s: the weak figures are always given", name, r.RuleID)
			}
		}
	}
}

// TestCorrectWeakPostStratified: the same labels from a queue drawn on
// the judge alone (strata "A:match", "A:no_match", 6 pairs each) are split
// by weak label after the fact, each cell weighted by its pairs in the
// table: the cells are weakFixture's strata, so the figures are the hand
// count's. A label whose stratum is not the pair's over the table's judges
// is an error.
func TestCorrectWeakPostStratified(t *testing.T) {
	t.Parallel()
	tab, weak, labels := weakFixture()
	plain := make([]SampleLabel, len(labels))
	for i, l := range labels {
		l.Stratum, _, _ = strings.Cut(l.Stratum, " ")
		l.StratumSize = 6
		plain[i] = l
	}
	rep, err := tab.CorrectWeak(weak, plain, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.PostStratified || len(rep.Strata) != 4 {
		t.Fatalf("post-stratified %v, strata %+v", rep.PostStratified, rep.Strata)
	}
	r := rep.Rows[0]
	if r.NA != "" || r.Precision.Estimate == nil {
		t.Fatalf("N/A %q", r.NA)
	}
	nearW(t, "post-stratified precision", *r.Precision.Estimate, 0.5, 1e-12)
	nearW(t, "post-stratified recall", *r.Recall.Estimate, 0.6, 1e-12)
	for i := range plain {
		if plain[i].Stratum == "A:match" {
			plain[i].Stratum = "A:no_match" // not the pair's: the judge matched
			break
		}
	}
	if _, err := tab.CorrectWeak(weak, plain, 0.95); err == nil || !strings.Contains(err.Error(), "drawn on other judges") {
		t.Errorf("a stratum not the pair's: %v", err)
	}
}

// TestTakeWeakLabels: a weak run's labels move into the weak map and no
// longer count as a census.
func TestTakeWeakLabels(t *testing.T) {
	t.Parallel()
	tab := NewPairTable([]string{"J"}, nil)
	tab.Add(&replay.Result{CaseID: "c0", SessionID: "s", Judge: "J",
		Rules: []replay.RuleResult{{RuleID: "R", Result: judge.Match, Status: judge.StatusOK, Label: datasets.LabelMatch}}})
	tab.Add(&replay.Result{CaseID: "c1", SessionID: "s", Judge: "J",
		Rules: []replay.RuleResult{{RuleID: "R", Result: judge.Match, Status: judge.StatusOK}}})
	w := tab.TakeWeakLabels()
	if len(w) != 1 || w[[2]string{"c0", "R"}] != datasets.LabelMatch || tab.Row("c0", "R").Label != "" {
		t.Errorf("weak %v, row label %q", w, tab.Row("c0", "R").Label)
	}
}

// TestSliceLabelsCountsMissingAndRefusesWeak: people's labels resolve, a
// label on a pair the run lacks is counted, a weak line is refused.
func TestSliceLabelsCountsMissingAndRefusesWeak(t *testing.T) {
	tab, _, _ := weakFixture()
	line := func(id string, l datasets.Label, src string) datasets.SampleLabel {
		return datasets.SampleLabel{Schema: datasets.SampleLabelsSchema, CaseID: id, RuleID: "R", Stratum: "A:match W:match", StratumSize: 4,
			Order: 1, Label: l, Labeler: "ann", LabelSource: src, Source: "l.jsonl:1"}
	}
	labels, missing, err := tab.SliceLabels([]datasets.SampleLabel{line("c0", datasets.LabelMatch, ""), line("c99", datasets.LabelNoMatch, "")})
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) != 2 || missing != 1 {
		t.Errorf("labels = %d, missing = %d; want 2 and 1 (c99 is no pair of the run)", len(labels), missing)
	}
	_, _, err = tab.SliceLabels([]datasets.SampleLabel{line("c0", datasets.LabelMatch, datasets.LabelSourceWeak)})
	if err == nil || !strings.Contains(err.Error(), "l.jsonl:1: label_source: weak labels cannot correct weak labels") {
		t.Errorf("weak line: err = %v", err)
	}
	if m := (&WeakReport{PostStratified: true}).Method(); !strings.Contains(m, "post-stratified by weak label") {
		t.Errorf("Method = %q", m)
	}
}
