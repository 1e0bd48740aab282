package metrics

import (
	"math"
	"testing"
)

const z95 = 1.959963984540054

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f (±%g)", what, got, want, tol)
	}
}

func TestZScore(t *testing.T) {
	t.Parallel()
	near(t, "z(0.95)", zScore(0.95), z95, 1e-9)
	near(t, "z(0.90)", zScore(0.90), 1.6448536269514722, 1e-9)
}

// Newcombe (1998), "Two-sided confidence intervals for the single
// proportion", Table I, method 3 (Wilson score, no continuity correction),
// printed to four decimals.
func TestWilsonPublished(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		x, n   float64
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0, 0.1611},
		{1, 29, 0.0061, 0.1718},
		// 29/29 mirrors 0/29: lo = 1 − 0.1170 (= z²/(n+z²) = 3.8415/32.8415).
		{29, 29, 0.8830, 1},
	} {
		lo, hi := Wilson(tc.x, tc.n, z95)
		near(t, "lo", lo, tc.lo, 5e-5)
		near(t, "hi", hi, tc.hi, 5e-5)
	}
}

func TestNearestRank(t *testing.T) {
	t.Parallel()
	seq := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i + 1)
		}
		return v
	}
	for _, tc := range []struct {
		n             int
		p50, p95, p99 float64
	}{
		// n = 1: every rank is ⌈p·1⌉ = 1.
		{1, 1, 1, 1},
		// n = 20: ⌈10⌉ = 10, ⌈19⌉ = 19 (0.95·20 is exactly 19: no float
		// rounding up to 20), ⌈19.8⌉ = 20.
		{20, 10, 19, 20},
		// n = 21: ⌈10.5⌉ = 11, ⌈19.95⌉ = 20, ⌈20.79⌉ = 21.
		{21, 11, 20, 21},
		// n = 100: 50, 95, 99 exactly.
		{100, 50, 95, 99},
	} {
		v := seq(tc.n)
		if got := NearestRank(v, 50, 100); got != tc.p50 {
			t.Errorf("n=%d p50 = %v, want %v", tc.n, got, tc.p50)
		}
		if got := NearestRank(v, 95, 100); got != tc.p95 {
			t.Errorf("n=%d p95 = %v, want %v", tc.n, got, tc.p95)
		}
		if got := NearestRank(v, 99, 100); got != tc.p99 {
			t.Errorf("n=%d p99 = %v, want %v", tc.n, got, tc.p99)
		}
	}
}

// The ranks come from Binomial(n, 0.95): l is the largest rank with
// F(l−1) ≤ 0.025, u the smallest with F(u−1) ≥ 0.975. Computed with exact
// binomial sums: n = 20 → l = 17, no u (0.95²⁰ = 0.358 > 0.025); n = 71 →
// l = 63, no u (0.95⁷¹ = 0.0262); n = 72 → l = 64, u = 72 (0.95⁷² = 0.0249);
// n = 100 → 90, 100; n = 200 → 184, 197.
func TestQuantileInterval(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, l, u int // 0 = no bound
	}{
		{1, 0, 0}, {20, 17, 0}, {71, 63, 0}, {72, 64, 72}, {100, 90, 100}, {200, 184, 197},
	} {
		v := make([]float64, tc.n)
		for i := range v {
			v[i] = float64(i + 1)
		}
		lo, hi := QuantileInterval(v, 95, 100, 0.95)
		check := func(name string, got *float64, rank int) {
			switch {
			case rank == 0 && got != nil:
				t.Errorf("n=%d %s = %v, want none", tc.n, name, *got)
			case rank != 0 && (got == nil || *got != float64(rank)):
				t.Errorf("n=%d %s = %v, want rank %d", tc.n, name, got, rank)
			}
		}
		check("lo", lo, tc.l)
		check("hi", hi, tc.u)
	}
	if minCallsForP95(0.95) != 72 {
		t.Errorf("minCallsForP95 = %d, want 72", minCallsForP95(0.95))
	}
}

func TestMcNemar(t *testing.T) {
	t.Parallel()
	// LIBRARIES.md vector: 2·P(X ≤ 12 | Binomial(37, ½)) = 0.04703.
	near(t, "two-sided(25,12)", McNemarTwoSided(25, 12), 0.04703, 5e-6)
	near(t, "two-sided(12,25)", McNemarTwoSided(12, 25), 0.04703, 5e-6)
	// b = c: 2·P(X ≤ 3 | Bin(6, ½)) = 2·42/64 > 1 → 1.
	near(t, "two-sided(3,3)", McNemarTwoSided(3, 3), 1, 0)
	near(t, "two-sided(0,0)", McNemarTwoSided(0, 0), 1, 0)
	// One-sided P(X ≥ 10 | Bin(12, ½)) = (1+12+66)/4096 = 0.019287.
	near(t, "greater(10,2)", McNemarGreater(10, 2), 79.0/4096, 1e-12)
	// P(X ≥ 9 | Bin(12, ½)) = (1+12+66+220)/4096 = 0.072998.
	near(t, "greater(9,3)", McNemarGreater(9, 3), 299.0/4096, 1e-12)
	// P(X ≥ 5 | Bin(5, ½)) = 1/32.
	near(t, "greater(5,0)", McNemarGreater(5, 0), 1.0/32, 1e-12)
	near(t, "greater(0,0)", McNemarGreater(0, 0), 1, 0)
}

// Cavo et al. (2012) complete response before and after consolidation, as
// worked in Fagerland, Lydersen & Laake, "Statistical Analysis of
// Contingency Tables" ch. 8 (Newcombe square-and-add): a = 59, b = 6,
// c = 16, d = 80 → −0.0621 (95 % CI −0.1186 to −0.0046).
// By hand: n = 161, p1 = 65/161 = 0.403727, p2 = 75/161 = 0.465839;
// Wilson 65/161 = [0.331037, 0.480904], 75/161 = [0.390481, 0.542789];
// A = 59·80 − 6·16 = 4624 > n/2, φ = (4624 − 80.5)/√(65·96·75·86) = 0.716174;
// lo = −0.062112 − √(0.072690² − 2φ·0.072690·0.076950 + 0.076950²) = −0.118621;
// hi = −0.062112 + √(0.075358² − 2φ·0.075358·0.077177 + 0.077177²) = −0.004625.
func TestNewcombePaired(t *testing.T) {
	t.Parallel()
	est, lo, hi := NewcombePaired(59, 6, 16, 80, z95)
	near(t, "est", est, -10.0/161, 1e-12)
	near(t, "lo", lo, -0.1186212, 1e-6)
	near(t, "hi", hi, -0.0046251, 1e-6)

	// No discordance and no variation: 10 both-fired of 10 → est 0;
	// Wilson 10/10 = [0.722467, 1], marginal product 0 → φ = 0,
	// lo = 0 − √((1−0.722467)² + 0) = −0.277533, hi = +0.277533.
	est, lo, hi = NewcombePaired(10, 0, 0, 0, z95)
	near(t, "est0", est, 0, 0)
	near(t, "lo0", lo, -0.2775327, 1e-6)
	near(t, "hi0", hi, 0.2775327, 1e-6)
}

func TestSmallestN(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ from, want int64 }{{1, 37}, {36, 37}, {37, 37}, {500, 500}} {
		got := smallestN(tc.from, func(n int64) bool { return n >= 37 })
		if got == nil || *got != tc.want {
			t.Errorf("smallestN(%d) = %v, want %d", tc.from, got, tc.want)
		}
	}
	if got := smallestN(1, func(int64) bool { return false }); got != nil {
		t.Errorf("never true: got %d, want nil", *got)
	}
}

func TestHolmBHHand(t *testing.T) {
	t.Parallel()
	ps := []float64{0.01, 0.04, 0.03, 0.5}
	// Holm: sorted 0.01·4 = 0.04, 0.03·3 = 0.09, 0.04·2 = 0.08 → 0.09
	// (non-decreasing), 0.5·1 = 0.5.
	for i, w := range []float64{0.04, 0.09, 0.09, 0.5} {
		near(t, "holm", Holm(ps)[i], w, 1e-12)
	}
	// BH: 0.01·4/1 = 0.04, 0.03·4/2 = 0.06, 0.04·4/3 = 0.05333, 0.5·4/4 =
	// 0.5; non-increasing from the top: 0.5, 0.05333, 0.05333, 0.04.
	for i, w := range []float64{0.04, 0.16 / 3, 0.16 / 3, 0.5} {
		near(t, "bh", BenjaminiHochberg(ps)[i], w, 1e-12)
	}
}

// TestMarkAtAlpha: p = 1 − confidence exactly is unmarked at every level
// (in floating point 1 − 0.95 is 0.05000000000000004 and 1 − 0.9 is
// 0.09999999999999998, which marked 0.05 but not 0.1).
func TestMarkAtAlpha(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ conf, p float64 }{{0.8, 0.2}, {0.9, 0.1}, {0.95, 0.05}, {0.99, 0.01}} {
		if (Figure{PValue: &c.p}).Significant(c.conf) {
			t.Errorf("p = %v marked at %v", c.p, c.conf)
		}
		below := c.p * 0.999
		if !(Figure{PValue: &below}).Significant(c.conf) {
			t.Errorf("p = %v not marked at %v", below, c.conf)
		}
	}
	// The q-value decides when present.
	p, q := 0.01, 0.2
	if (Figure{PValue: &p, QValue: &q}).Significant(0.95) {
		t.Error("marked by p despite q")
	}
}
