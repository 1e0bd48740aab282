package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apeval/apeval/replay"
	"gonum.org/v1/gonum/stat/distuv"
)

// The hand-computed example of docs/statistics.md: stratum A (N=100, four
// sampled units, all judged match, labels match ×3 and no_match), stratum B
// (N=50, two units judged no_match, labels match and no_match) and two
// census units (judged match, labeled match), every unit in its own
// session.
func handUnits() []SampleUnit {
	u := func(st string, n int64, sess string, label, match bool) SampleUnit {
		return SampleUnit{Stratum: st, StratumSize: n, Session: sess, Label: label, Match: match}
	}
	return []SampleUnit{
		u("A", 100, "s1", true, true), u("A", 100, "s2", true, true), u("A", 100, "s3", true, true), u("A", 100, "s4", false, true),
		u("B", 50, "s5", true, false), u("B", 50, "s6", false, false),
		u(CensusStratum, 0, "s7", true, true), u(CensusStratum, 0, "s8", true, true),
	}
}

func nearW(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f", what, got, want)
	}
}

func TestWeightedPrecisionHandComputed(t *testing.T) {
	t.Parallel()
	p := WeightedPrecision(handUnits(), 0.95)
	// TP = 25·3 + 2 = 77, TP+FP = 25·4 + 2 = 102.
	nearW(t, "TP", p.Num, 77, 1e-12)
	nearW(t, "TP+FP", p.Den, 102, 1e-12)
	nearW(t, "precision", *p.Estimate, 77.0/102, 1e-12)
	// Two phases (every unit its own session, so a session's HT term is
	// w·z²): z = (y − R)/102 in A (w = 25) and the census (w = 1), 0 in B
	// (no match). v1 = 8/7·(25·(3(1−R)² + R²) + 2(1−R)²)/102² = 0.0020731;
	// v2 = A's 100²·(1 − 4/100)·s²_A/4 = 0.0576701 (s²_A the sample
	// variance of its four z), B's and the census' 0.
	R := 77.0 / 102
	v1 := 8.0 / 7 * (25*(3*(1-R)*(1-R)+R*R) + 2*(1-R)*(1-R)) / (102 * 102)
	zA := []float64{(1 - R) / 102, (1 - R) / 102, (1 - R) / 102, -R / 102}
	v2 := 10000 * 0.96 * ssq(zA) / 3 / 4
	nearW(t, "variance", p.Var, v1+v2, 1e-12)
	nearW(t, "variance", p.Var, 0.0597432, 1e-7)
	nearW(t, "sampled variance", p.SampledVar, v2, 1e-12)
	nearW(t, "n_eff", p.NEff, 3.097003, 1e-5)
	// df: 6 sessions have a nonzero z, but Kish's effective number of
	// sessions by their weighted matches, 102²/(4·25² + 2·1²) = 4.158, is
	// smaller: df 3.158.
	nearW(t, "df", p.DF, 102.0*102/(4*625+2)-1, 1e-12)
	// The interval takes A (4 labels, at the queue's minimum, both
	// values) at the variance under Jeffreys' posterior of its share of
	// match labels: p̄ = 3.5/5, p̄(1 − p̄)·5/6 = 0.175 in place of the
	// sample variance ¼, times (1/102)² and 100²·0.96/4: 0.0403691, so
	// V_lo = V_hi = v1 + 0.0403691 = 0.0424422, n = R(1−R)/V = 4.35946
	// (3.0970 at the sample variance). Wilson at it with t(3.158) = 3.0941.
	vInt := v1 + 2400*0.175/(102*102)
	nearW(t, "VarLo", p.VarLo, vInt, 1e-12)
	nearW(t, "VarHi", p.VarHi, vInt, 1e-12)
	nearW(t, "lo", *p.Lo, 0.182505, 1e-5)
	nearW(t, "hi", *p.Hi, 0.977008, 1e-5)
	if p.Sampled != 4 || p.Census != 2 || p.SampledAll != 6 || p.Remaining != 144 {
		t.Errorf("counts: sampled %d census %d all %d remaining %d", p.Sampled, p.Census, p.SampledAll, p.Remaining)
	}
}

func TestWeightedRecallHandComputed(t *testing.T) {
	t.Parallel()
	r := WeightedRecall(handUnits(), 0.95)
	// TP = 75 + 2 = 77; positives = 75 (A) + 25 (B) + 2 = 102.
	nearW(t, "TP", r.Num, 77, 1e-12)
	nearW(t, "TP+FN", r.Den, 102, 1e-12)
	R := 77.0 / 102
	// A: label match gives z = (1−R)/102, no_match 0 (w = 25); B: the
	// positive the judge missed −R/102, the negative 0 (w = 25); census
	// (1−R)/102 (w = 1). v1 = 8/7·Σ w·z² (one unit per session); v2 =
	// N²(1 − n/N)·s²/n in A and B, 0 for the census.
	v1 := 8.0 / 7 * (25*3*(1-R)*(1-R)/(102*102) + 25*R*R/(102*102) + 2*(1-R)*(1-R)/(102*102))
	a := []float64{(1 - R) / 102, (1 - R) / 102, (1 - R) / 102, 0}
	b := []float64{-R / 102, 0}
	v2 := 10000*0.96*ssq(a)/3/4 + 2500*0.96*ssq(b)/1/2
	nearW(t, "variance", r.Var, v1+v2, 1e-12)
	nearW(t, "variance", r.Var, 0.0384024, 1e-7)
	nearW(t, "n_eff", r.NEff, R*(1-R)/(v1+v2), 1e-9)
	nearW(t, "df", r.DF, 102.0*102/(4*625+2)-1, 1e-12) // Kish: the positives' weights as in precision
}

func ssq(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s
}

func TestWeightedRatioOneSessionStratum(t *testing.T) {
	t.Parallel()
	// Four units of one stratum (N = 40) in one session: one session
	// cannot show how sessions differ, so the labels are worth one unit
	// (n_eff 1) whatever the within-stratum variance 40²·0.9·s²/4 says.
	var us []SampleUnit
	for i := range 4 {
		us = append(us, SampleUnit{Stratum: "A", StratumSize: 40, Session: "s", Label: i < 3, Match: true})
	}
	p := WeightedPrecision(us, 0.95)
	z := []float64{0.25 / 40, 0.25 / 40, 0.25 / 40, -0.75 / 40}
	nearW(t, "variance", p.Var, 1600*0.9*ssq(z)/3/4, 1e-12)
	nearW(t, "n_eff", p.NEff, 1, 0)
	if *p.Lo > 0.1 || *p.Hi < 0.99 {
		t.Errorf("one session: [%v, %v], want about [0, 1]", *p.Lo, *p.Hi)
	}
}

func TestWeightedPrecisionAllMatchIsNotCertain(t *testing.T) {
	t.Parallel()
	var us []SampleUnit
	for i := range 20 {
		us = append(us, SampleUnit{Stratum: "A", StratumSize: 200, Session: fmt.Sprint(i), Label: true, Match: true})
	}
	p := WeightedPrecision(us, 0.95)
	if *p.Estimate != 1 || *p.Hi != 1 || *p.Lo > 0.9 || *p.Lo < 0.7 {
		t.Errorf("precision %v [%v, %v]: want 1 with a lower bound near Wilson's for 20 units", *p.Estimate, *p.Lo, *p.Hi)
	}
}

func TestWeightedRecallDiffPaired(t *testing.T) {
	t.Parallel()
	// Positives: 10 units; judge matches 8, baseline 5, all in one stratum.
	var us []SampleUnit
	for i := range 10 {
		us = append(us, SampleUnit{Stratum: "A", StratumSize: 100, Session: fmt.Sprint(i), Label: true, Match: i < 8, Other: i < 5})
	}
	us = append(us, SampleUnit{Stratum: "A", StratumSize: 100, Session: "n", Label: false, Match: true})
	d := WeightedRecallDiff(us, 0.95)
	nearW(t, "Δ", *d.Estimate, 0.3, 1e-12)
	if !(*d.Lo < 0.3 && *d.Hi > 0.3) {
		t.Errorf("interval [%v, %v] does not hold 0.3", *d.Lo, *d.Hi)
	}
}

func TestSamplePrecisionCriterion(t *testing.T) {
	t.Parallel()
	crit := replay.KillCriteria{PrecisionMin: 0.9, Confidence: 0.95, DangerousRecallMustBeatBaseline: true}
	var us []SampleUnit
	for i := range 30 {
		us = append(us, SampleUnit{Stratum: "A", StratumSize: 3000, Session: fmt.Sprint(i), Label: i < 29, Match: true})
	}
	c := SamplePrecision(WeightedPrecision(us, 0.95), crit)
	if c.Status != StatusInconclusive || c.MoreSamples == nil || *c.MoreSamples <= 0 {
		t.Fatalf("%+v", c)
	}
	// Adding that many labels at the same rate decides it.
	m := int(*c.MoreSamples)
	var more []SampleUnit
	for i := range 30 + m {
		more = append(more, SampleUnit{Stratum: "A", StratumSize: 3000, Session: fmt.Sprint(i), Label: float64(i%30) < 29, Match: true})
	}
	if c2 := SamplePrecision(WeightedPrecision(more, 0.95), crit); c2.Status != StatusPass {
		t.Errorf("after %d more labels: %s", m, c2.Reason)
	}
}

// Forty matches of one session are worth one session, not forty: the
// weighted precision does not clear 0.9 on them.
func TestWeightedPrecisionOneSessionAllMatch(t *testing.T) {
	t.Parallel()
	var us []SampleUnit
	for range 40 {
		us = append(us, SampleUnit{Stratum: CensusStratum, Session: "s", Label: true, Match: true})
	}
	p := WeightedPrecision(us, 0.95)
	crit := replay.KillCriteria{PrecisionMin: 0.9, Confidence: 0.95}
	if c := SamplePrecision(p, crit); c.Status == StatusPass {
		t.Errorf("40/40 in one session passes: %s", c.Reason)
	}
}

// TestFewLabelsStayInRange: labels that cannot reach a rule — a handful
// of labels in random strata and sessions, often one session, one
// positive or none — give a labeled precision, recall and recall gain
// whose bounds stay in their ranges ([0, 1], [−1, 1]) and finite; the
// gain's criterion is never FAIL on fewer than four positives nor PASS on
// fewer than five discordant ones, and always says why when
// INCONCLUSIVE (the "lower bound −1.288").
func TestFewLabelsStayInRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 3))
	crit := replay.DefaultKillCriteria()
	strata := []string{"A:match B:match", "A:match B:no_match", "A:no_match B:match", "A:no_match B:no_match"}
	for rep := range 3000 {
		n := 1 + rng.IntN(10)
		var us []SampleUnit
		for range n {
			h := rng.IntN(len(strata))
			us = append(us, SampleUnit{Stratum: strata[h], StratumSize: int64(1 + rng.IntN(2000)),
				Session: fmt.Sprint(rng.IntN(3)), Label: rng.IntN(2) == 0, Match: rng.IntN(2) == 0, Other: rng.IntN(2) == 0})
		}
		in := func(name string, f WeightedRatio, lo, hi float64) {
			if f.Estimate == nil {
				return
			}
			for _, b := range []float64{*f.Lo, *f.Hi, *f.Estimate} {
				if math.IsNaN(b) || b < lo-1e-12 || b > hi+1e-12 {
					t.Fatalf("rep %d, %s: %v [%v, %v] outside [%g, %g] on %+v", rep, name, *f.Estimate, *f.Lo, *f.Hi, lo, hi, us)
				}
			}
		}
		in("precision", WeightedPrecision(us, 0.95), 0, 1)
		in("recall", WeightedRecall(us, 0.95), 0, 1)
		d := WeightedRecallDiff(us, 0.95)
		in("recall gain", d, -1, 1)
		c := SampleDangerousRecall(d, replay.ClassDangerous, true, crit)
		if d.Estimate != nil && d.Units < 4 && c.Status == StatusFail {
			t.Fatalf("rep %d: FAIL on %d positives: %s", rep, d.Units, c.Reason)
		}
		// The exact sign test needs 5 discordant positives one way to
		// reach p < 0.05: fewer never PASS.
		if d.Estimate != nil && d.Up+d.Down < 5 && c.Status == StatusPass {
			t.Fatalf("rep %d: PASS on %d discordant positives: %s", rep, d.Up+d.Down, c.Reason)
		}
		if c.Status == StatusInconclusive && c.Reason == "" {
			t.Fatalf("rep %d: INCONCLUSIVE without a reason", rep)
		}
	}
}

// TestWeightedFloorOneSided: hand-computed. Precision on two strata of
// the candidate's matches: "A:match B:match" (N 10, both of its 2 labels
// match) and "A:match B:no_match" (N 10, 2 of 4 labels match); R = (10·1 +
// 10·½)/20 = 0.75, X = 20, d = 1/20 for every pair. The first stratum
// shows no error: its floor for the interval is two pseudo-labels at the
// queue's prior p = 2.1/2.2, p̃ = (2 + 2p)/4, times d² and N²(1 − n/N)/n
// = 40: 40·0.0025·p̃(1 − p̃) ≈ 0.0022211, all of it on the lower bound's
// side (a stratum of matches can only have been too high). v₂'s
// symmetric floor (what the hints project) is the ½ pseudo-label: p̃ =
// 2.5/3, 40·0.0025·(5/36) = 0.0138889, all of it SampledPrior. The second
// stratum's sample variance of z (±0.025 around −0.0125: 0.0025/3) times
// N²(1 − n/N)/n = 15 is 0.0125 in v₂ (SampledVar); the interval takes,
// for a stratum at the queue's minimum whose labels show both values,
// the variance under Jeffreys' posterior: p̄ = 2.5/5, p̄(1 − p̄)·5/6 =
// 0.2083, times d² and 15: 0.0078125 on both sides.
func TestWeightedFloorOneSided(t *testing.T) {
	var us []SampleUnit
	add := func(stratum string, n int, matches int) {
		for i := range n {
			us = append(us, SampleUnit{Stratum: stratum, StratumSize: 10, Session: fmt.Sprintf("%s-%d", stratum, i), Label: i < matches, Match: true})
		}
	}
	add("A:match B:match", 2, 2)
	add("A:match B:no_match", 4, 2)
	f := WeightedPrecision(us, 0.95)
	p := 2.1 / 2.2
	pt := (2 + 2*p) / 4
	floor := 40 * 0.0025 * pt * (1 - pt)
	prior := 40 * 0.0025 * 5.0 / 36
	v1 := f.Var - f.SampledVar
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(*f.Estimate, 0.75) || !near(f.SampledVar, 0.0125+prior) || !near(f.SampledPrior, prior) {
		t.Errorf("estimate %v, SampledVar %v (want %v), SampledPrior %v (want %v)", *f.Estimate, f.SampledVar, 0.0125+prior, f.SampledPrior, prior)
	}
	mixed := 15 * 0.0025 * 0.25 * 5 / 6
	if !near(f.VarLo, v1+mixed+floor) || !near(f.VarHi, v1+mixed) {
		t.Errorf("VarLo %v, VarHi %v; want %v and %v (v1 %v)", f.VarLo, f.VarHi, v1+mixed+floor, v1+mixed, v1)
	}
	// The bounds take the skew of the sessions' weighted linearized
	// totals t_c = w_h·z_i (one label a session here; z = (y − R·x)/X, X =
	// 20): 0.0625 twice (A:match B:match, w 5), 0.03125 twice and
	// −0.09375 twice (the mixed stratum, w 2.5). Σt² = 0.02734375, Σt³ =
	// −0.0010986328125: γ = Σt³/(Σt²)^{3/2} ≈ −0.243, on (Σt²)²/Σt⁴ = 4
	// sessions' worth of them (≥ 3, and df 5 ≥ 4: the skew is used). Each bound
	// moves by g = γ·(2z² + 1)/6 standard errors (Cornish–Fisher, z the
	// normal quantile): the
	// upper one, with no floor on its side, is R + √V_hi·(q + g) on the t
	// quantile of the sessions' df (clipped to 1 here).
	t2, t3 := 0.02734375, -0.0010986328125
	gamma := t3 / math.Pow(t2, 1.5)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: f.DF}.Quantile(0.975)
	z := distuv.UnitNormal.Quantile(0.975)
	g := gamma * (2*z*z + 1) / 6
	hi := min(1, 0.75+math.Sqrt(f.VarHi)*(q+g))
	n := 0.75 * 0.25 / f.VarHi
	_, wil := Wilson(0.75*n, n, q)
	if !near(*f.Hi, hi) || near(hi, wil) {
		t.Errorf("upper bound %v, want %v (not Wilson's %v)", *f.Hi, hi, wil)
	}
	// The lower bound carries the floor, pseudo-labels at the queue's
	// minimum: its t quantile has Satterthwaite's df for the estimated
	// part, DF·(V_lo/(V_lo − floor))², and the floor adds to the skewed
	// reach on the rest as a normal term, R − √(r² + q²·floor), r =
	// √(V_lo − floor)·(q − g).
	qlo := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: f.DF * (f.VarLo / (f.VarLo - floor)) * (f.VarLo / (f.VarLo - floor))}.Quantile(0.975)
	rl := math.Sqrt(f.VarLo-floor) * (qlo - g)
	lo := 0.75 - math.Sqrt(rl*rl+qlo*qlo*floor)
	if !near(*f.Lo, lo) {
		t.Errorf("lower bound %v, want %v", *f.Lo, lo)
	}
	// On fewer sessions (the same labels in two
	// sessions: df 1) the skew says nothing and the upper bound is Wilson's at
	// n_eff = R(1−R)/V_hi, as before.
	two := append([]SampleUnit(nil), us...)
	for i := range two {
		two[i].Session = fmt.Sprint(i % 2)
	}
	f2 := WeightedPrecision(two, 0.95)
	q2 := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: f2.DF}.Quantile(0.975)
	n2 := 0.75 * 0.25 / f2.VarHi
	_, hi2 := Wilson(0.75*n2, n2, q2)
	if !near(*f2.Hi, hi2) {
		t.Errorf("two sessions: upper bound %v, want Wilson's %v", *f2.Hi, hi2)
	}
}

// TestWeightedSkewedBounds: on enough sessions (df ≥ 4, (Σt²)²/Σt⁴ ≥ 3)
// a proportion's bounds take the skew of its sessions' totals instead of
// Wilson's pull toward ½. 30 census labels in 30 sessions, the judge
// matched all, 24 right: R = 0.8, z = (y − 0.8)/30, t_c = z (weight 1),
// Σt² = 4.8/900, Σt³ = −2.88/27000: γ = Σt³/(Σt²)^{3/2} ≈ −0.274 on
// (Σt²)²/Σt⁴ ≈ 9.2 sessions' worth. V = v₁ = 30/29·Σt², no floor (every
// pair labeled), df 29; each bound moves by g = γ·(2z² + 1)/6 standard
// errors (Cornish–Fisher, z the normal quantile): R ∓ √V·(q ∓ g).
func TestWeightedSkewedBounds(t *testing.T) {
	var us []SampleUnit
	for i := range 30 {
		us = append(us, SampleUnit{Stratum: CensusStratum, Session: fmt.Sprint(i), Label: i < 24, Match: true})
	}
	// The design's own interval: weight 1 throughout would otherwise
	// take the unweighted path's (weightedRatio).
	f := designRatio(us, 0.95, precisionFn, true)
	s2, s3 := 4.8/900, -2.88/27000
	gamma := s3 / math.Pow(s2, 1.5)
	v := 30.0 / 29 * s2
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 29}.Quantile(0.975)
	z := distuv.UnitNormal.Quantile(0.975)
	g := gamma * (2*z*z + 1) / 6
	lo, hi := 0.8-math.Sqrt(v)*(q-g), 0.8+math.Sqrt(v)*(q+g)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(f.Var, v) || f.DF != 29 {
		t.Fatalf("Var %v (want %v), DF %v (want 29)", f.Var, v, f.DF)
	}
	n := 0.8 * 0.2 / v
	wl, wh := Wilson(0.8*n, n, q)
	if !near(*f.Lo, lo) || !near(*f.Hi, hi) || near(lo, wl) || near(hi, wh) {
		t.Errorf("interval [%v, %v], want [%v, %v] (Wilson's would be [%v, %v])", *f.Lo, *f.Hi, lo, hi, wl, wh)
	}
}
