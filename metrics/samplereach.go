package metrics

// A prefix of the labeling queue is a stratified random sample of the
// strata it has reached, not of the others: the queue interleaves its
// strata, so the first labels of a rule may leave strata without a single
// label. The weighted totals know nothing of the pairs in those strata
// (they weigh N_h/n_h over the labeled strata only), and a figure on the
// reached strata alone can be far from the rule's: 10 labels leaving the
// 11 pairs two judges both call match unreached gave precision 0.3 where
// the rule's is 0.95. So a figure's interval is widened to hold every
// split of the unreached pairs (from all right to all wrong, the bounds
// of a missing-data interval) and the verdict decides on that; the
// estimate stays the reached strata's and the reason says how many pairs
// it leaves out (docs/statistics.md, "Queue prefixes that leave strata
// out").

// reachKind says how unreached pairs can enter a figure.
type reachKind int

const (
	// reachPrecision: an unreached pair the judge called match is a TP or
	// an FP; the others are outside the figure.
	reachPrecision reachKind = iota
	// reachRecall: an unreached pair the judge called match may be a TP
	// (or outside the figure, a negative); one it did not call match may
	// be an FN (or outside).
	reachRecall
	// reachGain: a paired recall difference; any unreached pair may be a
	// positive either judge alone catches.
	reachGain
)

// unreached counts, for judge j on rule, the unlabeled pairs of the rule
// (the pairs the queue was drawn from) in strata without a labeled unit
// among units — the rule's unlabeled pairs less the sizes of the sampled
// strata the units reach — and how many of them the judge called match
// (its match predictions less the reached strata's estimated ones; exact
// when the judge is one of the queue's stratifying judges, as by
// default). predicted is every unlabeled pair the judge called match.
// With no sampled unit (the queue has not reached the rule, or labels of
// another queue's rules) nothing is counted: the figure is the census's,
// as without a queue.
func (t *PairTable) unreached(rule string, j int, units []SampleUnit) (match, other, predicted float64) {
	var sampled bool
	var covered, coveredMatch float64
	for _, s := range strataOf(units) {
		if s.census {
			continue
		}
		sampled = true
		var m float64
		for _, i := range s.idx {
			if units[i].Match {
				m++
			}
		}
		covered += s.size
		coveredMatch += s.size * m / float64(s.labeled)
	}
	var all float64
	for _, p := range t.order {
		if p.RuleID != rule || p.Label != "" {
			continue
		}
		all++
		if p.Results[j] == QueueMatch {
			predicted++
		}
	}
	out := all - covered
	if !sampled || out < 0.5 {
		return 0, 0, predicted
	}
	match = min(max(predicted-coveredMatch, 0), out)
	if match < 0.5 {
		match = 0
	}
	return match, out - match, predicted
}

// reach returns f with its interval widened to hold any split of the
// unreached pairs (match of them the judge called match, other the
// rest): with D the weighted denominator and [lo, hi] the sampling
// interval on the reached strata,
//
//	precision: [lo·D/(D+m), (hi·D+m)/(D+m)]   (m pairs all FP … all TP)
//	recall:    [lo·D/(D+o), (hi·D+m)/(D+m)]   (o all FN … m all TP)
//	gain:      [(lo·D−u)/(D+u), (hi·D+u)/(D+u)], u = m + o
//
// all within the figure's range. Without unreached pairs f is unchanged.
func (f WeightedRatio) reach(kind reachKind, match, other, predicted float64) WeightedRatio {
	f.Predicted = predicted
	if f.Lo == nil || f.Hi == nil || match+other <= 0 {
		return f
	}
	D, lo, hi := f.Den, *f.Lo, *f.Hi
	switch kind {
	case reachPrecision:
		if match <= 0 {
			return f
		}
		lo, hi = lo*D/(D+match), (hi*D+match)/(D+match)
		f.Unreached, f.UnreachedMatch = match, match
	case reachRecall:
		lo = lo * D / (D + other)
		if match > 0 {
			hi = (hi*D + match) / (D + match)
		}
		f.Unreached, f.UnreachedMatch = match+other, match
	case reachGain:
		u := match + other
		lo, hi = max((lo*D-u)/(D+u), -1), min((hi*D+u)/(D+u), 1)
		f.Unreached, f.UnreachedMatch = u, match
	}
	f.Lo, f.Hi = ptr(lo), ptr(hi)
	// Strata no label reached: the figure is no census of the rule.
	f.census, f.cgain = nil, nil
	return f
}
