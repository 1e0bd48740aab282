package metrics

import (
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// CensusStratum is the stratum name of pairs labeled in the dataset: they
// are all known, weigh 1 and are never queued.
const CensusStratum = ""

// SampleUnit is one labeled (case, rule) pair of one rule as the
// design-weighted estimator sees it (see docs/statistics.md, "Figures from
// a labeled sample"). Every labeled pair of the rule is a unit of every
// figure of the rule, whether or not it counts in that figure's
// denominator: the weights come from the design, not from the figure.
type SampleUnit struct {
	// Stratum is the queue stratum ("A:match B:no_match"), CensusStratum
	// for a pair labeled in the dataset. StratumSize is N_h, the number of
	// pairs of the rule in the stratum (ignored for the census).
	Stratum     string
	StratumSize int64
	Session     string
	Label       bool // the label is match
	Match       bool // the judge's result is match
	// Other is a second result on the same pair for paired figures: the
	// rule's deterministic baseline, or a second judge.
	Other bool
	// Undecided is whether the judge's result is neither match nor
	// no_match (unknown, or a failure): such a pair is an FN on a
	// positive, and on a negative neither an FP nor a TN (DESIGN §6).
	// OtherUndecided is the same of Other's result, and OtherAbsent
	// whether Other has no result on the pair (that judge did not have
	// it, or the rule has no deterministic baseline).
	Undecided, OtherUndecided, OtherAbsent bool
}

// WeightedRatio is a figure estimated from a labeled sample: a ratio of
// two weighted totals with its design-based interval.
type WeightedRatio struct {
	// Num and Den are the weighted totals (TP and TP+FP for precision).
	Num, Den float64
	// Estimate, Lo and Hi are nil when no labeled unit is in the
	// denominator.
	Estimate, Lo, Hi *float64
	// Var is the linearized variance of the estimate; NEff the effective
	// number of units it is worth (R(1−R)/Var); DF the degrees of freedom
	// of the t quantile (sessions within strata − strata).
	Var, NEff, DF float64
	// Units counts the labeled units in the denominator, raw; Sampled and
	// Census split them by origin.
	Units, Sampled, Census int64
	// SampledVar is the part of Var that more sampled labels would shrink
	// (the two-phase v₂), and SampledDF the degrees of freedom its
	// estimate rests on; SampledFPC is its finite-population part, Σ_h
	// N_h·s²_h: labeling every queue pair would remove v₂ =
	// Σ_h N_h²·s²_h/n_h − SampledFPC. Var − SampledVar (v₁, the recorded
	// sessions' own spread) no number of labels removes.
	SampledVar, SampledDF, SampledFPC float64
	// SampledPrior is the part of SampledVar that the ½ pseudo-labels of
	// strata at the queue's minimum (≤ floorMaxLabels labels, all
	// agreeing) put there: a prior, not an estimate.
	SampledPrior float64
	// Skew is the skewness of the estimate its sessions' weighted totals
	// show, Σt³/(Σt²)^{3/2}, clipped to ±skewMax, and SkewTerms how many
	// sessions' worth it rests on, (Σt²)²/Σt⁴: a proportion's bounds take
	// it (Cornish–Fisher) where labelSkewUsable.
	Skew, SkewTerms float64
	// VarLo and VarHi are the variances the interval's lower and upper
	// bounds rest on (a proportion's: precision, recall): v₁ and the
	// estimated v₂ (a stratum at the queue's minimum whose labels show
	// both values at the variance under Jeffreys' posterior) plus the
	// interval's floor of each stratum whose labels all agree, on the
	// side its unseen errors would move the figure (twoPhaseVar). Var
	// (and NEff, SampledVar, and every hint) keeps v₂'s symmetric floor
	// and sample variances instead: what more labels may yet show.
	VarLo, VarHi float64
	// Sessions counts the sessions of the labeled units. TrafficSessions
	// and TrafficPairs are the recorded sessions and pairs the figure
	// describes (set by SampleFiguresOf; 0 when unknown): a hint that
	// needs more sessions is stated against them.
	Sessions                      int64
	TrafficSessions, TrafficPairs int64
	// Rule and Judge name the figure's rule and judge where known (set by
	// SampleFiguresOf): a hint's command names them.
	Rule, Judge string
	// Method names the interval Lo and Hi come from on a queue-labeled
	// proportion where SampleFiguresOf sets it: IntervalDraws (the
	// stratified draws, drawnInterval) or IntervalTwoPhase (the two-phase
	// design's, weightedRatio) with MethodWhy saying why the draws were
	// not possible. "" where the interval is the census's (every label
	// weighs 1) or no figure was set.
	Method, MethodWhy string
	// SampledAll counts every sampled (queue) label of the rule, and
	// Remaining the queue pairs not labeled yet (Σ N_h − n_h).
	SampledAll, Remaining int64
	// Up and Down count, for a paired difference, the labeled units in
	// the denominator whose contribution is positive (the first judge
	// only) and negative (the other only): the discordant units.
	Up, Down int64
	// Discordant is the weighted count of those units (Σ w over them):
	// the discordant pairs the recorded ones are estimated to hold.
	Discordant float64
	// Unreached counts the rule's unlabeled pairs in queue strata that no
	// label has reached yet (a short prefix of the queue; see reach), and
	// UnreachedMatch those of them the judge called match; Predicted is
	// every unlabeled pair the judge called match. Lo and Hi hold
	// whatever the unreached pairs hold.
	Unreached, UnreachedMatch, Predicted float64
	// P is a paired difference's two-sided p-value against 0 and Test the
	// test it comes from (gainTest: the interval inverts the same tests,
	// so 0 lies outside [Lo, Hi] exactly when P < 1 − conf); nil and ""
	// for a proportion.
	P    *float64
	Test string
	// GainSessions counts, for a paired difference, the sessions holding
	// its labeled units (the sessions' sign flip's K; gainTest).
	GainSessions int64
	// gain keeps a paired difference's sums, from which the dangerous-
	// recall criterion takes its one-sided test and bounds (oneSided).
	gain *gainInputs
	// census and cgain are set where every labeled unit weighs 1 and no
	// stratum is left unreached: the figure is the recorded pairs' own,
	// and its interval (census) and test (cgain) the unweighted path's
	// (docs/statistics.md, "Every label weighing 1").
	census *censusFig
	cgain  *censusGain
	// few is the few-session guard's interval where it applies
	// (fewSessionGuard, as designRatio took it), for withDraws.
	few *[2]float64
}

// WithTraffic returns f with the recorded sessions and pairs it describes
// (TrafficSessions, TrafficPairs).
func (f WeightedRatio) WithTraffic(sessions, pairs int64) WeightedRatio {
	f.TrafficSessions, f.TrafficPairs = sessions, pairs
	return f
}

// Of returns f with the rule and judge it is a figure of (Rule, Judge).
func (f WeightedRatio) Of(rule, judge string) WeightedRatio {
	f.Rule, f.Judge = rule, judge
	return f
}

// ratioFn gives a unit's (y, x) contribution for a given label value.
type ratioFn func(u *SampleUnit, label bool) (y, x float64)

// WeightedPrecision estimates TP/(TP+FP) from labeled units.
func WeightedPrecision(units []SampleUnit, conf float64) WeightedRatio {
	return weightedRatio(units, conf, precisionFn, true)
}

// precisionFn is precision's (y, x): TP over TP+FP.
func precisionFn(u *SampleUnit, l bool) (float64, float64) { return b2f(u.Match && l), b2f(u.Match) }

// WeightedRecall estimates TP/(TP+FN) from labeled units.
func WeightedRecall(units []SampleUnit, conf float64) WeightedRatio {
	return weightedRatio(units, conf, recallFn, true)
}

// recallFn is recall's (y, x): TP over TP+FN.
func recallFn(u *SampleUnit, l bool) (float64, float64) { return b2f(u.Match && l), b2f(l) }

// WeightedRecallDiff estimates recall(Match) − recall(Other) on the same
// labeled positives and weights, a paired difference: Lo and Hi are a
// two-sided t interval at conf.
func WeightedRecallDiff(units []SampleUnit, conf float64) WeightedRatio {
	return weightedRatio(units, conf, func(u *SampleUnit, l bool) (float64, float64) {
		if !l {
			return 0, 0
		}
		return b2f(u.Match) - b2f(u.Other), 1
	}, false)
}

// WeightedFPRDiff estimates FPR(Match) − FPR(Other), FP/(FP+TN), on the
// same labeled negatives and weights: those both results decided, as the
// unweighted figure's units (an unknown answer is neither an FP nor a TN).
func WeightedFPRDiff(units []SampleUnit, conf float64) WeightedRatio {
	return weightedRatio(units, conf, func(u *SampleUnit, l bool) (float64, float64) {
		if l || u.Undecided || u.OtherUndecided || u.OtherAbsent {
			return 0, 0
		}
		return b2f(u.Match) - b2f(u.Other), 1
	}, false)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// stratum gathers one stratum's units for the estimator.
type stratum struct {
	name    string
	size    float64 // N_h
	idx     []int
	census  bool
	labeled int64 // n_h
}

// strataOf groups units by stratum, in name order. A sampled stratum's
// size is the largest stratum_size given for it (they agree when they
// come from one queue); it is never below the labels in it.
func strataOf(units []SampleUnit) []*stratum {
	by := map[string]*stratum{}
	for i := range units {
		u := &units[i]
		s := by[u.Stratum]
		if s == nil {
			s = &stratum{name: u.Stratum, census: u.Stratum == CensusStratum}
			by[u.Stratum] = s
		}
		s.idx = append(s.idx, i)
		s.labeled++
		if float64(u.StratumSize) > s.size {
			s.size = float64(u.StratumSize)
		}
	}
	out := make([]*stratum, 0, len(by))
	for _, s := range by {
		if s.census || s.size < float64(s.labeled) {
			s.size = float64(s.labeled)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// designRatio is the ratio estimator R = Σw·y / Σw·x with its
// linearized variance (see docs/statistics.md, "The estimator"): the
// two-phase variance of twoPhaseVar — the recorded pairs a clustered
// sample of the traffic, the labels a stratified sample of them — since a
// labeled figure describes the traffic the recorded sessions sample (a
// go/no-go is about future traffic). A proportion (bounded: precision,
// recall) takes Wilson's interval at n_eff = R(1−R)/V with the t quantile
// of its degrees of freedom, each bound at its own V (VarLo, VarHi: the
// floors of strata whose labels all agree on the side their unseen
// errors would move the figure); at R ∈ {0, 1}, n_eff is the smaller of
// Kish's size of the weights and the sessions within strata, and with a
// single session it is at most 1. A paired difference (not bounded:
// a recall or false-positive-rate gain) is R ± t·√V, clipped to [−1, 1].
func designRatio(units []SampleUnit, conf float64, f ratioFn, bounded bool) WeightedRatio {
	var out WeightedRatio
	strata := strataOf(units)
	w := make([]float64, len(units))
	var sumWX2 float64
	for _, s := range strata {
		wh := s.size / float64(s.labeled)
		if !s.census {
			out.SampledAll += s.labeled
			out.Remaining += int64(s.size) - s.labeled
		}
		for _, i := range s.idx {
			w[i] = wh
			y, x := f(&units[i], units[i].Label)
			out.Num += wh * y
			out.Den += wh * x
			if x != 0 {
				switch {
				case y > 0:
					out.Up++
					out.Discordant += wh
				case y < 0:
					out.Down++
					out.Discordant += wh
				}
				out.Units++
				sumWX2 += wh * wh * x * x
				if s.census {
					out.Census++
				} else {
					out.Sampled++
				}
			}
		}
	}
	if out.Den == 0 || out.Units == 0 {
		return out
	}
	R := out.Num / out.Den
	X := out.Den
	// Sessions within strata: what n_eff falls back to at R ∈ {0, 1}.
	psu := 0
	for _, s := range strata {
		seen := map[string]bool{}
		for _, i := range s.idx {
			seen[units[i].Session] = true
		}
		psu += len(seen)
	}
	out.Estimate = ptr(R)
	tp := twoPhaseVar(units, strata, f, R, X, conf)
	v1, v2 := tp.v1, tp.v2
	out.SampledFPC, out.DF = tp.fpc, tp.df
	out.Var, out.SampledVar, out.SampledPrior = v1+v2, v2, tp.prior
	out.VarLo, out.VarHi = v1+tp.v2est+tp.floorDown, v1+tp.v2est+tp.floorUp
	out.Sessions = int64(tp.sessions)
	out.Skew, out.SkewTerms = max(-skewMax, min(skewMax, tp.skew)), tp.skewTerms
	// v2 is estimated within strata: labels less strata.
	out.SampledDF = max(1, float64(len(units)-len(strata)))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: out.DF}.Quantile(1 - (1-conf)/2)
	// quantile is the t quantile of one bound, whose variance V holds
	// priorV of pseudo-labels. Satterthwaite: the pseudo-labels of strata
	// at the queue's minimum are a prior, not an estimate; their part of
	// V has no sampling error, and the quantile's degrees of freedom are
	// those of the estimated part alone, DF·(V/(V − prior))². DF itself
	// stays the sessions' (what more labels grow, for the hints).
	quantile := func(V, priorV float64) float64 {
		if priorV <= 0 {
			return q
		}
		qdf := maxDF
		if est := V - priorV; est > 0 {
			qdf = min(out.DF*(V/est)*(V/est), maxDF)
		}
		return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: qdf}.Quantile(1 - (1-conf)/2)
	}
	if !bounded {
		// A difference of two proportions: its test and interval are one
		// computation (gainTest), the interval within [−1, 1].
		in := gainInputs{R: R, X: X, V: out.Var, df: out.DF, up: out.Up, down: out.Down, disc: out.Discordant,
			ne: min(out.Den*out.Den/sumWX2, float64(psu))}
		sa, sb := map[string]float64{}, map[string]float64{}
		var order []string
		for i := range units {
			y, x := f(&units[i], units[i].Label)
			if x == 0 {
				continue
			}
			s := units[i].Session
			if _, ok := sb[s]; !ok {
				order = append(order, s)
			}
			sa[s] += w[i] * y
			sb[s] += w[i] * x
			if y > 0 {
				in.upW += w[i] * y
			} else if y < 0 {
				in.downW -= w[i] * y
			}
		}
		sort.Strings(order)
		for _, s := range order {
			in.sessA, in.sessB = append(in.sessA, sa[s]), append(in.sessB, sb[s])
		}
		lo, hi, p, test := gainTest(in, 1-conf, false)
		out.Lo, out.Hi, out.P, out.Test = ptr(lo), ptr(hi), ptr(p), test
		out.gain = &in
		out.GainSessions = int64(len(order))
		return out
	}
	kish := min(out.Den*out.Den/sumWX2, float64(psu))
	// Each bound takes Wilson's interval at the effective size of its
	// own variance: the floor of a stratum whose labels all agree sits
	// on the side its unseen errors would move the figure (twoPhaseVar),
	// and NEff is the symmetric one's (every floor on both sides).
	//
	// Wilson's form (its pull toward ½) is the binomial's: right for the
	// part of V that behaves like the figure's own units — the sessions'
	// v₁ and the strata whose labels estimate their variance. The floor
	// of a stratum at the queue's minimum whose labels all agree (priorV:
	// its pseudo-labels, on the side its unseen errors would move the
	// figure) is not: it is one stratum's share, weighing the same
	// however near 0 or 1 the figure is, and Wilson's n_eff shortened
	// exactly the side it was put on whenever that side is the nearer
	// end (an all-no_match disagreement stratum of a precision above ½:
	// a judge exactly at the precision threshold was failed up to 6 % of
	// the time on a queue's first 75–100 labels; docs/statistics.md,
	// "One-sided misses"). So each side reaches √(r_W² + q²·normV +
	// reach2): the floor a normal term beside r_W, Wilson's reach on
	// V − priorV, where the judges agreed (normV), and where they did not,
	// the figure's move with the stratum at its exact bound (reach2, the
	// sum of exactReach²).
	bound := func(V, priorV, normV, reach2 float64) (lo, hi float64) {
		n := neff(R, V, kish)
		if tp.sessions < 2 {
			// One session cannot show how sessions differ (v1 is not
			// estimable): its labels are worth one unit.
			n = min(n, 1)
		}
		q := quantile(V, priorV)
		lo, hi = Wilson(R*n, n, q)
		if tp.sessions < 2 || !(R > 0 && R < 1) || !(V > 0) {
			return lo, hi
		}
		priorV = max(0, priorV)
		var rl, rh float64
		if rest := V - priorV; rest > 0 && labelSkewUsable(out.SkewTerms, out.DF) {
			// The skew the estimate's own session totals show
			// (Cornish–Fisher for a studentized total: both bounds
			// move by γ·(2z² + 1)/6 standard errors, z the normal
			// quantile: the expansion's, not the t's, which on few
			// sessions would blow the shift up), not the binomial's at
			// n_eff that Wilson's pull toward ½ assumes.
			g := labelSkewShift(out.Skew, conf)
			sd := math.Sqrt(rest)
			rl, rh = max(0, sd*(q-g)), max(0, sd*(q+g))
		} else if !(priorV > 0) {
			return lo, hi
		} else if rest > 0 {
			m := R * (1 - R) / rest
			l, h := Wilson(R*m, m, q)
			rl, rh = R-l, h-R
		}
		return max(0, R-math.Sqrt(rl*rl+q*q*normV+reach2)), min(1, R+math.Sqrt(rh*rh+q*q*normV+reach2))
	}
	out.NEff = neff(R, out.Var, kish)
	if tp.sessions < 2 {
		out.NEff = min(out.NEff, 1)
	}
	lo, _ := bound(out.VarLo, tp.priorDown, tp.normDown, tp.reachDown)
	_, hi := bound(out.VarHi, tp.priorUp, tp.normUp, tp.reachUp)
	if fl, fh, ok := fewSessionGuard(units, w, f, out.Den*out.Den/sumWX2, X, conf); ok {
		lo, hi = min(lo, fl), max(hi, fh)
		out.few = &[2]float64{fl, fh}
	}
	out.Lo, out.Hi = ptr(lo), ptr(hi)
	return out
}

// weightedRatio is designRatio, except where every stratum is labeled
// whole (the dataset's labels, or a queue stratum with every pair
// labeled): every unit then weighs 1, and the figure is the recorded
// pairs' own, with the unweighted path's interval (censusInterval) and
// recall-gain test (censusGainOf; docs/statistics.md, "Every label
// weighing 1").
func weightedRatio(units []SampleUnit, conf float64, f ratioFn, bounded bool) WeightedRatio {
	out := designRatio(units, conf, f, bounded)
	if out.Estimate == nil {
		return out
	}
	for _, s := range strataOf(units) {
		if s.size != float64(s.labeled) {
			return out
		}
	}
	if bounded {
		out.censusInterval(units, f, conf)
	} else {
		out.cgain = censusGainOf(units, f)
	}
	return out
}

// censusFig is a proportion whose every labeled unit weighs 1 (dataset
// labels, or queue strata labeled whole): the recorded pairs' own figure,
// which the unweighted path computes from the same units.
type censusFig struct {
	post *bbPosterior
	deff *float64
	y, m int64
}

// censusGain is a paired difference whose every labeled unit weighs 1:
// the unweighted path's inputs of the recall gain on the same units.
type censusGain struct {
	m                    mcnemar
	pd                   *pairDiff
	n, hits, b, c, bhits int64
}

// censusInterval puts the unweighted path's interval on a proportion
// whose units all weigh 1 (docs/statistics.md, "Every label weighing 1"):
// with no stratum sampled, the estimator is the census ratio Σy/Σx over
// the recorded pairs, v₂ is 0 and its only uncertainty is the sessions'
// — the quantity ClusteredInterval bounds, calibrated on the simulation
// grid. The two-phase interval on the same numbers was wider (a
// commit-message-style precision of 27/34 on singletons: [0.632, 0.8965]
// FAIL unweighted, [0.6274, 0.9106] INCONCLUSIVE with one queue label on
// another rule).
func (out *WeightedRatio) censusInterval(units []SampleUnit, f ratioFn, conf float64) {
	ys, ms := map[string]int64{}, map[string]int64{}
	var order []string
	for i := range units {
		y, x := f(&units[i], units[i].Label)
		if x == 0 {
			continue
		}
		if (x != 1) || (y != 0 && y != 1) {
			return
		}
		s := units[i].Session
		if _, ok := ms[s]; !ok {
			order = append(order, s)
		}
		ys[s] += int64(y)
		ms[s]++
	}
	sort.Strings(order)
	yv, mv := make([]int64, len(order)), make([]int64, len(order))
	var Y, M int64
	for i, s := range order {
		yv[i], mv[i] = ys[s], ms[s]
		Y, M = Y+ys[s], M+ms[s]
	}
	c := clusteredFrom(newBBPosterior(yv, mv, 1), conf)
	if c.post == nil {
		return
	}
	out.Lo, out.Hi = c.lo, c.hi
	out.census = &censusFig{post: c.post, deff: c.deff, y: Y, m: M}
}

// censusGainOf is the unweighted path's recall-gain inputs on units that
// all weigh 1: per session, the positives (x ≠ 0), the judge's hits
// (Match), the other's (Other) and the discordant ones.
func censusGainOf(units []SampleUnit, f ratioFn) *censusGain {
	type acc struct{ y1, y2, y12, m, d, disc int64 }
	by := map[string]*acc{}
	var order []string
	g := &censusGain{}
	for i := range units {
		u := &units[i]
		if _, x := f(u, u.Label); x == 0 {
			continue
		}
		a := by[u.Session]
		if a == nil {
			a = &acc{}
			by[u.Session] = a
			order = append(order, u.Session)
		}
		a.m++
		g.n++
		if u.Match {
			a.y1++
			g.hits++
		}
		if u.Other {
			a.y2++
			g.bhits++
		}
		switch {
		case u.Match && u.Other:
			a.y12++
		case u.Match:
			a.d++
			a.disc++
			g.b++
		case u.Other:
			a.d--
			a.disc++
			g.c++
		}
	}
	if g.n == 0 {
		return nil
	}
	sort.Strings(order)
	ps := make([]pairSess, 0, len(order))
	for _, s := range order {
		a := by[s]
		ps = append(ps, pairSess{y1: a.y1, y2: a.y2, y12: a.y12, m: a.m})
		if a.disc > 0 {
			g.m.addSessions(a.d, a.disc, 1)
		}
	}
	g.pd = newPairDiff(ps)
	return g
}

// neff is the effective sample size of a proportion R with variance v;
// at R ∈ {0, 1} (where R(1−R)/v says nothing) it is bound, the smaller of
// Kish's size of the weights and the number of sessions within strata
// (the worst case of clustering: 40 matches in one session are worth one).
func neff(R, v, kish float64) float64 {
	if R > 0 && R < 1 && v > 0 {
		return R * (1 - R) / v
	}
	return kish
}

// twoPhaseVar is the variance of a ratio estimated from a labeled queue,
// treated as the two-phase design it is (docs/statistics.md, "The
// estimator"): phase 1 is the recorded pairs, a sample of the judge's
// traffic with sessions as clusters; phase 2 is the queue, a stratified
// random sample of those pairs without replacement. With z_i = (y_i −
// R·x_i)/X the linearized ratio:
//
//	v1 = k/(k−1) · Σ_c T̂_c²         (sessions c; T_c = Σ_{i∈c} z_i over all the session's pairs)
//	v2 = Σ_h N_h²·(1 − n_h/N_h)·s²_h/n_h  (s²_h: the sample variance of z in stratum h)
//
// T̂_c² is the Horvitz–Thompson estimate of T_c² from the session's labeled
// pairs: z_i²/π_i for each, z_i·z_j/π_ij for each pair of them, π_i =
// n_h/N_h and π_ij = π_i·π_j across strata, n_h(n_h−1)/(N_h(N_h−1)) within
// one. v1 is what the figure would vary by if every recorded pair were
// labeled — more labels do not shrink it; v2 is what the labels leave
// unknown (0 for a fully labeled stratum or the census). A stratum with
// at most floorMaxLabels labels, or fewer than floorShare of its pairs
// labeled, whose labels are all of one value has s²_h raised to
// mean(d_i²)·p̃(1−p̃), p̃ = (k_h + p₀)/(n_h + 1), d_i how much z_i moves when
// its label flips: a few agreeing labels cannot claim certainty (p₀ = ½
// at the queue's minimum or fewer, the queue's prior beyond). That is
// v2's floor, symmetric: what the hints project as unseen errors. The
// interval's own floor (floorUp, floorDown) is the same beyond the
// minimum and p̃ = (k_h + 2·prior)/(n_h + 2) at it — two pseudo-labels at
// the queue's prior — and sits only on the side the stratum's unseen
// errors would move the figure: an all-match stratum whose pairs are not
// all match can only have made the estimate too high (its floor widens
// the lower bound), an all-no_match one too low. df is the
// number of sessions whose T̂_c is not 0 — sessions that add nothing to
// the figure say nothing about its spread — or Kish's effective number of
// sessions (Σ_c X_c)²/Σ_c X_c², X_c = Σ_{i∈c} w_i·x_i, when smaller, less
// one (at least 1).
func twoPhaseVar(units []SampleUnit, strata []*stratum, f ratioFn, R, X, conf float64) twoPhase {
	var v1, v2, fpc float64
	var tp twoPhase
	type key struct {
		sess string
		h    int
	}
	sum, sq := map[key]float64{}, map[key]float64{}
	xs := map[string]float64{} // Σ w·x per session
	var sess []string
	seen := map[string]bool{}
	w, a := make([]float64, len(strata)), make([]float64, len(strata))
	for h, s := range strata {
		n := s.labeled
		nf := float64(n)
		w[h] = s.size / nf
		if n >= 2 {
			a[h] = s.size * (s.size - 1) / (nf * (nf - 1))
		}
		var zs, zz, dd, ddUp, k, dy, dx float64
		for _, i := range s.idx {
			u := &units[i]
			y, x := f(u, u.Label)
			z := (y - R*x) / X
			y1, x1 := f(u, true)
			y0, x0 := f(u, false)
			d := ((y1 - R*x1) - (y0 - R*x0)) / X
			dy += y1 - y0
			dx += x1 - x0
			dd += d * d
			// The way an unseen error moves the figure: a pair labeled
			// match that is not moves z by −d, one labeled no_match that
			// is, by +d.
			if (d > 0) != u.Label && d != 0 {
				ddUp += d * d
			}
			if u.Label {
				k++
			}
			k := key{u.Session, h}
			sum[k] += z
			sq[k] += z * z
			zs += z
			zz += z * z
			xs[u.Session] += w[h] * x
			if !seen[u.Session] {
				seen[u.Session] = true
				sess = append(sess, u.Session)
			}
		}
		var s2 float64
		if n >= 2 {
			s2 = max(0, (zz-zs*zs/nf)/(nf-1))
		}
		cut := s.size * s.size * (1 - nf/s.size) / nf // v2's factor on s²_h
		// The interval's part of a stratum at the queue's minimum or
		// fewer whose labels show both values: the expected variance of
		// its rate under Jeffreys' posterior Beta(k + ½, n − k + ½),
		// p̄(1 − p̄)·(n + 1)/(n + 2), p̄ = (k + ½)/(n + 1), not the sample
		// variance k(n − k)/(n(n − 1)), which on 2–5 labels swings with
		// the labels themselves (1 of 2 gives 0.5, a share's largest
		// variance; the posterior 0.19) and is largest when the estimate
		// has moved most (docs/statistics.md, "Prefixes"). V (the hints')
		// keeps the sample variance.
		sInt := s2
		if k > 0 && k < nf && n <= floorMaxLabels && s.size > nf {
			pb := (k + 0.5) / (nf + 1)
			sInt = dd / nf * pb * (1 - pb) * (nf + 1) / (nf + 2)
		}
		tp.v2est += cut * sInt
		if (k == 0 || k == nf) && (n <= floorMaxLabels || nf < floorShare*s.size) && s.size > nf {
			// Few labels, all one value: their sample variance (often 0)
			// says nothing; the stratum carries one pseudo-label at the
			// queue's prior for its results (half a label each way when
			// it has the queue's minimum or fewer, or no known results).
			p0 := 0.5
			if n > floorMaxLabels {
				p0 = namePrior(s.name)
			}
			pt := (k + p0) / (nf + 1)
			// The interval's floor: at the queue's minimum or fewer, two
			// pseudo-labels at the queue's prior (not ½); beyond, the
			// same as v2's. It goes on the side the stratum's unseen
			// errors would move the figure (twoPhase.floorUp/Down).
			pi := pt
			if n <= floorMaxLabels {
				pi = (k + 2*namePrior(s.name)) / (nf + 2)
			}
			if fl := dd / nf * pi * (1 - pi); fl > s2 {
				ex := cut * (fl - s2)
				up := ex * ddUp / dd
				tp.floorUp += up
				tp.floorDown += ex - up
				if n <= floorMaxLabels {
					tp.priorUp += up
					tp.priorDown += ex - up
					if nameAgreed(s.name) || n > exactMaxLabels {
						tp.normUp += up
						tp.normDown += ex - up
					} else {
						dR := exactReach(R, X, s.size-nf, nf, dy/nf, dx/nf, k == nf, conf)
						if dR > 0 {
							tp.reachUp += dR * dR
						} else {
							tp.reachDown += dR * dR
						}
					}
				}
			}
			if fl := dd / nf * pt * (1 - pt); fl > s2 {
				if n <= floorMaxLabels {
					tp.prior += cut * (fl - s2)
				}
				s2 = fl
			}
		}
		if (k == 0 || k == nf) && !(n <= floorMaxLabels || nf < floorShare*s.size) && s.size > nf && dd > 0 {
			// The interval's floor of a stratum whose many labels all agree
			// (more than the queue's minimum and a tenth of its pairs):
			// one pseudo-label at the queue's prior, on the side its unseen
			// errors would move the figure, as beyond the minimum above.
			// Without it such a stratum (8–10 labels of a 60-pair stratum
			// 11 % positive, all no_match a third of the time) put nothing
			// on that side, and a judge exactly at the precision threshold
			// was failed 4–5 % of the time on 150 labels
			// (docs/statistics.md, "One-sided misses"). V, and with it the
			// hints, keeps the sample variance: this is the interval's.
			pi := (k + namePrior(s.name)) / (nf + 1)
			if fl := dd / nf * pi * (1 - pi); fl > s2 {
				ex := cut * (fl - s2)
				up := ex * ddUp / dd
				tp.floorUp += up
				tp.floorDown += ex - up
			}
		}
		v2 += s.size * s.size * (1 - nf/s.size) * s2 / nf
		fpc += s.size * s2
	}
	sort.Strings(sess)
	var nonzero, xsum, x2, lin2, lin3, lin4 float64
	terms := make([]float64, 0, len(sess))
	for _, c := range sess {
		xsum += xs[c]
		x2 += xs[c] * xs[c]
		var lin, corr float64
		for h := range strata {
			k := key{c, h}
			S, Q := sum[k], sq[k]
			if S == 0 && Q == 0 {
				continue
			}
			lin += w[h] * S
			// (Σ_h w_h·S_h)² counts z_i·z_j with w_h² for two pairs of one
			// stratum and w_h² for z_i² itself; HT wants a_h and w_h.
			corr += (a[h]-w[h]*w[h])*(S*S-Q) + (w[h]-w[h]*w[h])*Q
		}
		if math.Abs(lin) > 1e-12 {
			nonzero++
		}
		l2 := lin * lin
		lin2 += l2
		lin3 += l2 * lin
		lin4 += l2 * l2
		terms = append(terms, lin*lin+corr)
	}
	sort.Float64s(terms)
	for _, t := range terms {
		v1 += t
	}
	if k := float64(len(sess)); k > 1 {
		v1 = max(0, v1) * k / (k - 1)
	} else {
		v1 = max(0, v1)
	}
	tp.v1, tp.v2, tp.fpc, tp.sessions = v1, v2, fpc, len(sess)
	if lin2 > 0 && lin4 > 0 {
		// The skewness of the estimate from its sessions' totals t_c
		// (labeled pairs weighted by N_h/n_h: both phases), Σt³/(Σt²)^{3/2},
		// and how many sessions it rests on, (Σt²)²/Σt⁴.
		tp.skew = lin3 / math.Pow(lin2, 1.5)
		tp.skewTerms = lin2 * lin2 / lin4
	}
	if nonzero == 0 {
		// R ∈ {0, 1}: every z is 0 and the sessions bound n_eff instead.
		tp.df = max(1, float64(len(sess))-1)
		return tp
	}
	if x2 > 0 {
		// Kish's effective number of sessions by their weighted
		// denominators: a few sessions holding most of the figure's
		// units count as few, as for the latency quantiles.
		nonzero = min(nonzero, xsum*xsum/x2)
	}
	tp.df = max(1, nonzero-1)
	return tp
}

// twoPhase is twoPhaseVar's result: v1, v2, fpc (Σ_h N_h·s²_h) and df as
// documented there, v2est (v2 without any floor, as the interval takes
// it: a mixed stratum at the queue's minimum at its posterior expected
// variance), prior (the ½ pseudo-labels' part of v2), the sessions of the labeled units, and the
// interval's floor split by the way the floored strata's unseen errors
// would move the figure (floorUp, floorDown), with its part from strata
// at the queue's minimum (priorUp, priorDown: pseudo-labels, no sampling
// error).
type twoPhase struct {
	v1, v2, fpc, df, v2est float64
	skew, skewTerms        float64
	sessions               int
	prior                  float64
	floorUp, floorDown     float64
	priorUp, priorDown     float64
	reachUp, reachDown     float64 // Σ exactReach², by side
	normUp, normDown       float64 // the prior's part where the judges agreed
}

// exactReach is how far a figure R = Y/X moves, on the side a stratum's
// unseen errors would move it, when the stratum's unlabeled pairs
// (unseen of them) take the share of match labels at the mid-p exact
// one-sided bound for its n labels, all match (allMatch) or all no_match:
// P(more extreme) + ½·P(as observed) = (1 − conf)/2, that is
// 1 − (1 − conf)^(1/n) away from them (0.776 for 2 of 2). dy and dx are
// how much a pair's label turning match moves Y and X. The figure itself
// is recomputed, not linearized: recall's denominator moves with the
// stratum (37 pairs at the bound moved recall 0.117, its linearization
// 0.102); where the denominator could vanish the figure could be
// anything, ±1.
//
// It stands in for the floor's normal term (two pseudo-labels at the
// queue's prior) for a stratum of at most exactMaxLabels labels where the
// judges did not agree: there the prior (½) says nothing of the share,
// and on 2 labels no variance reaches what they can miss. The stratum the
// reference alone calls match (23 % positive) shows 2 positives in its 2
// labels 5 % of the time, and a long queue's first 40–100 labels then put
// the recall's upper bound below the model's 5.2–5.6 % of the time
// (docs/statistics.md, "An exact bound where the judges disagree").
func exactReach(R, X, unseen, n, dy, dx float64, allMatch bool, conf float64) float64 {
	r := 1 - math.Pow(1-conf, 1/n)
	if allMatch {
		r = -r
	}
	m := unseen * r
	move := m * (dy - R*dx)
	if X+m*dx <= 0 {
		return math.Copysign(1, move)
	}
	return move / (X + m*dx)
}

// The floor of twoPhaseVar applies to a stratum whose labels all agree
// when it has at most floorMaxLabels of them (the queue's minimum per
// stratum, QueueConfig.Min's default: a prefix shorter than the minimums
// can show a few agreeing labels by chance) or when fewer than
// floorShare of its pairs are labeled (a sparsely sampled stratum can
// hide errors that, weighted by N_h/n_h, move the figure). Measured
// (docs/statistics.md): with neither, 40 labels of a 3,000-label queue
// covered 0.68 and the weak-label correction's recall at 100 labels
// 0.80; with both, every model and prefix of TestLabeledCalibration
// covers 0.925 or more.
const (
	floorMaxLabels = 5
	floorShare     = 0.1
	// maxDF stands for a t quantile's infinite degrees of freedom.
	maxDF = 1e6
	// A proportion's bounds take the skew its sessions' totals show
	// (twoPhase.skew, clipped to ±skewMax: Cornish–Fisher's expansion
	// holds for a moderate skew) when it rests on at least skewMinTerms
	// sessions' worth of them ((Σt²)²/Σt⁴) and the interval's df is at
	// least skewMinDF; otherwise — one or two heavy labels of a thin
	// stratum, whose own error the skew would then echo, or a handful of
	// sessions — Wilson's interval as before (docs/statistics.md,
	// "One-sided misses").
	skewMax      = 0.5
	skewMinTerms = 3
	skewMinDF    = 4
	// A stratum whose judges did not agree and whose labels, at most
	// exactMaxLabels of them, all agree takes exactReach in place of the
	// floor's normal term: the queue's first two items of a stratum,
	// where a long queue's short prefix leaves most strata. At 3–5 labels
	// the exact bound over-covered (a 300-label queue's first 150 labels:
	// the precise and good candidates' precision 0.980 → 0.985–0.986 with
	// Clopper–Pearson, 0.985 with mid-p; docs/statistics.md).
	exactMaxLabels = 2
)

// namePrior is the queue's prior share of match labels (stratumPrior) for
// a stratum named by its results ("A:match B:no_match W:undecided", after
// a "rule\x00" prefix on a total row); ½ when the name carries none.
func namePrior(name string) float64 {
	res := nameResults(name)
	if len(res) == 0 {
		return 0.5
	}
	return stratumPrior(res)
}

// nameAgreed is whether every result in a stratum's name is the same
// match or no_match: the judges agreed, and the queue's prior (≈ 0.05 or
// 0.95) carries what their agreement says of the stratum's share.
func nameAgreed(name string) bool {
	res := nameResults(name)
	if len(res) == 0 || res[0] == QueueUndecided {
		return false
	}
	return !disagree(res)
}

// nameResults are the results a stratum's name lists, nil when it lists
// none or anything else.
func nameResults(name string) []string {
	if i := strings.LastIndexByte(name, 0); i >= 0 {
		name = name[i+1:]
	}
	var res []string
	for _, f := range strings.Fields(name) {
		_, r, ok := strings.Cut(f, ":")
		if !ok || (r != QueueMatch && r != QueueNoMatch && r != QueueUndecided) {
			return nil
		}
		res = append(res, r)
	}
	return res
}

// labelSkewUsable is whether a proportion's bounds take the skew of its
// sessions' totals: on at least skewMinTerms sessions' worth of them and
// skewMinDF degrees of freedom.
func labelSkewUsable(terms, df float64) bool { return terms >= skewMinTerms && df >= skewMinDF }

// labelSkewShift is how many standard errors both bounds of a proportion move
// for the estimate's skewness γ (Cornish–Fisher for a studentized total):
// γ·(2z² + 1)/6, z the normal quantile of conf (the expansion's, not the
// t's, which on few sessions would blow the shift up).
func labelSkewShift(gamma, conf float64) float64 {
	z := distuv.UnitNormal.Quantile(1 - (1-conf)/2)
	return gamma * (2*z*z + 1) / 6
}
