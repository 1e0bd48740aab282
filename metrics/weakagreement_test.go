package metrics

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

func TestWeakAgreementAgainstPeoplesFirstLabel(t *testing.T) {
	at := func(s int) *time.Time { x := time.Date(2026, 12, 1, 0, 0, s, 0, time.UTC); return &x }
	line := func(c int, label datasets.Label, who string, s int) datasets.SampleLabel {
		return datasets.SampleLabel{CaseID: fmt.Sprintf("c%d", c), RuleID: "R", Stratum: "A:match", StratumSize: 10, Order: c,
			Label: label, Labeler: who, Time: at(s)}
	}
	m, n := datasets.LabelMatch, datasets.LabelNoMatch
	var weak, people []datasets.SampleLabel
	for c, l := range []datasets.Label{m, m, n, n, m, n} {
		weak = append(weak, line(c, l, "", 0))
	}
	// People agree on c0..c3; on c4 the first label by time (no_match)
	// counts, not bob's later match; c5's only label is a skip; c6 has no
	// weak label.
	for c, l := range []datasets.Label{m, m, n, n} {
		people = append(people, line(c, l, "ann", 10+c))
	}
	people = append(people, line(4, m, "bob", 30), line(4, n, "ann", 20), line(5, datasets.SampleSkip, "ann", 21), line(6, m, "ann", 22))
	rules, err := WeakAgreement(weak, people)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 1 || rules[0].RuleID != "R" {
		t.Fatalf("rules %+v", rules)
	}
	k := rules[0].People
	// 5 pairs both labeled (weak m,m,n,n,m; people m,m,n,n,n), 4 agree:
	// observed 0.8, chance 0.6·0.4 + 0.4·0.6 = 0.48, κ = 0.32/0.52.
	if k.Items != 5 || k.Observed != 0.8 || k.Method != "cohen" || k.Kappa == nil || math.Abs(*k.Kappa-0.32/0.52) > 1e-12 {
		t.Errorf("κ %+v, want cohen over 5 pairs, 0.8 observed, κ %.6f", k, 0.32/0.52)
	}
	if got, _ := WeakAgreement(nil, people); got != nil {
		t.Errorf("no weak labels: %+v", got)
	}
}

// TestAgreementOfKeepsWeakLabelsOutOfThePeople: weak lines are compared
// with the people and with the judge, never counted among the people.
func TestAgreementOfKeepsWeakLabelsOutOfThePeople(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	judgeSays := []bool{true, true, false, false}
	table := NewPairTable([]string{"J"}, nil)
	for i, m := range judgeSays {
		res := judge.NoMatch
		if m {
			res = judge.Match
		}
		table.Add(&replay.Result{CaseID: fmt.Sprintf("c%d", i), SessionID: fmt.Sprintf("s%d", i), Judge: "J",
			Rules: []replay.RuleResult{{RuleID: "R", Result: res, Status: judge.StatusOK}}})
	}
	lab := func(m bool) datasets.Label {
		if m {
			return datasets.LabelMatch
		}
		return datasets.LabelNoMatch
	}
	var lines []datasets.SampleLabel
	add := func(who, source string, labels []bool) {
		for i, m := range labels {
			at := t0.Add(time.Duration(len(lines)) * time.Minute)
			lines = append(lines, datasets.SampleLabel{CaseID: fmt.Sprintf("c%d", i), RuleID: "R", Stratum: "A:x", StratumSize: 4,
				Order: i + 1, Label: lab(m), Labeler: who, Time: &at, LabelSource: source})
		}
	}
	add("ann", "", judgeSays)
	add("weak", datasets.LabelSourceWeak, []bool{true, false, false, true}) // 2 of 4 agree with ann and the judge
	a, err := AgreementOf(lines, table, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Rules) != 1 || len(a.Rules[0].Labelers) != 1 || a.Rules[0].Labelers[0] != "ann" {
		t.Fatalf("people = %+v, want ann alone", a.Rules)
	}
	if len(a.Weak) != 1 || a.Weak[0].People.Items != 4 || a.Weak[0].People.Observed != 0.5 {
		t.Errorf("weak vs people = %+v, want 4 pairs, 0.5 observed", a.Weak)
	}
	if len(a.JudgesWeak) != 1 || len(a.JudgesWeak[0].Judges) != 1 {
		t.Fatalf("judges vs weak = %+v", a.JudgesWeak)
	}
	if k := a.JudgesWeak[0].Judges[0]; k.Between != "J vs weak labels" || k.Items != 4 || k.Observed != 0.5 {
		t.Errorf("judge vs weak = %+v", k)
	}
	without, err := AgreementOf(lines, nil, 0.95)
	if err != nil || without.JudgesWeak != nil || len(without.Weak) != 1 {
		t.Errorf("without a run: %+v, %v", without, err)
	}
}

func TestAddWeakResultsAndQueueLines(t *testing.T) {
	pairs := []QueuePair{{CaseID: "a", RuleID: "R", Results: []string{QueueMatch}}, {CaseID: "b", RuleID: "R", Results: []string{QueueNoMatch}}}
	AddWeakResults(pairs, map[[2]string]datasets.Label{{"a", "R"}: datasets.LabelNoMatch})
	if got := fmt.Sprint(pairs[0].Results, pairs[1].Results); got != "[match no_match] [no_match undecided]" {
		t.Errorf("results = %s", got)
	}
	q := &Queue{Items: []QueueItem{{CaseID: "a", RuleID: "R", Stratum: "A:match W:no_match", StratumSize: 3, Order: 1, Overlap: true}}}
	l := q.Lines()
	if len(l) != 1 || l[0].Schema != datasets.SampleLabelsSchema || l[0].Stratum != "A:match W:no_match" || l[0].StratumSize != 3 || !l[0].Overlap || l[0].Label != "" {
		t.Errorf("lines = %+v", l)
	}
}
