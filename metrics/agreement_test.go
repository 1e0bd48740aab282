package metrics

import (
	"math"
	"testing"
)

func TestCohenKappaHandComputed(t *testing.T) {
	t.Parallel()
	// 10 items: both match on 4, both no_match on 4, 2 split (a match, b not).
	a := []bool{true, true, true, true, false, false, false, false, true, true}
	b := []bool{true, true, true, true, false, false, false, false, false, false}
	k := CohenKappa(a, b, 0.95)
	// p_o = 0.8; p_a = 0.6, p_b = 0.4; p_e = 0.24 + 0.24 = 0.48;
	// κ = 0.32/0.52 = 0.615385.
	nearW(t, "observed", k.Observed, 0.8, 1e-12)
	nearW(t, "kappa", *k.Kappa, 0.32/0.52, 1e-12)
	if !(*k.Lo < *k.Kappa && *k.Kappa < *k.Hi) || *k.Hi > 1 {
		t.Errorf("interval [%v, %v]", *k.Lo, *k.Hi)
	}
}

func TestFleissKappaHandComputed(t *testing.T) {
	t.Parallel()
	// Three raters on four items: 3/0, 0/3, 2/1, 1/2 match/no_match.
	items := [][]bool{{true, true, true}, {false, false, false}, {true, true, false}, {true, false, false}}
	k := FleissKappa(items, 3, 0.95)
	// P_i = 1, 1, 1/3, 1/3 → P̄ = 2/3; p_match = 6/12 → P_e = 0.5;
	// κ = (2/3 − 1/2)/(1/2) = 1/3.
	nearW(t, "observed", k.Observed, 2.0/3, 1e-12)
	nearW(t, "kappa", *k.Kappa, 1.0/3, 1e-12)
	// With two raters on every item Fleiss' κ differs from Cohen's only by
	// its pooled chance term.
	if k.Items != 4 || k.Method != "fleiss" {
		t.Errorf("%+v", k)
	}
}

func TestKappaUndefined(t *testing.T) {
	t.Parallel()
	k := CohenKappa([]bool{true, true}, []bool{true, true}, 0.95)
	if k.Kappa != nil || k.Observed != 1 {
		t.Errorf("%+v", k)
	}
}

// The profile interval's bounds, checked by brute force: just inside a
// bound some pair of match shares fits the table at χ² ≤ χ²₁(0.95) on a
// dense grid, just outside none does; and κ̂ lies inside.
func TestCohenProfileIntervalBruteForce(t *testing.T) {
	t.Parallel()
	const crit = 3.841458820694124
	minChi := func(cell [4]float64, k0 float64) float64 {
		n := cell[0] + cell[1] + cell[2] + cell[3]
		best := math.Inf(1)
		const steps = 1200
		for i := 1; i < steps; i++ {
			for j := 1; j < steps; j++ {
				best = math.Min(best, kappaPearson(cell, n, float64(i)/steps, float64(j)/steps, k0))
			}
		}
		return best
	}
	for _, cell := range [][4]float64{{3, 2, 1, 44}, {20, 5, 7, 68}, {0, 2, 3, 95}} {
		var a, b []bool
		for c, cnt := range cell {
			for range int(cnt) {
				a, b = append(a, c == 0 || c == 1), append(b, c == 0 || c == 2)
			}
		}
		k := CohenKappa(a, b, 0.95)
		lo, hi, kap := *k.Lo, *k.Hi, *k.Kappa
		if !(lo <= kap && kap <= hi) {
			t.Errorf("%v: κ̂ %.4f outside [%.4f, %.4f]", cell, kap, lo, hi)
		}
		for _, b := range []struct {
			at, step float64
		}{{lo, -0.01}, {hi, 0.01}} {
			if in := b.at - b.step; minChi(cell, in) > crit {
				t.Errorf("%v: %.4f, inside the bound %.4f, fits no shares", cell, in, b.at)
			}
			if out := b.at + b.step; out >= -1 && out <= 1 && minChi(cell, out) <= crit {
				t.Errorf("%v: %.4f, outside the bound %.4f, fits some shares", cell, out, b.at)
			}
		}
	}
}

// Fleiss' profile interval, checked by brute force with the
// beta-binomial probabilities written independently (log-gamma form,
// α = μ(1−ρ)/ρ, β = (1−μ)(1−ρ)/ρ): just inside each positive bound the
// likelihood maximised over a dense grid of μ is within χ²₁(0.95)/2 of
// the maximum, just outside it is not.
func TestFleissProfileIntervalBruteForce(t *testing.T) {
	t.Parallel()
	lbeta := func(a, b float64) float64 {
		la, _ := math.Lgamma(a)
		lb, _ := math.Lgamma(b)
		lab, _ := math.Lgamma(a + b)
		return la + lb - lab
	}
	loglik := func(items [][]bool, rho float64) float64 {
		count := map[[2]int]float64{} // (m, x) → items
		for _, it := range items {
			x := 0
			for _, v := range it {
				if v {
					x++
				}
			}
			count[[2]int{len(it), x}]++
		}
		best := math.Inf(-1)
		for i := 1; i < 2000; i++ {
			mu := float64(i) / 2000
			a, b := mu*(1-rho)/rho, (1-mu)*(1-rho)/rho
			var s float64
			for mx, w := range count {
				s += w * (lbeta(float64(mx[1])+a, float64(mx[0]-mx[1])+b) - lbeta(a, b))
			}
			best = math.Max(best, s)
		}
		return best
	}
	// 30 items of three ratings: 3/3 on 4, 2/3 on 3, 1/3 on 5, 0/3 on 18;
	// and 40 items of two to four ratings.
	var a, b [][]bool
	for _, c := range []struct{ n, x int }{{4, 3}, {3, 2}, {5, 1}, {18, 0}} {
		for range c.n {
			a = append(a, []bool{c.x > 0, c.x > 1, c.x > 2})
		}
	}
	for i := range 40 {
		it := make([]bool, 2+i%3)
		for j := range it {
			it[j] = (i%5 == 0) || (i%7 == 0 && j == 0)
		}
		b = append(b, it)
	}
	const half = 3.841458820694124 / 2
	for name, items := range map[string][][]bool{"three ratings": a, "two to four": b} {
		k := FleissKappa(items, 4, 0.95)
		lo, hi, kap := *k.Lo, *k.Hi, *k.Kappa
		if !(lo <= kap && kap <= hi) {
			t.Fatalf("%s: κ̂ %.4f outside [%.4f, %.4f]", name, kap, lo, hi)
		}
		max, at := math.Inf(-1), 0.0
		for r := 0.02; r < 1; r += 0.02 {
			if v := loglik(items, r); v > max {
				max, at = v, r
			}
		}
		for r := math.Max(at-0.02, 0.001); r < math.Min(at+0.02, 0.999); r += 0.001 {
			max = math.Max(max, loglik(items, r))
		}
		for _, bd := range []struct{ at, step float64 }{{lo, -0.01}, {hi, 0.01}} {
			if bd.at <= 0.02 || bd.at >= 0.98 {
				continue // the log-gamma form needs 0 < ρ < 1 on both sides
			}
			if in := bd.at - bd.step; max-loglik(items, in) > half+1e-3 {
				t.Errorf("%s: ρ %.4f, inside the bound %.4f, is rejected", name, in, bd.at)
			}
			if out := bd.at + bd.step; max-loglik(items, out) <= half-1e-3 {
				t.Errorf("%s: ρ %.4f, outside the bound %.4f, is not rejected", name, out, bd.at)
			}
		}
		t.Logf("%s: κ̂ %.4f [%.4f, %.4f]", name, kap, lo, hi)
	}
}
