package metrics

import (
	"math"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/optimize"
)

// sizeSlope is the signed root of the likelihood-ratio statistic for a
// size slope in a beta-binomial model of the sessions: session i's rate
// has mean μ_i, logit μ_i = a + b·(log m_i − x̄) (x̄ the sessions' mean
// log size), and a common intra-class correlation ρ; the statistic is
// 2·(ℓ̂(a, b, ρ) − ℓ̂(a, 0, ρ)), ρ refitted under each model, its root
// signed by b̂. false where the sessions are of one size or fewer than
// three.
//
// It is sizeShift's model-based test that a session's rate depends on its
// size, beside the design-based test of δ = R − p̄. That one's standard
// error is the sessions' jackknife and cannot tell one session holding
// half the units that happens to differ from the rest from a size effect
// (|δ|/se 1.07–1.71 in the misses of ten sessions at ICC 0.5;
// docs/statistics.md, "Informative session size, few sessions"). The model
// sees what the jackknife cannot: sessions whose rates are nearly a
// function of their size (small ones near 0, large ones near the truth)
// leave no spread once the slope is fitted, so ρ falls and the slope
// stands out; where rates do not depend on size, the small sessions'
// own spread (and their binomial noise, which the model counts) keeps
// it down. The statistic's χ² reference does not hold with a handful of
// sessions (one session of 100 beside nine of 3 at ICC 0.3 exceeds the
// 2 % point, 2.33, 14 % of the time), so sizeShift compares it with
// sizeSlopeCut, and does not ask it about a rare outcome, whose few events
// in one or two large sessions a slope fits as well as a size effect.
func sizeSlope(s []ymf) (r float64, ok bool) {
	var K, xbar, Y, M float64
	m0, same := -1.0, true
	for _, x := range s {
		if x.m <= 0 || x.n <= 0 {
			continue
		}
		if m0 >= 0 && x.m != m0 {
			same = false
		}
		m0 = x.m
		K += x.n
		xbar += x.n * math.Log(x.m)
		Y += x.n * x.y
		M += x.n * x.m
	}
	if same || K < 3 {
		return 0, false
	}
	xbar /= K
	type obs struct{ y, m, n, x float64 }
	d := make([]obs, 0, len(s))
	for _, x := range s {
		if x.m > 0 && x.n > 0 {
			d = append(d, obs{x.y, x.m, x.n, math.Log(x.m) - xbar})
		}
	}
	// Parameters (a, s, b): θ = exp(s) = (1 − ρ)/ρ, held within
	// [e^−6, e^14] (ρ from 1e−6 to 0.998), where the likelihood is flat.
	const sLo, sHi = -6.0, 14.0
	nll := func(p, g []float64, slope bool) float64 {
		a, sp := p[0], p[1]
		b := 0.0
		if slope {
			b = p[2]
		}
		sc := min(sHi, max(sLo, sp))
		th := math.Exp(sc)
		var l, ga, gs, gb float64
		lgTh, _ := math.Lgamma(th)
		dgTh := mathext.Digamma(th)
		for _, o := range d {
			mu := logistic(a + b*o.x)
			mu = min(1-1e-12, max(1e-12, mu))
			al, be := mu*th, (1-mu)*th
			l1, _ := math.Lgamma(o.y + al)
			l2, _ := math.Lgamma(al)
			l3, _ := math.Lgamma(o.m - o.y + be)
			l4, _ := math.Lgamma(be)
			l5, _ := math.Lgamma(o.m + th)
			l += o.n * (l1 - l2 + l3 - l4 + lgTh - l5)
			if g == nil {
				continue
			}
			A := mathext.Digamma(o.y+al) - mathext.Digamma(al)
			B := mathext.Digamma(o.m-o.y+be) - mathext.Digamma(be)
			C := dgTh - mathext.Digamma(o.m+th)
			de := o.n * th * mu * (1 - mu) * (A - B)
			ga += de
			gb += de * o.x
			gs += o.n * th * (mu*A + (1-mu)*B + C)
		}
		if g != nil {
			g[0], g[1] = -ga, -gs
			if sp != sc {
				g[1] = 0
			}
			if slope {
				g[2] = -gb
			}
		}
		return -l
	}
	rate := min(0.99, max(0.01, Y/M))
	a0 := math.Log(rate / (1 - rate))
	fit := func(slope bool) (float64, float64) {
		best, bh := math.Inf(1), 0.0
		for _, s0 := range []float64{0, 4} {
			x0 := []float64{a0, s0}
			if slope {
				x0 = append(x0, 0)
			}
			prob := optimize.Problem{
				Func: func(p []float64) float64 { return nll(p, nil, slope) },
				Grad: func(g, p []float64) { nll(p, g, slope) },
			}
			res, err := optimize.Minimize(prob, x0, &optimize.Settings{
				MajorIterations: 200,
				Converger:       &optimize.FunctionConverge{Absolute: 1e-8, Iterations: 20},
			}, &optimize.BFGS{})
			if res == nil || (err != nil && math.IsInf(res.F, 0)) {
				continue
			}
			if res.F < best {
				best = res.F
				if slope {
					bh = res.X[2]
				}
			}
		}
		return best, bh
	}
	n0, _ := fit(false)
	n1, b := fit(true)
	if math.IsInf(n0, 0) || math.IsInf(n1, 0) {
		return 0, false
	}
	r = math.Sqrt(max(0, 2*(n0-n1)))
	if b < 0 {
		r = -r
	}
	return r, true
}
