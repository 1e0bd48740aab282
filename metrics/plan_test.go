package metrics

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// independentDecideRate re-simulates a plan's setting with its own random
// numbers: n data sets of k sessions (sizes 1 + Poisson(size − 1), Beta
// session rates), each decided by ClusteredInterval and the verdict rule.
func independentDecideRate(g PlanGuess, name string, thr float64, k, n int, seed uint64) float64 {
	spec, _ := SpecOf(name)
	rng := rand.New(rand.NewPCG(seed, 0x91a2))
	var dec int
	for range n {
		var ys, ms []int64
		var Y, M int64
		for range k {
			m := int64(1)
			// Knuth's Poisson, independent of the plan's sampler.
			if l := g.SessionSize - 1; l > 0 {
				L, p := math.Exp(-l), 1.0
				for p *= rng.Float64(); p > L; p *= rng.Float64() {
					m++
				}
			}
			r := sessionRate(rng, g.Rate, g.ICC)
			var y int64
			for range m {
				if rng.Float64() < r {
					y++
				}
			}
			ys, ms = append(ys, y), append(ms, m)
			Y, M = Y+y, M+m
		}
		lo, hi, _ := ClusteredInterval(ys, ms, 0.95)
		if spec.Direction.Decide(thr, Evidence{Estimate: float64(Y) / float64(M), Lo: lo, Hi: hi}).Status != StatusInconclusive {
			dec++
		}
	}
	return float64(dec) / float64(n)
}

// TestPlanPredictsTheDecisionRate: the plan's sessions and its rate at a
// budget agree with an independent simulation within ±0.1.
func TestPlanPredictsTheDecisionRate(t *testing.T) {
	t.Parallel()
	// Monte Carlo error: 400 data sets in the plan and 400 (200 under
	// -short) independent ones put 2 standard errors of the difference at
	// about 0.07 (0.09) for a rate near 0.5, inside the ±0.1 goal.
	n := 400
	if testing.Short() {
		n = 200
	}
	for _, tc := range []struct {
		name string
		thr  float64
		g    PlanGuess
		bud  int64
	}{
		{CriterionPrecisionMin, 0.9, PlanGuess{Rate: 0.95, ICC: 0.1, SessionSize: 8}, 20},
		{CriterionUnknownRateMax, 0.1, PlanGuess{Rate: 0.04, ICC: 0.2, SessionSize: 10}, 15},
	} {
		p, err := PlanProportion(tc.name, tc.thr, tc.g, PlanOptions{Budget: tc.bud, Reps: 400, Seed: 7}, nil)
		if err != nil || p.Sessions == nil {
			t.Fatalf("%s: %+v %v", tc.name, p, err)
		}
		got := independentDecideRate(tc.g, tc.name, tc.thr, int(*p.Sessions), n, 11)
		if math.Abs(got-*p.DecideRate) > 0.1 || got < 0.7 {
			t.Errorf("%s: plan says %d sessions decide %.2f, simulated %.2f", tc.name, *p.Sessions, *p.DecideRate, got)
		}
		atBudget := independentDecideRate(tc.g, tc.name, tc.thr, int(tc.bud), n, 12)
		if pred := *p.BudgetPass + *p.BudgetFail; math.Abs(atBudget-pred) > 0.1 {
			t.Errorf("%s: at %d sessions plan says %.2f, simulated %.2f", tc.name, tc.bud, pred, atBudget)
		}
		t.Logf("%s: %s (independent: %.2f at the plan, %.2f at the budget)", tc.name, p.Reason, got, atBudget)
	}
}

func TestPlanRejectsImpossibleGuesses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		g    PlanGuess
		want string
	}{
		{PlanGuess{Rate: 1.2, SessionSize: 1}, "rate 1.2 is outside [0, 1]"},
		{PlanGuess{Rate: 0.9, ICC: -0.1, SessionSize: 1}, "ICC -0.1 is outside [0, 1)"},
		{PlanGuess{Rate: 0.9, SessionSize: 0}, "session size 0 is below 1"},
	} {
		if _, err := PlanProportion(CriterionPrecisionMin, 0.9, tc.g, PlanOptions{}, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.g, err, tc.want)
		}
	}
	// At the threshold no number of sessions decides.
	p, err := PlanProportion(CriterionPrecisionMin, 0.9, PlanGuess{Rate: 0.9, SessionSize: 1}, PlanOptions{Reps: 20, MaxSessions: 64}, nil)
	if err != nil || p.Sessions != nil || !strings.Contains(p.Reason, "too close to 0.9") {
		t.Errorf("at the threshold: %+v %v", p, err)
	}
}
