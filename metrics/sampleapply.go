package metrics

import (
	"math"
	"sort"
)

// RowSample is a rule row's labeled-sample account (`--labels`): how many
// labels the figures rest on and the weighted confusion counts.
type RowSample struct {
	// Sampled counts queue labels (weighted N_h/n_h), Census dataset
	// labels (weight 1); Dropped queue labels of pairs this judge did not
	// have in scope or the dataset already labels.
	Sampled int64 `json:"labels_sampled"`
	Census  int64 `json:"labels_census"`
	Dropped int   `json:"labels_dropped"`
	// Weighted totals; the row's tp/fp/fn/tn are these rounded.
	TP float64 `json:"tp_weighted"`
	FP float64 `json:"fp_weighted"`
	FN float64 `json:"fn_weighted"`
	TN float64 `json:"tn_weighted"`
	// PrecisionNEff and RecallNEff are the effective sizes of the
	// intervals (R(1−R)/V).
	PrecisionNEff float64 `json:"precision_n_eff"`
	RecallNEff    float64 `json:"recall_n_eff"`
	// PrecisionInterval and RecallInterval name the method of a
	// queue-labeled figure's interval (IntervalDraws, IntervalTwoPhase;
	// absent where every label weighs 1), and IntervalNote why the
	// stratified draws were not possible where the two-phase design's
	// stands.
	PrecisionInterval string `json:"precision_interval,omitempty"`
	RecallInterval    string `json:"recall_interval,omitempty"`
	IntervalNote      string `json:"interval_note,omitempty"`
}

// SampleInfo says that a summary's figures come from a labeled sample.
type SampleInfo struct {
	// Labels is the number of resolved queue labels given (non-skip, first
	// by time per pair).
	Labels int `json:"labels"`
}

// sampleState is what Compare needs to weight paired figures.
type sampleState struct {
	t      *PairTable
	labels []SampleLabel
}

// ApplySample recomputes every judge's precision and recall, on every rule
// and on the total row, from a labeled sample: the queue labels (weighted
// by their strata) and the dataset's own labels (the census, weight 1),
// as docs/statistics.md describes ("Figures from a labeled sample"). The
// rule rows' tp/fp/fn/tn become the weighted totals rounded (exact ones in
// Row.Sample), precision_min and dangerous_recall_must_beat_baseline are
// evaluated on the weighted figures with "+N more" counted in labels to
// add from the queue, and the verdicts follow. Comparisons already in the
// summary, and every later Compare, use the same weights for recall,
// false-positive rate and precision. Call it once, after Close.
func (s *Summary) ApplySample(t *PairTable, labels []SampleLabel) {
	s.Sample = &SampleInfo{Labels: len(labels)}
	s.sample = &sampleState{t: t, labels: labels}
	jidx := map[string]int{}
	for i, id := range t.Judges {
		jidx[id] = i
	}
	var base *JudgeSummary
	for _, js := range s.Judges {
		if js.Judge == s.Baseline {
			base = js
		}
		j, ok := jidx[js.Judge]
		if !ok {
			continue
		}
		var all []SampleUnit
		var um, uo, pred float64
		for _, r := range js.Rules {
			f := sampleFiguresOf(t, r.RuleID, j, labels, s.crit, s.seed)
			r.Sample = &RowSample{Sampled: f.Sampled, Census: f.Census, Dropped: f.Dropped,
				TP: f.TP, FP: f.FP, FN: f.FN, TN: f.TN, PrecisionNEff: f.Precision.NEff, RecallNEff: f.Recall.NEff,
				PrecisionInterval: f.Precision.Method, RecallInterval: f.Recall.Method, IntervalNote: f.Precision.MethodWhy}
			if r.Sample.IntervalNote == "" {
				r.Sample.IntervalNote = f.Recall.MethodWhy
			}
			r.Labeled = f.Sampled + f.Census
			r.TP, r.FP, r.FN, r.TN = round(f.TP), round(f.FP), round(f.FN), round(f.TN)
			setWeighted(r, f.Precision, f.Recall)
			for i := range r.Criteria {
				switch r.Criteria[i].Name {
				case CriterionPrecisionMin:
					r.Criteria[i] = f.PrecisionMin
				case CriterionDangerousRecall:
					r.Criteria[i] = f.DangerousRecall
				}
			}
			units, _ := t.SampleUnits(r.RuleID, j, -1, labels)
			m, o, n := t.unreached(r.RuleID, j, units)
			um, uo, pred = um+m, uo+o, pred+n
			for _, u := range units {
				if u.Stratum != CensusStratum {
					u.Stratum = r.RuleID + "\x00" + u.Stratum
				}
				all = append(all, u)
			}
		}
		// The same adjustment as the unweighted path's (one rule for both).
		newEvaluator(s.crit).holmDangerous(js.Rules)
		// The total row pools every rule's strata (census pooled too).
		tot := js.Total
		p := WeightedPrecision(all, s.crit.Confidence).reach(reachPrecision, um, uo, pred)
		rc := WeightedRecall(all, s.crit.Confidence).reach(reachRecall, um, uo, pred)
		var tp, fp, fn, tn float64
		for _, r := range js.Rules {
			tp, fp, fn, tn = tp+r.Sample.TP, fp+r.Sample.FP, fn+r.Sample.FN, tn+r.Sample.TN
		}
		tot.TP, tot.FP, tot.FN, tot.TN = round(tp), round(fp), round(fn), round(tn)
		tot.Labeled = int64(len(all))
		setWeighted(tot, p, rc)
		js.finishVerdict()
	}
	s.Verdict = runVerdict(s.Judges, base)
	for _, c := range s.Comparisons {
		s.sample.weightComparison(s, c)
	}
}

func round(v float64) int64 { return int64(math.Round(v)) }

// setWeighted puts the weighted precision and recall on a row. Their
// design effects are left nil — the interval comes from the design, not
// from a Kish deff — except where every label weighs 1.
func setWeighted(r *Row, p, rc WeightedRatio) {
	r.Precision, r.PrecisionLo, r.PrecisionHi, r.PrecisionDeff = p.Estimate, p.Lo, p.Hi, nil
	r.Recall, r.RecallLo, r.RecallHi, r.RecallDeff = rc.Estimate, rc.Lo, rc.Hi, nil
	// Every label weighing 1: the unweighted path's interval, and with it
	// the design effect its sessions show.
	if p.census != nil {
		r.PrecisionDeff = p.census.deff
	}
	if rc.census != nil {
		r.RecallDeff = rc.census.deff
	}
}

// weightComparison replaces the recall, false-positive-rate and precision
// figures of a comparison with paired weighted ones: the same labeled
// pairs and weights for both judges, Δ with a linearized t interval and a
// two-sided p-value (test "weighted_paired").
func (st *sampleState) weightComparison(s *Summary, c *Comparison) {
	jb, jc := -1, -1
	for i, id := range st.t.Judges {
		switch id {
		case c.Baseline:
			jb = i
		case c.Candidate:
			jc = i
		}
	}
	if jb < 0 || jc < 0 {
		return
	}
	conf := s.crit.Confidence
	// un is one judge's unreached pairs (samplereach.go): match
	// predictions, the others, and all its match predictions.
	type un struct{ m, o, p float64 }
	do := func(rc *RuleComparison, units []SampleUnit, ub, uc un) {
		// A figure whose both judges' sides are on the census path
		// (every label weighs 1, no stratum unreached) is the unweighted
		// path's on the same units: its Δ, interval, test and mark are
		// what compare without --labels gives on that evidence.
		var census []Figure
		censusOf := func(name string, b, c WeightedRatio) (Figure, bool) {
			if b.census == nil || c.census == nil {
				return Figure{}, false
			}
			if census == nil {
				census = s.censusFigures(units)
			}
			for _, f := range census {
				if f.Figure == name {
					return f, true
				}
			}
			return Figure{}, false
		}
		for i := range rc.Figures {
			f := &rc.Figures[i]
			pf, ok := pairedFigures[f.Figure]
			if !ok {
				continue
			}
			b := pf.of(swap(units), conf).reach(pf.kind, ub.m, ub.o, ub.p)
			c := pf.of(units, conf).reach(pf.kind, uc.m, uc.o, uc.p)
			if cf, ok := censusOf(f.Figure, b, c); ok {
				*f = cf
				continue
			}
			var d WeightedRatio
			if pf.diff != nil {
				d = pf.diff(units, conf).reach(reachGain, uc.m, uc.o, uc.p)
			}
			setPaired(f, b, c, d, conf)
		}
		rc.deltas()
	}
	var all []SampleUnit
	var tb, tc un
	for _, rc := range c.Rules {
		if rc.Baseline == nil || rc.Candidate == nil {
			continue
		}
		units, _ := st.t.SampleUnits(rc.RuleID, jc, jb, st.labels)
		var ub, uc un
		ub.m, ub.o, ub.p = st.t.unreached(rc.RuleID, jb, swap(units))
		uc.m, uc.o, uc.p = st.t.unreached(rc.RuleID, jc, units)
		tb = un{tb.m + ub.m, tb.o + ub.o, tb.p + ub.p}
		tc = un{tc.m + uc.m, tc.o + uc.o, tc.p + uc.p}
		do(rc, units, ub, uc)
		for _, u := range units {
			if u.Stratum != CensusStratum {
				u.Stratum = rc.RuleID + "\x00" + u.Stratum
			}
			all = append(all, u)
		}
	}
	if c.Total != nil {
		do(c.Total, all, tb, tc)
	}
	// The q-values were taken over the figures these replaced: take them
	// again over the figures now reported.
	c.adjust()
}

// pairedFigures are the comparison figures a labeled sample replaces:
// each judge's weighted figure, its bounds' shape for unreached strata,
// and the paired difference (none for precision, whose Δ has no weighted
// test). An unreached match prediction is an FP or not a negative, any
// other a TN or not a negative: the false-positive rate takes recall's
// shape of bounds.
var pairedFigures = map[string]struct {
	of, diff func([]SampleUnit, float64) WeightedRatio
	kind     reachKind
}{
	FigureRecall:            {WeightedRecall, WeightedRecallDiff, reachRecall},
	FigureFalsePositiveRate: {weightedFPR, WeightedFPRDiff, reachRecall},
	FigurePrecision:         {WeightedPrecision, nil, reachPrecision},
}

// swap puts Other (the baseline judge) in Match.
func swap(units []SampleUnit) []SampleUnit {
	out := make([]SampleUnit, len(units))
	for i, u := range units {
		u.Match, u.Other = u.Other, u.Match
		// A baseline without a result on the pair decided nothing; the
		// units are the candidate's pairs: it has a result on each.
		u.Undecided, u.OtherUndecided = u.OtherUndecided || u.OtherAbsent, u.Undecided
		u.OtherAbsent = false
		out[i] = u
	}
	return out
}

// censusFigures computes the unweighted path's comparison figures
// (figureAcc: recall, false-positive rate and precision with their
// paired tests) from labeled units that all weigh 1, Match the
// candidate's result and Other the baseline's: the units both judges
// have a result on, each with its label, clustered by session as
// without --labels.
func (s *Summary) censusFigures(units []SampleUnit) []Figure {
	idx := map[string]uint32{}
	var names []string
	for _, u := range units {
		if _, ok := idx[u.Session]; !ok {
			idx[u.Session] = 0
			names = append(names, u.Session)
		}
	}
	sort.Strings(names)
	for i, n := range names {
		idx[n] = uint32(i)
	}
	bits := func(label, match, undecided bool) uint64 {
		f := uint64(bitNeg)
		if label {
			f = bitPos
		}
		switch {
		case match:
			f |= bitMatch
		case !undecided:
			f |= bitNoMatch
		}
		return f
	}
	fa := s.newFigureAcc(false, len(names))
	for _, u := range units {
		if u.OtherAbsent {
			continue
		}
		fa.add(idx[u.Session], bits(u.Label, u.Other, u.OtherUndecided), bits(u.Label, u.Match, u.Undecided))
	}
	return fa.finish()
}

// weightedFPR is FP/(FP+TN) from labeled units: the labeled negatives
// the judge decided (an unknown answer or a failure is neither an FP nor
// a TN, DESIGN §6).
func weightedFPR(units []SampleUnit, conf float64) WeightedRatio {
	return weightedRatio(units, conf, func(u *SampleUnit, l bool) (float64, float64) {
		return b2f(u.Match && !l), b2f(!l && !u.Undecided)
	}, true)
}

// setPaired fills a comparison figure from weighted estimates; d is the
// paired difference (zero value: precision, whose Δ interval and p are
// left to the unweighted test's absence: nil).
func setPaired(f *Figure, b, c, d WeightedRatio, conf float64) {
	f.Baseline, f.Candidate = b.Estimate, c.Estimate
	f.Delta = diff(c.Estimate, b.Estimate)
	f.DeltaLo, f.DeltaHi, f.PValue = nil, nil, nil
	f.DiscordantBaseline, f.DiscordantCandidate = nil, nil
	f.Test = "weighted_paired"
	f.N = c.Units
	if d.Estimate == nil {
		if f.Figure == "precision" {
			f.Test = "weighted"
		}
		return
	}
	f.Delta, f.DeltaLo, f.DeltaHi = d.Estimate, d.Lo, d.Hi
	if d.Unreached > 0 && *d.Lo <= 0 && *d.Hi >= 0 {
		// The test would speak of the reached strata only, and the
		// interval holding the unreached ones reaches 0: no p.
		return
	}
	// The two-sided p of the test the interval inverts (gainTest).
	f.PValue = d.P
}
