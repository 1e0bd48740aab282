package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apeval/apeval/replay"
)

// The labeled recall gain's interval and its test are one computation
// (gainTest): on the few-sessions data with every positive labeled, the
// weighted t gave p = 1.4e-4 and PASS beside [−0.583, 0.966] over 4
// sessions and p = 8e-6 beside [−0.270, 0.952] over 6. Now 0 lies outside
// the interval exactly when p < 0.05, the verdict with them; over 4
// sessions no test reaches 0.05 (as the unweighted sign flip over 4
// cannot); over 6 the sessions' sign flip on census labels is the
// unweighted path's own (two-sided: twice its one-sided p).
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
			t.Errorf("%d sessions: %s p=%g [%g, %g]: interval, test and verdict disagree", k, c.Status, p, lo, hi)
		}
		if up := *u[key].PValue; math.Abs(p-min(1, 2*up)) > 1e-12 {
			t.Errorf("%d sessions: two-sided p %g, want twice the unweighted sign flip's one-sided %g", k, p, up)
		}
		switch k {
		case 4:
			if c.Status != StatusInconclusive || p < 0.125 || *c.MoreSessions != 2 {
				t.Errorf("4 sessions: %s p=%g +%v sessions: %s", c.Status, p, c.MoreSessions, c.Reason)
			}
		case 6:
			if c.Status != StatusPass || math.Abs(p-1.0/32) > 1e-12 || lo <= 0 {
				t.Errorf("6 sessions: %s p=%g [%g, %g]: %s", c.Status, p, lo, hi, c.Reason)
			}
		}
	}
}

// A hand-computed case: 6 sessions of 4 labeled positives, the judge alone
// catching 3, 2, 2, 1, 1 and 0 of them (the baseline none). R = 9/24 =
// 0.375. The sessions' sign flip: only the all-plus pattern (and the
// empty session's two signs) reaches T = 9, p = 2·2/64 = 1/16; at δ just
// above 0 the empty session turns negative and its flip reaches T too
// (2/64 ≥ 0.025: not rejected), below 0 it does not (1/64): lo = 0; at δ
// above 0.75 every session is negative (1/64): hi = 0.75. The weighted t
// alone (V = 6/5·5.5/24², t = 3.50 on 5 df, p = 0.017) would PASS it; the
// hull holds it open, with 0 at its lower end.
func TestLabeledGainHandComputed(t *testing.T) {
	t.Parallel()
	g := flipGain([]float64{3, 2, 2, 1, 1, 0}, []float64{4, 4, 4, 4, 4, 4}, 24, 0.05)
	if math.Abs(g.p-1.0/16) > 1e-12 || math.Abs(g.lo) > 1e-8 || math.Abs(g.hi-0.75) > 1e-8 {
		t.Errorf("flip: p %g [%g, %g], want 0.0625 [0, 0.75]", g.p, g.lo, g.hi)
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
	if math.Abs(*d.P-1.0/16) > 1e-12 || math.Abs(*d.Lo) > 1e-8 || math.Abs(*d.Hi-0.75) > 1e-8 || d.Test != GainTestFlip {
		t.Errorf("p %g (%s) [%g, %g], want 0.0625 [0, 0.75]", *d.P, d.Test, *d.Lo, *d.Hi)
	}
	c := SampleDangerousRecall(d, replay.ClassDangerous, true, replay.DefaultKillCriteria())
	if c.Status != StatusInconclusive {
		t.Errorf("%s: %s", c.Status, c.Reason)
	}
}

// On random label sets — census and queue-like strata, 1–30 sessions,
// few and many discordant labels — the interval, its p and the verdict
// always agree: 0 outside the interval exactly when p < 0.05, PASS
// exactly when the interval lies above 0, FAIL when it lies at or below.
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
		c := SampleDangerousRecall(d, replay.ClassDangerous, true, crit)
		p, lo, hi := *d.P, *d.Lo, *d.Hi
		outside := lo > 0 || hi < 0
		if outside != (p < 0.05) || lo < -1 || hi > 1 || lo > *d.Estimate || hi < *d.Estimate {
			t.Fatalf("%d sessions, %d units: est %g p %g (%s) [%g, %g]: interval and test disagree", k, n, *d.Estimate, p, d.Test, lo, hi)
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
