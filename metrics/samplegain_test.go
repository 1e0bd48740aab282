package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// The labeled recall gain's bounds and its test are one computation
// (gainTest): on the few-sessions data with every positive labeled, the
// weighted t gave p = 1.4e-4 and PASS beside [−0.583, 0.966] over 4
// sessions and p = 8e-6 beside [−0.270, 0.952] over 6. Now 0 lies below
// the one-sided lower bound exactly when the one-sided p < 0.05, the
// verdict with them; over 4 sessions no test reaches 0.05 (as the
// unweighted sign flip over 4 cannot: 1/16); over 6 the sessions' sign
// flip on census labels is the unweighted path's own, one-sided both.
func TestLabeledGainIntervalIsItsTest(t *testing.T) {
	t.Parallel()
	const key = "R2 " + CriterionDangerousRecall
	for _, k := range []int{4, 6} {
		u, w := fewSessionsRun(k, 0.3)
		c := w[key]
		if c.PValue == nil || c.Lo == nil || c.Hi == nil {
			t.Fatalf("%d sessions: %+v", k, c)
		}
		p, lo, hi := *c.PValue, *c.Lo, *c.Hi
		if (lo > 0) != (p < 0.05) || (c.Status == StatusPass) != (lo > 0) || lo < -1 || hi > 1 {
			t.Errorf("%d sessions: %s p=%g [%g, %g]: bounds, test and verdict disagree", k, c.Status, p, lo, hi)
		}
		if up := *u[key].PValue; math.Abs(p-up) > 1e-12 {
			t.Errorf("%d sessions: one-sided p %g, want the unweighted sign flip's one-sided %g", k, p, up)
		}
		if c.Bounds != "one-sided 95% bounds" || !strings.Contains(c.Reason, "one-sided 95% bounds [") || strings.Contains(c.Reason, "CI") {
			t.Errorf("%d sessions: bounds %q: %s", k, c.Bounds, c.Reason)
		}
		switch k {
		case 4:
			if c.Status != StatusInconclusive || p < 0.0625 || *c.MoreSessions != 1 {
				t.Errorf("4 sessions: %s p=%g +%v sessions: %s", c.Status, p, c.MoreSessions, c.Reason)
			}
		case 6:
			if c.Status != StatusPass || math.Abs(p-1.0/64) > 1e-12 || lo <= 0 {
				t.Errorf("6 sessions: %s p=%g [%g, %g]: %s", c.Status, p, lo, hi, c.Reason)
			}
		}
	}
}

// A hand-computed case: 6 sessions of 4 labeled positives, the judge alone
// catching 3, 2, 2, 1, 1 and 0 of them (the baseline none). R = 9/24 =
// 0.375. The sessions' sign flip, one-sided: flipping the sessions F
// reaches T from above exactly when Σ_F a ≤ 0, i.e. F empty or the
// session with 0 alone: p = 2/64 = 1/32. Inverted at 0.05 (3.2 of 64
// patterns): sorted by t_F = Σ_F a/Σ_F b, the nothing-flipped pattern,
// {0} at 0 and {1, 0}, {1', 0} at 1/8 make 4: lo = 1/8; from the top,
// {3} at 3/4 and {3, 2}, {3, 2'} at 5/8: hi = 5/8. The weighted t (V =
// 6/5·5.5/24², t = 3.50 on 5 df, one-sided p = 0.0085) lies inside:
// [0.159, 0.591]. The hull is the flip's, PASS.
func TestLabeledGainHandComputed(t *testing.T) {
	t.Parallel()
	g := flipGain([]float64{3, 2, 2, 1, 1, 0}, []float64{4, 4, 4, 4, 4, 4}, 0.05)
	if math.Abs(g.pG-1.0/32) > 1e-12 || math.Abs(g.lo-0.125) > 1e-12 || math.Abs(g.hi-0.625) > 1e-12 {
		t.Errorf("flip: p %g [%g, %g], want 1/32 [0.125, 0.625]", g.pG, g.lo, g.hi)
	}
	var us []SampleUnit
	for s, hits := range []int{3, 2, 2, 1, 1, 0} {
		for i := range 4 {
			us = append(us, SampleUnit{Stratum: CensusStratum, Session: fmt.Sprint("s", s), Label: true, Match: i < hits})
		}
	}
	d := WeightedRecallDiff(us, 0.95)
	se := math.Sqrt(6.0 / 5 * 5.5 / 576)
	if math.Abs(*d.Estimate-0.375) > 1e-12 || math.Abs(d.Var-se*se) > 1e-12 || d.DF != 5 {
		t.Fatalf("estimate %g var %g df %g, want 0.375, %g, 5", *d.Estimate, d.Var, d.DF, se*se)
	}
	lo, hi, p, test, _ := d.oneSided(0.05)
	if math.Abs(p-1.0/32) > 1e-12 || math.Abs(lo-0.125) > 1e-12 || math.Abs(hi-0.625) > 1e-12 || test != GainTestFlip {
		t.Errorf("p %g (%s) [%g, %g], want 1/32 [0.125, 0.625]", p, test, lo, hi)
	}
	// A comparison's Δ stays two-sided: p 2/32, and at 0.025 a side the
	// flip's lower bound is 0 (2 patterns of 64 at t ≤ 0 reach 1.6).
	if math.Abs(*d.P-1.0/16) > 1e-12 || math.Abs(*d.Lo) > 1e-12 || math.Abs(*d.Hi-0.75) > 1e-12 {
		t.Errorf("two-sided: p %g [%g, %g], want 1/16 [0, 0.75]", *d.P, *d.Lo, *d.Hi)
	}
	c := SampleDangerousRecall(d, replay.ClassDangerous, true, replay.DefaultKillCriteria())
	if c.Status != StatusPass || *c.Lo != lo || *c.Hi != hi {
		t.Errorf("%s: %s", c.Status, c.Reason)
	}
}

// On random label sets — census and queue-like strata, 1–30 sessions,
// few and many discordant labels — the one-sided bounds, their p and the
// verdict always agree: 0 below the lower bound exactly when p < 0.05,
// PASS exactly then (with 3 sessions or more), FAIL only when the upper
// bound lies below 0; a comparison's two-sided Δ likewise.
func TestLabeledGainAgreesOnRandomSets(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 9))
	crit := replay.DefaultKillCriteria()
	for range 400 {
		k := 1 + rng.IntN(30)
		n := 1 + rng.IntN(120)
		hit := rng.Float64()
		var us []SampleUnit
		for i := range n {
			st, size := CensusStratum, int64(0)
			if rng.IntN(2) == 0 {
				st, size = fmt.Sprint("h", i%3), int64(5+rng.IntN(60))
			}
			l := rng.Float64() < 0.6
			us = append(us, SampleUnit{Stratum: st, StratumSize: size, Session: fmt.Sprint(rng.IntN(k)), Label: l,
				Match: rng.Float64() < hit, Other: rng.Float64() < 0.5})
		}
		d := WeightedRecallDiff(us, crit.Confidence)
		if d.Estimate == nil {
			continue
		}
		p2, lo2, hi2 := *d.P, *d.Lo, *d.Hi
		if (lo2 > 0 || hi2 < 0) != (p2 < 0.05) || lo2 < -1 || hi2 > 1 {
			t.Fatalf("two-sided: est %g p %g (%s) [%g, %g]: interval and test disagree", *d.Estimate, p2, d.Test, lo2, hi2)
		}
		c := SampleDangerousRecall(d, replay.ClassDangerous, true, crit)
		if d.cgain != nil {
			// Every unit a census label: the unweighted path's test
			// (TestBothPathsDecideAlike).
			continue
		}
		lo, hi, p, test, _ := d.oneSided(0.05)
		if (lo > 0) != (p < 0.05) || lo < -1 || hi > 1 || lo > *d.Estimate || hi < *d.Estimate || lo < lo2 || hi > hi2 {
			t.Fatalf("%d sessions, %d units: est %g p %g (%s) [%g, %g] (two-sided [%g, %g]): bounds and test disagree", k, n, *d.Estimate, p, test, lo, hi, lo2, hi2)
		}
		if *c.PValue != p || *c.Lo != lo || *c.Hi != hi {
			t.Fatalf("criterion p %g [%g, %g], want %g [%g, %g]", *c.PValue, *c.Lo, *c.Hi, p, lo, hi)
		}
		if (c.Status == StatusPass) != (lo > 0 && !FewSessions(d.clusteredSessions())) || (c.Status == StatusFail && hi > 0) {
			t.Fatalf("%s beside p %g [%g, %g]: %s", c.Status, p, lo, hi, c.Reason)
		}
	}
}

// The labeled proportion with few sessions takes the unweighted path's
// few-session rule (fewSessionGuard): on census labels, 240 cases in 3,
// 4 or 6 sessions at precision about 0.995, its interval holds the
// unweighted one and both are INCONCLUSIVE against 0.9 (the labeled one
// was [0.921, 0.9998] PASS over 3 sessions, the unweighted [0.611, 1]).
func TestLabeledFewSessionsGuard(t *testing.T) {
	t.Parallel()
	const key = "R1 " + CriterionPrecisionMin
	for _, k := range []int{3, 4, 6} {
		u, w := fewSessionsRun(k, 0.995)
		cu, cw := u[key], w[key]
		if cw.Status != cu.Status || cw.Status != StatusInconclusive || *cw.Lo > *cu.Lo+1e-9 || *cw.Hi < *cu.Hi-1e-9 {
			t.Errorf("%d sessions: labeled %s [%g, %g], unweighted %s [%g, %g]", k, cw.Status, *cw.Lo, *cw.Hi, cu.Status, *cu.Lo, *cu.Hi)
		}
	}
}
