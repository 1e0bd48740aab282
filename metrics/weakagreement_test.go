package metrics

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
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
