package metrics

import "testing"

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

func TestS18Explore(t *testing.T) {
	units, traffic := pddUnits()
	for _, c := range []struct{ name string; f ratioFn }{{"precision", precisionFn}, {"recall", recallFn}} {
		w := designRatio(units, 0.95, c.f, true)
		lo, hi, ok := drawnInterval(units, traffic, c.f, *w.Estimate, 0.95)
		t.Logf("%s: est %.4f two-phase [%.4f, %.4f] draws [%.4f, %.4f] ok=%v few=%v sessions=%v", c.name, *w.Estimate, *w.Lo, *w.Hi, lo, hi, ok, w.few, w.Sessions)
	}
}
