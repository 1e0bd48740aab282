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
// that inverts it at the same level: 0 lies outside [lo, hi] exactly when
// its two-sided p is below 1 − conf.
type gainPart struct {
	lo, hi, p float64
	test      string
}

// gainInputs is what gainTest needs of weightedRatio's sums.
type gainInputs struct {
	R, X, V, df float64
	conf        float64
	// Sessions' weighted totals of the labeled units: a = Σw·y, b = Σw·x
	// (only sessions with b > 0).
	sessA, sessB []float64
	// Discordant labels (raw counts) and their weighted total.
	up, down int64
	disc     float64
	// The discordance rates' weighted totals and the effective size
	// Newcombe's bound takes where V is 0.
	upW, downW, ne, q float64
}

// gainTest is a labeled paired difference's (a recall or false-positive-
// rate gain) test and interval, one computation (docs/statistics.md,
// "Criteria on weighted figures"): each part is a test with the interval
// that inverts it, and the interval is the hull of the parts' intervals,
// the p (two-sided) the largest of their p's, so 0 lies outside the
// interval exactly when p < 1 − conf. The parts:
//
//   - the weighted t on the sessions, R ± t·√V (V > 0);
//   - with fewer than flipMaxSessions sessions holding labeled units, the
//     sessions' sign-flip test of their weighted totals Σw·(y − δ·x),
//     inverted over δ: what the unweighted path's sign-flip over sessions
//     is on census labels, and no more decisive (with 5 sessions or
//     fewer no sign pattern reaches 0.05: the interval is [−1, 1]);
//   - with fewer than fewDiscordant discordant labels, the exact sign test
//     on them, inverted through Clopper–Pearson's bounds of the share the
//     judge alone catches, scaled by the discordant units' weighted share;
//   - where V is 0 (no label moves the difference), Newcombe's hull of the
//     two discordance rates' Wilson bounds at the effective size ne, p
//     read off it (with no discordant label, ± Wilson's bound at zero
//     events and p = 1).
func gainTest(in gainInputs) (lo, hi, p float64, test string) {
	alpha := 1 - in.conf
	var parts []gainPart
	if in.V > 0 {
		se := math.Sqrt(in.V)
		st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: in.df}
		q := st.Quantile(1 - alpha/2)
		parts = append(parts, gainPart{in.R - q*se, in.R + q*se, min(1, 2*st.Survival(math.Abs(in.R)/se)), GainTestT})
	} else {
		parts = append(parts, newcombeGain(in))
	}
	if k := len(in.sessA); k > 0 && k < flipMaxSessions {
		parts = append(parts, flipGain(in.sessA, in.sessB, in.X, alpha))
	}
	if d := in.up + in.down; d < fewDiscordant && d > 0 {
		parts = append(parts, signGain(in.up, in.down, in.disc/in.X, alpha))
	}
	lo, hi, p, test = parts[0].lo, parts[0].hi, parts[0].p, parts[0].test
	for _, g := range parts[1:] {
		lo, hi = min(lo, g.lo), max(hi, g.hi)
		if g.p > p {
			p, test = g.p, g.test
		}
	}
	return max(lo, -1), min(hi, 1), p, test
}

// newcombeGain is the part where V is 0: the two discordance rates each
// get Wilson's interval at the effective size ne with the quantile q, and
// the difference their Newcombe hull; its p is read off it (the level at
// which the bound nearer 0 reaches it; 1 when 0 is inside at every level).
func newcombeGain(in gainInputs) gainPart {
	at := func(q float64) (lo, hi float64) {
		upLo, upHi := Wilson(in.upW/in.X*in.ne, in.ne, q)
		dnLo, dnHi := Wilson(in.downW/in.X*in.ne, in.ne, q)
		return upLo - dnHi, upHi - dnLo
	}
	lo, hi := at(in.q)
	g := gainPart{lo: lo, hi: hi, p: 1, test: GainTestNone}
	if in.up+in.down == 0 {
		return g
	}
	g.test = GainTestNewcombe
	// The quantile at which the bound nearer 0 touches it; p its
	// two-sided level on the interval's t.
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
	a, b := 0.0, 1.0
	for side(b) > 0 && b < 1e3 {
		a, b = b, 2*b
	}
	for range 60 {
		m := (a + b) / 2
		if side(m) > 0 {
			a = m
		} else {
			b = m
		}
	}
	df := max(in.df, 1)
	g.p = min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(b))
	return g
}

// signGain is the exact sign test on the discordant labels (up the judge
// alone catches, down the other alone), two-sided, and the interval that
// inverts it: the share θ of discordant labels the judge alone catches
// has Clopper–Pearson's bounds, and the difference is (2θ − 1) times the
// discordant units' weighted share s.
func signGain(up, down int64, s, alpha float64) gainPart {
	d := float64(up + down)
	u := float64(up)
	thLo, thHi := 0.0, 1.0
	if up > 0 {
		thLo = distuv.Beta{Alpha: u, Beta: d - u + 1}.Quantile(alpha / 2)
	}
	if down > 0 {
		thHi = distuv.Beta{Alpha: u + 1, Beta: d - u}.Quantile(1 - alpha/2)
	}
	p := min(1, 2*min(McNemarGreater(up, down), McNemarGreater(down, up)))
	return gainPart{(2*thLo - 1) * s, (2*thHi - 1) * s, p, GainTestSign}
}

// flipGain is the sessions' sign-flip test of a ratio difference: under
// "the two results are exchangeable within a session" each session's
// weighted total of y − δ·x is as likely to be its negative, so T(δ) =
// Σ_c (a_c − δ·b_c) is compared with its 2^K sign flips. p (two-sided, at
// δ = 0) is twice the smaller one-sided share; the interval is the δ the
// same test does not reject on either side at α/2, found by bisection.
// On census labels (weights 1) at δ = 0 it is the unweighted path's
// sign-flip over sessions exactly.
func flipGain(a, b []float64, X, alpha float64) gainPart {
	k := len(a)
	u := make([]float64, k)
	// greater and less are the one-sided shares of sign patterns whose
	// total reaches T(δ) from above and from below.
	shares := func(delta float64) (greater, less float64) {
		var T, scale float64
		for i := range a {
			u[i] = (a[i] - delta*b[i]) / X
			T += u[i]
			scale += math.Abs(u[i])
		}
		tol := 1e-9 * max(scale, 1e-300)
		n := 1 << k
		var ge, le int
		for m := range n {
			var s float64
			for i, v := range u {
				if m>>i&1 == 1 {
					s -= math.Abs(v)
				} else {
					s += math.Abs(v)
				}
			}
			if s >= T-tol {
				ge++
			}
			if s <= T+tol {
				le++
			}
		}
		return float64(ge) / float64(n), float64(le) / float64(n)
	}
	g0, l0 := shares(0)
	part := gainPart{lo: -1, hi: 1, p: min(1, 2*min(g0, l0)), test: GainTestFlip}
	var A, B float64
	for i := range a {
		A, B = A+a[i], B+b[i]
	}
	R := A / B
	// lo: the smallest δ in [−1, R] the "greater" side does not reject.
	if g, _ := shares(-1); g < alpha/2 {
		x, y := -1.0, R
		for range 50 {
			m := (x + y) / 2
			if g, _ := shares(m); g < alpha/2 {
				x = m
			} else {
				y = m
			}
		}
		part.lo = y
	}
	if _, l := shares(1); l < alpha/2 {
		x, y := R, 1.0
		for range 50 {
			m := (x + y) / 2
			if _, l := shares(m); l < alpha/2 {
				y = m
			} else {
				x = m
			}
		}
		part.hi = x
	}
	return part
}
