package metrics

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// censusDraw is k sessions of 80 census-labeled pairs the judge matched,
// each session's share labeled match drawn around mu with the ICC:
// the labeled units and the same counts per session.
func censusDraw(rng *rand.Rand, k int, mu, icc float64) (us []SampleUnit, ys, ms []int64) {
	ys, ms = make([]int64, k), make([]int64, k)
	for s := range k {
		p := sessionRate(rng, mu, icc)
		for range 80 {
			l := rng.Float64() < p
			us = append(us, SampleUnit{Stratum: CensusStratum, Session: fmt.Sprint(s), Label: l, Match: true})
			ms[s]++
			if l {
				ys[s]++
			}
		}
	}
	return us, ys, ms
}

// TestLabeledCensusHoldsUnweighted: on census labels the labeled
// precision's interval holds the unweighted path's (ClusteredInterval on
// the same counts) at any number of sessions, and so covers as it does.
// At 20 sessions with the sessions' rates near 1 (μ = 0.99, ICC 0.3) the
// design-based interval alone covered 0.830 (400 replicates; the
// unweighted 0.980): the smoke (200 replicates) fails on it
// (docs/statistics.md, "Not fixed: 20 sessions with skewed session
// rates" — now fixed).
func TestLabeledCensusHoldsUnweighted(t *testing.T) {
	t.Parallel()
	const reps = 200
	rng := rand.New(rand.NewPCG(20, 99))
	var cov int
	for range reps {
		us, ys, ms := censusDraw(rng, 20, 0.99, 0.3)
		w := WeightedPrecision(us, 0.95)
		l, h, _ := ClusteredInterval(ys, ms, 0.95)
		if *w.Lo > l+1e-12 || *w.Hi < h-1e-12 {
			t.Fatalf("labeled [%g, %g] does not hold the unweighted [%g, %g]", *w.Lo, *w.Hi, l, h)
		}
		if *w.Lo <= 0.99 && 0.99 <= *w.Hi {
			cov++
		}
	}
	if c, slack := float64(cov)/reps, smokeSlack(0.925, reps); c < 0.925-slack {
		t.Errorf("census, 20 sessions × 80 at μ = 0.99, ICC 0.3: labeled precision covers %.3f over %d replicates, want ≥ 0.925 (allowance %.3f)", c, reps, slack)
	}
}
