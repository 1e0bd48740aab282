package metrics

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestRatioIntervalHand: ClusteredInterval against the ratio interval
// computed by hand (docs/statistics.md, "Intervals that respect
// sessions"). Four sessions of 10 with 9, 8, 10, 7 successes: R = 0.85,
// residuals 0.5, −0.5, 1.5, −1.5, leverage 1/4 each, so v = 5/0.75/40² =
// 1/240, n_eff = 0.85·0.15·240 = 30.6, and equal sizes give K − 1 = 3
// degrees of freedom whatever the ICC.
func TestRatioIntervalHand(t *testing.T) {
	t.Parallel()
	ys, ms := []int64{9, 8, 10, 7}, []int64{10, 10, 10, 10}
	f, ok := fitRatio(newBBPosterior(ys, ms, 1).pairs)
	if !ok || f.df != 3 {
		t.Fatalf("fitRatio: ok %v, df %v, want 3", ok, f.df)
	}
	lo, hi, deff := f.interval(0.95)
	n := 0.85 * 0.15 * 240
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 3}.Quantile(0.975)
	wl, wh := Wilson(0.85*n, n, tq)
	near(t, "lo", lo, wl, 1e-9)
	near(t, "hi", hi, wh, 1e-9)
	near(t, "deff", deff, 40/n, 1e-9)
	// Fewer than 10 degrees of freedom: the beta-binomial.
	bl, bh, _ := BetaBinomialInterval(ys, ms, 0.95)
	lo, hi, _ = ClusteredInterval(ys, ms, 0.95)
	near(t, "few sessions lo", lo, bl, 0)
	near(t, "few sessions hi", hi, bh, 0)

	// Twelve sessions of 10 (11 degrees of freedom), each with a failure:
	// the ratio interval alone, v = Σ(y − R·m)²/(1 − 1/12)/120².
	ys, ms = []int64{9, 8, 9, 7, 9, 9, 8, 6, 8, 9, 9, 7}, []int64{10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10}
	var Y float64
	for _, y := range ys {
		Y += float64(y)
	}
	r := Y / 120
	var v float64
	for _, y := range ys {
		v += (float64(y) - 10*r) * (float64(y) - 10*r)
	}
	v = v / (1 - 1.0/12) / (120 * 120)
	n = min(120, r*(1-r)/v)
	wl, wh = Wilson(r*n, n, distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 11}.Quantile(0.975))
	lo, hi, deff = ClusteredInterval(ys, ms, 0.95)
	near(t, "12 sessions lo", lo, wl, 1e-9)
	near(t, "12 sessions hi", hi, wh, 1e-9)
	near(t, "12 sessions deff", deff, 120/n, 1e-9)

	// Sessions without units are ignored.
	lo2, hi2, _ := ClusteredInterval(append([]int64{0}, ys...), append([]int64{0}, ms...), 0.95)
	near(t, "lo with an empty session", lo2, lo, 0)
	near(t, "hi with an empty session", hi2, hi, 0)
	// 5/10 and 4/10: n_eff = 0.2475/0.0025 = 99 is capped at M = 20
	// (design effect ≥ 1), t₁(0.975) = 12.706205 from tables.
	f, _ = fitRatio(newBBPosterior([]int64{5, 4}, []int64{10, 10}, 1).pairs)
	lo, hi, deff = f.interval(0.95)
	near(t, "capped lo", lo, 0.023109247, 1e-6)
	near(t, "capped hi", hi, 0.965868289, 1e-6)
	near(t, "capped deff", deff, 1, 0)
	// No spread between sessions (every one all successes, none at all,
	// every session at one rate) or a single session: the variance says
	// nothing, and the interval is the beta-binomial's.
	for _, c := range []struct{ ys, ms []int64 }{
		{[]int64{4, 6, 3}, []int64{4, 6, 3}}, {[]int64{7}, []int64{9}},
		{[]int64{0, 0, 0, 0, 0, 0, 0, 0}, []int64{35, 35, 35, 35, 35, 35, 35, 35}}, {[]int64{2, 2, 2}, []int64{4, 4, 4}},
	} {
		lo, hi, _ := ClusteredInterval(c.ys, c.ms, 0.95)
		blo, bhi, _ := BetaBinomialInterval(c.ys, c.ms, 0.95)
		if lo != blo || hi != bhi {
			t.Errorf("%v/%v: [%g, %g], want the beta-binomial's [%g, %g]", c.ys, c.ms, lo, hi, blo, bhi)
		}
	}
	// The rarer outcome in fewer than 10 sessions: the beta-binomial, so
	// one event never bounds the rate below what none does (150 sessions of 10: 0/1500 gives [0, 0.0079]).
	ms150 := make([]int64, 150)
	for i := range ms150 {
		ms150[i] = 10
	}
	ys150 := make([]int64, 150)
	_, h0, _ := ClusteredInterval(ys150, ms150, 0.95)
	for k := range 9 {
		ys150[k] = 1
		_, h, _ := ClusteredInterval(ys150, ms150, 0.95)
		if h < h0 {
			t.Errorf("%d events in 1500 units over 150 sessions: upper bound %v, below the %v of one fewer", k+1, h, h0)
		}
		h0 = h
	}

	// No event in 280 calls over 8 sessions: not the single-session worst
	// case (a flat prior on the ICC gave 0.237), not the binomial (0.013).
	if _, hi, _ := ClusteredInterval(make([]int64, 8), []int64{35, 35, 35, 35, 35, 35, 35, 35}, 0.95); hi < 0.05 || hi > 0.15 {
		t.Errorf("0 of 280 in 8 sessions: upper bound %v, want about 0.115", hi)
	}

	// The interval holds the ratio, not the mean of the sessions' rates:
	// one long session at 0.5 and nine short ones at 1.
	ys, ms = []int64{50, 3, 3, 3, 3, 3, 3, 3, 3, 3}, []int64{100, 3, 3, 3, 3, 3, 3, 3, 3, 3}
	lo, hi, _ = ClusteredInterval(ys, ms, 0.95)
	if r := 77.0 / 127; lo > r || hi < r {
		t.Errorf("[%v, %v] does not hold the ratio %v", lo, hi, r)
	}
}

// TestBellMcCaffreyDF: the closed-form degrees of freedom against the
// K × K matrices they stand for, (tr DB)²/tr((DB)²), B = C·Ω·Cᵀ,
// C = I − m·1ᵀ/M, D = diag(1/(1 − m_g/M)), Ω = diag(m_g(1 + (m_g − 1)ρ)).
func TestBellMcCaffreyDF(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ms  []float64
		rho float64
	}{
		{[]float64{10, 10, 10, 10}, 0.3},
		{[]float64{100, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 0},
		{[]float64{100, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 0.4},
		{[]float64{20, 20, 1, 1, 1, 5, 7}, 0.2},
	} {
		k := len(c.ms)
		var M float64
		var s []ymf
		for _, m := range c.ms {
			M += m
			s = append(s, ymf{0, m, 1})
		}
		C, D, O := mat.NewDense(k, k, nil), mat.NewDense(k, k, nil), mat.NewDense(k, k, nil)
		for g := range k {
			for h := range k {
				v := -c.ms[g] / M
				if g == h {
					v++
				}
				C.Set(g, h, v)
			}
			D.Set(g, g, 1/(1-c.ms[g]/M))
			O.Set(g, g, c.ms[g]*(1+(c.ms[g]-1)*c.rho))
		}
		var B, DB, DB2 mat.Dense
		B.Product(C, O, C.T())
		DB.Mul(D, &B)
		DB2.Mul(&DB, &DB)
		want := math.Pow(mat.Trace(&DB), 2) / mat.Trace(&DB2)
		near(t, "df", bellMcCaffrey(s, M, c.rho), want, 1e-9*want)
	}
	// Equal sizes: K − 1.
	near(t, "equal sizes", bellMcCaffrey([]ymf{{0, 10, 4}}, 40, 0.3), 3, 1e-9)
}
