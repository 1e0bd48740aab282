package metrics

import (
	"math"
	"testing"
)

// pddUnits is the sample's prod-data-destruction as the walkthrough's
// queue labels it (docs/labeling.md: label queue --budget 300 --seed 7,
// every queued pair labeled with the sample's labels) for qwen2.5:3b
// (judge A): 26 labels, and the traffic, its 27 pairs in 6 sessions.
func pddUnits() ([]SampleUnit, []TrafficPair) {
	units := []SampleUnit{
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s125-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s125-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:match B:match", StratumSize: 6, Session: "s125-data", Label: true, Match: true, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s125-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s126-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s126-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:undecided B:match", StratumSize: 2, Session: "s126-data", Label: true, Match: false, Undecided: true},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s126-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:match B:match", StratumSize: 6, Session: "s126-data", Label: true, Match: true, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s127-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s127-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:match B:match", StratumSize: 6, Session: "s127-data", Label: true, Match: true, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s127-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s128-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s128-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:undecided B:match", StratumSize: 2, Session: "s128-data", Label: true, Match: false, Undecided: true},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s128-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:match B:match", StratumSize: 6, Session: "s128-data", Label: true, Match: true, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s129-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s129-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:match B:match", StratumSize: 6, Session: "s129-data", Label: true, Match: true, Undecided: false},
		{Stratum: "A:match B:no_match", StratumSize: 1, Session: "s130-data", Label: false, Match: true, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s130-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:match B:match", StratumSize: 6, Session: "s130-data", Label: true, Match: true, Undecided: false},
		{Stratum: "A:no_match B:no_match", StratumSize: 17, Session: "s130-data", Label: false, Match: false, Undecided: false},
		{Stratum: "A:no_match B:match", StratumSize: 1, Session: "s130-data", Label: true, Match: false, Undecided: false},
	}
	traffic := []TrafficPair{
		{Stratum: "A:no_match B:no_match", Session: "s125-data", Match: false},
		{Stratum: "A:no_match B:no_match", Session: "s125-data", Match: false},
		{Stratum: "A:match B:match", Session: "s125-data", Match: true},
		{Stratum: "A:no_match B:no_match", Session: "s125-data", Match: false},
		{Stratum: "A:no_match B:no_match", Session: "s126-data", Match: false},
		{Stratum: "A:no_match B:no_match", Session: "s126-data", Match: false},
		{Stratum: "A:undecided B:match", Session: "s126-data", Match: false},
		{Stratum: "A:no_match B:no_match", Session: "s126-data", Match: false},
		{Stratum: "A:match B:match", Session: "s126-data", Match: true},
		{Stratum: "A:no_match B:no_match", Session: "s127-data", Match: false},
		{Stratum: "A:no_match B:no_match", Session: "s127-data", Match: false},
		{Stratum: "A:match B:match", Session: "s127-data", Match: true},
		{Stratum: "A:no_match B:no_match", Session: "s127-data", Match: false},
		{Stratum: "A:no_match B:no_match", Session: "s128-data", Match: false},
		{Stratum: "A:no_match B:no_match", Session: "s128-data", Match: false},
		{Stratum: "A:undecided B:match", Session: "s128-data", Match: false},
		{Stratum: "A:no_match B:no_match", Session: "s128-data", Match: false},
		{Stratum: "A:match B:match", Session: "s128-data", Match: true},
		{Stratum: "A:no_match B:no_match", Session: "s129-data", Match: false},
		{Stratum: "A:no_match B:no_match", Session: "s129-data", Match: false},
		{Stratum: "A:match B:match", Session: "s129-data", Match: true},
		{Stratum: "A:no_match B:no_match", Session: "s129-data", Match: false},
		{Stratum: "A:match B:no_match", Session: "s130-data", Match: true},
		{Stratum: "A:no_match B:no_match", Session: "s130-data", Match: false},
		{Stratum: "A:match B:match", Session: "s130-data", Match: true},
		{Stratum: "A:no_match B:no_match", Session: "s130-data", Match: false},
		{Stratum: "A:no_match B:match", Session: "s130-data", Match: false},
	}
	return units, traffic
}

// TestSampleFiguresSmallRuleTwoPhase: the walkthrough's
// prod-data-destruction for qwen2.5:3b (27 pairs in 6 sessions, 26 of
// them labeled by the queue; pddUnits) prints the two-phase interval,
// not the draws, and says why: there the draws gave recall [0.592,
// 0.990] while the same labels plus the 27th (an uninformative
// no_match) gave the census [0.323, 0.893] (docs/statistics.md, "The
// draws on a small rule's few sessions"). The bounds are report
// --labels' on the walkthrough since: precision 0.857 [0.399, 0.982],
// recall 0.667 [0.400, 0.933].
func TestSampleFiguresSmallRuleTwoPhase(t *testing.T) {
	units, traffic := pddUnits()
	for _, c := range []struct {
		name           string
		two            WeightedRatio
		f              ratioFn
		est, lo, hi    float64
		drawsLoAtLeast float64
	}{
		{"precision", WeightedPrecision(units, 0.95), precisionFn, 6.0 / 7, 0.399, 0.982, 0.70},
		{"recall", WeightedRecall(units, 0.95), recallFn, 6.0 / 9, 0.400, 0.933, 0.55},
	} {
		got := c.two.withDraws(units, traffic, "", c.f, 0.95)
		if got.Method != IntervalTwoPhase || got.MethodWhy != "the rule's recorded pairs in the labeled strata come from 6 sessions, fewer than the draws need (40)" {
			t.Errorf("%s: method %q (%q), want the two-phase design for 6 sessions", c.name, got.Method, got.MethodWhy)
		}
		if math.Abs(*got.Estimate-c.est) > 1e-12 || *got.Lo != *c.two.Lo || *got.Hi != *c.two.Hi ||
			math.Abs(*got.Lo-c.lo) > 0.0005 || math.Abs(*got.Hi-c.hi) > 0.0005 {
			t.Errorf("%s: %v [%v, %v], want %v [%v, %v] (two-phase [%v, %v])", c.name, *got.Estimate, *got.Lo, *got.Hi, c.est, c.lo, c.hi, *c.two.Lo, *c.two.Hi)
		}
		// What the draws alone gave: a lower bound far above the
		// census's (0.323 recall, 0.443 precision).
		if lo, _, ok := drawnInterval(units, traffic, c.f, c.est, 0.95); !ok || lo < c.drawsLoAtLeast {
			t.Errorf("%s: the draws' lower bound %v (ok %v); the case this test keeps had it above %v", c.name, lo, ok, c.drawsLoAtLeast)
		}
	}
}
