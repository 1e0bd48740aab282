package metrics

import (
	"math"
	"testing"
)

// PairedBinary: sessions given one by one or grouped by Sessions give the
// same figure; with one discordant unit per session the test is exact
// McNemar and the interval Newcombe's.
func TestPairedBinary(t *testing.T) {
	var one []PairedCounts
	for range 5 {
		one = append(one, PairedCounts{BaseOnly: 1, Neither: 2})
	}
	one = append(one, PairedCounts{CandOnly: 1, Both: 3})
	one = append(one, PairedCounts{Both: 4, Neither: 4})
	grouped := []PairedCounts{{BaseOnly: 1, Neither: 2, Sessions: 5}, {CandOnly: 1, Both: 3}, {Both: 4, Neither: 4}}
	f1, f2 := PairedBinary("recall", one, 0.95, 1), PairedBinary("recall", grouped, 0.95, 1)
	if f1.N != 5+10+1+3+8 || f2.N != f1.N {
		t.Fatalf("n %d and %d, want 27", f1.N, f2.N)
	}
	if want := McNemarTwoSided(5, 1); math.Abs(*f1.PValue-want) > 1e-15 || math.Abs(*f2.PValue-want) > 1e-15 {
		t.Errorf("p %g and %g, want exact McNemar %g", *f1.PValue, *f2.PValue, want)
	}
	// a both = 7, b = 5, c = 1, d = 14: baseline (a+b)/n, candidate (a+c)/n.
	if math.Abs(*f1.Baseline-12.0/27) > 1e-15 || math.Abs(*f1.Candidate-8.0/27) > 1e-15 || math.Abs(*f1.Delta+4.0/27) > 1e-15 {
		t.Errorf("baseline %g candidate %g delta %g", *f1.Baseline, *f1.Candidate, *f1.Delta)
	}
	est, lo, hi := NewcombePaired(7, 1, 5, 14, zScore(0.95))
	if *f2.Delta != est || *f2.DeltaLo != lo || *f2.DeltaHi != hi {
		t.Errorf("grouped interval %g [%g, %g], want %g [%g, %g]", *f2.Delta, *f2.DeltaLo, *f2.DeltaHi, est, lo, hi)
	}
	// Two discordant units in one session: the clustered sign flip.
	c := PairedBinary("recall", []PairedCounts{{BaseOnly: 2}, {BaseOnly: 1}, {CandOnly: 1}}, 0.95, 1)
	if c.PValue == nil || *c.PValue <= McNemarTwoSided(3, 1)-1e-12 {
		t.Errorf("clustered p %v: want at least exact McNemar's %g (fewer independent sessions)", c.PValue, McNemarTwoSided(3, 1))
	}
}
