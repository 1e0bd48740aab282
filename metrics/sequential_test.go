package metrics

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// seqRun feeds sessions (sizes m, rates Beta around mu with ICC icc) to a
// confidence sequence, looking after every batch of `batch` sessions, up
// to `looks` looks; it returns the first decision and the sessions it
// took (0 when none).
func seqRun(rng *rand.Rand, mu, icc float64, m, batch, looks int, name string, thr float64) (Status, int) {
	cs := NewConfidenceSequence(0.05)
	for range looks {
		for range batch {
			p := sessionRate(rng, mu, icc)
			y := 0
			for range m {
				if rng.Float64() < p {
					y++
				}
			}
			cs.Add(float64(y) / float64(m))
		}
		if d := cs.Decide(name, thr); d.Status != StatusInconclusive {
			return d.Status, d.N
		}
	}
	return StatusInconclusive, 0
}

// TestCalibrationSequential: with the truth exactly at the threshold, no
// decision is right, and over 20 looks the sequence decides at most 5 %
// of the time; with a good judge it decides, and the median sessions to
// its decision are reported beside the fixed-n plan's.
func TestCalibrationSequential(t *testing.T) {
	t.Parallel()
	n, full := calibrationN()
	slack := 0.0
	if !full {
		n = 150
		slack = smokeSlack(0.05, n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| sequential, %d replicates, 20 looks | false decisions (goal ≤ 0.05) |\n|---|---|\n", n)
	for i, s := range []struct {
		name         string
		mu, icc, thr float64
		crit         string
		m, batch     int
	}{
		{"precision exactly 0.90, sessions of 10, ICC 0.1, a look every 10 sessions", 0.9, 0.1, 0.9, CriterionPrecisionMin, 10, 10},
		{"unknown rate exactly 0.10, sessions of 5, ICC 0.3, a look every 5 sessions", 0.1, 0.3, 0.1, CriterionUnknownRateMax, 5, 5},
	} {
		rng := rand.New(rand.NewPCG(uint64(i+1), 0x5e9))
		wrong := 0
		for range n {
			if st, _ := seqRun(rng, s.mu, s.icc, s.m, s.batch, 20, s.crit, s.thr); st != StatusInconclusive {
				wrong++
			}
		}
		rate := float64(wrong) / float64(n)
		fmt.Fprintf(&b, "| %s | %.3f |\n", s.name, rate)
		if rate > 0.05+slack {
			t.Errorf("%s: false decisions %.3f", s.name, rate)
		}
	}
	// A good judge: precision 0.97 against 0.90, sessions of 10, ICC 0.1,
	// a look every 10 sessions, up to 40 looks.
	rng := rand.New(rand.NewPCG(9, 0x5e9))
	var sessions []float64
	decided := 0
	for range n {
		if st, k := seqRun(rng, 0.97, 0.1, 10, 10, 40, CriterionPrecisionMin, 0.9); st == StatusPass {
			decided++
			sessions = append(sessions, float64(k))
		}
	}
	p, err := PlanProportion(CriterionPrecisionMin, 0.9, PlanGuess{Rate: 0.97, ICC: 0.1, SessionSize: 10}, PlanOptions{Reps: 100, Seed: 3}, nil)
	if err != nil || p.Sessions == nil {
		t.Fatalf("plan %+v %v", p, err)
	}
	fmt.Fprintf(&b, "\n| good judge (precision 0.97 vs 0.90, sessions of 10, ICC 0.1) | value |\n|---|---|\n")
	fmt.Fprintf(&b, "| sequential: PASS within 400 sessions | %.3f |\n| sequential: median sessions to PASS | %.0f |\n| fixed n for an 80 %% chance (plan) | %d |\n",
		float64(decided)/float64(n), median(sessions), *p.Sessions)
	if decided < n/2 {
		t.Errorf("a good judge passed only %d of %d times", decided, n)
	}
	t.Log("\n" + b.String())
}

func TestConfidenceSequenceCovers(t *testing.T) {
	t.Parallel()
	cs := NewConfidenceSequence(0.05)
	if lo, hi := cs.Interval(); lo != 0 || hi != 1 {
		t.Errorf("empty: [%v, %v]", lo, hi)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	prevW := 2.0
	for range 500 {
		x := 0.0
		if rng.Float64() < 0.3 {
			x = 1
		}
		cs.Add(x)
		lo, hi := cs.Interval()
		if lo > 0.3 || hi < 0.3 || hi-lo > prevW+1e-12 {
			t.Fatalf("after %d: [%v, %v], width was %v", cs.N(), lo, hi, prevW)
		}
		prevW = hi - lo
	}
	if prevW > 0.2 {
		t.Errorf("500 values leave a width of %v", prevW)
	}
}

// TestOneSidedSequenceHoldsEachSide: each bound of a one-sided pair is its
// own sequence at α: over 150 streams of 120 Bernoulli(0.5) values looked
// at after each, the lower bound ever rises above the mean at most about
// α of the time, and the upper ever falls below it likewise (the hedged
// two-sided sequence spends α/2 a side); and it ends narrower than the
// two-sided sequence at the same α on the same values (all but a few
// streams: the running intersections differ).
func TestOneSidedSequenceHoldsEachSide(t *testing.T) {
	t.Parallel()
	const reps, mu = 150, 0.5
	rng := rand.New(rand.NewPCG(5, 6))
	above, below, narrower := 0, 0, 0
	for range reps {
		one, two := NewOneSidedSequence(0.05), NewConfidenceSequence(0.05)
		missLo, missHi := false, false
		for range 120 {
			x := 0.0
			if rng.Float64() < mu {
				x = 1
			}
			one.Add(x)
			two.Add(x)
			lo, hi := one.Interval()
			missLo = missLo || lo > mu
			missHi = missHi || hi < mu
		}
		if missLo {
			above++
		}
		if missHi {
			below++
		}
		lo1, hi1 := one.Interval()
		lo2, hi2 := two.Interval()
		if hi1-lo1 < hi2-lo2 {
			narrower++
		}
	}
	slack := smokeSlack(0.05, reps)
	if a, b := float64(above)/reps, float64(below)/reps; a > 0.05+slack || b > 0.05+slack {
		t.Errorf("lower bound above the mean %.3f, upper below %.3f of %d streams, want ≤ 0.05", a, b, reps)
	}
	if narrower < reps*95/100 {
		t.Errorf("the one-sided pair was inside and narrower than the two-sided sequence in %d of %d streams", narrower, reps)
	}
	if !NewOneSidedSequence(0.05).OneSided() || NewConfidenceSequence(0.05).OneSided() {
		t.Error("OneSided")
	}
}
