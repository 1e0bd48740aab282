package metrics

import (
	"fmt"
	"math"
	"testing"

	"github.com/apeval/apeval/replay"
)

// The q-values' family is exactly the figures a comparison reports with a
// p-value. By hand: a rule's fire rate p 0.01, its recall p 0.04 (replaced
// by a weighted figure with p 0.03), its precision p 0.20 (replaced by a
// weighted figure without p), the total's fire rate p 0.04. After the
// replacement the family is {0.01, 0.03, 0.04}, m = 3:
// sorted 0.01, 0.03, 0.04 → 0.01·3/1 = 0.03, 0.03·3/2 = 0.045, 0.04·3/3 = 0.04,
// made monotone from the top: q = 0.03, 0.04, 0.04. Before the fix the
// family was the four unweighted p-values (m = 4: q 0.04, 0.0533, 0.0533,
// 0.0533 for 0.01, 0.04, 0.04, 0.20) and the weighted recall kept the q of
// the p it no longer shows.
func TestCompareQValuesOverTheReportedTests(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	c := &Comparison{
		Rules: []*RuleComparison{{RuleID: "r", Figures: []Figure{
			{Figure: "fire_rate", PValue: p(0.01)},
			{Figure: "recall", PValue: p(0.04)},
			{Figure: "precision", PValue: p(0.20)},
		}}},
		Total: &RuleComparison{RuleID: AllRules, Figures: []Figure{{Figure: "fire_rate", PValue: p(0.04)}}},
	}
	c.adjust()
	for i, want := range []float64{0.04, 0.16 / 3, 0.20} {
		if q := c.Rules[0].Figures[i].QValue; q == nil || math.Abs(*q-want) > 1e-12 {
			t.Errorf("before: %s q %v, want %g", c.Rules[0].Figures[i].Figure, q, want)
		}
	}
	// The labeled sample replaces recall and precision.
	c.Rules[0].Figures[1].PValue, c.Rules[0].Figures[1].Test = p(0.03), "weighted_paired"
	c.Rules[0].Figures[2].PValue, c.Rules[0].Figures[2].Test = nil, "weighted"
	c.adjust()
	for _, tt := range []struct {
		f    *Figure
		want float64
	}{{&c.Rules[0].Figures[0], 0.03}, {&c.Rules[0].Figures[1], 0.04}, {&c.Total.Figures[0], 0.04}} {
		if tt.f.QValue == nil || math.Abs(*tt.f.QValue-tt.want) > 1e-12 {
			t.Errorf("%s q %v, want %g", tt.f.Figure, tt.f.QValue, tt.want)
		}
	}
	if q := c.Rules[0].Figures[2].QValue; q != nil {
		t.Errorf("precision shows no p but keeps q %g", *q)
	}
	if c.Tests != 3 {
		t.Errorf("tests %d, want 3", c.Tests)
	}
}

// Through ApplySample: after --labels replaces a comparison's recall,
// false-positive rate and precision, every figure with a p-value has the
// q-value of the reported family, and none without one keeps a q-value.
// Dataset labels on the 6 pairs only A fires on make the unweighted
// false-positive rate a test (p = 2·0.5⁶) that the weighted one replaces.
func TestApplySampleQValuesOverTheReportedTests(t *testing.T) {
	t.Parallel()
	var rs []*replay.Result
	add := func(prefix string, n int, a, b bool, label string) {
		for i := range n {
			id := fmt.Sprintf("%s%d", prefix, i)
			for _, j := range []struct {
				name string
				got  bool
			}{{"A", a}, {"B", b}} {
				rs = append(rs, &replay.Result{CaseID: id, SessionID: "s-" + id, Judge: j.name,
					Rules: []replay.RuleResult{withBaseline(rr("r", "dangerous", "judge", res(j.got), label, "ok", j.got, 0), res(b))}})
			}
		}
	}
	add("mm", 30, true, true, "")
	add("mn", 6, true, false, "no_match")
	add("nm", 9, false, true, "")
	add("nn", 60, false, false, "")
	tab := NewPairTable([]string{"A", "B"}, nil)
	for _, r := range rs {
		tab.Add(r)
	}
	s := closeAll(rs, "B")
	labels := []SampleLabel{
		{CaseID: "mm0", RuleID: "r", Stratum: "A:match B:match", StratumSize: 30, Match: true},
		{CaseID: "mm1", RuleID: "r", Stratum: "A:match B:match", StratumSize: 30, Match: true},
		{CaseID: "nm0", RuleID: "r", Stratum: "A:no_match B:match", StratumSize: 9, Match: true},
		{CaseID: "nm1", RuleID: "r", Stratum: "A:no_match B:match", StratumSize: 9, Match: true},
		{CaseID: "nm2", RuleID: "r", Stratum: "A:no_match B:match", StratumSize: 9, Match: true},
		{CaseID: "nn0", RuleID: "r", Stratum: "A:no_match B:no_match", StratumSize: 60, Match: false},
		{CaseID: "nn1", RuleID: "r", Stratum: "A:no_match B:no_match", StratumSize: 60, Match: false},
	}
	s.ApplySample(tab, labels)
	c := s.Compare("B", "A")
	var ps []float64
	var fs []*Figure
	weighted := 0
	for _, rc := range append(append([]*RuleComparison(nil), c.Rules...), c.Total) {
		for i := range rc.Figures {
			f := &rc.Figures[i]
			if f.Test == "weighted_paired" && f.PValue != nil {
				weighted++
			}
			if f.PValue == nil {
				if f.QValue != nil {
					t.Errorf("%s %s: no p but q %g", rc.RuleID, f.Figure, *f.QValue)
				}
				continue
			}
			ps, fs = append(ps, *f.PValue), append(fs, f)
		}
	}
	for _, sl := range c.Slices {
		for _, rc := range sl.Rules {
			for i := range rc.Figures {
				if rc.Figures[i].PValue != nil {
					ps, fs = append(ps, *rc.Figures[i].PValue), append(fs, &rc.Figures[i])
				}
			}
		}
	}
	if weighted == 0 {
		t.Fatalf("no weighted figure with a p-value: the test would prove nothing\n%+v", c.Rules[0].Figures)
	}
	if c.Tests != len(ps) {
		t.Errorf("tests %d, reported p-values %d", c.Tests, len(ps))
	}
	for i, q := range BenjaminiHochberg(ps) {
		if fs[i].QValue == nil || math.Abs(*fs[i].QValue-q) > 1e-12 {
			t.Errorf("%s (%s) p %g: q %v, want %g over the %d reported tests", fs[i].Figure, fs[i].Test, ps[i], fs[i].QValue, q, len(ps))
		}
	}
}
