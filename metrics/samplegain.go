package metrics

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Tests of a labeled paired difference (WeightedRatio.Test): which part of
// gainTest decided its p (the largest of its parts').
const (
	// GainTestT: the weighted t on the sessions, t = R/√V on the
	// two-phase variance's degrees of freedom.
	GainTestT = "weighted t"
	// GainTestFlip: the sessions' sign-flip randomization test of their
	// weighted linearized totals (exact, 2^K sign patterns), used with
	// fewer than flipMaxSessions sessions holding labeled units.
	GainTestFlip = "sign-flip over sessions"
	// GainTestSign: the exact sign test on the discordant labels, used
	// with fewer than fewDiscordant of them.
	GainTestSign = "sign test on the discordant labels"
	// GainTestNewcombe: Newcombe's hull of the two discordance rates'
	// Wilson bounds, where V is 0 with discordant labels all one way.
	GainTestNewcombe = "Newcombe on the discordance rates"
	// GainTestNone: no label moves the difference (every labeled unit
	// adds the same), so no test speaks: p = 1 at an estimate of 0.
	GainTestNone = "no discordant label"
)

// gainPart is one test of a labeled paired difference with the interval
// that inverts it at the same level: 0 lies below lo exactly when its p
// against "greater" is below the level, above hi exactly when its p
// against "less" is.
type gainPart struct {
	lo, hi, pG, pL float64
	test           string
}

// gainInputs is what gainTest needs of weightedRatio's sums.
type gainInputs struct {
	R, X, V, df float64
	// Sessions' weighted totals of the labeled units: a = Σw·y, b = Σw·x
	// (only sessions with b > 0).
	sessA, sessB []float64
	// Discordant labels (raw counts) and their weighted total.
	up, down int64
	disc     float64
	// The discordance rates' weighted totals and the effective size
	// Newcombe's bound takes where V is 0.
	upW, downW, ne float64
}

// gainTest is a labeled paired difference's (a recall or false-positive-
// rate gain) test and interval, one computation (docs/statistics.md,
// "Criteria on weighted figures"): each part is a test with the interval
// that inverts it, and the interval is the hull of the parts' intervals,
// the p the largest of their p's. One-sided (the dangerous-recall
// criterion): lo and hi are the one-sided (1 − alpha) bounds, p the
// one-sided p of "greater", so 0 lies below lo exactly when p < alpha.
// Two-sided (a comparison's Δ): each bound at alpha/2, p = 2·min(p's of
// either side), 0 outside [lo, hi] exactly when p < alpha. The parts:
//
//   - the weighted t on the sessions, R ± t·√V (V > 0);
//   - with fewer than flipMaxSessions sessions holding labeled units, the
//     sessions' sign-flip test of their weighted totals Σw·(y − δ·x),
//     inverted over δ (flipBounds): what the unweighted path's sign-flip
//     over sessions is on census labels, and no more decisive (with 4
//     sessions or fewer no sign pattern reaches 0.05 one-sided: the
//     interval is [−1, 1]);
//   - with fewer than fewDiscordant discordant labels, the exact sign test
//     on them, inverted through Clopper–Pearson's bounds of the share the
//     judge alone catches (cpShare), scaled by the discordant units'
//     weighted share;
//   - where V is 0 (no label moves the difference), Newcombe's hull of the
//     two discordance rates' Wilson bounds at the effective size ne, p
//     read off it (with no discordant label, ± Wilson's bound at zero
//     events and p = 1).
func gainTest(in gainInputs, alpha float64, oneSided bool) (lo, hi, p float64, test string) {
	a := alpha / 2
	if oneSided {
		a = alpha
	}
	var parts []gainPart
	if in.V > 0 {
		se := math.Sqrt(in.V)
		st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: in.df}
		q := st.Quantile(1 - a)
		parts = append(parts, gainPart{in.R - q*se, in.R + q*se, st.Survival(in.R / se), st.CDF(in.R / se), GainTestT})
	} else {
		parts = append(parts, newcombeGain(in, a))
	}
	if k := len(in.sessA); k > 0 && k < flipMaxSessions {
		parts = append(parts, flipGain(in.sessA, in.sessB, a))
	}
	if d := in.up + in.down; d < fewDiscordant && d > 0 {
		parts = append(parts, signGain(in.up, in.down, in.disc/in.X, a))
	}
	pOf := func(g gainPart) float64 {
		if oneSided {
			return g.pG
		}
		return min(1, 2*min(g.pG, g.pL))
	}
	lo, hi, p, test = parts[0].lo, parts[0].hi, pOf(parts[0]), parts[0].test
	for _, g := range parts[1:] {
		lo, hi = min(lo, g.lo), max(hi, g.hi)
		if pg := pOf(g); pg > p {
			p, test = pg, g.test
		}
	}
	return max(lo, -1), min(hi, 1), p, test
}

// newcombeGain is the part where V is 0: the two discordance rates each
// get Wilson's interval at the effective size ne with the t quantile of
// one bound at level a, and the difference their Newcombe hull; its p's
// are read off it (the one-sided level at which the bound nearer 0
// reaches it; 1 on the other side, and on both when 0 is inside at every
// level).
func newcombeGain(in gainInputs, a float64) gainPart {
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: max(in.df, 1)}
	at := func(q float64) (lo, hi float64) {
		upLo, upHi := Wilson(in.upW/in.X*in.ne, in.ne, q)
		dnLo, dnHi := Wilson(in.downW/in.X*in.ne, in.ne, q)
		return upLo - dnHi, upHi - dnLo
	}
	lo, hi := at(st.Quantile(1 - a))
	g := gainPart{lo: lo, hi: hi, pG: 1, pL: 1, test: GainTestNone}
	if in.up+in.down == 0 {
		return g
	}
	g.test = GainTestNewcombe
	// The quantile at which the bound nearer 0 touches it; p its
	// one-sided level on the interval's t.
	side := func(q float64) float64 {
		l, h := at(q)
		if in.R > 0 {
			return l
		}
		return -h
	}
	if side(0) <= 0 {
		return g
	}
	x, y := 0.0, 1.0
	for side(y) > 0 && y < 1e3 {
		x, y = y, 2*y
	}
	for range 60 {
		m := (x + y) / 2
		if side(m) > 0 {
			x = m
		} else {
			y = m
		}
	}
	if in.R > 0 {
		g.pG = st.Survival(y)
	} else {
		g.pL = st.Survival(y)
	}
	return g
}

// signGain is the exact sign test on the discordant labels (up the judge
// alone catches, down the other alone) and the interval that inverts it
// at level a on each side: the share θ of discordant labels the judge
// alone catches has Clopper–Pearson's one-sided bounds (cpShare), and the
// difference is (2θ − 1) times the discordant units' weighted share s.
func signGain(up, down int64, s, a float64) gainPart {
	thLo, thHi, pG, pL := cpShare(up, down, a)
	return gainPart{(2*thLo - 1) * s, (2*thHi - 1) * s, pG, pL, GainTestSign}
}

// flipGain is the sessions' sign-flip test of a ratio difference and its
// inversion at level a on each side (flipBounds): under "the two results
// are exchangeable within a session" each session's weighted total of
// y − δ·x is as likely to be its negative; flipping the sessions F reaches
// T(δ) = Σ_c (a_c − δ·b_c) from above exactly when Σ_F a ≤ δ·Σ_F b. Every
// one of the 2^K patterns counts. On census labels (weights 1) at δ = 0
// it is the unweighted path's sign-flip over sessions exactly.
func flipGain(a, b []float64, level float64) gainPart {
	k := len(a)
	n := 1 << k
	w := 1 / float64(n)
	ts := make([]subsetT, 0, n)
	w0 := w // the pattern that flips nothing
	var scale float64
	for _, v := range a {
		scale += math.Abs(v)
	}
	for m := 1; m < n; m++ {
		var sa, sb float64
		for i := range k {
			if m>>i&1 == 1 {
				sa += a[i]
				sb += b[i]
			}
		}
		if math.Abs(sa) <= 1e-9*scale {
			// Weighted totals that cancel are a tie at 0, not a
			// rounding error's sign.
			sa = 0
		}
		ts = append(ts, subsetT{sa / sb, w})
	}
	lo, hi, pG, pL := flipBounds(ts, w0, level)
	return gainPart{lo, hi, pG, pL, GainTestFlip}
}

// oneSided is a paired difference's one-sided test at level alpha and the
// bounds that invert it (gainTest one-sided), the bounds widened as reach
// widened the two-sided interval for the unreached pairs; ok is false for
// a figure without a paired difference's sums.
func (f WeightedRatio) oneSided(alpha float64) (lo, hi, p float64, test string, ok bool) {
	if f.gain == nil {
		return 0, 0, 0, "", false
	}
	lo, hi, p, test = gainTest(*f.gain, alpha, true)
	if u, D := f.Unreached, f.Den; u > 0 {
		lo, hi = max((lo*D-u)/(D+u), -1), min((hi*D+u)/(D+u), 1)
	}
	return lo, hi, p, test, true
}
