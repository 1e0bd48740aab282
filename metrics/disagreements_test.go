package metrics

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// dr is a compact rule decision for the disagreement tests.
type dr struct {
	rule   string
	result judge.Result
	status judge.Status
	source replay.Source
	label  string
	conf   float64 // < 0: none
}

func disResult(judgeID, caseID string, rules ...dr) *replay.Result {
	r := &replay.Result{Judge: judgeID, CaseID: caseID}
	for _, d := range rules {
		rr := replay.RuleResult{RuleID: d.rule, Result: d.result, Status: d.status, Source: d.source, Label: datasets.Label(d.label), Call: -1}
		if rr.Status == "" {
			rr.Status = "ok"
		}
		if rr.Source == "" {
			rr.Source = replay.SourceJudge
		}
		if d.conf >= 0 {
			c := d.conf
			rr.Confidence = &c
		}
		r.Rules = append(r.Rules, rr)
	}
	return r
}

const (
	judgeA = "recorded/a"
	judgeB = "recorded/b"
)

// disagreementResults: every kind of pair, with the expected rank order
// worked out by hand in TestDisagreements.
func disagreementResults() []*replay.Result {
	return []*replay.Result{
		disResult(judgeA, "c1", dr{"r1", "match", "", "", "", 0.9}, dr{"r2", "match", "", "", "", 0.9}),
		disResult(judgeB, "c1", dr{"r1", "no_match", "", "", "", 0.8}, dr{"r2", "match", "", "", "", 0.6}), // r1 opposite 0.72; r2 agree
		disResult(judgeB, "c2", dr{"r1", "match", "", "", "", 0.9}),                                        // candidate first
		disResult(judgeA, "c2", dr{"r1", "no_match", "", "", "", -1}),                                      // opposite 0.5·0.9 = 0.45
		disResult(judgeA, "c3", dr{"r1", "unknown", "unknown", "", "", 0.3}),
		disResult(judgeB, "c3", dr{"r1", "match", "", "", "", 0.7}), // unknown kind, 0.7
		disResult(judgeA, "c4", dr{"r1", "match", "timeout", replay.SourceFailure, "", -1}),
		disResult(judgeB, "c4", dr{"r1", "no_match", "", replay.SourceCache, "", 0.95}), // unknown kind, 0.95
		disResult(judgeA, "c5", dr{"r1", "match", "", "", "match", 0.99}),
		disResult(judgeB, "c5", dr{"r1", "no_match", "", "", "match", 0.99}), // labeled: last
		disResult(judgeA, "c6", dr{"r1", "unknown", "unknown", "", "", -1}),
		disResult(judgeB, "c6", dr{"r1", "no_match", "error", replay.SourceFailure, "", -1}), // both silent
		disResult(judgeA, "c7", dr{"r1", "match", "", "", "", 0.9}),
		disResult(judgeB, "c7", dr{"r1", "", "missing", "", "", -1}), // recording lacks the rule
		disResult(judgeA, "c8", dr{"r1", "match", "", "", "", 0.9}),  // candidate never had it in scope
		disResult("recorded/other", "c8", dr{"r1", "no_match", "", "", "", 0.9}),
		disResult(judgeA, "c9", dr{"r1", "no_match", "", replay.SourceDeterministic, "", -1}),
		disResult(judgeB, "c9", dr{"r1", "match", "", "", "", 0.6}), // opposite 1·0.6
		disResult(judgeA, "c0", dr{"r9", "match", "", "", "", 0.5}, dr{"r8", "match", "", "", "", 0.5}),
		disResult(judgeB, "c0", dr{"r9", "no_match", "", "", "", 0.5}, dr{"r8", "no_match", "", "", "", 0.5}), // tie 0.25: r8 then r9
		disResult(judgeB, "c10", dr{"r1", "match", "", "", "", 0.9}),                                          // judges disagree, but …
		disResult(judgeA, "c10", dr{"r1", "", "", "", "", -1}),                                                // … a result nobody recognises is silent: unknown kind, 0.9
	}
}

func TestDisagreements(t *testing.T) {
	t.Parallel()
	f := NewDisagreementFinder(judgeA, judgeB)
	for _, r := range disagreementResults() {
		f.Add(r)
	}
	if len(f.pairs) != 2 {
		t.Errorf("%d pairs still held, want 2 (c7 and c8, never paired): agreeing pairs must be dropped", len(f.pairs))
	}
	got := f.Close()
	type key struct {
		id    string
		kind  string
		score float64
	}
	var keys []key
	for _, d := range got {
		keys = append(keys, key{d.CaseID + "/" + d.RuleID, d.Kind, d.Score})
	}
	hi, lo := 0.9, 0.8 // multiplied at run time, as the finder does
	want := []key{
		{"c1/r1", DisagreeOpposite, hi * lo},
		{"c9/r1", DisagreeOpposite, 0.6},
		{"c2/r1", DisagreeOpposite, 0.45},
		{"c0/r8", DisagreeOpposite, 0.25},
		{"c0/r9", DisagreeOpposite, 0.25},
		{"c4/r1", DisagreeUnknown, 0.95},
		{"c10/r1", DisagreeUnknown, 0.9},
		{"c3/r1", DisagreeUnknown, 0.7},
		{"c5/r1", DisagreeOpposite, 0.99 * 0.99},
	}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("ranked:\ngot  %v\nwant %v", keys, want)
	}
	// c1 (r1, r2), c2, c3, c4, c5, c6, c9, c0 (r8, r9), c10; not c7 (missing) nor c8.
	if f.Paired() != 11 {
		t.Errorf("Paired = %d, want 11", f.Paired())
	}
	var c4 Disagreement
	for _, d := range got {
		if d.CaseID == "c4" {
			c4 = d
		}
	}
	conf := 0.95
	wantC4 := Disagreement{CaseID: "c4", RuleID: "r1", Kind: DisagreeUnknown, Score: 0.95,
		Baseline:  PairDecision{Judge: judgeA, Result: "match", Status: "timeout", Source: string(replay.SourceFailure)},
		Candidate: PairDecision{Judge: judgeB, Result: "no_match", Confidence: &conf, Status: "ok", Source: string(replay.SourceCache)}}
	if !reflect.DeepEqual(c4, wantC4) {
		t.Errorf("c4:\ngot  %+v\nwant %+v", c4, wantC4)
	}
	if l := got[len(got)-1]; l.Label != "match" {
		t.Errorf("c5 label %q, want match", l.Label)
	}

	var groups []string
	for _, c := range ByCase(got) {
		var rules []string
		for _, d := range c.Rules {
			rules = append(rules, d.RuleID)
		}
		groups = append(groups, fmt.Sprint(c.CaseID, rules))
	}
	wantGroups := []string{"c1[r1]", "c9[r1]", "c2[r1]", "c0[r8 r9]", "c4[r1]", "c10[r1]", "c3[r1]", "c5[r1]"}
	if !reflect.DeepEqual(groups, wantGroups) {
		t.Errorf("ByCase: got %v, want %v", groups, wantGroups)
	}
}

// The order does not depend on the order results arrive in.
func TestDisagreementsOrderIndependent(t *testing.T) {
	t.Parallel()
	rs := disagreementResults()
	first := Disagreements(judgeA, judgeB, slices.Values(rs))
	slices.Reverse(rs)
	second := Disagreements(judgeA, judgeB, slices.Values(rs))
	if !reflect.DeepEqual(first, second) {
		t.Errorf("reversed input changed the result:\n%+v\n%+v", first, second)
	}
	// Swapping the roles swaps the sides, not the set or the order.
	swapped := Disagreements(judgeB, judgeA, slices.Values(rs))
	if len(swapped) != len(first) {
		t.Fatalf("swapped: %d disagreements, want %d", len(swapped), len(first))
	}
	for i := range first {
		if swapped[i].CaseID != first[i].CaseID || swapped[i].Baseline.Judge != judgeB || !reflect.DeepEqual(swapped[i].Candidate, first[i].Baseline) {
			t.Errorf("swapped[%d] = %+v, want the mirror of %+v", i, swapped[i], first[i])
		}
	}
	if got := Disagreements(judgeA, judgeB, slices.Values([]*replay.Result(nil))); len(got) != 0 {
		t.Errorf("no results: %v", got)
	}
}
