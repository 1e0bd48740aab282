package metrics

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MatchesHint is a precision's "+N" in sessions where the new run's
// labels go to the judge's match predictions, every one of them (label
// queue --matches): about Sessions more sessions of traffic (≈ Pairs
// pairs), a new run of them with the recorded ones, whose ≈ Labels match
// predictions of the judge are all labeled. Either is set when the
// sessions are sized to decide it either way (PASS or FAIL): the labels
// so far leave the other side of the threshold too likely for PASS
// alone (or FAIL alone) to reach the assurance.
type MatchesHint struct {
	Sessions, Pairs, Labels int64
	Either                  bool
}

// matchesToDecide sizes a precision's hint in sessions for a new run
// whose every match prediction of the judge is labeled (label queue
// --matches), the queue that spends labels only where precision rests:
// the fewest k more sessions after which, with probability target, the
// interval decides.
//
// The new run holds the K recorded sessions and k more, so the judge's
// match predictions grow from Den (the recorded ones, weighted) to
// M' = Den·(K + k)/K, all labeled: the figure is then the recorded
// pairs' own precision, its variance the sessions' alone, the binomial
// one over M' raised by the design effect d the sessions show (v₁ over
// the binomial variance over Den, at least 1). The precision of the
// traffic is Beta around the estimate with the verdict's effective n
// (R(1 − R)/Var; n_eff where R is 0 or 1), Jeffreys' ½ on each side, so
// the errors among n = M'/d effective predictions are beta-binomial; the
// interval then is Wilson's at n at the t quantile of the degrees of
// freedom then (dfAfter), as the verdict's at an end, and it decides
// where it lies wholly on one side of the threshold. P(k) sums the
// beta-binomial over the error counts that decide (either way): a
// "labeled at the same rate" hint (labelsToDecide) counted on the queue
// spreading a new run's labels like the ones given, and a new run's
// queue gives the judge's few match predictions labels by Neyman
// allocation, in proportion to their size, not the minimum of 5 that
// gave them their share of the first 24 (docs/statistics.md, "A rule
// with very few match predictions").
func matchesToDecide(f WeightedRatio, thr, conf, target float64) (MatchesHint, bool) {
	K, P := f.traffic()
	if f.Estimate == nil || !(f.Den > 0) || !(K > 0) || !(target > 0 && target < 1) {
		return MatchesHint{}, false
	}
	est := *f.Estimate
	n0 := f.NEff
	if est > 0 && est < 1 && f.Var > 0 {
		n0 = est * (1 - est) / f.Var
	}
	if !(n0 > 0) {
		return MatchesHint{}, false
	}
	// Errors (1 − precision) ~ Beta(β, α).
	alpha, beta := est*n0+0.5, (1-est)*n0+0.5
	d := 1.0
	if est > 0 && est < 1 {
		if v1 := f.Var - f.SampledVar; v1 > 0 {
			d = max(1, v1/(est*(1-est)/f.Den))
		}
	}
	decide := func(k float64, passOnly bool) float64 {
		u := K / (K + k)
		n := math.Floor(f.Den / u / d)
		if n < 1 || n > maxCensus {
			return 0
		}
		q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: dfAfter(f.DF, 1/u)}.Quantile(1 - (1-conf)/2)
		return betaBinomDecides(n, beta, alpha, thr, q, passOnly)
	}
	p := func(k float64) float64 { return decide(k, false) }
	k, ok := assuredCount(p, target)
	if !ok || k == 0 {
		return MatchesHint{}, false
	}
	u := K / (K + float64(k))
	return MatchesHint{
		Sessions: k,
		Pairs:    int64(math.Ceil(float64(k) * P / K)),
		Labels:   int64(math.Ceil(f.Den / u)),
		Either:   decide(float64(k), true) < target,
	}, true
}

// maxCensus bounds the match predictions a MatchesHint may ask to label
// (and the sum betaBinomDecides takes): beyond it there is no hint of
// this kind (the search ends; the hint falls back to labelsToDecide's).
const maxCensus = 200_000

// betaBinomDecides is the probability that x errors among n, x
// beta-binomial (n, a, b), leave Wilson's interval at quantile q for the
// precision (n − x)/n wholly above thr (PASS) or, unless passOnly,
// wholly below it (FAIL).
func betaBinomDecides(n, a, b, thr, q float64, passOnly bool) float64 {
	// pmf(0) = B(a, n + b)/B(a, b); pmf(x+1) = pmf(x)·(n−x)/(x+1)·(x+a)/(n−x−1+b).
	// Wilson's bounds fall as x grows: PASS for x ≤ xp, FAIL for x ≥ xf
	// (first x where each stops or starts), found by bisection; the sum
	// runs to xf only, the FAIL side being 1 less the rest.
	first := func(ok func(x float64) bool) float64 { return bisectFirst(-1, n+1, ok) } // first x in [0, n+1] with ok
	xp := first(func(x float64) bool { l, _ := Wilson(n-x, n, q); return !(l > thr) }) // first x not PASS
	xf := first(func(x float64) bool { _, h := Wilson(n-x, n, q); return h < thr })    // first x FAIL
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	pmf := math.Exp(lg(n+b) + lg(a+b) - lg(n+a+b) - lg(b))
	pass, below := 0.0, 0.0
	for x := 0.0; x < max(xp, xf) && x <= n; x++ {
		if x < xp {
			pass += pmf
		}
		if x < xf {
			below += pmf
		}
		pmf *= (n - x) / (x + 1) * (x + a) / (n - x - 1 + b)
	}
	if passOnly || xf > n {
		return pass
	}
	return pass + max(0, 1-below)
}

// matchesCommand is the label queue command of a MatchesHint: the new
// run's every unlabeled match prediction of the judge on the rule.
func matchesCommand(f WeightedRatio) string {
	rule, judge := f.Rule, f.Judge
	if rule == "" {
		rule = "RULE"
	}
	if judge == "" {
		judge = "JUDGE"
	}
	return fmt.Sprintf("apeval label queue NEW_RUN --rule %s --matches %s", shellWord(rule), shellWord(judge))
}
