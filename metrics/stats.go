package metrics

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// zScore is the two-sided normal quantile for a confidence level:
// z = Φ⁻¹(1 − (1−conf)/2), 1.959964 at 95 %.
func zScore(conf float64) float64 {
	return distuv.UnitNormal.Quantile(1 - (1-conf)/2)
}

// Wilson returns the Wilson score interval for x successes out of n at
// normal quantile z. x may be fractional (used when projecting sample sizes
// at a fixed rate). n must be > 0.
func Wilson(x, n, z float64) (lo, hi float64) {
	p := x / n
	z2 := z * z
	den := 1 + z2/n
	mid := (p + z2/(2*n)) / den
	half := z / den * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	lo, hi = mid-half, mid+half
	// Rounding can leave the bounds a hair outside [0, 1] or off the exact
	// value at p = 0 or 1, where the closed form is exactly 0 or 1.
	if p == 0 {
		lo = 0
	}
	if p == 1 {
		hi = 1
	}
	return max(lo, 0), min(hi, 1)
}

// NearestRank returns the nearest-rank quantile num/den (e.g. 95/100) of
// sorted values: the ⌈num·n/den⌉-th smallest (see docs/statistics.md), computed in
// integers so that 0.95·20 is exactly 19. sorted must be non-empty.
func NearestRank(sorted []float64, num, den int) float64 {
	n := len(sorted)
	k := (num*n + den - 1) / den
	if k < 1 {
		k = 1
	}
	return sorted[k-1]
}

// QuantileInterval returns the distribution-free confidence interval of
// the num/den quantile from order statistics: with B ~ Binomial(n, p), the
// interval [x(l), x(u)] covers the quantile with probability
// P(l ≤ B ≤ u−1) = F(u−1) − F(l−1), so l is the largest rank with
// F(l−1) ≤ α/2 and u the smallest with F(u−1) ≥ 1 − α/2. A bound whose rank
// does not exist (too few values) is nil: the data cannot bound it.
func QuantileInterval(sorted []float64, num, den int, conf float64) (lo, hi *float64) {
	n := len(sorted)
	if n == 0 {
		return nil, nil
	}
	alpha := 1 - conf
	b := distuv.Binomial{N: float64(n), P: float64(num) / float64(den)}
	// F is monotone in k, so both ranks are found by bisection: a judge
	// with millions of calls costs a few dozen CDF evaluations.
	if l := sort.Search(n, func(i int) bool { return b.CDF(float64(i)) > alpha/2 }); l > 0 {
		lo = ptr(sorted[l-1])
	}
	if i := sort.Search(n, func(i int) bool { return b.CDF(float64(i)) >= 1-alpha/2 }); i < n {
		hi = ptr(sorted[i])
	}
	return lo, hi
}

// McNemarTwoSided is the exact two-sided McNemar p-value for b and c
// discordant pairs: min(1, 2·P(X ≤ min(b, c))), X ~ Binomial(b+c, ½).
// With no discordant pair it is 1.
func McNemarTwoSided(b, c int64) float64 {
	if b+c == 0 {
		return 1
	}
	x := distuv.Binomial{N: float64(b + c), P: 0.5}.CDF(float64(min(b, c)))
	return min(1, 2*x)
}

// McNemarGreater is the exact one-sided McNemar p-value for the
// alternative "b-type discordance is more likely than c-type":
// P(X ≥ b) with X ~ Binomial(b+c, ½), which by symmetry is P(X ≤ c).
func McNemarGreater(b, c int64) float64 {
	if b+c == 0 {
		return 1
	}
	return distuv.Binomial{N: float64(b + c), P: 0.5}.CDF(float64(c))
}

// NewcombePaired is Newcombe's (1998) method 10 interval for the
// difference p1 − p2 of paired proportions, square-and-add on Wilson score
// intervals. Cells: a = both positive, b = first only, c = second only,
// d = neither; the estimate is (b − c)/n. The correlation term follows the
// paper: with A = ad − bc, φ = (A − n/2)/√(marginals) when A > n/2, 0 when
// 0 ≤ A ≤ n/2, A/√(marginals) when A < 0, and 0 when a marginal is 0.
// Cells may be fractional (sample-size projection). n must be > 0.
func NewcombePaired(a, b, c, d, z float64) (est, lo, hi float64) {
	n := a + b + c + d
	p1, p2 := (a+b)/n, (a+c)/n
	est = (b - c) / n
	l1, u1 := Wilson(a+b, n, z)
	l2, u2 := Wilson(a+c, n, z)
	var phi float64
	if marg := (a + b) * (c + d) * (a + c) * (b + d); marg > 0 {
		switch A := a*d - b*c; {
		case A > n/2:
			phi = (A - n/2) / math.Sqrt(marg)
		case A < 0:
			phi = A / math.Sqrt(marg)
		}
	}
	dl1, du2 := p1-l1, u2-p2
	dl2, du1 := p2-l2, u1-p1
	lo = est - math.Sqrt(max(0, dl1*dl1-2*phi*dl1*du2+du2*du2))
	hi = est + math.Sqrt(max(0, dl2*dl2-2*phi*dl2*du1+du1*du1))
	return est, max(lo, -1), min(hi, 1)
}

// smallestN returns the smallest n ≥ from for which ok(n) holds, searching
// by doubling then bisection (ok is assumed monotone in n); nil when no n up
// to 2⁴⁰ works.
func smallestN(from int64, ok func(n int64) bool) *int64 {
	if from < 1 {
		from = 1
	}
	if ok(from) {
		return &from
	}
	lo, hi := from, from*2
	for !ok(hi) {
		if hi > 1<<40 {
			return nil
		}
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return &hi
}

func ptr(v float64) *float64 { return &v }

// ratio returns num/den, nil when den is 0 (the metric does not apply).
func ratio(num, den int64) *float64 {
	if den == 0 {
		return nil
	}
	return ptr(float64(num) / float64(den))
}

// Adjustments of p-values across tests (Criterion.Adjustment,
// Figure.QValue's).
const (
	AdjustHolm = "holm"
	AdjustBH   = "benjamini_hochberg"
)

// Holm returns Holm's step-down adjusted p-values (family-wise error),
// in the order given: sorted ascending, p_(i) × (m − i + 1), made
// non-decreasing, capped at 1.
func Holm(ps []float64) []float64 {
	m := len(ps)
	idx := ascending(ps)
	out := make([]float64, m)
	run := 0.0
	for r, i := range idx {
		run = max(run, min(1, ps[i]*float64(m-r)))
		out[i] = run
	}
	return out
}

// BenjaminiHochberg returns the Benjamini–Hochberg q-values (false
// discovery rate) of ps, in the order given: sorted ascending,
// p_(i) × m / i, made non-increasing from the largest down, capped at 1.
func BenjaminiHochberg(ps []float64) []float64 {
	m := len(ps)
	idx := ascending(ps)
	out := make([]float64, m)
	run := 1.0
	for r := m - 1; r >= 0; r-- {
		i := idx[r]
		run = min(run, ps[i]*float64(m)/float64(r+1))
		out[i] = min(1, run)
	}
	return out
}

// mcnemarGain is the one-sided exact McNemar test of a paired difference
// on b first-side-only and c second-side-only of n units, one unit per
// session, and its inversion at level alpha (docs/statistics.md, "The
// recall gain"). Given the D = b + c discordant units, b ~ Bin(D, θ)
// with θ the share the first side alone catches; the difference is
// (2θ − 1)·π, π the discordant share of all units. θ's one-sided bounds
// are Clopper–Pearson's, found by bisection on the same binomial tail
// whose value at θ = ½ is the test's p (pG = McNemarGreater(b, c),
// pL = McNemarGreater(c, b)), each bisection starting from ½ on the side
// the test decided: θ_L > ½ exactly when pG < alpha, θ_U < ½ exactly when
// pL < alpha. Each bound takes π's one-sided Clopper–Pearson bound (at
// alpha) on the side that keeps it conservative, so its sign is the
// test's and it lies within [−1, 1]; with no discordant unit the bounds
// are ± π's upper bound, not a point at 0.
func mcnemarGain(b, c, n int64, alpha float64) (lo, hi, pG, pL float64) {
	D := b + c
	thLo, thHi, pG, pL := cpShare(b, c, alpha)
	piLo, piHi := 0.0, 1.0
	if D > 0 {
		piLo = distuv.Beta{Alpha: float64(D), Beta: float64(n-D) + 1}.Quantile(alpha)
	}
	if D < n {
		piHi = distuv.Beta{Alpha: float64(D) + 1, Beta: float64(n - D)}.Quantile(1 - alpha)
	}
	scale := func(g float64, up bool) float64 {
		if (g > 0) == up {
			return g * piHi
		}
		return g * piLo
	}
	lo, hi = scale(2*thLo-1, false), scale(2*thHi-1, true)
	return max(lo, -1), min(hi, 1), pG, pL
}

// cpShare is the exact one-sided binomial test of "the first side's share
// θ of the b + c discordant units exceeds ½" (pG = McNemarGreater(b, c))
// and of "it falls short" (pL = McNemarGreater(c, b)), with Clopper–
// Pearson's one-sided bounds of θ at level alpha, each found by bisection
// on the very binomial tail whose value at θ = ½ is its p, starting from
// ½ on the side the test decided: thLo > ½ exactly when pG < alpha,
// thHi < ½ exactly when pL < alpha (no rounding can split them). With no
// discordant unit θ is [0, 1] and both p's are 1.
func cpShare(b, c int64, alpha float64) (thLo, thHi, pG, pL float64) {
	D := b + c
	pG, pL = McNemarGreater(b, c), McNemarGreater(c, b)
	// P(X ≥ b) at θ: by symmetry P(Bin(D, 1−θ) ≤ c), the call whose
	// value at ½ is pG; P(X ≤ b) at θ, pL's.
	tailG := func(th float64) float64 { return distuv.Binomial{N: float64(D), P: 1 - th}.CDF(float64(c)) }
	tailL := func(th float64) float64 { return distuv.Binomial{N: float64(D), P: th}.CDF(float64(b)) }
	// bisect returns the end of [x, y] whose tail is at least alpha
	// (x's is below it) after 60 halvings.
	bisect := func(tail func(float64) float64, x, y float64) float64 {
		for range 60 {
			m := (x + y) / 2
			if tail(m) < alpha {
				x = m
			} else {
				y = m
			}
		}
		return y
	}
	thLo, thHi = 0, 1
	if D == 0 {
		return thLo, thHi, pG, pL
	}
	switch {
	case pG < alpha:
		thLo = bisect(tailG, 0.5, 1)
	case b > 0:
		thLo = bisect(tailG, 0, 0.5)
	}
	switch {
	case pL < alpha:
		thHi = bisect(tailL, 0.5, 0)
	case c > 0:
		thHi = bisect(tailL, 1, 0.5)
	}
	return thLo, thHi, pG, pL
}

// ascending is the indexes of ps in ascending order of p, ties in the
// order given (Holm's and Benjamini–Hochberg's ranks, holmLevels').
func ascending(ps []float64) []int {
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	return idx
}
