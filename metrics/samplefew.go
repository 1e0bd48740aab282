package metrics

import (
	"math"
	"sort"
)

// fewSessionGuard is the unweighted path's few-session rule applied to a
// labeled proportion (docs/statistics.md, "The estimator"): the labeled
// units' weighted session totals, scaled to Kish's effective size of the
// weights (on census labels, weights 1, the counts themselves), are what
// ClusteredInterval would bound; where it would take the beta-binomial
// interval for resting on few sessions (its ratio variance on fewer than
// fewSessions degrees of freedom, or no spread over at most fewSessions
// sessions), ok is true and lo, hi are that interval, for the
// labeled interval to hold. On census labels (every unit weighs 1) it is
// ClusteredInterval of the same counts whatever the number of sessions:
// the labeled interval then holds the unweighted path's, rare-outcome
// rule included. kish is (Σw·x)²/Σ(w·x)², X = Σw·x.
func fewSessionGuard(units []SampleUnit, w []float64, f ratioFn, kish, X, conf float64) (lo, hi float64, ok bool) {
	if !(X > 0) || !(kish > 0) {
		return 0, 0, false
	}
	ys, ms := map[string]float64{}, map[string]float64{}
	var n float64
	census := true
	for i := range units {
		y, x := f(&units[i], units[i].Label)
		if x == 0 {
			continue
		}
		n++
		census = census && units[i].Stratum == CensusStratum
		ys[units[i].Session] += w[i] * y
		ms[units[i].Session] += w[i] * x
	}
	if n < 2*float64(len(ms)) || (!census && len(ms) >= 2*fewSessions) {
		// Many sessions, or labels spread about one to a session (a
		// queue's short prefix over many recorded sessions): not the
		// few clustered sessions the rule is about.
		return 0, 0, false
	}
	keys := make([]string, 0, len(ms))
	for k := range ms {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	scale := kish / X
	yi, mi := make([]int64, 0, len(keys)), make([]int64, 0, len(keys))
	for _, k := range keys {
		m := int64(math.Round(ms[k] * scale))
		y := min(m, int64(math.Round(ys[k]*scale)))
		if m <= 0 {
			continue
		}
		yi, mi = append(yi, y), append(mi, m)
	}
	p := newBBPosterior(yi, mi, 1)
	if p == nil || p.wilson {
		return 0, 0, false
	}
	if census {
		// Census labels (every unit weighs 1): the labeled interval
		// holds the unweighted path's own, at any number of sessions,
		// with its rarer-outcome rule. At 20–30 sessions the
		// design-based interval alone covered 0.76–0.88 where the
		// sessions' rates sit near 1 (μ = 0.99, ICC 0.1–0.5), the
		// unweighted one 0.98–0.995 (docs/statistics.md).
		lo, hi, _ = p.interval(conf)
		return lo, hi, true
	}
	// Few sessions: the ratio's variance rests on fewer than fewSessions
	// degrees of freedom (or, no spread to fit, at most fewSessions
	// sessions hold the units). Not the rule's rarer-outcome part, nor
	// where the labels are spread thin (above): on a queue's labels over
	// hundreds of sessions, their weights scaled to Kish's size, it put
	// most of the figure in a few sessions (a small df) and fired on
	// every rare error, widening intervals that held by up to 47 %
	// (docs/statistics.md).
	if fit, fitted := fitRatio(p.pairs); (fitted && fit.df >= fewSessions) || (!fitted && p.sessions() > fewSessions) {
		return 0, 0, false
	}
	lo, hi, d := p.bbInterval(conf)
	lo, hi, _ = p.sizeShift(lo, hi, d, conf)
	return lo, hi, true
}
